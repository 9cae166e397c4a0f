//! The exact solver: the searcher without an evaluation, deepened until the result is proven.

use super::alphabeta::Searcher;
use super::{PROVEN, WIN};
use crate::bits::Bits;
use crate::board::{Geometry, Position};
use crate::control::Control;
use crate::error::Result;
use crate::rules::Config;

/// The most the solver's transposition table grows to: 2^25 entries (768 MiB), less for
/// small boards.
fn solver_table_bits(cells: usize) -> u32 {
    match cells {
        0..=9 => 18,
        10..=12 => 23,
        _ => 25,
    }
}

/// The result of solving a position exactly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// The winning player.
    pub winner: usize,
    /// The game's length under perfect play, from the position.
    pub plies: u32,
    /// A principal variation: the winner wins as fast as it can, the loser holds out.
    pub line: Vec<usize>,
    /// Positions searched.
    pub positions: u64,
}

/// Solves a two-player position exactly: iterative deepening on the game's length until the
/// result is proven. Under `none`+`subtract` (classic) orbs rise by one per move, so a game
/// lasts at most capacity + 1 plies and one search to that depth is complete; otherwise the
/// depth grows until a forced result appears (`max_depth` bounds the effort).
/// `Ok(None)`: not proven within `max_depth`, or stopped because `control` was cancelled.
pub fn solve<B: Bits>(
    geo: &Geometry<B>,
    cfg: &Config,
    pos: &Position<B>,
    max_depth: i32,
    control: &Control,
) -> Result<Option<Solution>> {
    Ok(Solver::new(geo, cfg, control)?.solve(pos, max_depth))
}

/// The exact result of every legal move of a position: (cell, winner, plies from the
/// position, the move included).
pub type MoveResult = (usize, usize, u32);

/// What `solve_position` finds: the position's solution, with `moves` every legal move's exact
/// result (empty otherwise, or once the game is over), and the positions searched.
pub type PositionSolution = (Solution, Vec<MoveResult>, u64);

/// Solves `pos` exactly and, with `moves`, every legal move after it, with one table shared by
/// all of them. None if something is not proven within `max_depth` plies.
/// `table_bits`: the most the table grows to (`2^bits` entries of 24 bytes; None: by the
/// board, up to 2^25); it starts at 2^18 and grows as it fills (`Table::growing`).
pub fn solve_position<B: Bits>(
    geo: &Geometry<B>,
    cfg: &Config,
    pos: &Position<B>,
    max_depth: i32,
    moves: bool,
    table_bits: Option<u32>,
    control: &Control,
) -> Result<Option<PositionSolution>> {
    let mut solver = match table_bits {
        Some(bits) => Solver::with_table_bits(geo, cfg, bits, control)?,
        None => Solver::new(geo, cfg, control)?,
    };
    let Some(best) = solver.solve(pos, max_depth) else {
        return Ok(None);
    };
    let each = if moves && pos.winner().is_none() {
        match solver.solve_moves(pos, max_depth) {
            Some(each) => each,
            None => return Ok(None),
        }
    } else {
        Vec::new()
    };
    Ok(Some((best, each, solver.positions())))
}

/// A solver that keeps its transposition table between positions (the moves of one position
/// share most of their subtrees).
pub struct Solver<'a, B> {
    search: Searcher<'a, B>,
}

impl<'a, B: Bits> Solver<'a, B> {
    pub fn new(geo: &'a Geometry<B>, cfg: &'a Config, control: &'a Control) -> Result<Self> {
        Self::with_table_bits(geo, cfg, solver_table_bits(geo.cells), control)
    }

    /// A solver whose table grows to `2^bits` entries at most (clamped to 10 to 30).
    pub fn with_table_bits(
        geo: &'a Geometry<B>,
        cfg: &'a Config,
        bits: u32,
        control: &'a Control,
    ) -> Result<Self> {
        let bits = bits.clamp(10, 30);
        let mut search = Searcher::new(geo, cfg, false, None, bits, control)?;
        search.report = true; // the positions searched are the solver's progress
        Ok(Solver { search })
    }

    /// See `solve`. `positions` counts the positions this call searched.
    pub fn solve(&mut self, pos: &Position<B>, max_depth: i32) -> Option<Solution> {
        if let Some(w) = pos.winner() {
            return Some(Solution {
                winner: w,
                plies: 0,
                line: Vec::new(),
                positions: 0,
            });
        }
        let s = &mut self.search;
        let before = s.positions;
        let mut depth = 2;
        let score = loop {
            let (_, score) = s.root(pos, depth);
            if s.stopped {
                return None;
            }
            if score.abs() > PROVEN {
                break score;
            }
            if depth >= max_depth {
                return None;
            }
            depth = (depth + 2).min(max_depth);
        };
        // The table may prove a result at a shallower depth than its length (entries from
        // earlier, deeper searches): a shorter win could then lie between the two depths.
        // Searching as deep as the result is long makes the length exact.
        let mut score = score;
        while WIN - score.abs() > depth {
            depth = WIN - score.abs();
            let (_, again) = s.root(pos, depth);
            if s.stopped {
                return None;
            }
            score = again;
        }
        // Follow moves that keep the proven score to write the principal variation, searched
        // at least as deep as the result is long.
        let plies = (WIN - score.abs()) as u32;
        let mut line = Vec::new();
        let mut cur = *pos;
        let mut want = score;
        let mut d = depth.max(plies as i32);
        while cur.winner().is_none() {
            let mut found = None;
            for m in s.ordered_moves(&cur, None) {
                let child = s.child(&cur, m);
                let value = if child.winner().is_some() {
                    WIN - 1
                } else {
                    -s.negamax(&child, d - 1, -WIN - 1, WIN + 1, 1)
                };
                if value == want {
                    found = Some((m, child));
                    break;
                }
            }
            // None: stopped (cancelled) while writing the line.
            let (m, child) = found?;
            line.push(m);
            cur = child;
            // One ply on, the score seen by the other player, one ply nearer the end.
            want = if want > 0 { -(want + 1) } else { -(want - 1) };
            d -= 1;
        }
        let winner = cur.winner()?;
        debug_assert_eq!(plies as usize, line.len());
        Some(Solution {
            winner,
            plies,
            line,
            positions: s.positions - before,
        })
    }

    /// The exact result after each legal move of `pos`, ascending by cell: `None` if one of
    /// them is not proven within `max_depth` plies (or the solver was cancelled).
    pub fn solve_moves(&mut self, pos: &Position<B>, max_depth: i32) -> Option<Vec<MoveResult>> {
        let mut out = Vec::new();
        for m in self.search.ordered_moves(pos, None) {
            let child = self.search.child(pos, m);
            let s = self.solve(&child, (max_depth - 1).max(1))?;
            out.push((m, s.winner, s.plies + 1));
        }
        out.sort_unstable();
        Some(out)
    }

    /// Positions searched since the solver was made.
    pub fn positions(&self) -> u64 {
        self.search.positions
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cascade::{legal_mask, play_unchecked};
    use crate::rules::Rules;

    /// Brute force, no pruning and no table: the exact value for the player to move
    /// (+n: wins in n plies, -n: loses in n plies), classic only (finite, no cycles).
    fn brute(geo: &Geometry<u64>, cfg: &Config, pos: &Position<u64>) -> i32 {
        let mut best: Option<i32> = None;
        legal_mask(geo, cfg.rules, pos).for_each(|m| {
            let mut child = *pos;
            play_unchecked(geo, cfg.rules, cfg.players, &mut child, m, &mut ());
            let v = if child.winner().is_some() {
                1
            } else {
                let w = brute(geo, cfg, &child);
                if w > 0 {
                    -(w + 1)
                } else {
                    -w + 1
                }
            };
            // Prefer wins, then the shortest win; among losses the longest.
            best = Some(match best {
                None => v,
                Some(b) if (v > 0) != (b > 0) => b.max(v),
                Some(b) if v > 0 => b.min(v),
                Some(b) => b.min(v),
            });
        });
        best.expect("a live position has a move")
    }

    #[test]
    fn solver_agrees_with_brute_force() {
        for (w, h) in [(2, 2), (2, 3), (3, 2)] {
            let cfg = Config::new(w, h, 2, Rules::CLASSIC, 0).unwrap();
            let geo = Geometry::<u64>::new(w as usize, h as usize);
            let start = Position::<u64>::start(&cfg);
            let sol = solve(&geo, &cfg, &start, 200, &Control::new())
                .unwrap()
                .unwrap();
            let b = brute(&geo, &cfg, &start);
            assert_eq!(sol.plies as i32, b.abs(), "{w}x{h}");
            assert_eq!(sol.winner, if b > 0 { 0 } else { 1 }, "{w}x{h}");
            // The line replays to that result.
            let mut pos = start;
            for &m in &sol.line {
                assert!(legal_mask(&geo, cfg.rules, &pos).has(m));
                play_unchecked(&geo, cfg.rules, 2, &mut pos, m, &mut ());
            }
            assert_eq!(pos.winner(), Some(sol.winner));
        }
    }

    #[test]
    fn a_shared_table_gives_the_results_of_fresh_solvers() {
        // Solving a position's moves one after another reuses the table; each result must be
        // the one a solver of its own finds, and its line must replay to it.
        for rules in [Rules::CLASSIC, Rules::COLORWARS] {
            let cfg = Config::new(2, 3, 2, rules, 0).unwrap();
            let geo = Geometry::<u64>::new(2, 3);
            let control = Control::new();
            let mut pos = Position::<u64>::start(&cfg);
            play_unchecked(&geo, cfg.rules, 2, &mut pos, 0, &mut ());
            let mut shared = Solver::new(&geo, &cfg, &control).unwrap();
            shared.solve(&pos, 200).unwrap();
            let each = shared.solve_moves(&pos, 200).unwrap();
            assert!(!each.is_empty());
            for (m, winner, plies) in each {
                let mut child = pos;
                play_unchecked(&geo, cfg.rules, 2, &mut child, m, &mut ());
                let fresh = solve(&geo, &cfg, &child, 199, &control).unwrap().unwrap();
                assert_eq!((winner, plies), (fresh.winner, fresh.plies + 1), "move {m}");
                let again = shared.solve(&child, 199).unwrap();
                assert_eq!(again.line.len() as u32, again.plies);
                let mut end = child;
                for &c in &again.line {
                    assert!(legal_mask(&geo, cfg.rules, &end).has(c));
                    play_unchecked(&geo, cfg.rules, 2, &mut end, c, &mut ());
                }
                assert_eq!(end.winner(), Some(winner));
            }
        }
    }
}
