//! The Python binding (`colorwars._core`): converts types, maps errors and releases the GIL
//! for long work, which runs under `control::watch` so that Ctrl-C stops it. No rules, no
//! validation policy and no progress logic live here: the Python layer checks every argument
//! (`colorwars._validate`), the core checks them again and does the work.

use std::time::Duration;

use numpy::{PyArray1, PyArray2, PyArray4, PyArrayMethods};
use pyo3::exceptions::PyMemoryError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::ai::{choose_seeded, mcts_analysis, MatchSpec, MctsParams, Player};
use crate::control::{watch, Control};
use crate::error::Error;
use crate::game::AnyGame;
use crate::limits::{MAX_SECONDS, MAX_SOLVER_DEPTH, MAX_THREADS};
use crate::notation::{cell_name, format_position, parse_cell, parse_position};
use crate::playout::Playout;
use crate::rules::{Config, Rules};
use crate::search::{
    probe_position, prove_position_first, MoveResult, ProofTable, Proven, Prover, Symmetries,
};
use crate::simulate::{GameSummary, SimOutput, SimSpec};
use crate::vecenv::{AnyVecEnv, Buffers, Illegal};
use crate::with_game;

mod convert;
mod game;
mod length;
mod players;
mod puct;
mod simulation;
mod solvers;
mod vecenv;

use convert::*;
use game::*;
use length::*;
use players::*;
use puct::*;
use simulation::*;
use solvers::*;
use vecenv::*;

// The Python classes of the core errors (all `ValueError`s), imported once on first use.
pyo3::import_exception!(colorwars.errors, ConfigError);
pyo3::import_exception!(colorwars.errors, InvalidSizeError);
pyo3::import_exception!(colorwars.errors, InvalidPlayersError);
pyo3::import_exception!(colorwars.errors, InvalidRulesError);
pyo3::import_exception!(colorwars.errors, InvalidPlayerError);
pyo3::import_exception!(colorwars.errors, InvalidMoveError);
pyo3::import_exception!(colorwars.errors, IllegalMoveError);
pyo3::import_exception!(colorwars.errors, GameOverError);
pyo3::import_exception!(colorwars.errors, InvalidPositionError);
pyo3::import_exception!(colorwars.errors, InvalidIndexError);
pyo3::import_exception!(colorwars.errors, FileError);

/// A core error raises its `colorwars.errors` class (`MemoryError` for memory).
impl From<Error> for PyErr {
    fn from(e: Error) -> PyErr {
        let msg = e.to_string();
        match e {
            Error::InvalidSize { .. } => InvalidSizeError::new_err(msg),
            Error::InvalidPlayers { .. } | Error::InvalidSeat { .. } => {
                InvalidPlayersError::new_err(msg)
            }
            Error::InvalidRules(_) => InvalidRulesError::new_err(msg),
            Error::InvalidPlayer(_) => InvalidPlayerError::new_err(msg),
            Error::InvalidMove(_) => InvalidMoveError::new_err(msg),
            Error::IllegalMove { .. } => IllegalMoveError::new_err(msg),
            Error::GameOver { .. } => GameOverError::new_err(msg),
            Error::InvalidPosition(_) => InvalidPositionError::new_err(msg),
            Error::OutOfMemory(_) => PyMemoryError::new_err(msg),
        }
    }
}

fn pool(threads: usize) -> PyResult<rayon::ThreadPool> {
    if threads > MAX_THREADS {
        return Err(ConfigError::new_err(format!(
            "invalid thread count {threads}: expected a whole number from 0 to {MAX_THREADS}"
        )));
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads) // 0: rayon's default, one per core
        .build()
        .map_err(|e| ConfigError::new_err(format!("cannot start {threads} threads: {e}")))
}

/// The instant `seconds` from now (a caller's time budget; None, NaN or infinite: no
/// deadline; clamped to 0 to 10^9 seconds).
fn deadline_in(seconds: Option<f64>) -> Option<std::time::Instant> {
    seconds
        .filter(|s| s.is_finite())
        .map(|s| std::time::Instant::now() + Duration::from_secs_f64(s.clamp(0.0, 1e9)))
}

/// Runs long native work with the GIL released under `control::watch`: every `interval`
/// seconds this thread takes the GIL briefly to notice Ctrl-C and to call `progress(done)`.
/// Ctrl-C (or an exception in `progress`) cancels the work and is raised. Returns the work's
/// output and seconds.
fn watched<T, W>(
    py: Python<'_>,
    progress: Option<&Py<PyAny>>,
    interval: f64,
    work: W,
) -> PyResult<(T, f64)>
where
    T: Send,
    W: FnOnce(&Control) -> T + Send,
{
    watched_until(py, progress, interval, None, false, work)
}

/// `watched` for a search that a caller may end early: `stop` (any object with `is_set()`,
/// such as a `threading.Event`) is asked at every tick, and once it says true the search is
/// cancelled the way a deadline ends it, so it returns the best it found; that is not an
/// error. Ctrl-C and an exception from `is_set` are raised as in `watched`.
fn watched_stoppable<T, W>(py: Python<'_>, stop: Option<&Py<PyAny>>, work: W) -> PyResult<T>
where
    T: Send,
    W: FnOnce(&Control) -> T + Send,
{
    Ok(watched_until(py, None, 0.05, stop, false, work)?.0)
}

/// `watched` with an optional `stop` as in `watched_stoppable` (asked every 20 ms at most,
/// after `progress`): the one loop both are made of. With `walks` (a search whose proof is
/// checked), `progress` is called with two arguments every time, `progress(done, walked)`:
/// the positions searched and the check's visits so far, each counted by 1,024 (`walked` is
/// 0 until the check has walked its first 1,024).
fn watched_until<T, W>(
    py: Python<'_>,
    progress: Option<&Py<PyAny>>,
    interval: f64,
    stop: Option<&Py<PyAny>>,
    walks: bool,
    work: W,
) -> PyResult<(T, f64)>
where
    T: Send,
    W: FnOnce(&Control) -> T + Send,
{
    let mut interval = if interval.is_finite() {
        interval.clamp(0.001, 3600.0)
    } else {
        0.1
    };
    if stop.is_some() {
        interval = interval.min(0.02);
    }
    // `Err(None)` from the tick: stopped on request (the work then ends at its next poll).
    let run = py.detach(|| {
        watch(Duration::from_secs_f64(interval), work, |done, walked| {
            Python::attach(|py| {
                py.check_signals().map_err(Some)?;
                if let Some(cb) = progress {
                    tell(py, cb, done, walks.then_some(walked)).map_err(Some)?;
                }
                if let Some(stop) = stop {
                    let set = stop.call_method0(py, "is_set").map_err(Some)?;
                    if set.is_truthy(py).map_err(Some)? {
                        return Err(None);
                    }
                }
                Ok::<(), Option<PyErr>>(())
            })
        })
    })?;
    if let Some(Some(e)) = run.failure {
        // What the work had done when it stopped (Ctrl-C, an error in a callback), for a
        // caller that keeps count across calls (a proof's checkpoint).
        let _ = e.value(py).setattr("positions", run.done);
        return Err(e);
    }
    if let Some(cb) = progress {
        tell(py, cb, run.done, walks.then_some(run.walked))?;
    }
    Ok((run.out, run.seconds))
}

/// Calls a progress callback: `progress(done)`, or `progress(done, walked)` for a search
/// whose proof is checked (see `watched_until`).
fn tell(py: Python<'_>, cb: &Py<PyAny>, done: u64, walked: Option<u64>) -> PyResult<()> {
    match walked {
        Some(walked) => cb.call1(py, (done, walked))?,
        None => cb.call1(py, (done,))?,
    };
    Ok(())
}

#[pymodule]
mod _core {
    use super::*;

    /// Every limit on what a caller may ask (`limits.rs`), for `colorwars._validate`.
    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        let limits = PyDict::new(m.py());
        for (name, value) in crate::limits::TABLE {
            if value.fract() == 0.0 && value.abs() < 9e15 {
                limits.set_item(name, value as i64)?;
            } else {
                limits.set_item(name, value)?;
            }
        }
        m.add("LIMITS", limits)?;
        // The rule presets and axes: one table, the core's (rules.rs).
        let presets = PyDict::new(m.py());
        for (name, rules) in Rules::PRESETS {
            presets.set_item(name, (rules.opening_name(), rules.burst_name()))?;
        }
        m.add("RULE_PRESETS", presets)?;
        m.add("OPENINGS", Rules::OPENINGS.map(|(name, _)| name).to_vec())?;
        m.add("BURSTS", Rules::BURSTS.map(|(name, _)| name).to_vec())?;
        // The version is written once, in Cargo.toml (pyproject.toml takes it from there).
        m.add("VERSION", env!("CARGO_PKG_VERSION"))
    }

    #[pymodule_export]
    use super::{
        ai_analyse, ai_choose, alphabeta_net, evaluation_features, exact_length, parse_rules,
        play_match, play_matches, probe, prove, proven_move, rules_from_axes, simulate, solve,
        solve_position, symmetric_moves, NativeGame, NativeNet, NativePuct, NativeVecEnv,
        PyProofTable,
    };
}
