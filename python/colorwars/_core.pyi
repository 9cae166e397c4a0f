"""The native engine (Rust). Use ``colorwars.Game``; this module is its storage and hot loops."""

import os
from collections.abc import Callable, Sequence
from typing import Any, Protocol, final

import numpy as np
import numpy.typing as npt

class _Config(Protocol):
    """What the engine reads of ``colorwars.rules.GameConfig``."""

    @property
    def width(self) -> int: ...
    @property
    def height(self) -> int: ...
    @property
    def players(self) -> int: ...
    @property
    def opening(self) -> str: ...
    @property
    def burst(self) -> str: ...
    @property
    def first(self) -> int: ...

class _Stop(Protocol):
    """What a stoppable search asks: ``threading.Event`` has it."""

    def is_set(self) -> bool: ...

class _Player(Protocol):
    """What the engine reads of ``colorwars.players.NativeSpec``."""

    @property
    def kind(self) -> str: ...
    @property
    def simulations(self) -> int: ...
    @property
    def depth(self) -> int: ...
    @property
    def seconds(self) -> float | None: ...
    @property
    def c(self) -> float: ...
    @property
    def trees(self) -> int: ...
    @property
    def greedy(self) -> float: ...
    @property
    def eval(self) -> str: ...
    @property
    def weights(self) -> Sequence[int]: ...

__all__ = [
    "BURSTS",
    "LIMITS",
    "OPENINGS",
    "RULE_PRESETS",
    "VERSION",
    "NativeGame",
    "NativeNet",
    "NativePuct",
    "NativeVecEnv",
    "ProofTable",
    "ai_analyse",
    "ai_choose",
    "alphabeta_net",
    "evaluation_features",
    "exact_length",
    "parse_rules",
    "play_match",
    "play_matches",
    "probe",
    "prove",
    "proven_move",
    "rules_from_axes",
    "simulate",
    "solve",
    "solve_position",
    "symmetric_moves",
]

#: Every limit on what a caller may ask (``src/limits.rs``): ``min_side``, ``max_side``,
#: ``min_players``, ``max_players``, ``max_threads``, ``max_seconds``, ``max_alphabeta_depth``,
#: ``max_solver_depth``, ``max_cutoff``, ``max_cells``, ``max_simulations``, ``max_c``,
#: ``max_games``, ``max_envs``, ``max_plies``, ``max_length_bound``.
LIMITS: dict[str, int | float]
#: The package's version (from ``Cargo.toml``, the one place it is written).
VERSION: str
#: The rule presets (name -> (opening, burst)), the openings and the bursts (``src/rules.rs``).
RULE_PRESETS: dict[str, tuple[str, str]]
OPENINGS: list[str]
BURSTS: list[str]

def parse_rules(text: str) -> tuple[str, str]: ...
def rules_from_axes(opening: str, burst: str) -> tuple[str, str]: ...

@final
class NativeGame:
    def __new__(cls, config: _Config) -> NativeGame: ...
    @staticmethod
    def from_text(text: str) -> NativeGame: ...
    def to_text(self) -> str: ...
    def copy(self) -> NativeGame: ...
    @property
    def width(self) -> int: ...
    @property
    def height(self) -> int: ...
    @property
    def players(self) -> int: ...
    @property
    def opening(self) -> str: ...
    @property
    def burst(self) -> str: ...
    @property
    def to_move(self) -> int: ...
    @property
    def winner(self) -> int | None: ...
    @property
    def ply(self) -> int: ...
    @property
    def moved(self) -> list[int]: ...
    @property
    def out(self) -> list[int]: ...
    def legal_moves(self) -> list[int]: ...
    def legal_count(self) -> int: ...
    def is_legal(self, cell: int) -> bool: ...
    def play(self, cell: int) -> int: ...
    def check(self, cell: int) -> int: ...
    def pop(self) -> int: ...
    def moves(self) -> list[int]: ...
    def counts(self) -> list[int]: ...
    def owners(self) -> list[int]: ...
    def orbs(self, player: int) -> int: ...
    def waves(self) -> list[tuple[list[int], list[int], list[int]]]: ...
    def parse_cell(self, name: str) -> int: ...
    def cell_name(self, cell: int) -> str: ...

def simulate(
    config: _Config,
    playouts: Sequence[str],
    seed: int,
    games: int,
    start: int = 0,
    threads: int = 0,
    max_plies: int | None = None,
    record: bool = False,
    progress: Callable[[int], object] | None = None,
    interval: float = 0.1,
) -> dict[str, Any]: ...

@final
class NativeVecEnv:
    def __new__(
        cls,
        config: _Config,
        num_envs: int,
        max_plies: int | None,
        threads: int,
        illegal: str,
        buffers: Any,
    ) -> NativeVecEnv: ...
    @property
    def num_envs(self) -> int: ...
    @property
    def obs(self) -> npt.NDArray[np.uint8]: ...
    @property
    def mask(self) -> npt.NDArray[np.uint8]: ...
    @property
    def to_move(self) -> npt.NDArray[np.int8]: ...
    @property
    def rewards(self) -> npt.NDArray[np.float32]: ...
    @property
    def seat_rewards(self) -> npt.NDArray[np.float32]: ...
    @property
    def terminated(self) -> npt.NDArray[np.uint8]: ...
    @property
    def truncated(self) -> npt.NDArray[np.uint8]: ...
    @property
    def winner(self) -> npt.NDArray[np.int8]: ...
    @property
    def episode_plies(self) -> npt.NDArray[np.uint32]: ...
    @property
    def illegal_actions(self) -> npt.NDArray[np.uint8]: ...
    @property
    def actions(self) -> npt.NDArray[np.int64]: ...
    @property
    def final_obs(self) -> npt.NDArray[np.uint8]: ...
    def reset(self, seed: int | None) -> None: ...
    def step(self, actions: npt.NDArray[np.int64]) -> None: ...
    def sample_legal(self) -> npt.NDArray[np.int64]: ...
    def snapshot(self, i: int) -> tuple[list[int], list[int], int, int]: ...

def ai_choose(
    game: NativeGame, player: _Player, seed: int, stop: _Stop | None = None
) -> tuple[int, int]: ...
def evaluation_features(game: NativeGame) -> list[int]: ...
def ai_analyse(
    game: NativeGame, player: _Player, seed: int, stop: _Stop | None = None
) -> tuple[list[tuple[int, int, float]], int]: ...
def play_match(
    config: _Config,
    seats: Sequence[_Player],
    games: int,
    seed: int,
    first_move: int | None = None,
    max_plies: int | None = None,
    threads: int = 0,
    start: int = 0,
    record: bool = False,
    progress: Callable[[int], object] | None = None,
    interval: float = 0.1,
) -> dict[str, Any]: ...

class _Match(Protocol):
    """What the engine reads of ``colorwars.ai.MatchJob``."""

    @property
    def seats(self) -> Sequence[_Player]: ...
    @property
    def games(self) -> int: ...
    @property
    def seed(self) -> int: ...
    @property
    def first_move(self) -> int | None: ...

def play_matches(
    config: _Config,
    matches: Sequence[_Match],
    max_plies: int | None = None,
    threads: int = 0,
    progress: Callable[[int], object] | None = None,
    interval: float = 0.1,
) -> list[dict[str, Any]]: ...
def solve(
    config: _Config,
    max_depth: int = 200,
    progress: Callable[[int], object] | None = None,
    interval: float = 0.1,
) -> tuple[int, int, list[int], int, float] | None: ...
def solve_position(
    game: NativeGame,
    max_depth: int = 200,
    moves: bool = True,
    progress: Callable[[int], object] | None = None,
    interval: float = 0.1,
    table_bits: int | None = None,
) -> tuple[int, int, list[int], int, float, list[tuple[int, int, int]]] | None: ...

@final
class ProofTable:
    def __new__(cls, memory: int, huge_pages: bool | None = None) -> ProofTable: ...
    @property
    def capacity(self) -> int: ...
    @property
    def filled(self) -> int: ...
    def proofs(self, min_work: int = 1) -> bytes: ...
    def add_proofs(self, data: bytes) -> int: ...

def prove(
    game: NativeGame,
    table: ProofTable,
    seconds: float | None = None,
    progress: Callable[..., object] | None = None,
    interval: float = 0.5,
    verify: bool = False,
    threads: int = 1,
    positions: int | None = None,
    stop: Any = None,
    first: int | None = None,
) -> tuple[int | None, list[int], int, float, int | None, bool]: ...
def probe(
    game: NativeGame,
    table: ProofTable,
    positions: int,
    threshold: int,
    seconds: float | None = None,
    stop: Any = None,
) -> tuple[int | None, int, bool]: ...
def proven_move(game: NativeGame, table: ProofTable) -> int | None: ...
def exact_length(
    game: NativeGame,
    memory: int,
    seconds: float | None = None,
    winner: int | None = None,
    max_plies: int = ...,
    start: int | None = None,
    verify: bool = False,
    progress: Callable[..., object] | None = None,
    interval: float = 0.5,
    checkpoint: str | os.PathLike[str] | None = None,
    save_every: float = 1800.0,
    huge_pages: bool | None = None,
) -> tuple[
    int | None,
    int | None,
    list[int],
    int,
    float,
    bool,
    bool,
    int,
    int | None,
    tuple[int, int] | None,
    bool,
    tuple[int, float],
]: ...
def alphabeta_net(
    game: NativeGame,
    net: NativeNet,
    depth: int,
    seconds: float | None = None,
    scale: float = 1000.0,
    stop: Any = None,
) -> tuple[int, int, int]: ...
def symmetric_moves(game: NativeGame) -> list[list[int]]: ...

@final
class NativePuct:
    def __new__(
        cls,
        config: _Config,
        trees: int,
        simulations: int,
        c_puct: float,
        dirichlet: float,
        dirichlet_weight: float,
        seed: int,
    ) -> NativePuct: ...
    @staticmethod
    def memory_bound(config: _Config, trees: int, simulations: int) -> int: ...
    @property
    def trees(self) -> int: ...
    @property
    def pending(self) -> int: ...
    def set_root(self, i: int, game: NativeGame, stream: int) -> None: ...
    def advance(self, i: int, cell: int) -> int | None: ...
    def stop(self, i: int) -> None: ...
    def finished(self) -> list[int]: ...
    def select(
        self, k: int
    ) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8], npt.NDArray[np.int64]]: ...
    def expand(self, logits: npt.NDArray[np.float32], values: npt.NDArray[np.float32]) -> None: ...
    def abandon(self) -> None: ...
    def visits(self, i: int) -> npt.NDArray[np.float32]: ...
    def policy(self, i: int) -> npt.NDArray[np.float32]: ...
    def best(self, i: int) -> int | None: ...
    def pick(self, i: int, temperature: float) -> int | None: ...
    def stats(
        self, i: int
    ) -> tuple[list[tuple[int, int, float | None, float, bool | None]], int]: ...
    def observe(self, i: int) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8], int]: ...
    def search_native(
        self, net: NativeNet, k: int, seconds: float | None = None, stop: Any = None
    ) -> int: ...

@final
class NativeNet:
    def __new__(
        cls, channels: int, blocks: int, hidden: int, params: dict[str, npt.NDArray[np.float32]]
    ) -> NativeNet: ...
    def forward(
        self, planes: npt.NDArray[np.uint8]
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]: ...
