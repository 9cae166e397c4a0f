"""`colorwars.views`: the arrays the ecosystem adapters show agree with `VectorEnv`'s."""

from __future__ import annotations

import colorwars
import numpy as np
import pytest
from colorwars import views


@pytest.mark.parametrize(
    ("width", "height", "players", "rules"),
    [(5, 5, 2, "colorwars"), (4, 3, 3, "classic"), (9, 8, 4, "drop3+subtract")],
)
def test_planes_and_mask_match_the_vector_env(
    width: int, height: int, players: int, rules: str
) -> None:
    env = colorwars.VectorEnv(num_envs=1, width=width, height=height, players=players, rules=rules)
    obs, info = env.reset(seed=3)
    game = colorwars.Game(width, height, players, rules)
    for _ in range(300):
        assert np.array_equal(views.planes(game), obs[0])
        assert np.array_equal(views.action_mask(game), info["action_mask"][0].astype(np.int8))
        action = env.sample_legal().copy()
        obs, _, terminated, _, info = env.step(action)
        game.play(int(action[0]))
        if terminated[0]:
            assert np.array_equal(views.planes(game), info["final_obs"][0])
            assert views.action_mask(game).sum() == 0  # nothing to play once won
            game = colorwars.Game(width, height, players, rules)


def test_rgb_array_shows_owners_in_their_colours() -> None:
    g = colorwars.Game.from_text("3x2 colorwars 2 3a../..3b a ab - 2")
    image = views.rgb_array(g, px=10)
    assert image.shape == (20, 30, 3)
    assert image.dtype == np.uint8
    red, blue, empty = image[5, 1], image[15, 21], image[5, 15]
    assert red[0] > red[2]
    assert blue[2] > blue[0]
    assert (empty == 244).all()


def test_the_views_given_no_game_say_so() -> None:
    # It was an AttributeError from inside ("'NoneType' object has no attribute 'players'").
    for view in (views.planes, views.action_mask, views.rgb_array):
        for thing in (None, "3x3", [0, 1]):
            with pytest.raises(colorwars.NotAGameError, match=f"views.{view.__name__} shows"):
                view(thing)
    with pytest.raises(colorwars.ConfigError, match="invalid px 0"):
        views.rgb_array(colorwars.Game(3, 3), px=0)
