//! Native random playouts: whole games with uniformly random legal moves, no allocation.
//! The benchmark drives this; high-volume simulation builds on it.

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::bits::{Bits, Wide};
use crate::board::{Geometry, Position};
use crate::cascade::{legal_mask, play_unchecked};
use crate::rules::Config;

/// What a batch of playouts did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlayoutStats {
    pub games: u64,
    pub plies: u64,
    pub waves: u64,
    /// Games won by each player.
    pub wins: [u64; 8],
}

/// Plays `games` games from the empty board, every move uniform over the legal moves.
pub fn random_games(cfg: &Config, games: u64, seed: u64) -> PlayoutStats {
    match cfg.cells() {
        0..=64 => random_games_on::<u64>(cfg, games, seed),
        65..=128 => random_games_on::<Wide<2>>(cfg, games, seed),
        129..=256 => random_games_on::<Wide<4>>(cfg, games, seed),
        _ => random_games_on::<Wide<16>>(cfg, games, seed),
    }
}

fn random_games_on<B: Bits>(cfg: &Config, games: u64, seed: u64) -> PlayoutStats {
    let geo = Geometry::<B>::new(cfg.width, cfg.height);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut stats = PlayoutStats::default();
    let start = Position::<B>::start(cfg);
    for _ in 0..games {
        let mut pos = start;
        loop {
            let legal = legal_mask(&geo, cfg.rules, &pos);
            let n = legal.count();
            if n == 0 {
                break;
            }
            let cell = legal.nth(rng.random_range(0..n));
            stats.waves += u64::from(play_unchecked(
                &geo,
                cfg.rules,
                cfg.players,
                &mut pos,
                cell,
                &mut (),
            ));
        }
        stats.games += 1;
        stats.plies += u64::from(pos.ply);
        if let Some(w) = pos.winner() {
            stats.wins[w] += 1;
        }
    }
    stats
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    #[test]
    fn random_game_lengths_match_rules_notes() {
        // RULES-NOTES §4: mean random game length about 31 plies on 5x5 colorwars and about
        // 121 on 8x8 classic.
        let cw = random_games(&Config::new(5, 5, 2, Rules::COLORWARS, 0).unwrap(), 4000, 1);
        let mean = cw.plies as f64 / cw.games as f64;
        assert!((29.0..33.0).contains(&mean), "5x5 colorwars mean {mean}");
        let cl = random_games(&Config::new(8, 8, 2, Rules::CLASSIC, 0).unwrap(), 2000, 2);
        let mean = cl.plies as f64 / cl.games as f64;
        assert!((116.0..126.0).contains(&mean), "8x8 classic mean {mean}");
        assert_eq!(cl.wins.iter().sum::<u64>(), cl.games);
    }
}
