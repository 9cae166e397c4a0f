"""Statistics for win rates: Wilson score intervals and Bradley-Terry (Elo) ratings."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

__all__ = ["elo_ratings", "wilson_interval"]


def wilson_interval(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% for z = 1.96); (0, 1) with no trials."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def elo_ratings(wins: npt.NDArray[np.float64], games: npt.NDArray[np.float64]) -> list[float]:
    """Elo ratings from a win matrix (``wins[i, j]``: games i won against j, out of
    ``games[i, j]``) by a Bradley-Terry fit (minorisation-maximisation), centred on 0.
    A player who never lost or never won is kept finite by half a win / loss of prior."""
    n = wins.shape[0]
    w = wins + 0.5 * (games > 0)  # a small prior keeps perfect records finite
    g = games + 1.0 * (games > 0)
    strength = np.ones(n)
    for _ in range(2000):
        total = w.sum(axis=1)
        denom = np.array(
            [
                sum(g[i, j] / (strength[i] + strength[j]) for j in range(n) if j != i)
                for i in range(n)
            ]
        )
        new = np.where(denom > 0, total / np.maximum(denom, 1e-300), strength)
        new /= math.exp(np.log(new).mean())
        if np.allclose(new, strength, rtol=1e-10, atol=0):
            strength = new
            break
        strength = new
    elo = 400 * np.log10(strength)
    return [float(x) for x in elo - elo.mean()]
