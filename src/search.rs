//! Game-tree search for two players: Zobrist hashing, an iterative-deepening negamax with a
//! transposition table (the alpha-beta player), and the exact solver built on the same search.
//!
//! Scores are from the point of view of the player to move. A won game scores
//! `WIN - plies to the win` (so the winner prefers the shortest win and the loser the longest
//! resistance); positions at the search horizon score the evaluation (alpha-beta) or 0,
//! "unknown" (the solver).

use std::time::Instant;

use crate::bits::Bits;
use crate::board::{Geometry, Position};
use crate::cascade::{legal_mask, play_unchecked};
use crate::rng::mix;
use crate::rules::Config;

pub const WIN: i32 = 1_000_000;
/// Scores beyond this are proven wins or losses.
pub const PROVEN: i32 = WIN - 100_000;

/// Zobrist hash of a position: the XOR of one pseudo-random key per (cell, owner, count),
/// plus keys for the player to move and who has moved / is out. The keys are `mix` of the
/// feature's index, so no table is stored.
pub fn zobrist<B: Bits>(pos: &Position<B>, players: usize) -> u64 {
    let mut h = mix(0x7e57_0000 | u64::from(pos.to_move))
        ^ mix(0x0a11_0000_0000 | u64::from(pos.moved) << 8 | u64::from(pos.out));
    for (p, own) in pos.own.iter().enumerate().take(players) {
        own.for_each(|c| {
            let key = (c as u64) << 8 | (p as u64) << 4 | u64::from(pos.count(c));
            h ^= mix(key.wrapping_add(0x9e37_79b9_7f4a_7c15));
        });
    }
    h
}

/// The alpha-beta player's evaluation, from the point of view of the player to move:
/// `orbs + 2 × cells` of the mover minus the same for the opponent, plus 5 for every opposing
/// loaded cell next to one of the mover's loaded cells (a "loaded" cell is one orb from
/// bursting; whoever moves first takes that exchange).
pub fn evaluate<B: Bits>(geo: &Geometry<B>, pos: &Position<B>) -> i32 {
    let me = pos.to_move as usize;
    let them = 1 - me;
    let (mine, theirs) = (pos.own[me], pos.own[them]);
    let material = |m: B| (pos.orbs_in(m) + 2 * m.count()) as i32;
    let loaded = loaded_cells(geo, pos);
    let my_loaded = loaded & mine;
    let near_mine = my_loaded.shl(1) & geo.not_first_col
        | my_loaded.shr(1) & geo.not_last_col
        | my_loaded.shl(geo.width) & geo.all
        | my_loaded.shr(geo.width);
    let exposed = (loaded & theirs & near_mine).count() as i32;
    material(mine) - material(theirs) + 5 * exposed
}

/// The cells holding at least their capacity (one more orb bursts them).
fn loaded_cells<B: Bits>(geo: &Geometry<B>, pos: &Position<B>) -> B {
    let [c0, c1, c2] = pos.c;
    // count >= 1 in corners, >= 2 on edges, >= 3 inside.
    let ge1 = c0 | c1 | c2;
    let ge2 = c1 | c2;
    let ge3 = c2 | (c1 & c0);
    (geo.corner & ge1) | (geo.edge & ge2) | (geo.inner & ge3)
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u64,
    depth: i32,
    score: i32,
    bound: Bound,
    best: u16,
}

/// A fixed-size transposition table (`2^bits` entries, indexed by the hash's low bits). A new
/// entry replaces the old one unless that one is the same position searched deeper.
struct Table {
    entries: Vec<Entry>,
    mask: u64,
}

impl Table {
    fn new(bits: u32) -> Self {
        let empty = Entry {
            key: 0,
            depth: -1,
            score: 0,
            bound: Bound::Exact,
            best: 0,
        };
        Table {
            entries: vec![empty; 1 << bits],
            mask: (1 << bits) - 1,
        }
    }

    fn get(&self, key: u64) -> Option<Entry> {
        let e = self.entries[(key & self.mask) as usize];
        (e.key == key && e.depth >= 0).then_some(e)
    }

    fn insert(&mut self, e: Entry) {
        let slot = &mut self.entries[(e.key & self.mask) as usize];
        if slot.key != e.key || slot.depth <= e.depth {
            *slot = e;
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

/// Mate scores are stored relative to the node, so they stay right wherever the node recurs.
fn to_tt(score: i32, ply: i32) -> i32 {
    if score > PROVEN {
        score + ply
    } else if score < -PROVEN {
        score - ply
    } else {
        score
    }
}

fn from_tt(score: i32, ply: i32) -> i32 {
    if score > PROVEN {
        score - ply
    } else if score < -PROVEN {
        score + ply
    } else {
        score
    }
}

/// A negamax searcher with a transposition table, for two players.
pub struct Searcher<'a, B> {
    pub geo: &'a Geometry<B>,
    pub cfg: &'a Config,
    /// Evaluate horizon positions (alpha-beta) or score them 0, unknown (solver).
    pub use_eval: bool,
    tt: Table,
    pub nodes: u64,
    deadline: Option<Instant>,
    pub stopped: bool,
}

impl<'a, B: Bits> Searcher<'a, B> {
    pub fn new(
        geo: &'a Geometry<B>,
        cfg: &'a Config,
        use_eval: bool,
        deadline: Option<Instant>,
        tt_bits: u32,
    ) -> Self {
        Searcher {
            geo,
            cfg,
            use_eval,
            tt: Table::new(tt_bits),
            nodes: 0,
            deadline,
            stopped: false,
        }
    }

    /// The position after `m`.
    fn child(&self, pos: &Position<B>, m: usize) -> Position<B> {
        let mut child = *pos;
        play_unchecked(
            self.geo,
            self.cfg.rules,
            self.cfg.players,
            &mut child,
            m,
            &mut (),
        );
        child
    }

    fn ordered_moves(&self, pos: &Position<B>, first: Option<usize>) -> Vec<usize> {
        let mut moves = Vec::with_capacity(32);
        let legal = legal_mask(self.geo, self.cfg.rules, pos);
        if let Some(f) = first.filter(|&f| legal.has(f)) {
            moves.push(f);
        }
        legal.for_each(|c| {
            if Some(c) != first {
                moves.push(c);
            }
        });
        moves
    }

    /// The score of `pos` for the player to move, searched `depth` plies deep.
    pub fn negamax(
        &mut self,
        pos: &Position<B>,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: i32,
    ) -> i32 {
        self.nodes += 1;
        if self.nodes & 1023 == 0 && self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.stopped = true;
        }
        if self.stopped {
            return 0;
        }
        if depth == 0 {
            return if self.use_eval {
                evaluate(self.geo, pos)
            } else {
                0
            };
        }
        let key = zobrist(pos, self.cfg.players);
        let mut tt_move = None;
        if let Some(e) = self.tt.get(key) {
            tt_move = Some(e.best as usize);
            if e.depth >= depth {
                let s = from_tt(e.score, ply);
                match e.bound {
                    Bound::Exact => return s,
                    Bound::Lower if s >= beta => return s,
                    Bound::Upper if s <= alpha => return s,
                    _ => {}
                }
            }
        }
        // Children first: a move that wins at once is the best there is (the shortest win);
        // otherwise the table's move, then the moves that leave the mover the most orbs.
        let mover = pos.to_move as usize;
        let mut children: Vec<(i64, usize, Position<B>)> = Vec::with_capacity(16);
        let legal = legal_mask(self.geo, self.cfg.rules, pos);
        let mut won = None;
        legal.for_each(|m| {
            if won.is_some() {
                return;
            }
            let child = self.child(pos, m);
            if child.winner().is_some() {
                won = Some(m);
            }
            let order = if Some(m) == tt_move {
                i64::MAX
            } else {
                i64::from(child.orbs(mover))
            };
            children.push((order, m, child));
        });
        if let Some(m) = won {
            let best = WIN - (ply + 1);
            self.tt.insert(Entry {
                key,
                depth,
                score: to_tt(best, ply),
                bound: Bound::Exact,
                best: m as u16,
            });
            return best;
        }
        children.sort_by_key(|c| std::cmp::Reverse(c.0));
        let alpha0 = alpha;
        let mut best = -WIN - 1;
        let mut best_move = 0usize;
        for (_, m, child) in children {
            let score = -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1);
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                best_move = m;
            }
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        let bound = if best <= alpha0 {
            Bound::Upper
        } else if best >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.tt.insert(Entry {
            key,
            depth,
            score: to_tt(best, ply),
            bound,
            best: best_move as u16,
        });
        best
    }

    /// The best move at the root and its score, searched `depth` plies deep.
    pub fn root(&mut self, pos: &Position<B>, depth: i32) -> (usize, i32) {
        let key = zobrist(pos, self.cfg.players);
        let tt_move = self.tt.get(key).map(|e| e.best as usize);
        let (mut best, mut best_move) = (-WIN - 1, usize::MAX);
        let mut alpha = -WIN - 1;
        for m in self.ordered_moves(pos, tt_move) {
            let child = self.child(pos, m);
            let score = if child.winner().is_some() {
                WIN - 1
            } else {
                -self.negamax(&child, depth - 1, -WIN - 1, -alpha, 1)
            };
            if self.stopped {
                break;
            }
            if score > best {
                (best, best_move) = (score, m);
            }
            alpha = alpha.max(score);
        }
        if best_move != usize::MAX {
            self.tt.insert(Entry {
                key,
                depth,
                score: best,
                bound: Bound::Exact,
                best: best_move as u16,
            });
        }
        (best_move, best)
    }
}

/// The alpha-beta player's move: iterative deepening to `max_depth`, or until the deadline
/// (the deepest completed iteration counts). Two players only.
pub fn alphabeta_move<B: Bits>(
    geo: &Geometry<B>,
    cfg: &Config,
    pos: &Position<B>,
    max_depth: i32,
    deadline: Option<Instant>,
) -> (usize, i32, u64) {
    let mut s = Searcher::new(geo, cfg, true, deadline, 16);
    let legal = legal_mask(geo, cfg.rules, pos);
    let mut chosen = (legal.nth(0), 0);
    for depth in 1..=max_depth.max(1) {
        let (m, score) = s.root(pos, depth);
        if s.stopped || m == usize::MAX {
            break;
        }
        chosen = (m, score);
        if score.abs() > PROVEN {
            break; // a forced result: deeper search cannot change the decision
        }
    }
    (chosen.0, chosen.1, s.nodes)
}

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
    pub nodes: u64,
}

/// Solves a two-player position exactly: iterative deepening on the game's length until the
/// result is proven. Under `none`+`subtract` (classic) orbs rise by one per move, so a game
/// lasts at most capacity + 1 plies and one search to that depth is complete; otherwise the
/// depth grows until a forced result appears (`max_depth` bounds the effort).
pub fn solve<B: Bits>(
    geo: &Geometry<B>,
    cfg: &Config,
    pos: &Position<B>,
    max_depth: i32,
) -> Option<Solution> {
    if let Some(w) = pos.winner() {
        return Some(Solution {
            winner: w,
            plies: 0,
            line: Vec::new(),
            nodes: 0,
        });
    }
    let mut s = Searcher::new(geo, cfg, false, None, solver_table_bits(geo.cells));
    let mut depth = 2;
    let score = loop {
        let (_, score) = s.root(pos, depth);
        if score.abs() > PROVEN {
            break score;
        }
        if depth >= max_depth {
            return None;
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
        let (m, child) = found?;
        line.push(m);
        cur = child;
        // One ply on, the score seen by the other player, one ply nearer the end.
        want = if want > 0 { -(want + 1) } else { -(want - 1) };
        d -= 1;
    }
    let winner = cur.winner()?;
    let plies = (WIN - score.abs()) as u32;
    debug_assert_eq!(plies as usize, line.len());
    Some(Solution {
        winner,
        plies,
        line,
        nodes: s.nodes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
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
            let sol = solve(&geo, &cfg, &start, 200).unwrap();
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
    fn zobrist_tells_positions_apart() {
        let cfg = Config::new(3, 3, 2, Rules::CLASSIC, 0).unwrap();
        let geo = Geometry::<u64>::new(3, 3);
        let mut seen = std::collections::HashMap::new();
        let mut stack = vec![Position::<u64>::start(&cfg)];
        while let Some(pos) = stack.pop() {
            if seen.len() > 20_000 {
                break;
            }
            let h = zobrist(&pos, 2);
            if let Some(other) = seen.insert(h, pos) {
                assert_eq!(other, pos, "hash collision");
                continue;
            }
            legal_mask(&geo, cfg.rules, &pos).for_each(|m| {
                let mut child = pos;
                play_unchecked(&geo, cfg.rules, 2, &mut child, m, &mut ());
                child.ply = 0; // the same position reached by different move orders
                stack.push(child);
            });
        }
        assert!(seen.len() > 1000);
    }
}
