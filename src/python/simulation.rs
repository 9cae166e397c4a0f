//! `simulate`: many games played natively, returned as numpy arrays.

use super::*;

/// The arrays of a simulation run, by name (numpy arrays), plus `elapsed` (seconds in the
/// native loop) and `complete` (false when interrupted).
pub(super) type SimArrays<'py> = Bound<'py, PyDict>;

/// Plays games `start .. start + games` natively on `threads` threads with the GIL released.
/// `progress(done)` is called from this thread about every `interval` seconds; Ctrl-C (or an
/// exception in `progress`) stops the run and is raised.
#[pyfunction]
#[pyo3(signature = (config, playouts, seed, games, start=0, threads=0, max_plies=None, record=false, progress=None, interval=0.1))]
#[allow(clippy::too_many_arguments)]
pub(super) fn simulate<'py>(
    py: Python<'py>,
    config: GameConfig,
    playouts: Vec<String>,
    seed: u64,
    games: usize,
    start: u64,
    threads: usize,
    max_plies: Option<u32>,
    record: bool,
    progress: Option<Py<PyAny>>,
    interval: f64,
) -> PyResult<SimArrays<'py>> {
    let cfg = config.check()?;
    one_per_seat(playouts.len(), &cfg)?;
    let mut seats = [Playout::Random; 8];
    for (seat, name) in seats.iter_mut().zip(&playouts) {
        *seat = Playout::parse(name)?;
    }
    let spec = SimSpec {
        cfg,
        seats,
        seed,
        max_plies,
        record,
    };
    let pool = pool(threads)?;
    let (out, elapsed) = watched(py, progress.as_ref(), interval, |control| {
        pool.install(|| crate::simulate::simulate(&spec, start, games, control))
    })?;
    output_arrays(py, out?, elapsed, record)
}

/// A numpy array of one field of every game (its memory reserved without aborting).
pub(super) fn column<'py, T: numpy::Element>(
    py: Python<'py>,
    games: &[GameSummary],
    field: impl Fn(&GameSummary) -> T,
) -> PyResult<Bound<'py, PyArray1<T>>> {
    let mut v = Vec::new();
    v.try_reserve_exact(games.len())
        .map_err(|_| Error::OutOfMemory("the results' arrays".into()))?;
    v.extend(games.iter().map(field));
    Ok(PyArray1::from_vec(py, v))
}

/// The per-game arrays of a run, as numpy arrays in a dict.
pub(super) fn output_arrays(
    py: Python<'_>,
    out: SimOutput,
    elapsed: f64,
    record: bool,
) -> PyResult<SimArrays<'_>> {
    let d = PyDict::new(py);
    let g = &out.games;
    d.set_item("winners", column(py, g, |x| x.winner)?)?;
    d.set_item("plies", column(py, g, |x| x.plies as i32)?)?;
    d.set_item("waves", column(py, g, |x| x.waves as i32)?)?;
    d.set_item(
        "longest_cascade",
        column(py, g, |x| x.longest_cascade as i32)?,
    )?;
    d.set_item("first_moves", column(py, g, |x| i32::from(x.first_move))?)?;
    if record {
        let offsets: Vec<i64> = out.offsets.iter().map(|&o| o as i64).collect();
        d.set_item("moves", PyArray1::from_vec(py, out.moves))?;
        d.set_item("offsets", PyArray1::from_vec(py, offsets))?;
    }
    d.set_item("elapsed", elapsed)?;
    d.set_item("complete", out.complete)?;
    Ok(d)
}
