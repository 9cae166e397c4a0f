"""Online play, without HTTP: the seats' tokens, the push channel's hub, the rate limit.

- **Tokens.** An online game gives each human seat a token (``secrets.token_urlsafe``, 32
  random bytes); the store keeps only their digests (``store.token_digest``). A request that
  changes an online game carries ``Authorization: Bearer TOKEN``, and only the seat to move
  may move (403 otherwise, the game unchanged).
- **The hub.** Every browser showing a game listens to ``GET /api/games/{id}/events``
  (Server-Sent Events); each change of the game (a move and its waves, an undo, its deletion)
  is put on each listener's queue at once. Each event carries the whole state, so a listener
  that missed some (a full queue, a reconnection) is right again with the next one.
- **Bounds.** At most ``MAX_STREAMS`` listeners in all and ``MAX_STREAMS_PER_CLIENT`` of one
  client (503 beyond); requests on online games are rate-limited per client (a token bucket of
  ``RATE_BURST`` requests refilled at ``RATE_PER_SECOND``; 429 beyond).

>>> limit = RateLimit(per_second=1.0, burst=2)
>>> [limit.allow("10.0.0.7", now=0.0) for _ in range(3)], limit.allow("10.0.0.7", now=1.0)
([True, True, False], True)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from typing import Any

from colorwars.web.store import RequestError

__all__ = [
    "KEEPALIVE_SECONDS",
    "MAX_STREAMS",
    "MAX_STREAMS_PER_CLIENT",
    "RATE_BURST",
    "RATE_PER_SECOND",
    "Hub",
    "Listener",
    "RateLimit",
]

MAX_STREAMS = 200
MAX_STREAMS_PER_CLIENT = 20
RATE_PER_SECOND = 10.0
RATE_BURST = 60
KEEPALIVE_SECONDS = 15.0
MAX_CLIENTS = 10_000  # the clients whose buckets are remembered
QUEUE = 64  # events waiting for one listener; beyond, the oldest is dropped


class RateLimit:
    """A token bucket per client: ``burst`` requests at once, ``per_second`` after that."""

    def __init__(self, per_second: float = RATE_PER_SECOND, burst: int = RATE_BURST) -> None:
        self.per_second, self.burst = per_second, burst
        self._buckets: dict[str, tuple[float, float]] = {}  # client: (tokens, when)
        self._lock = threading.Lock()

    def allow(self, client: str, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        with self._lock:
            tokens, when = self._buckets.pop(client, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - when) * self.per_second)
            allowed = tokens >= 1.0
            # Reinserted: the buckets are in the order of their last use, the oldest first.
            self._buckets[client] = (tokens - 1.0 if allowed else tokens, now)
            if len(self._buckets) > MAX_CLIENTS:
                self._forget(now)
            return allowed

    def _forget(self, now: float) -> None:
        """Forgets the buckets full by now (they are the default), then the least recently
        used, down to half the bound (so that this runs once in many requests)."""
        full = float(self.burst)
        for c, (t, w) in list(self._buckets.items()):
            if min(full, t + (now - w) * self.per_second) >= full:
                del self._buckets[c]
        while len(self._buckets) > MAX_CLIENTS // 2:
            del self._buckets[next(iter(self._buckets))]

    def check(self, client: str) -> None:
        if not self.allow(client):
            raise RequestError(
                429,
                "TooManyRequests",
                f"more than {self.burst} requests at once or {self.per_second:g} a second from "
                "this client; slow down",
            )


class Hub:
    """The listeners of each game's events (see the module's docstring). Used on the event
    loop's thread only."""

    def __init__(self, total: int = MAX_STREAMS, per_client: int = MAX_STREAMS_PER_CLIENT) -> None:
        self.total, self.per_client = total, per_client
        self._queues: dict[str, set[asyncio.Queue[str | None]]] = {}
        self._held: Counter[str] = Counter()
        self._closed = False

    def __len__(self) -> int:
        return sum(self._held.values())

    def open(self) -> None:
        self._closed = False

    def close(self) -> None:
        """Ends every stream (the server is stopping)."""
        self._closed = True
        for queues in self._queues.values():
            for q in queues:
                q.put_nowait(None) if not q.full() else _replace(q, None)

    def publish(self, game_id: str, kind: str, data: dict[str, Any]) -> None:
        """Sends an event to every listener of the game."""
        text = _event(kind, data)
        for q in self._queues.get(game_id, ()):
            if q.full():
                _replace(q, text)
            else:
                q.put_nowait(text)

    def stream(self, game_id: str, client: str, first: dict[str, Any]) -> Listener:
        """A listener's events: ``first`` (the state now), then every change until the game is
        deleted or the server stops; comments keep the connection alive. Refused (503) beyond
        the bounds."""
        if self._closed:
            raise RequestError(503, "ShuttingDown", "the server is shutting down")
        if self._held[client] >= self.per_client:
            raise RequestError(
                503,
                "TooManyStreams",
                f"this client already listens to {self.per_client} event streams, the most "
                "one client may",
            )
        if len(self) >= self.total:
            raise RequestError(
                503, "TooManyStreams", f"the server has {self.total} event streams open, the most"
            )
        q: asyncio.Queue[str | None] = asyncio.Queue(QUEUE)
        self._queues.setdefault(game_id, set()).add(q)
        self._held[client] += 1
        q.put_nowait(_event("state", first))
        return Listener(self._events(q), lambda: self._release(game_id, client, q))

    def _release(self, game_id: str, client: str, q: asyncio.Queue[str | None]) -> None:
        queues = self._queues.get(game_id)
        if queues is None or q not in queues:
            return  # released already
        queues.discard(q)
        if not queues:
            del self._queues[game_id]
        self._held[client] -= 1
        if self._held[client] <= 0:
            del self._held[client]

    async def _events(self, q: asyncio.Queue[str | None]) -> AsyncIterator[str]:
        yield "retry: 1000\n\n"
        while True:
            try:
                text = await asyncio.wait_for(q.get(), KEEPALIVE_SECONDS)
            except TimeoutError:
                yield ": keepalive\n\n"
                continue
            if text is None:
                return
            yield text
            if "\nevent: deleted\n" in text:
                return


class Listener:
    """One listener's events (``Hub.stream``): iterate them; ``close()`` releases its place in
    the hub's bounds, whether or not its first event was read (a generator never started runs
    no ``finally``), and again at the end of the events."""

    def __init__(self, events: AsyncIterator[str], release: Callable[[], None]) -> None:
        self._events, self._release = events, release

    def __aiter__(self) -> Listener:
        return self

    async def __anext__(self) -> str:
        try:
            return await self._events.__anext__()
        except BaseException:  # the end, its client gone (cancelled), or the server stopping
            self._release()
            raise

    def close(self) -> None:
        self._release()


def _event(kind: str, data: dict[str, Any]) -> str:
    """One Server-Sent Event: its id the game's ply, its data the JSON on one line."""
    body = json.dumps(data, separators=(",", ":"))
    return f"id: {data.get('ply', '')}\nevent: {kind}\ndata: {body}\n\n"


def _replace(q: asyncio.Queue[str | None], item: str | None) -> None:
    """Drops the oldest waiting event for ``item`` (every event carries the whole state)."""
    with contextlib.suppress(asyncio.QueueEmpty):
        q.get_nowait()
    q.put_nowait(item)
