//! The exact length of a board's game by depth-bounded proof-number search:
//! `cargo run --release --example length -- 5 5 colorwars [MEMORY_MIB [WINNER [BOUND...]]]`.
//! With bounds, asks only "does WINNER (a or b) win within each BOUND plies?", each timed
//! (`LENGTH_SECONDS` in the environment stops each after that many seconds). Without bounds,
//! the exact length, each search of the gallop and the bisection logged as it ends, both
//! sides walked on real positions unless `LENGTH_CHECK=0`; `LENGTH_START=N` starts the
//! gallop at N plies (with WINNER given and N of its parity the least bound proven a win,
//! only N and N - 2 are searched). `LENGTH_NEAR=N` with bounds: the prover's positions with
//! at most N plies left are searched directly, not through the table (default
//! `colorwars::search::NEAR`, 7; 1 for the table alone).
//!
//! Checkpoints, with bounds: `LENGTH_CHECKPOINT=FILE` saves the table to FILE every
//! `LENGTH_SAVE_EVERY` seconds (1800) while a bound is searched, and when the run ends; a run
//! started with FILE present resumes from it (same board, rules and winner; a damaged or
//! foreign file is an error naming it), so a search of hours can go on another day:
//! `LENGTH_CHECK=0 LENGTH_CHECKPOINT=4x4c.table cargo run --release --example length -- 4 4
//! classic 8192 b 28`. The positions and seconds reported are the run's so far, across its
//! sessions.

use std::time::{Duration, Instant};

use colorwars::board::{Geometry, Position};
use colorwars::control::Control;
use colorwars::search::{search_length, CheckpointInfo, LengthSearch, LengthTable, Symmetries};
use colorwars::{Config, Rules};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, d: &str| args.get(i).cloned().unwrap_or_else(|| d.to_string());
    let width: i64 = arg(0, "3").parse().expect("width");
    let height: i64 = arg(1, "3").parse().expect("height");
    let rules = Rules::parse(&arg(2, "colorwars")).expect("rules");
    let mib: u64 = arg(3, "1024").parse().expect("memory in MiB");
    let winner = match arg(4, "-").as_str() {
        "a" => Some(0),
        "b" => Some(1),
        _ => None,
    };
    let bounds: Vec<i64> = args[5.min(args.len())..]
        .iter()
        .map(|b| b.parse().expect("bound"))
        .collect();
    let cfg = Config::new(width, height, 2, rules, 0).expect("config");
    assert!(
        cfg.cells() <= 64,
        "this example handles boards of up to 64 cells"
    );
    let geo = Geometry::<u64>::new(cfg.width, cfg.height);
    let control = Control::new();
    let pos = Position::start(&cfg);
    let name = format!("{width}x{height} {}", rules.name());
    let sym = Symmetries::new(cfg.width, cfg.height);
    let checkpoint = std::env::var_os("LENGTH_CHECKPOINT").map(std::path::PathBuf::from);
    let mut resumed: Option<CheckpointInfo> = None;
    let mut table = match checkpoint.as_deref().filter(|p| p.exists()) {
        None => LengthTable::new(mib << 20).expect("memory for the table"),
        Some(path) => {
            if bounds.is_empty() {
                fail("LENGTH_CHECKPOINT is for searches of given bounds (a winner and BOUND...)");
            }
            let (table, info) = LengthTable::load(path, mib << 20, None)
                .unwrap_or_else(|e| fail(&format!("cannot resume: {e}")));
            let wanted = (name.as_str(), winner.map(|w| w as u8), sym.key(&pos));
            if (info.board.as_str(), Some(info.prover), info.start_key) != wanted {
                fail(&format!(
                    "{}: a checkpoint of {} for {} (or of another build's hashing), not of \
                     {name} for {}",
                    path.display(),
                    info.board,
                    (b'a' + info.prover) as char,
                    winner.map_or('?', |w| (b'a' + w as u8) as char)
                ));
            }
            println!(
                "{name}: resumed from {}: {} entries, {} positions ({} near the bound) and \
                 {:.1} s so far",
                path.display(),
                table.filled(),
                info.positions,
                info.near_positions,
                info.seconds
            );
            resumed = Some(info);
            table
        }
    };
    if !bounds.is_empty() {
        let w = winner.expect("a winner (a or b) to ask about");
        // The search recurses once per ply: on a thread with a deep stack.
        std::thread::scope(|scope| {
            std::thread::Builder::new()
                .stack_size(colorwars::search::LENGTH_STACK)
                .spawn_scoped(scope, || {
                    let limit: Option<f64> = std::env::var("LENGTH_SECONDS")
                        .ok()
                        .map(|v| v.parse().expect("seconds"));
                    let near: Option<i64> = std::env::var("LENGTH_NEAR")
                        .ok()
                        .map(|v| v.parse().expect("plies"));
                    let every: f64 = std::env::var("LENGTH_SAVE_EVERY")
                        .ok()
                        .map_or(1800.0, |v| v.parse().expect("seconds"));
                    let (mut positions, mut near_positions, mut seconds) = resumed
                        .as_ref()
                        .map_or((0, 0, 0.0), |i| (i.positions, i.near_positions, i.seconds));
                    for b in bounds {
                        let end = limit.map(|l| Instant::now() + Duration::from_secs_f64(l));
                        let (t, before, near_before) = (Instant::now(), positions, near_positions);
                        let found = loop {
                            // With a checkpoint, the search runs in parts of `every` seconds,
                            // the table saved after each; a part resumes from what the table
                            // holds.
                            let part = checkpoint
                                .as_ref()
                                .map(|_| Instant::now() + Duration::from_secs_f64(every));
                            let deadline = match (end, part) {
                                (Some(e), Some(p)) => Some(e.min(p)),
                                (e, p) => e.or(p),
                            };
                            let started = Instant::now();
                            let mut s =
                                LengthSearch::new(&geo, &cfg, &sym, &mut table, &control, deadline);
                            s.prove_for(w);
                            if let Some(n) = near {
                                s.near = n;
                            }
                            let found = s.wins_within(&pos, b);
                            positions += s.positions;
                            near_positions += s.near_positions;
                            seconds += started.elapsed().as_secs_f64();
                            if let Some(path) = &checkpoint {
                                let info = CheckpointInfo {
                                    board: name.clone(),
                                    prover: w as u8,
                                    start_key: sym.key(&pos),
                                    positions,
                                    near_positions,
                                    seconds,
                                };
                                let saving = Instant::now();
                                table.save(path, &info).unwrap_or_else(|e| {
                                    fail(&format!("cannot save {}: {e}", path.display()))
                                });
                                println!(
                                    "  saved {} ({} entries, {positions} positions, {seconds:.1} \
                                     s so far; {:.1} s to save)",
                                    path.display(),
                                    table.filled(),
                                    saving.elapsed().as_secs_f64()
                                );
                            }
                            let out_of_time = end.is_some_and(|e| Instant::now() >= e);
                            if found.is_some() || checkpoint.is_none() || out_of_time {
                                break found;
                            }
                        };
                        println!(
                            "{name}: {} wins within {b} plies: {found:?}; {} positions ({} near \
                             the bound), {:.1} s",
                            (b'a' + w as u8) as char,
                            positions - before,
                            near_positions - near_before,
                            t.elapsed().as_secs_f64()
                        );
                    }
                })
                .expect("a thread")
                .join()
                .expect("the search");
        });
        return;
    }
    let t = Instant::now();
    let check = std::env::var("LENGTH_CHECK").map_or(true, |v| v != "0");
    let out = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(colorwars::search::LENGTH_STACK)
            .spawn_scoped(scope, || {
                // Each search of the gallop and the bisection, as it ends.
                let mut log = |w: usize, b: i64, found: Option<bool>, n: u64| {
                    println!(
                        "  {} within {b}: {found:?} ({n} positions so far, {:.1} s)",
                        (b'a' + w as u8) as char,
                        t.elapsed().as_secs_f64()
                    );
                };
                let mut s = LengthSearch::new(&geo, &cfg, &sym, &mut table, &control, None);
                s.on_bound = Some(&mut log);
                let start: Option<u32> = std::env::var("LENGTH_START")
                    .ok()
                    .map(|v| v.parse().expect("a bound"));
                let mut out = search_length(&mut s, &pos, winner, 10_000, start, check);
                out.positions = s.positions;
                out
            })
            .expect("a thread")
            .join()
            .expect("the search")
    });
    let secs = t.elapsed().as_secs_f64();
    match out.length {
        Some(l) => println!(
            "{name}: player {} wins in exactly {} plies (a win within {} proven: {}, within {} \
             refuted: {}); {} positions, {secs:.1} s; checked {:?}; line {:?}",
            (b'a' + l.winner as u8) as char,
            l.plies,
            l.plies,
            l.proven,
            l.plies as i64 - 1,
            l.refuted,
            out.positions,
            l.checked,
            l.line
        ),
        None => println!("{name}: not found ({out:?}, {secs:.1} s)"),
    }
}

/// Says what is wrong in one line and exits with status 2.
fn fail(message: &str) -> ! {
    eprintln!("length: {message}");
    std::process::exit(2)
}
