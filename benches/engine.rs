//! Criterion benches of the hot paths (`cargo bench`): a whole game replayed with
//! `play_unchecked`, the longest cascade of a game, a batch of simulated games and a step of a
//! batch of environments. Wall-clock figures for comparing two versions on one machine; the
//! figures the docs quote come from `benchmarks/*.py`.

use std::hint::black_box;

use colorwars::board::{Geometry, Position};
use colorwars::cascade::{legal_mask, play_unchecked};
use colorwars::control::Control;
use colorwars::playout::{choose, Playout};
use colorwars::rng::game_rng;
use colorwars::simulate::{simulate, SimSpec};
use colorwars::vecenv::{AnyVecEnv, Buffers, Illegal};
use colorwars::{Config, Rules};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};

/// The boards people play most: 5x5 colorwars and 8x8 classic (both fit one 64-bit word).
fn boards() -> [(&'static str, Config); 2] {
    [
        (
            "5x5 colorwars",
            Config::new(5, 5, 2, Rules::COLORWARS, 0).unwrap(),
        ),
        (
            "8x8 classic",
            Config::new(8, 8, 2, Rules::CLASSIC, 0).unwrap(),
        ),
    ]
}

/// A random game's moves, and the position before its move with the longest cascade.
fn random_game(cfg: &Config, geo: &Geometry<u64>) -> (Vec<usize>, Position<u64>, usize) {
    let mut rng = game_rng(7, 0);
    let mut pos = Position::<u64>::start(cfg);
    let (mut moves, mut longest) = (Vec::new(), (0, pos, 0));
    while pos.winner().is_none() {
        let legal = legal_mask(geo, cfg.rules, &pos);
        let cell = choose(geo, cfg, &pos, legal, Playout::Random, &mut rng);
        let before = pos;
        let waves = play_unchecked(geo, cfg.rules, cfg.players, &mut pos, cell, &mut ());
        if waves > longest.0 {
            longest = (waves, before, cell);
        }
        moves.push(cell);
    }
    (moves, longest.1, longest.2)
}

fn play(c: &mut Criterion) {
    for (name, cfg) in boards() {
        let geo = Geometry::<u64>::new(cfg.width, cfg.height);
        let (moves, before, cell) = random_game(&cfg, &geo);
        let mut group = c.benchmark_group(format!("play_unchecked/{name}"));
        group.throughput(Throughput::Elements(moves.len() as u64));
        group.bench_function("a whole game", |b| {
            b.iter(|| {
                let mut pos = Position::<u64>::start(&cfg);
                for &m in &moves {
                    play_unchecked(&geo, cfg.rules, 2, &mut pos, black_box(m), &mut ());
                }
                black_box(pos)
            })
        });
        group.throughput(Throughput::Elements(1));
        group.bench_function("the longest cascade", |b| {
            b.iter(|| {
                let mut pos = black_box(before);
                black_box(play_unchecked(&geo, cfg.rules, 2, &mut pos, cell, &mut ()))
            })
        });
        group.finish();
    }
}

fn simulate_batch(c: &mut Criterion) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    for (name, cfg) in boards() {
        let spec = SimSpec {
            cfg,
            seats: [Playout::Random; 8],
            seed: 1,
            max_plies: None,
            record: false,
        };
        let mut group = c.benchmark_group(format!("simulate/{name}"));
        group.throughput(Throughput::Elements(256));
        group.bench_function("256 random games, one thread", |b| {
            b.iter(|| pool.install(|| simulate(&spec, 0, 256, &Control::new()).unwrap()))
        });
        group.finish();
    }
}

fn vecenv_step(c: &mut Criterion) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let n = 1024;
    for (name, cfg) in boards() {
        let cells = cfg.cells();
        let (mut obs, mut mask, mut to_move) =
            (vec![0u8; n * 2 * cells], vec![0u8; n * cells], vec![0i8; n]);
        let (mut rewards, mut seat_rewards) = (vec![0f32; n], vec![0f32; n * 2]);
        let (mut terminated, mut truncated, mut winner) =
            (vec![0u8; n], vec![0u8; n], vec![0i8; n]);
        let (mut episode_plies, mut illegal, mut final_obs) =
            (vec![0u32; n], vec![0u8; n], vec![0u8; n * 2 * cells]);
        let mut out = Buffers {
            obs: &mut obs,
            mask: &mut mask,
            to_move: &mut to_move,
            rewards: &mut rewards,
            seat_rewards: &mut seat_rewards,
            terminated: &mut terminated,
            truncated: &mut truncated,
            winner: &mut winner,
            episode_plies: &mut episode_plies,
            illegal: &mut illegal,
            final_obs: &mut final_obs,
        };
        let mut env = AnyVecEnv::new(cfg, n, None).unwrap();
        env.reset(Some(3), &mut out);
        let mut actions = vec![0i64; n];
        let mut group = c.benchmark_group(format!("vecenv/{name}"));
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function("sample_legal + step, 1024 environments, one thread", |b| {
            b.iter_batched(
                || (),
                |()| {
                    pool.install(|| {
                        env.sample_legal(&mut actions);
                        env.step(&actions, Illegal::Raise, &mut out);
                    })
                },
                BatchSize::SmallInput,
            )
        });
        group.finish();
    }
}

criterion_group!(benches, play, simulate_batch, vecenv_step);
criterion_main!(benches);
