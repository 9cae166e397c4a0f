"""The native batch paths on big boards against the reference engine: ``simulate`` and
``VectorEnv`` on 17 x 16 (272 cells, the smallest board in the native engine's largest storage,
16 words of 64 bits) and 32 x 32 (1024 cells, the largest board of RULES.md §1).

The other tests of ``simulate`` and ``VectorEnv`` use boards of at most 81 cells (two words),
and the differential tests cover ``colorwars.Game`` only; the simulation loop and the vector
environment have their own move generation and cascade code paths, checked here."""

from __future__ import annotations

from typing import Any

import colorwars
import numpy as np
import numpy.typing as npt
import pytest
from colorwars import reference


def replay(moves: list[int], width: int, height: int, players: int, rules: str) -> Any:
    """A reference game fed `moves`; each must be legal when played (RULES.md §2)."""
    g = reference.Game(width, height, players, rules)
    for m in moves:
        assert g.winner is None, "a move after the game was won (RULES.md §3.6)"
        g.play(m)
    return g


# (width, height, rules, players, seats, games, max_plies). The reference engine replays
# about two thousand moves a second on 32 x 32, and a random game there lasts about 2100 moves
# under `classic` and 3500 to 5000 under `colorwars` (where the `empty` burst destroys orbs),
# so all but one of the `colorwars` games on 32 x 32 are cut off by `max_plies`.
SIMULATIONS = [
    (17, 16, "colorwars", 2, "random", 4, None),
    (17, 16, "colorwars", 4, ["greedy", "random", "random", "greedy"], 3, None),
    (17, 16, "classic", 2, ["random", "greedy"], 4, None),
    (17, 16, "classic", 3, "random", 4, None),
    (32, 32, "classic", 2, "random", 2, None),
    (32, 32, "classic", 3, ["greedy", "random", "random"], 1, None),
    (32, 32, "colorwars", 5, "random", 1, None),
    (32, 32, "colorwars", 2, "random", 3, 700),
    (32, 32, "colorwars", 3, ["random", "greedy", "random"], 2, 700),
]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("width", "height", "rules", "players", "seats", "games", "max_plies"),
    SIMULATIONS,
    ids=lambda v: "-".join(v) if isinstance(v, list) else str(v),
)
def test_simulated_games_replay_on_the_reference_engine(
    width: int,
    height: int,
    rules: str,
    players: int,
    seats: str | list[str],
    games: int,
    max_plies: int | None,
) -> None:
    """Every recorded game replays move by move through the reference engine to the same
    winner (RULES.md §3.6: the last player holding orbs) after the same number of moves, with
    the same waves (§3.1); a game cut off by `max_plies` is still undecided there."""
    r = colorwars.simulate(
        games=games, width=width, height=height, players=players, rules=rules,
        seats=seats, seed=11, max_plies=max_plies, record=True,
    )  # fmt: skip
    for i in range(games):
        moves = r.moves(i)
        assert len(moves) == r.plies[i]
        assert moves[0] == r.first_moves[i]
        g = replay(moves, width, height, players, rules)
        assert g.ply == r.plies[i]
        if r.winners[i] == -1:
            assert max_plies is not None
            assert r.plies[i] == max_plies
            assert g.winner is None
        else:
            assert g.winner == r.winners[i]
            assert g.out == sorted(set(range(players)) - {g.winner})
    if max_plies is None:
        assert (r.winners >= 0).all()


def test_simulated_waves_match_the_reference_engine() -> None:
    """The wave counts of a full 17 x 16 game: the cascades of every move, wave by wave
    (RULES.md §3.1), counted by the simulation loop and by the reference engine."""
    r = colorwars.simulate(
        games=2, width=17, height=16, players=3, rules="colorwars", seats="greedy", seed=4,
        record=True,
    )  # fmt: skip
    for i in range(2):
        g = reference.Game(17, 16, 3, "colorwars")
        waves, longest = 0, 0
        for m in r.moves(i):
            g.play(m)
            waves += len(g.waves())
            longest = max(longest, len(g.waves()))
        assert g.winner == r.winners[i]
        assert (waves, longest) == (r.waves[i], r.longest_cascade[i])
        assert longest > 10  # long cascades, across many of the board's words


def planes(g: Any) -> npt.NDArray[np.uint8]:
    """The observation `VectorEnv` documents: plane k holds the orb counts of player
    (to_move + k) % players, so plane 0 is the player to move."""
    counts = np.array(g.counts(), dtype=np.uint8).reshape(g.height, g.width)
    owners = np.array(g.owners()).reshape(g.height, g.width)
    return np.stack(
        [np.where(owners == (g.to_move + k) % g.players, counts, 0) for k in range(g.players)]
    ).astype(np.uint8)


# (width, height, rules, players, num_envs, steps, max_plies): enough steps for every
# environment to finish a game and start the next (random `classic` games on 17 x 16 last
# 530 to 570 moves, on 32 x 32 2100 to 2200; `colorwars` ones on 17 x 16 600 to 900),
# or a `max_plies` that cuts them off, twice.
ENVS = [
    (17, 16, "classic", 2, 6, 620, None),
    (17, 16, "colorwars", 3, 3, 950, None),
    (32, 32, "classic", 2, 2, 2260, None),
    (32, 32, "colorwars", 4, 4, 330, 150),
]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("width", "height", "rules", "players", "num_envs", "steps", "max_plies"), ENVS
)
def test_vector_env_matches_reference_games(
    width: int,
    height: int,
    rules: str,
    players: int,
    num_envs: int,
    steps: int,
    max_plies: int | None,
) -> None:
    """Each environment, stepped with `sample_legal()`, against a reference game fed the same
    actions: the observation planes, the action mask (the legal moves of RULES.md §2), the
    player to move (§1, §3.6), termination with the winner and its reward (§3.6), truncation at
    `max_plies`, the finished episode's last observation, and the same-step auto-reset to the
    empty board."""
    env = colorwars.VectorEnv(
        num_envs=num_envs, width=width, height=height, players=players, rules=rules,
        max_plies=max_plies,
    )  # fmt: skip
    obs, info = env.reset(seed=7)
    games = [reference.Game(width, height, players, rules) for _ in range(num_envs)]
    ended = {"terminated": 0, "truncated": 0}
    for _ in range(steps):
        actions = env.sample_legal().copy()
        obs, rewards, terminated, truncated, info = env.step(actions)
        assert not info["illegal"].any()
        for i, g in enumerate(games):
            mover = g.to_move
            g.play(int(actions[i]))  # raises if the sampled action is not legal
            seat = info["seat_rewards"][i]
            if g.winner is not None:
                ended["terminated"] += 1
                assert terminated[i]
                assert not truncated[i]
                assert info["winner"][i] == g.winner == mover  # only the mover can win
                assert info["episode_plies"][i] == g.ply
                assert rewards[i] == 1.0
                assert seat[mover] == 1.0
                assert np.allclose(np.delete(seat, mover), -1.0 / (players - 1))
            elif max_plies is not None and g.ply == max_plies:
                ended["truncated"] += 1
                assert truncated[i]
                assert not terminated[i]
                assert info["winner"][i] == -1
                assert info["episode_plies"][i] == max_plies
                assert rewards[i] == 0.0
                assert not seat.any()
            else:
                assert not terminated[i]
                assert not truncated[i]
                assert info["winner"][i] == -1
                assert info["episode_plies"][i] == 0
                assert rewards[i] == 0.0
                assert not seat.any()
            if terminated[i] or truncated[i]:
                # After the win the winner is the player to move (RULES.md §3.6), so plane 0
                # of the last observation is the winner's.
                assert np.array_equal(info["final_obs"][i], planes(g))
                games[i] = g = reference.Game(width, height, players, rules)
            assert info["to_move"][i] == g.to_move
            assert np.flatnonzero(info["action_mask"][i]).tolist() == g.legal_moves()
            assert np.array_equal(obs[i], planes(g))
    if max_plies is None:
        assert ended["terminated"] >= num_envs  # every environment finished a game
    else:
        assert ended["truncated"] >= 2 * num_envs
