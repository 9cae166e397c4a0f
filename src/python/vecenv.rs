//! `NativeVecEnv`: a batch of environments writing into numpy buffers the Python layer owns.

use super::*;

pub(super) fn illegal_mode(name: &str) -> PyResult<Illegal> {
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
pub(super) struct EnvBuffers {
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
pub(super) struct NativeVecEnv {
    env: AnyVecEnv,
    pool: rayon::ThreadPool,
    /// The pool's size as asked (0: one per core) and the process it was started in: a
    /// forked child has none of the parent's threads, so it starts a pool of its own.
    threads: usize,
    pid: u32,
    /// The actions a call works on, copied out of (or drawn before going into) the arrays
    /// Python can touch; kept between calls so that a step allocates nothing.
    scratch: Vec<i64>,
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
pub(super) fn buffer_shape(name: &str, array: &Bound<'_, PyAny>, shape: &[usize]) -> PyResult<()> {
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
pub(super) fn own_buffer<'py, T: numpy::Element, D: numpy::ndarray::Dimension>(
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
            scratch: {
                let mut v = Vec::new();
                v.try_reserve_exact(num_envs)
                    .map_err(|_| Error::OutOfMemory("the environments' actions".into()))?;
                v.resize(num_envs, 0);
                v
            },
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
        {
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
            if slice.len() != n {
                return Err(PyErr::from(Error::InvalidMove(format!(
                    "{} actions for {n} environments: give one per environment",
                    slice.len()
                ))));
            }
            self.scratch.copy_from_slice(slice);
        }
        let (env, pool, mode, actions) = (&mut self.env, &self.pool, self.illegal, &self.scratch);
        // A number that is no cell is a caller's error under either mode (a policy head of the
        // wrong size), never a move that merely loses.
        let cells = env.cfg().cells() as i64;
        if let Some((i, &a)) = actions
            .iter()
            .enumerate()
            .find(|(_, a)| !(0..cells).contains(*a))
        {
            return Err(Error::InvalidMove(format!(
                "environment {i}: action {a} is not a cell of the board (cells are 0 to {}); no \
                 environment was changed",
                cells - 1
            ))
            .into());
        }
        if mode == Illegal::Raise {
            if let Some((i, a)) = py.detach(|| pool.install(|| env.find_illegal(actions))) {
                let cells = env.cfg().cells() as i64;
                // As for a single game: a number that is no cell is an invalid move, a cell
                // the player may not play an illegal one.
                return Err(if (0..cells).contains(&a) {
                    let reason = format!(
                        "environment {i}: {}; no environment was changed",
                        env.illegal_reason(i)
                    );
                    Error::illegal_move(a as usize, env.cfg().width, reason)
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
        let (env, pool, drawn) = (&mut self.env, &self.pool, &mut self.scratch);
        py.detach(|| pool.install(|| env.sample_legal(drawn)));
        let arr = self.actions.bind(py).clone();
        {
            let mut out = own_buffer(&arr, "actions")?;
            let slice = out
                .as_slice_mut()
                .map_err(|_| ConfigError::new_err("the actions buffer is not contiguous"))?;
            slice.copy_from_slice(&self.scratch);
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
