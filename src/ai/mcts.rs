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

struct Node<B> {
    pos: Position<B>,
    parent: u32,
    mv: u16,
    children: Vec<u32>,
    untried: B,
    visits: u32,
    /// Total reward of each player over the playouts through this node.
    reward: [f32; 8],
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
}

/// Monte-Carlo tree search (UCT): every seat maximises its own result (1 for a win, 0 for a
/// loss). Root parallelism: `threads` independent trees share the budget and their root
/// statistics are summed. Returns the most visited move and the simulations run.
#[allow(clippy::too_many_arguments)]
pub fn mcts<B: Bits>(
    geo: &Geometry<B>,
    cfg: &Config,
    root: &Position<B>,
    simulations: u32,
    time: Option<Duration>,
    c: f64,
    threads: usize,
    greedy: f64,
    seed: u64,
    control: &Control,
) -> (usize, u64) {
    let (stats, sims) = mcts_analysis(
        geo,
        cfg,
        root,
        simulations,
        time,
        c,
        threads,
        greedy,
        seed,
        control,
    );
    let legal = legal_mask(geo, cfg.rules, root);
    let mut best = (legal.nth(0), 0u64);
    for s in &stats {
        if s.visits > best.1 {
            best = (s.cell, s.visits);
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
    simulations: u32,
    time: Option<Duration>,
    c: f64,
    threads: usize,
    greedy: f64,
    seed: u64,
    control: &Control,
) -> (Vec<MoveStats>, u64) {
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
            per_tree(t),
            deadline,
            c,
            greedy,
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
    simulations: u32,
    deadline: Option<Instant>,
    c: f64,
    greedy: f64,
    mut rng: Xoshiro256PlusPlus,
    max_nodes: usize,
    control: &Control,
) -> (Vec<MoveStats>, u64) {
    let players = cfg.players;
    let mut nodes = vec![Node {
        pos: *root,
        parent: u32::MAX,
        mv: 0,
        children: Vec::new(),
        untried: legal_mask(geo, cfg.rules, root),
        visits: 0,
        reward: [0.0; 8],
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
        // 1. Selection: descend through fully expanded nodes by UCT.
        let mut n = 0usize;
        while nodes[n].untried.is_zero() && !nodes[n].children.is_empty() {
            let mover = nodes[n].pos.to_move as usize;
            let log_parent = f64::from(nodes[n].visits.max(1)).ln();
            let mut best = (f64::NEG_INFINITY, 0u32);
            for &ch in &nodes[n].children {
                let child = &nodes[ch as usize];
                let v = f64::from(child.visits.max(1));
                let score = f64::from(child.reward[mover]) / v + c * (log_parent / v).sqrt();
                if score > best.0 {
                    best = (score, ch);
                }
            }
            n = best.1 as usize;
        }
        // 2. Expansion: one untried move, chosen at random (while the tree has room; a full
        // tree goes on with playouts from its leaves).
        let room = nodes.len() < max_nodes && nodes.try_reserve(1).is_ok();
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
            });
            let id = (nodes.len() - 1) as u32;
            nodes[n].children.push(id);
            n = id as usize;
        }
        // 3. Playout to the end: random moves, or greedy ones for a `greedy` share.
        let mut pos = nodes[n].pos;
        let mut abandoned = false;
        while pos.winner().is_none() && pos.ply < root.ply + PLAYOUT_LIMIT {
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
        match pos.winner() {
            Some(w) => reward[w] = 1.0,
            None => reward[..players].fill(1.0 / players as f32),
        }
        // 4. Backpropagation.
        let mut k = n as u32;
        while k != u32::MAX {
            let node = &mut nodes[k as usize];
            node.visits += 1;
            for (r, x) in node.reward.iter_mut().zip(reward) {
                *r += x;
            }
            k = node.parent;
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
            }
        })
        .collect();
    (children, done)
}
