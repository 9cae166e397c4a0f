//! High-volume simulation: many complete games, each seat played by a playout policy (random
//! or greedy, `playout.rs`), on a thread pool.
//!
//! Reproducibility: game `i` draws all its randomness from `rng::game_rng(seed, i)` alone (see
//! `rng`), so the games are the same whatever the threads or shards.

use rayon::prelude::*;

use crate::bits::Bits;
use crate::board::{Geometry, Position};
use crate::cascade::{legal_mask, play_unchecked};
use crate::control::Control;
use crate::error::{try_push, try_vec, Error, Result};
use crate::playout::{choose, Playout};
use crate::rng::game_rng;
use crate::rules::Config;
use crate::with_storage;

/// What to simulate.
#[derive(Clone, Copy, Debug)]
pub struct SimSpec {
    pub cfg: Config,
    /// One player per seat (only the first `cfg.players` are used).
    pub seats: [Playout; 8],
    pub seed: u64,
    /// Stop a game after this many plies and mark it unfinished (`None`: play to the end).
    pub max_plies: Option<u32>,
    /// Keep every game's moves.
    pub record: bool,
}

/// One game's outcome. `winner` is -1 for a game cut off by `max_plies`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GameSummary {
    pub winner: i8,
    pub plies: u32,
    /// Waves over all the game's cascades.
    pub waves: u32,
    /// The most waves in one move's cascade.
    pub longest_cascade: u32,
    /// The cell of the game's first move.
    pub first_move: u16,
}

/// The games of a run, in game-index order.
#[derive(Clone, Debug, Default)]
pub struct SimOutput {
    pub games: Vec<GameSummary>,
    /// With `record`: all moves, game after game; game `i` is `moves[offsets[i]..offsets[i+1]]`.
    pub moves: Vec<u16>,
    pub offsets: Vec<u64>,
    /// False when the run was cancelled; then only the games counted as done are meaningful.
    pub complete: bool,
}

impl SimOutput {
    /// Joins recorded moves kept in parts (blocks of games, or single games): each part gives
    /// its moves and where each of its games starts in them. The memory is reserved first
    /// (`Error::OutOfMemory` rather than an abort).
    pub(crate) fn join_moves<'a, I>(&mut self, games: usize, parts: I) -> Result<()>
    where
        I: Iterator<Item = (&'a [u16], &'a [u64])> + Clone,
    {
        let total: usize = parts.clone().map(|(m, _)| m.len()).sum();
        let oom = |_| Error::OutOfMemory("the recorded moves".into());
        self.offsets.try_reserve_exact(games + 1).map_err(oom)?;
        self.moves.try_reserve_exact(total).map_err(oom)?;
        for (moves, starts) in parts {
            let base = self.moves.len() as u64;
            self.offsets.extend(starts.iter().map(|x| x + base));
            self.moves.extend_from_slice(moves);
        }
        self.offsets.push(self.moves.len() as u64);
        Ok(())
    }
}

/// Plays game `index` of a run from the empty board, appending its moves to `moves` when
/// given. A greedy game (slow on big boards) stops early once `control` is cancelled.
#[inline]
pub fn play_game<B: Bits>(
    geo: &Geometry<B>,
    spec: &SimSpec,
    index: u64,
    moves: Option<&mut Vec<u16>>,
    control: &Control,
) -> Result<GameSummary> {
    let cfg = &spec.cfg;
    let mut rng = game_rng(spec.seed, index);
    let mut pos = Position::<B>::start(cfg);
    let mut out = GameSummary {
        winner: -1,
        ..GameSummary::default()
    };
    let limit = spec.max_plies.unwrap_or(u32::MAX);
    let all_random = spec.seats[..cfg.players]
        .iter()
        .all(|p| matches!(p, Playout::Random));
    let mut record = moves;
    while pos.ply < limit {
        let legal = legal_mask(geo, cfg.rules, &pos);
        if legal.is_zero() || (!all_random && control.cancelled()) {
            break;
        }
        let player = if all_random {
            Playout::Random
        } else {
            spec.seats[pos.to_move as usize]
        };
        let cell = choose(geo, cfg, &pos, legal, player, &mut rng);
        if pos.ply == 0 {
            out.first_move = cell as u16;
        }
        if let Some(m) = record.as_deref_mut() {
            try_push(m, cell as u16, "the recorded moves")?;
        }
        let waves = play_unchecked(geo, cfg.rules, cfg.players, &mut pos, cell, &mut ());
        out.waves += waves;
        out.longest_cascade = out.longest_cascade.max(waves);
    }
    out.plies = pos.ply;
    if let Some(w) = pos.winner() {
        out.winner = w as i8;
    }
    Ok(out)
}

/// Games per unit of work handed to a thread; progress is counted per block.
const BLOCK: usize = 256;

/// Plays games `start .. start + count` of a run on the current rayon pool. `control`
/// counts finished games as they complete; cancelling it makes the run stop early (the output
/// is then marked incomplete). Memory for the results is reserved up front:
/// `Error::OutOfMemory` rather than an abort when it cannot be had.
pub fn simulate(spec: &SimSpec, start: u64, count: usize, control: &Control) -> Result<SimOutput> {
    with_storage!(spec.cfg.cells(), B => simulate_on::<B>(spec, start, count, control))
}

fn simulate_on<B: Bits>(
    spec: &SimSpec,
    start: u64,
    count: usize,
    control: &Control,
) -> Result<SimOutput> {
    let geo = Geometry::<B>::new(spec.cfg.width, spec.cfg.height);
    let mut games = try_vec(count, GameSummary::default(), "the games' results")?;
    let blocks = if spec.record {
        count.div_ceil(BLOCK)
    } else {
        0
    };
    let mut block_moves: Vec<Vec<u16>> = try_vec(blocks, Vec::new(), "the recorded moves")?;
    let mut block_offsets: Vec<Vec<u64>> = try_vec(blocks, Vec::new(), "the recorded moves")?;
    let run_block = |b: usize,
                     chunk: &mut [GameSummary],
                     mut moves: Option<(&mut Vec<u16>, &mut Vec<u64>)>|
     -> Result<()> {
        if control.cancelled() {
            return Ok(());
        }
        let first = start + (b * BLOCK) as u64;
        for (j, g) in chunk.iter_mut().enumerate() {
            let index = first + j as u64;
            *g = match moves.as_mut() {
                None => play_game(&geo, spec, index, None, control)?,
                Some((m, offsets)) => {
                    try_push(offsets, m.len() as u64, "the recorded moves")?;
                    play_game(&geo, spec, index, Some(m), control)?
                }
            };
        }
        control.add_done(chunk.len() as u64);
        Ok(())
    };
    let result: Result<()> = if spec.record {
        games
            .par_chunks_mut(BLOCK)
            .zip(block_moves.par_iter_mut().zip(block_offsets.par_iter_mut()))
            .enumerate()
            .try_for_each(|(b, (chunk, (m, o)))| run_block(b, chunk, Some((m, o))))
    } else {
        games
            .par_chunks_mut(BLOCK)
            .enumerate()
            .try_for_each(|(b, chunk)| run_block(b, chunk, None))
    };
    result?;
    let mut out = SimOutput {
        games,
        complete: !control.cancelled(),
        ..SimOutput::default()
    };
    if spec.record {
        let parts = block_moves.iter().zip(&block_offsets);
        out.join_moves(count, parts.map(|(m, o)| (m.as_slice(), o.as_slice())))?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::AnyGame;
    use crate::rules::Rules;

    fn spec(
        w: i64,
        h: i64,
        players: i64,
        rules: Rules,
        seats: [Playout; 8],
        record: bool,
    ) -> SimSpec {
        SimSpec {
            cfg: Config::new(w, h, players, rules, 0).unwrap(),
            seats,
            seed: 42,
            max_plies: None,
            record,
        }
    }

    fn run(spec: &SimSpec, start: u64, count: usize, threads: usize) -> SimOutput {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| simulate(spec, start, count, &Control::new()).unwrap())
    }

    #[test]
    fn same_games_whatever_the_threads_and_shards() {
        let s = spec(
            5,
            5,
            3,
            Rules::COLORWARS,
            [
                Playout::Random,
                Playout::Greedy,
                Playout::Random,
                Playout::Random,
                Playout::Random,
                Playout::Random,
                Playout::Random,
                Playout::Random,
            ],
            true,
        );
        let one = run(&s, 0, 1000, 1);
        let two = run(&s, 0, 1000, 2);
        assert_eq!(one.games, two.games);
        assert_eq!(one.moves, two.moves);
        assert_eq!(one.offsets, two.offsets);
        let a = run(&s, 0, 300, 2);
        let b = run(&s, 300, 700, 2);
        assert_eq!([a.games, b.games].concat(), one.games);
    }

    #[test]
    fn recorded_games_replay_through_the_checked_game() {
        let s = spec(4, 4, 2, Rules::CLASSIC, [Playout::Greedy; 8], true);
        let out = run(&s, 0, 200, 2);
        for (i, g) in out.games.iter().enumerate() {
            let mut game = AnyGame::new(s.cfg);
            let moves = &out.moves[out.offsets[i] as usize..out.offsets[i + 1] as usize];
            assert_eq!(moves.len() as u32, g.plies);
            for &m in moves {
                game.play(i64::from(m)).unwrap();
            }
            assert_eq!(game.winner().map_or(-1, |w| w as i8), g.winner);
        }
    }

    #[test]
    fn random_game_lengths_match_rules_notes() {
        // RULES.md §4: mean random game length about 31 plies on 5x5 colorwars and about
        // 121 on 8x8 classic.
        for (w, rules, games, lo, hi) in [
            (5, Rules::COLORWARS, 20_000, 30.0, 31.5),
            (8, Rules::CLASSIC, 5_000, 119.0, 123.0),
        ] {
            let out = run(
                &spec(w, w, 2, rules, [Playout::Random; 8], false),
                0,
                games,
                2,
            );
            let mean = out.games.iter().map(|g| f64::from(g.plies)).sum::<f64>() / games as f64;
            assert!(
                (lo..hi).contains(&mean),
                "{w}x{w} {}: mean {mean}",
                rules.name()
            );
            assert!(out.games.iter().all(|g| g.winner >= 0));
        }
    }

    #[test]
    fn max_plies_marks_games_unfinished() {
        let mut s = spec(8, 8, 2, Rules::CLASSIC, [Playout::Random; 8], false);
        s.max_plies = Some(50);
        let out = run(&s, 0, 100, 1);
        assert!(out.games.iter().all(|g| g.plies == 50 && g.winner == -1));
    }

    #[test]
    fn greedy_beats_random() {
        let mut seats = [Playout::Random; 8];
        seats[0] = Playout::Greedy;
        let s = spec(5, 5, 2, Rules::COLORWARS, seats, false);
        let out = run(&s, 0, 2000, 2);
        let wins = out.games.iter().filter(|g| g.winner == 0).count();
        assert!(wins > 1300, "greedy won {wins} of 2000");
    }

    #[test]
    fn seats_are_random_or_greedy() {
        // Search players cannot even be named here: the seats are playout policies.
        assert_eq!(Playout::parse("greedy"), Ok(Playout::Greedy));
        assert_eq!(
            Playout::parse("mcts").unwrap_err().to_string(),
            "invalid player: unknown player \"mcts\"; the simulation loop plays \"random\" and \
             \"greedy\""
        );
    }

    #[test]
    fn a_cancelled_run_stops_and_says_so() {
        let s = spec(32, 32, 8, Rules::CLASSIC, [Playout::Greedy; 8], false);
        let control = Control::new();
        control.cancel();
        let out = simulate(&s, 0, 10_000, &control).unwrap();
        assert!(!out.complete);
        assert_eq!(control.done(), 0);
    }

    #[test]
    fn an_impossible_request_is_an_error_not_an_abort() {
        let s = spec(5, 5, 2, Rules::COLORWARS, [Playout::Random; 8], false);
        let err = simulate(&s, 0, usize::MAX / 2, &Control::new()).unwrap_err();
        assert!(matches!(err, Error::OutOfMemory(_)), "{err}");
    }

    #[test]
    fn greedy_takes_the_most_orbs() {
        // a to move on 3x3 classic: a1 bursts into b1, which bursts on (4 orbs for a); any
        // other move leaves a with 2.
        let cfg = Config::new(3, 3, 2, Rules::CLASSIC, 0).unwrap();
        let mut g = AnyGame::from_setup(
            &crate::notation::parse_position("3x3 classic 2 1a2b./.../... a ab - 3").unwrap(),
        )
        .unwrap();
        let crate::game::AnyGame::W1(inner) = &mut g else {
            panic!()
        };
        let geo = Geometry::<u64>::new(3, 3);
        let mut rng = game_rng(1, 1);
        let cell = choose(
            &geo,
            &cfg,
            inner.pos(),
            inner.legal_mask(),
            Playout::Greedy,
            &mut rng,
        );
        assert_eq!(cell, 0);
    }
}
