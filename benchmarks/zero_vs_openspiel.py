"""Zero against OpenSpiel's MCTSBot at an equal time a move (issue 22's report).

    python benchmarks/zero_vs_openspiel.py [--time 0.1] [--games 40] [--size 5x5]
        [--rules colorwars]

OpenSpiel's bot is ``open_spiel.python.algorithms.mcts.MCTSBot`` with random rollouts (uct_c
2, solve=True), on ``python_colorwars`` (colorwars' OpenSpiel adapter, the native engine
underneath). MCTSBot takes a number of simulations, not a time: before each move its budget
is set to what fitted in ``--time`` on its previous move (starting from a calibration at the
opening), so both sides think about the same time. Half the games each side moves first.
Writes benchmarks/results/zero_openspiel.json.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _results import write_results
from colorwars.ai import Zero
from colorwars.statistics import wilson_interval

try:
    import colorwars.openspiel
    import pyspiel
    from open_spiel.python.algorithms import mcts
except ImportError as e:  # pragma: no cover - a message, not a traceback
    raise SystemExit(f"needs OpenSpiel: pip install 'colorwars[openspiel]' ({e})") from e


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--time", type=float, default=0.1)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--size", default="5x5")
    parser.add_argument("--rules", default="colorwars")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="4 games at 0.02 s")
    args = parser.parse_args()
    seconds, games = (0.02, 4) if args.quick else (args.time, args.games)
    w, h = (int(x) for x in args.size.split("x"))
    assert colorwars.openspiel is not None
    game = pyspiel.load_game(
        "python_colorwars", {"width": w, "height": h, "players": 2, "rules": args.rules}
    )
    zero_won = 0
    sims_used: list[int] = []
    zero_sims: list[int] = []
    for g in range(games):
        rng = np.random.RandomState(args.seed + g)
        budget = 50
        bot = mcts.MCTSBot(game, 2.0, budget, mcts.RandomRolloutEvaluator(1, rng), solve=True,
                           random_state=rng)  # fmt: skip
        zero = Zero(time=seconds, seed=g)
        state = game.new_initial_state()
        zero_seat = g % 2
        while not state.is_terminal():
            if state.current_player() == zero_seat:
                d = zero.search(state.to_game())
                zero_sims.append(d.work)
                state.apply_action(d.cell)
            else:
                bot.max_simulations = budget
                t = time.perf_counter()
                root = bot.mcts_search(state)
                took = time.perf_counter() - t
                sims_used.append(budget)
                state.apply_action(int(root.best_child().action))
                budget = max(2, int(budget * seconds / max(took, 1e-6)))
        returns = state.returns()
        zero_won += returns[zero_seat] > 0
        print(f"game {g + 1}: zero {'won' if returns[zero_seat] > 0 else 'lost'} as "
              f"{'first' if zero_seat == 0 else 'second'}", flush=True)  # fmt: skip
    lo, hi = wilson_interval(zero_won, games)
    os_sims = float(np.mean(sims_used)) if sims_used else 0.0
    z_sims = float(np.mean(zero_sims)) if zero_sims else 0.0
    print(f"\n{w}x{h} {args.rules}, {seconds:g} s a move: Zero won {zero_won}/{games} = "
          f"{zero_won / games:.1%} (95% {lo:.1%} - {hi:.1%}) against OpenSpiel's MCTSBot; "
          f"simulations a move: Zero {z_sims:,.0f}, MCTSBot {os_sims:,.0f}")  # fmt: skip
    write_results("zero_openspiel", {
        "time": seconds, "games": games, "board": f"{w}x{h} {args.rules}", "won": zero_won,
        "score": zero_won / games, "low": lo, "high": hi, "zero_simulations": z_sims,
        "openspiel_simulations": os_sims,
    }, args.quick)  # fmt: skip


if __name__ == "__main__":
    main()
