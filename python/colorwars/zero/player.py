"""``colorwars.ai.Zero``: PUCT search with the shipped network, all native (the tree and the
network in Rust), no training extra needed."""

from __future__ import annotations

import os
import threading
import time as _time
from typing import Any

from colorwars import _core
from colorwars import _validate as check
from colorwars.errors import ConfigError, FileError, GameOverError, InvalidPlayerError
from colorwars.players import PLAY_IT, Decision, NativeSpec, _live, native_game
from colorwars.probe import before_search
from colorwars.puct import PUCT, PuctMove, _config_of
from colorwars.zero.network import Network, load

__all__ = ["MAX_SIDE", "Zero", "ZeroAlphaBeta"]

MAX_SIDE = 12
"""The longest board side Zero plays (the shipped networks are trained on sides 3 to 10; a
fully convolutional network reads any size, and 11 and 12 are still close to what it saw)."""

PROBE = 100_000
"""Zero's endgame probe by default: positions of proof-number search before each search
(``colorwars.probe``); benchmarks/ai_accuracy.py measured what it gains."""


class Zero:
    """The learned player: ``PUCT`` with the network shipped for the game's rules
    (``colorwars`` or ``classic``; ``colorwars.zero.shipped``), or with ``network`` (a
    ``colorwars.zero.Network`` or the path of a ``.net`` file) where given. ``simulations``
    per move, or ``time`` seconds (whichever ends first when both are given); ``batch``
    leaves per network call (virtual loss spreads them); ``temperature`` 0 plays the most
    visited move. With ``time`` alone the simulations are capped only by the tree's memory
    (``_time_cap``, and on each board at what a tree in a quarter of this machine's memory
    holds: a long think ends early rather than asking for more memory than there is).
    ``probe`` positions of proof-number search come first each move
    (``colorwars.probe``: a proven win is played at once; 0 turns it off; under a ``time``
    budget the probe takes at most a quarter of it and the search the rest). By default
    Zero probes ``PROBE`` positions with a budget of simulations, and not under a time
    budget (docs/learned.md, "The endgame probe", measured both). Two players, boards of
    sides 2 to ``MAX_SIDE``; anything else is an ``InvalidPlayerError`` saying what no
    network fits."""

    def __init__(
        self,
        simulations: int | None = None,
        time: float | None = None,
        seed: int = 0,
        *,
        network: Network | str | os.PathLike[str] | None = None,
        c_puct: float = 1.5,
        batch: int = 8,
        temperature: float = 0.0,
        reuse: bool = True,
        probe: int | None = None,
    ) -> None:
        self.time = check.time_budget(time)
        # None: the probe by default, with a budget of simulations only (under a time
        # budget its share of the move cost Zero more than it gained on 8 x 8 classic).
        self.probe_setting = None if probe is None else check.probe(probe)
        default = PROBE if self.time is None else 0
        self.probe: int = default if self.probe_setting is None else self.probe_setting
        # The time alone: the simulations are a cap, lowered on a board whose tree would
        # not fit (``_simulations_for``).
        self._time_only = simulations is None and self.time is not None
        if simulations is None:  # the default budget: 400, or the time alone
            simulations = 400 if self.time is None else _time_cap(self.time)
        self.simulations = check.simulations(simulations, 1)
        self.seed = check.seed(seed)
        if network is not None and not isinstance(network, Network):
            if not isinstance(network, str | os.PathLike):
                check.fail(
                    InvalidPlayerError, "network", network, "expected a Network or a .net path"
                )
            network = load(network)
        self.network: Network | None = network
        self._options = {"c_puct": c_puct, "batch": batch, "temperature": temperature,
                         "reuse": reuse}  # fmt: skip
        # Checks the settings once (PUCT refuses bad ones with InvalidPlayerError).
        PUCT(_unused, simulations=self.simulations, time=self.time, seed=self.seed,
             dirichlet_weight=0.0, **self._options)  # type: ignore[arg-type]  # fmt: skip
        self._searchers: dict[str, PUCT] = {}
        self._fitted: dict[Any, int] = {}  # board config -> simulations (``_simulations_for``)
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        """Pickled (sent to another process) with its settings and network, without its
        search trees and lock: they are rebuilt as it plays."""
        simulations = None if self._time_only else self.simulations
        return {"simulations": simulations, "time": self.time, "seed": self.seed,
                "network": self.network, "probe": self.probe_setting, **self._options}  # fmt: skip

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state)  # type: ignore[misc]

    @property
    def name(self) -> str:
        """``zero(400)`` or ``zero(0.1s)``."""
        base = f"zero({self.time:g}s)" if self.time is not None else f"zero({self.simulations})"
        default = PROBE if self.time is None else 0
        return base + ("" if self.probe == default else f"[probe={self.probe}]")

    def __repr__(self) -> str:
        return (
            f"Zero(simulations={None if self._time_only else self.simulations}, "
            f"time={self.time}, seed={self.seed}, "
            f"probe={self.probe})"
        )

    def native_spec(self) -> NativeSpec:
        raise InvalidPlayerError(
            f"invalid player: {self.name} searches with a network and is not one of the "
            "engine's batch players (random, greedy, mcts, alphabeta); " + PLAY_IT
        )

    def network_for(self, game: Any) -> Network:
        """The network Zero uses for ``game``; ``InvalidPlayerError`` where none fits."""
        native = native_game(game)
        rules = f"{native.opening}+{native.burst}"
        names = {"drop3+empty": "colorwars", "none+subtract": "classic"}
        if native.players != 2:
            raise InvalidPlayerError(
                f"invalid player: no Zero network fits a game of {native.players} players "
                "(the shipped networks play two-player games)"
            )
        if max(native.width, native.height) > MAX_SIDE:
            raise InvalidPlayerError(
                f"invalid player: no Zero network fits a {native.width}x{native.height} "
                f"board (Zero plays boards of sides 2 to {MAX_SIDE})"
            )
        if self.network is not None:
            if names.get(rules) != self.network.rules:
                raise InvalidPlayerError(
                    f"invalid player: this network was trained for {self.network.rules}, "
                    f"not {names.get(rules, rules)}"
                )
            return self.network
        if rules not in names:
            raise InvalidPlayerError(
                f"invalid player: no shipped Zero network fits the rules {rules} (there are "
                "networks for colorwars and classic)"
            )
        from colorwars.zero import shipped

        try:
            return shipped(names[rules])
        except FileError as e:
            raise ConfigError(f"the shipped network cannot be used: {e}") from None

    def _simulations_for(self, game: Any) -> int:
        """The simulations of a search of ``game``: the player's, or under a time alone at
        most what a tree in a quarter of the memory available holds on its board."""
        if not self._time_only:
            return self.simulations
        config = _config_of(native_game(game))
        simulations = self._fitted.get(config)
        if simulations is None:  # once a board: the machine's memory stays as it is
            room = check.memory_limit() // 4
            simulations = self.simulations
            while simulations > 1:
                bound = _core.NativePuct.memory_bound(config, 1, simulations)
                if bound <= room:
                    break
                simulations = max(1, int(simulations * room / bound * 0.95))
            self._fitted[config] = simulations
        return simulations

    def _searcher(self, game: Any) -> PUCT:
        net = self.network_for(game)
        simulations = self._simulations_for(game)
        searcher = self._searchers.get(net.rules)
        if searcher is None or searcher.evaluator is not net or searcher.simulations != simulations:
            searcher = PUCT(
                net, simulations=simulations, time=self.time, seed=self.seed,
                dirichlet_weight=0.0, **self._options,  # type: ignore[arg-type]
            )  # fmt: skip
            self._searchers[net.rules] = searcher
        return searcher

    def choose(self, game: Any) -> int:
        """The move Zero plays in ``game``; ``GameOverError`` once the game is won."""
        return self.search(game).cell

    def search(self, game: Any, stop: Any = None) -> Decision:
        """``choose`` with the work done (the search's simulations; the probe's positions
        when the probe proved the move) and its seconds. ``stop`` (anything with
        ``is_set()``, such as a ``threading.Event``) ends the probe and the search early
        with the best move found."""
        check.stop_flag(stop)
        start = _time.perf_counter()
        with self._lock:
            searcher = self._searcher(game)  # InvalidPlayerError before any work
            _live(game)  # GameOverError once the game is won
            left = self.time
            if self.probe:
                found, left = before_search(self.probe, game, self.time, start, stop)
                if found.cell is not None:
                    return Decision(found.cell, found.positions, _time.perf_counter() - start)
            with searcher._held():
                tree = searcher._searched(game, left, stop)
                picked = tree.pick(0, searcher.temperature)
                _, done = tree.stats(0)
        if picked is None:
            # Stopped before the root's first evaluation came back: the network's own choice.
            _, policy = self.evaluate(game)
            picked = max(policy, key=policy.__getitem__)
        return Decision(picked, done, _time.perf_counter() - start)

    def analyse(self, game: Any) -> list[PuctMove]:
        """Every legal move with the search's statistics (``PUCT.analyse``)."""
        with self._lock:
            return self._searcher(game).analyse(game)

    def evaluate(self, game: Any) -> tuple[float, dict[int, float]]:
        """The network alone on ``game``: its value for the player to move (-1 to 1) and
        its move probabilities over the legal moves."""
        import numpy as np

        from colorwars.views import planes

        net = self.network_for(game)
        logits, values = net.forward(planes(native_game(game))[None])
        legal = list(native_game(game).legal_moves())
        z = logits[0, legal] - logits[0, legal].max()
        p = np.exp(z) / np.exp(z).sum()
        return float(values[0]), {c: float(q) for c, q in zip(legal, p, strict=True)}


def _unused(planes: Any, mask: Any) -> Any:  # the evaluator of the settings check
    raise AssertionError("never called")


def _time_cap(seconds: float) -> int:
    """The simulations of a search bounded by ``seconds`` alone: more than the network
    evaluates in that time on one core (``benchmarks/bench_zero.py`` measures each shipped
    network's simulations a second; docs/learned.md gives them), few enough for the tree's
    memory check."""
    return int(min(10**7, max(20_000, seconds * 100_000)))


class ZeroAlphaBeta:
    """Alpha-beta (the engine's, iterative deepening with a transposition table) with the
    shipped network's value at the horizon instead of the hand-made evaluation: the learned
    evaluation NNUE-style, evaluated at every leaf (natively). ``depth`` plies (4 by default)
    or ``time`` seconds a move (the deepest iteration completed). The same networks and the
    same games as ``Zero``; docs/learned.md compares the two."""

    def __init__(
        self,
        depth: int | None = None,
        time: float | None = None,
        seed: int = 0,
        *,
        network: Network | str | os.PathLike[str] | None = None,
    ) -> None:
        self.time = check.time_budget(time)
        self.depth = check.depth(depth if depth is not None else 4 if self.time is None else 64)
        self.seed = check.seed(seed)
        self._zero = Zero(simulations=1, network=network)

    @property
    def name(self) -> str:
        """``zeroab(4)`` or ``zeroab(0.1s)``."""
        return f"zeroab({self.time:g}s)" if self.time is not None else f"zeroab({self.depth})"

    def native_spec(self) -> NativeSpec:
        raise InvalidPlayerError(
            f"invalid player: {self.name} searches with a network and is not one of the "
            "engine's batch players (random, greedy, mcts, alphabeta); " + PLAY_IT
        )

    def network_for(self, game: Any) -> Network:
        """The network for ``game`` (``Zero.network_for``)."""
        return self._zero.network_for(game)

    def choose(self, game: Any) -> int:
        """The move in ``game``; ``GameOverError`` once the game is won."""
        return self.search(game).cell

    def search(self, game: Any, stop: Any = None) -> Decision:
        """``choose`` with the positions searched and the seconds; ``stop`` (anything with
        ``is_set()``) ends the search early with the deepest iteration completed."""
        check.stop_flag(stop)
        start = _time.perf_counter()
        native = native_game(game)  # a colorwars.Game or reference game, else TypeError
        net = self.network_for(game)
        if native.winner is not None:
            raise GameOverError("illegal move: the game is over; no move is allowed")
        cell, _, positions = _core.alphabeta_net(
            native, net.native, self.depth, self.time, stop=stop
        )
        return Decision(int(cell), int(positions), _time.perf_counter() - start)
