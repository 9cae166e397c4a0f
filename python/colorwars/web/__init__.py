"""``colorwars serve``: the game in a browser (needs the ``web`` extra:
``pip install 'colorwars[web]'``).

``create_app()`` is the ASGI application (Starlette): the page at ``/`` (plain HTML, CSS and
JavaScript from this package, nothing from elsewhere) and the JSON API under ``/api/`` that the
page uses and that works on its own; ``serve(host, port)`` runs it with uvicorn until Ctrl-C,
and ``with serving() as url:`` runs it in a background thread for a block. See the README's
"Web app" for the API.

>>> from colorwars.web import GameStore
>>> store = GameStore()
>>> live = store.create({"width": 3, "height": 3, "seats": ["human", "human"]})
>>> live.play("b2")["position"]
'3x3 colorwars 2 .../.3a./... b a - 1'
"""

from __future__ import annotations

from colorwars.web.app import create_app, serve, serving
from colorwars.web.store import GameStore, LiveGame

__all__ = ["GameStore", "LiveGame", "create_app", "serve", "serving"]
