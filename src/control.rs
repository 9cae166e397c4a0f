//! Progress and cancellation for long native work (simulations, matches, searches).
//!
//! Long work takes a `&Control`: it counts finished units in `done` (and a proof's check the
//! positions it walked in `walked`) and polls `cancelled()` often enough to stop within a
//! fraction of a second. `watch` runs such work on its own
//! thread while the caller's thread wakes at an interval to report progress or to notice that
//! the work must stop (the Python binding checks Ctrl-C there); no Python is involved here.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::time::{Duration, Instant};

use crate::error::Error;

/// Shared between long work and whoever watches it.
#[derive(Debug, Default)]
pub struct Control {
    done: AtomicU64,
    walked: AtomicU64,
    cancel: AtomicBool,
}

impl Control {
    pub fn new() -> Self {
        Control::default()
    }

    /// True once the work should stop (it then returns what it has, marked incomplete).
    #[inline]
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// Counts `n` more finished units (games, simulations).
    #[inline]
    pub fn add_done(&self, n: u64) {
        self.done.fetch_add(n, Ordering::Relaxed);
    }

    pub fn done(&self) -> u64 {
        self.done.load(Ordering::Relaxed)
    }

    /// Counts `n` more positions walked by a proof's check (not searched: kept apart so that
    /// progress can say which the work is doing).
    #[inline]
    pub fn add_walked(&self, n: u64) {
        self.walked.fetch_add(n, Ordering::Relaxed);
    }

    pub fn walked(&self) -> u64 {
        self.walked.load(Ordering::Relaxed)
    }
}

/// What `watch` returns: the work's output, the first error the watcher's `tick` returned
/// (the work was then cancelled), the work's seconds and its final `done` and `walked`
/// counts.
#[derive(Debug)]
pub struct Watched<T, E> {
    pub out: T,
    pub failure: Option<E>,
    pub seconds: f64,
    pub done: u64,
    pub walked: u64,
}

/// Runs `work` on a thread of its own while the calling thread wakes every `interval` to call
/// `tick(done, walked)`; an error from `tick` cancels the work, which stops at its next poll of
/// `Control::cancelled`. A thread that cannot be started is `Error::OutOfMemory`.
pub fn watch<T, E, W, F>(interval: Duration, work: W, mut tick: F) -> Result<Watched<T, E>, Error>
where
    T: Send,
    W: FnOnce(&Control) -> T + Send,
    F: FnMut(u64, u64) -> Result<(), E>,
{
    let control = Control::new();
    let mut failure = None;
    let (out, seconds) = std::thread::scope(|scope| {
        let (finished, wait) = channel::<()>();
        let control = &control;
        let worker = std::thread::Builder::new()
            .spawn_scoped(scope, move || {
                let start = Instant::now();
                let out = work(control);
                drop(finished); // wakes the loop below at once
                (out, start.elapsed().as_secs_f64())
            })
            .map_err(|e| Error::OutOfMemory(format!("a thread for the work ({e})")))?;
        while let Err(RecvTimeoutError::Timeout) = wait.recv_timeout(interval) {
            if failure.is_none() {
                if let Err(e) = tick(control.done(), control.walked()) {
                    control.cancel();
                    failure = Some(e);
                }
            }
        }
        match worker.join() {
            Ok(result) => Ok(result),
            // The work panicked: re-raise it here, where the caller's unwinding handles it.
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })?;
    Ok(Watched {
        out,
        failure,
        seconds,
        done: control.done(),
        walked: control.walked(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tick_error_cancels_the_work() {
        let w = watch(
            Duration::from_millis(1),
            |c: &Control| {
                let mut n = 0u64;
                while !c.cancelled() {
                    n += 1;
                    c.add_done(1);
                    std::thread::yield_now();
                }
                n
            },
            |done, _| if done > 10 { Err("stop") } else { Ok(()) },
        )
        .unwrap();
        assert!(w.out > 10);
        assert_eq!(w.failure, Some("stop"));
        assert!(w.done > 10);
    }

    #[test]
    fn work_that_ends_is_returned() {
        let w = watch(
            Duration::from_secs(10),
            |c: &Control| {
                c.add_done(3);
                c.add_walked(2);
                7
            },
            |_, _| Err::<(), ()>(()),
        )
        .unwrap();
        assert_eq!((w.out, w.failure, w.done, w.walked), (7, None, 3, 2));
    }
}
