"""Pair-clustered intervals: the sandwich agrees with the pair bootstrap and covers at 95%."""

from __future__ import annotations

import math
import random

import pytest

from arena.ratings.fit import bootstrap_ratings, fit_ratings
from tests.ratings.helpers import simulate

TRUE = {"random": 0.0, "a": 100.0, "b": 150.0, "c": 250.0}


def test_sandwich_and_pair_bootstrap_agree():
    results = simulate(TRUE, 40, random.Random(11))
    fit = fit_ratings(results, anchor="random")
    boot = bootstrap_ratings(results, anchor="random", replicates=400, seed=3)
    for e in ("a", "b", "c"):
        assert boot.stderr[e] == pytest.approx(fit.stderr(e), rel=0.15)
        assert boot.low[e] < fit.elo[e] < boot.high[e]


def test_duplicate_pairs_narrow_the_interval_below_the_independent_games_one():
    # Splits are common when both games share the deals: the pair-clustered variance is
    # smaller than the one that treats the games as independent.
    fit = fit_ratings(simulate(TRUE, 40, random.Random(12), antithetic=0.9), anchor="random")
    for k, e in enumerate(fit.entrants):
        if e != "random":
            assert fit.covariance[k][k] < 0.8 * fit.model_covariance[k][k]


def coverage(tournaments: int, pairs_per_matchup: int, seed: int) -> tuple[float, float]:
    """Coverage of the true ratings by (pair-clustered, independent-games) 95% intervals."""
    rng = random.Random(seed)
    hits = naive = total = 0
    for _ in range(tournaments):
        fit = fit_ratings(simulate(TRUE, pairs_per_matchup, rng), anchor="random")
        for e in ("a", "b", "c"):
            k = fit.entrants.index(e)
            error = abs(fit.elo[e] - TRUE[e])
            hits += error <= fit.interval(e)
            naive += error <= 1.959963984540054 * math.sqrt(fit.model_covariance[k][k])
            total += 1
    return hits / total, naive / total


@pytest.mark.slow
def test_sandwich_intervals_cover_95_percent_on_simulated_duplicate_tournaments():
    # 1000 tournaments of 4 entrants, 50 pairs per matchup: 3000 intervals, so the binomial
    # standard error of the coverage is 0.4 points. Treating the games as independent
    # over-covers: duplicate deals cancel luck, which only the pair clustering sees.
    clustered, independent = coverage(1000, 50, seed=2024)
    assert clustered == pytest.approx(0.95, abs=0.015)
    assert independent > 0.97
