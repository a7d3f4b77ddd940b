"""Means with pair-clustered intervals, and the duplicate score as a second rating.

Hand-level figures (points per round, calls per round...) are means over rounds, and rounds
are not independent: the rounds of one game share its score, and the two games of a pair
share their deals. `clustered_mean` gives a mean with a 95% interval from the spread of the
cluster (pair) sums, with the jackknife correction the ratings use.

The duplicate score of a deal: the two games of a pair deal the same cards in round k, with
the entrants swapped; A's points minus B's in game 0 plus the same in game 1, halved, is what
A gained over B with the same cards, the luck of the deal cancelled. `duplicate_ratings` fits
additive strengths (points per deal) to the mean duplicate score of every pair by weighted
least squares, with a pair-clustered sandwich: a second rating of strength, measured in
points, beside the Elo of game wins. Pure functions; imports only the ratings package.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from arena.ratings.graph import connected_groups
from arena.ratings.linalg import SingularError, inverse, mat_mul
from arena.ratings.model import MAX_LEVERAGE, Z95


@dataclass(frozen=True)
class Mean:
    """A mean with the half-width of its 95% interval (nan with fewer than two clusters)."""

    value: float
    interval: float
    count: int
    """Observations (e.g. rounds) averaged."""


def clustered_mean(clusters: Iterable[Sequence[float]]) -> Mean | None:
    """The mean of every value, with a 95% interval clustered by the given groups
    (CR3-corrected: each cluster's deviation scaled by 1 / (1 - its share)); None if empty."""
    groups = [list(c) for c in clusters if c]
    count = sum(len(c) for c in groups)
    if not count:
        return None
    mean = sum(sum(c) for c in groups) / count
    if len(groups) < 2:
        return Mean(mean, math.nan, count)
    total = 0.0
    for c in groups:
        leverage = min(len(c) / count, MAX_LEVERAGE)
        total += (sum(x - mean for x in c) / (1.0 - leverage)) ** 2
    return Mean(mean, Z95 * math.sqrt(total) / count, count)


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile, q in [0, 1]; nan when empty."""
    if not values:
        return math.nan
    ordered = sorted(values)
    pos = q * (len(ordered) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


@dataclass(frozen=True)
class DealScore:
    """One pair's duplicate result: the mean over its shared deals of a's gain over b."""

    pair_id: str
    a: str
    b: str
    points: float
    """Mean points per deal a gained over b with the same cards."""
    deals: int


@dataclass(frozen=True)
class DuplicateRatings:
    """Strengths in points per deal: strength[a] - strength[b] is a's expected gain over b."""

    strength: Mapping[str, float]
    interval: Mapping[str, float]
    """Half-width of the 95% interval (0 for the reference; nan with too few pairs)."""
    reference: str | None
    """The entrant held at 0, or None for mean-centred."""
    pairs: int
    deals: int


def duplicate_ratings(scores: Iterable[DealScore],
                      reference: str | None = None) -> DuplicateRatings | None:
    """Weighted least squares of the pairs' mean deal scores on strength differences, in the
    largest group of entrants connected by pairs; None with no pairs. `reference` (if it is
    in that group) is held at 0, else the mean is."""
    scores = [s for s in scores if s.deals > 0]
    if not scores:
        return None
    keys = sorted({k for s in scores for k in (s.a, s.b)})
    index = {k: n for n, k in enumerate(keys)}
    group = connected_groups(len(keys), [(index[s.a], index[s.b]) for s in scores])[0]
    members = [keys[k] for k in group]
    if len(members) < 2:
        return None
    index = {k: n for n, k in enumerate(members)}
    scores = [s for s in scores if s.a in index and s.b in index]
    ref = index.get(reference, 0) if reference is not None else 0
    free = [k for k in range(len(members)) if k != ref]
    pos = {k: n for n, k in enumerate(free)}
    laplacian = [[0.0] * len(free) for _ in free]
    rhs = [0.0] * len(free)
    for s in scores:
        _add(laplacian, rhs, pos, index[s.a], index[s.b], float(s.deals), s.points)
    try:
        bread = inverse(laplacian)
    except SingularError:
        return None
    theta = [0.0] * len(members)
    for k, a in pos.items():
        theta[k] = sum(bread[a][b] * rhs[b] for b in range(len(free)))
    cov = _sandwich(scores, index, pos, theta, bread)
    centred = reference not in index
    shift = sum(theta) / len(theta) if centred else 0.0
    var = [cov[pos[k]][pos[k]] if k in pos else 0.0 for k in range(len(members))]
    if centred:
        var = _centred_variances(cov, pos, len(members))
    return DuplicateRatings({e: theta[k] - shift for e, k in index.items()},
                            {e: Z95 * math.sqrt(max(var[k], 0.0)) for e, k in index.items()},
                            None if centred else reference, len(scores),
                            sum(s.deals for s in scores))


def _add(laplacian: list[list[float]], rhs: list[float], pos: Mapping[int, int], i: int, j: int,
         weight: float, value: float) -> None:
    """Add one weighted observation value ~ theta_i - theta_j to the normal equations."""
    for k, sign in ((i, 1.0), (j, -1.0)):
        if k in pos:
            rhs[pos[k]] += sign * weight * value
            for m, other in ((i, 1.0), (j, -1.0)):
                if m in pos:
                    laplacian[pos[k]][pos[m]] += sign * other * weight


def _sandwich(scores: Sequence[DealScore], index: Mapping[str, int], pos: Mapping[int, int],
              theta: Sequence[float], bread: list[list[float]]) -> list[list[float]]:
    """Pair-clustered (CR3) covariance of the free strengths."""
    m = len(pos)
    meat = [[0.0] * m for _ in range(m)]
    for s in scores:
        i, j = index[s.a], index[s.b]
        x = {pos[k]: sign for k, sign in ((i, 1.0), (j, -1.0)) if k in pos}
        leverage = s.deals * sum(x[a] * bread[a][b] * x[b] for a in x for b in x)
        resid = s.deals * (s.points - theta[i] + theta[j]) / (1.0 - min(leverage, MAX_LEVERAGE))
        for a, xa in x.items():
            for b, xb in x.items():
                meat[a][b] += xa * xb * resid * resid
    if len(scores) < 2:
        return [[math.nan] * m for _ in range(m)]
    return mat_mul(mat_mul(bread, meat), bread)


def _centred_variances(cov: list[list[float]], pos: Mapping[int, int], n: int) -> list[float]:
    """Variances of strengths shifted to a zero mean (the reference row being zero)."""
    full = [[0.0] * n for _ in range(n)]
    for i, a in pos.items():
        for j, b in pos.items():
            full[i][j] = cov[a][b]
    row = [sum(r) / n for r in full]
    total = sum(row) / n
    return [full[k][k] - 2.0 * row[k] + total for k in range(n)]
