//! `NativePuct`: a batch of PUCT search trees (`ai::puct`) that `colorwars.puct` drives. It
//! only converts types and maps errors; every native step is short and runs with the GIL
//! released, and the core never calls Python (the evaluator is called by the Python layer
//! between two steps), so no deadlock is possible and Ctrl-C works while it evaluates.

use numpy::PyArray3;
use numpy::PyReadonlyArray1;
use numpy::PyReadonlyArray2;

use super::*;
use crate::ai::{memory_bound, AnyPuct, Leaves, PuctError, PuctParams};

pyo3::import_exception!(colorwars.errors, InvalidEvaluatorError);

impl From<PuctError> for PyErr {
    fn from(e: PuctError) -> PyErr {
        let msg = e.to_string();
        match e {
            PuctError::Core(e) => e.into(),
            PuctError::Evaluation(_) => InvalidEvaluatorError::new_err(msg),
            PuctError::NoTree { .. } => InvalidIndexError::new_err(msg),
            PuctError::Busy { .. } | PuctError::OtherGame(_) => ConfigError::new_err(msg),
        }
    }
}

/// A contiguous copy of a numpy array's data (the caller's array may change once the GIL is
/// released).
fn copied<T: numpy::Element + Copy, D: numpy::ndarray::Dimension>(
    array: &numpy::PyReadonlyArray<'_, T, D>,
    name: &str,
) -> PyResult<Vec<T>> {
    let slice = array
        .as_slice()
        .map_err(|_| InvalidEvaluatorError::new_err(format!("{name} must be contiguous")))?;
    let mut v = Vec::new();
    v.try_reserve_exact(slice.len())
        .map_err(|_| Error::OutOfMemory(format!("a copy of the {name}")))?;
    v.extend_from_slice(slice);
    Ok(v)
}

/// A search's time budget as a deadline: finite, 0 to `MAX_SECONDS` (the Python layer
/// checks it first; this keeps a direct call from panicking).
fn deadline_of(seconds: Option<f64>) -> PyResult<Option<std::time::Instant>> {
    match seconds {
        None => Ok(None),
        Some(s) if s.is_finite() && (0.0..=crate::limits::MAX_SECONDS).contains(&s) => {
            Ok(Some(std::time::Instant::now() + Duration::from_secs_f64(s)))
        }
        Some(s) => Err(ConfigError::new_err(format!(
            "invalid time {s}: expected seconds from 0 to {}",
            crate::limits::MAX_SECONDS
        ))),
    }
}

/// One root move as `stats` reports it: (cell, visits, mean value or None, prior, proven).
type PuctRow = (usize, u32, Option<f32>, f32, Option<bool>);

/// The native batch of search trees, one per game; `colorwars.puct` wraps it.
#[pyclass(module = "colorwars._core", name = "NativePuct")]
pub(super) struct NativePuct {
    inner: AnyPuct,
}

#[pymethods]
impl NativePuct {
    #[new]
    #[allow(clippy::too_many_arguments)]
    fn new(
        config: GameConfig,
        trees: usize,
        simulations: u32,
        c_puct: f32,
        dirichlet: f32,
        dirichlet_weight: f32,
        seed: u64,
    ) -> PyResult<Self> {
        let params = PuctParams {
            simulations,
            c_puct,
            dirichlet,
            dirichlet_weight,
        };
        Ok(NativePuct {
            inner: AnyPuct::new(config.check()?, trees, params, seed)?,
        })
    }

    /// The most bytes `trees` trees of a game of `config` may take with `simulations`.
    #[staticmethod]
    fn memory_bound(config: GameConfig, trees: usize, simulations: u32) -> PyResult<u64> {
        Ok(memory_bound(&config.check()?, trees, simulations))
    }

    #[getter]
    fn trees(&self) -> usize {
        self.inner.trees()
    }

    /// Leaves sent out by `select` and not expanded yet.
    #[getter]
    fn pending(&self) -> usize {
        self.inner.pending()
    }

    /// Starts tree `i`'s search at `game`'s position (keeping the graph below it, if any).
    fn set_root(
        &mut self,
        py: Python<'_>,
        i: usize,
        game: &Bound<'_, NativeGame>,
        stream: u64,
    ) -> PyResult<()> {
        let position = game.borrow().position();
        let inner = &mut self.inner;
        Ok(py.detach(|| inner.set_root(i, &position, stream))?)
    }

    /// Plays `cell` at tree `i`'s root and starts its next search there; the winner if the
    /// move ends the game.
    fn advance(&mut self, py: Python<'_>, i: usize, cell: usize) -> PyResult<Option<usize>> {
        let inner = &mut self.inner;
        Ok(py.detach(|| inner.advance(i, cell))?)
    }

    fn stop(&mut self, i: usize) -> PyResult<()> {
        Ok(self.inner.stop(i)?)
    }

    /// The trees whose search is over.
    fn finished(&self) -> Vec<usize> {
        self.inner.finished()
    }

    /// Descends every searching tree until `k` of its leaves wait: (planes (B, players, H,
    /// W) uint8, mask (B, cells) uint8, tree (B,) int64) of the B new leaves.
    #[allow(clippy::type_complexity)]
    fn select<'py>(
        &mut self,
        py: Python<'py>,
        k: usize,
    ) -> PyResult<(
        Bound<'py, PyArray4<u8>>,
        Bound<'py, PyArray2<u8>>,
        Bound<'py, PyArray1<i64>>,
    )> {
        let cfg = *self.inner.cfg();
        let inner = &mut self.inner;
        let mut out = Leaves::default();
        let n = py.detach(|| inner.select(k, &mut out))?;
        let planes =
            PyArray1::from_vec(py, out.planes).reshape([n, cfg.players, cfg.height, cfg.width])?;
        let mask = PyArray1::from_vec(py, out.mask).reshape([n, cfg.cells()])?;
        let tree = out.tree.into_iter().map(i64::from).collect();
        Ok((planes, mask, PyArray1::from_vec(py, tree)))
    }

    /// The evaluations of every pending leaf, in order: logits (B, cells) and values (B,),
    /// float32. A bad evaluation changes nothing (the leaves still wait).
    fn expand(
        &mut self,
        py: Python<'_>,
        logits: PyReadonlyArray2<'_, f32>,
        values: PyReadonlyArray1<'_, f32>,
    ) -> PyResult<()> {
        let logits = copied(&logits, "logits")?;
        let values = copied(&values, "values")?;
        let inner = &mut self.inner;
        Ok(py.detach(|| inner.expand(&logits, &values))?)
    }

    /// Forgets every pending leaf (their virtual losses undone).
    fn abandon(&mut self) {
        self.inner.abandon();
    }

    /// Tree `i`'s root visits by cell.
    fn visits<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyArray1<f32>>> {
        Ok(PyArray1::from_vec(py, self.inner.visits(i)?))
    }

    /// Tree `i`'s move distribution by cell (sums to 1 over the legal moves).
    fn policy<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyArray1<f32>>> {
        Ok(PyArray1::from_vec(py, self.inner.policy(i)?))
    }

    /// Tree `i`'s best move (a proven win first, then the most visited).
    fn best(&mut self, i: usize) -> PyResult<Option<usize>> {
        Ok(self.inner.pick(i, 0.0)?)
    }

    /// Tree `i`'s move with `temperature` (0: the best).
    fn pick(&mut self, i: usize, temperature: f64) -> PyResult<Option<usize>> {
        Ok(self.inner.pick(i, temperature)?)
    }

    /// Every legal root move of tree `i`: (cell, visits, mean value, prior, proven), and the
    /// simulations of this search.
    fn stats(&self, i: usize) -> PyResult<(Vec<PuctRow>, u32)> {
        let (rows, done) = self.inner.stats(i)?;
        let rows = rows
            .iter()
            .map(|r| (r.cell, r.visits, r.value, r.prior, r.proven))
            .collect();
        Ok((rows, done))
    }

    /// Tree `i`'s root: (planes (players, H, W) uint8, mask (cells,) uint8, ply).
    #[allow(clippy::type_complexity)]
    fn observe<'py>(
        &self,
        py: Python<'py>,
        i: usize,
    ) -> PyResult<(Bound<'py, PyArray3<u8>>, Bound<'py, PyArray1<u8>>, u32)> {
        let cfg = *self.inner.cfg();
        let (planes, mask, ply) = self.inner.observe_root(i)?;
        let planes =
            PyArray1::from_vec(py, planes).reshape([cfg.players, cfg.height, cfg.width])?;
        Ok((planes, PyArray1::from_vec(py, mask), ply))
    }

    /// Runs every tree's search to its end (or `seconds`) with `net` as the evaluator, all
    /// natively (the GIL released; Ctrl-C stops it, the trees left whole): `k` leaves per
    /// tree per evaluation. Two-player games only. `stop` (anything with `is_set()`) ends
    /// the search early, the trees whole, as the deadline does.
    #[pyo3(signature = (net, k, seconds=None, stop=None))]
    fn search_native(
        &mut self,
        py: Python<'_>,
        net: &Bound<'_, NativeNet>,
        k: usize,
        seconds: Option<f64>,
        stop: Option<Py<PyAny>>,
    ) -> PyResult<u64> {
        let cfg = *self.inner.cfg();
        if cfg.players != 2 {
            return Err(ConfigError::new_err(format!(
                "the network plays two-player games, not {}",
                cfg.players
            )));
        }
        let net = net.get();
        let inner = &mut self.inner;
        let deadline = deadline_of(seconds)?;
        let evaluated = watched_stoppable(py, stop.as_ref(), |control: &Control| {
            let mut out = Leaves::default();
            let mut evaluated = 0u64;
            loop {
                if control.cancelled() {
                    inner.abandon();
                    return Ok(evaluated);
                }
                out.planes.clear();
                out.mask.clear();
                out.tree.clear();
                let n = match inner.select(k, &mut out) {
                    Ok(n) => n,
                    Err(e) => {
                        inner.abandon();
                        return Err(e);
                    }
                };
                if n == 0 {
                    return Ok(evaluated);
                }
                let (logits, values) = net.run(&out.planes, n, cfg.height, cfg.width);
                if let Err(e) = inner.expand(&logits, &values) {
                    inner.abandon(); // the trees stay as they were
                    return Err(e);
                }
                evaluated += n as u64;
                control.add_done(n as u64);
                if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
                    return Ok(evaluated);
                }
            }
        })?;
        evaluated.map_err(|e: PuctError| e.into())
    }
}

/// The learned evaluation's native inference (`ai::net`); `colorwars.zero.network.Network`
/// builds one from its weights and calls it as its evaluator.
#[pyclass(module = "colorwars._core", name = "NativeNet", frozen)]
pub(super) struct NativeNet {
    net: crate::ai::net::Net,
    /// Buffers of evaluations that have finished, for the next ones to reuse. Each evaluation
    /// takes one of its own (a new one if none is free), so evaluations on several threads at
    /// once (the web's games, one search each) run side by side instead of one at a time.
    scratch: std::sync::Mutex<Vec<crate::ai::net::Scratch>>,
}

/// Buffers kept for reuse at most (one per thread evaluating at once, up to this).
const KEPT_SCRATCH: usize = 16;

impl NativeNet {
    fn run(&self, planes: &[u8], b: usize, h: usize, w: usize) -> (Vec<f32>, Vec<f32>) {
        let mut logits = vec![0.0; b * h * w];
        let mut values = vec![0.0; b];
        // A panic elsewhere cannot leave the pool inconsistent: its buffers are only reused.
        let mut scratch = (self.scratch.lock().unwrap_or_else(|e| e.into_inner()))
            .pop()
            .unwrap_or_default();
        // A few positions at a time: the nine shifted copies of a large batch would not
        // stay in the cache.
        const CHUNK: usize = 16;
        let (cells, stride) = (h * w, 2 * h * w);
        for start in (0..b).step_by(CHUNK) {
            let n = CHUNK.min(b - start);
            self.net.forward(
                &planes[start * stride..(start + n) * stride],
                n,
                h,
                w,
                &mut scratch,
                &mut logits[start * cells..(start + n) * cells],
                &mut values[start..start + n],
            );
        }
        let mut pool = self.scratch.lock().unwrap_or_else(|e| e.into_inner());
        if pool.len() < KEPT_SCRATCH {
            pool.push(scratch);
        }
        (logits, values)
    }
}

#[pymethods]
impl NativeNet {
    /// A network of `channels`, `blocks` and `hidden` from `params` (name to float32 array).
    #[new]
    fn new(
        channels: usize,
        blocks: usize,
        hidden: usize,
        params: &Bound<'_, pyo3::types::PyDict>,
    ) -> PyResult<Self> {
        let mut failure: Option<PyErr> = None;
        let mut read = |name: &str| -> Option<Vec<f32>> {
            let item = match params.get_item(name) {
                Ok(Some(item)) => item,
                Ok(None) => return None,
                Err(e) => {
                    failure = Some(e);
                    return None;
                }
            };
            match item.extract::<numpy::PyReadonlyArrayDyn<'_, f32>>() {
                Ok(a) => Some(a.as_array().iter().copied().collect()),
                Err(e) => {
                    failure = Some(ConfigError::new_err(format!(
                        "invalid network: parameter {name} is not a float32 array ({e})"
                    )));
                    None
                }
            }
        };
        let net = crate::ai::net::Net::new(channels, blocks, hidden, &mut read);
        if let Some(e) = failure {
            return Err(e);
        }
        let net = net.map_err(|e| ConfigError::new_err(e.to_string()))?;
        Ok(NativeNet {
            net,
            scratch: std::sync::Mutex::new(Vec::new()),
        })
    }

    /// (logits (B, H*W), values (B,)) float32 of two-player `planes` (B, 2, H, W) uint8.
    #[allow(clippy::type_complexity)]
    fn forward<'py>(
        &self,
        py: Python<'py>,
        planes: numpy::PyReadonlyArray4<'py, u8>,
    ) -> PyResult<(Bound<'py, PyArray2<f32>>, Bound<'py, PyArray1<f32>>)> {
        let shape = planes.as_array().shape().to_vec();
        let (b, p, h, w) = (shape[0], shape[1], shape[2], shape[3]);
        if p != 2 || !(2..=64).contains(&h) || !(2..=64).contains(&w) {
            return Err(ConfigError::new_err(format!(
                "the network reads two-player planes (B, 2, H, W) of sides 2 to 64, not shape \
                 {shape:?}"
            )));
        }
        let data = match planes.as_slice() {
            Ok(s) => s.to_vec(),
            Err(_) => planes.as_array().iter().copied().collect(),
        };
        let (logits, values) = py.detach(|| self.run(&data, b, h, w));
        Ok((
            PyArray1::from_vec(py, logits).reshape([b, h * w])?,
            PyArray1::from_vec(py, values),
        ))
    }
}

/// Alpha-beta with the network's value at the horizon instead of the hand-made evaluation
/// (the NNUE-style player `colorwars.zero.player.ZeroAlphaBeta`): iterative deepening to
/// `depth` or `seconds`, the GIL released, Ctrl-C stops it; `stop` (anything with `is_set()`)
/// ends it early as the deadline does. (cell, score, positions).
#[pyfunction]
#[pyo3(signature = (game, net, depth, seconds=None, scale=1000.0, stop=None))]
pub(super) fn alphabeta_net(
    py: Python<'_>,
    game: &Bound<'_, NativeGame>,
    net: &Bound<'_, NativeNet>,
    depth: i32,
    seconds: Option<f64>,
    scale: f32,
    stop: Option<Py<PyAny>>,
) -> PyResult<(usize, i32, u64)> {
    let position = game.borrow().position();
    let cfg = *position.cfg();
    if cfg.players != 2 {
        return Err(ConfigError::new_err(format!(
            "the network plays two-player games, not {}",
            cfg.players
        )));
    }
    if let Some(w) = position.winner() {
        return Err(Error::GameOver { winner: w as u8 }.into());
    }
    if !(1..=64).contains(&depth) {
        return Err(ConfigError::new_err(format!(
            "invalid depth {depth}: expected 1 to 64"
        )));
    }
    if !(scale.is_finite() && scale > 0.0 && scale < 100_000.0) {
        return Err(ConfigError::new_err(format!(
            "invalid scale {scale}: expected a number above 0 and below 100000"
        )));
    }
    let net = net.get();
    let deadline = deadline_of(seconds)?;
    let run = |control: &Control| {
        with_game!(&position, g => {
            let leaf = leaf_eval(net, g.geo(), scale);
            crate::search::alphabeta_move_with(
                g.geo(), &cfg, g.pos(), depth, deadline, control, Some(&leaf),
            )
        })
    };
    let found = watched_stoppable(py, stop.as_ref(), run)?;
    Ok(found?)
}

/// The network's value of a position for the player to move, times `scale` (the planes
/// written as `VectorEnv` writes its observations).
fn leaf_eval<'a, B: crate::bits::Bits>(
    net: &'a NativeNet,
    geo: &'a crate::board::Geometry<B>,
    scale: f32,
) -> impl Fn(&crate::board::Position<B>) -> i32 + Sync + 'a {
    let (h, w, cells) = (geo.height, geo.width, geo.cells);
    move |pos: &crate::board::Position<B>| {
        let mut planes = [0u8; 2 * 1024];
        crate::vecenv::write_planes(geo, 2, pos, &mut planes[..2 * cells]);
        let (_, values) = net.run(&planes[..2 * cells], 1, h, w);
        (values[0] * scale) as i32
    }
}
