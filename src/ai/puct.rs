//! AlphaZero-style tree search (PUCT) whose leaves are evaluated outside the core: a network
//! the user brings gives each leaf's move priors and value. No playouts.
//!
//! The search is split into steps that the caller drives, so that the core never calls the
//! evaluator (the Python layer does, between two short native calls):
//! 1. `select(k)`: every searching tree descends by PUCT (virtual loss spreads the leaves of one
//!    tree) until it waits for `k` leaves; each leaf's observation planes and legal mask are
//!    written out (`vecenv`'s layout). A leaf whose result is proven (the game decided, or a
//!    win the solver found) is scored here and never sent out.
//! 2. `expand(logits, values)`: the evaluations of the leaves, in the order they were sent;
//!    priors are the softmax of the logits over the legal moves only, and the value is backed
//!    up along the leaf's path.
//!
//! Values: a leaf's value `v` (-1 to 1) is for its player to move. Backed up, it counts `v`
//! for the edges of that player's moves and `-v / (players - 1)` for every other player's
//! (negamax for two players; for more, the other players are taken to share the opposite
//! result, as `VectorEnv`'s seat rewards do). A decided game scores +1 for its winner and
//! `-1 / (players - 1)` for the others.
//!
//! As in `mcts.rs`: transpositions share a node (one per position and ply, so the graph has
//! no cycles), MCTS-Solver proofs (a node is won for its mover if one move wins or leads to a
//! position won for it, and won for a player who wins after every move; a proven win is
//! played at once, a move proven to lose avoided while another remains), and tree reuse
//! between the moves of one game (`advance`, `set_root`). Memory: a tree holds at most
//! `node_cap(simulations)` nodes, every allocation is `try_reserve`d, and a failed one is
//! `Error::OutOfMemory`.

use std::collections::HashMap;
use std::fmt;

use rand::RngExt;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::bits::{Bits, Wide};
use crate::board::{Geometry, Position};
use crate::cascade::{legal_mask, play_unchecked};
use crate::error::{try_vec, Error};
use crate::game::AnyGame;
use crate::limits::{MAX_C, MAX_SIMULATIONS};
use crate::rng::{game_rng, mix};
use crate::rules::Config;
use crate::search::zobrist;

/// What the search plays with: `simulations` per move, the exploration constant `c_puct`,
/// and Dirichlet noise at the root (`dirichlet` its alpha, `dirichlet_weight` its share of
/// the root's priors; 0 for none).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PuctParams {
    pub simulations: u32,
    pub c_puct: f32,
    pub dirichlet: f32,
    pub dirichlet_weight: f32,
}

impl PuctParams {
    pub fn check(&self) -> std::result::Result<(), Error> {
        let bad = |msg: String| Err(Error::InvalidPlayer(msg));
        if !(1..=MAX_SIMULATIONS).contains(&self.simulations) {
            return bad(format!(
                "PUCT simulations {}: allowed are 1 to {MAX_SIMULATIONS}",
                self.simulations
            ));
        }
        if !(self.c_puct.is_finite() && self.c_puct >= 0.0 && f64::from(self.c_puct) <= MAX_C) {
            return bad(format!(
                "PUCT c_puct {}: allowed are 0 to {MAX_C:e}",
                self.c_puct
            ));
        }
        if !(self.dirichlet.is_finite() && self.dirichlet > 0.0 && self.dirichlet <= 100.0) {
            return bad(format!(
                "PUCT dirichlet alpha {}: allowed are above 0 to 100",
                self.dirichlet
            ));
        }
        if !(0.0..=1.0).contains(&self.dirichlet_weight) {
            return bad(format!(
                "PUCT dirichlet weight {}: allowed are 0 to 1",
                self.dirichlet_weight
            ));
        }
        Ok(())
    }
}

/// The most nodes one tree holds: twice the nodes one search makes (a search makes at most
/// one node per simulation, plus its root), so that a kept tree of up to one search's size
/// is reused and the rest is dropped (see `Tree::start`).
pub fn node_cap(simulations: u32) -> usize {
    2 * (simulations as usize + 1)
}

/// The bytes `trees` trees of a `cfg` game may take at most with `simulations`: the caller's
/// memory check before it asks for them.
pub fn memory_bound(cfg: &Config, trees: usize, simulations: u32) -> u64 {
    let position = crate::with_storage!(cfg.cells(), B => std::mem::size_of::<Node<B>>());
    let per_node = position + cfg.cells() * std::mem::size_of::<Edge>() + INDEX_BYTES;
    (trees as u64)
        .saturating_mul(node_cap(simulations) as u64)
        .saturating_mul(per_node as u64)
}

/// The bytes an index entry takes, about (key, id and the map's own share).
const INDEX_BYTES: usize = 32;

/// No proven result (`Node::proven`).
const OPEN: u8 = u8::MAX;
/// Not expanded yet (`Node::first`).
const LEAF: u32 = u32::MAX;
/// No node yet (`Edge::child`).
const NONE: u32 = u32::MAX;

/// A position of the search graph.
struct Node<B> {
    pos: Position<B>,
    key: u64,
    /// The edges `first .. first + count` of `Tree::edges`, made when the node's evaluation
    /// comes (`LEAF`: none yet).
    first: u32,
    count: u16,
    /// Sent out for evaluation and not back yet.
    pending: bool,
    /// The player proven to win from here, or `OPEN`.
    proven: u8,
    /// The evaluation's value for the player to move (after `expand`).
    value: f32,
    /// The visits and in-flight descents of its edges, summed (kept as they change, so
    /// that choosing an edge does not sum them on every descent).
    seen: u32,
}

/// A move from a node, with the statistics of the simulations that took it from there (a
/// child shared by several parents has one set of statistics per edge).
#[derive(Clone, Copy, Debug)]
struct Edge {
    mv: u16,
    /// The move ends the game (its mover wins): no node, proven at once.
    win: bool,
    child: u32,
    prior: f32,
    visits: u32,
    /// Descents through this edge whose leaf is still being evaluated (virtual loss).
    in_flight: u32,
    /// The backed-up values for the parent's player to move.
    value_sum: f32,
}

/// One game's search graph, its root at node 0.
struct Tree<B> {
    nodes: Vec<Node<B>>,
    edges: Vec<Edge>,
    index: HashMap<u64, u32>,
    /// The root's priors with Dirichlet noise for this search (empty: none).
    noise: Vec<f32>,
    rng: Xoshiro256PlusPlus,
    /// Simulations backed up in this search (the root's own evaluation is none).
    done: u32,
    /// Leaves sent out and not back yet.
    in_flight: u32,
    /// The node cap was met: this search ends with what it has.
    full: bool,
    /// No game: the tree takes no part in `select`.
    idle: bool,
}

/// How a descent ended.
enum Step {
    /// A node to evaluate (new, or abandoned earlier).
    Leaf(u32),
    /// A node proven for a player (or with no move): scored here.
    Scored(Option<u8>),
    /// A node another descent of this batch waits for.
    Collision,
    /// No room for a new node.
    Full,
}

/// A leaf sent out: its tree, node and the (node, edge) pairs that lead to it.
struct Leaf {
    tree: u32,
    node: u32,
    path: std::ops::Range<usize>,
}

/// What `stats` reports of one root move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PuctMove {
    pub cell: usize,
    pub visits: u32,
    /// The mean backed-up value for the player to move (None before a visit).
    pub value: Option<f32>,
    pub prior: f32,
    /// Some(true): proven to win for the player to move; Some(false): proven to lose.
    pub proven: Option<bool>,
}

/// What can go wrong in a step.
#[derive(Clone, Debug, PartialEq)]
pub enum PuctError {
    /// The core's own errors: memory, a game over, an illegal move.
    Core(Error),
    /// Evaluations the search cannot use (their count, a NaN, a value outside -1 to 1).
    Evaluation(String),
    /// A tree index that does not exist.
    NoTree { tree: usize, trees: usize },
    /// The tree still waits for evaluations (`expand` or `abandon` first).
    Busy { tree: usize },
    /// A game of another board, player count or rules than the trees'.
    OtherGame(String),
}

impl From<Error> for PuctError {
    fn from(e: Error) -> Self {
        PuctError::Core(e)
    }
}

impl fmt::Display for PuctError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PuctError::Core(e) => write!(f, "{e}"),
            PuctError::Evaluation(msg) => write!(f, "invalid evaluation: {msg}"),
            PuctError::NoTree { tree, trees } => {
                write!(f, "tree {tree} does not exist (there are {trees})")
            }
            PuctError::Busy { tree } => write!(
                f,
                "tree {tree} waits for the evaluation of its leaves: expand or abandon them first"
            ),
            PuctError::OtherGame(msg) => write!(f, "{msg}"),
        }
    }
}

impl std::error::Error for PuctError {}

type Result<T> = std::result::Result<T, PuctError>;

fn oom(what: &str) -> PuctError {
    PuctError::Core(Error::OutOfMemory(what.to_string()))
}

fn key_of<B: Bits>(pos: &Position<B>, players: usize) -> u64 {
    zobrist(pos, players) ^ mix(u64::from(pos.ply))
}

/// A player's share of a result worth `v` to `player` (module doc: values).
fn share(v: f32, player: usize, of: usize, players: usize) -> f32 {
    if of == player {
        v
    } else {
        -v / (players - 1) as f32
    }
}

impl<B: Bits> Tree<B> {
    fn idle() -> Self {
        Tree {
            nodes: Vec::new(),
            edges: Vec::new(),
            index: HashMap::new(),
            noise: Vec::new(),
            rng: game_rng(0, 0),
            done: 0,
            in_flight: 0,
            full: false,
            idle: true,
        }
    }

    fn children(&self, n: usize) -> &[Edge] {
        let node = &self.nodes[n];
        if node.first == LEAF {
            &[]
        } else {
            &self.edges[node.first as usize..node.first as usize + node.count as usize]
        }
    }

    /// Who an edge's child is proven for (`OPEN`: nobody yet).
    fn edge_proven(&self, e: &Edge, mover: u8) -> u8 {
        if e.win {
            mover
        } else if e.child == NONE {
            OPEN
        } else {
            self.nodes[e.child as usize].proven
        }
    }

    /// A fresh graph with only `root`.
    fn fresh(&mut self, root: &Position<B>, players: usize) -> Result<()> {
        let key = key_of(root, players);
        let mut nodes = Vec::new();
        nodes.try_reserve(1).map_err(|_| oom("a search tree"))?;
        nodes.push(Node::new(*root, key));
        let mut index = HashMap::new();
        index.try_reserve(1).map_err(|_| oom("a search tree"))?;
        index.insert(key, 0);
        self.nodes = nodes;
        self.edges = Vec::new();
        self.index = index;
        Ok(())
    }

    /// Makes `root` node 0, keeping the part of the graph below it if the graph holds it and
    /// that part has at most `keep` nodes (else, or if memory is short, a fresh graph).
    fn reroot(&mut self, root: &Position<B>, players: usize, keep: usize) -> Result<()> {
        let key = key_of(root, players);
        let start = match self.index.get(&key) {
            Some(&id) if self.nodes[id as usize].pos == *root => id,
            _ => return self.fresh(root, players),
        };
        if start == 0 {
            return Ok(());
        }
        match self.copy_below(start, keep) {
            Some((nodes, edges, index)) => {
                (self.nodes, self.edges, self.index) = (nodes, edges, index);
                Ok(())
            }
            None => self.fresh(root, players),
        }
    }

    /// The graph below `start`, renumbered breadth first with `start` as node 0; None past
    /// `keep` nodes or when memory is short.
    #[allow(clippy::type_complexity)]
    fn copy_below(
        &self,
        start: u32,
        keep: usize,
    ) -> Option<(Vec<Node<B>>, Vec<Edge>, HashMap<u64, u32>)> {
        let mut new_id = Vec::new();
        new_id.try_reserve_exact(self.nodes.len()).ok()?;
        new_id.resize(self.nodes.len(), NONE);
        let mut old_of: Vec<u32> = Vec::new();
        let mut nodes: Vec<Node<B>> = Vec::new();
        let mut edges: Vec<Edge> = Vec::new();
        let mut index = HashMap::new();
        let mut copy = |nodes: &mut Vec<Node<B>>,
                        index: &mut HashMap<u64, u32>,
                        old_of: &mut Vec<u32>,
                        old: u32|
         -> Option<u32> {
            if new_id[old as usize] == NONE {
                if nodes.len() >= keep {
                    return None;
                }
                nodes.try_reserve(1).ok()?;
                index.try_reserve(1).ok()?;
                old_of.try_reserve(1).ok()?;
                let node = &self.nodes[old as usize];
                nodes.push(Node {
                    first: LEAF,
                    count: 0,
                    ..*node
                });
                new_id[old as usize] = (nodes.len() - 1) as u32;
                index.insert(node.key, new_id[old as usize]);
                old_of.push(old);
            }
            Some(new_id[old as usize])
        };
        copy(&mut nodes, &mut index, &mut old_of, start)?;
        let mut i = 0;
        while i < nodes.len() {
            let kids = self.children(old_of[i] as usize);
            if self.nodes[old_of[i] as usize].first != LEAF {
                edges.try_reserve(kids.len()).ok()?;
                nodes[i].first = edges.len() as u32;
                nodes[i].count = kids.len() as u16;
                for e in kids {
                    let child = if e.child == NONE {
                        NONE
                    } else {
                        copy(&mut nodes, &mut index, &mut old_of, e.child)?
                    };
                    edges.push(Edge { child, ..*e });
                }
            }
            i += 1;
        }
        Some((nodes, edges, index))
    }

    /// Starts a search from node 0: no simulations yet, fresh root noise.
    fn start(&mut self, params: &PuctParams) {
        self.done = 0;
        self.in_flight = 0;
        self.full = false;
        self.idle = false;
        self.noise.clear();
        if self.nodes[0].first != LEAF {
            self.root_noise(params);
        }
    }

    /// Dirichlet noise on the root's priors (kept apart, so the priors themselves stay the
    /// network's and a reused tree carries no old noise).
    fn root_noise(&mut self, params: &PuctParams) {
        self.noise.clear();
        let n = self.nodes[0].count as usize;
        if params.dirichlet_weight == 0.0 || n == 0 || self.noise.try_reserve(n).is_err() {
            return;
        }
        let alpha = f64::from(params.dirichlet);
        let mut sum = 0.0;
        for _ in 0..n {
            let g = gamma(&mut self.rng, alpha);
            sum += g;
            self.noise.push(g as f32);
        }
        let w = params.dirichlet_weight;
        let first = self.nodes[0].first as usize;
        for (i, x) in self.noise.iter_mut().enumerate() {
            let d = if sum > 0.0 {
                (f64::from(*x) / sum) as f32
            } else {
                1.0 / n as f32
            };
            *x = (1.0 - w) * self.edges[first + i].prior + w * d;
        }
    }

    /// The edge of `n` to descend: the highest PUCT score `Q + c_puct * P * sqrt(N) / (1 + n)`
    /// with every in-flight descent counted as a visit that lost (virtual loss); a move never
    /// tried has `Q = 0`; a move proven to lose is the last resort. Ties: the first.
    fn select_edge(&self, n: usize, c_puct: f32) -> usize {
        // The best edge by score alone is the answer unless its move is proven to lose
        // (rare): then the scores again, each move's proof read from its child. The same
        // edge either way (a first best that does not lose is first among those that do
        // not), without reading every child's node at every step of every descent.
        let best = self.best_edge(n, c_puct, false);
        let mover = self.nodes[n].pos.to_move;
        let p = self.edge_proven(&self.edges[best], mover);
        if p != OPEN && p != mover {
            return self.best_edge(n, c_puct, true);
        }
        best
    }

    /// `select_edge`'s scores, with moves proven to lose last (`proofs`) or not.
    #[inline]
    fn best_edge(&self, n: usize, c_puct: f32, proofs: bool) -> usize {
        let node = &self.nodes[n];
        let mover = node.pos.to_move;
        let first = node.first as usize;
        let kids = self.children(n);
        let total = node.seen;
        let scale = c_puct * ((1 + total) as f32).sqrt();
        let noisy = n == 0 && self.noise.len() == kids.len();
        let (mut best, mut best_score) = (first, f32::NEG_INFINITY);
        for (i, e) in kids.iter().enumerate() {
            let seen = e.visits + e.in_flight;
            let q = if seen > 0 {
                (e.value_sum - e.in_flight as f32) / seen as f32
            } else {
                0.0
            };
            let prior = if noisy { self.noise[i] } else { e.prior };
            let lost = proofs && {
                let p = self.edge_proven(e, mover);
                p != OPEN && p != mover
            };
            let score = if lost {
                f32::MIN
            } else {
                q + scale * prior / (1 + seen) as f32
            };
            if score > best_score {
                (best, best_score) = (first + i, score);
            }
        }
        best
    }

    /// MCTS-Solver's step at `n` (any number of players): won for its mover if a move wins
    /// or leads to a position won for it; won for a player for whom every move's position is
    /// won. Returns whether `n` is proven now.
    fn settle(&mut self, n: usize) -> bool {
        let node = &self.nodes[n];
        if node.proven != OPEN {
            return true;
        }
        if node.first == LEAF || node.count == 0 {
            return false;
        }
        let mover = node.pos.to_move;
        let mut common = None;
        let mut all = true;
        for e in self.children(n) {
            let p = self.edge_proven(e, mover);
            if p == mover {
                self.nodes[n].proven = mover;
                return true;
            }
            if p == OPEN || common.is_some_and(|c| c != p) {
                all = false;
            }
            common = Some(p);
        }
        if all {
            if let Some(p) = common {
                self.nodes[n].proven = p;
            }
        }
        all
    }

    /// Undoes the virtual loss of a path (a descent that ended without a leaf, or an
    /// abandoned one).
    fn undo(&mut self, path: &[(u32, u32)]) {
        for &(n, e) in path {
            let e = &mut self.edges[e as usize];
            if e.in_flight > 0 {
                e.in_flight -= 1;
                self.nodes[n as usize].seen -= 1;
            }
        }
    }

    /// Backs up a result along `path` (virtual loss undone); `value(p)` is player p's share.
    /// Then settles the proofs up the path while they keep coming.
    fn backup(&mut self, path: &[(u32, u32)], value: impl Fn(usize) -> f32) {
        for &(n, e) in path {
            let node = &mut self.nodes[n as usize];
            let mover = node.pos.to_move as usize;
            let e = &mut self.edges[e as usize];
            if e.in_flight > 0 {
                e.in_flight -= 1;
            } else {
                node.seen += 1; // a visit with no descent counted before it
            }
            e.visits += 1;
            e.value_sum += value(mover);
        }
        for &(n, _) in path.iter().rev() {
            if !self.settle(n as usize) {
                break;
            }
        }
    }

    /// The root's best move: a proven win first, then the most visited move not proven to
    /// lose (ties: the higher prior, then the lower cell).
    fn best(&self) -> Option<usize> {
        let mover = self.nodes.first()?.pos.to_move;
        let kids = self.children(0);
        let rank = |e: &Edge| {
            let p = self.edge_proven(e, mover);
            (p == mover, p == OPEN || p == mover, e.visits, e.prior)
        };
        let mut best: Option<&Edge> = None;
        for e in kids {
            if best.is_none_or(|b| rank(e) > rank(b)) {
                best = Some(e);
            }
        }
        best.map(|e| usize::from(e.mv))
    }
}

impl<B> Node<B> {
    fn new(pos: Position<B>, key: u64) -> Self {
        Node {
            pos,
            key,
            first: LEAF,
            count: 0,
            pending: false,
            proven: OPEN,
            value: 0.0,
            seen: 0,
        }
    }
}

/// A standard normal draw (Box-Muller).
fn normal(rng: &mut Xoshiro256PlusPlus) -> f64 {
    let u1: f64 = 1.0 - rng.random::<f64>(); // (0, 1]
    let u2: f64 = rng.random();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// A Gamma(alpha, 1) draw (Marsaglia and Tsang 2000; alpha < 1 by the boost `U^(1/alpha)`).
fn gamma(rng: &mut Xoshiro256PlusPlus, alpha: f64) -> f64 {
    if alpha < 1.0 {
        let u: f64 = rng.random();
        return gamma(rng, alpha + 1.0) * u.powf(1.0 / alpha);
    }
    let d = alpha - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = normal(rng);
        let v = (1.0 + c * x).powi(3);
        if v <= 0.0 {
            continue;
        }
        let u: f64 = rng.random();
        if u < 1.0 - 0.0331 * x.powi(4) || u.ln() < 0.5 * x * x + d * (1.0 - v + v.ln()) {
            return d * v;
        }
    }
}

/// Writes a position's observation (`vecenv`'s layout: plane k holds the orb counts of player
/// `(to_move + k) % players`) and legal mask.
fn observe<B: Bits>(
    geo: &Geometry<B>,
    cfg: &Config,
    pos: &Position<B>,
    planes: &mut [u8],
    mask: &mut [u8],
) {
    let (players, cells) = (cfg.players, geo.cells);
    planes.fill(0);
    mask.fill(0);
    for p in 0..players {
        let k = (p + players - pos.to_move as usize) % players;
        let plane = &mut planes[k * cells..(k + 1) * cells];
        pos.own[p].for_each(|c| plane[c] = pos.count(c));
    }
    legal_mask(geo, cfg.rules, pos).for_each(|c| mask[c] = 1);
}

/// A batch of search trees, one per game, on the storage type the board needs.
pub struct Puct<B> {
    geo: Geometry<B>,
    cfg: Config,
    params: PuctParams,
    seed: u64,
    trees: Vec<Tree<B>>,
    /// The leaves sent out since the last `expand`, in order.
    leaves: Vec<Leaf>,
    paths: Vec<(u32, u32)>,
    /// A descent's path (scratch).
    path: Vec<(u32, u32)>,
}

/// The observations of the leaves one `select` sends out, appended row by row.
#[derive(Default)]
pub struct Leaves {
    pub planes: Vec<u8>,
    pub mask: Vec<u8>,
    pub tree: Vec<u32>,
}

impl<B: Bits> Puct<B> {
    pub fn new(cfg: Config, trees: usize, params: PuctParams, seed: u64) -> Result<Self> {
        params.check()?;
        let mut all = Vec::new();
        all.try_reserve_exact(trees)
            .map_err(|_| oom(&format!("{trees} search trees")))?;
        all.resize_with(trees, Tree::idle);
        Ok(Puct {
            geo: Geometry::new(cfg.width, cfg.height),
            cfg,
            params,
            seed,
            trees: all,
            leaves: Vec::new(),
            paths: Vec::new(),
            path: Vec::new(),
        })
    }

    pub fn cfg(&self) -> &Config {
        &self.cfg
    }

    pub fn trees(&self) -> usize {
        self.trees.len()
    }

    /// Leaves sent out and not evaluated yet.
    pub fn pending(&self) -> usize {
        self.leaves.len()
    }

    fn tree(&self, i: usize) -> Result<&Tree<B>> {
        let trees = self.trees.len();
        self.trees
            .get(i)
            .ok_or(PuctError::NoTree { tree: i, trees })
    }

    /// A tree that may be given a new root: it exists and waits for no evaluation.
    fn quiet(&mut self, i: usize) -> Result<&mut Tree<B>> {
        let tree = self.tree(i)?;
        if tree.in_flight > 0 {
            return Err(PuctError::Busy { tree: i });
        }
        Ok(&mut self.trees[i])
    }

    /// Starts tree `i`'s search from `pos`, keeping the part of its graph below `pos` if it
    /// holds it; its generator is seeded from the seed, the position and `stream`.
    pub fn set_root(&mut self, i: usize, pos: &Position<B>, stream: u64) -> Result<()> {
        if let Some(w) = pos.winner() {
            return Err(Error::GameOver { winner: w as u8 }.into());
        }
        let (players, params, seed) = (self.cfg.players, self.params, self.seed);
        let keep = node_cap(params.simulations) - (params.simulations as usize + 1);
        let tree = self.quiet(i)?;
        tree.rng = game_rng(seed ^ key_of(pos, players), stream);
        if tree.nodes.is_empty() {
            tree.fresh(pos, players)?;
        } else {
            tree.reroot(pos, players, keep)?;
        }
        tree.start(&params);
        Ok(())
    }

    /// Plays `cell` at tree `i`'s root and starts the next search from there (the graph below
    /// it kept). Returns the winner if the move ends the game (the tree is then idle).
    pub fn advance(&mut self, i: usize, cell: usize) -> Result<Option<usize>> {
        let (geo, cfg, params) = (self.geo, self.cfg, self.params);
        let keep = node_cap(params.simulations) - (params.simulations as usize + 1);
        let tree = self.quiet(i)?;
        if tree.idle {
            return Err(PuctError::OtherGame(format!(
                "tree {i} has no game: give it one first"
            )));
        }
        let mut pos = tree.nodes[0].pos;
        if cell >= geo.cells {
            return Err(Error::InvalidMove(format!(
                "cell {cell} is not on the board of tree {i}: cells are 0 to {}",
                geo.cells - 1
            ))
            .into());
        }
        if !legal_mask(&geo, cfg.rules, &pos).has(cell) {
            let reason = format!("not a legal move at tree {i}'s root");
            return Err(Error::illegal_move(cell, cfg.width, reason).into());
        }
        play_unchecked(&geo, cfg.rules, cfg.players, &mut pos, cell, &mut ());
        if let Some(w) = pos.winner() {
            *tree = Tree::idle();
            return Ok(Some(w));
        }
        tree.reroot(&pos, cfg.players, keep)?;
        tree.start(&params);
        Ok(None)
    }

    /// Tree `i` takes no more part (its memory is freed).
    pub fn stop(&mut self, i: usize) -> Result<()> {
        *self.quiet(i)? = Tree::idle();
        Ok(())
    }

    /// Whether tree `i`'s search is over: its simulations are done, its root is proven or
    /// its node cap met, and no leaf of it waits (an idle tree is not finished: it has no
    /// search).
    pub fn is_finished(&self, i: usize) -> bool {
        let t = &self.trees[i];
        !t.idle
            && t.in_flight == 0
            && (t.done >= self.params.simulations || t.full || t.nodes[0].proven != OPEN)
    }

    /// Every searching tree descends until `k` (at least 1) of its leaves wait for
    /// evaluation, its search is over, or `k` descents met a leaf already waiting. The new
    /// leaves' observations are appended to `out`.
    pub fn select(&mut self, k: usize, out: &mut Leaves) -> Result<usize> {
        let k = k.max(1) as u32;
        let (cells, players) = (self.geo.cells, self.cfg.players);
        let mut sent = 0;
        for t in 0..self.trees.len() {
            let mut collisions = 0;
            loop {
                let tree = &self.trees[t];
                if tree.idle
                    || tree.full
                    || tree.in_flight >= k
                    || tree.done + tree.in_flight >= self.params.simulations
                    || tree.nodes[0].proven != OPEN
                    || tree.nodes[0].pending
                    || collisions >= k
                {
                    break;
                }
                let mut path = std::mem::take(&mut self.path);
                let step = descend(
                    &mut self.trees[t],
                    &self.geo,
                    &self.cfg,
                    &self.params,
                    &mut path,
                );
                let tree = &mut self.trees[t];
                let step = match step {
                    Ok(step) => step,
                    Err(e) => {
                        tree.undo(&path);
                        self.path = path;
                        return Err(e);
                    }
                };
                match step {
                    Step::Leaf(n) => {
                        let room = self.leaves.try_reserve(1).is_ok()
                            && self.paths.try_reserve(path.len()).is_ok()
                            && out.planes.try_reserve(players * cells).is_ok()
                            && out.mask.try_reserve(cells).is_ok()
                            && out.tree.try_reserve(1).is_ok();
                        if !room {
                            tree.undo(&path);
                            self.path = path;
                            return Err(oom("the leaves of a search"));
                        }
                        tree.nodes[n as usize].pending = true;
                        tree.in_flight += 1;
                        let start = self.paths.len();
                        self.paths.extend_from_slice(&path);
                        self.leaves.push(Leaf {
                            tree: t as u32,
                            node: n,
                            path: start..self.paths.len(),
                        });
                        let (p0, m0) = (out.planes.len(), out.mask.len());
                        out.planes.resize(p0 + players * cells, 0);
                        out.mask.resize(m0 + cells, 0);
                        let pos = &tree.nodes[n as usize].pos;
                        observe(
                            &self.geo,
                            &self.cfg,
                            pos,
                            &mut out.planes[p0..],
                            &mut out.mask[m0..],
                        );
                        out.tree.push(t as u32);
                        sent += 1;
                    }
                    Step::Scored(winner) => {
                        tree.done += 1;
                        tree.backup(&path, |p| match winner {
                            Some(w) => share(1.0, w as usize, p, players),
                            None => 0.0,
                        });
                    }
                    Step::Collision => {
                        tree.undo(&path);
                        collisions += 1;
                    }
                    Step::Full => {
                        tree.undo(&path);
                        tree.full = true;
                    }
                }
                self.path = path;
            }
        }
        Ok(sent)
    }

    /// The evaluations of every leaf sent out since the last `expand`, in order: `logits`
    /// (leaves × cells; only the legal moves' are read) and `values` (one per leaf, -1 to 1,
    /// for the leaf's player to move). Checked first: on an `Evaluation` error nothing
    /// changed and the leaves still wait.
    pub fn expand(&mut self, logits: &[f32], values: &[f32]) -> Result<()> {
        let (cells, n) = (self.geo.cells, self.leaves.len());
        if logits.len() != n * cells || values.len() != n {
            return Err(PuctError::Evaluation(format!(
                "{} logits and {} values for {n} leaves of {cells} cells: expected {} and {n}",
                logits.len(),
                values.len(),
                n * cells
            )));
        }
        for (j, leaf) in self.leaves.iter().enumerate() {
            let v = values[j];
            if !(v.is_finite() && (-1.0..=1.0).contains(&v)) {
                return Err(PuctError::Evaluation(format!(
                    "value {v} of leaf {j}: expected a number from -1 to 1"
                )));
            }
            let pos = &self.trees[leaf.tree as usize].nodes[leaf.node as usize].pos;
            let row = &logits[j * cells..(j + 1) * cells];
            let mut bad = None;
            legal_mask(&self.geo, self.cfg.rules, pos).for_each(|c| {
                if bad.is_none() && !row[c].is_finite() {
                    bad = Some(c);
                }
            });
            if let Some(c) = bad {
                return Err(PuctError::Evaluation(format!(
                    "logit {} of leaf {j} at legal cell {c}: expected a finite number",
                    row[c]
                )));
            }
        }
        let leaves = std::mem::take(&mut self.leaves);
        for (j, leaf) in leaves.iter().enumerate() {
            let row = &logits[j * cells..(j + 1) * cells];
            if let Err(e) = self.expand_one(leaf, row, values[j]) {
                // The leaves not yet expanded are abandoned: every tree stays whole.
                for rest in &leaves[j..] {
                    self.abandon_one(rest);
                }
                self.paths.clear();
                return Err(e);
            }
        }
        self.paths.clear();
        Ok(())
    }

    fn expand_one(&mut self, leaf: &Leaf, logits: &[f32], value: f32) -> Result<()> {
        let (geo, cfg, params) = (&self.geo, &self.cfg, &self.params);
        let players = cfg.players;
        let path = &self.paths[leaf.path.clone()];
        let tree = &mut self.trees[leaf.tree as usize];
        let n = leaf.node as usize;
        let parent = tree.nodes[n].pos;
        let legal = legal_mask(geo, cfg.rules, &parent);
        let count = legal.count() as usize;
        tree.edges
            .try_reserve(count)
            .map_err(|_| oom("the edges of a search tree"))?;
        let first = tree.edges.len();
        let mut top = f32::NEG_INFINITY;
        legal.for_each(|c| top = top.max(logits[c]));
        let mut sum = 0.0f32;
        legal.for_each(|m| {
            let mut pos = parent;
            play_unchecked(geo, cfg.rules, players, &mut pos, m, &mut ());
            let p = (logits[m] - top).exp();
            sum += p;
            tree.edges.push(Edge {
                mv: m as u16,
                win: pos.winner().is_some(),
                child: NONE,
                prior: p,
                visits: 0,
                in_flight: 0,
                value_sum: 0.0,
            });
        });
        for e in &mut tree.edges[first..] {
            e.prior /= sum;
        }
        let node = &mut tree.nodes[n];
        node.first = first as u32;
        node.count = count as u16;
        node.value = value;
        node.pending = false;
        tree.in_flight -= 1;
        let mover = parent.to_move as usize;
        let proven = tree.settle(n).then_some(tree.nodes[n].proven as usize);
        if n == 0 && path.is_empty() {
            tree.root_noise(params); // the root's own evaluation: no simulation
            return Ok(());
        }
        tree.done += 1;
        tree.backup(path, |p| match proven {
            Some(w) => share(1.0, w, p, players),
            None => share(value, mover, p, players),
        });
        Ok(())
    }

    fn abandon_one(&mut self, leaf: &Leaf) {
        let tree = &mut self.trees[leaf.tree as usize];
        tree.undo(&self.paths[leaf.path.clone()]);
        tree.nodes[leaf.node as usize].pending = false;
        tree.in_flight = tree.in_flight.saturating_sub(1);
    }

    /// Forgets every leaf sent out and not evaluated (the evaluator failed, or the caller
    /// stops): their virtual losses are undone and they are evaluated when next reached.
    pub fn abandon(&mut self) {
        let leaves = std::mem::take(&mut self.leaves);
        for leaf in &leaves {
            self.abandon_one(leaf);
        }
        self.paths.clear();
    }

    /// Visits of every root move by cell (0 for the others).
    pub fn visits(&self, i: usize, out: &mut [f32]) -> Result<()> {
        out.fill(0.0);
        let tree = self.tree(i)?;
        if !tree.nodes.is_empty() {
            for e in tree.children(0) {
                out[usize::from(e.mv)] = e.visits as f32;
            }
        }
        Ok(())
    }

    /// The search's move distribution at tree `i`'s root, by cell, summing to 1 over the
    /// legal moves: all on the best move when a win is proven, else the visits' shares
    /// (uniform over the legal moves before any visit).
    pub fn policy(&self, i: usize, out: &mut [f32]) -> Result<()> {
        self.visits(i, out)?;
        let tree = self.tree(i)?;
        if tree.nodes.is_empty() {
            return Ok(());
        }
        let mover = tree.nodes[0].pos.to_move;
        let won = tree
            .children(0)
            .iter()
            .any(|e| tree.edge_proven(e, mover) == mover);
        let total: f32 = out.iter().sum();
        if won || total == 0.0 {
            out.fill(0.0);
            if won {
                if let Some(b) = tree.best() {
                    out[b] = 1.0;
                }
            } else {
                let kids = tree.children(0);
                for e in kids {
                    out[usize::from(e.mv)] = 1.0 / kids.len() as f32;
                }
            }
        } else {
            out.iter_mut().for_each(|x| *x /= total);
        }
        Ok(())
    }

    /// The move to play at tree `i`'s root: a proven win at once; else with `temperature`
    /// 0 the best move (`Tree::best`), above 0 one drawn with odds `visits^(1/temperature)`
    /// among the moves not proven to lose (from the tree's generator). None before the
    /// root has been evaluated.
    pub fn pick(&mut self, i: usize, temperature: f64) -> Result<Option<usize>> {
        self.tree(i)?;
        let tree = &mut self.trees[i];
        let draw = if temperature > 0.0 {
            tree.rng.random::<f64>()
        } else {
            0.0
        };
        let tree = &*tree;
        let Some(best) = tree.best() else {
            return Ok(None);
        };
        let mover = tree.nodes[0].pos.to_move;
        let kids = tree.children(0);
        let won = kids.iter().any(|e| tree.edge_proven(e, mover) == mover);
        if won || temperature <= 0.0 || !temperature.is_finite() {
            return Ok(Some(best));
        }
        let open = |e: &&Edge| {
            let p = tree.edge_proven(e, mover);
            p == OPEN || p == mover
        };
        let top = kids
            .iter()
            .filter(open)
            .map(|e| e.visits)
            .max()
            .unwrap_or(0);
        if top == 0 {
            return Ok(Some(best));
        }
        let weight = |e: &Edge| (f64::from(e.visits) / f64::from(top)).powf(1.0 / temperature);
        let total: f64 = kids.iter().filter(open).map(weight).sum();
        let mut x = draw * total;
        let mut chosen = best;
        for e in kids.iter().filter(open) {
            let w = weight(e);
            if w > 0.0 {
                chosen = usize::from(e.mv);
                if x < w {
                    break;
                }
                x -= w;
            }
        }
        Ok(Some(chosen))
    }

    /// What the search found for every legal move of tree `i`'s root, by cell, and the
    /// simulations of this search.
    pub fn stats(&self, i: usize) -> Result<(Vec<PuctMove>, u32)> {
        let tree = self.tree(i)?;
        let mut rows = Vec::new();
        if tree.nodes.is_empty() {
            return Ok((rows, 0));
        }
        let mover = tree.nodes[0].pos.to_move;
        let kids = tree.children(0);
        rows.try_reserve_exact(kids.len())
            .map_err(|_| oom("a search's statistics"))?;
        for e in kids {
            let p = tree.edge_proven(e, mover);
            rows.push(PuctMove {
                cell: usize::from(e.mv),
                visits: e.visits,
                value: (e.visits > 0).then(|| e.value_sum / e.visits as f32),
                prior: e.prior,
                proven: (p != OPEN).then_some(p == mover),
            });
        }
        Ok((rows, tree.done))
    }

    /// Tree `i`'s root: its observation planes and legal mask (`observe`), and its ply.
    pub fn observe_root(&self, i: usize, planes: &mut [u8], mask: &mut [u8]) -> Result<u32> {
        let tree = self.tree(i)?;
        let Some(root) = tree.nodes.first() else {
            return Err(PuctError::OtherGame(format!(
                "tree {i} has no game: give it one first"
            )));
        };
        observe(&self.geo, &self.cfg, &root.pos, planes, mask);
        Ok(root.pos.ply)
    }
}

/// One descent of `tree` from its root by `Tree::select_edge`, with virtual loss on every
/// edge it takes (recorded in `path`), to a node that needs an evaluation or whose result is
/// known. New nodes are made (or found, for a transposition) on the way.
fn descend<B: Bits>(
    tree: &mut Tree<B>,
    geo: &Geometry<B>,
    cfg: &Config,
    params: &PuctParams,
    path: &mut Vec<(u32, u32)>,
) -> Result<Step> {
    path.clear();
    let cap = node_cap(params.simulations);
    let mut n = 0usize;
    loop {
        let node = &tree.nodes[n];
        if node.proven != OPEN {
            return Ok(Step::Scored(Some(node.proven)));
        }
        if node.pending {
            return Ok(Step::Collision);
        }
        if node.first == LEAF {
            return Ok(Step::Leaf(n as u32));
        }
        if node.count == 0 {
            return Ok(Step::Scored(None)); // no move (never in a game): scored as shared
        }
        let e = tree.select_edge(n, params.c_puct);
        path.try_reserve(1).map_err(|_| oom("a search path"))?;
        path.push((n as u32, e as u32));
        tree.edges[e].in_flight += 1;
        tree.nodes[n].seen += 1;
        let edge = tree.edges[e];
        if edge.win {
            return Ok(Step::Scored(Some(tree.nodes[n].pos.to_move)));
        }
        if edge.child == NONE {
            let mut pos = tree.nodes[n].pos;
            play_unchecked(
                geo,
                cfg.rules,
                cfg.players,
                &mut pos,
                usize::from(edge.mv),
                &mut (),
            );
            let key = key_of(&pos, cfg.players);
            let child = match tree.index.get(&key) {
                Some(&id) if tree.nodes[id as usize].pos == pos => id,
                _ => {
                    if tree.nodes.len() >= cap
                        || tree.nodes.try_reserve(1).is_err()
                        || tree.index.try_reserve(1).is_err()
                    {
                        return Ok(Step::Full);
                    }
                    tree.nodes.push(Node::new(pos, key));
                    let id = (tree.nodes.len() - 1) as u32;
                    tree.index.insert(key, id);
                    id
                }
            };
            tree.edges[e].child = child;
        }
        n = tree.edges[e].child as usize;
    }
}

/// A batch of trees on the storage type the board needs.
pub enum AnyPuct {
    W1(Puct<u64>),
    W2(Puct<Wide<2>>),
    W4(Box<Puct<Wide<4>>>),
    W16(Box<Puct<Wide<16>>>),
}

macro_rules! with_puct {
    ($any:expr, $p:ident => $body:expr) => {
        match $any {
            AnyPuct::W1($p) => $body,
            AnyPuct::W2($p) => $body,
            AnyPuct::W4($p) => $body,
            AnyPuct::W16($p) => $body,
        }
    };
}

impl AnyPuct {
    pub fn new(cfg: Config, trees: usize, params: PuctParams, seed: u64) -> Result<Self> {
        Ok(match cfg.cells() {
            0..=64 => AnyPuct::W1(Puct::new(cfg, trees, params, seed)?),
            65..=128 => AnyPuct::W2(Puct::new(cfg, trees, params, seed)?),
            129..=256 => AnyPuct::W4(Box::new(Puct::new(cfg, trees, params, seed)?)),
            _ => AnyPuct::W16(Box::new(Puct::new(cfg, trees, params, seed)?)),
        })
    }

    pub fn cfg(&self) -> &Config {
        with_puct!(self, p => p.cfg())
    }
    pub fn trees(&self) -> usize {
        with_puct!(self, p => p.trees())
    }
    pub fn pending(&self) -> usize {
        with_puct!(self, p => p.pending())
    }

    /// `Puct::set_root` with a game's position; the game must be of the trees' board,
    /// players and rules.
    pub fn set_root(&mut self, i: usize, game: &AnyGame, stream: u64) -> Result<()> {
        let (mine, theirs) = (*self.cfg(), *game.cfg());
        if (mine.width, mine.height, mine.players, mine.rules)
            != (theirs.width, theirs.height, theirs.players, theirs.rules)
        {
            return Err(PuctError::OtherGame(format!(
                "a {}x{} {} game of {} players, for trees of {}x{} {} games of {} players",
                theirs.width,
                theirs.height,
                theirs.rules.name(),
                theirs.players,
                mine.width,
                mine.height,
                mine.rules.name(),
                mine.players
            )));
        }
        match (self, game) {
            (AnyPuct::W1(p), AnyGame::W1(g)) => p.set_root(i, g.pos(), stream),
            (AnyPuct::W2(p), AnyGame::W2(g)) => p.set_root(i, g.pos(), stream),
            (AnyPuct::W4(p), AnyGame::W4(g)) => p.set_root(i, g.pos(), stream),
            (AnyPuct::W16(p), AnyGame::W16(g)) => p.set_root(i, g.pos(), stream),
            _ => unreachable!("one board size has one storage type"),
        }
    }
    pub fn advance(&mut self, i: usize, cell: usize) -> Result<Option<usize>> {
        with_puct!(self, p => p.advance(i, cell))
    }
    pub fn stop(&mut self, i: usize) -> Result<()> {
        with_puct!(self, p => p.stop(i))
    }
    pub fn finished(&self) -> Vec<usize> {
        with_puct!(self, p => (0..p.trees()).filter(|&i| p.is_finished(i)).collect())
    }
    pub fn select(&mut self, k: usize, out: &mut Leaves) -> Result<usize> {
        with_puct!(self, p => p.select(k, out))
    }
    pub fn expand(&mut self, logits: &[f32], values: &[f32]) -> Result<()> {
        with_puct!(self, p => p.expand(logits, values))
    }
    pub fn abandon(&mut self) {
        with_puct!(self, p => p.abandon())
    }
    pub fn visits(&self, i: usize) -> Result<Vec<f32>> {
        let mut out = try_vec(self.cfg().cells(), 0.0, "visit counts")?;
        with_puct!(self, p => p.visits(i, &mut out))?;
        Ok(out)
    }
    pub fn policy(&self, i: usize) -> Result<Vec<f32>> {
        let mut out = try_vec(self.cfg().cells(), 0.0, "a move distribution")?;
        with_puct!(self, p => p.policy(i, &mut out))?;
        Ok(out)
    }
    pub fn pick(&mut self, i: usize, temperature: f64) -> Result<Option<usize>> {
        with_puct!(self, p => p.pick(i, temperature))
    }
    pub fn stats(&self, i: usize) -> Result<(Vec<PuctMove>, u32)> {
        with_puct!(self, p => p.stats(i))
    }
    /// Tree `i`'s root observation (planes, mask) and ply.
    pub fn observe_root(&self, i: usize) -> Result<(Vec<u8>, Vec<u8>, u32)> {
        let cfg = *self.cfg();
        let mut planes = try_vec(cfg.players * cfg.cells(), 0u8, "observation planes")?;
        let mut mask = try_vec(cfg.cells(), 0u8, "a legal mask")?;
        let ply = with_puct!(self, p => p.observe_root(i, &mut planes, &mut mask))?;
        Ok((planes, mask, ply))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::rules::Rules;

    fn params(simulations: u32) -> PuctParams {
        PuctParams {
            simulations,
            c_puct: 1.5,
            dirichlet: 0.3,
            dirichlet_weight: 0.0,
        }
    }

    /// Runs tree `i`'s search (all searching trees) with an evaluator of zero logits and zero
    /// values; returns the evaluator calls and checks every mask on the way.
    fn run_uniform<B: Bits>(p: &mut Puct<B>) -> usize {
        let cells = p.geo.cells;
        let mut calls = 0;
        loop {
            let mut out = Leaves::default();
            let n = p.select(8, &mut out).unwrap();
            if n == 0 {
                break;
            }
            assert_eq!(out.mask.len(), n * cells);
            assert!(out.mask.chunks(cells).all(|m| m.contains(&1)));
            p.expand(&vec![0.0; n * cells], &vec![0.0; n]).unwrap();
            calls += 1;
        }
        calls
    }

    fn game(text: &str) -> Game<u64> {
        let setup = crate::notation::parse_position(text).unwrap();
        let AnyGame::W1(g) = AnyGame::from_setup(&setup).unwrap() else {
            panic!()
        };
        g
    }

    #[test]
    fn a_uniform_evaluator_visits_legal_moves_and_the_visits_sum_to_the_simulations() {
        let cfg = Config::new(5, 5, 2, Rules::COLORWARS, 0).unwrap();
        let mut p = Puct::<u64>::new(cfg, 3, params(300), 1).unwrap();
        let mut g = Game::<u64>::new(cfg);
        p.set_root(0, g.pos(), 0).unwrap();
        g.play(12).unwrap();
        p.set_root(1, g.pos(), 0).unwrap();
        g.play(0).unwrap();
        p.set_root(2, g.pos(), 0).unwrap();
        run_uniform(&mut p);
        for i in 0..3 {
            assert!(p.is_finished(i));
            let (rows, done) = p.stats(i).unwrap();
            assert_eq!(done, 300);
            assert_eq!(rows.iter().map(|r| r.visits).sum::<u32>(), 300);
            let legal = p.trees[i].nodes[0].pos;
            let mask = legal_mask(&p.geo, cfg.rules, &legal);
            assert!(rows.iter().all(|r| mask.has(r.cell)));
            assert_eq!(rows.len(), mask.count() as usize);
            let mut policy = vec![0.0; 25];
            p.policy(i, &mut policy).unwrap();
            assert!((policy.iter().sum::<f32>() - 1.0).abs() < 1e-5);
            let best = p.pick(i, 0.0).unwrap().unwrap();
            assert!(mask.has(best));
        }
    }

    #[test]
    fn a_win_in_one_is_proven_and_played() {
        // 2x2 classic, a to move: a1 takes b's only cell.
        let g = game("2x2 classic 2 1a1b/.. a ab - 2");
        let cfg = *g.cfg();
        let mut p = Puct::<u64>::new(cfg, 1, params(100), 0).unwrap();
        p.set_root(0, g.pos(), 0).unwrap();
        let calls = run_uniform(&mut p);
        assert_eq!(calls, 1, "the root's evaluation proves it");
        assert_eq!(p.pick(0, 1.0).unwrap(), Some(0));
        let (rows, _) = p.stats(0).unwrap();
        assert_eq!(
            rows.iter().find(|r| r.cell == 0).unwrap().proven,
            Some(true)
        );
        let mut policy = vec![0.0; 4];
        p.policy(0, &mut policy).unwrap();
        assert_eq!(policy[0], 1.0);
        assert_eq!(p.advance(0, 0).unwrap(), Some(0));
    }

    #[test]
    fn reroot_keeps_the_statistics_below_the_move() {
        let cfg = Config::new(4, 4, 2, Rules::COLORWARS, 0).unwrap();
        let mut p = Puct::<u64>::new(cfg, 1, params(400), 3).unwrap();
        p.set_root(0, &Position::start(&cfg), 0).unwrap();
        run_uniform(&mut p);
        let best = p.pick(0, 0.0).unwrap().unwrap();
        let tree = &p.trees[0];
        let edge = *tree
            .children(0)
            .iter()
            .find(|e| usize::from(e.mv) == best)
            .unwrap();
        let below: u32 = tree
            .children(edge.child as usize)
            .iter()
            .map(|e| e.visits)
            .sum();
        assert!(below > 0);
        assert_eq!(p.advance(0, best).unwrap(), None);
        let (rows, done) = p.stats(0).unwrap();
        assert_eq!(done, 0);
        assert_eq!(rows.iter().map(|r| r.visits).sum::<u32>(), below);
        assert!(p.trees[0].nodes.len() > 1);
        // The next search adds its simulations to what was kept.
        run_uniform(&mut p);
        let (rows, done) = p.stats(0).unwrap();
        assert_eq!(done, 400);
        assert_eq!(rows.iter().map(|r| r.visits).sum::<u32>(), below + 400);
        check_graph(&p);
    }

    /// A node's count of visits and descents is its edges', summed.
    fn check_seen<B: Bits>(tree: &Tree<B>, n: usize) {
        let sum: u32 = tree
            .children(n)
            .iter()
            .map(|e| e.visits + e.in_flight)
            .sum();
        assert_eq!(tree.nodes[n].seen, sum, "node {n}");
    }

    /// Every edge with a node leads to the position its move makes, every node is indexed
    /// under its own position, its visits are its edges' visits, no virtual loss is left
    /// and nothing waits.
    fn check_graph<B: Bits>(p: &Puct<B>) {
        for tree in &p.trees {
            for (n, node) in tree.nodes.iter().enumerate() {
                assert_eq!(node.key, key_of(&node.pos, p.cfg.players));
                assert_eq!(tree.index.get(&node.key), Some(&(n as u32)));
                assert!(!node.pending);
                check_seen(tree, n);
                for e in tree.children(n) {
                    assert_eq!(e.in_flight, 0);
                    if e.child != NONE {
                        let mut pos = node.pos;
                        play_unchecked(&p.geo, p.cfg.rules, 2, &mut pos, e.mv as usize, &mut ());
                        assert_eq!(pos, tree.nodes[e.child as usize].pos);
                    }
                }
            }
        }
    }

    #[test]
    fn virtual_loss_spreads_a_batch_and_abandoned_leaves_leave_no_trace() {
        let cfg = Config::new(5, 5, 2, Rules::CLASSIC, 0).unwrap();
        let mut p = Puct::<u64>::new(cfg, 1, params(200), 0).unwrap();
        p.set_root(0, &Position::start(&cfg), 0).unwrap();
        let mut out = Leaves::default();
        assert_eq!(p.select(16, &mut out).unwrap(), 1, "the root first");
        p.expand(&[0.0; 25], &[0.0]).unwrap();
        let mut out = Leaves::default();
        assert_eq!(p.select(16, &mut out).unwrap(), 16);
        // 16 different positions.
        let mut rows: Vec<&[u8]> = out.planes.chunks(50).collect();
        rows.sort();
        rows.dedup();
        assert_eq!(rows.len(), 16);
        (0..p.trees[0].nodes.len()).for_each(|n| check_seen(&p.trees[0], n));
        p.abandon();
        check_graph(&p);
        assert_eq!(p.trees[0].in_flight, 0);
        // A bad evaluation changes nothing; the leaves still wait.
        let mut out = Leaves::default();
        let n = p.select(4, &mut out).unwrap();
        let err = p
            .expand(&vec![0.0; n * 25], &[0.0, 2.0, 0.0, 0.0])
            .unwrap_err();
        assert!(matches!(err, PuctError::Evaluation(_)), "{err}");
        let mut logits = vec![0.0; n * 25];
        logits[out.mask.iter().position(|&m| m == 1).unwrap()] = f32::NAN;
        assert!(p.expand(&logits, &vec![0.0; n]).is_err());
        assert_eq!(p.pending(), n);
        p.expand(&vec![0.0; n * 25], &vec![0.0; n]).unwrap();
        assert_eq!(p.stats(0).unwrap().1, 4);
        run_uniform(&mut p);
        check_graph(&p);
        assert_eq!(p.stats(0).unwrap().1, 200);
    }

    #[test]
    fn transpositions_share_a_node_and_the_cap_bounds_a_tree() {
        let cfg = Config::new(3, 3, 2, Rules::CLASSIC, 0).unwrap();
        let mut p = Puct::<u64>::new(cfg, 1, params(3000), 0).unwrap();
        p.set_root(0, &Position::start(&cfg), 0).unwrap();
        run_uniform(&mut p);
        check_graph(&p);
        let tree = &p.trees[0];
        let linked = tree.edges.iter().filter(|e| e.child != NONE).count();
        assert!(
            tree.nodes.len() < linked + 1,
            "some position has two parents"
        );
        assert!(tree.nodes.len() <= node_cap(3000));
    }

    #[test]
    fn priors_are_the_softmax_over_legal_moves_and_noise_sums_to_one() {
        let cfg = Config::new(3, 2, 2, Rules::CLASSIC, 0).unwrap();
        let mut p = Puct::<u64>::new(
            cfg,
            1,
            PuctParams {
                dirichlet_weight: 0.25,
                ..params(10)
            },
            0,
        )
        .unwrap();
        let mut g = Game::<u64>::new(cfg);
        g.play(1).unwrap(); // a on b1: b may not play there
        p.set_root(0, g.pos(), 0).unwrap();
        let mut out = Leaves::default();
        p.select(1, &mut out).unwrap();
        let mut logits = vec![0.0f32; 6];
        logits[1] = 100.0; // illegal: ignored
        logits[2] = 2f32.ln();
        p.expand(&logits, &[0.5]).unwrap();
        let (rows, _) = p.stats(0).unwrap();
        assert_eq!(rows.len(), 5);
        let prior = |c| rows.iter().find(|r| r.cell == c).unwrap().prior;
        assert!((prior(2) - 2.0 / 6.0).abs() < 1e-6);
        assert!((prior(0) - 1.0 / 6.0).abs() < 1e-6);
        let noise = &p.trees[0].noise;
        assert_eq!(noise.len(), 5);
        assert!((noise.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    }

    #[test]
    fn gamma_draws_have_their_mean() {
        let mut rng = game_rng(5, 0);
        for alpha in [0.03, 0.3, 1.0, 4.0] {
            let n = 20_000;
            let mean = (0..n).map(|_| gamma(&mut rng, alpha)).sum::<f64>() / n as f64;
            assert!(
                (mean - alpha).abs() < 0.1 * alpha.max(0.3),
                "{alpha}: {mean}"
            );
        }
    }
}
