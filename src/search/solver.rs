//! The exact solver: the searcher without an evaluation, deepened until the result is proven.

use super::alphabeta::Searcher;
use super::{PROVEN, WIN};
use crate::bits::Bits;
use crate::board::{Geometry, Position};
use crate::control::Control;
use crate::error::Result;
use crate::rules::Config;

/// The solver's transposition table: up to 2^25 entries (768 MiB), smaller for small boards
/// (filling a large table costs more than solving a tiny board).
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
    if let Some(w) = pos.winner() {
        return Ok(Some(Solution {
            winner: w,
            plies: 0,
            line: Vec::new(),
            positions: 0,
        }));
    }
    let mut s = Searcher::new(geo, cfg, false, None, solver_table_bits(geo.cells), control)?;
    let mut depth = 2;
    let score = loop {
        let (_, score) = s.root(pos, depth);
        if s.stopped {
            return Ok(None);
        }
        if score.abs() > PROVEN {
            break score;
        }
        if depth >= max_depth {
            return Ok(None);
        }
        depth = (depth + 2).min(max_depth);
    };
    // Follow moves that keep the proven score to write the principal variation.
    let mut line = Vec::new();
    let mut cur = *pos;
    let mut want = score;
    let mut d = depth;
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
        let Some((m, child)) = found else {
            return Ok(None); // stopped (cancelled) while writing the line
        };
        line.push(m);
        cur = child;
        // One ply on, the score seen by the other player, one ply nearer the end.
        want = if want > 0 { -(want + 1) } else { -(want - 1) };
        d -= 1;
    }
    let Some(winner) = cur.winner() else {
        return Ok(None);
    };
    let plies = (WIN - score.abs()) as u32;
    debug_assert_eq!(plies as usize, line.len());
    Ok(Some(Solution {
        winner,
        plies,
        line,
        positions: s.positions,
    }))
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
}
