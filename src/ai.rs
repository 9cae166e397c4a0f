//! Players: random, greedy, Monte-Carlo tree search and alpha-beta, and native matches
//! between them.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rand::RngExt;
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;

use crate::bits::Bits;
use crate::board::{Geometry, Position};
use crate::cascade::{legal_mask, play_unchecked};
use crate::error::{Error, Result};
use crate::rng::{game_rng, mix};
use crate::rules::Config;
use crate::search::{alphabeta_move, zobrist};
use crate::simulate::{choose, GameSummary, Policy, SimOutput};

/// A player and its budget.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PlayerSpec {
    Random,
    Greedy,
    /// UCT with random playouts. `simulations` per move (or until `time` runs out when set),
    /// exploration constant `c`, root parallelism over `threads` trees.
    /// `greedy` is the share of playout moves chosen greedily (the rest are random).
    Mcts {
        simulations: u32,
        time: Option<Duration>,
        c: f64,
        threads: usize,
        greedy: f64,
    },
    /// Iterative-deepening negamax with a transposition table (two players).
    AlphaBeta {
        depth: i32,
        time: Option<Duration>,
    },
}

impl PlayerSpec {
    pub fn check(&self, cfg: &Config) -> Result<()> {
        match *self {
            PlayerSpec::Mcts {
                simulations,
                c,
                threads,
                time,
                greedy,
            } => {
                if !(0.0..=1.0).contains(&greedy) {
                    return Err(Error::InvalidPolicy(format!(
                        "MCTS greedy playout share {greedy}: allowed are 0 to 1"
                    )));
                }
                if simulations == 0 && time.is_none() {
                    return Err(Error::InvalidPolicy(
                        "MCTS needs simulations >= 1 or a time budget".into(),
                    ));
                }
                if !(c.is_finite() && c >= 0.0) || threads == 0 || threads > 256 {
                    return Err(Error::InvalidPolicy(
                        "MCTS needs c >= 0 and 1 to 256 threads".into(),
                    ));
                }
            }
            PlayerSpec::AlphaBeta { depth, .. } => {
                if cfg.players != 2 {
                    return Err(Error::InvalidPolicy(format!(
                        "alpha-beta plays two-player games only, not {}",
                        cfg.players
                    )));
                }
                if !(1..=64).contains(&depth) {
                    return Err(Error::InvalidPolicy(format!(
                        "alpha-beta depth {depth}: allowed are 1 to 64"
                    )));
                }
            }
            PlayerSpec::Random | PlayerSpec::Greedy => {}
        }
        Ok(())
    }
}

/// Chooses a move for the player to move (the position must have one). `seed` makes every
/// choice reproducible: searches seed their generator from (seed, position).
pub fn choose_move<B: Bits>(
    geo: &Geometry<B>,
    cfg: &Config,
    pos: &Position<B>,
    spec: &PlayerSpec,
    rng: &mut Xoshiro256PlusPlus,
    seed: u64,
) -> (usize, u64) {
    let legal = legal_mask(geo, cfg.rules, pos);
    match *spec {
        PlayerSpec::Random => (choose(geo, cfg, pos, legal, Policy::Random, rng), 0),
        PlayerSpec::Greedy => (
            choose(geo, cfg, pos, legal, Policy::Greedy, rng),
            legal.count() as u64,
        ),
        PlayerSpec::Mcts {
            simulations,
            time,
            c,
            threads,
            greedy,
        } => mcts(geo, cfg, pos, simulations, time, c, threads, greedy, seed),
        PlayerSpec::AlphaBeta { depth, time } => {
            let (m, _, nodes) =
                alphabeta_move(geo, cfg, pos, depth, time.map(|t| Instant::now() + t));
            (m, nodes)
        }
    }
}

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

/// Monte-Carlo tree search (UCT): every seat maximises its own result (1 for a win, 0 for a
/// loss). Root parallelism: `threads` independent trees share the budget and their root visit
/// counts are summed. Returns the most visited move and the simulations run.
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
) -> (usize, u64) {
    let key = zobrist(root, cfg.players);
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
        )
    };
    let trees: Vec<(Vec<(usize, u32)>, u64)> = if threads == 1 {
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
    let mut visits = vec![0u64; geo.cells];
    let mut sims = 0;
    for (children, n) in &trees {
        sims += n;
        for &(m, v) in children {
            visits[m] += u64::from(v);
        }
    }
    let legal = legal_mask(geo, cfg.rules, root);
    let mut best = legal.nth(0);
    legal.for_each(|m| {
        if visits[m] > visits[best] {
            best = m;
        }
    });
    (best, sims)
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
) -> (Vec<(usize, u32)>, u64) {
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
        // 2. Expansion: one untried move, chosen at random.
        if let Some(m) = nodes[n].untried.pick(|k| rng.random_range(0..k)) {
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
        while pos.winner().is_none() && pos.ply < root.ply + PLAYOUT_LIMIT {
            let legal = legal_mask(geo, cfg.rules, &pos);
            if legal.is_zero() {
                break;
            }
            let policy = if greedy > 0.0 && rng.random::<f64>() < greedy {
                Policy::Greedy
            } else {
                Policy::Random
            };
            let m = choose(geo, cfg, &pos, legal, policy, &mut rng);
            play_unchecked(geo, cfg.rules, players, &mut pos, m, &mut ());
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
    let children = nodes[0]
        .children
        .iter()
        .map(|&ch| (nodes[ch as usize].mv as usize, nodes[ch as usize].visits))
        .collect();
    (children, done)
}

/// What a native match plays: the seats' players and the run's settings.
#[derive(Clone, Debug)]
pub struct MatchSpec {
    pub seats: Vec<PlayerSpec>,
    pub seed: u64,
    /// Every game's first move, when set (for opening statistics).
    pub first_move: Option<usize>,
    pub max_plies: Option<u32>,
    /// Keep every game's moves.
    pub record: bool,
}

/// Plays games `start .. start + games` natively (in parallel on the current rayon pool),
/// seat `s` played by `seats[s]`. Game `i` uses generators seeded from (seed, i) only, so a
/// run split into shards gives the same games. `done` counts finished games; setting
/// `cancel` stops the run early (the output is then marked incomplete).
pub fn play_match<B: Bits>(
    geo: &Geometry<B>,
    cfg: &Config,
    spec: &MatchSpec,
    start: u64,
    games: usize,
    done: &AtomicU64,
    cancel: &AtomicBool,
) -> SimOutput {
    let results: Vec<(GameSummary, Vec<u16>)> = (0..games)
        .into_par_iter()
        .map(|j| {
            if cancel.load(Ordering::Relaxed) {
                return (
                    GameSummary {
                        winner: -1,
                        ..GameSummary::default()
                    },
                    Vec::new(),
                );
            }
            let i = start + j as u64;
            let mut rng = game_rng(spec.seed, i);
            let search_seed = mix(spec.seed ^ i.wrapping_mul(0x9e37_79b9_7f4a_7c15));
            let mut pos = Position::<B>::start(cfg);
            let mut out = GameSummary {
                winner: -1,
                ..GameSummary::default()
            };
            let mut moves = Vec::new();
            let limit = spec.max_plies.unwrap_or(u32::MAX);
            while pos.winner().is_none() && pos.ply < limit {
                let m = match spec.first_move {
                    Some(f) if pos.ply == 0 => f,
                    _ => {
                        let seat = &spec.seats[pos.to_move as usize];
                        choose_move(geo, cfg, &pos, seat, &mut rng, search_seed).0
                    }
                };
                if pos.ply == 0 {
                    out.first_move = m as u16;
                }
                if spec.record {
                    moves.push(m as u16);
                }
                let w = play_unchecked(geo, cfg.rules, cfg.players, &mut pos, m, &mut ());
                out.waves += w;
                out.longest_cascade = out.longest_cascade.max(w);
            }
            out.plies = pos.ply;
            out.winner = pos.winner().map_or(-1, |w| w as i8);
            done.fetch_add(1, Ordering::Relaxed);
            (out, moves)
        })
        .collect();
    let mut out = SimOutput {
        complete: !cancel.load(Ordering::Relaxed),
        ..SimOutput::default()
    };
    for (summary, moves) in results {
        if spec.record {
            out.offsets.push(out.moves.len() as u64);
            out.moves.extend_from_slice(&moves);
        }
        out.games.push(summary);
    }
    if spec.record {
        out.offsets.push(out.moves.len() as u64);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    fn wins(cfg: &Config, a: PlayerSpec, b: PlayerSpec, games: usize) -> (usize, usize) {
        // Both seats: half the games with a first, half with b first.
        let geo = Geometry::<u64>::new(cfg.width, cfg.height);
        let run = |seats: Vec<PlayerSpec>, seed| {
            let spec = MatchSpec {
                seats,
                seed,
                first_move: None,
                max_plies: None,
                record: false,
            };
            play_match(
                &geo,
                cfg,
                &spec,
                0,
                games / 2,
                &AtomicU64::new(0),
                &AtomicBool::new(false),
            )
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
        let mcts = PlayerSpec::Mcts {
            simulations: 300,
            time: None,
            c: 1.4,
            threads: 1,
            greedy: 0.0,
        };
        let (w, n) = wins(&cfg, mcts, PlayerSpec::Random, 40);
        assert!(w >= 36, "MCTS won {w} of {n}");
    }

    #[test]
    fn alphabeta_beats_greedy_and_finds_a_win_in_one() {
        let cfg = Config::new(4, 4, 2, Rules::CLASSIC, 0).unwrap();
        let (w, n) = wins(
            &cfg,
            PlayerSpec::AlphaBeta {
                depth: 3,
                time: None,
            },
            PlayerSpec::Greedy,
            40,
        );
        assert!(w >= 30, "alpha-beta won {w} of {n}");
        // 2x2 classic, a to move: a1 takes b's only cell.
        let cfg = Config::new(2, 2, 2, Rules::CLASSIC, 0).unwrap();
        let setup = crate::notation::parse_position("2x2 classic 2 1a1b/.. a ab - 2").unwrap();
        let crate::game::AnyGame::W1(g) = crate::game::AnyGame::from_setup(&setup).unwrap() else {
            panic!()
        };
        let (m, score, _) = alphabeta_move(&g.geo, &cfg, &g.pos, 4, None);
        assert_eq!(m, 0);
        assert_eq!(score, crate::search::WIN - 1);
    }

    #[test]
    fn choices_are_deterministic() {
        let cfg = Config::new(5, 5, 3, Rules::COLORWARS, 0).unwrap();
        let geo = Geometry::<u64>::new(5, 5);
        let spec = PlayerSpec::Mcts {
            simulations: 200,
            time: None,
            c: 1.0,
            threads: 2,
            greedy: 0.5,
        };
        let m = MatchSpec {
            seats: vec![spec, PlayerSpec::Greedy, PlayerSpec::Random],
            seed: 9,
            first_move: None,
            max_plies: None,
            record: true,
        };
        let run = |start, n| {
            play_match(
                &geo,
                &cfg,
                &m,
                start,
                n,
                &AtomicU64::new(0),
                &AtomicBool::new(false),
            )
        };
        let a = run(0, 6);
        let b = run(0, 6);
        // Shards give the same games as one run.
        let (s1, s2) = (run(0, 2), run(2, 4));
        assert_eq!([s1.games, s2.games].concat(), a.games);
        assert_eq!(a.games, b.games);
        assert_eq!(a.moves, b.moves);
        assert_eq!(a.offsets.len(), 7);
    }
}
