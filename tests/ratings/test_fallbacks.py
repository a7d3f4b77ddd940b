"""A table whenever one can be computed: a missing anchor, separate groups, a zero prior with
a perfect score, unfittable bootstrap resamples, entrants without games, ties, -0.0; each said
in every format."""

from __future__ import annotations

import csv
import io
import json
import math

import pytest

from arena.presentation.notes import number
from arena.presentation.tables import FORMATS, matrix_tables, standings_table
from arena.ratings.fit import bootstrap_rated_pairs, bootstrap_ratings, rated_pairs
from arena.ratings.model import Bound, RatingsError
from arena.ratings.standings import NoteKind, compute_mixed_standings, compute_standings
from arena.ratings.tally import Tally
from tests.ratings.helpers import duplicate_pair, single_games


def kinds(standings):
    return [n.kind for n in standings.notes]


def test_an_anchor_without_games_falls_back_to_mean_centred_ratings_said_in_every_format():
    games = single_games("x", "y", 6, 4)
    s = compute_standings(games, anchor="random", entrants=["random", "x", "y"])
    assert s.fit.anchor is None
    assert sum(s.fit.elo.values()) == pytest.approx(0.0)
    assert kinds(s) == [NoteKind.ANCHOR_MISSING, NoteKind.UNRATED]
    assert s.unrated() == ("random",)
    for fmt in FORMATS:
        text = standings_table(s, None, fmt)
        if fmt == "json":
            data = json.loads(text)
            assert data["anchor"] is None and data["anchor_requested"] == "random"
            assert data["notes"][0]["kind"] == "anchor_missing"
            assert "has no rated games" in data["notes"][0]["text"]
        elif fmt == "csv":
            rows = list(csv.DictReader(io.StringIO(text)))
            assert all("mean-centred" in r["scale"] for r in rows if r["entrant"] != "random")
            assert "(anchor random not rated here)" in rows[0]["scale"]
            assert rows[-1]["entrant"] == "random" and rows[-1]["rank"] == ""
        else:
            assert "Not anchored: the anchor random has no rated games yet" in text
            assert "No rated games yet: random" in text


def test_an_anchor_that_is_no_entrant_is_named_too():
    s = compute_standings(single_games("x", "y", 6, 4), anchor="nobody")
    assert s.notes[0].detail == {"anchor": "nobody", "reason": "not an entrant"}
    assert "is not an entrant" in standings_table(s)


def test_disconnected_entrants_are_rated_as_separate_groups():
    games = single_games("x", "y", 6, 4) + single_games("u", "v", 3, 7, tag="b")
    s = compute_standings(games, anchor="x")
    assert len(s.fits) == 2 and s.fits[0].anchor == "x" and s.fits[1].anchor is None
    assert math.isnan(s.los("x", "u")) and not math.isnan(s.los("u", "v"))
    ranks = s.ranks()
    assert (ranks["x"].group, ranks["u"].group) == (0, 1)
    assert ranks["v"].position == 1 and ranks["y"].position == 2
    text = standings_table(s)
    assert "Group" in text.splitlines()[0]
    assert "group 1: x, y; group 2: v, u" in text
    matrix = matrix_tables(s, None, "json")
    assert json.loads(matrix)["los"]["x"]["u"] is None


def test_a_zero_prior_with_a_perfect_score_still_gives_a_table():
    games = (single_games("x", "y", 8, 0) + single_games("y", "z", 5, 5, tag="b")
             + single_games("x", "z", 4, 0, tag="c"))
    s = compute_standings(games, anchor="y", prior=0.0, bootstrap=20)
    assert s.fit.elo["x"] == math.inf and s.fit.bounds["x"] is Bound.LOWER
    assert s.fit.elo["z"] == pytest.approx(0.0)
    assert NoteKind.INFINITE in kinds(s)
    text = standings_table(s)
    assert "+inf" in text and "Infinite ratings with a zero prior: x" in text
    row = next(r for r in json.loads(standings_table(s, None, "json"))["standings"]
               if r["entrant"] == "x")
    assert row["elo"] is None and row["bound"] == "lower" and row["ci95"] is None


def test_unfittable_bootstrap_resamples_are_skipped_and_counted():
    # x won one pair of twelve: a resample without it gives y a perfect score, which a zero
    # prior cannot fit.
    games = duplicate_pair("w", "x", "y", True, True)
    for k in range(11):
        games += duplicate_pair(f"l{k}", "x", "y", False, False)
    boot = bootstrap_ratings(games, anchor="y", prior=0.0, replicates=60, seed=1)
    assert 0 < boot.skipped < 60 and boot.replicates == 60 - boot.skipped
    s = compute_standings(games, anchor="y", prior=0.0, bootstrap=60, seed=1)
    assert NoteKind.BOOTSTRAP_SKIPPED in kinds(s)
    assert f"{boot.skipped} of 60 resamples could not be fitted" in standings_table(s)


def test_ratings_equal_once_rounded_share_their_rank():
    games = single_games("a", "r", 5, 5) + single_games("b", "r", 5, 5, tag="b") \
        + single_games("a", "b", 5, 5, tag="c") + single_games("c", "r", 1, 9, tag="d")
    s = compute_standings(games, anchor="r")
    ranks = s.ranks()
    assert {ranks[e].position for e in "abr"} == {1} and all(ranks[e].shared for e in "abr")
    assert ranks["c"].position == 4 and not ranks["c"].shared
    assert [line.split()[0] for line in standings_table(s).splitlines()[2:6]] == [
        "=1", "=1", "=1", "4"]


def test_minus_zero_is_never_printed():
    assert number(-1e-13) == "0.0" and number(-0.04, signed=True) == "+0.0"
    assert number(-0.05) == "-0.1"


def test_the_bootstrap_of_the_standings_holds_the_anchor_where_the_fit_does():
    results = (single_games("a", "b", 6, 4) + single_games("b", "c", 5, 5, tag="x")
               + single_games("a", "c", 3, 7, tag="y"))
    standings = compute_standings(results, anchor="b", anchor_elo=1000.0, bootstrap=30)
    boot = standings.bootstrap
    assert boot is not None and boot.replicates == 30
    assert (boot.low["b"], boot.high["b"], boot.stderr["b"]) == (1000.0, 1000.0, 0.0)
    assert boot.stderr["a"] > 0.0 and boot.low["a"] < standings.fit.elo["a"] < boot.high["a"]


def test_a_bootstrap_without_an_anchor_centres_every_replicate_on_the_mean():
    # Each replicate's ratings average anchor_elo, so they sum to a constant: every row of
    # their covariance sums to 0, and the mean of the entrants' 2.5th percentiles lies below
    # anchor_elo, that of the 97.5th above.
    results = (single_games("a", "b", 6, 4) + single_games("b", "c", 5, 5, tag="x")
               + single_games("a", "c", 3, 7, tag="y"))
    boot = bootstrap_ratings(results, anchor_elo=500.0, replicates=40, seed=2)
    assert boot.replicates == 40 and boot.skipped == 0
    for row in boot.covariance:
        assert sum(row) == pytest.approx(0.0, abs=1e-6)
    assert all(boot.stderr[k] > 0 for k in "abc")
    assert sum(boot.low.values()) / 3 < 500.0 < sum(boot.high.values()) / 3


# x beat y and z in every game; y and z split theirs: with a zero prior x is infinitely above
# y and z, which are one win component (the largest, so the unanchored fit's home).
PERFECT_X = (single_games("x", "y", 8, 0) + single_games("y", "z", 5, 5, tag="b")
             + single_games("x", "z", 4, 0, tag="c"))


def test_a_bootstrap_leaves_out_the_ratings_that_are_infinite_in_the_fit():
    # Unanchored: y and z are estimated, x is +inf in the fit and in every resample (a
    # subset of its games is still a perfect score), so it has no spread.
    boot = bootstrap_ratings(PERFECT_X, prior=0.0, replicates=30, seed=3)
    assert boot.replicates >= 2
    assert set(boot.stderr) == set(boot.low) == set(boot.high) == {"y", "z"}


def test_an_anchored_bootstrap_measures_from_the_anchors_win_component_even_a_small_one():
    # Anchored at x, the one entrant of its win component (not the largest): x is the
    # estimate, at anchor_elo in every resample, and y and z are -inf, left out.
    boot = bootstrap_ratings(PERFECT_X, anchor="x", anchor_elo=1000.0, prior=0.0,
                             replicates=30, seed=3)
    assert boot.replicates >= 2
    assert boot.stderr == {"x": 0.0} and boot.low == boot.high == {"x": 1000.0}


def test_the_bootstrap_of_rated_pairs_draws_200_resamples_by_default():
    results = (single_games("a", "b", 6, 4) + single_games("b", "c", 5, 5, tag="x")
               + single_games("a", "c", 3, 7, tag="y"))
    boot = bootstrap_rated_pairs(rated_pairs(results))  # as bootstrap_ratings' default
    assert boot.replicates + boot.skipped == 200


def test_nothing_to_rate_is_said_in_words():
    message = "^no rated games between two entrants yet$"  # the whole message
    with pytest.raises(RatingsError, match=message):
        compute_standings([], entrants=["a", "b"])
    with pytest.raises(RatingsError, match=message):
        compute_mixed_standings([], entrants=["a", "b"])
    with pytest.raises(RatingsError, match=message):
        Tally().standings(["a", "b"])

