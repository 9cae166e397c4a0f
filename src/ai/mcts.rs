//! Monte-Carlo tree search: UCT over a graph of positions (transpositions share a node) with
//! random or partly greedy playouts, MCTS-Solver, implicit minimax backups of the evaluation,
//! tree reuse between a seat's moves, and root parallelism.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::time::{Duration, Instant};

use rand::RngExt;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::bits::Bits;
use crate::board::{Geometry, Position};
use crate::cascade::{legal_mask, play_unchecked};
use crate::control::Control;
use crate::playout::{choose, Playout};
use crate::rng::{game_rng, mix};
use crate::rules::Config;
use crate::search::{evaluate, zobrist};

/// What MCTS plays with: `simulations` per move (or until `time` runs out when set; with both,
/// whichever comes first), exploration constant `c`, root parallelism over `trees` trees (each on a thread of its own),
/// `greedy` the share of playout moves chosen greedily (the rest at random), `solver`:
/// MCTS-Solver (Winands et al. 2008), two players only: proven wins and losses propagate up
/// the tree, a proven win is played at once and a proven loss never chosen while anything
/// else remains; `reuse`, `minimax` and `cutoff` below. `c = 0.7` with `solver`, `reuse` and
/// `minimax` off is the plain UCT of earlier versions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MctsParams {
    pub simulations: u32,
    pub time: Option<Duration>,
    pub c: f64,
    pub trees: usize,
    pub greedy: f64,
    pub solver: bool,
    /// Keep the search graph between a seat's moves in a native match and start the next
    /// search from the part below the new position.
    pub reuse: bool,
    /// Implicit minimax backups (Lanctot et al. 2014), two players: the weight (0 to 1) of
    /// the evaluation backed up by negamax through the tree against the playouts' mean.
    pub minimax: f64,
    /// Playouts stop after this many moves and score the evaluation (two players; 0: play
    /// to the end).
    pub cutoff: u32,
}

/// No proven result (`Node::proven`).
const OPEN: u8 = u8::MAX;

/// No children yet (`Node::first`).
const LEAF: u32 = u32::MAX;

/// A position in the search graph (a tree whose transpositions share one node).
struct Node<B> {
    pos: Position<B>,
    /// `Tree::key` of `pos`.
    key: u64,
    /// The edges to the children, made all at once: `first .. first + count` in
    /// `Tree::edges` (`LEAF`: none yet).
    first: u32,
    count: u16,
    visits: u32,
    /// Total reward of each player over the playouts through this node.
    reward: [f32; 8],
    /// With the solver: the player proven to win from here, or `OPEN`.
    proven: u8,
    /// Implicit minimax (two players, `minimax > 0`): the value of this position for the
    /// player who moved into it, 0 to 1: the evaluation at a leaf, backed up by negamax.
    value: f32,
}

/// No node yet (`Edge::child`): the search has not gone this way.
const NONE: u32 = u32::MAX;

/// A move from a node to its child. The child's node is made the first time the search goes
/// this way (a move that ends the game gets it at once); until then the edge holds the
/// child's evaluation, so an untried move costs a few bytes, not a position.
#[derive(Clone, Copy)]
struct Edge {
    mv: u16,
    child: u32,
    /// The simulations that took this move from this parent (a child shared by several
    /// parents counts its visits from all of them; the choice at a node uses these).
    visits: u32,
    /// The child's value for the parent's mover while it has no node.
    value: f32,
}

/// The search graph: nodes, their edges, and the nodes by position (a key of the position and
/// its ply, so the graph has no cycles even where positions repeat).
struct Tree<B> {
    nodes: Vec<Node<B>>,
    edges: Vec<Edge>,
    index: HashMap<u64, u32, BuildHasherDefault<KeyHasher>>,
}

/// The bytes an index entry takes, about (key, id and the map's own share).
const INDEX_BYTES: usize = 24;

impl<B: Bits> Tree<B> {
    fn key(pos: &Position<B>, players: usize) -> u64 {
        zobrist(pos, players) ^ mix(u64::from(pos.ply))
    }

    fn new(root: &Position<B>, players: usize) -> Self {
        let key = Self::key(root, players);
        Tree {
            nodes: vec![Node::new(*root, key, 0.5)],
            edges: Vec::new(),
            index: HashMap::from_iter([(key, 0)]),
        }
    }

    fn bytes(&self) -> usize {
        self.nodes.len() * std::mem::size_of::<Node<B>>()
            + self.edges.len() * std::mem::size_of::<Edge>()
            + self.index.len() * INDEX_BYTES
    }

    /// The node of `pos`: the one the graph has (reached by another order of moves), or a new
    /// one with `value`; None when the memory bound or the allocator says no.
    fn node_of(
        &mut self,
        pos: Position<B>,
        players: usize,
        value: f32,
        budget: usize,
    ) -> Option<u32> {
        let key = Self::key(&pos, players);
        if let Some(&id) = self.index.get(&key) {
            if self.nodes[id as usize].pos == pos {
                return Some(id);
            }
        }
        let bytes = std::mem::size_of::<Node<B>>() + INDEX_BYTES;
        if self.bytes() + bytes > budget
            || self.nodes.try_reserve(1).is_err()
            || self.index.try_reserve(1).is_err()
        {
            return None;
        }
        self.nodes.push(Node::new(pos, key, value));
        let id = (self.nodes.len() - 1) as u32;
        self.index.insert(key, id);
        Some(id)
    }

    /// The part of the graph below `root` (if the graph holds it), copied into a graph of its
    /// own with `root` as node 0; None if it does not, if memory for the copy is short, or if
    /// `stop` says so while copying (Ctrl-C, the deadline).
    fn reroot(self, root: &Position<B>, players: usize, stop: &dyn Fn() -> bool) -> Option<Self> {
        let start = *self.index.get(&Self::key(root, players))?;
        if self.nodes[start as usize].pos != *root {
            return None;
        }
        let mut new_id = Vec::new();
        new_id.try_reserve_exact(self.nodes.len()).ok()?;
        new_id.resize(self.nodes.len(), NONE);
        let mut tree = Tree {
            nodes: Vec::new(),
            edges: Vec::new(),
            index: HashMap::default(),
        };
        let mut old_of: Vec<u32> = Vec::new();
        let mut copy = |tree: &mut Self, old_of: &mut Vec<u32>, old: u32| -> Option<u32> {
            if new_id[old as usize] == NONE {
                tree.nodes.try_reserve(1).ok()?;
                tree.index.try_reserve(1).ok()?;
                old_of.try_reserve(1).ok()?;
                let node = &self.nodes[old as usize];
                tree.nodes.push(Node {
                    first: LEAF,
                    count: 0,
                    ..*node
                });
                new_id[old as usize] = (tree.nodes.len() - 1) as u32;
                tree.index.insert(node.key, new_id[old as usize]);
                old_of.push(old);
            }
            Some(new_id[old as usize])
        };
        copy(&mut tree, &mut old_of, start)?;
        // Breadth first: node i of the copy gets its edges when the walk reaches it.
        let mut i = 0;
        while i < tree.nodes.len() {
            if i % 1024 == 1023 && stop() {
                return None;
            }
            let edges = self.children(old_of[i] as usize);
            if !edges.is_empty() {
                tree.edges.try_reserve(edges.len()).ok()?;
                tree.nodes[i].first = tree.edges.len() as u32;
                tree.nodes[i].count = edges.len() as u16;
                for e in edges {
                    let child = if e.child == NONE {
                        NONE
                    } else {
                        copy(&mut tree, &mut old_of, e.child)?
                    };
                    tree.edges.push(Edge { child, ..*e });
                }
            }
            i += 1;
        }
        Some(tree)
    }

    fn children(&self, n: usize) -> &[Edge] {
        let node = &self.nodes[n];
        if node.first == LEAF {
            &[]
        } else {
            &self.edges[node.first as usize..node.first as usize + node.count as usize]
        }
    }
}

impl<B> Node<B> {
    fn new(pos: Position<B>, key: u64, value: f32) -> Self {
        Node {
            pos,
            key,
            first: LEAF,
            count: 0,
            visits: 0,
            reward: [0.0; 8],
            proven: OPEN,
            value,
        }
    }
}

/// Zobrist keys are already uniformly random: the index uses them as they are.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, k: u64) {
        self.0 = k;
    }
}

/// The evaluation (orbs and cells, `search::evaluate`) becomes a value from 0 to 1 as
/// `1 / (1 + exp(-e / SCALE))` (tuned on the accuracy benchmark: 3 beat 2, 5, 10 and 20).
const SCALE: f32 = 3.0;

/// Most plies a playout runs before it is scored as shared (random games end far sooner).
const PLAYOUT_LIMIT: u32 = 5000;

/// The memory all of one search's trees may take; a full tree stops growing and the search
/// goes on with playouts from its leaves, so a huge budget never exhausts memory.
const TREE_BYTES: usize = 1 << 30;

/// What the search found for one move at the root: the cell, the simulations that went
/// through it and the total reward of the player to move over them (a win counts 1).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MoveStats {
    pub cell: usize,
    pub visits: u64,
    pub reward: f64,
    /// With the solver: Some(true) if the move is proven to win for the player to move,
    /// Some(false) if proven to lose (in any of the trees).
    pub proven: Option<bool>,
}

/// Monte-Carlo tree search (UCT): every seat maximises its own result (1 for a win, 0 for a
/// loss). Root parallelism: `trees` independent trees share the budget and their root
/// statistics are summed. Returns the most visited move and the simulations run.
#[allow(clippy::too_many_arguments)]
pub fn mcts<B: Bits>(
    geo: &Geometry<B>,
    cfg: &Config,
    root: &Position<B>,
    params: &MctsParams,
    seed: u64,
    control: &Control,
    memory: Option<&mut Trees<B>>,
) -> (usize, u64) {
    let (stats, sims) = search(geo, cfg, root, params, seed, control, memory);
    let legal = legal_mask(geo, cfg.rules, root);
    // A proven win first; then the most visited move that is not a proven loss. With no move
    // tried (the budget ran out inside the first playout: a playout of 32 x 32 classic can
    // take longer than a tenth of a second), the greedy move rather than the first cell.
    let untried = |s: &MoveStats| s.visits == 0 && s.proven.is_none();
    let fallback = if stats.iter().all(untried) {
        choose(
            geo,
            cfg,
            root,
            legal,
            Playout::Greedy,
            &mut game_rng(seed, u64::MAX),
        )
    } else {
        legal.nth(0)
    };
    let mut best = (fallback, (false, false, 0u64));
    for s in stats.iter().filter(|s| !untried(s)) {
        let rank = (s.proven == Some(true), s.proven != Some(false), s.visits);
        if rank > best.1 {
            best = (s.cell, rank);
        }
    }
    (best.0, sims)
}

/// The search of `mcts`, reporting every legal move of the root (ascending by cell, moves the
/// search never tried with 0 visits) and the simulations run.
pub fn mcts_analysis<B: Bits>(
    geo: &Geometry<B>,
    cfg: &Config,
    root: &Position<B>,
    params: &MctsParams,
    seed: u64,
    control: &Control,
) -> (Vec<MoveStats>, u64) {
    search(geo, cfg, root, params, seed, control, None)
}

/// What one seat's MCTS keeps between its moves in a game (with `MctsParams::reuse`): the
/// search graphs of its last move, one per thread. The next search starts from the part of
/// each below the new position (if the graph holds it) instead of from nothing.
pub struct Trees<B>(Vec<Option<Tree<B>>>);

impl<B> Default for Trees<B> {
    fn default() -> Self {
        Trees(Vec::new())
    }
}

#[allow(clippy::too_many_arguments)]
fn search<B: Bits>(
    geo: &Geometry<B>,
    cfg: &Config,
    root: &Position<B>,
    params: &MctsParams,
    seed: u64,
    control: &Control,
    mut memory: Option<&mut Trees<B>>,
) -> (Vec<MoveStats>, u64) {
    let MctsParams {
        simulations,
        time,
        trees: threads,
        ..
    } = *params;
    let key = zobrist(root, cfg.players);
    let budget = TREE_BYTES / threads;
    let deadline = time.map(|t| Instant::now() + t);
    let per_tree = |t: usize| {
        simulations / threads as u32 + u32::from((t as u32) < simulations % threads as u32)
    };
    let run = |t: usize, kept: Option<Tree<B>>| {
        mcts_tree(
            geo,
            cfg,
            root,
            params,
            per_tree(t),
            deadline,
            game_rng(seed ^ key, t as u64),
            budget,
            control,
            kept.and_then(|tree| {
                let stop = || control.cancelled() || deadline.is_some_and(|d| Instant::now() >= d);
                tree.reroot(root, cfg.players, &stop)
            }),
        )
    };
    // The trees kept from the seat's last move (with `reuse`), one per thread.
    let mut kept = match (params.reuse, memory.as_deref_mut()) {
        (true, Some(m)) => std::mem::take(&mut m.0),
        _ => Vec::new(),
    };
    kept.resize_with(threads, || None);
    let trees: Vec<(Vec<MoveStats>, u64, Tree<B>)> = if threads == 1 {
        vec![run(0, kept.pop().flatten())]
    } else {
        std::thread::scope(|s| {
            let run = &run;
            let mut handles = Vec::new();
            let mut here = Vec::new();
            for (t, tree) in kept.into_iter().enumerate() {
                // A thread that cannot be started (a process at its limit) runs its tree on
                // this thread instead, after the others have started (afresh: the kept
                // graph went with the thread that did not start).
                match std::thread::Builder::new().spawn_scoped(s, move || run(t, tree)) {
                    Ok(h) => handles.push(h),
                    Err(_) => here.push(t),
                }
            }
            let mut done: Vec<_> = here.into_iter().map(|t| run(t, None)).collect();
            done.extend(handles.into_iter().filter_map(|h| h.join().ok()));
            done
        })
    };
    let mut stats = Vec::new();
    legal_mask(geo, cfg.rules, root).for_each(|cell| {
        stats.push(MoveStats {
            cell,
            ..MoveStats::default()
        })
    });
    let mut sims = 0;
    let mut graphs = Vec::new();
    for (children, n, tree) in trees {
        sims += n;
        for child in &children {
            if let Some(s) = stats.iter_mut().find(|s| s.cell == child.cell) {
                s.visits += child.visits;
                s.reward += child.reward;
                s.proven = s.proven.or(child.proven);
            }
        }
        // A graph is kept for the next move only if it holds at most half the memory bound:
        // the kept graphs of every seat of a game live side by side, and a copy is made of
        // the part that is reused.
        graphs.push((tree.bytes() <= budget / 2).then_some(tree));
    }
    if let (true, Some(m)) = (params.reuse, memory) {
        m.0 = graphs;
    }
    (stats, sims)
}

/// The alpha-beta evaluation `e` (for the player to move) squashed into 0 .. 1.
fn squash(e: i32, scale: f32) -> f32 {
    1.0 / (1.0 + (-(e as f32) / scale).exp())
}

/// The value, for `player`, of a position that is not over: its evaluation squashed.
fn heuristic<B: Bits>(geo: &Geometry<B>, pos: &Position<B>, player: u8, scale: f32) -> f32 {
    let v = squash(evaluate(geo, pos), scale);
    if pos.to_move == player {
        v
    } else {
        1.0 - v
    }
}

#[allow(clippy::too_many_arguments)]
fn mcts_tree<B: Bits>(
    geo: &Geometry<B>,
    cfg: &Config,
    root: &Position<B>,
    params: &MctsParams,
    simulations: u32,
    deadline: Option<Instant>,
    mut rng: Xoshiro256PlusPlus,
    budget: usize,
    control: &Control,
    kept: Option<Tree<B>>,
) -> (Vec<MoveStats>, u64, Tree<B>) {
    let (c, greedy) = (params.c, params.greedy);
    let two = cfg.players == 2;
    let solver = params.solver && two;
    let alpha = if two { params.minimax as f32 } else { 0.0 };
    let cutoff = if two { params.cutoff } else { 0 };
    let scale = SCALE;
    let players = cfg.players;
    let mut tree = kept.unwrap_or_else(|| Tree::new(root, players));
    // The simulation's path: each node and the edge that led to it (`NONE` at the root).
    let mut path: Vec<(u32, u32)> = Vec::new();
    let mut done = 0u64;
    loop {
        if done % 16 == 0 && control.cancelled() {
            break;
        }
        if deadline.is_some() {
            if done % 16 == 0 && deadline.is_some_and(|d| Instant::now() >= d) && done > 0 {
                break;
            }
            if simulations > 0 && done >= u64::from(simulations) {
                break;
            }
        } else if done >= u64::from(simulations) {
            break;
        }
        done += 1;
        // 1. Selection, 2. expansion: descend by UCT through nodes with children; a leaf
        // reached for the second time gets all its children's edges at once (while the tree
        // has room; a full tree goes on with playouts from its leaves) and the descent goes
        // on along one of them, whose node is made (or found, for a transposition) then. With
        // the solver, a proven node is not descended (its result is known) and a child proven
        // lost for the mover is never picked while another remains.
        let mut n = 0usize;
        path.clear();
        path.push((0, NONE));
        loop {
            let node = &tree.nodes[n];
            if node.pos.winner().is_some() || (solver && node.proven != OPEN) {
                break;
            }
            if node.first == LEAF
                && ((node.visits == 0 && n != 0)
                    || !expand(&mut tree, n, geo, cfg, budget, alpha, scale)
                    || (solver && tree.nodes[n].proven != OPEN))
            {
                break;
            }
            let e = select(&tree, n, c, alpha, solver, &mut rng);
            let mut child = tree.edges[e].child;
            if child == NONE {
                let mut pos = tree.nodes[n].pos;
                play_unchecked(
                    geo,
                    cfg.rules,
                    players,
                    &mut pos,
                    usize::from(tree.edges[e].mv),
                    &mut (),
                );
                match tree.node_of(pos, players, tree.edges[e].value, budget) {
                    Some(id) => child = id,
                    None => break, // no room: a playout from here
                }
                tree.edges[e].child = child;
            }
            if path.try_reserve(1).is_err() {
                break;
            }
            n = child as usize;
            path.push((child, e as u32));
        }
        // 3. Playout: random moves, or greedy ones for a `greedy` share, to the end of the
        // game or, with a `cutoff`, for that many moves and then the evaluation (a node
        // proven by the solver scores its result).
        let mut pos = tree.nodes[n].pos;
        let mut abandoned = false;
        let known = (solver && tree.nodes[n].proven != OPEN).then_some(tree.nodes[n].proven);
        let limit = if cutoff > 0 {
            pos.ply + cutoff
        } else {
            root.ply + PLAYOUT_LIMIT
        };
        while known.is_none() && pos.winner().is_none() && pos.ply < limit {
            // A playout on a big board can take long: it stops with the budget or Ctrl-C.
            if pos.ply & 63 == 63
                && (control.cancelled() || deadline.is_some_and(|d| Instant::now() >= d))
            {
                abandoned = true;
                break;
            }
            let legal = legal_mask(geo, cfg.rules, &pos);
            if legal.is_zero() {
                break;
            }
            let playout = if greedy > 0.0 && rng.random::<f64>() < greedy {
                Playout::Greedy
            } else {
                Playout::Random
            };
            let m = choose(geo, cfg, &pos, legal, playout, &mut rng);
            play_unchecked(geo, cfg.rules, players, &mut pos, m, &mut ());
        }
        if abandoned {
            done -= 1; // an unfinished playout counts for nothing
            break;
        }
        let mut reward = [0.0f32; 8];
        match known.map(usize::from).or(pos.winner()) {
            Some(w) => reward[w] = 1.0,
            None if cutoff > 0 => {
                let v = heuristic(geo, &pos, 0, scale);
                reward[0] = v;
                reward[1] = 1.0 - v;
            }
            None => reward[..players].fill(1.0 / players as f32),
        }
        // 4. Backpropagation along the path; with the solver, proofs too: a node is won for
        // its mover if a child is, lost once every child is won for the other player. With
        // `minimax`, every node on the path takes the negamax of its children's values.
        let mut proving = solver;
        for &(k, via) in path.iter().rev() {
            let i = k as usize;
            if proving && tree.nodes[i].proven == OPEN {
                proving = settle(&mut tree, i);
            }
            if alpha > 0.0 && tree.nodes[i].first != LEAF {
                let node = &tree.nodes[i];
                tree.nodes[i].value = if node.proven != OPEN {
                    f32::from(u8::from(node.proven != node.pos.to_move))
                } else {
                    let best = tree.children(i).iter();
                    1.0 - best.map(|e| tree.edge_value(e)).fold(0.0, f32::max)
                };
            }
            let node = &mut tree.nodes[i];
            node.visits += 1;
            for (r, x) in node.reward.iter_mut().zip(reward) {
                *r += x;
            }
            if via != NONE {
                tree.edges[via as usize].visits += 1;
            }
        }
        if solver && tree.nodes[0].proven != OPEN {
            break; // the root is proven: more simulations cannot change the choice
        }
    }
    let mover = root.to_move as usize;
    let children = tree
        .children(0)
        .iter()
        .filter_map(|e| {
            let node = (e.child != NONE).then(|| &tree.nodes[e.child as usize])?;
            let proven =
                (solver && node.proven != OPEN).then_some(usize::from(node.proven) == mover);
            let mean = f64::from(node.reward[mover]) / f64::from(node.visits.max(1));
            (e.visits > 0 || proven.is_some()).then(|| MoveStats {
                cell: e.mv as usize,
                visits: u64::from(e.visits),
                reward: mean * f64::from(e.visits),
                proven,
            })
        })
        .collect();
    (children, done, tree)
}

impl<B: Bits> Tree<B> {
    /// The value of an edge's child for the parent's mover: its node's, or the edge's own
    /// while it has none.
    fn edge_value(&self, e: &Edge) -> f32 {
        if e.child == NONE {
            e.value
        } else {
            self.nodes[e.child as usize].value
        }
    }
}

/// Gives leaf `n` the edges of all its moves (false if the tree has no room for them). An
/// edge's value (with `alpha > 0`) is the evaluation of the position after the move for `n`'s
/// mover; a move that ends the game gets its child's node at once, proven.
#[allow(clippy::too_many_arguments)]
fn expand<B: Bits>(
    tree: &mut Tree<B>,
    n: usize,
    geo: &Geometry<B>,
    cfg: &Config,
    budget: usize,
    alpha: f32,
    scale: f32,
) -> bool {
    let parent = tree.nodes[n].pos;
    let legal = legal_mask(geo, cfg.rules, &parent);
    let count = legal.count() as usize;
    if count == 0
        || tree.bytes() + count * std::mem::size_of::<Edge>() > budget
        || tree.edges.try_reserve(count).is_err()
    {
        return false;
    }
    let first = tree.edges.len() as u32;
    let mut room = true;
    legal.for_each(|m| {
        let mut pos = parent;
        play_unchecked(geo, cfg.rules, cfg.players, &mut pos, m, &mut ());
        let winner = pos.winner();
        let value = match winner {
            Some(w) => f32::from(u8::from(w == parent.to_move as usize)),
            None if alpha > 0.0 => heuristic(geo, &pos, parent.to_move, scale),
            None => 0.5,
        };
        let mut child = NONE;
        if let Some(w) = winner {
            match tree.node_of(pos, cfg.players, value, budget) {
                Some(id) => {
                    tree.nodes[id as usize].proven = w as u8;
                    child = id;
                }
                None => room = false,
            }
        }
        tree.edges.push(Edge {
            mv: m as u16,
            child,
            visits: 0,
            value,
        });
    });
    if !room {
        tree.edges.truncate(first as usize); // a half-made node is no node
        return false;
    }
    tree.nodes[n].first = first;
    tree.nodes[n].count = count as u16;
    true
}

/// The edge of `n` to descend along: the highest UCT score, the child's mean reward blended
/// with its minimax value by `alpha`; a move never tried scores its value as its mean (with
/// `alpha == 0`, it comes first: every move is tried once, in random order). Ties at random.
fn select<B: Bits>(
    tree: &Tree<B>,
    n: usize,
    c: f64,
    alpha: f32,
    solver: bool,
    rng: &mut Xoshiro256PlusPlus,
) -> usize {
    let node = &tree.nodes[n];
    let mover = node.pos.to_move as usize;
    let log_parent = f64::from(node.visits.max(1)).ln();
    let alpha = f64::from(alpha);
    let first = node.first as usize;
    let (mut best, mut best_score, mut ties) = (first, f64::NEG_INFINITY, 0u32);
    for (i, e) in tree.children(n).iter().enumerate() {
        let child = (e.child != NONE).then(|| &tree.nodes[e.child as usize]);
        let value = f64::from(tree.edge_value(e));
        let mut score = if e.visits == 0 && alpha == 0.0 {
            f64::INFINITY
        } else {
            let mean = match child {
                Some(ch) if ch.visits > 0 => f64::from(ch.reward[mover]) / f64::from(ch.visits),
                _ => value,
            };
            let v = f64::from(e.visits.max(1));
            (1.0 - alpha) * mean + alpha * value + c * (log_parent / v).sqrt()
        };
        if solver && child.is_some_and(|ch| ch.proven != OPEN && usize::from(ch.proven) != mover) {
            score = f64::MIN; // lost: the last resort
        }
        if score > best_score {
            (best, best_score, ties) = (first + i, score, 1);
        } else if score == best_score {
            ties += 1;
            if rng.random_range(0..ties) == 0 {
                best = first + i;
            }
        }
    }
    best
}

/// MCTS-Solver's step at an open node (two players): proven for its mover if a child is,
/// proven for the other player once it has children and every one is. Returns whether it is
/// now proven (the caller goes on settling the node above it).
fn settle<B: Bits>(tree: &mut Tree<B>, n: usize) -> bool {
    let node = &tree.nodes[n];
    if node.first == LEAF {
        return false;
    }
    let mover = node.pos.to_move;
    let mut all_lost = true;
    for e in tree.children(n) {
        let p = if e.child == NONE {
            OPEN
        } else {
            tree.nodes[e.child as usize].proven
        };
        if p == mover {
            tree.nodes[n].proven = mover;
            return true;
        }
        all_lost &= p != OPEN;
    }
    if all_lost {
        tree.nodes[n].proven = 1 - mover;
    }
    all_lost
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    fn params(simulations: u32) -> MctsParams {
        MctsParams {
            simulations,
            time: None,
            c: 0.5,
            trees: 1,
            greedy: 1.0,
            solver: true,
            reuse: true,
            minimax: 0.3,
            cutoff: 0,
        }
    }

    fn grow(cfg: &Config, root: &Position<u64>, sims: u32) -> Tree<u64> {
        let geo = Geometry::<u64>::new(cfg.width, cfg.height);
        let rng = game_rng(7, 0);
        let control = Control::new();
        let p = params(sims);
        mcts_tree(
            &geo,
            cfg,
            root,
            &p,
            sims,
            None,
            rng,
            1 << 28,
            &control,
            None,
        )
        .2
    }

    /// Every edge with a node leads to the position its move makes (an edge without one was
    /// never taken), every node is indexed under its own position, and a node's visits are at
    /// least the sum of its edges'.
    fn check_graph(cfg: &Config, tree: &Tree<u64>) {
        let geo = Geometry::<u64>::new(cfg.width, cfg.height);
        for (n, node) in tree.nodes.iter().enumerate() {
            let key = zobrist(&node.pos, cfg.players) ^ mix(u64::from(node.pos.ply));
            assert_eq!(node.key, key);
            assert_eq!(tree.index.get(&key), Some(&(n as u32)));
            let mut through = 0;
            for e in tree.children(n) {
                if e.child == NONE {
                    assert_eq!(e.visits, 0);
                    continue;
                }
                let mut pos = node.pos;
                let m = e.mv as usize;
                play_unchecked(&geo, cfg.rules, cfg.players, &mut pos, m, &mut ());
                assert_eq!(pos, tree.nodes[e.child as usize].pos);
                through += e.visits;
            }
            // Every simulation through a node goes on along one of its edges, but those that
            // ended there.
            assert!(through <= node.visits);
        }
    }

    #[test]
    fn with_no_simulation_run_the_move_is_greedys_not_the_first_cell() {
        // A budget that ends inside the first playout (32 x 32 classic at 0.1 s) played a1.
        let cfg = Config::new(5, 5, 2, Rules::CLASSIC, 0).unwrap();
        let geo = Geometry::<u64>::new(cfg.width, cfg.height);
        let mut pos = Position::start(&cfg);
        for m in [
            12, 14, 1, 9, 18, 17, 13, 10, 19, 14, 22, 7, 21, 5, 13, 5, 3, 10, 23,
        ] {
            play_unchecked(&geo, cfg.rules, cfg.players, &mut pos, m, &mut ());
        }
        let control = Control::new();
        control.cancel();
        let (cell, sims) = mcts(&geo, &cfg, &pos, &params(100), 3, &control, None);
        assert_eq!(sims, 0);
        let orbs_after = |m: usize| {
            let mut after = pos;
            play_unchecked(&geo, cfg.rules, cfg.players, &mut after, m, &mut ());
            after.orbs(pos.to_move as usize)
        };
        let legal = legal_mask(&geo, cfg.rules, &pos);
        let mut most = 0;
        legal.for_each(|m| most = most.max(orbs_after(m)));
        assert_eq!(orbs_after(cell), most);
        assert!(
            orbs_after(legal.nth(0)) < most,
            "the first cell is greedy's too"
        );
    }

    #[test]
    fn transpositions_share_one_node() {
        let cfg = Config::new(3, 3, 2, Rules::CLASSIC, 0).unwrap();
        let tree = grow(&cfg, &Position::start(&cfg), 3000);
        check_graph(&cfg, &tree);
        // Some position is reached by two orders of moves: fewer nodes than the edges that
        // lead to one, plus the root.
        let linked = tree.edges.iter().filter(|e| e.child != NONE).count();
        assert!(
            tree.nodes.len() < linked + 1,
            "{} nodes, {linked} edges",
            tree.nodes.len()
        );
        // Untried moves have no node: far fewer nodes than edges.
        assert!(tree.nodes.len() * 2 < tree.edges.len());
    }

    #[test]
    fn the_graph_below_the_next_position_is_kept() {
        let cfg = Config::new(4, 4, 2, Rules::COLORWARS, 0).unwrap();
        let root = Position::start(&cfg);
        let tree = grow(&cfg, &root, 4000);
        // Two plies down the most visited line.
        let busiest = |tree: &Tree<u64>, n: usize| {
            let e = tree
                .children(n)
                .iter()
                .max_by_key(|e| tree.nodes[e.child as usize].visits);
            e.unwrap().child as usize
        };
        let a = busiest(&tree, 0);
        let b = busiest(&tree, a);
        let pos = tree.nodes[b].pos;
        let (visits, reward) = (tree.nodes[b].visits, tree.nodes[b].reward);
        let kept = tree
            .reroot(&pos, 2, &|| false)
            .expect("the position is in the graph");
        assert_eq!(kept.nodes[0].pos, pos);
        assert_eq!(
            (kept.nodes[0].visits, kept.nodes[0].reward),
            (visits, reward)
        );
        assert!(kept.nodes.len() > 1);
        check_graph(&cfg, &kept);
        // A position the graph does not hold: nothing kept.
        let mut other = root;
        let geo = Geometry::<u64>::new(4, 4);
        for m in [0, 15, 5, 10] {
            play_unchecked(&geo, cfg.rules, 2, &mut other, m, &mut ());
        }
        let tree = grow(&cfg, &root, 50);
        assert!(tree.reroot(&other, 2, &|| false).is_none());
        // Ctrl-C or the deadline while copying a big graph: nothing kept.
        let tree = grow(&cfg, &root, 20_000);
        let b = busiest(&tree, busiest(&tree, 0));
        let pos = tree.nodes[b].pos;
        assert!(tree.nodes.len() > 5000);
        assert!(tree.reroot(&pos, 2, &|| true).is_none());
    }

    #[test]
    fn untried_moves_take_no_node() {
        // 32 x 32: 1,024 moves a position; a node is a 1.4 KB position.
        let cfg = Config::new(32, 32, 2, Rules::COLORWARS, 0).unwrap();
        let geo = Geometry::<crate::bits::Wide<16>>::new(32, 32);
        let root = Position::start(&cfg);
        let p = MctsParams {
            cutoff: 10,
            ..params(1000)
        };
        let control = Control::new();
        let (_, sims, tree) = mcts_tree(
            &geo,
            &cfg,
            &root,
            &p,
            1000,
            None,
            game_rng(1, 0),
            1 << 30,
            &control,
            None,
        );
        assert_eq!(sims, 1000);
        assert!(tree.nodes.len() <= 1001);
        assert!(tree.bytes() < 16 << 20, "{} bytes", tree.bytes());
    }

    #[test]
    fn a_kept_graph_adds_to_the_next_search() {
        let cfg = Config::new(4, 4, 2, Rules::COLORWARS, 0).unwrap();
        let geo = Geometry::<u64>::new(4, 4);
        let mut pos = Position::start(&cfg);
        let control = Control::new();
        let mut memory = Trees::default();
        let p = MctsParams {
            solver: false,
            ..params(2000)
        };
        for _ in 0..2 {
            let (m, _) = mcts(&geo, &cfg, &pos, &p, 1, &control, Some(&mut memory));
            play_unchecked(&geo, cfg.rules, 2, &mut pos, m, &mut ());
        }
        // The search after two moves: its root's children hold more than its 2000 simulations.
        let (stats, sims) = search(&geo, &cfg, &pos, &p, 1, &control, Some(&mut memory));
        assert_eq!(sims, 2000);
        assert!(stats.iter().map(|s| s.visits).sum::<u64>() > 2000);
        // Without reuse, exactly the simulations run (the root has its children from the
        // first simulation on).
        let fresh = MctsParams { reuse: false, ..p };
        let (stats, _) = search(&geo, &cfg, &pos, &fresh, 1, &control, Some(&mut memory));
        assert_eq!(stats.iter().map(|s| s.visits).sum::<u64>(), 2000);
    }

    #[test]
    fn minimax_values_are_negamax_of_the_children() {
        let cfg = Config::new(3, 4, 2, Rules::CLASSIC, 0).unwrap();
        let tree = grow(&cfg, &Position::start(&cfg), 2000);
        for (n, node) in tree.nodes.iter().enumerate() {
            let kids = tree.children(n);
            if kids.is_empty() || node.proven != OPEN || node.visits == 0 {
                continue;
            }
            let best = kids.iter().map(|e| tree.edge_value(e)).fold(0.0, f32::max);
            assert!((0.0..=1.0).contains(&node.value));
            // Values below may have changed through another parent since this node's last
            // update; the root's are up to date after the last simulation through it.
            if n == 0 {
                assert_eq!(node.value, 1.0 - best);
            }
        }
    }
}
