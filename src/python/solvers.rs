//! The solvers: alpha-beta (`solve`, `solve_position`) and proof-number search (`prove`, its
//! table, proven moves and symmetric move groups).

use super::*;

/// Solves a board exactly for two players from the empty board (GIL released, Ctrl-C stops
/// it): (winner, plies, line, positions, seconds), or None if not proven within `max_depth`.
/// `progress(positions)` is called about every `interval` seconds.
#[pyfunction]
#[pyo3(signature = (config, max_depth=200, progress=None, interval=0.1))]
#[allow(clippy::type_complexity)]
pub(super) fn solve(
    py: Python<'_>,
    config: GameConfig,
    max_depth: i32,
    progress: Option<Py<PyAny>>,
    interval: f64,
) -> PyResult<Option<(usize, u32, Vec<usize>, u64, f64)>> {
    let cfg = config.check()?;
    if cfg.players != 2 {
        return Err(Error::InvalidPlayer("the solver plays two-player games only".into()).into());
    }
    let game = AnyGame::new(cfg);
    let (solution, seconds) = watched(
        py,
        progress.as_ref(),
        interval,
        |control| with_game!(&game, g => crate::search::solve(g.geo(), &cfg, g.pos(), max_depth.clamp(1, MAX_SOLVER_DEPTH), control)),
    )?;
    Ok(solution?.map(|s| (s.winner, s.plies, s.line, s.positions, seconds)))
}

/// What `solve_position` returns: (winner, plies, line, positions, seconds, and with
/// `moves` the exact (cell, winner, plies) of every legal move).
pub(super) type PositionSolution = (usize, u32, Vec<usize>, u64, f64, Vec<MoveResult>);

/// Solves a two-player game exactly from its current position (GIL released, Ctrl-C stops
/// it); with `moves`, also every legal move's exact result. None if something is not proven
/// within `max_depth` plies. `progress(positions)` is called about every `interval` seconds.
/// `table_bits`: the most the table grows to, `2^bits` entries (10 to 30; None: by the
/// board, up to 2^25); it starts at 2^18 and grows as it fills.
#[pyfunction]
#[pyo3(signature = (game, max_depth=200, moves=true, progress=None, interval=0.1, table_bits=None))]
pub(super) fn solve_position(
    py: Python<'_>,
    game: &Bound<'_, NativeGame>,
    max_depth: i32,
    moves: bool,
    progress: Option<Py<PyAny>>,
    interval: f64,
    table_bits: Option<u32>,
) -> PyResult<Option<PositionSolution>> {
    let (position, cfg) = two_player_position(game)?;
    let max_depth = max_depth.clamp(1, MAX_SOLVER_DEPTH);
    let (found, seconds) = watched(py, progress.as_ref(), interval, |control| {
        with_game!(&position, g => {
            crate::search::solve_position(g.geo(), &cfg, g.pos(), max_depth, moves, table_bits, control)
        })
    })?;
    Ok(found?.map(|(s, each, positions)| (s.winner, s.plies, s.line, positions, seconds, each)))
}

/// The proof-number search's table, kept between calls (a long run proves a position's
/// moves in turn, in slices of time, and saves what is proven).
#[pyclass(module = "colorwars._core", name = "ProofTable")]
pub(super) struct PyProofTable {
    inner: std::sync::Mutex<ProofTable>,
}

impl PyProofTable {
    pub(super) fn table(&self) -> std::sync::MutexGuard<'_, ProofTable> {
        lock_table(&self.inner)
    }
}

/// The table behind its lock. No Python runs under the lock and the search does not panic,
/// but a poisoned lock would still hold a usable table.
pub(super) fn lock_table(
    m: &std::sync::Mutex<ProofTable>,
) -> std::sync::MutexGuard<'_, ProofTable> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[pymethods]
impl PyProofTable {
    /// A table of about `memory` bytes. `huge_pages` (None: for tables from 128 MiB on)
    /// spares a long search most TLB misses, but the first touch of each huge page is slow:
    /// a search that must answer within a fraction of a second wants False.
    #[new]
    #[pyo3(signature = (memory, huge_pages=None))]
    fn new(py: Python<'_>, memory: u64, huge_pages: Option<bool>) -> PyResult<Self> {
        let table = py.detach(|| match huge_pages {
            Some(huge) => ProofTable::with_huge_pages(memory, huge),
            None => ProofTable::new(memory),
        })?;
        Ok(PyProofTable {
            inner: std::sync::Mutex::new(table),
        })
    }

    /// Nodes the table can hold.
    #[getter]
    fn capacity(&self) -> u64 {
        self.table().capacity()
    }

    /// Nodes it holds.
    #[getter]
    fn filled(&self) -> u64 {
        self.table().filled()
    }

    /// The sound proofs held whose search took at least `min_work` positions, packed
    /// (`Proven::pack`).
    #[pyo3(signature = (min_work=1))]
    fn proofs<'py>(
        &self,
        py: Python<'py>,
        min_work: u32,
    ) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
        let packed = py.detach(|| Proven::pack(&self.table().proofs(min_work)))?;
        Ok(pyo3::types::PyBytes::new(py, &packed))
    }

    /// Stores packed proofs (what `proofs` returns); a record `proofs` cannot have written
    /// is refused, and then nothing is stored.
    fn add_proofs(&self, py: Python<'_>, data: &[u8]) -> PyResult<usize> {
        let proofs = Proven::unpack(data)?;
        py.detach(|| self.table().add_proofs(&proofs));
        Ok(proofs.len())
    }
}

/// A copy of a two-player game's position (no history) and its configuration, for the
/// solvers.
pub(super) fn two_player_position(game: &Bound<'_, NativeGame>) -> PyResult<(AnyGame, Config)> {
    let position = game.borrow().position();
    let cfg = *position.cfg();
    if cfg.players != 2 {
        return Err(Error::InvalidPlayer("the solver plays two-player games only".into()).into());
    }
    Ok((position, cfg))
}

/// What `prove` returns: (winner or None, line, positions, seconds, with `verify` the
/// positions of the checked proof (None if unchecked, stopped, or refuted), and whether the
/// search stopped (its time ran out or it was cancelled) before it finished.
pub(super) type ProveResult = (Option<usize>, Vec<usize>, u64, f64, Option<u64>, bool);

/// Proves who wins a two-player game from its position by proof-number search (GIL released,
/// Ctrl-C stops it), sharing `table`; `seconds` bounds the time (None: no bound), the check
/// (`verify`) included; `threads` searchers share the table (clamped to 1 to `MAX_PROVER_THREADS`; `colorwars.proof` checks it). The winner
/// is None if nothing was proven in time. `positions` (None: no bound) stops each searcher
/// after about that many positions (whole multiples of 1,024), as `seconds` does. A thread
/// with the search's stack that cannot be had is `MemoryError`. `stop` (anything with
/// `is_set()`) ends it early as the deadline does: not an error, what it proved by then stays
/// in the table, and a proof finished before it was asked is kept. `first` (0 or 1, None:
/// the mover) is the player whose win is tried first: a position whose parent's search has
/// settled it is then read from that search's proofs (they are kept apart by player where
/// positions can repeat). `progress(positions)` is called every `interval` seconds; with
/// `verify`, `progress(positions, walked)` every time, `walked` the check's visits so far
/// (counted by 1,024: 0 until the check has walked its first 1,024), so a callback given
/// with `verify` takes two arguments.
#[pyfunction]
#[pyo3(signature = (game, table, seconds=None, progress=None, interval=0.5, verify=false, threads=1, positions=None, stop=None, first=None))]
#[allow(clippy::too_many_arguments)]
pub(super) fn prove(
    py: Python<'_>,
    game: &Bound<'_, NativeGame>,
    table: &Bound<'_, PyProofTable>,
    seconds: Option<f64>,
    progress: Option<Py<PyAny>>,
    interval: f64,
    verify: bool,
    threads: usize,
    positions: Option<u64>,
    stop: Option<Py<PyAny>>,
    first: Option<usize>,
) -> PyResult<ProveResult> {
    let (position, cfg) = two_player_position(game)?;
    if first.is_some_and(|p| p > 1) {
        return Err(Error::InvalidPlayer("first: expected 0, 1 or None".into()).into());
    }
    let table = table.borrow();
    let inner = &table.inner;
    let deadline = deadline_in(seconds);
    let (found, secs) = watched_until(
        py,
        progress.as_ref(),
        interval,
        stop.as_ref(),
        verify,
        |control| {
            let t = lock_table(inner);
            with_game!(&position, g => {
                prove_position_first(
                    g.geo(), &cfg, g.pos(), &t, control, deadline, positions, verify, threads, first,
                )
            })
        },
    )?;
    let o = found?;
    Ok((o.winner, o.line, o.positions, secs, o.checked, o.stopped))
}

/// The endgame probe (`colorwars.probe`): a move proven to win for the player to move, found
/// within about `positions` positions of proof search in `table` and `seconds` (None: no
/// bound), giving up once the proof number of the mover's win reaches `threshold`: (cell or
/// None, positions, gave up). GIL released, Ctrl-C stops it; `stop` (anything with
/// `is_set()`) ends it early as the deadline does (what it proved by then still counts).
#[pyfunction]
#[pyo3(signature = (game, table, positions, threshold, seconds=None, stop=None))]
#[allow(clippy::too_many_arguments)]
pub(super) fn probe(
    py: Python<'_>,
    game: &Bound<'_, NativeGame>,
    table: &Bound<'_, PyProofTable>,
    positions: u64,
    threshold: u32,
    seconds: Option<f64>,
    stop: Option<Py<PyAny>>,
) -> PyResult<(Option<usize>, u64, bool)> {
    let (position, cfg) = two_player_position(game)?;
    let table = table.borrow();
    let inner = &table.inner;
    let deadline = deadline_in(seconds);
    let found = watched_stoppable(py, stop.as_ref(), |control| {
        let t = lock_table(inner);
        with_game!(&position, g => {
            probe_position(g.geo(), &cfg, g.pos(), &t, control, deadline, positions, threshold)
        })
    })?;
    let o = found?;
    Ok((o.cell, o.positions, o.gave_up))
}

/// A move after which the player to move is proven to win, from the proofs in `table` (and a
/// new search where they are missing); None if the mover has none.
#[pyfunction]
pub(super) fn proven_move(
    py: Python<'_>,
    game: &Bound<'_, NativeGame>,
    table: &Bound<'_, PyProofTable>,
) -> PyResult<Option<usize>> {
    let (position, cfg) = two_player_position(game)?;
    let table = table.borrow();
    let inner = &table.inner;
    let (found, _) = watched(py, None, 0.05, |control| {
        let t = lock_table(inner);
        with_game!(&position, g => {
            let sym = Symmetries::new(cfg.width, cfg.height);
            let mut p = Prover::new(g.geo(), &cfg, &sym, &t, control, None);
            p.prove_for(g.pos().to_move as usize);
            p.winning_move(g.pos())
        })
    })?;
    Ok(found)
}

/// The legal moves of a position grouped by symmetry: moves whose positions are images of one
/// another under the board's symmetries share a group (ascending cells, groups by first cell).
#[pyfunction]
pub(super) fn symmetric_moves(game: &Bound<'_, NativeGame>) -> Vec<Vec<usize>> {
    let position = game.borrow().position();
    let cfg = *position.cfg();
    with_game!(&position, g => {
        Symmetries::new(cfg.width, cfg.height).move_groups(g.geo(), cfg.rules, cfg.players, g.pos())
    })
}
