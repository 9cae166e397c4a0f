"""A search told to stop while it runs (tests/test_engine.py, tests/test_perfect.py)."""

from __future__ import annotations

import threading
from typing import Any

import pytest


def search_stopped(search: Any, game: Any, after: float, within: float, what: str) -> Any:
    """Runs ``search(game, stop=flag)`` on a thread, sets the flag ``after`` seconds, and
    returns the search's result; fails the test (naming ``what``) if the search is still
    running ``within`` seconds later."""
    stop = threading.Event()
    found: list[Any] = []
    thread = threading.Thread(target=lambda: found.append(search(game, stop=stop)), daemon=True)
    thread.start()
    threading.Timer(after, stop.set).start()
    thread.join(timeout=within)
    if thread.is_alive() or not found:
        pytest.fail(f"stop did not end {what}", pytrace=False)
    return found[0]
