"""The fast fit against a straightforward reference kept here (dense Newton, Gauss-Jordan
inverse, the CR3 sandwich summed pair by pair), and the standings' shared selection of rated
games against the counting functions run one by one: the same figures on random leagues."""

from __future__ import annotations

import math
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.ratings.fit import GameResult, fit_ratings, incremental_elo, rate, rated_pairs
from arena.ratings.model import ELO_PER_LOGIT, MAX_LEVERAGE, VARIANCE_FLOOR, RatingsError
from arena.ratings.standings import (
    compute_standings,
    entrant_stats,
    head_to_head,
    matchup_summaries,
)
from tests.ratings.helpers import duplicate_pair


def gauss_jordan_inverse(a: list[list[float]]) -> list[list[float]]:
    n = len(a)
    m = [row[:] + [float(i == j) for j in range(n)] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        m[col] = [x / m[col][col] for x in m[col]]
        for r in range(n):
            if r != col:
                f = m[r][col]
                m[r] = [x - f * y for x, y in zip(m[r], m[col], strict=True)]
    return [row[n:] for row in m]


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def reference_fit(results: list[GameResult], anchor: str) -> tuple[dict, dict]:
    """(elo, covariance by entrant pair) of the plain maximum-likelihood fit with `anchor` at
    0, for results whose graph of wins is strongly connected (no prior needed)."""
    keys = sorted({e for g in results for e in g.entrants})
    n = len(keys)
    index = {e: k for k, e in enumerate(keys)}
    free = [k for k in range(n) if k != index[anchor]]
    wins = [[0.0] * n for _ in range(n)]
    for g in results:
        winner = index[g.entrants[g.rated_winner]]
        loser = index[g.entrants[1 - g.rated_winner]]
        wins[winner][loser] += 1.0
    theta = [0.0] * n

    def information() -> tuple[list[float], list[list[float]]]:
        grad, info = [0.0] * n, [[0.0] * n for _ in range(n)]
        for i in range(n):
            for j in range(n):
                if i != j and wins[i][j] + wins[j][i]:
                    games, p = wins[i][j] + wins[j][i], sigmoid(theta[i] - theta[j])
                    grad[i] += wins[i][j] - games * p
                    info[i][i] += games * p * (1 - p)
                    info[i][j] -= games * p * (1 - p)
        return [grad[k] for k in free], [[info[i][j] for j in free] for i in free]

    for _ in range(100):
        grad, info = information()
        inverse = gauss_jordan_inverse(info)
        for a, k in enumerate(free):
            theta[k] += sum(inverse[a][b] * grad[b] for b in range(len(free)))
    _, info = information()
    bread = gauss_jordan_inverse(info)
    pos = {k: a for a, k in enumerate(free)}

    def contrast(v: list[list[float]], i: int, j: int) -> float:
        x = [0.0] * len(free)
        for k, sign in ((i, 1.0), (j, -1.0)):
            if k in pos:
                x[pos[k]] += sign
        return sum(x[a] * v[a][b] * x[b] for a in range(len(free)) for b in range(len(free)))

    meat = [[0.0] * len(free) for _ in free]
    for games in rated_pairs(results).values():
        i, j = sorted(index[e] for e in games[0].entrants)
        won = sum(index[g.entrants[g.rated_winner]] == i for g in games)
        p = sigmoid(theta[i] - theta[j])
        h = len(games) * p * (1 - p) * contrast(bread, i, j)
        r = (won - len(games) * p) / (1 - min(h, MAX_LEVERAGE))
        score = [0.0] * len(free)
        for k, sign in ((i, r), (j, -r)):
            if k in pos:
                score[pos[k]] += sign
        for a in range(len(free)):
            for b in range(len(free)):
                meat[a][b] += score[a] * score[b]
    m = len(free)
    sandwich = [[sum(bread[a][c] * meat[c][d] * bread[d][b] for c in range(m) for d in range(m))
                 for b in range(m)] for a in range(m)]
    checks = [(k, k) for k in free] + [(i, j) for i in range(n) for j in range(i + 1, n)
                                       if wins[i][j] + wins[j][i]]
    lam = 0.0
    for i, j in checks:
        s, b = ((sandwich[pos[i]][pos[i]], bread[pos[i]][pos[i]]) if i == j
                else (contrast(sandwich, i, j), contrast(bread, i, j)))
        lam = max(lam, (VARIANCE_FLOOR * b - s) / b)
    cov = {(keys[i], keys[j]): (sandwich[pos[i]][pos[j]] + lam * bread[pos[i]][pos[j]])
           * ELO_PER_LOGIT ** 2 for i in free for j in free}
    elo = {keys[k]: (theta[k] - theta[index[anchor]]) * ELO_PER_LOGIT for k in range(n)}
    return elo, cov


def league(seed: int, entrants: int, pairs: int) -> list[GameResult]:
    """Random duplicate pairs; each matchup's first pair split, so that everyone has beaten
    everyone (the plain estimate exists)."""
    rng = random.Random(seed)
    keys = [f"e{k}" for k in range(entrants)]
    strength = {k: rng.gauss(0, 1) for k in keys}
    results = []
    for x in range(entrants):
        for y in range(x + 1, entrants):
            a, b = keys[x], keys[y]
            p = sigmoid(strength[a] - strength[b])
            results += duplicate_pair(f"{a}-{b}-0", a, b, True, False)
            for k in range(1, pairs):
                results += duplicate_pair(f"{a}-{b}-{k}", a, b, rng.random() < p,
                                          rng.random() < p)
    rng.shuffle(results)
    return results


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10**6), st.integers(2, 6), st.integers(2, 5))
def test_the_fit_gives_the_reference_ratings_and_covariances(seed, entrants, pairs):
    results = league(seed, entrants, pairs)
    fit = fit_ratings(results, anchor="e0")
    elo, cov = reference_fit(results, "e0")
    points = rate(results, anchor="e0")
    for key, value in elo.items():
        assert math.isclose(fit.elo[key], value, rel_tol=1e-7, abs_tol=1e-6)
        assert math.isclose(points[key], value, rel_tol=1e-7, abs_tol=1e-6)
    for (a, b), value in cov.items():
        got = fit.covariance[fit.entrants.index(a)][fit.entrants.index(b)]
        assert math.isclose(got, value, rel_tol=1e-6, abs_tol=1e-6)


def mixed_results(seed: int) -> list[GameResult]:
    """Random pairs with forfeits, void games and harness faults among them."""
    rng = random.Random(seed)
    keys = [f"e{k}" for k in range(rng.randint(2, 6))]
    results = []
    for k in range(rng.randint(1, 40)):
        a, b = rng.sample(keys, 2)
        for game in range(rng.choice((1, 2, 2))):
            teams = (a, b) if game == 0 else (b, a)
            kind = rng.random()
            winner = rng.choice((0, 1))
            scores = (1000, 400) if winner == 0 else (400, 1000)
            if kind < 0.1:
                results.append(GameResult(f"p{k}", teams, (0, 0), None))
            elif kind < 0.15:
                results.append(GameResult(f"p{k}", teams, (0, 0), None, harness_fault=True))
            elif kind < 0.25:
                results.append(GameResult(f"p{k}", teams, (100, 200), None,
                                          forfeit=(1 - winner, "timeout")))
            else:
                results.append(GameResult(f"p{k}", teams, scores, winner))
    return results


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**6))
def test_the_standings_count_what_the_counting_functions_count(seed):
    results = mixed_results(seed)
    try:
        standings = compute_standings(results, entrants=["e0", "e9"])
    except RatingsError:  # no two entrants with a rated game between them
        return
    assert standings.stats == entrant_stats(results)
    assert standings.head_to_head == head_to_head(results)
    assert standings.incremental == incremental_elo(results)
    assert list(standings.matchups) == matchup_summaries(results, standings)
