//! `NativeGame`: the native engine's game, which `colorwars.Game` wraps.

use super::*;

/// The native engine's game; `colorwars.Game` wraps it with the friendly API.
#[pyclass(module = "colorwars._core", name = "NativeGame")]
#[derive(Clone)]
pub(super) struct NativeGame {
    inner: AnyGame,
}

impl NativeGame {
    /// A copy of the position without its history, for work that runs on its own.
    pub(super) fn position(&self) -> AnyGame {
        self.inner.without_history()
    }
}

#[pymethods]
impl NativeGame {
    #[new]
    fn new(config: GameConfig) -> PyResult<Self> {
        Ok(NativeGame {
            inner: AnyGame::new(config.check()?),
        })
    }

    #[staticmethod]
    fn from_text(text: &Bound<'_, PyString>) -> PyResult<Self> {
        let setup = parse_position(&utf8(text, Error::InvalidPosition)?)?;
        let inner = AnyGame::from_setup(&setup)?;
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
    fn play(&mut self, cell: i64) -> PyResult<u32> {
        self.inner.play(cell).map_err(PyErr::from)
    }

    /// Raises the error `play(cell)` would raise, without playing.
    pub(super) fn check(&self, cell: i64) -> PyResult<usize> {
        self.inner.check(cell).map_err(PyErr::from)
    }

    fn pop(&mut self) -> PyResult<usize> {
        self.inner.pop().ok_or_else(|| {
            InvalidIndexError::new_err("nothing to undo: no move has been played on this game")
        })
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

    fn orbs(&self, player: i64) -> PyResult<u32> {
        let players = self.inner.cfg().players as i64;
        if !(0..players).contains(&player) {
            return Err(PyErr::from(Error::InvalidSeat {
                seat: player,
                players,
            }));
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

    fn parse_cell(&self, name: &Bound<'_, PyString>) -> PyResult<usize> {
        let cfg = self.inner.cfg();
        Ok(parse_cell(
            &utf8(name, Error::InvalidMove)?,
            cfg.width,
            cfg.height,
        )?)
    }

    fn cell_name(&self, cell: i64) -> PyResult<String> {
        let cfg = self.inner.cfg();
        if !(0..cfg.cells() as i64).contains(&cell) {
            return Err(PyErr::from(Error::InvalidMove(format!(
                "cell {cell} is not on the board: cells are 0 to {}",
                cfg.cells() - 1
            ))));
        }
        Ok(cell_name(cell as usize, cfg.width))
    }
}
