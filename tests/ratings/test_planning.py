"""The planned interval width: known answers of the formula, and its prediction against the
intervals the fit reports on simulated duplicate round robins (within 20%)."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from arena.ratings.fit import ELO_PER_LOGIT, Z95, fit_ratings
from arena.ratings.planning import (
    DEFAULT_ASSUMPTIONS,
    MAX_GAMES,
    IntervalAssumptions,
    expected_half_width,
    games_for_half_width,
    measure_assumptions,
)
from tests.ratings.helpers import duplicate_pair, evenly_spread, simulate


def reported_half_width(true_elo: dict[str, float], pairs: int, tournaments: int,
                        rng: random.Random, antithetic: float) -> float:
    """The mean 95% half-width the fit reports for the entrants but the anchor 'e0'."""
    widths = []
    for _ in range(tournaments):
        fit = fit_ratings(simulate(true_elo, pairs, rng, antithetic), anchor="e0")
        widths += [fit.interval(k) for k in true_elo if k != "e0" and fit.is_estimate(k)]
    return statistics.mean(widths)


def test_two_entrants_get_the_binomial_interval_of_their_games():
    # Many independent games between two entrants of equal strength: the logit's variance is
    # 1 / (games p (1 - p)), the leverage correction vanishing.
    games = 10_000
    expected = Z95 * ELO_PER_LOGIT * math.sqrt(1.0 / (games * 0.25))
    assert expected_half_width(2, games) == pytest.approx(expected, rel=1e-3)


def test_a_mean_centred_rating_is_narrower_than_an_anchored_one():
    anchored = expected_half_width(30, 10)
    centred = expected_half_width(30, 10, anchored=False)
    assert centred == pytest.approx(anchored * math.sqrt(29 / 60), rel=1e-9)


def test_four_times_the_games_halve_the_width_in_a_large_field():
    assert expected_half_width(100, 400) == pytest.approx(expected_half_width(100, 100) / 2,
                                                          rel=1e-3)


def test_a_smaller_pair_factor_narrows_the_interval_down_to_the_floor():
    duplicate = IntervalAssumptions(pair_factor=0.25)
    assert expected_half_width(30, 10, duplicate) < expected_half_width(30, 10)
    # Pairs that always split would claim certainty: the variance is floored at a tenth of
    # the model's (a pair factor of 1 - h cancels the jackknife's 1 / (1 - h), h = 4 / 300).
    at_floor = expected_half_width(30, 10, IntervalAssumptions(pair_factor=0.0))
    model = expected_half_width(30, 10, IntervalAssumptions(pair_factor=1 - 4 / 300))
    assert at_floor == pytest.approx(math.sqrt(0.1) * model, rel=1e-9)


@pytest.mark.parametrize("entrants, width", [(30, 50.0), (30, 25.0), (5, 100.0), (200, 10.0)])
def test_games_for_a_width_are_the_fewest_whole_pairs_that_reach_it(entrants, width):
    games = games_for_half_width(entrants, width)
    assert games is not None and games % 2 == 0
    assert expected_half_width(entrants, games) <= width
    assert games == 2 or expected_half_width(entrants, games - 2) > width


def test_a_width_out_of_reach_is_none():
    assert games_for_half_width(2, 0.01) is None


def test_a_width_reached_exactly_is_reached_and_the_limit_is_max_games():
    # The half-width of exactly 40 games (20 pairs) needs 40 games, anchored or not (a
    # centred field's intervals are narrower, so it needs fewer games for the same width).
    assert games_for_half_width(30, expected_half_width(30, 40)) == 40
    centred = expected_half_width(30, 40, anchored=False)
    assert games_for_half_width(30, centred, anchored=False) == 40
    assert games_for_half_width(30, centred) == 84
    assert type(games_for_half_width(30, 50.0)) is int
    # MAX_GAMES games is the most it answers; two games more are out of reach.
    assert games_for_half_width(2, expected_half_width(2, MAX_GAMES)) == MAX_GAMES
    assert games_for_half_width(2, expected_half_width(2, MAX_GAMES + 2)) is None


@pytest.mark.parametrize("width", [0.0, -1.0])
def test_a_half_width_must_be_positive(width):
    with pytest.raises(ValueError, match="^a half-width must be positive$"):
        games_for_half_width(30, width)


def test_nothing_to_plan_below_two_entrants():
    with pytest.raises(ValueError):
        expected_half_width(1, 10)


@pytest.mark.parametrize("entrants, pairs", [(6, 4), (12, 2)])
def test_the_prediction_at_equal_strengths_matches_the_fit_within_a_fifth(entrants, pairs):
    # Independent deals (antithetic 0): what the default assumptions say.
    equal = {f"e{k}": 0.0 for k in range(entrants)}
    reported = reported_half_width(equal, pairs, 30, random.Random(entrants), antithetic=0.0)
    predicted = expected_half_width(entrants, 2 * pairs)
    assert predicted == pytest.approx(reported, rel=0.2)


@pytest.mark.parametrize("entrants, pairs, antithetic, spread",
                         [(8, 4, 0.7, 300.0), (12, 3, 0.7, 0.0)])
def test_assumptions_measured_on_one_tournament_predict_another_within_a_fifth(
        entrants, pairs, antithetic, spread):
    field = evenly_spread(entrants, spread) if spread else {f"e{k}": 0.0
                                                            for k in range(entrants)}
    rng = random.Random(100 + entrants)
    # measured on a longer tournament, so that the measurement's own noise stays small
    measured = measure_assumptions(simulate(field, 8 * pairs, rng, antithetic))
    assert measured.measured and measured.pair_factor < 0.9  # the deals' help is seen
    reported = reported_half_width(field, pairs, 30, rng, antithetic)
    assert expected_half_width(entrants, 2 * pairs, measured) == pytest.approx(reported,
                                                                               rel=0.2)
    assert expected_half_width(entrants, 2 * pairs) > reported  # the defaults: no such help


def test_pairs_that_always_split_measure_a_pair_factor_of_zero():
    games = [g for k in range(20) for g in duplicate_pair(f"p{k}", "a", "b", True, False)]
    measured = measure_assumptions(games)
    assert (measured.win_variance, measured.pair_factor, measured.pairs) == (0.25, 0.0, 20)


def test_pairs_that_alternate_sweeps_measure_twice_the_independent_variance():
    games = [g for k in range(20) for g in duplicate_pair(f"p{k}", "a", "b", k % 2 == 0,
                                                          k % 2 == 0)]
    measured = measure_assumptions(games)
    s2 = 20 / 19  # W alternates 2, 0: squared deviations of 1 about the mean 1
    variance = 0.25 + s2 / 80
    assert measured.win_variance == pytest.approx(variance)
    assert measured.pair_factor == pytest.approx(s2 / (2 * variance))


def test_too_few_pairs_keep_the_defaults():
    games = [g for k in range(5) for g in duplicate_pair(f"p{k}", "a", "b", True, False)]
    assert measure_assumptions(games) == DEFAULT_ASSUMPTIONS
    assert "equal strengths" in DEFAULT_ASSUMPTIONS.describe()
