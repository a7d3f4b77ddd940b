"""Pair-clustered intervals: the sandwich agrees with the pair bootstrap, sees the duplicate
correlation, and never claims certainty (coverage itself: test_coverage.py)."""

from __future__ import annotations

import math
import random

import pytest

from arena.ratings.fit import bootstrap_ratings, fit_ratings
from tests.ratings.helpers import duplicate_pair, simulate

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


def test_all_split_pairs_do_not_claim_certainty():
    # Every pair split: the estimate is 0 and every pair's residual is 0, so the plain
    # sandwich was exactly +-0.0; the floor keeps a tenth of the independent-games variance.
    results = [g for k in range(8) for g in duplicate_pair(f"p{k}", "x", "y", True, False)]
    fit = fit_ratings(results, anchor="y")
    assert fit.elo["x"] == pytest.approx(0.0, abs=1e-9)
    model = math.sqrt(fit.model_covariance[fit.entrants.index("x")][fit.entrants.index("x")])
    assert fit.interval("x") == pytest.approx(1.959963984540054 * math.sqrt(0.1) * model)
    assert fit.interval("x") > 50.0


def test_one_decisive_pair_among_many_splits_weighs_less_as_splits_grow():
    # "N splits plus one pair won twice" gave LOS 84% whatever N was.
    def los(splits: int) -> float:
        results = duplicate_pair("w", "x", "y", True, True)
        for k in range(splits):
            results += duplicate_pair(f"s{k}", "x", "y", True, False)
        return fit_ratings(results, anchor="y").los("x", "y")

    assert los(60) < los(20) - 0.04 and los(200) < 0.7
