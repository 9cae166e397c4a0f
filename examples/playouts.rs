//! Native random playouts from the command line, without Python:
//! `cargo run --release --example playouts -- 8 8 classic 100000 [threads]`.

use std::time::Instant;

use colorwars::control::Control;
use colorwars::playout::Playout;
use colorwars::simulate::{simulate, SimSpec};
use colorwars::{Config, Rules};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, d: &str| args.get(i).cloned().unwrap_or_else(|| d.to_string());
    let width: i64 = arg(0, "8").parse().expect("width");
    let height: i64 = arg(1, "8").parse().expect("height");
    let rules = Rules::parse(&arg(2, "classic")).expect("rules");
    let games: usize = arg(3, "100000").parse().expect("games");
    let threads: usize = arg(4, "1").parse().expect("threads");
    let player = Playout::parse(&arg(5, "random")).expect("player");
    let spec = SimSpec {
        cfg: Config::new(width, height, 2, rules, 0).expect("config"),
        seats: [player; 8],
        seed: 1,
        max_plies: None,
        record: false,
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("pool");
    let t = Instant::now();
    let out = pool
        .install(|| simulate(&spec, 0, games, &Control::new()).expect("memory for the results"));
    let dt = t.elapsed().as_secs_f64();
    let plies: u64 = out.games.iter().map(|g| u64::from(g.plies)).sum();
    let waves: u64 = out.games.iter().map(|g| u64::from(g.waves)).sum();
    println!(
        "{width}x{height} {} {}, {threads} thread(s): {games} games, {:.2} plies/game, {:.2} waves/ply, {:.2} M plies/s",
        rules.name(),
        player.name(),
        plies as f64 / games as f64,
        waves as f64 / plies as f64,
        plies as f64 / dt / 1e6
    );
}
