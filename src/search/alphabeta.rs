//! The negamax searcher (alpha-beta with a transposition table) and the alpha-beta player.

use crate::control::Control;
use crate::error::Result;
use std::time::Instant;

use super::table::{from_tt, to_tt, Bound, Entry, Table};
use super::zobrist::zobrist;
use super::{PROVEN, WIN};
use crate::bits::Bits;
use crate::board::{Geometry, Position};
use crate::cascade::{legal_mask, play_unchecked};
use crate::rules::Config;

use super::learned::{around, learned_evaluate, loaded, shipped, Weights};

/// What scores the positions at alpha-beta's horizon.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Eval {
    /// The hand-made evaluation (`evaluate`).
    Hand,
    /// The learned evaluation with the weights shipped for the game's rules
    /// (`learned::shipped`).
    Learned,
    /// The learned evaluation with these weights (the fitting tool's candidates).
    Weights(Weights),
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
    let full = loaded(geo, pos);
    let exposed = (full & theirs & around(geo, full & mine)).count() as i32;
    material(mine) - material(theirs) + 5 * exposed
}

/// A negamax searcher with a transposition table, for two players.
pub struct Searcher<'a, B> {
    pub geo: &'a Geometry<B>,
    pub cfg: &'a Config,
    /// Evaluate horizon positions (alpha-beta) or score them 0, unknown (solver).
    pub use_eval: bool,
    tt: Table,
    /// Positions searched so far.
    pub positions: u64,
    deadline: Option<Instant>,
    control: &'a Control,
    /// Set once the deadline passed or the control was cancelled: results are then partial.
    pub stopped: bool,
    /// Count the positions searched on `control` (the exact solver's progress; a player in a
    /// match leaves it to the match, which counts games there).
    pub report: bool,
    /// An evaluation of horizon positions that replaces `evaluate` (the learned one: the
    /// network's value, scaled), where set.
    pub leaf: Option<&'a LeafEval<'a, B>>,
    /// The learned evaluation's weights, where it replaces `evaluate`.
    pub weights: Option<&'a Weights>,
}

/// A horizon evaluation: the score of a position for the player to move (below `PROVEN`).
pub type LeafEval<'a, B> = dyn Fn(&Position<B>) -> i32 + Sync + 'a;

/// Tables asked for larger than `2^GROW_FROM` entries (6 MiB) start at that size and grow
/// as they fill (`Table::growing`).
const GROW_FROM: u32 = 18;

impl<'a, B: Bits> Searcher<'a, B> {
    /// A searcher with a table of up to `2^tt_bits` entries (grown to as it fills, from
    /// `2^GROW_FROM`).
    pub fn new(
        geo: &'a Geometry<B>,
        cfg: &'a Config,
        use_eval: bool,
        deadline: Option<Instant>,
        tt_bits: u32,
        control: &'a Control,
    ) -> Result<Self> {
        Ok(Searcher {
            geo,
            cfg,
            use_eval,
            tt: if tt_bits > GROW_FROM {
                Table::growing(GROW_FROM, tt_bits)?
            } else {
                Table::new(tt_bits)?
            },
            positions: 0,
            deadline,
            control,
            report: false,
            stopped: false,
            leaf: None,
            weights: None,
        })
    }

    /// The position after `m`.
    pub(super) fn child(&self, pos: &Position<B>, m: usize) -> Position<B> {
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

    pub(super) fn ordered_moves(&self, pos: &Position<B>, first: Option<usize>) -> Vec<usize> {
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
        self.positions += 1;
        if self.report && self.positions & 1023 == 0 {
            self.control.add_done(1024);
        }
        // The clock every 1,024 positions, or every 16 when a network evaluates the leaves
        // (each costs about as much as a thousand of the hand-made evaluation).
        let every = if self.leaf.is_some() { 15 } else { 1023 };
        if self.positions & every == 0
            && (self.control.cancelled() || self.deadline.is_some_and(|d| Instant::now() >= d))
        {
            self.stopped = true;
        }
        if self.stopped {
            return 0;
        }
        if depth == 0 {
            if let Some(leaf) = self.leaf {
                return leaf(pos).clamp(-PROVEN + 1, PROVEN - 1);
            }
            return if !self.use_eval {
                0
            } else if let Some(w) = self.weights {
                learned_evaluate(self.geo, pos, w).clamp(-PROVEN + 1, PROVEN - 1)
            } else {
                evaluate(self.geo, pos)
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
    control: &Control,
) -> Result<(usize, i32, u64)> {
    alphabeta_move_with(geo, cfg, pos, max_depth, deadline, control, None)
}

/// `alphabeta_move` with the horizon scored by `eval`.
pub fn alphabeta_move_eval<B: Bits>(
    geo: &Geometry<B>,
    cfg: &Config,
    pos: &Position<B>,
    max_depth: i32,
    deadline: Option<Instant>,
    control: &Control,
    eval: &Eval,
) -> Result<(usize, i32, u64)> {
    let weights = match eval {
        Eval::Hand => None,
        Eval::Learned => Some(shipped(cfg.rules)),
        Eval::Weights(w) => Some(w),
    };
    deepen(geo, cfg, pos, max_depth, deadline, control, None, weights)
}

/// `alphabeta_move` with `leaf` evaluating the horizon positions instead of `evaluate`.
pub fn alphabeta_move_with<B: Bits>(
    geo: &Geometry<B>,
    cfg: &Config,
    pos: &Position<B>,
    max_depth: i32,
    deadline: Option<Instant>,
    control: &Control,
    leaf: Option<&LeafEval<'_, B>>,
) -> Result<(usize, i32, u64)> {
    deepen(geo, cfg, pos, max_depth, deadline, control, leaf, None)
}

/// Iterative deepening with the horizon scored by `leaf`, else the learned evaluation with
/// `weights`, else `evaluate`.
#[allow(clippy::too_many_arguments)]
fn deepen<B: Bits>(
    geo: &Geometry<B>,
    cfg: &Config,
    pos: &Position<B>,
    max_depth: i32,
    deadline: Option<Instant>,
    control: &Control,
    leaf: Option<&LeafEval<'_, B>>,
    weights: Option<&Weights>,
) -> Result<(usize, i32, u64)> {
    let mut s = Searcher::new(geo, cfg, true, deadline, 16, control)?;
    s.leaf = leaf;
    s.weights = weights;
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
    Ok((chosen.0, chosen.1, s.positions))
}
