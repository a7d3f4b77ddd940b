"""Forfeits are losses for the offender; a harness fault voids its whole pair."""

from __future__ import annotations

import math

import pytest

from arena.ratings.fit import ForfeitKind, GameResult, fit_ratings, group_pairs, rated_games
from arena.ratings.model import RatingsError
from arena.ratings.standings import entrant_stats, head_to_head, matchup_summaries, pair_outcomes
from tests.ratings.helpers import duplicate_pair, single_games


def test_a_forfeit_is_a_loss_for_the_offending_team_even_without_a_winner():
    game = GameResult("p", ("x", "y"), (200, 150), None, forfeit=(0, "timeout"))
    assert game.rated_winner == 1
    assert head_to_head([game]) == {("x", "y"): (0, 1), ("y", "x"): (1, 0)}


def test_a_forfeit_kind_must_be_known_and_the_offender_cannot_win():
    with pytest.raises(ValueError):
        GameResult("p", ("x", "y"), (0, 0), 1, forfeit=(1, "timeout"))
    with pytest.raises(ValueError):
        GameResult("p", ("x", "y"), (0, 0), 0, forfeit=(1, "sulking"))
    assert GameResult("p", ("x", "y"), (0, 0), 0, forfeit=(1, "crash")).forfeit == (
        1, ForfeitKind.CRASH)


def test_forfeits_count_in_the_rating_and_in_the_stats_by_kind():
    games = single_games("x", "y", 5, 5)
    forfeits = [GameResult(f"f{k}", ("x", "y"), (0, 0), 1, forfeit=(0, kind))
                for k, kind in enumerate(["timeout", "timeout", "illegal_action"])]
    fit = fit_ratings(games + forfeits, anchor="y", prior=0.0)
    assert fit.elo["x"] == pytest.approx(400.0 * math.log10(5 / 8))  # 5 wins, 8 losses
    stats = entrant_stats(games + forfeits)
    assert stats["x"].forfeits[ForfeitKind.TIMEOUT] == 2
    assert stats["x"].forfeits[ForfeitKind.ILLEGAL_ACTION] == 1
    assert stats["x"].forfeits[ForfeitKind.CRASH] == 0
    assert sum(stats["y"].forfeits.values()) == 0
    assert (stats["x"].games, stats["x"].wins, stats["x"].losses) == (13, 5, 8)


def test_a_harness_fault_voids_the_whole_pair():
    good = duplicate_pair("good", "x", "y", True, False)
    faulted = duplicate_pair("bad", "x", "y", True, True)
    faulted[1] = GameResult("bad", ("y", "x"), (0, 0), None, harness_fault=True)
    results = good + faulted
    assert rated_games(results) == good
    assert fit_ratings(results, anchor="y").elo == fit_ratings(good, anchor="y").elo
    stats = entrant_stats(results)
    assert (stats["x"].games, stats["x"].wins, stats["x"].void_games) == (2, 1, 2)
    assert stats["x"].harness_voided == stats["y"].harness_voided == 2  # both games of its pair
    assert pair_outcomes(results, "x", "y") == [1]


def test_a_void_game_leaves_its_pair_incomplete_but_its_other_game_rated():
    pair = duplicate_pair("p", "x", "y", True, True)
    pair[1] = GameResult("p", ("y", "x"), (0, 0), None)
    results = pair + duplicate_pair("q", "x", "y", False, True)
    assert len(rated_games(results)) == 3
    stats = entrant_stats(results)
    assert (stats["x"].void_games, stats["x"].harness_voided) == (1, 0)
    assert pair_outcomes(results, "x", "y") == [1]
    (summary,) = matchup_summaries(results, fit_ratings(results, anchor="y"))
    assert (summary.a, summary.split, summary.incomplete, summary.wins, summary.losses) == (
        "x", 1, 1, 2, 1)


def test_pair_outcomes_and_matchups_count_both_lost_split_both_won():
    results = (duplicate_pair("1", "x", "y", True, True) + duplicate_pair("2", "x", "y", True, False)
               + duplicate_pair("3", "x", "y", False, False)
               + duplicate_pair("4", "x", "y", True, True))
    assert pair_outcomes(results, "x", "y") == [2, 1, 0, 2]
    assert pair_outcomes(results, "y", "x") == [0, 1, 2, 0]
    fit = fit_ratings(results, anchor="y")
    (m,) = matchup_summaries(results, fit)
    assert (m.a, m.b, m.both_lost, m.split, m.both_won, m.pairs) == ("x", "y", 1, 1, 2, 4)
    assert m.elo_difference == pytest.approx(fit.elo["x"]) and m.score == pytest.approx(5 / 8)


def test_score_margin_is_the_mean_own_minus_opponent_score():
    results = [GameResult("1", ("x", "y"), (1000, 600), 0),
               GameResult("1", ("y", "x"), (1020, 900), 0)]
    stats = entrant_stats(results)
    assert stats["x"].score_margin == pytest.approx((400 - 120) / 2)
    assert stats["y"].score_margin == pytest.approx(-(400 - 120) / 2)


def test_inconsistent_pairs_and_unrateable_results_are_refused():
    with pytest.raises(RatingsError):
        group_pairs(duplicate_pair("p", "x", "y", True, True) + duplicate_pair("p", "x", "y",
                                                                               True, True))
    with pytest.raises(RatingsError):
        group_pairs([GameResult("p", ("x", "y"), (0, 0), 0), GameResult("p", ("x", "z"), (0, 0), 0)])
    with pytest.raises(RatingsError):  # two separate groups of entrants
        fit_ratings(single_games("x", "y", 2, 2) + single_games("u", "v", 2, 2))
    with pytest.raises(RatingsError):
        fit_ratings(single_games("x", "y", 2, 2), anchor="random")
    with pytest.raises(ValueError):
        GameResult("p", ("x", "x"), (0, 0), 0)
