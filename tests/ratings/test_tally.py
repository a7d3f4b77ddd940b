"""The live tally (`arena.ratings.tally`): its standings are `compute_standings`'s of the same
games, however the games arrive (in any order, in batches, a pair's harness fault in its
second game), and its warm-started fits are the cold fit's maximum (within 1e-6 Elo)."""

from __future__ import annotations

import contextlib
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.faults import ForfeitKind
from arena.ratings.fit import GameResult, fit_ratings
from arena.ratings.model import RatingsError
from arena.ratings.standings import compute_standings
from arena.ratings.tally import Tally
from tests.ratings.helpers import evenly_spread, simulate, single_games

ELO_TOLERANCE = 1e-6
"""Elo: the tally's fits against the full fit (the summation order differs, and a warm
start's Newton steps stop within 1e-10 logits of the maximum, as the cold start's do)."""
RELATIVE_TOLERANCE = 1e-6
"""Covariances and bounds, relative."""


def close(x: float, y: float, tolerance: float) -> bool:
    if not (math.isfinite(x) and math.isfinite(y)):
        return x == y or (math.isnan(x) and math.isnan(y))
    return abs(x - y) <= tolerance * max(1.0, abs(x), abs(y))


def assert_same_standings(got, want) -> None:
    assert got.entrants == want.entrants
    assert dict(got.stats) == dict(want.stats)
    assert got.notes == want.notes
    assert len(got.fits) == len(want.fits)
    for g, w in zip(got.fits, want.fits, strict=True):
        assert g.entrants == w.entrants
        assert (g.anchor, g.pairs, g.games, g.prior_matchups) == \
            (w.anchor, w.pairs, w.games, w.prior_matchups)
        assert dict(g.bounds) == dict(w.bounds)
        for e in w.entrants:
            assert close(g.elo[e], w.elo[e], ELO_TOLERANCE), (e, g.elo[e], w.elo[e])
        for key, bound in w.confidence_bounds.items():
            assert close(g.confidence_bounds[key], bound, RELATIVE_TOLERANCE)
        for rg, rw in zip(g.covariance, w.covariance, strict=True):
            assert all(close(x, y, RELATIVE_TOLERANCE) for x, y in zip(rg, rw, strict=True))
    assert got.ranking() == want.ranking()


ENTRANTS = ["a", "b", "c", "d", "e"]


@st.composite
def games(draw) -> list[GameResult]:
    """Duplicate pairs among five entrants with every kind of ending: won, forfeited (each
    kind), void, a harness fault in either game; some pairs half stored."""
    results = []
    for k in range(draw(st.integers(0, 30))):
        a, b = draw(st.sampled_from([(x, y) for x in ENTRANTS for y in ENTRANTS if x < y]))
        for g in range(draw(st.sampled_from([1, 2, 2, 2]))):
            teams = (a, b) if g == 0 else (b, a)
            ending = draw(st.sampled_from(["won", "won", "won", "lost", "lost", "forfeit",
                                           "void", "harness"]))
            scores = (draw(st.integers(0, 1200)), draw(st.integers(0, 1200)))
            if ending == "forfeit":
                team = draw(st.integers(0, 1))
                kind = draw(st.sampled_from(list(ForfeitKind)))
                results.append(GameResult(f"p{k}", teams, scores, None, (team, kind)))
            else:
                winner = {"won": 0, "lost": 1}.get(ending)
                results.append(GameResult(f"p{k}", teams, scores, winner,
                                          harness_fault=ending == "harness"))
    return results


@settings(max_examples=150, deadline=None)
@given(games(), st.randoms(use_true_random=False), st.sampled_from([None, "a", "c"]),
       st.sampled_from([0.0, 2.0]), st.lists(st.sampled_from(ENTRANTS), max_size=5))
def test_the_tally_gives_the_full_standings_whatever_order_and_batches_the_games_come_in(
        results, rng, anchor, prior, extra):
    shuffled = results[:]
    rng.shuffle(shuffled)
    tally = Tally()
    cut = rng.randrange(len(shuffled) + 1)
    entrants = sorted({e for g in results for e in g.entrants} | set(extra))
    tally.add(shuffled[:cut])
    with contextlib.suppress(RatingsError):  # a first fit, for the next to start from
        tally.standings(entrants, anchor=anchor, prior=prior)
    tally.add(shuffled[cut:])
    try:
        want = compute_standings(results, entrants=entrants, anchor=anchor, prior=prior)
    except RatingsError:
        with pytest.raises(RatingsError):
            tally.standings(entrants, anchor=anchor, prior=prior)
        return
    assert_same_standings(tally.standings(entrants, anchor=anchor, prior=prior), want)
    assert tally.games == len(results)


def test_standings_of_some_entrants_count_only_their_games_with_each_other():
    results = simulate(evenly_spread(6), 4, random.Random(3))
    tally = Tally()
    tally.add(results)
    some = ["e0", "e2", "e3", "e5"]
    want = compute_standings([g for g in results if set(g.entrants) <= set(some)],
                             entrants=some, anchor="e0")
    assert_same_standings(tally.standings(some, anchor="e0"), want)
    assert tally.complete_pairs()[("e2", "e3")] == 4


def test_a_warm_started_fit_of_many_entrants_is_the_cold_fit_as_games_keep_coming():
    results = simulate(evenly_spread(24, 1200.0), 6, random.Random(11))
    random.Random(5).shuffle(results)
    tally = Tally()
    keys = sorted(evenly_spread(24))
    for end in (len(results) // 2, len(results) // 2 + 7, len(results)):
        tally.add(results[tally.games:end])
        got = tally.standings(keys, anchor="e0")
        cold = fit_ratings(results[:end], anchor="e0")
        for e in keys:
            assert close(got.fit.elo[e], cold.elo[e], ELO_TOLERANCE)
            assert close(got.fit.interval(e), cold.interval(e), RELATIVE_TOLERANCE)


def test_a_third_game_in_a_pair_or_a_pair_of_two_matchups_is_refused():
    tally = Tally()
    tally.add([GameResult("p", ("a", "b"), (1, 0), 0), GameResult("p", ("b", "a"), (1, 0), 0)])
    with pytest.raises(RatingsError, match="more than two games"):
        tally.add([GameResult("p", ("a", "b"), (1, 0), 0)])
    with pytest.raises(RatingsError, match="mixes matchups"):
        tally.add([GameResult("q", ("a", "b"), (1, 0), 0),
                   GameResult("q", ("a", "c"), (1, 0), 0)])


def test_the_anchors_group_comes_first_and_the_standings_keep_the_anchor_and_k_factor():
    # Two groups that never met: {a, b, c} and the smaller {d, e}, every record even, so
    # every rating is anchor_elo (the anchored group's from d, the other's mean). The
    # anchor's group is fitted and listed first, as compute_standings does.
    results = (single_games("a", "b", 5, 5) + single_games("b", "c", 5, 5, tag="x")
               + single_games("d", "e", 3, 3, tag="y"))
    tally = Tally()
    tally.add(results)
    s = tally.standings("abcde", anchor="d", anchor_elo=1500.0, k_factor=24.0)
    assert [f.entrants for f in s.fits] == [("d", "e"), ("a", "b", "c")]
    assert s.fits[0].anchor == "d" and s.fits[1].anchor is None
    for e in "abcde":
        assert s.fit_of(e).elo[e] == pytest.approx(1500.0, abs=1e-6)
    assert s.entrants == ("d", "e", "a", "b", "c")
    assert (s.anchor, s.k_factor) == ("d", 24.0)
