"""Individual ratings from team results (mixed partners): known answers, the prior where the
estimate does not exist, and, on simulated tournaments whose games follow the model, unbiased
ratings whose 95% intervals hold the true rating 93-97% of the time (the full study is
`scripts/mixed_study.py`, its table in README)."""

from __future__ import annotations

import math

import pytest

from arena.ratings.individual import (
    TeamResult,
    bootstrap_individual,
    fit_individual,
    rate_individual,
    rated_team_pairs,
)
from arena.ratings.model import ELO_PER_LOGIT, Bound, Comparison, RatingsError, estimate
from arena.ratings.standings import NoteKind, compute_mixed_standings
from tests.ratings.mixed import evenly, mixed_coverage

pytestmark = pytest.mark.timeout(300)

SPLITS = [(("a", "b"), ("c", "d")), (("a", "c"), ("b", "d")), (("a", "d"), ("b", "c"))]


def pair(pair_id: str, first, second, first_wins: tuple[bool, bool]) -> list[TeamResult]:
    """A duplicate pair: `first` is team 0 in game 0, team 1 in game 1."""
    g0 = TeamResult(pair_id, (first, second), (1000, 500) if first_wins[0] else (500, 1000),
                    0 if first_wins[0] else 1)
    g1 = TeamResult(pair_id, (second, first), (500, 1000) if first_wins[1] else (1000, 500),
                    1 if first_wins[1] else 0)
    return [g0, g1]


def every_split(records: list[list[tuple[bool, bool]]]) -> list[TeamResult]:
    """Pairs of the three splits of a, b, c, d: records[k] are split k's pairs."""
    return [g for k, split in enumerate(SPLITS) for n, wins in enumerate(records[k])
            for g in pair(f"s{k}-{n}", *split, wins)]


# Two parameters, the second held at 0; each comparison is the first minus the second.
FIRST_MINUS_SECOND = ((0, 1.0), (1, -1.0))


def test_independent_comparisons_give_the_model_variance_times_the_jackknife_factor():
    # 40 pairs of one game each, 30 won: p = 3/4, theta = ln 3, and the model variance is
    # 1 / (n p (1 - p)). Each pair's leverage is p (1 - p) / (n p (1 - p)) = 1/n and its
    # squared residuals sum to n p (1 - p), so the CR3 sandwich is the model variance times
    # (1 / (1 - 1/n)) ** 2 = (n / (n - 1)) ** 2, exactly (above the floor).
    n = 40
    comparisons = [Comparison(FIRST_MINUS_SECOND, 1.0 if k < 30 else 0.0, 1.0, k)
                   for k in range(n)]
    fit = estimate(2, 1, comparisons)
    assert fit.free == [0]
    assert fit.theta[0] == pytest.approx(math.log(3.0))
    assert fit.model[0][0] == pytest.approx(1.0 / (n * 0.75 * 0.25))
    assert fit.covariance[0][0] == pytest.approx(fit.model[0][0] * (n / (n - 1)) ** 2)


def test_comparisons_that_all_split_keep_a_tenth_of_the_model_variance():
    # 8 pairs of 2 games, each won once: theta = 0, every residual is 0 and so is the plain
    # sandwich; the floor lifts it to 0.1 times the model variance 1 / (16 * 1/4).
    comparisons = [Comparison(FIRST_MINUS_SECOND, 1.0, 2.0, k) for k in range(8)]
    fit = estimate(2, 1, comparisons)
    assert fit.theta[0] == pytest.approx(0.0, abs=1e-12)
    assert fit.model[0][0] == pytest.approx(0.25)
    assert fit.covariance[0][0] == pytest.approx(0.025)


def test_a_team_is_as_strong_as_the_sum_of_its_partners():
    # {a, b} won 3 of 4 games against {c, d}; the other splits are even. Four entrants and
    # three comparisons: the fit reproduces each, so a + b - c - d = log 3 and the other two
    # differences are 0: a = b = log(3) / 2 logits, c = d.
    results = every_split([[(True, True), (True, False)], [(True, False)] * 2,
                           [(False, True)] * 2])
    fit = fit_individual(rated_team_pairs(results), anchor="d")
    half = math.log(3.0) / 2.0 * ELO_PER_LOGIT  # 95.4 Elo: 400 log10(3) / 2
    assert fit.elo["a"] == pytest.approx(half, abs=1e-6)
    assert fit.elo["b"] == pytest.approx(half, abs=1e-6)
    assert fit.elo["c"] == pytest.approx(0.0, abs=1e-6) and fit.elo["d"] == 0.0
    assert fit.interval("d") == 0.0 and fit.interval("a") > 0.0
    assert fit.pairs == 6 and fit.games == 12 and not fit.bounds
    assert rate_individual(rated_team_pairs(results), anchor="d") == pytest.approx(fit.elo)


def test_copies_of_one_entrant_count_twice_in_their_team():
    # fixed partners seen by the individual model: a team of two a's beat two b's 3 of 4
    results = pair("p0", ("a", "a"), ("b", "b"), (True, True)) + \
        pair("p1", ("a", "a"), ("b", "b"), (True, False))
    fit = fit_individual(rated_team_pairs(results), anchor="b")
    assert fit.elo["a"] == pytest.approx(math.log(3.0) / 2.0 * ELO_PER_LOGIT, abs=1e-6)


def test_an_entrant_that_never_lost_is_a_bound_set_by_the_prior():
    records = [[(True, True)] * 2, [(True, True)] * 2, [(True, True)] * 2]
    fit = fit_individual(rated_team_pairs(every_split(records)), anchor="d")
    assert fit.bounds == {"a": Bound.LOWER}
    assert math.isfinite(fit.elo["a"]) and fit.elo["a"] > 0
    assert fit.confidence_bounds["a"] < fit.elo["a"]


def test_a_separation_the_components_do_not_show_gets_the_prior_on_its_foursomes():
    # {a, b} won all of its games and {a, c} lost all of theirs: everyone beat everyone
    # through some chain, but a + b - c - d and a + c - b - d run off to +-infinity
    results = every_split([[(True, True)] * 2, [(False, False)] * 2,
                           [(True, False), (False, True)]])
    standings = compute_mixed_standings(results, anchor="d")
    fit = standings.fit
    assert fit.separated == 2 and not fit.bounds
    assert all(math.isfinite(fit.elo[k]) and abs(fit.elo[k]) < 1000 for k in "abc")
    assert NoteKind.SEPARATED in {n.kind for n in standings.notes}


def test_games_that_do_not_tell_partners_apart_are_refused():
    with pytest.raises(RatingsError, match=r"^the 2 rated games do not tell every entrant's "
                                           r"rating apart yet \(partners that always played "
                                           r"together, or too few foursomes played\): play "
                                           r"more of the movement$"):
        fit_individual(rated_team_pairs(pair("p", ("a", "b"), ("c", "d"), (True, False))),
                       anchor="d")


def test_a_pair_holds_one_foursome_and_a_harness_fault_voids_it():
    with pytest.raises(RatingsError, match="mixes teams"):
        rated_team_pairs([*pair("p", ("a", "b"), ("c", "d"), (True, True))[:1],
                          *pair("p", ("a", "c"), ("b", "d"), (True, True))[1:]])
    results = every_split([[(True, False)] * 2] * 3)
    broken = [results[0], TeamResult("s0-0", SPLITS[0][::-1], (0, 0), None,
                                     harness_fault=True)]
    assert len(rated_team_pairs([*broken, *results[2:]])) == 5  # pair s0-0 is void


def test_standings_count_a_forfeit_for_the_offender_and_the_team_result_for_both():
    results = every_split([[(True, False)] * 2] * 3)
    crash = TeamResult("x", (("a", "b"), ("c", "d")), (0, 0), None, (0, "crash"), False, "b")
    standings = compute_mixed_standings([*results, crash], anchor="d")
    stats = standings.stats
    assert stats["b"].forfeits["crash"] == 1 and stats["a"].forfeits["crash"] == 0
    assert stats["a"].games == stats["b"].games == stats["c"].games == 13
    assert stats["a"].wins == 6 and stats["c"].wins == 7  # a's team lost the forfeited game
    # head to head: games a's team won against a team c was on (splits 0 and 2, the crash)
    assert standings.head_to_head[("a", "c")] == (4, 5)
    assert standings.individual and standings.matchups == ()
    assert standings.synergy is not None and len(standings.synergy.pairs) == 6


def test_the_bootstrap_resamples_pairs_and_is_seeded():
    results = every_split([[(True, False), (True, True)], [(True, False)] * 2,
                           [(False, True), (False, False)]])
    pairs = rated_team_pairs(results)
    one = bootstrap_individual(pairs, anchor="d", replicates=40, seed=3)
    assert one == bootstrap_individual(pairs, anchor="d", replicates=40, seed=3)
    assert one.replicates + one.skipped == 40


@pytest.mark.parametrize("size, cycles, tournaments", [(5, 32, 150), (6, 8, 150), (7, 8, 150)])
def test_individual_ratings_are_unbiased_and_their_intervals_hold_95_percent(size, cycles,
                                                                             tournaments):
    # true ratings evenly over 0-400 (teams up to 800 Elo apart); 32 games against each other
    # entrant (64 for 5 entrants: the smallest field is slower to lose its small-sample bias);
    # the study (scripts/mixed_study.py) has the full table
    result = mixed_coverage(evenly(size), cycles, tournaments, seed=31 + size)
    assert 0.93 <= result.share <= 0.97, result
    assert 0.95 <= result.slope <= 1.05, result


def test_mixed_standings_count_harness_voided_games_for_every_seat():
    results = every_split([[(True, False)] * 2] * 3)
    broken = [results[0], TeamResult("s0-0", SPLITS[0][::-1], (0, 0), None,
                                     harness_fault=True)]
    stats = compute_mixed_standings([*broken, *results[2:]]).stats
    for entrant in "abcd":  # both games of pair s0-0 are void, by the harness's fault
        assert (stats[entrant].void_games, stats[entrant].harness_voided) == (2, 2)
        assert stats[entrant].games == 10


def test_mixed_standings_rate_from_the_anchor_and_note_a_missing_one():
    results = every_split([[(True, False), (True, True)], [(False, True)] * 2,
                           [(True, False)] * 2])
    anchored = compute_mixed_standings(results, anchor="c", anchor_elo=1500.0)
    assert anchored.fit.elo["c"] == 1500.0 and anchored.notes == ()
    assert anchored.incremental["c"] == 1500.0
    listed = compute_mixed_standings(results, anchor="e", entrants=["e"])
    assert listed.notes[0].kind is NoteKind.ANCHOR_MISSING
    assert listed.notes[0].entrants == ("e",) and listed.notes[0].detail["reason"] == \
        "no rated games"
    unknown = compute_mixed_standings(results, anchor="z")
    assert unknown.notes[0].entrants == () and unknown.notes[0].detail["reason"] == \
        "not an entrant"


def test_mixed_incremental_elo_sums_a_team_and_moves_each_seat_by_half():
    # Game 1: a, b beat c, d, all at 0: expected 1/2, the team's change K/2 = 8, 4 a seat.
    # Game 2 (same pair, sides swapped): c, d (-8 together) lose to a, b (+8); c, d expected
    # e = 1 / (1 + 10 ** (16 / 400)), so each of c, d moves by K (0 - e) / 2 = -8 e and each
    # of a, b by +8 e. Then the rest of the games, in order, by the same rule.
    first = TeamResult("p", (("a", "b"), ("c", "d")), (1000, 500), 0)
    second = TeamResult("p", (("c", "d"), ("a", "b")), (500, 1000), 1)
    rest = every_split([[(True, False)] * 2] * 3)
    standings = compute_mixed_standings([first, second, *rest], k_factor=16.0)
    elo = {"a": 4.0, "b": 4.0, "c": -4.0, "d": -4.0}
    e = 1.0 / (1.0 + 10.0 ** (16.0 / 400.0))
    for k in "ab":
        elo[k] += 8.0 * e
    for k in "cd":
        elo[k] -= 8.0 * e
    for g in rest:
        teams = g.teams
        ratings = [sum(elo[k] for k in side) for side in teams]
        p0 = 1.0 / (1.0 + 10.0 ** ((ratings[1] - ratings[0]) / 400.0))
        change = 16.0 * ((g.winner == 0) - p0) / 2.0
        for k in teams[0]:
            elo[k] += change
        for k in teams[1]:
            elo[k] -= change
    assert standings.incremental == pytest.approx(elo)


def test_a_swept_foursome_gets_the_prior_worked_by_hand():
    # a, b won all 4 games of their foursome against c, d; the other two splits are even.
    # The prior's 2 virtual games, one won, make it 5 of 6: team a+b is 400 log10 5 above
    # c+d. The even splits give a + c = b + d and a + d = b + c, so a = b, c = d, and each of
    # a, b stands 200 log10 5 above each of c, d.
    results = every_split([[(True, True)] * 2, [(True, False)] * 2, [(False, True)] * 2])
    pairs = rated_team_pairs(results)
    gap = 200 * math.log10(5.0)
    anchored = fit_individual(pairs, anchor="d", anchor_elo=1500.0)
    assert anchored.separated == 1
    expected = {"a": 1500.0 + gap, "b": 1500.0 + gap, "c": 1500.0, "d": 1500.0}
    assert anchored.elo == pytest.approx(expected)
    assert rate_individual(pairs, anchor="d", anchor_elo=1500.0) == pytest.approx(expected)
    centred = {"a": 100.0 + gap / 2, "b": 100.0 + gap / 2, "c": 100.0 - gap / 2,
               "d": 100.0 - gap / 2}
    assert fit_individual(pairs, anchor_elo=100.0).elo == pytest.approx(centred)
    assert rate_individual(pairs, anchor_elo=100.0) == pytest.approx(centred)


def test_with_a_zero_prior_an_entrant_that_lost_every_game_is_minus_infinity():
    # a, b, c, d split every pair among themselves: equal, all at the anchor's 0. e lost all
    # 8 of its games (with each of the others as partner): with the prior it is an upper
    # bound; with none its rating is -inf, and the rest are fitted on their own games.
    results = every_split([[(True, False)] * 2] * 3)
    results += (pair("e1", ("a", "b"), ("c", "e"), (True, True))
                + pair("e2", ("a", "c"), ("b", "e"), (True, True))
                + pair("e3", ("b", "d"), ("a", "e"), (True, True))
                + pair("e4", ("c", "d"), ("b", "e"), (True, True)))
    pairs = rated_team_pairs(results)
    bounded = fit_individual(pairs, anchor="a")
    assert bounded.bounds == {"e": Bound.UPPER} and math.isfinite(bounded.elo["e"])
    unbounded = fit_individual(pairs, anchor="a", prior=0.0)
    assert unbounded.bounds == {"e": Bound.UPPER} and unbounded.elo["e"] == -math.inf
    for k in "abcd":
        assert unbounded.elo[k] == pytest.approx(0.0, abs=1e-9)


def test_the_model_covariance_of_an_even_field_worked_by_hand():
    # Every split's two pairs split (12 games, all ratings equal, p = 1/2). A game's contrast
    # is +-(1, 1, -1, -1), (1, -1, 1, -1) or (1, -1, -1, 1) over a, b, c, d, four games each:
    # the information p (1 - p) sum x x' = 4 I - J. With d anchored, the inverse of its 3 x 3
    # block is (I + J) / 4: a variance of 1/2 logit^2 for each of a, b, c, a covariance of
    # 1/4 between any two of them.
    fit = fit_individual(rated_team_pairs(every_split([[(True, False)] * 2] * 3)), anchor="d")
    rows = {k: fit.entrants.index(k) for k in "abcd"}
    for x in "abc":
        for y in "abc":
            expected = (0.5 if x == y else 0.25) * ELO_PER_LOGIT ** 2
            assert fit.model_covariance[rows[x]][rows[y]] == pytest.approx(expected)
        assert fit.model_covariance[rows[x]][rows["d"]] == 0.0
