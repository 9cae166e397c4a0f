//! Native random playouts from the command line, without Python:
//! `cargo run --release --example playouts -- 8 8 classic 100000`.

use std::time::Instant;

use colorwars::playout::random_games;
use colorwars::{Config, Rules};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, d: &str| args.get(i).cloned().unwrap_or_else(|| d.to_string());
    let width: i64 = arg(0, "8").parse().expect("width");
    let height: i64 = arg(1, "8").parse().expect("height");
    let rules = Rules::parse(&arg(2, "classic")).expect("rules");
    let games: u64 = arg(3, "100000").parse().expect("games");
    let cfg = Config::new(width, height, 2, rules, 0).expect("config");
    let t = Instant::now();
    let s = random_games(&cfg, games, 1);
    let dt = t.elapsed().as_secs_f64();
    println!(
        "{width}x{height} {}: {} games, {:.2} plies/game, {:.2} waves/ply, {:.2} M plies/s",
        rules.name(),
        s.games,
        s.plies as f64 / s.games as f64,
        s.waves as f64 / s.plies as f64,
        s.plies as f64 / dt / 1e6
    );
}
