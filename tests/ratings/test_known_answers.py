"""Known answers: the Elo scale, a published Bradley-Terry fit, the prior, LOS, K-factor Elo."""

from __future__ import annotations

import math

import pytest

from arena.ratings.fit import fit_rated_pairs, fit_ratings, incremental_elo, rate, rated_pairs
from arena.ratings.model import ELO_PER_LOGIT, Bound
from tests.ratings.helpers import single_games


def test_a_75_percent_score_is_plus_190_8_elo():
    fit = fit_ratings(single_games("x", "y", 3, 1), anchor="y", prior=0.0)
    assert fit.elo["x"] == pytest.approx(190.8, abs=0.05)
    assert fit.elo["y"] == 0.0


def test_a_75_percent_score_stays_190_8_at_any_sample_size():
    fit = fit_ratings(single_games("x", "y", 300, 100), anchor="y", prior=0.0)
    assert fit.elo["x"] == pytest.approx(400.0 * math.log10(3.0), abs=1e-6)


# A. Agresti, "Categorical Data Analysis", 2nd ed. (Wiley, 2002), the Bradley-Terry example:
# the 1987 season of the American League East, 13 games between every two teams. wins[i][j] is
# the number of games team i won against team j; Agresti's fitted log-strengths with
# Baltimore's set to 0 are below (two decimals, as published).
AL_EAST = ["Milwaukee", "Detroit", "Toronto", "New York", "Boston", "Cleveland", "Baltimore"]
AL_EAST_WINS = [
    [0, 7, 9, 7, 7, 9, 11],
    [6, 0, 7, 5, 11, 9, 9],
    [4, 6, 0, 7, 7, 8, 12],
    [6, 8, 6, 0, 6, 7, 10],
    [6, 2, 6, 7, 0, 7, 12],
    [4, 4, 5, 6, 6, 0, 6],
    [2, 4, 1, 3, 1, 7, 0],
]
AL_EAST_PUBLISHED = [1.58, 1.44, 1.29, 1.25, 1.11, 0.68, 0.00]


def al_east_games():
    games = []
    for i, j in ((a, b) for a in range(7) for b in range(a + 1, 7)):
        games += single_games(AL_EAST[i], AL_EAST[j], AL_EAST_WINS[i][j], AL_EAST_WINS[j][i])
    return games


def test_published_seven_team_fit_agresti_1987_american_league_east():
    fit = fit_ratings(al_east_games(), anchor="Baltimore", prior=0.0)
    fitted = [fit.elo[team] / ELO_PER_LOGIT for team in AL_EAST]
    assert fitted == pytest.approx(AL_EAST_PUBLISHED, abs=0.005)
    assert fit.ranking() == tuple(AL_EAST)


def test_the_prior_keeps_a_perfect_score_finite_and_marks_it_a_bound():
    games = single_games("x", "y", 10, 0)
    fit = fit_ratings(games, anchor="y", prior=2.0)
    # Two virtual draws: 11 wins out of 12 games.
    assert fit.elo["x"] == pytest.approx(400.0 * math.log10(11.0), abs=1e-6)
    assert fit.bounds == {"x": Bound.LOWER} and not fit.is_estimate("x")
    # From 10 wins alone: P(10 of 10) = p ** 10 = 5% at the one-sided 95% bound.
    p = 0.05 ** (1 / 10)
    assert fit.confidence_bounds["x"] == pytest.approx(400.0 * math.log10(p / (1 - p)), abs=0.01)


def test_a_zero_score_is_an_upper_bound_and_a_zero_prior_makes_it_infinite():
    games = single_games("x", "y", 0, 10)
    assert fit_ratings(games, anchor="y").bounds == {"x": Bound.UPPER}
    fit = fit_ratings(games, anchor="y", prior=0.0)
    assert fit.elo["x"] == -math.inf and math.isnan(fit.interval("x"))
    assert fit.los("x", "y") == 0.0 and fit.los("y", "x") == 1.0


def test_the_prior_touches_no_rating_whose_estimate_exists():
    # 3-1: the maximum-likelihood estimate exists, so the prior adds nothing (it used to
    # pull this to +120).
    assert fit_ratings(single_games("x", "y", 3, 1), anchor="y").elo["x"] == pytest.approx(
        400.0 * math.log10(3.0), abs=1e-6)
    # A three-entrant field: x beat y, y beat z, z never won: only z's matchups get the
    # prior, and x - y stays the estimate of their own games alone plus z's pull.
    games = single_games("x", "y", 6, 2) + single_games("y", "z", 8, 0, tag="b")
    fit = fit_ratings(games, anchor="y")
    assert fit.bounds == {"z": Bound.UPPER} and fit.prior_matchups == 1
    assert fit.elo["x"] == pytest.approx(400.0 * math.log10(3.0), abs=1e-6)


def test_a_perfect_score_set_by_the_prior_grows_with_the_games():
    few = fit_ratings(single_games("x", "y", 10, 0), anchor="y").elo["x"]
    many = fit_ratings(single_games("x", "y", 1000, 0), anchor="y").elo["x"]
    assert many == pytest.approx(400.0 * math.log10(1001.0)) and many > few


def test_independent_games_give_the_model_variance_times_the_jackknife_factor():
    # Two entrants, one game per pair: each pair's leverage is 1/n, so the CR3 sandwich is
    # the inverse information times (n / (n - 1)) ** 2, exactly, at the maximum.
    fit = fit_ratings(single_games("x", "y", 30, 10), anchor="y", prior=0.0)
    n = fit.pairs
    k = fit.entrants.index("x")
    assert fit.covariance[k][k] == pytest.approx(fit.model_covariance[k][k] * (n / (n - 1)) ** 2)
    # And the model variance is 1 / (n p (1 - p)) in logits.
    assert fit.model_covariance[k][k] == pytest.approx(ELO_PER_LOGIT ** 2 / (40 * 0.75 * 0.25))


def test_los_is_the_normal_probability_of_a_positive_difference():
    fit = fit_ratings(single_games("x", "y", 12, 8), anchor="y")
    diff, half = fit.difference("x", "y")
    z = diff / (half / 1.959963984540054)
    assert fit.los("x", "y") == pytest.approx(0.5 * (1 + math.erf(z / math.sqrt(2))))
    assert fit.los("x", "y") + fit.los("y", "x") == pytest.approx(1.0)
    assert fit.los("x", "x") == 0.5


def test_incremental_elo_moves_by_half_k_between_equals():
    games = single_games("x", "y", 1, 0)
    assert incremental_elo(games, k_factor=16.0) == {"x": 8.0, "y": -8.0}
    assert incremental_elo(games, k_factor=16.0, anchor="y", anchor_elo=1000.0) == {
        "x": 1016.0, "y": 1000.0}


def test_every_entry_point_gives_a_perfect_score_the_same_default_prior():
    # 3 games of 3 won, plus the default prior's 2 virtual games, one won: 4 of 5.
    games = single_games("a", "b", 3, 0)
    expected = 400 * math.log10(4.0)
    assert fit_ratings(games, anchor="b").elo["a"] == pytest.approx(expected)
    assert fit_rated_pairs(rated_pairs(games), anchor="b").elo["a"] == pytest.approx(expected)
    assert rate(games, anchor="b")["a"] == pytest.approx(expected)


def test_a_group_that_lost_every_game_gets_bounds_that_keep_its_distances():
    # a and b beat each other, so do c and d; a, b won every game against c, d. With the
    # prior c and d are upper bounds, each with a one-sided confidence bound, the two
    # shifted together (their fitted distance kept); with a zero prior their ratings are
    # -inf and, the distance inside the group being unknown then, no bound is given.
    games = (single_games("a", "b", 3, 2) + single_games("c", "d", 2, 3, tag="x")
             + single_games("a", "c", 4, 0, tag="y") + single_games("b", "d", 3, 0, tag="z"))
    fit = fit_ratings(games, anchor="a")
    assert fit.bounds == {"c": Bound.UPPER, "d": Bound.UPPER}
    bounds = fit.confidence_bounds
    assert set(bounds) == {"c", "d"}
    assert bounds["c"] - bounds["d"] == pytest.approx(fit.elo["c"] - fit.elo["d"])
    assert bounds["c"] > fit.elo["c"] and bounds["d"] > fit.elo["d"]
    unbounded = fit_ratings(games, anchor="a", prior=0.0)
    assert unbounded.elo["c"] == unbounded.elo["d"] == -math.inf
    assert unbounded.bounds == {"c": Bound.UPPER, "d": Bound.UPPER}
    assert unbounded.confidence_bounds == {}


def test_without_an_anchor_the_largest_group_that_beat_each_other_averages_zero():
    # a, b beat each other and every game against c, d, who beat each other too: two groups
    # of two, a tie, so the ratings are measured from the one holding the first entrant, a's.
    games = (single_games("a", "b", 3, 2) + single_games("c", "d", 2, 3, tag="x")
             + single_games("a", "c", 4, 0, tag="y") + single_games("b", "d", 3, 0, tag="z"))
    fit = fit_ratings(games, anchor_elo=100.0)
    assert (fit.elo["a"] + fit.elo["b"]) / 2 == pytest.approx(100.0)
    assert fit.bounds == {"c": Bound.UPPER, "d": Bound.UPPER}
    # b, c, d beat each other and a lost every game: the three are the larger group, though
    # a is the first entrant
    more = single_games("b", "c", 3, 2) + single_games("c", "d", 2, 3, tag="x") + \
        single_games("d", "b", 2, 2, tag="w") + single_games("a", "b", 0, 4, tag="y")
    fit = fit_ratings(more)
    assert sum(fit.elo[k] for k in "bcd") / 3 == pytest.approx(0.0, abs=1e-9)
    assert fit.bounds == {"a": Bound.UPPER}
