"""Rule options: the two axes (opening, burst) and the two named presets (RULES.md §2)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from colorwars import _core
from colorwars.errors import InvalidRulesError, show

__all__ = ["BURSTS", "OPENINGS", "PRESETS", "GameConfig", "Rules", "RulesLike"]

Opening = Literal["drop3", "none"]
Burst = Literal["empty", "subtract"]
# One table of names, the core's (src/rules.rs); its parser gives the messages too.
OPENINGS: tuple[str, ...] = tuple(_core.OPENINGS)
BURSTS: tuple[str, ...] = tuple(_core.BURSTS)


@dataclass(frozen=True, slots=True)
class Rules:
    """A rule set: ``opening`` is ``"drop3"`` (first move: three orbs on an empty cell, then
    one orb on an own cell) or ``"none"`` (always one orb on an empty or own cell); ``burst`` is
    ``"empty"`` (a burst empties the cell) or ``"subtract"`` (it removes the critical mass)."""

    opening: str = "drop3"
    burst: str = "empty"

    def __post_init__(self) -> None:
        for axis, value in (("opening", self.opening), ("burst", self.burst)):
            if not isinstance(value, str):
                raise InvalidRulesError(
                    f"invalid rules: unknown {axis} {show(value)}; expected its name"
                )
        _core.rules_from_axes(self.opening, self.burst)

    @staticmethod
    def parse(name: str) -> Rules:
        """A preset name (``"colorwars"``, ``"classic"``) or ``"OPENING+BURST"``."""
        if not isinstance(name, str):
            raise InvalidRulesError(f"invalid rules: expected a name or Rules, got {show(name)}")
        return Rules(*_core.parse_rules(name))

    @property
    def name(self) -> str:
        """The preset's name where this is one, else ``OPENING+BURST``."""
        for name, rules in PRESETS.items():
            if rules == self:
                return name
        return f"{self.opening}+{self.burst}"

    def __str__(self) -> str:
        return self.name


PRESETS: dict[str, Rules] = {
    name: Rules(opening, burst) for name, (opening, burst) in _core.RULE_PRESETS.items()
}

RulesLike = str | Rules


class _Default(str):
    """The default rule set's name, told apart from the same name given: a call that takes a
    size or a game (``solve``, ``prove``) plays a game's own rules when ``rules`` is left out,
    and refuses other rules given with it."""

    __slots__ = ()


DEFAULT_RULES: RulesLike = _Default("colorwars")


def resolve(rules: RulesLike) -> Rules:
    """Turns a name or a ``Rules`` into a ``Rules``. Names given as arguments (``rules=``,
    ``--rules``) are read without regard to case or spaces around them and the ``+``
    (``"Classic"``, ``" DROP3 + Empty"``); the position notation keeps the exact names
    (``Rules.parse``)."""
    if isinstance(rules, Rules):
        return rules
    try:
        return Rules.parse(rules)
    except InvalidRulesError as exact:
        if not isinstance(rules, str):
            raise
        folded = re.sub(r"\s*\+\s*", "+", rules.strip().lower())
        if folded == rules:
            raise
        try:
            return Rules.parse(folded)
        except InvalidRulesError:
            raise exact from None


@dataclass(frozen=True, slots=True)
class GameConfig:
    """A checked game configuration (built by ``colorwars._validate.config``): what the
    native engine reads to set up a game, a simulation or a batch of environments."""

    width: int
    height: int
    players: int
    rules: Rules
    first: int = 0

    @property
    def cells(self) -> int:
        return self.width * self.height

    @property
    def opening(self) -> str:
        return self.rules.opening

    @property
    def burst(self) -> str:
        return self.rules.burst
