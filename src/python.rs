//! The Python binding (`colorwars._core`): converts types, maps errors and releases the GIL
//! for long work, which runs under `control::watch` so that Ctrl-C stops it. No rules, no
//! validation policy and no progress logic live here: the Python layer checks every argument
//! (`colorwars._validate`), the core checks them again and does the work.

use std::time::Duration;

use numpy::{PyArray1, PyArray2, PyArray4, PyArrayMethods};
use pyo3::exceptions::PyMemoryError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use rayon::prelude::*;

use crate::ai::{choose_move, mcts_analysis, MatchSpec, MctsParams, Player};
use crate::bits::Bits;
use crate::control::{watch, Control};
use crate::error::Error;
use crate::game::AnyGame;
use crate::notation::{cell_name, format_position, parse_cell, parse_position};
use crate::rng::game_rng;
use crate::rules::{Config, Rules};
use crate::search::{zobrist, MoveResult, ProofTable, Proven, Prover, Solver, Symmetries};
use crate::simulate::{parse_player, GameSummary, SimOutput, SimSpec};
use crate::vecenv::{AnyVecEnv, Buffers, Illegal};
use crate::with_game;

// The Python classes of the core errors (all `ValueError`s), imported once on first use.
pyo3::import_exception!(colorwars.errors, ConfigError);
pyo3::import_exception!(colorwars.errors, InvalidSizeError);
pyo3::import_exception!(colorwars.errors, InvalidPlayersError);
pyo3::import_exception!(colorwars.errors, InvalidRulesError);
pyo3::import_exception!(colorwars.errors, InvalidPolicyError);
pyo3::import_exception!(colorwars.errors, InvalidMoveError);
pyo3::import_exception!(colorwars.errors, IllegalMoveError);
pyo3::import_exception!(colorwars.errors, GameOverError);
pyo3::import_exception!(colorwars.errors, InvalidPositionError);
pyo3::import_exception!(colorwars.errors, InvalidIndexError);

/// A core error raises its `colorwars.errors` class (`MemoryError` for memory).
impl From<Error> for PyErr {
    fn from(e: Error) -> PyErr {
        let msg = e.to_string();
        match e {
            Error::InvalidSize { .. } => InvalidSizeError::new_err(msg),
            Error::InvalidPlayers { .. } | Error::InvalidPlayer { .. } => {
                InvalidPlayersError::new_err(msg)
            }
            Error::InvalidRules(_) => InvalidRulesError::new_err(msg),
            Error::InvalidPolicy(_) => InvalidPolicyError::new_err(msg),
            Error::InvalidMove(_) => InvalidMoveError::new_err(msg),
            Error::IllegalMove { .. } => IllegalMoveError::new_err(msg),
            Error::GameOver { .. } => GameOverError::new_err(msg),
            Error::InvalidPosition(_) => InvalidPositionError::new_err(msg),
            Error::OutOfMemory(_) => PyMemoryError::new_err(msg),
        }
    }
}

/// A game configuration, read from the attributes of `colorwars.rules.GameConfig` (checked
/// again here by `Config::new`).
#[derive(FromPyObject)]
struct GameConfig {
    width: i64,
    height: i64,
    players: i64,
    opening: String,
    burst: String,
    first: i64,
}

impl GameConfig {
    fn check(&self) -> PyResult<Config> {
        let rules = Rules::from_axes(&self.opening, &self.burst)?;
        Ok(Config::new(
            self.width,
            self.height,
            self.players,
            rules,
            self.first,
        )?)
    }
}

/// A player, read from the attributes of `colorwars.players.NativeSpec`.
#[derive(FromPyObject)]
struct NativeSpec {
    kind: String,
    simulations: u32,
    depth: i32,
    seconds: Option<f64>,
    c: f64,
    threads: usize,
    greedy: f64,
    solver: bool,
    minimax: f64,
    cutoff: u32,
    reuse: bool,
}

impl NativeSpec {
    fn check(&self, cfg: &Config) -> PyResult<Player> {
        let time = match self.seconds {
            Some(t) if !(t.is_finite() && t > 0.0 && t <= 1e6) => {
                return Err(Error::InvalidPolicy(format!(
                    "time budget {t}: expected seconds from 0 to 1e6"
                ))
                .into());
            }
            Some(t) => Some(Duration::from_secs_f64(t)),
            None => None,
        };
        let player = match self.kind.as_str() {
            "random" => Player::Random,
            "greedy" => Player::Greedy,
            "mcts" => Player::Mcts(MctsParams {
                simulations: self.simulations,
                time,
                c: self.c,
                threads: self.threads,
                greedy: self.greedy,
                solver: self.solver,
                reuse: self.reuse,
                minimax: self.minimax,
                cutoff: self.cutoff,
            }),
            "alphabeta" => Player::AlphaBeta {
                depth: self.depth,
                time,
            },
            other => {
                return Err(Error::InvalidPolicy(format!(
                    "unknown player {other:?}; allowed are random, greedy, mcts, alphabeta"
                ))
                .into());
            }
        };
        player.check(cfg)?;
        Ok(player)
    }
}

/// Text from Python as UTF-8; text that cannot be (lone surrogates) is an error of `what`.
fn utf8<'a>(
    text: &'a Bound<'_, PyString>,
    what: fn(String) -> Error,
) -> PyResult<std::borrow::Cow<'a, str>> {
    text.to_cow()
        .map_err(|_| what("the text is not valid Unicode (a lone surrogate?)".into()).into())
}

/// The most threads a call may start (one limit everywhere; 0 means one per core).
const MAX_THREADS: usize = 256;

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

/// Seat lists must name one player per seat.
fn one_per_seat(given: usize, cfg: &Config) -> PyResult<()> {
    if given == cfg.players {
        return Ok(());
    }
    let msg = format!(
        "{given} players given for {} seats: give one per seat",
        cfg.players
    );
    Err(Error::InvalidPolicy(msg).into())
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
    let interval = if interval.is_finite() {
        interval.clamp(0.001, 3600.0)
    } else {
        0.1
    };
    let run = py.detach(|| {
        watch(Duration::from_secs_f64(interval), work, |done| {
            Python::attach(|py| {
                py.check_signals()?;
                if let Some(cb) = progress {
                    cb.call1(py, (done,))?;
                }
                Ok::<(), PyErr>(())
            })
        })
    })?;
    if let Some(e) = run.failure {
        return Err(e);
    }
    if let Some(cb) = progress {
        cb.call1(py, (run.done,))?;
    }
    Ok((run.out, run.seconds))
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
    fn check(&self, cell: i64) -> PyResult<usize> {
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
            return Err(PyErr::from(Error::InvalidPlayer { player, players }));
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

/// The arrays of a simulation run, by name (numpy arrays), plus `elapsed` (seconds in the
/// native loop) and `complete` (false when interrupted).
type SimArrays<'py> = Bound<'py, PyDict>;

/// Plays games `start .. start + games` natively on `threads` threads with the GIL released.
/// `progress(done)` is called from this thread about every `interval` seconds; Ctrl-C (or an
/// exception in `progress`) stops the run and is raised.
#[pyfunction]
#[pyo3(signature = (config, policies, seed, games, start=0, threads=0, max_plies=None, record=false, progress=None, interval=0.1))]
#[allow(clippy::too_many_arguments)]
fn simulate<'py>(
    py: Python<'py>,
    config: GameConfig,
    policies: Vec<String>,
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
    one_per_seat(policies.len(), &cfg)?;
    let mut seats = [Player::Random; 8];
    for (seat, name) in seats.iter_mut().zip(&policies) {
        *seat = parse_player(name)?;
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
fn column<'py, T: numpy::Element>(
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
fn output_arrays(
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

fn illegal_mode(name: &str) -> PyResult<Illegal> {
    match name {
        "raise" => Ok(Illegal::Raise),
        "lose" => Ok(Illegal::Lose),
        _ => Err(ConfigError::new_err(format!(
            "invalid illegal {name:?}: allowed are 'raise' and 'lose'"
        ))),
    }
}

/// The output buffers of a batch of environments, allocated by the Python layer (so that a
/// request too large for memory is numpy's `MemoryError`, never an abort here) and read from
/// the attributes of the object passed to `NativeVecEnv`.
#[derive(FromPyObject)]
struct EnvBuffers {
    obs: Py<PyArray4<u8>>,
    mask: Py<PyArray2<u8>>,
    to_move: Py<PyArray1<i8>>,
    rewards: Py<PyArray1<f32>>,
    seat_rewards: Py<PyArray2<f32>>,
    terminated: Py<PyArray1<u8>>,
    truncated: Py<PyArray1<u8>>,
    winner: Py<PyArray1<i8>>,
    episode_plies: Py<PyArray1<u32>>,
    illegal_actions: Py<PyArray1<u8>>,
    actions: Py<PyArray1<i64>>,
    final_obs: Py<PyArray4<u8>>,
}

/// The native batch of environments; `colorwars.VectorEnv` wraps it. It rewrites its output
/// arrays in place on every `reset` and `step`.
#[pyclass(module = "colorwars._core", name = "NativeVecEnv")]
pub struct NativeVecEnv {
    env: AnyVecEnv,
    pool: rayon::ThreadPool,
    /// The pool's size as asked (0: one per core) and the process it was started in: a
    /// forked child has none of the parent's threads, so it starts a pool of its own.
    threads: usize,
    pid: u32,
    illegal: Illegal,
    #[pyo3(get)]
    obs: Py<PyArray4<u8>>,
    #[pyo3(get)]
    mask: Py<PyArray2<u8>>,
    #[pyo3(get)]
    to_move: Py<PyArray1<i8>>,
    #[pyo3(get)]
    rewards: Py<PyArray1<f32>>,
    #[pyo3(get)]
    seat_rewards: Py<PyArray2<f32>>,
    #[pyo3(get)]
    terminated: Py<PyArray1<u8>>,
    #[pyo3(get)]
    truncated: Py<PyArray1<u8>>,
    #[pyo3(get)]
    winner: Py<PyArray1<i8>>,
    #[pyo3(get)]
    episode_plies: Py<PyArray1<u32>>,
    #[pyo3(get)]
    illegal_actions: Py<PyArray1<u8>>,
    #[pyo3(get)]
    actions: Py<PyArray1<i64>>,
    #[pyo3(get)]
    final_obs: Py<PyArray4<u8>>,
}

/// Checks that a buffer has the shape the batch needs and is writable C-contiguous memory.
fn buffer_shape(name: &str, array: &Bound<'_, PyAny>, shape: &[usize]) -> PyResult<()> {
    let flags = array.getattr("flags")?;
    let ok = array.getattr("shape")?.extract::<Vec<usize>>()? == shape
        && flags.getattr("c_contiguous")?.extract::<bool>()?
        && flags.getattr("writeable")?.extract::<bool>()?;
    if !ok {
        return Err(ConfigError::new_err(format!(
            "buffer {name}: expected a writable C-contiguous array of shape {shape:?}"
        )));
    }
    Ok(())
}

/// A mutable borrow of one of the environment's own buffers. A caller may have made the
/// buffer read-only (through a view's `.base`); it is the environment's, so it is made
/// writable again. A buffer another call holds (another thread passed it to a call that is
/// still running) is our error, never a panic.
fn own_buffer<'py, T: numpy::Element, D: numpy::ndarray::Dimension>(
    array: &Bound<'py, numpy::PyArray<T, D>>,
    name: &str,
) -> PyResult<numpy::PyReadwriteArray<'py, T, D>> {
    match array.try_readwrite() {
        Ok(rw) => return Ok(rw),
        Err(numpy::BorrowError::NotWriteable) => {
            array.getattr("flags")?.setattr("writeable", true)?;
        }
        Err(_) => {}
    }
    array.try_readwrite().map_err(|_| {
        ConfigError::new_err(format!(
            "the environment's {name} buffer is in use by another call still running (an \
             array it handed out was passed to a call in another thread): pass a copy"
        ))
    })
}

/// Borrows every output array mutably and runs `f` on the buffers with the GIL released.
macro_rules! with_buffers {
    ($self:ident, $py:ident, |$b:ident| $body:expr) => {{
        let mut obs = own_buffer($self.obs.bind($py), "obs")?;
        let mut mask = own_buffer($self.mask.bind($py), "mask")?;
        let mut to_move = own_buffer($self.to_move.bind($py), "to_move")?;
        let mut rewards = own_buffer($self.rewards.bind($py), "rewards")?;
        let mut seat = own_buffer($self.seat_rewards.bind($py), "seat_rewards")?;
        let mut term = own_buffer($self.terminated.bind($py), "terminated")?;
        let mut trunc = own_buffer($self.truncated.bind($py), "truncated")?;
        let mut winner = own_buffer($self.winner.bind($py), "winner")?;
        let mut eplies = own_buffer($self.episode_plies.bind($py), "episode_plies")?;
        let mut illegal = own_buffer($self.illegal_actions.bind($py), "illegal_actions")?;
        let mut fin = own_buffer($self.final_obs.bind($py), "final_obs")?;
        // Contiguity and shapes were checked when the buffers were handed in, and the
        // environment's buffers are never replaced.
        let (Ok(obs), Ok(mask), Ok(to_move), Ok(rewards), Ok(seat_rewards), Ok(terminated)) = (
            obs.as_slice_mut(),
            mask.as_slice_mut(),
            to_move.as_slice_mut(),
            rewards.as_slice_mut(),
            seat.as_slice_mut(),
            term.as_slice_mut(),
        ) else {
            return Err(ConfigError::new_err(
                "the environment's buffers are not contiguous",
            ));
        };
        let (Ok(truncated), Ok(winner), Ok(episode_plies), Ok(illegal), Ok(final_obs)) = (
            trunc.as_slice_mut(),
            winner.as_slice_mut(),
            eplies.as_slice_mut(),
            illegal.as_slice_mut(),
            fin.as_slice_mut(),
        ) else {
            return Err(ConfigError::new_err(
                "the environment's buffers are not contiguous",
            ));
        };
        let mut $b = Buffers {
            obs,
            mask,
            to_move,
            rewards,
            seat_rewards,
            terminated,
            truncated,
            winner,
            episode_plies,
            illegal,
            final_obs,
        };
        $body
    }};
}

impl NativeVecEnv {
    /// In a child forked from the process that made this environment, the pool's threads do
    /// not exist (a fork copies only the calling thread) and any work sent to them would wait
    /// forever: start a new pool here. The old one is left alone (its threads are not there to
    /// be told to stop).
    fn after_fork(&mut self) -> PyResult<()> {
        let pid = std::process::id();
        if pid != self.pid {
            std::mem::forget(std::mem::replace(&mut self.pool, pool(self.threads)?));
            self.pid = pid;
        }
        Ok(())
    }
}

#[pymethods]
impl NativeVecEnv {
    #[new]
    #[pyo3(signature = (config, num_envs, max_plies, threads, illegal, buffers))]
    fn new(
        py: Python<'_>,
        config: GameConfig,
        num_envs: usize,
        max_plies: Option<u32>,
        threads: usize,
        illegal: &str,
        buffers: EnvBuffers,
    ) -> PyResult<Self> {
        let cfg = config.check()?;
        let (b, p, n) = (num_envs, cfg.players, cfg.cells());
        let (h, w) = (cfg.height, cfg.width);
        let b_ = &buffers;
        for (name, array, shape) in [
            ("obs", b_.obs.bind(py).as_any(), vec![b, p, h, w]),
            ("mask", b_.mask.bind(py).as_any(), vec![b, n]),
            ("to_move", b_.to_move.bind(py).as_any(), vec![b]),
            ("rewards", b_.rewards.bind(py).as_any(), vec![b]),
            (
                "seat_rewards",
                b_.seat_rewards.bind(py).as_any(),
                vec![b, p],
            ),
            ("terminated", b_.terminated.bind(py).as_any(), vec![b]),
            ("truncated", b_.truncated.bind(py).as_any(), vec![b]),
            ("winner", b_.winner.bind(py).as_any(), vec![b]),
            ("episode_plies", b_.episode_plies.bind(py).as_any(), vec![b]),
            (
                "illegal_actions",
                b_.illegal_actions.bind(py).as_any(),
                vec![b],
            ),
            ("actions", b_.actions.bind(py).as_any(), vec![b]),
            (
                "final_obs",
                b_.final_obs.bind(py).as_any(),
                vec![b, p, h, w],
            ),
        ] {
            buffer_shape(name, array, &shape)?;
        }
        Ok(NativeVecEnv {
            env: AnyVecEnv::new(cfg, num_envs, max_plies)?,
            pool: pool(threads)?,
            threads,
            pid: std::process::id(),
            illegal: illegal_mode(illegal)?,
            obs: buffers.obs,
            mask: buffers.mask,
            to_move: buffers.to_move,
            rewards: buffers.rewards,
            seat_rewards: buffers.seat_rewards,
            terminated: buffers.terminated,
            truncated: buffers.truncated,
            winner: buffers.winner,
            episode_plies: buffers.episode_plies,
            illegal_actions: buffers.illegal_actions,
            actions: buffers.actions,
            final_obs: buffers.final_obs,
        })
    }
    #[getter]
    fn num_envs(&self) -> usize {
        self.env.num_envs()
    }

    fn reset(&mut self, py: Python<'_>, seed: Option<u64>) -> PyResult<()> {
        self.after_fork()?;
        let (env, pool) = (&mut self.env, &self.pool);
        with_buffers!(self, py, |b| py
            .detach(|| pool.install(|| env.reset(seed, &mut b))));
        Ok(())
    }

    /// Steps every environment with `actions` (int64, one per environment). Under the
    /// "raise" mode an illegal action raises and nothing changes. The actions are copied
    /// first: another thread changing the caller's array, or an array that shares memory
    /// with this environment's own buffers, cannot change what is checked and played.
    fn step(&mut self, py: Python<'_>, actions: &Bound<'_, PyArray1<i64>>) -> PyResult<()> {
        self.after_fork()?;
        let n = self.env.num_envs();
        let actions: Vec<i64> = {
            let view = actions.try_readonly().map_err(|_| {
                Error::InvalidMove(
                    "the actions array is being written by a call still running in another \
                     thread (it is an environment's buffer): pass a copy"
                        .into(),
                )
            })?;
            let slice = view
                .as_slice()
                .map_err(|_| Error::InvalidMove("actions must be a contiguous array".into()))?;
            let mut copy = Vec::new();
            copy.try_reserve_exact(slice.len())
                .map_err(|_| Error::OutOfMemory("a copy of the actions".into()))?;
            copy.extend_from_slice(slice);
            copy
        };
        if actions.len() != n {
            return Err(PyErr::from(Error::InvalidMove(format!(
                "{} actions for {n} environments: give one per environment",
                actions.len()
            ))));
        }
        let actions = &actions[..];
        let (env, pool, mode) = (&mut self.env, &self.pool, self.illegal);
        if mode == Illegal::Raise {
            if let Some((i, a)) = py.detach(|| pool.install(|| env.find_illegal(actions))) {
                let cells = env.cfg().cells() as i64;
                // As for a single game: a number that is no cell is an invalid move, a cell
                // the player may not play an illegal one.
                return Err(if (0..cells).contains(&a) {
                    Error::IllegalMove {
                        cell: a as usize,
                        reason: format!(
                            "environment {i}: not a legal move there; no environment was changed"
                        ),
                    }
                } else {
                    Error::InvalidMove(format!(
                        "environment {i}: action {a} is not a cell of the board (cells are 0 to \
                         {}); no environment was changed",
                        cells - 1
                    ))
                }
                .into());
            }
        }
        with_buffers!(self, py, |b| py
            .detach(|| pool.install(|| env.step(actions, mode, &mut b))));
        Ok(())
    }

    /// Writes a uniformly random legal action per environment into `actions` and returns it.
    /// The actions are drawn into memory of this call's own with the GIL released, then
    /// copied into the buffer with the GIL held (no other thread can be reading it then).
    fn sample_legal<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<i64>>> {
        self.after_fork()?;
        let mut drawn = Vec::new();
        drawn
            .try_reserve_exact(self.env.num_envs())
            .map_err(|_| Error::OutOfMemory("the sampled actions".into()))?;
        drawn.resize(self.env.num_envs(), 0i64);
        let (env, pool) = (&mut self.env, &self.pool);
        py.detach(|| pool.install(|| env.sample_legal(&mut drawn)));
        let arr = self.actions.bind(py).clone();
        {
            let mut out = own_buffer(&arr, "actions")?;
            let slice = out
                .as_slice_mut()
                .map_err(|_| ConfigError::new_err("the actions buffer is not contiguous"))?;
            slice.copy_from_slice(&drawn);
        }
        Ok(arr)
    }

    /// Environment `i`'s board: (counts, owners, to_move, ply).
    fn snapshot(&self, py: Python<'_>, i: usize) -> PyResult<(Vec<u32>, Vec<i8>, usize, u32)> {
        if i >= self.env.num_envs() {
            return Err(InvalidIndexError::new_err(format!(
                "environment {i} does not exist (there are {})",
                self.env.num_envs()
            )));
        }
        let _ = py;
        let (c, o, t, p) = self.env.snapshot(i);
        Ok((c.into_iter().map(u32::from).collect(), o, t, p))
    }
}

/// A player's move in a game: (cell, work done). The search runs on a copy of the position
/// with the GIL released (the game stays usable from other threads meanwhile), and Ctrl-C
/// stops it.
#[pyfunction]
fn ai_choose(
    py: Python<'_>,
    game: &Bound<'_, NativeGame>,
    player: NativeSpec,
    seed: u64,
) -> PyResult<(usize, u64)> {
    let position = game.borrow().inner.without_history();
    let cfg = *position.cfg();
    let player = player.check(&cfg)?;
    if let Some(w) = position.winner() {
        return Err(Error::GameOver { winner: w as u8 }.into());
    }
    let choose = |control: &Control| {
        with_game!(&position, g => {
            let mut rng = game_rng(seed, zobrist(g.pos(), cfg.players));
            choose_move(g.geo(), &cfg, g.pos(), &player, &mut rng, seed, control, None)
        })
    };
    let choice = if matches!(player, Player::Random | Player::Greedy) {
        // One pass over the legal moves: too quick to need a watcher thread for Ctrl-C.
        py.detach(|| choose(&Control::new()))
    } else {
        watched(py, None, 0.05, choose)?.0
    };
    Ok(choice?)
}

/// One root move as `ai_analyse` reports it: (cell, visits, total reward of the mover).
type MoveRow = (usize, u64, f64);

/// An MCTS player's view of every legal move (GIL released, Ctrl-C stops it): a list of
/// (cell, visits, total reward of the player to move) and the simulations run.
#[pyfunction]
fn ai_analyse(
    py: Python<'_>,
    game: &Bound<'_, NativeGame>,
    player: NativeSpec,
    seed: u64,
) -> PyResult<(Vec<MoveRow>, u64)> {
    let position = game.borrow().inner.without_history();
    let cfg = *position.cfg();
    let Player::Mcts(params) = player.check(&cfg)? else {
        return Err(Error::InvalidPolicy("only MCTS players analyse positions".into()).into());
    };
    if let Some(w) = position.winner() {
        return Err(Error::GameOver { winner: w as u8 }.into());
    }
    let ((stats, sims), _) = watched(
        py,
        None,
        0.05,
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
fn play_match<'py>(
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
struct MatchJob {
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
fn play_matches<'py>(
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
        pool.install(|| {
            specs
                .par_iter()
                .map(|(spec, games)| {
                    with_game!(&game, g => crate::ai::play_match(g.geo(), &cfg, spec, 0, *games, control))
                })
                .collect::<Vec<_>>()
        })
    })?;
    outs.into_iter()
        .map(|out| output_arrays(py, out?, elapsed, false))
        .collect()
}

/// Solves a board exactly for two players from the empty board (GIL released, Ctrl-C stops
/// it): (winner, plies, line, positions, seconds), or None if not proven within `max_depth`.
#[pyfunction]
#[pyo3(signature = (config, max_depth=200))]
#[allow(clippy::type_complexity)]
fn solve(
    py: Python<'_>,
    config: GameConfig,
    max_depth: i32,
) -> PyResult<Option<(usize, u32, Vec<usize>, u64, f64)>> {
    let cfg = config.check()?;
    if cfg.players != 2 {
        return Err(Error::InvalidPolicy("the solver plays two-player games only".into()).into());
    }
    let game = AnyGame::new(cfg);
    let (solution, seconds) = watched(
        py,
        None,
        0.05,
        |control| with_game!(&game, g => crate::search::solve(g.geo(), &cfg, g.pos(), max_depth.clamp(1, 10_000), control)),
    )?;
    Ok(solution?.map(|s| (s.winner, s.plies, s.line, s.positions, seconds)))
}

/// What `solve_position` returns: (winner, plies, line, positions, seconds, and with
/// `moves` the exact (cell, winner, plies) of every legal move).
type PositionSolution = (usize, u32, Vec<usize>, u64, f64, Vec<MoveResult>);

/// Solves a two-player game exactly from its current position (GIL released, Ctrl-C stops
/// it); with `moves`, also every legal move's exact result. None if something is not proven
/// within `max_depth` plies.
#[pyfunction]
#[pyo3(signature = (game, max_depth=200, moves=true))]
fn solve_position(
    py: Python<'_>,
    game: &Bound<'_, NativeGame>,
    max_depth: i32,
    moves: bool,
) -> PyResult<Option<PositionSolution>> {
    let (position, cfg) = two_player_position(game)?;
    let max_depth = max_depth.clamp(1, 10_000);
    let (found, seconds) = watched(py, None, 0.05, |control| {
        with_game!(&position, g => {
            let mut solver = Solver::new(g.geo(), &cfg, control)?;
            let Some(best) = solver.solve(g.pos(), max_depth) else {
                return Ok(None);
            };
            let each = if moves && g.pos().winner().is_none() {
                match solver.solve_moves(g.pos(), max_depth) {
                    Some(each) => each,
                    None => return Ok(None),
                }
            } else {
                Vec::new()
            };
            Ok::<_, Error>(Some((best, each, solver.positions())))
        })
    })?;
    Ok(found?.map(|(s, each, positions)| (s.winner, s.plies, s.line, positions, seconds, each)))
}

/// The proof-number search's table, kept between calls (a long run proves a position's
/// moves in turn, in slices of time, and saves what is proven).
#[pyclass(module = "colorwars._core", name = "ProofTable")]
pub struct PyProofTable {
    inner: std::sync::Mutex<ProofTable>,
}

impl PyProofTable {
    fn table(&self) -> std::sync::MutexGuard<'_, ProofTable> {
        lock_table(&self.inner)
    }
}

/// The table behind its lock. No Python runs under the lock and the search does not panic,
/// but a poisoned lock would still hold a usable table.
fn lock_table(m: &std::sync::Mutex<ProofTable>) -> std::sync::MutexGuard<'_, ProofTable> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Bytes of one saved proof: key (u64), work (u32), 1 if the player to move wins (u32).
const PROOF_BYTES: usize = 16;

#[pymethods]
impl PyProofTable {
    #[new]
    fn new(py: Python<'_>, memory: u64) -> PyResult<Self> {
        let table = py.detach(|| ProofTable::new(memory))?;
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
    /// (16 bytes each, little-endian key u64, work u32, mover-wins u32).
    #[pyo3(signature = (min_work=1))]
    fn proofs<'py>(&self, py: Python<'py>, min_work: u32) -> Bound<'py, pyo3::types::PyBytes> {
        let proofs = py.detach(|| self.table().proofs(min_work));
        let mut out = Vec::with_capacity(proofs.len() * PROOF_BYTES);
        for p in proofs {
            out.extend_from_slice(&p.key.to_le_bytes());
            out.extend_from_slice(&p.work.to_le_bytes());
            out.extend_from_slice(&u32::from(p.mover_wins).to_le_bytes());
        }
        pyo3::types::PyBytes::new(py, &out)
    }

    /// Stores packed proofs (what `proofs` returns). Records that `proofs` cannot have
    /// written (a flag other than 0 or 1, no work) are refused, and then nothing is stored.
    fn add_proofs(&self, py: Python<'_>, data: &[u8]) -> PyResult<usize> {
        if data.len() % PROOF_BYTES != 0 {
            return Err(Error::InvalidPosition(format!(
                "saved proofs must be {PROOF_BYTES} bytes each; got {} bytes",
                data.len()
            ))
            .into());
        }
        let mut proofs: Vec<Proven> = Vec::new();
        proofs
            .try_reserve_exact(data.len() / PROOF_BYTES)
            .map_err(|_| Error::OutOfMemory("the saved proofs".into()))?;
        for (i, b) in data.chunks_exact(PROOF_BYTES).enumerate() {
            let word = |at: usize| u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
            let (work, flag) = (word(8), word(12));
            if work == 0 || flag > 1 {
                return Err(Error::InvalidPosition(format!(
                    "saved proof {i} is not one this program writes (work {work}, flag {flag})"
                ))
                .into());
            }
            let mut key = [0u8; 8];
            key.copy_from_slice(&b[..8]);
            proofs.push(Proven {
                key: u64::from_le_bytes(key),
                work,
                mover_wins: flag == 1,
            });
        }
        py.detach(|| self.table().add_proofs(&proofs));
        Ok(proofs.len())
    }
}

/// A copy of a two-player game's position (no history) and its configuration, for the
/// solvers.
fn two_player_position(game: &Bound<'_, NativeGame>) -> PyResult<(AnyGame, Config)> {
    let position = game.borrow().inner.without_history();
    let cfg = *position.cfg();
    if cfg.players != 2 {
        return Err(Error::InvalidPolicy("the solver plays two-player games only".into()).into());
    }
    Ok((position, cfg))
}

/// What `prove` returns: (winner or None, line, positions, seconds, with `verify` the
/// positions of the checked proof (None if unchecked, stopped, or refuted), and whether the
/// search stopped (its time ran out or it was cancelled) before it finished.
type ProveResult = (Option<usize>, Vec<usize>, u64, f64, Option<u64>, bool);

/// The stack of the proof search's own thread: it recurses once per ply.
const PROVER_STACK: usize = 1 << 28;

/// Proves who wins a two-player game from its position by proof-number search (GIL released,
/// Ctrl-C stops it), sharing `table`; `seconds` bounds the time (None: no bound), the check
/// (`verify`) included. The winner is None if nothing was proven in time. A thread with the
/// search's stack that cannot be had is `MemoryError`.
#[pyfunction]
#[pyo3(signature = (game, table, seconds=None, progress=None, interval=0.5, verify=false))]
fn prove(
    py: Python<'_>,
    game: &Bound<'_, NativeGame>,
    table: &Bound<'_, PyProofTable>,
    seconds: Option<f64>,
    progress: Option<Py<PyAny>>,
    interval: f64,
    verify: bool,
) -> PyResult<ProveResult> {
    let (position, cfg) = two_player_position(game)?;
    let table = table.borrow();
    let inner = &table.inner;
    let deadline = seconds
        .filter(|s| s.is_finite())
        .map(|s| std::time::Instant::now() + Duration::from_secs_f64(s.clamp(0.0, 1e9)));
    let (found, secs) = watched(py, progress.as_ref(), interval, |control| {
        let mut t = lock_table(inner);
        let t = &mut *t;
        std::thread::scope(|scope| {
            let run = std::thread::Builder::new()
                .stack_size(PROVER_STACK)
                .spawn_scoped(scope, || {
                    with_game!(&position, g => {
                        let sym = Symmetries::new(cfg.width, cfg.height);
                        let mut p = Prover::new(g.geo(), &cfg, &sym, t, control, deadline);
                        let proof = p.prove(g.pos());
                        let checked = match proof.winner {
                            Some(w) if verify => p.verify(g.pos(), w),
                            _ => None,
                        };
                        (proof.winner, proof.line, p.positions, checked, p.stopped)
                    })
                });
            match run {
                Ok(handle) => Ok(handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))),
                Err(e) => Err(Error::OutOfMemory(format!(
                    "a thread with the proof search's {} MiB stack ({e})",
                    PROVER_STACK >> 20
                ))),
            }
        })
    })?;
    let (winner, line, positions, checked, stopped) = found?;
    Ok((winner, line, positions, secs, checked, stopped))
}

/// A move after which the player to move is proven to win, from the proofs in `table` (and a
/// new search where they are missing); None if the mover has none.
#[pyfunction]
fn proven_move(
    py: Python<'_>,
    game: &Bound<'_, NativeGame>,
    table: &Bound<'_, PyProofTable>,
) -> PyResult<Option<usize>> {
    let (position, cfg) = two_player_position(game)?;
    let table = table.borrow();
    let inner = &table.inner;
    let (found, _) = watched(py, None, 0.05, |control| {
        let mut t = lock_table(inner);
        with_game!(&position, g => {
            let sym = Symmetries::new(cfg.width, cfg.height);
            let mut p = Prover::new(g.geo(), &cfg, &sym, &mut t, control, None);
            p.prove_for(g.pos().to_move as usize);
            p.winning_move(g.pos())
        })
    })?;
    Ok(found)
}

/// The legal moves of a position grouped by symmetry: moves whose positions are images of one
/// another under the board's symmetries share a group (ascending cells, groups by first cell).
#[pyfunction]
fn symmetric_moves(game: &Bound<'_, NativeGame>) -> Vec<Vec<usize>> {
    let position = game.borrow().inner.without_history();
    let cfg = *position.cfg();
    with_game!(&position, g => {
        let sym = Symmetries::new(cfg.width, cfg.height);
        let legal = crate::cascade::legal_mask(g.geo(), cfg.rules, g.pos());
        let mut groups: Vec<(u64, Vec<usize>)> = Vec::new();
        legal.for_each(|m| {
            let mut child = *g.pos();
            crate::cascade::play_unchecked(g.geo(), cfg.rules, cfg.players, &mut child, m, &mut ());
            let key = sym.key(&child);
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, cells)) => cells.push(m),
                None => groups.push((key, vec![m])),
            }
        });
        groups.into_iter().map(|(_, cells)| cells).collect()
    })
}

#[pymodule]
mod _core {
    #[pymodule_export]
    use super::{
        ai_analyse, ai_choose, play_match, play_matches, prove, proven_move, simulate, solve,
        solve_position, symmetric_moves, NativeGame, NativeVecEnv, PyProofTable,
    };
}
