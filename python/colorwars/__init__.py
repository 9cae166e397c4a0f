"""colorwars: the fast, exact engine for the chain-reaction game Color Wars / Chain Reaction.

>>> import colorwars
>>> g = colorwars.Game(width=5, height=5, players=2, rules="colorwars")
>>> g.play("c3")
12
>>> g.to_text()
'5x5 colorwars 2 ...../...../..3a../...../..... b a - 1'
"""

from __future__ import annotations

from colorwars import _core, ai, players, reference
from colorwars._common import Move, Wave
from colorwars.env import VectorEnv
from colorwars.errors import (
    BackendError,
    ColorwarsError,
    ConfigError,
    EngineError,
    FileError,
    GameOverError,
    IllegalMoveError,
    InvalidEvaluatorError,
    InvalidIndexError,
    InvalidMoveError,
    InvalidPlayerError,
    InvalidPlayersError,
    InvalidPolicyError,
    InvalidPositionError,
    InvalidProofError,
    InvalidRecordError,
    InvalidRulesError,
    InvalidSizeError,
    MissingExtraError,
    NotAGameError,
    SearchLimitError,
    ShardError,
)
from colorwars.game import Game
from colorwars.length import Length, exact_length
from colorwars.proof import Proof, prove
from colorwars.record import GameRecord
from colorwars.rules import PRESETS, Rules
from colorwars.simulation import SimulationResult, simulate
from colorwars.solver import Solution, solve

__version__: str = _core.VERSION

__all__ = [
    "PRESETS",
    "BackendError",
    "ColorwarsError",
    "ConfigError",
    "EngineError",
    "FileError",
    "Game",
    "GameOverError",
    "GameRecord",
    "IllegalMoveError",
    "InvalidEvaluatorError",
    "InvalidIndexError",
    "InvalidMoveError",
    "InvalidPlayerError",
    "InvalidPlayersError",
    "InvalidPolicyError",
    "InvalidPositionError",
    "InvalidProofError",
    "InvalidRecordError",
    "InvalidRulesError",
    "InvalidSizeError",
    "Length",
    "MissingExtraError",
    "Move",
    "NotAGameError",
    "Proof",
    "Rules",
    "SearchLimitError",
    "ShardError",
    "SimulationResult",
    "Solution",
    "VectorEnv",
    "Wave",
    "ai",
    "exact_length",
    "players",
    "prove",
    "reference",
    "simulate",
    "solve",
]
