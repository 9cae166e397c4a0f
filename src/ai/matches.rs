//! Native matches: many games between given players, in parallel, reproducible and shardable.

use rayon::prelude::*;

use super::{choose_move, Player, Trees};
use crate::bits::Bits;
use crate::board::{Geometry, Position};
use crate::cascade::play_unchecked;
use crate::control::Control;
use crate::error::{try_push, try_vec, Result};
use crate::rng::{game_rng, mix};
use crate::rules::Config;
use crate::simulate::{GameSummary, SimOutput};

/// What a native match plays: the seats' players and the run's settings.
#[derive(Clone, Debug)]
pub struct MatchSpec {
    pub seats: Vec<Player>,
    pub seed: u64,
    /// Every game's first move, when set (for opening statistics).
    pub first_move: Option<usize>,
    pub max_plies: Option<u32>,
    /// Keep every game's moves.
    pub record: bool,
}

/// Plays several matches on one board side by side on the current rayon pool (instead of
/// one after another), each `(spec, games)` exactly as `play_match(spec, 0, games)` would.
pub fn play_matches<B: Bits>(
    geo: &Geometry<B>,
    cfg: &Config,
    matches: &[(MatchSpec, usize)],
    control: &Control,
) -> Vec<Result<SimOutput>> {
    matches
        .par_iter()
        .map(|(spec, games)| play_match(geo, cfg, spec, 0, *games, control))
        .collect()
}

/// Plays games `start .. start + games` natively (in parallel on the current rayon pool),
/// seat `s` played by `seats[s]`. Game `i` uses generators seeded from (seed, i) only, so a
/// run split into shards gives the same games. `control` counts finished games; cancelling it
/// stops the run, even inside a long game or search (the output is then marked incomplete).
pub fn play_match<B: Bits>(
    geo: &Geometry<B>,
    cfg: &Config,
    spec: &MatchSpec,
    start: u64,
    games: usize,
    control: &Control,
) -> Result<SimOutput> {
    let unplayed = GameSummary {
        winner: -1,
        ..GameSummary::default()
    };
    let mut summaries = try_vec(games, unplayed, "the games' results")?;
    let mut moves: Vec<Vec<u16>> = try_vec(
        if spec.record { games } else { 0 },
        Vec::new(),
        "the recorded moves",
    )?;
    let play = |j: usize, out: &mut GameSummary, record: Option<&mut Vec<u16>>| -> Result<()> {
        if control.cancelled() {
            return Ok(());
        }
        let i = start + j as u64;
        let mut rng = game_rng(spec.seed, i);
        let search_seed = mix(spec.seed ^ i.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let mut pos = Position::<B>::start(cfg);
        let mut record = record;
        let limit = spec.max_plies.unwrap_or(u32::MAX);
        let mut memories: Vec<Trees<B>> = spec.seats.iter().map(|_| Trees::default()).collect();
        while pos.winner().is_none() && pos.ply < limit && !control.cancelled() {
            let m = match spec.first_move {
                Some(f) if pos.ply == 0 => f,
                _ => {
                    let s = pos.to_move as usize;
                    let memory = Some(&mut memories[s]);
                    let seat = &spec.seats[s];
                    choose_move(geo, cfg, &pos, seat, &mut rng, search_seed, control, memory)?.0
                }
            };
            if pos.ply == 0 {
                out.first_move = m as u16;
            }
            if let Some(r) = record.as_deref_mut() {
                try_push(r, m as u16, "the recorded moves")?;
            }
            let w = play_unchecked(geo, cfg.rules, cfg.players, &mut pos, m, &mut ());
            for (s, memory) in memories.iter_mut().enumerate() {
                if pos.out & (1 << s) != 0 {
                    *memory = Trees::default(); // a seat that is out keeps nothing
                }
            }
            out.waves += w;
            out.longest_cascade = out.longest_cascade.max(w);
        }
        out.plies = pos.ply;
        out.winner = pos.winner().map_or(-1, |w| w as i8);
        control.add_done(1);
        Ok(())
    };
    if spec.record {
        summaries
            .par_iter_mut()
            .zip(moves.par_iter_mut())
            .enumerate()
            .try_for_each(|(j, (out, m))| play(j, out, Some(m)))?;
    } else {
        summaries
            .par_iter_mut()
            .enumerate()
            .try_for_each(|(j, out)| play(j, out, None))?;
    }
    let mut out = SimOutput {
        games: summaries,
        complete: !control.cancelled(),
        ..SimOutput::default()
    };
    if spec.record {
        // Each game is a part of its own, starting at 0 in its moves.
        out.join_moves(games, moves.iter().map(|m| (m.as_slice(), &[0u64][..])))?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    #[test]
    fn choices_are_deterministic() {
        let cfg = Config::new(5, 5, 3, Rules::COLORWARS, 0).unwrap();
        let geo = Geometry::<u64>::new(5, 5);
        let mcts = Player::Mcts(crate::ai::MctsParams {
            simulations: 200,
            time: None,
            c: 1.0,
            trees: 2,
            greedy: 0.5,
            solver: true,
            reuse: true,
            minimax: 0.0,
            cutoff: 0,
        });
        let m = MatchSpec {
            seats: vec![mcts, Player::Greedy, Player::Random],
            seed: 9,
            first_move: None,
            max_plies: None,
            record: true,
        };
        let run = |start, n| play_match(&geo, &cfg, &m, start, n, &Control::new()).unwrap();
        let a = run(0, 6);
        let b = run(0, 6);
        // Shards give the same games as one run.
        let (s1, s2) = (run(0, 2), run(2, 4));
        assert_eq!([s1.games, s2.games].concat(), a.games);
        assert_eq!(a.games, b.games);
        assert_eq!(a.moves, b.moves);
        assert_eq!(a.offsets.len(), 7);
    }
}
