"""The one model behind every rating (`arena.ratings.model`) and its linear algebra: fixed
partners are the mixed model with teams (a, a), and the matrices are solved and inverted
right, or refused when singular."""

from __future__ import annotations

import math
import random

import pytest

from arena.ratings.fit import fit_ratings, rated_pairs
from arena.ratings.individual import TeamResult, fit_individual, rated_team_pairs
from arena.ratings.linalg import SingularError, cholesky, inverse, mat_mul, solve_linear
from arena.ratings.model import ELO_PER_LOGIT, RatingsError
from arena.ratings.standings import FIXED, MIXED, compute_standings, standings_of
from tests.ratings.helpers import duplicate_pair, simulate

FIVE = {"e0": 0.0, "e1": 60.0, "e2": 120.0, "e3": 180.0, "e4": 300.0}


def as_teams(results):
    """The same games as team results of two copies of each entrant."""
    return [TeamResult(g.pair_id, g.teams, g.scores, g.winner, g.forfeit, g.harness_fault)
            for g in results]


def test_fixed_partners_are_the_mixed_model_with_teams_of_two_copies():
    # A team of two copies of a is 2 r_a in the individual model. So where every estimate
    # exists (no prior acts), the individual fit of the same games is half the fixed
    # partners' (team) ratings, with a quarter of their covariances.
    results = simulate(FIVE, 8, random.Random(3))
    fixed = fit_ratings(results, anchor="e0", anchor_elo=100.0)
    mixed = fit_individual(rated_team_pairs(as_teams(results)), anchor="e0", anchor_elo=50.0)
    assert not fixed.bounds and not mixed.bounds and fixed.prior_matchups == 0
    assert (mixed.entrants, mixed.pairs, mixed.games) == (fixed.entrants, fixed.pairs,
                                                          fixed.games)
    for e in FIVE:
        assert 2.0 * mixed.elo[e] == pytest.approx(fixed.elo[e], abs=1e-6)
    for mine, theirs in ((mixed.covariance, fixed.covariance),
                         (mixed.model_covariance, fixed.model_covariance)):
        for row, other in zip(mine, theirs, strict=True):
            assert [4.0 * x for x in row] == pytest.approx(other, rel=1e-6, abs=1e-6)


def test_the_one_loop_gives_each_kind_its_own_extras():
    results = simulate(FIVE, 2, random.Random(5))
    fixed = standings_of(FIXED, results, anchor="e0")
    assert fixed == compute_standings(results, anchor="e0")
    assert fixed.matchups and fixed.synergy is None and not fixed.individual
    mixed = standings_of(MIXED, as_teams(results), anchor="e0")
    assert not mixed.matchups and mixed.individual
    # two copies of one entrant are no partnership: there is no synergy to fit
    assert mixed.synergy is not None and mixed.synergy.pairs == ()
    assert mixed.stats == fixed.stats and mixed.head_to_head == fixed.head_to_head


def test_a_lone_entrant_with_a_zero_prior_gets_its_one_sided_bound_in_both_kinds():
    # x won its four games against a and b, who split theirs (both at 0). With no prior x
    # is +inf; its record alone puts it above the rating at which four wins in four have a
    # 5% chance: p^4 = 0.05, logit(0.05 ** 0.25) = -18.9 Elo. Fixed or mixed alike (halved
    # there: a team of two copies of x is twice its rating).
    results = (duplicate_pair("ab1", "a", "b", True, False)
               + duplicate_pair("ab2", "a", "b", False, True)
               + duplicate_pair("xa", "x", "a", True, True)
               + duplicate_pair("xb", "x", "b", True, True))
    fixed = fit_ratings(results, anchor="a", prior=0.0)
    mixed = fit_individual(rated_team_pairs(as_teams(results)), anchor="a", prior=0.0)
    assert fixed.elo["x"] == mixed.elo["x"] == float("inf")
    p = 0.05 ** 0.25
    assert fixed.confidence_bounds["x"] == pytest.approx(ELO_PER_LOGIT * math.log(p / (1 - p)))
    assert 2.0 * mixed.confidence_bounds["x"] == pytest.approx(fixed.confidence_bounds["x"])
    assert rated_pairs(results).keys() == rated_team_pairs(as_teams(results)).keys()


def test_the_linear_algebra_inverts_and_solves_a_positive_definite_matrix():
    a = [[4.0, 2.0, 0.6], [2.0, 5.0, 1.0], [0.6, 1.0, 3.0]]
    identity = mat_mul(a, inverse(a))
    for i, row in enumerate(identity):
        assert row == pytest.approx([float(i == j) for j in range(3)], abs=1e-12)
    x = solve_linear(a, [1.0, 2.0, 3.0])
    assert [sum(a[i][j] * x[j] for j in range(3)) for i in range(3)] == pytest.approx(
        [1.0, 2.0, 3.0])
    low = cholesky(a)
    assert [len(row) for row in low] == [1, 2, 3]  # lower-triangular, by rows
    for i in range(3):
        product = [sum(low[i][k] * low[j][k] for k in range(min(i, j) + 1)) for j in range(3)]
        assert product == pytest.approx(a[i])


def test_a_singular_matrix_is_refused_and_a_fit_says_so_in_its_own_words():
    laplacian = [[1.0, -1.0], [-1.0, 1.0]]  # two entrants and no reference: singular
    for solve in (cholesky, inverse, lambda m: solve_linear(m, [0.0, 0.0])):
        with pytest.raises(SingularError):
            solve(laplacian)
    assert issubclass(SingularError, ValueError) and not issubclass(SingularError,
                                                                    RatingsError)
