"""``colorwars serve``: the game in a browser (needs the ``web`` extra:
``pip install 'colorwars[web]'``).

``create_app()`` is the ASGI application (Starlette): the page at ``/`` (plain HTML, CSS and
JavaScript from this package, nothing from elsewhere) and the JSON API under ``/api/`` that the
page uses and that works on its own; ``serve(host, port)`` runs it with uvicorn until Ctrl-C,
its games kept in SQLite (``db.py``), and ``with serving() as url:`` runs it in a background
thread for a block. Online games (a token per seat, moves pushed as Server-Sent Events) are in
``online.py``. See docs/web.md for the API.

>>> from colorwars.web import GameStore
>>> store = GameStore()
>>> live = store.create({"width": 3, "height": 3, "seats": ["human", "human"]})
>>> live.play("b2")["position"]
'3x3 colorwars 2 .../.3a./... b a - 1'
"""

from __future__ import annotations

from colorwars.web.app import create_app, serve, serving
from colorwars.web.db import GameDB
from colorwars.web.store import GameStore, LiveGame

__all__ = ["GameDB", "GameStore", "LiveGame", "create_app", "serve", "serving"]
