//! Monte-Carlo tree search (UCT) with random or partly greedy playouts, root-parallel.

use std::time::{Duration, Instant};

use rand::RngExt;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::Player;
use crate::bits::Bits;
use crate::board::{Geometry, Position};
use crate::cascade::{legal_mask, play_unchecked};
use crate::control::Control;
use crate::rng::game_rng;
use crate::rules::Config;
use crate::search::zobrist;
use crate::simulate::choose;

/// What MCTS plays with: `simulations` per move (or until `time` runs out when set; with both,
/// whichever comes first), exploration constant `c`, root parallelism over `threads` trees,
/// `greedy` the share of playout moves chosen greedily (the rest at random), and `solver`:
/// MCTS-Solver (Winands et al. 2008), two players only: proven wins and losses propagate up
/// the tree, a proven win is played at once and a proven loss never chosen while anything
/// else remains.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MctsParams {
    pub simulations: u32,
    pub time: Option<Duration>,
    pub c: f64,
    pub threads: usize,
    pub greedy: f64,
    pub solver: bool,
}

/// No proven result (`Node::proven`).
const OPEN: u8 = u8::MAX;

struct Node<B> {
    pos: Position<B>,
    parent: u32,
    mv: u16,
    children: Vec<u32>,
    untried: B,
    visits: u32,
    /// Total reward of each player over the playouts through this node.
    reward: [f32; 8],
    /// With the solver: the player proven to win from here, or `OPEN`.
    proven: u8,
}

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
/// loss). Root parallelism: `threads` independent trees share the budget and their root
/// statistics are summed. Returns the most visited move and the simulations run.
#[allow(clippy::too_many_arguments)]
pub fn mcts<B: Bits>(
    geo: &Geometry<B>,
    cfg: &Config,
    root: &Position<B>,
    params: &MctsParams,
    seed: u64,
    control: &Control,
) -> (usize, u64) {
    let (stats, sims) = mcts_analysis(geo, cfg, root, params, seed, control);
    let legal = legal_mask(geo, cfg.rules, root);
    // A proven win first; then the most visited move that is not a proven loss.
    let mut best = (legal.nth(0), (false, false, 0u64));
    for s in &stats {
        let rank = (s.proven == Some(true), s.proven != Some(false), s.visits);
        if rank > best.1 {
            best = (s.cell, rank);
        }
    }
    (best.0, sims)
}

/// The search of `mcts`, reporting every legal move of the root (ascending by cell, moves the
/// search never tried with 0 visits) and the simulations run.
#[allow(clippy::too_many_arguments)]
pub fn mcts_analysis<B: Bits>(
    geo: &Geometry<B>,
    cfg: &Config,
    root: &Position<B>,
    params: &MctsParams,
    seed: u64,
    control: &Control,
) -> (Vec<MoveStats>, u64) {
    let MctsParams {
        simulations,
        time,
        threads,
        ..
    } = *params;
    let key = zobrist(root, cfg.players);
    let max_nodes = (TREE_BYTES / threads / std::mem::size_of::<Node<B>>()).max(2);
    let deadline = time.map(|t| Instant::now() + t);
    let per_tree = |t: usize| {
        simulations / threads as u32 + u32::from((t as u32) < simulations % threads as u32)
    };
    let run = |t: usize| {
        mcts_tree(
            geo,
            cfg,
            root,
            params,
            per_tree(t),
            deadline,
            game_rng(seed ^ key, t as u64),
            max_nodes,
            control,
        )
    };
    let trees: Vec<(Vec<MoveStats>, u64)> = if threads == 1 {
        vec![run(0)]
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads).map(|t| s.spawn(move || run(t))).collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_default())
                .collect()
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
    for (children, n) in &trees {
        sims += n;
        for child in children {
            if let Some(s) = stats.iter_mut().find(|s| s.cell == child.cell) {
                s.visits += child.visits;
                s.reward += child.reward;
                s.proven = s.proven.or(child.proven);
            }
        }
    }
    (stats, sims)
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
    max_nodes: usize,
    control: &Control,
) -> (Vec<MoveStats>, u64) {
    let (c, greedy) = (params.c, params.greedy);
    let solver = params.solver && cfg.players == 2;
    let players = cfg.players;
    let mut nodes = vec![Node {
        pos: *root,
        parent: u32::MAX,
        mv: 0,
        children: Vec::new(),
        untried: legal_mask(geo, cfg.rules, root),
        visits: 0,
        reward: [0.0; 8],
        proven: OPEN,
    }];
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
        // 1. Selection: descend through fully expanded nodes by UCT. With the solver, a
        // proven node is not descended (its result is known) and a child proven lost for the
        // mover is never picked while another remains.
        let mut n = 0usize;
        while nodes[n].untried.is_zero() && !nodes[n].children.is_empty() && nodes[n].proven == OPEN
        {
            let mover = nodes[n].pos.to_move as usize;
            let log_parent = f64::from(nodes[n].visits.max(1)).ln();
            let mut best = (f64::NEG_INFINITY, 0u32);
            for &ch in &nodes[n].children {
                let child = &nodes[ch as usize];
                let v = f64::from(child.visits.max(1));
                let mut score = f64::from(child.reward[mover]) / v + c * (log_parent / v).sqrt();
                if solver && child.proven != OPEN && usize::from(child.proven) != mover {
                    score = f64::MIN; // lost: the last resort
                }
                if score > best.0 {
                    best = (score, ch);
                }
            }
            n = best.1 as usize;
        }
        // 2. Expansion: one untried move, chosen at random (while the tree has room; a full
        // tree goes on with playouts from its leaves).
        let room = nodes.len() < max_nodes
            && nodes.try_reserve(1).is_ok()
            && (!solver || nodes[n].proven == OPEN);
        if let Some(m) = room
            .then(|| nodes[n].untried.pick(|k| rng.random_range(0..k)))
            .flatten()
        {
            nodes[n].untried &= !B::bit(m);
            let mut pos = nodes[n].pos;
            play_unchecked(geo, cfg.rules, players, &mut pos, m, &mut ());
            let untried = legal_mask(geo, cfg.rules, &pos);
            nodes.push(Node {
                pos,
                parent: n as u32,
                mv: m as u16,
                children: Vec::new(),
                untried,
                visits: 0,
                reward: [0.0; 8],
                proven: pos.winner().map_or(OPEN, |w| w as u8),
            });
            let id = (nodes.len() - 1) as u32;
            nodes[n].children.push(id);
            n = id as usize;
        }
        // 3. Playout to the end: random moves, or greedy ones for a `greedy` share (a node
        // proven by the solver scores its result).
        let mut pos = nodes[n].pos;
        let mut abandoned = false;
        let known = (solver && nodes[n].proven != OPEN).then_some(nodes[n].proven as usize);
        while known.is_none() && pos.winner().is_none() && pos.ply < root.ply + PLAYOUT_LIMIT {
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
            let player = if greedy > 0.0 && rng.random::<f64>() < greedy {
                Player::Greedy
            } else {
                Player::Random
            };
            let m = choose(geo, cfg, &pos, legal, player, &mut rng);
            play_unchecked(geo, cfg.rules, players, &mut pos, m, &mut ());
        }
        if abandoned {
            done -= 1; // an unfinished playout counts for nothing
            break;
        }
        let mut reward = [0.0f32; 8];
        match known.or(pos.winner()) {
            Some(w) => reward[w] = 1.0,
            None => reward[..players].fill(1.0 / players as f32),
        }
        // 4. Backpropagation; with the solver, proofs too: a node is won for its mover if a
        // child is, lost once every move has been tried and every child is won for the other.
        let mut k = n as u32;
        let mut proving = solver;
        while k != u32::MAX {
            if proving && nodes[k as usize].proven == OPEN {
                proving = settle(&mut nodes, k as usize);
            }
            let node = &mut nodes[k as usize];
            node.visits += 1;
            for (r, x) in node.reward.iter_mut().zip(reward) {
                *r += x;
            }
            k = node.parent;
        }
        if solver && nodes[0].proven != OPEN {
            break; // the root is proven: more simulations cannot change the choice
        }
    }
    let mover = root.to_move as usize;
    let children = nodes[0]
        .children
        .iter()
        .map(|&ch| {
            let node = &nodes[ch as usize];
            MoveStats {
                cell: node.mv as usize,
                visits: u64::from(node.visits),
                reward: f64::from(node.reward[mover]),
                proven: (node.proven != OPEN).then_some(usize::from(node.proven) == mover),
            }
        })
        .collect();
    (children, done)
}

/// MCTS-Solver's step at an open node (two players): proven for its mover if a child is,
/// proven for the other player once all moves are expanded and every child is. Returns
/// whether it is now proven (the caller goes on settling its parent).
fn settle<B: Bits>(nodes: &mut [Node<B>], n: usize) -> bool {
    let mover = nodes[n].pos.to_move;
    let mut all_lost = nodes[n].untried.is_zero();
    for &ch in &nodes[n].children {
        let p = nodes[ch as usize].proven;
        if p == mover {
            nodes[n].proven = mover;
            return true;
        }
        if p == OPEN {
            all_lost = false;
        }
    }
    if all_lost && !nodes[n].children.is_empty() {
        nodes[n].proven = 1 - mover;
        return true;
    }
    false
}
