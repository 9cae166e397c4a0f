//! Solves small boards exactly: `cargo run --release --example solve -- 3 3 classic`.

use std::time::Instant;

use colorwars::board::{Geometry, Position};
use colorwars::control::Control;
use colorwars::search::solve;
use colorwars::{Config, Rules};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, d: &str| args.get(i).cloned().unwrap_or_else(|| d.to_string());
    let width: i64 = arg(0, "3").parse().expect("width");
    let height: i64 = arg(1, "3").parse().expect("height");
    let rules = Rules::parse(&arg(2, "classic")).expect("rules");
    let max_depth: i32 = arg(3, "200").parse().expect("max depth");
    let cfg = Config::new(width, height, 2, rules, 0).expect("config");
    assert!(
        cfg.cells() <= 64,
        "this example handles boards of up to 64 cells"
    );
    let geo = Geometry::<u64>::new(cfg.width, cfg.height);
    let t = Instant::now();
    let found = solve(
        &geo,
        &cfg,
        &Position::start(&cfg),
        max_depth,
        &Control::new(),
    );
    match found.expect("memory for the transposition table") {
        Some(s) => println!(
            "{width}x{height} {}: player {} wins in {} plies; {} positions, {:.2} s; line {:?}",
            rules.name(),
            (b'a' + s.winner as u8) as char,
            s.plies,
            s.positions,
            t.elapsed().as_secs_f64(),
            s.line
        ),
        None => println!(
            "{width}x{height} {}: not solved within depth {max_depth} ({:.2} s)",
            rules.name(),
            t.elapsed().as_secs_f64()
        ),
    }
}
