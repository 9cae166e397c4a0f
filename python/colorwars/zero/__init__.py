"""The learned player's parts: the network and its numpy inference
(``colorwars.zero.network``), the shipped networks (``shipped``), and the training pipeline
(``train``, the ``train`` extra). The player itself is ``colorwars.ai.Zero``."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from colorwars.errors import InvalidRulesError
from colorwars.rules import RulesLike, resolve
from colorwars.zero.network import SHIPPED, Network, load, random_network

if TYPE_CHECKING:
    from colorwars.zero.training import RunSettings

__all__ = ["SHIPPED", "Network", "RunSettings", "load", "random_network", "shipped", "train"]

_CACHE: dict[str, Network] = {}


def shipped(rules: RulesLike) -> Network:
    """The network shipped for ``rules`` (``"colorwars"`` or ``"classic"``, named as
    ``rules=`` is everywhere, or a ``Rules``), loaded once; ``InvalidRulesError`` for other
    rules."""
    name = resolve(rules).name
    if name not in ("colorwars", "classic"):
        raise InvalidRulesError(
            f"invalid rules: no network is shipped for the rules {name} (there are networks "
            "for colorwars and classic)"
        )
    rules = name
    if rules not in _CACHE:
        _CACHE[rules] = load(SHIPPED / f"{rules}.net")
    return _CACHE[rules]


def train(folder: str | os.PathLike[str], settings: Any = None, **kw: Any) -> Network:
    """``colorwars.zero.training.train``: see there (needs the ``train`` extra)."""
    from colorwars.zero.training import train as _train

    return _train(folder, settings, **kw)


def __getattr__(name: str) -> Any:
    if name == "RunSettings":
        from colorwars.zero.training import RunSettings

        return RunSettings
    raise AttributeError(f"module 'colorwars.zero' has no attribute {name!r}")
