"""OpenSpiel's MCTS against colorwars' MCTS on 5x5 colorwars, at the same number of simulations
per move, and each one's simulations per second. Needs ``pip install 'colorwars[openspiel]'``.

    python benchmarks/bench_openspiel.py                                # about 12 min, 2 cores
    python benchmarks/bench_openspiel.py --games 20 --simulations 200   # a quick look

Settings (printed again by the script):

- OpenSpiel: ``open_spiel.python.algorithms.mcts.MCTSBot(game, uct_c=2, max_simulations=N,
  evaluator=RandomRolloutEvaluator(n_rollouts=1), solve=True)``, the settings of OpenSpiel's
  own example (``open_spiel/python/examples/mcts.py``), on ``python_colorwars`` from
  ``colorwars.openspiel`` (the native engine under OpenSpiel's Python game API).
- colorwars: ``colorwars.ai.MCTS(simulations=N)`` with its defaults (``c=0.5``, greedy
  playouts, MCTS-Solver, implicit minimax backups with weight 0.3, transpositions), and a
  second match with ``greedy=0.0``: random playouts, as OpenSpiel's evaluator.
- Each match: ``--games`` games (default 100), OpenSpiel's bot first in the even games and
  second in the odd ones; game ``i`` seeds both players with ``seed + i``, so a run is
  reproducible whatever ``--processes``. Win rate of OpenSpiel's bot with a 95% Wilson interval.
- Speed: simulations / seconds of search over every move of each side, and on a fixed
  mid-game position in one process. OpenSpiel's bot counts its root visits (MCTS-Solver stops
  early once the root is proven); colorwars' MCTS reports its simulations (``Decision.work``).
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor
from importlib import metadata
from typing import Any, NamedTuple

import colorwars
import numpy as np
from colorwars import ai
from colorwars.statistics import wilson_interval

try:
    import colorwars.openspiel
    import pyspiel
    from open_spiel.python.algorithms import mcts
except ImportError as e:  # pragma: no cover - a message, not a traceback
    raise SystemExit(f"needs OpenSpiel: pip install 'colorwars[openspiel]' ({e})") from e

PARAMS = {"width": 5, "height": 5, "players": 2, "rules": "colorwars"}
UCT_C = 2.0


class Result(NamedTuple):
    """One game: did OpenSpiel's bot win, its plies, and each side's search work and time."""

    openspiel_won: bool
    draw: bool
    plies: int
    openspiel_simulations: int
    openspiel_seconds: float
    colorwars_simulations: int
    colorwars_seconds: float


def openspiel_bot(game: Any, simulations: int, seed: int) -> Any:
    rng = np.random.RandomState(seed)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    return mcts.MCTSBot(game, UCT_C, simulations, evaluator, solve=True, random_state=rng)


def openspiel_move(bot: Any, state: Any) -> tuple[int, int, float]:
    """The bot's move (as ``MCTSBot.step``), its simulations and its seconds."""
    start = time.perf_counter()
    root = bot.mcts_search(state)
    seconds = time.perf_counter() - start
    return int(root.best_child().action), int(root.explore_count), seconds


def play(job: tuple[int, int, float, int]) -> Result:
    """Game `index` of a match: OpenSpiel's bot first when `index` is even."""
    index, simulations, greedy, seed = job
    game = pyspiel.load_game("python_colorwars", PARAMS)
    bot = openspiel_bot(game, simulations, seed + index)
    ours = ai.MCTS(simulations=simulations, greedy=greedy, seed=seed + index)
    openspiel_seat = index % 2
    state = game.new_initial_state()
    work = [0, 0]
    seconds = [0.0, 0.0]
    while not state.is_terminal():
        if state.current_player() == openspiel_seat:
            action, n, s = openspiel_move(bot, state)
            side = 0
        else:
            d = ours.search(state.to_game())
            action, n, s = d.cell, d.work, d.seconds
            side = 1
        work[side] += n
        seconds[side] += s
        state.apply_action(action)
    returns = state.returns()
    return Result(
        openspiel_won=returns[openspiel_seat] > 0,
        draw=max(returns) == 0,  # cut off at max_game_length; never seen on 5x5
        plies=len(state.history()),
        openspiel_simulations=work[0],
        openspiel_seconds=seconds[0],
        colorwars_simulations=work[1],
        colorwars_seconds=seconds[1],
    )


def match(
    label: str, games: int, simulations: int, greedy: float, seed: int, processes: int
) -> None:
    jobs = [(i, simulations, greedy, seed) for i in range(games)]
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=processes) as pool:
        results = list(pool.map(play, jobs))
    wall = time.perf_counter() - start
    won = sum(r.openspiel_won for r in results)
    lo, hi = wilson_interval(won, games)
    first = [r for i, r in enumerate(results) if i % 2 == 0]
    second = [r for i, r in enumerate(results) if i % 2 == 1]
    print(f"\nOpenSpiel MCTSBot vs {label}, {simulations} simulations per move, {games} games")
    print(f"  OpenSpiel's bot won {won}/{games} = {won / games:.1%}  (95% {lo:.1%}-{hi:.1%})")
    print(f"  as first player {sum(r.openspiel_won for r in first)}/{len(first)}, "
          f"as second {sum(r.openspiel_won for r in second)}/{len(second)}; "
          f"draws (cut off) {sum(r.draw for r in results)}; "
          f"mean length {np.mean([r.plies for r in results]):.1f} plies; {wall:.0f} s")  # fmt: skip
    os_rate = sum(r.openspiel_simulations for r in results) / sum(
        r.openspiel_seconds for r in results
    )
    cw_rate = sum(r.colorwars_simulations for r in results) / sum(
        r.colorwars_seconds for r in results
    )
    print(f"  in the games ({processes} processes): OpenSpiel MCTSBot {os_rate:,.0f} "
          f"simulations/s, colorwars MCTS {cw_rate:,.0f} simulations/s "
          f"({cw_rate / os_rate:,.0f}x)")  # fmt: skip


def mid_game(game: Any) -> Any:
    state = game.new_initial_state()
    for name in ["c3", "b2", "c3", "b2", "d4", "b3"]:
        legal = {
            state.action_to_string(state.current_player(), a): a for a in state.legal_actions()
        }
        state.apply_action(legal.get(name, state.legal_actions()[0]))
    return state


def speed(simulations: int) -> None:
    game = pyspiel.load_game("python_colorwars", PARAMS)
    state = mid_game(game)
    print(f"\nspeed on a mid-game position ({state}), one process, best of 3")
    bot = openspiel_bot(game, simulations, 0)
    os_rate = max(n / s for _, n, s in (openspiel_move(bot, state) for _ in range(3)))
    print(f"  OpenSpiel MCTSBot ({simulations} simulations, random rollouts): "
          f"{os_rate:,.0f} simulations/s")  # fmt: skip
    g = state.to_game()
    for greedy, what in ((1.0, "greedy playouts"), (0.0, "random playouts")):
        player = ai.MCTS(simulations=max(simulations, 20_000), greedy=greedy)
        rate = max(d.work / d.seconds for d in (player.search(g) for _ in range(3)))
        print(f"  colorwars MCTS ({player.simulations} simulations, {what}): "
              f"{rate:,.0f} simulations/s ({rate / os_rate:,.0f}x)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=100, help="games per match (default 100)")
    parser.add_argument("--simulations", type=int, default=1000, help="per move, both sides")
    parser.add_argument("--processes", type=int, default=2, help="games played in parallel")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"5x5 colorwars (python_colorwars {PARAMS}), colorwars {colorwars.__version__}, "
          f"OpenSpiel {metadata.version('open_spiel')}")  # fmt: skip
    print(f"OpenSpiel: MCTSBot(uct_c={UCT_C}, max_simulations={args.simulations}, "
          "RandomRolloutEvaluator(n_rollouts=1), solve=True)")  # fmt: skip
    print(f"colorwars: ai.MCTS(simulations={args.simulations}, greedy=1.0 | 0.0), otherwise "
          "its defaults (c=0.5, solver, minimax=0.3)")  # fmt: skip
    speed(args.simulations)
    for greedy, label in ((1.0, "colorwars MCTS (greedy playouts, its default)"),
                          (0.0, "colorwars MCTS (random playouts)")):  # fmt: skip
        match(label, args.games, args.simulations, greedy, args.seed, args.processes)


if __name__ == "__main__":
    main()
