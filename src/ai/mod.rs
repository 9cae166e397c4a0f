//! Players: random, greedy, Monte-Carlo tree search and alpha-beta, and native matches
//! between them.

mod matches;
mod mcts;
pub mod net;
mod puct;

pub use matches::{play_match, play_matches, MatchSpec};
pub use mcts::{mcts, mcts_analysis, MctsParams, MoveStats, Trees};
pub use puct::{memory_bound, node_cap, AnyPuct, Leaves, Puct, PuctError, PuctMove, PuctParams};

use std::time::{Duration, Instant};

use rand_xoshiro::Xoshiro256PlusPlus;

use crate::bits::Bits;
use crate::board::{Geometry, Position};
use crate::cascade::legal_mask;
use crate::control::Control;
use crate::error::{Error, Result};
use crate::limits::{MAX_ALPHABETA_DEPTH, MAX_CUTOFF, MAX_THREADS};
use crate::playout::{choose, Playout};
use crate::rules::Config;
use crate::search::{alphabeta_move_eval, Eval};

/// What chooses a seat's moves, with its budget.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Player {
    /// Uniform over the legal moves.
    Random,
    /// The move after whose cascade the mover holds the most orbs; ties broken at random.
    Greedy,
    /// UCT with playouts; see `MctsParams`.
    Mcts(MctsParams),
    /// Iterative-deepening negamax with a transposition table (two players), the horizon
    /// scored by `eval`.
    AlphaBeta {
        depth: i32,
        time: Option<Duration>,
        eval: Eval,
    },
}

impl Player {
    /// The player's kind as the Python API and the command line name it.
    pub fn name(self) -> &'static str {
        match self {
            Player::Random => "random",
            Player::Greedy => "greedy",
            Player::Mcts(_) => "mcts",
            Player::AlphaBeta { .. } => "alphabeta",
        }
    }

    /// Checks the player's settings, and that it can play a game of `cfg`.
    pub fn check(&self, cfg: &Config) -> Result<()> {
        match *self {
            Player::Mcts(MctsParams {
                simulations,
                c,
                trees: threads,
                time,
                greedy,
                minimax,
                cutoff,
                ..
            }) => {
                if !(0.0..=1.0).contains(&minimax) || cutoff > MAX_CUTOFF {
                    return Err(Error::InvalidPlayer(format!(
                        "MCTS minimax weight {minimax} and cutoff {cutoff}: allowed are 0 to 1 \
                         and 0 to {MAX_CUTOFF}"
                    )));
                }
                if !(0.0..=1.0).contains(&greedy) {
                    return Err(Error::InvalidPlayer(format!(
                        "MCTS greedy playout share {greedy}: allowed are 0 to 1"
                    )));
                }
                if simulations == 0 && time.is_none() {
                    return Err(Error::InvalidPlayer(
                        "MCTS needs simulations >= 1 or a time budget".into(),
                    ));
                }
                if !(c.is_finite() && c >= 0.0) || threads == 0 || threads > MAX_THREADS {
                    return Err(Error::InvalidPlayer(format!(
                        "MCTS needs c >= 0 and 1 to {MAX_THREADS} trees"
                    )));
                }
            }
            Player::AlphaBeta {
                depth, ref eval, ..
            } => {
                if cfg.players != 2 {
                    // Named as the user named it: `learned` is alpha-beta with that evaluation.
                    let with = match eval {
                        Eval::Hand => "",
                        _ => " with the learned evaluation (learned)",
                    };
                    return Err(Error::InvalidPlayer(format!(
                        "alpha-beta{with} plays two-player games only, not {}",
                        cfg.players
                    )));
                }
                if !(1..=MAX_ALPHABETA_DEPTH).contains(&depth) {
                    return Err(Error::InvalidPlayer(format!(
                        "alpha-beta depth {depth}: allowed are 1 to {MAX_ALPHABETA_DEPTH}"
                    )));
                }
            }
            Player::Random | Player::Greedy => {}
        }
        Ok(())
    }
}

/// `choose_move` for a single decision (not a seat of a match): the generator seeded from
/// `seed` and the position, so the same seed and position always give the same move.
pub fn choose_seeded<B: Bits>(
    geo: &Geometry<B>,
    cfg: &Config,
    pos: &Position<B>,
    player: &Player,
    seed: u64,
    control: &Control,
) -> Result<(usize, u64)> {
    let mut rng = crate::rng::game_rng(seed, crate::search::zobrist(pos, cfg.players));
    choose_move(geo, cfg, pos, player, &mut rng, seed, control, None)
}

/// Chooses a move for the player to move (the position must have one): the cell and the
/// work done (simulations, positions searched, moves tried). `seed` makes every choice
/// reproducible: searches seed their generator from (seed, position). A search stops early
/// (with the best move found so far) once `control` is cancelled. `memory` is what the seat
/// keeps between its moves in one game (MCTS's trees, with `MctsParams::reuse`).
#[allow(clippy::too_many_arguments)]
pub fn choose_move<B: Bits>(
    geo: &Geometry<B>,
    cfg: &Config,
    pos: &Position<B>,
    player: &Player,
    rng: &mut Xoshiro256PlusPlus,
    seed: u64,
    control: &Control,
    memory: Option<&mut Trees<B>>,
) -> Result<(usize, u64)> {
    let legal = legal_mask(geo, cfg.rules, pos);
    Ok(match *player {
        Player::Random => (choose(geo, cfg, pos, legal, Playout::Random, rng), 0),
        Player::Greedy => (
            choose(geo, cfg, pos, legal, Playout::Greedy, rng),
            legal.count() as u64,
        ),
        Player::Mcts(params) => mcts(geo, cfg, pos, &params, seed, control, memory),
        Player::AlphaBeta { depth, time, eval } => {
            let deadline = time.map(|t| Instant::now() + t);
            let (m, _, positions) =
                alphabeta_move_eval(geo, cfg, pos, depth, deadline, control, &eval)?;
            (m, positions)
        }
    })
}

#[cfg(test)]
mod tests {
    use crate::control::Control;

    use super::*;
    use crate::rules::Rules;

    fn wins(cfg: &Config, a: Player, b: Player, games: usize) -> (usize, usize) {
        // Both seats: half the games with a first, half with b first.
        let geo = Geometry::<u64>::new(cfg.width, cfg.height);
        let run = |seats: Vec<Player>, seed| {
            let spec = MatchSpec {
                seats,
                seed,
                first_move: None,
                max_plies: None,
                record: false,
            };
            play_match(&geo, cfg, &spec, 0, games / 2, &Control::new())
                .unwrap()
                .games
        };
        let first = run(vec![a, b], 1);
        let second = run(vec![b, a], 2);
        let a_wins = first.iter().filter(|g| g.winner == 0).count()
            + second.iter().filter(|g| g.winner == 1).count();
        (a_wins, games)
    }

    #[test]
    fn mcts_beats_random() {
        let cfg = Config::new(4, 4, 2, Rules::COLORWARS, 0).unwrap();
        let mcts = Player::Mcts(MctsParams {
            simulations: 300,
            time: None,
            c: 1.4,
            trees: 1,
            greedy: 0.0,
            solver: false,
            reuse: false,
            minimax: 0.0,
            cutoff: 0,
        });
        let (w, n) = wins(&cfg, mcts, Player::Random, 40);
        assert!(w >= 36, "MCTS won {w} of {n}");
    }

    #[test]
    fn alphabeta_beats_greedy_and_finds_a_win_in_one() {
        let cfg = Config::new(4, 4, 2, Rules::CLASSIC, 0).unwrap();
        let (w, n) = wins(
            &cfg,
            Player::AlphaBeta {
                depth: 3,
                time: None,
                eval: Eval::Hand,
            },
            Player::Greedy,
            40,
        );
        assert!(w >= 30, "alpha-beta won {w} of {n}");
        // 2x2 classic, a to move: a1 takes b's only cell.
        let cfg = Config::new(2, 2, 2, Rules::CLASSIC, 0).unwrap();
        let setup = crate::notation::parse_position("2x2 classic 2 1a1b/.. a ab - 2").unwrap();
        let crate::game::AnyGame::W1(g) = crate::game::AnyGame::from_setup(&setup).unwrap() else {
            panic!()
        };
        let (m, score, _) =
            crate::search::alphabeta_move(g.geo(), &cfg, g.pos(), 4, None, &Control::new())
                .unwrap();
        assert_eq!(m, 0);
        assert_eq!(score, crate::search::WIN - 1);
    }
}
