//! The AI players' moves, analyses and native matches.

use super::*;

/// A player's move in a game: (cell, work done). The search runs on a copy of the position
/// with the GIL released (the game stays usable from other threads meanwhile), and Ctrl-C
/// stops it.
/// `stop` (an object with `is_set()`, e.g. a `threading.Event`) ends the search early with
/// its best move so far once it is set, as a deadline would.
#[pyfunction]
#[pyo3(signature = (game, player, seed, stop=None))]
pub(super) fn ai_choose(
    py: Python<'_>,
    game: &Bound<'_, NativeGame>,
    player: NativeSpec,
    seed: u64,
    stop: Option<Py<PyAny>>,
) -> PyResult<(usize, u64)> {
    let position = game.borrow().position();
    let cfg = *position.cfg();
    let player = player.check(&cfg)?;
    if let Some(w) = position.winner() {
        return Err(Error::GameOver { winner: w as u8 }.into());
    }
    let choose = |control: &Control| with_game!(&position, g => choose_seeded(g.geo(), &cfg, g.pos(), &player, seed, control));
    let choice = if matches!(player, Player::Random | Player::Greedy) {
        // One pass over the legal moves: too quick to need a watcher thread for Ctrl-C.
        py.detach(|| choose(&Control::new()))
    } else {
        watched_stoppable(py, stop.as_ref(), choose)?
    };
    Ok(choice?)
}

/// The learned evaluation's features of a two-player position (`tools/fit-evaluation`
/// fits their weights), from the point of view of the player to move.
#[pyfunction]
pub(super) fn evaluation_features(game: &Bound<'_, NativeGame>) -> PyResult<Vec<i32>> {
    let position = game.borrow().position();
    if position.cfg().players != 2 {
        return Err(Error::InvalidPlayer(format!(
            "the evaluation scores two-player games, not {}",
            position.cfg().players
        ))
        .into());
    }
    Ok(with_game!(&position, g => crate::search::learned::features(g.geo(), g.pos()).to_vec()))
}

/// One root move as `ai_analyse` reports it: (cell, visits, total reward of the mover).
pub(super) type MoveRow = (usize, u64, f64);

/// An MCTS player's view of every legal move (GIL released, Ctrl-C stops it): a list of
/// (cell, visits, total reward of the player to move) and the simulations run.
#[pyfunction]
#[pyo3(signature = (game, player, seed, stop=None))]
pub(super) fn ai_analyse(
    py: Python<'_>,
    game: &Bound<'_, NativeGame>,
    player: NativeSpec,
    seed: u64,
    stop: Option<Py<PyAny>>,
) -> PyResult<(Vec<MoveRow>, u64)> {
    let position = game.borrow().position();
    let cfg = *position.cfg();
    let Player::Mcts(params) = player.check(&cfg)? else {
        return Err(Error::InvalidPlayer("only MCTS players analyse positions".into()).into());
    };
    if let Some(w) = position.winner() {
        return Err(Error::GameOver { winner: w as u8 }.into());
    }
    let (stats, sims) = watched_stoppable(
        py,
        stop.as_ref(),
        |control| with_game!(&position, g => mcts_analysis(g.geo(), &cfg, g.pos(), &params, seed, control)),
    )?;
    Ok((
        stats.iter().map(|s| (s.cell, s.visits, s.reward)).collect(),
        sims,
    ))
}

/// Plays games `start .. start + games` between the seats natively (all cores, GIL
/// released); the same arrays as `simulate`.
#[pyfunction]
#[pyo3(signature = (config, seats, games, seed, first_move=None, max_plies=None, threads=0, start=0, record=false, progress=None, interval=0.1))]
#[allow(clippy::too_many_arguments)]
pub(super) fn play_match<'py>(
    py: Python<'py>,
    config: GameConfig,
    seats: Vec<NativeSpec>,
    games: usize,
    seed: u64,
    first_move: Option<i64>,
    max_plies: Option<u32>,
    threads: usize,
    start: u64,
    record: bool,
    progress: Option<Py<PyAny>>,
    interval: f64,
) -> PyResult<SimArrays<'py>> {
    let cfg = config.check()?;
    one_per_seat(seats.len(), &cfg)?;
    let players = seats
        .iter()
        .map(|s| s.check(&cfg))
        .collect::<PyResult<Vec<_>>>()?;
    let game = AnyGame::new(cfg);
    if let Some(m) = first_move {
        game.check(m)?;
    }
    let spec = MatchSpec {
        seats: players,
        seed,
        first_move: first_move.map(|m| m as usize),
        max_plies,
        record,
    };
    let pool = pool(threads)?;
    let (out, elapsed) = watched(py, progress.as_ref(), interval, |control| {
        pool.install(|| {
            with_game!(&game, g => crate::ai::play_match(g.geo(), &cfg, &spec, start, games, control))
        })
    })?;
    output_arrays(py, out?, elapsed, record)
}

/// One match of a batch, read from the attributes of `colorwars.ai.MatchJob`.
#[derive(FromPyObject)]
pub(super) struct MatchJob {
    seats: Vec<NativeSpec>,
    games: usize,
    seed: u64,
    first_move: Option<i64>,
}

/// Plays several matches on one board as one native batch (all cores, GIL released, Ctrl-C
/// stops it): the matches run side by side on the pool instead of one after another, each
/// exactly as `play_match` would play it. `progress(games_done)`; returns one dict of arrays
/// per match.
#[pyfunction]
#[pyo3(signature = (config, matches, max_plies=None, threads=0, progress=None, interval=0.1))]
pub(super) fn play_matches<'py>(
    py: Python<'py>,
    config: GameConfig,
    matches: Vec<MatchJob>,
    max_plies: Option<u32>,
    threads: usize,
    progress: Option<Py<PyAny>>,
    interval: f64,
) -> PyResult<Vec<SimArrays<'py>>> {
    let cfg = config.check()?;
    let game = AnyGame::new(cfg);
    let mut specs = Vec::new();
    for job in &matches {
        one_per_seat(job.seats.len(), &cfg)?;
        let players = job
            .seats
            .iter()
            .map(|s| s.check(&cfg))
            .collect::<PyResult<Vec<_>>>()?;
        if let Some(m) = job.first_move {
            game.check(m)?;
        }
        let spec = MatchSpec {
            seats: players,
            seed: job.seed,
            first_move: job.first_move.map(|m| m as usize),
            max_plies,
            record: false,
        };
        specs.push((spec, job.games));
    }
    let pool = pool(threads)?;
    let (outs, elapsed) = watched(py, progress.as_ref(), interval, |control| {
        pool.install(
            || with_game!(&game, g => crate::ai::play_matches(g.geo(), &cfg, &specs, control)),
        )
    })?;
    outs.into_iter()
        .map(|out| output_arrays(py, out?, elapsed, false))
        .collect()
}
