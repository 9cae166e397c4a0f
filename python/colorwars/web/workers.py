"""Blocking work off the web app's event loop. A ``Pool`` runs it in threads, at most
``workers`` at once; a request beyond them waits, at most ``wait_seconds``, and at most
``per_client`` requests of one client and ``total`` in all are running or waiting. Any
request beyond a bound is refused at once (503 with our JSON error), so a full pool never
holds up anyone for longer than its bound.

The app has two pools (``app.py``): AI searches, and replays (a new game from a record, a
history page), so that a request that needs no AI never waits for one. The bounds are in
``store.py``.

The threads are daemon threads of our own, not anyio's: a native search cannot be stopped from
another thread (it notices only Ctrl-C, in the main thread), so ``close()`` (the server shutting
down) answers every waiting and running request at once and abandons the running searches, and
a daemon thread does not hold up the process's exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from colorwars.web.store import RequestError

__all__ = ["Pool", "shutting_down"]

T = TypeVar("T")


@dataclass(eq=False)
class _Job:
    client: str
    work: Callable[[], Any]
    loop: asyncio.AbstractEventLoop
    started: asyncio.Future[None]  # set when a thread takes it
    done: asyncio.Future[Any]  # its result or error


def _settle(future: asyncio.Future[Any], result: object, error: Exception | None) -> None:
    if future.done():  # cancelled: nobody waits for it any more
        return
    if error is None:
        future.set_result(result)
    else:
        future.set_exception(error)


def _post(
    job: _Job, future: asyncio.Future[Any], result: object = None, error: Exception | None = None
) -> None:
    """Settles a job's future from any thread, on the job's event loop (once it has closed,
    nobody is left to answer)."""
    with contextlib.suppress(RuntimeError):
        job.loop.call_soon_threadsafe(_settle, future, result, error)


def shutting_down() -> RequestError:
    """The answer to a request the server cannot carry out because it is stopping."""
    return RequestError(503, "ShuttingDown", "the server is shutting down; nothing was done")


class Pool:
    """Threads for one kind of blocking work, within bounds (see the module's docstring).
    ``kind`` names the work in messages (``"AI"``) and ``busy`` is the error type of a
    refusal (``"AIBusy"``)."""

    def __init__(
        self,
        kind: str,
        busy: str,
        workers: int,
        per_client: int,
        total: int,
        wait_seconds: float,
    ) -> None:
        self.kind, self.busy = kind, busy
        self.workers, self.per_client, self.total = workers, per_client, total
        self.wait_seconds = wait_seconds
        self._lock = threading.Lock()
        self._running: set[_Job] = set()
        self._waiting: deque[_Job] = deque()
        self._held: Counter[str] = Counter()  # running or waiting jobs, by client
        self._closed = False

    def open(self) -> None:
        """Takes work again (a server starting)."""
        with self._lock:
            self._closed = False

    def close(self) -> None:
        """Refuses new work and answers every request waiting for a thread or for a running
        job's end with 503 (``ShuttingDown``); the running jobs are abandoned."""
        with self._lock:
            self._closed = True
            waiting, running = list(self._waiting), list(self._running)
            self._waiting.clear()
            for job in waiting:
                self._release(job)
        for job in waiting:
            _post(job, job.started, error=shutting_down())
        for job in running:
            _post(job, job.done, error=shutting_down())

    def _refuse(self, why: str) -> RequestError:
        return RequestError(503, self.busy, why)

    async def run(self, client: str, fn: Callable[..., T], *args: object) -> T:
        """``fn(*args)`` in one of the pool's threads, for ``client``; its result or error.
        Refused (``RequestError``, 503) beyond a bound or once the pool is closed."""
        loop = asyncio.get_running_loop()
        job = _Job(client, partial(fn, *args), loop, loop.create_future(), loop.create_future())
        with self._lock:
            if self._closed:
                raise shutting_down()
            if self._held[client] >= self.per_client:
                raise self._refuse(
                    f"this client already has {self.per_client} {self.kind} requests running "
                    "or waiting, the most one client may; try again once one is answered"
                )
            if len(self._running) + len(self._waiting) >= self.total:
                raise self._refuse(
                    f"the server has {self.total} {self.kind} requests running or waiting in "
                    "all, the most it takes; try again soon"
                )
            self._held[client] += 1
            start = len(self._running) < self.workers
            if start:
                self._running.add(job)
            else:
                self._waiting.append(job)
        if start:
            job.started.set_result(None)
            threading.Thread(
                target=self._work, args=(job,), name=f"colorwars {self.kind}", daemon=True
            ).start()
        try:
            await asyncio.wait_for(asyncio.shield(job.started), self.wait_seconds)
        except TimeoutError:
            if self._withdraw(job):
                raise self._refuse(
                    f"no {self.kind} thread was free within {self.wait_seconds:g} s (the "
                    f"server runs {self.workers} at once); try again soon"
                ) from None
            # A thread took it just as the wait ended: go on.
        except BaseException:
            self._withdraw(job)  # refused by close(), or cancelled
            raise
        result: T = await job.done
        return result

    def _withdraw(self, job: _Job) -> bool:
        """Takes a job that no thread has started off the queue (True), else False."""
        with self._lock:
            if job not in self._waiting:
                return False
            self._waiting.remove(job)
            self._release(job)
            return True

    def _release(self, job: _Job) -> None:
        """One job fewer for its client (under the lock)."""
        self._held[job.client] -= 1
        if self._held[job.client] <= 0:
            del self._held[job.client]

    def _work(self, job: _Job | None) -> None:
        """A thread's life: the job it was started for, then each waiting job in turn."""
        while job is not None:
            error: Exception | None = None
            try:
                result = job.work()
            except Exception as e:  # the request's error (a bad move, a full memory...)
                result, error = None, e
            with self._lock:  # released before the answer, so the client may ask again at once
                self._running.discard(job)
                self._release(job)
                after = self._waiting.popleft() if self._waiting and not self._closed else None
                if after is not None:
                    self._running.add(after)
            _post(job, job.done, result, error)
            if after is not None:
                _post(after, after.started)
            job = after
