//! Proves who wins a board from the empty position with proof-number search on N threads:
//! `cargo run --release --example prove -- 5 5 colorwars 2 1024` (width, height, rules,
//! threads, table MiB). Prints the winner, the positions, the seconds and the table's fill.

use std::time::Instant;

use colorwars::board::{Geometry, Position};
use colorwars::control::Control;
use colorwars::search::{prove_position, ProofTable};
use colorwars::{Config, Rules};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, d: &str| args.get(i).cloned().unwrap_or_else(|| d.to_string());
    let width: i64 = arg(0, "4").parse().expect("width");
    let height: i64 = arg(1, "4").parse().expect("height");
    let rules = Rules::parse(&arg(2, "colorwars")).expect("rules");
    let threads: usize = arg(3, "1").parse().expect("threads");
    let mib: u64 = arg(4, "1024").parse().expect("table MiB");
    let cfg = Config::new(width, height, 2, rules, 0).expect("config");
    assert!(
        cfg.cells() <= 64,
        "this example handles boards of up to 64 cells"
    );
    let geo = Geometry::<u64>::new(cfg.width, cfg.height);
    let table = ProofTable::new(mib << 20).expect("memory for the table");
    let t = Instant::now();
    let found = prove_position(
        &geo,
        &cfg,
        &Position::start(&cfg),
        &table,
        &Control::new(),
        None,
        None,
        false,
        threads,
    )
    .expect("threads for the search");
    println!(
        "{width}x{height} {}, {threads} threads: winner {:?}, {} positions, {:.2} s, table {} of {} filled",
        rules.name(),
        found.winner.map(|w| (b'a' + w as u8) as char),
        found.positions,
        t.elapsed().as_secs_f64(),
        table.filled(),
        table.capacity()
    );
}
