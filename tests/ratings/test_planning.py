"""The planned interval width: known answers of the formula, and its prediction against the
intervals the fit reports on simulated duplicate round robins (within 20%)."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from arena.ratings.fit import GameResult, fit_ratings
from arena.ratings.model import ELO_PER_LOGIT, Z95
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


# Known answers worked by hand from the module docstring's model: anchored share 2 / n,
# centred share (n - 1) / n^2, model share / (g v), leverage h = 4 / (n g) (at most 0.99),
# variance model * max(f / (1 - h), 0.1), half-width Z95 * ELO_PER_LOGIT * sqrt(variance).
@pytest.mark.parametrize("entrants, games, win_variance, pair_factor, anchored, variance", [
    (4, 2, 0.25, 1.0, True, 2.0),        # share 1/2, model 1, h = 1/2: factor 2
    (4, 2, 0.25, 1.0, False, 0.75),      # share 3/16, model 3/8, factor 2
    (4, 2, 0.1, 1.0, True, 5.0),         # model 1/2 / (2 * 0.1) = 5/2, factor 2
    (4, 2, 0.25, 0.25, True, 0.5),       # factor 0.25 / (1/2) = 1/2
    (4, 2, 0.25, 0.04, True, 0.1),       # factor 0.08, floored at 0.1
    (8, 5, 0.25, 1.0, True, 0.2 / 0.9),  # share 1/4, model 1/5, h = 1/10
    (2, 1, 0.25, 1.0, True, 400.0),      # share 1, model 4, h = 2 capped at 0.99: factor 100
    (3, 1, 0.25, 0.5, False, 400 / 9),   # share 2/9, model 8/9, h = 4/3 capped: factor 50
])
def test_the_half_width_of_small_fields_worked_by_hand(entrants, games, win_variance,
                                                       pair_factor, anchored, variance):
    assumptions = IntervalAssumptions(win_variance, pair_factor)
    assert expected_half_width(entrants, games, assumptions, anchored) == pytest.approx(
        1.959963984540054 * 400 / math.log(10) * math.sqrt(variance), rel=1e-9)


@pytest.mark.parametrize("entrants, games", [(1, 10), (0, 10), (2, 0), (2, -1)])
def test_a_round_robin_needs_two_entrants_and_a_game(entrants, games):
    with pytest.raises(ValueError, match="^a round robin needs two entrants and a game per "
                                         "matchup$"):
        expected_half_width(entrants, games)
    assert expected_half_width(2, 1) > 0


@pytest.mark.parametrize("win_variance, pair_factor", [(0.0, 1.0), (-0.1, 1.0), (0.25, -0.01)])
def test_assumptions_out_of_range_are_refused(win_variance, pair_factor):
    with pytest.raises(ValueError, match="^the win variance must be positive, the pair factor "
                                         "not negative$"):
        expected_half_width(10, 4, IntervalAssumptions(win_variance, pair_factor))


def test_measured_assumptions_describe_their_figures():
    described = IntervalAssumptions(0.2, 0.875, 24).describe()
    assert described == ("measured on 24 stored pairs: p(1-p) = 0.200 per game on average, "
                         "pair factor 0.88")
    assert DEFAULT_ASSUMPTIONS.describe() == (
        "equal strengths (p(1-p) = 0.25 per game) and duplicate pairs as informative as two "
        "independent games (pair factor 1)")
    assert IntervalAssumptions(pairs=1).measured and not DEFAULT_ASSUMPTIONS.measured


def test_the_win_variance_is_the_mean_over_matchups_and_the_pair_factor_pools_them():
    # Matchup a-b: 4 pairs, W = 2, 1, 1, 0 (a's wins): mean 1, s2 = 2/3, p-hat 1/2,
    # p(1-p) = 1/4 + (2/3) / 16 = 7/24. Matchup a-c: 2 pairs, W = 2, 2 (a wins all):
    # s2 = 0, p(1-p) = 0. Matchup b-c: one pair only, left out. Pairs counted: 6.
    games = []
    for k, (first, second) in enumerate([(True, True), (True, False), (False, True),
                                         (False, False)]):
        games += duplicate_pair(f"ab{k}", "a", "b", first, second)
    games += duplicate_pair("ac0", "a", "c", True, True)
    games += duplicate_pair("ac1", "c", "a", False, False)  # c listed first: a still wins both
    games += duplicate_pair("bc0", "b", "c", True, False)
    measured = measure_assumptions(games, minimum=6)
    assert measured.pairs == 6
    assert measured.win_variance == pytest.approx((7 / 24 + 0.0) / 2)
    # spread: s2 P = 2/3 * 4 + 0; independent: 2 p(1-p) P = 2 * 7/24 * 4 + 0
    assert measured.pair_factor == pytest.approx((8 / 3) / (7 / 3))
    assert measure_assumptions(games, minimum=7) == DEFAULT_ASSUMPTIONS
    assert measure_assumptions(games) == DEFAULT_ASSUMPTIONS  # 20 pairs by default


def test_half_pairs_and_void_games_are_not_measured():
    games = [g for k in range(3) for g in duplicate_pair(f"p{k}", "a", "b", True, False)]
    lone = duplicate_pair("p3", "a", "b", True, True)[0]  # a pair of one game
    void = duplicate_pair("p4", "a", "b", True, True)
    void[1] = GameResult("p4", ("b", "a"), (0, 0), None)
    measured = measure_assumptions(games + [lone] + void, minimum=3)
    assert (measured.win_variance, measured.pair_factor, measured.pairs) == (0.25, 0.0, 3)


def test_a_field_where_every_matchup_is_always_won_keeps_the_defaults():
    games = [g for k in range(25) for g in duplicate_pair(f"p{k}", "a", "b", True, True)]
    assert measure_assumptions(games) == DEFAULT_ASSUMPTIONS  # nothing independent to scale
