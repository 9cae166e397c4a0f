//! The Python binding (`colorwars._core`): converts types, maps errors, releases the GIL for
//! long work. No rules live here.

use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;

use crate::error::Error;
use crate::game::AnyGame;
use crate::notation::{cell_name, format_position, parse_cell, parse_position};
use crate::playout::random_games;
use crate::rules::{Config, Rules};

/// Raises the `colorwars.errors` class for a core error (they are all `ValueError`s).
fn to_py(py: Python<'_>, e: Error) -> PyErr {
    let name = match e {
        Error::InvalidSize { .. } => "InvalidSizeError",
        Error::InvalidPlayers { .. } | Error::InvalidPlayer { .. } => "InvalidPlayersError",
        Error::InvalidRules(_) => "InvalidRulesError",
        Error::InvalidMove(_) => "InvalidMoveError",
        Error::IllegalMove { .. } => "IllegalMoveError",
        Error::GameOver { .. } => "GameOverError",
        Error::InvalidPosition(_) => "InvalidPositionError",
    };
    let msg = e.to_string();
    match py.import("colorwars.errors").and_then(|m| m.getattr(name)) {
        Ok(cls) => PyErr::from_type(cls.cast_into().expect("an exception class"), msg),
        Err(_) => PyValueError::new_err(msg),
    }
}

fn rules_of(py: Python<'_>, opening: &str, burst: &str) -> PyResult<Rules> {
    Rules::from_axes(opening, burst).map_err(|e| to_py(py, e))
}

/// The native engine's game; `colorwars.Game` wraps it with the friendly API.
#[pyclass(module = "colorwars._core", name = "NativeGame")]
#[derive(Clone)]
pub struct NativeGame {
    inner: AnyGame,
}

#[pymethods]
impl NativeGame {
    #[new]
    #[pyo3(signature = (width, height, players, opening, burst, first))]
    fn new(
        py: Python<'_>,
        width: i64,
        height: i64,
        players: i64,
        opening: &str,
        burst: &str,
        first: i64,
    ) -> PyResult<Self> {
        let rules = rules_of(py, opening, burst)?;
        let cfg = Config::new(width, height, players, rules, first).map_err(|e| to_py(py, e))?;
        Ok(NativeGame {
            inner: AnyGame::new(cfg),
        })
    }

    #[staticmethod]
    fn from_text(py: Python<'_>, text: &str) -> PyResult<Self> {
        let setup = parse_position(text).map_err(|e| to_py(py, e))?;
        let inner = AnyGame::from_setup(&setup).map_err(|e| to_py(py, e))?;
        Ok(NativeGame { inner })
    }

    fn to_text(&self) -> String {
        format_position(&self.inner)
    }

    fn copy(&self) -> Self {
        self.clone()
    }

    #[getter]
    fn width(&self) -> usize {
        self.inner.cfg().width
    }
    #[getter]
    fn height(&self) -> usize {
        self.inner.cfg().height
    }
    #[getter]
    fn players(&self) -> usize {
        self.inner.cfg().players
    }
    #[getter]
    fn opening(&self) -> &'static str {
        self.inner.cfg().rules.opening_name()
    }
    #[getter]
    fn burst(&self) -> &'static str {
        self.inner.cfg().rules.burst_name()
    }
    #[getter]
    fn to_move(&self) -> usize {
        self.inner.to_move()
    }
    #[getter]
    fn winner(&self) -> Option<usize> {
        self.inner.winner()
    }
    #[getter]
    fn ply(&self) -> u32 {
        self.inner.ply()
    }
    /// The players who have moved at least once, ascending.
    #[getter]
    fn moved(&self) -> Vec<usize> {
        let m = self.inner.moved();
        (0..8).filter(|p| m & (1 << p) != 0).collect()
    }
    /// The players who are out, ascending.
    #[getter]
    fn out(&self) -> Vec<usize> {
        let m = self.inner.out();
        (0..8).filter(|p| m & (1 << p) != 0).collect()
    }

    fn legal_moves(&self) -> Vec<usize> {
        self.inner.legal_moves()
    }

    fn legal_count(&self) -> usize {
        self.inner.legal_count()
    }

    fn is_legal(&self, cell: i64) -> bool {
        self.inner.check(cell).is_ok()
    }

    /// Plays a cell; returns the number of waves in its cascade. On error nothing changes.
    fn play(&mut self, py: Python<'_>, cell: i64) -> PyResult<u32> {
        self.inner.play(cell).map_err(|e| to_py(py, e))
    }

    /// Raises the error `play(cell)` would raise, without playing.
    fn check(&self, py: Python<'_>, cell: i64) -> PyResult<usize> {
        self.inner.check(cell).map_err(|e| to_py(py, e))
    }

    fn pop(&mut self) -> PyResult<usize> {
        self.inner
            .pop()
            .ok_or_else(|| PyIndexError::new_err("pop from a game with no moves to undo"))
    }

    fn moves(&self) -> Vec<usize> {
        self.inner.moves()
    }

    fn counts(&self) -> Vec<u32> {
        self.inner.counts().into_iter().map(u32::from).collect()
    }

    fn owners(&self) -> Vec<i8> {
        self.inner.owners()
    }

    fn orbs(&self, py: Python<'_>, player: i64) -> PyResult<u32> {
        let players = self.inner.cfg().players as i64;
        if !(0..players).contains(&player) {
            return Err(to_py(py, Error::InvalidPlayer { player, players }));
        }
        Ok(self.inner.orbs(player as usize))
    }

    /// The last move's cascade: (bursting cells, counts after, owners after) per wave.
    fn waves(&self) -> Vec<(Vec<usize>, Vec<u8>, Vec<i8>)> {
        self.inner
            .waves()
            .into_iter()
            .map(|w| (w.bursts, w.counts, w.owners))
            .collect()
    }

    fn parse_cell(&self, py: Python<'_>, name: &str) -> PyResult<usize> {
        let cfg = self.inner.cfg();
        parse_cell(name, cfg.width, cfg.height).map_err(|e| to_py(py, e))
    }

    fn cell_name(&self, py: Python<'_>, cell: i64) -> PyResult<String> {
        let cfg = self.inner.cfg();
        if !(0..cfg.cells() as i64).contains(&cell) {
            return Err(to_py(
                py,
                Error::InvalidMove(format!(
                    "cell {cell} is not on the board: cells are 0 to {}",
                    cfg.cells() - 1
                )),
            ));
        }
        Ok(cell_name(cell as usize, cfg.width))
    }
}

/// Plays `games` uniformly random games natively (GIL released). Returns
/// (games, plies, waves, wins per player).
#[pyfunction]
#[pyo3(signature = (width, height, players, opening, burst, games, seed))]
#[allow(clippy::too_many_arguments)]
fn random_playouts(
    py: Python<'_>,
    width: i64,
    height: i64,
    players: i64,
    opening: &str,
    burst: &str,
    games: u64,
    seed: u64,
) -> PyResult<(u64, u64, u64, Vec<u64>)> {
    let rules = rules_of(py, opening, burst)?;
    let cfg = Config::new(width, height, players, rules, 0).map_err(|e| to_py(py, e))?;
    let s = py.detach(|| random_games(&cfg, games, seed));
    Ok((s.games, s.plies, s.waves, s.wins[..cfg.players].to_vec()))
}

#[pymodule]
mod _core {
    #[pymodule_export]
    use super::{random_playouts, NativeGame};
}
