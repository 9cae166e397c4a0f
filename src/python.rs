//! The Python binding (`colorwars._core`): converts types, maps errors, releases the GIL for
//! long work. No rules live here.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use numpy::{PyArray1, PyArray2, PyArray4, PyArrayMethods, PyReadonlyArray1};
use pyo3::exceptions::{PyIndexError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::ai::{choose_move, MatchSpec, Player};
use crate::error::Error;
use crate::game::AnyGame;
use crate::notation::{cell_name, format_position, parse_cell, parse_position};
use crate::rng::game_rng;
use crate::rules::{Config, Rules};
use crate::search::zobrist;
use crate::simulate::{parse_player, SimOutput, SimSpec};
use crate::vecenv::{AnyVecEnv, Buffers, Illegal};
use crate::with_game;

// The Python classes of the core errors (all `ValueError`s), imported once on first use.
pyo3::import_exception!(colorwars.errors, InvalidSizeError);
pyo3::import_exception!(colorwars.errors, InvalidPlayersError);
pyo3::import_exception!(colorwars.errors, InvalidRulesError);
pyo3::import_exception!(colorwars.errors, InvalidPolicyError);
pyo3::import_exception!(colorwars.errors, InvalidMoveError);
pyo3::import_exception!(colorwars.errors, IllegalMoveError);
pyo3::import_exception!(colorwars.errors, GameOverError);
pyo3::import_exception!(colorwars.errors, InvalidPositionError);

/// A core error raises its `colorwars.errors` class.
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
        }
    }
}

fn rules_of(opening: &str, burst: &str) -> PyResult<Rules> {
    Rules::from_axes(opening, burst).map_err(PyErr::from)
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
        width: i64,
        height: i64,
        players: i64,
        opening: &str,
        burst: &str,
        first: i64,
    ) -> PyResult<Self> {
        let cfg = config(width, height, players, opening, burst, first)?;
        Ok(NativeGame {
            inner: AnyGame::new(cfg),
        })
    }

    #[staticmethod]
    fn from_text(text: &str) -> PyResult<Self> {
        let setup = parse_position(text)?;
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

    fn parse_cell(&self, name: &str) -> PyResult<usize> {
        let cfg = self.inner.cfg();
        parse_cell(name, cfg.width, cfg.height).map_err(PyErr::from)
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

fn pool(threads: usize) -> PyResult<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads) // 0: rayon's default, one per core
        .build()
        .map_err(|e| {
            PyErr::from(Error::InvalidPolicy(format!(
                "cannot start {threads} threads: {e}"
            )))
        })
}

/// Seat lists must name one player (or policy) per seat.
fn one_per_seat(given: usize, cfg: &Config) -> PyResult<()> {
    if given == cfg.players {
        return Ok(());
    }
    let msg = format!(
        "{given} players or policies given for {} seats: give one per seat",
        cfg.players
    );
    Err(PyErr::from(Error::InvalidPolicy(msg)))
}

fn config(
    width: i64,
    height: i64,
    players: i64,
    opening: &str,
    burst: &str,
    first: i64,
) -> PyResult<Config> {
    let rules = rules_of(opening, burst)?;
    Config::new(width, height, players, rules, first).map_err(PyErr::from)
}

/// The arrays of a simulation run, by name (numpy arrays), plus `elapsed` (seconds in the
/// native loop) and `complete` (false when interrupted).
type SimArrays<'py> = Bound<'py, PyDict>;

/// Plays games `start .. start + games` natively on `threads` threads with the GIL released.
/// `progress(done)` is called from this thread about every `interval` seconds; Ctrl-C (or an
/// exception in `progress`) stops the run and is raised.
#[pyfunction]
#[pyo3(signature = (width, height, players, opening, burst, first, policies, seed, games, start=0, threads=0, max_plies=None, record=false, progress=None, interval=0.1))]
#[allow(clippy::too_many_arguments)]
fn simulate<'py>(
    py: Python<'py>,
    width: i64,
    height: i64,
    players: i64,
    opening: &str,
    burst: &str,
    first: i64,
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
    let cfg = config(width, height, players, opening, burst, first)?;
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
    let (out, elapsed) = run_watched(py, &pool, progress, interval, |done, cancel| {
        crate::simulate::simulate(&spec, start, games, done, cancel)
    })?;
    output_arrays(py, &out, elapsed, record)
}

/// Runs `work` on `pool` with the GIL released, waking every `interval` seconds (or when the
/// work ends) to call `progress(done)` and to notice Ctrl-C; either an exception there or
/// Ctrl-C cancels the work and is raised. Returns the work's output and its seconds.
fn run_watched<F>(
    py: Python<'_>,
    pool: &rayon::ThreadPool,
    progress: Option<Py<PyAny>>,
    interval: f64,
    work: F,
) -> PyResult<(SimOutput, f64)>
where
    F: FnOnce(&AtomicU64, &AtomicBool) -> SimOutput + Send,
{
    let done = AtomicU64::new(0);
    let cancel = AtomicBool::new(false);
    let interval = Duration::from_secs_f64(interval.clamp(0.001, 3600.0));
    let (result, failure) = py.detach(|| {
        std::thread::scope(|scope| {
            let (finished, wait) = std::sync::mpsc::channel::<()>();
            let worker = scope.spawn(|| {
                let t = Instant::now();
                let out = pool.install(|| work(&done, &cancel));
                let elapsed = t.elapsed().as_secs_f64();
                drop(finished); // wakes the waiting loop below at once
                (out, elapsed)
            });
            let mut failure: Option<PyErr> = None;
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(interval)
            {
                if failure.is_some() {
                    continue;
                }
                // Signals (Ctrl-C) and the progress callback need the GIL, briefly.
                Python::attach(|py| {
                    let result = py.check_signals().and_then(|()| match &progress {
                        Some(cb) => cb.call1(py, (done.load(Ordering::Relaxed),)).map(drop),
                        None => Ok(()),
                    });
                    if let Err(e) = result {
                        cancel.store(true, Ordering::Relaxed);
                        failure = Some(e);
                    }
                });
            }
            (worker.join(), failure)
        })
    });
    let Ok((out, elapsed)) = result else {
        return Err(PyRuntimeError::new_err(
            "the simulation thread failed unexpectedly",
        ));
    };
    if let Some(e) = failure {
        return Err(e);
    }
    if let Some(cb) = &progress {
        cb.call1(py, (done.load(Ordering::Relaxed),))?;
    }
    Ok((out, elapsed))
}

/// The per-game arrays of a run, as numpy arrays in a dict.
fn output_arrays<'py>(
    py: Python<'py>,
    out: &SimOutput,
    elapsed: f64,
    record: bool,
) -> PyResult<SimArrays<'py>> {
    let d = PyDict::new(py);
    let g = &out.games;
    d.set_item(
        "winners",
        PyArray1::from_iter(py, g.iter().map(|x| x.winner)),
    )?;
    d.set_item(
        "plies",
        PyArray1::from_iter(py, g.iter().map(|x| x.plies as i32)),
    )?;
    d.set_item(
        "waves",
        PyArray1::from_iter(py, g.iter().map(|x| x.waves as i32)),
    )?;
    d.set_item(
        "longest_cascade",
        PyArray1::from_iter(py, g.iter().map(|x| x.longest_cascade as i32)),
    )?;
    d.set_item(
        "first_moves",
        PyArray1::from_iter(py, g.iter().map(|x| i32::from(x.first_move))),
    )?;
    if record {
        d.set_item("moves", PyArray1::from_slice(py, &out.moves))?;
        d.set_item(
            "offsets",
            PyArray1::from_iter(py, out.offsets.iter().map(|&o| o as i64)),
        )?;
    }
    d.set_item("elapsed", elapsed)?;
    d.set_item("complete", out.complete)?;
    Ok(d)
}

fn illegal_mode(name: &str) -> PyResult<Illegal> {
    match name {
        "raise" => Ok(Illegal::Raise),
        "lose" => Ok(Illegal::Lose),
        _ => Err(PyErr::from(Error::InvalidPolicy(format!(
            "unknown illegal-action mode {name:?}; allowed are \"raise\" and \"lose\""
        )))),
    }
}

/// The native batch of environments; `colorwars.VectorEnv` wraps it. It owns its output
/// arrays and rewrites them in place on every `reset` and `step`.
#[pyclass(module = "colorwars._core", name = "NativeVecEnv")]
pub struct NativeVecEnv {
    env: AnyVecEnv,
    pool: rayon::ThreadPool,
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

/// Borrows every output array mutably and runs `f` on the buffers with the GIL released.
macro_rules! with_buffers {
    ($self:ident, $py:ident, |$b:ident| $body:expr) => {{
        let mut obs = $self.obs.bind($py).readwrite();
        let mut mask = $self.mask.bind($py).readwrite();
        let mut to_move = $self.to_move.bind($py).readwrite();
        let mut rewards = $self.rewards.bind($py).readwrite();
        let mut seat = $self.seat_rewards.bind($py).readwrite();
        let mut term = $self.terminated.bind($py).readwrite();
        let mut trunc = $self.truncated.bind($py).readwrite();
        let mut winner = $self.winner.bind($py).readwrite();
        let mut eplies = $self.episode_plies.bind($py).readwrite();
        let mut illegal = $self.illegal_actions.bind($py).readwrite();
        let mut fin = $self.final_obs.bind($py).readwrite();
        let mut $b = Buffers {
            obs: obs.as_slice_mut().expect("contiguous"),
            mask: mask.as_slice_mut().expect("contiguous"),
            to_move: to_move.as_slice_mut().expect("contiguous"),
            rewards: rewards.as_slice_mut().expect("contiguous"),
            seat_rewards: seat.as_slice_mut().expect("contiguous"),
            terminated: term.as_slice_mut().expect("contiguous"),
            truncated: trunc.as_slice_mut().expect("contiguous"),
            winner: winner.as_slice_mut().expect("contiguous"),
            episode_plies: eplies.as_slice_mut().expect("contiguous"),
            illegal: illegal.as_slice_mut().expect("contiguous"),
            final_obs: fin.as_slice_mut().expect("contiguous"),
        };
        $body
    }};
}

#[pymethods]
impl NativeVecEnv {
    #[new]
    #[pyo3(signature = (num_envs, width, height, players, opening, burst, first, max_plies, threads, illegal))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        num_envs: usize,
        width: i64,
        height: i64,
        players: i64,
        opening: &str,
        burst: &str,
        first: i64,
        max_plies: Option<u32>,
        threads: usize,
        illegal: &str,
    ) -> PyResult<Self> {
        let cfg = config(width, height, players, opening, burst, first)?;
        let (b, p, h, w) = (num_envs, cfg.players, cfg.height, cfg.width);
        Ok(NativeVecEnv {
            env: AnyVecEnv::new(cfg, num_envs, max_plies),
            pool: pool(threads)?,
            illegal: illegal_mode(illegal)?,
            obs: PyArray4::zeros(py, [b, p, h, w], false).unbind(),
            mask: PyArray2::zeros(py, [b, h * w], false).unbind(),
            to_move: PyArray1::zeros(py, b, false).unbind(),
            rewards: PyArray1::zeros(py, b, false).unbind(),
            seat_rewards: PyArray2::zeros(py, [b, p], false).unbind(),
            terminated: PyArray1::zeros(py, b, false).unbind(),
            truncated: PyArray1::zeros(py, b, false).unbind(),
            winner: PyArray1::zeros(py, b, false).unbind(),
            episode_plies: PyArray1::zeros(py, b, false).unbind(),
            illegal_actions: PyArray1::zeros(py, b, false).unbind(),
            actions: PyArray1::zeros(py, b, false).unbind(),
            final_obs: PyArray4::zeros(py, [b, p, h, w], false).unbind(),
        })
    }

    #[getter]
    fn num_envs(&self) -> usize {
        self.env.num_envs()
    }

    fn reset(&mut self, py: Python<'_>, seed: Option<u64>) {
        let (env, pool) = (&mut self.env, &self.pool);
        with_buffers!(self, py, |b| py
            .detach(|| pool.install(|| env.reset(seed, &mut b))))
    }

    /// Steps every environment with `actions` (int64, one per environment). Under the
    /// "raise" mode an illegal action raises and nothing changes.
    fn step(&mut self, py: Python<'_>, actions: PyReadonlyArray1<'_, i64>) -> PyResult<()> {
        let n = self.env.num_envs();
        let actions = actions.as_slice().map_err(|_| {
            PyErr::from(Error::InvalidMove(
                "actions must be a contiguous array".into(),
            ))
        })?;
        if actions.len() != n {
            return Err(PyErr::from(Error::InvalidMove(format!(
                "{} actions for {n} environments: give one per environment",
                actions.len()
            ))));
        }
        let (env, pool, mode) = (&mut self.env, &self.pool, self.illegal);
        if mode == Illegal::Raise {
            if let Some((i, a)) = py.detach(|| pool.install(|| env.find_illegal(actions))) {
                let cells = env.cfg().cells() as i64;
                let what = if (0..cells).contains(&a) {
                    "not a legal move there"
                } else {
                    "not a cell of the board"
                };
                return Err(PyErr::from(Error::IllegalMove {
                    cell: a.max(0) as usize,
                    reason: format!(
                        "environment {i}: action {a} is {what}; no environment was changed"
                    ),
                }));
            }
        }
        with_buffers!(self, py, |b| py
            .detach(|| pool.install(|| env.step(actions, mode, &mut b))));
        Ok(())
    }

    /// Writes a uniformly random legal action per environment into `actions` and returns it.
    fn sample_legal<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let arr = self.actions.bind(py).clone();
        {
            let mut out = arr.readwrite();
            let slice = out.as_slice_mut().expect("contiguous");
            let (env, pool) = (&mut self.env, &self.pool);
            py.detach(|| pool.install(|| env.sample_legal(slice)));
        }
        arr
    }

    /// Environment `i`'s board: (counts, owners, to_move, ply).
    fn snapshot(&self, py: Python<'_>, i: usize) -> PyResult<(Vec<u32>, Vec<i8>, usize, u32)> {
        if i >= self.env.num_envs() {
            return Err(PyIndexError::new_err(format!(
                "environment {i} does not exist (there are {})",
                self.env.num_envs()
            )));
        }
        let _ = py;
        let (c, o, t, p) = self.env.snapshot(i);
        Ok((c.into_iter().map(u32::from).collect(), o, t, p))
    }
}

/// A player from Python: (kind, simulations, depth, seconds, c, threads, greedy share).
type SeatArgs = (String, u32, i32, Option<f64>, f64, usize, f64);

fn player_of(cfg: &Config, seat: &SeatArgs) -> PyResult<Player> {
    let (kind, simulations, depth, seconds, c, threads, greedy) = seat;
    let time = match seconds {
        Some(t) if !(t.is_finite() && *t > 0.0 && *t < 1e6) => {
            return Err(PyErr::from(Error::InvalidPolicy(format!(
                "time budget {t}: expected seconds > 0"
            ))));
        }
        Some(t) => Some(Duration::from_secs_f64(*t)),
        None => None,
    };
    let player = match kind.as_str() {
        "random" => Player::Random,
        "greedy" => Player::Greedy,
        "mcts" => Player::Mcts {
            simulations: *simulations,
            time,
            c: *c,
            threads: *threads,
            greedy: *greedy,
        },
        "alphabeta" => Player::AlphaBeta {
            depth: *depth,
            time,
        },
        other => {
            return Err(PyErr::from(Error::InvalidPolicy(format!(
                "unknown player {other:?}; allowed are random, greedy, mcts, alphabeta"
            ))));
        }
    };
    player.check(cfg)?;
    Ok(player)
}

/// A player's move in a game (GIL released): (cell, simulations or nodes searched).
#[pyfunction]
fn ai_choose(
    py: Python<'_>,
    game: &NativeGame,
    seat: SeatArgs,
    seed: u64,
) -> PyResult<(usize, u64)> {
    let cfg = *game.inner.cfg();
    let player = player_of(&cfg, &seat)?;
    if let Some(w) = game.inner.winner() {
        return Err(PyErr::from(Error::GameOver { winner: w as u8 }));
    }
    let inner = &game.inner;
    Ok(py.detach(|| {
        with_game!(inner, g => {
            let mut rng = game_rng(seed, zobrist(g.pos(), cfg.players));
            choose_move(g.geo(), &cfg, g.pos(), &player, &mut rng, seed)
        })
    }))
}

/// Plays games `start .. start + games` between the seats natively (all cores, GIL
/// released); the same arrays as `simulate`.
#[pyfunction]
#[pyo3(signature = (width, height, players, opening, burst, first, seats, games, seed, first_move=None, max_plies=None, threads=0, start=0, record=false, progress=None, interval=0.1))]
#[allow(clippy::too_many_arguments)]
fn play_match<'py>(
    py: Python<'py>,
    width: i64,
    height: i64,
    players: i64,
    opening: &str,
    burst: &str,
    first: i64,
    seats: Vec<SeatArgs>,
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
    let cfg = config(width, height, players, opening, burst, first)?;
    one_per_seat(seats.len(), &cfg)?;
    let players = seats
        .iter()
        .map(|s| player_of(&cfg, s))
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
    let (out, elapsed) = run_watched(
        py,
        &pool,
        progress,
        interval,
        |done, cancel| with_game!(&game, g => crate::ai::play_match(g.geo(), &cfg, &spec, start, games, done, cancel)),
    )?;
    output_arrays(py, &out, elapsed, record)
}

/// Solves a board exactly for two players from the empty board (GIL released):
/// (winner, plies, line, positions, seconds), or None if not proven within `max_depth`.
#[pyfunction]
#[pyo3(signature = (width, height, opening, burst, max_depth=200))]
#[allow(clippy::type_complexity)]
fn solve(
    py: Python<'_>,
    width: i64,
    height: i64,
    opening: &str,
    burst: &str,
    max_depth: i32,
) -> PyResult<Option<(usize, u32, Vec<usize>, u64, f64)>> {
    let cfg = config(width, height, 2, opening, burst, 0)?;
    let game = AnyGame::new(cfg);
    let t = Instant::now();
    let solution = py.detach(|| with_game!(&game, g => crate::search::solve(g.geo(), &cfg, g.pos(), max_depth.clamp(1, 10_000))));
    let seconds = t.elapsed().as_secs_f64();
    Ok(solution.map(|s| (s.winner, s.plies, s.line, s.positions, seconds)))
}

#[pymodule]
mod _core {
    #[pymodule_export]
    use super::{ai_choose, play_match, simulate, solve, NativeGame, NativeVecEnv};
}
