"""The bootstrap over pairs: the model refitted on pairs drawn with replacement, a cross-check
of the sandwich intervals of `arena.ratings.model`.

Each resample draws as many pairs as there are, with replacement, and is fitted exactly as the
data are (the prior goes where the resample needs it). Resamples that cannot be fitted are
skipped and counted; a rating infinite in the fit of the data is left out of every resample.
Seeded: the same data and seed give the same figures.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arena.ratings.model import ELO_PER_LOGIT, FitData, RatingsError, elo_base, solve


@dataclass(frozen=True)
class BootstrapResult:
    """Ratings refitted on pairs resampled with replacement (a cross-check of the sandwich)."""

    entrants: tuple[str, ...]
    replicates: int
    """Resamples fitted (and used)."""
    seed: int
    stderr: Mapping[str, float]
    """Standard deviation of each rating over the replicates, in Elo."""
    low: Mapping[str, float]
    """2.5th percentile of each rating."""
    high: Mapping[str, float]
    """97.5th percentile of each rating."""
    covariance: tuple[tuple[float, ...], ...]
    """Covariance of the ratings over the replicates, in Elo squared."""
    skipped: int = 0
    """Resamples that could not be fitted (an entrant or the anchor without games, entrants
    left unconnected, or an infinite rating with a zero prior): left out, counted here."""


def bootstrap_data(data: FitData, *, anchor: str | None = None, anchor_elo: float = 0.0,
                   prior: float = 2.0, replicates: int = 200, seed: int = 0) -> BootstrapResult:
    """Resample the pairs with replacement `replicates` times and refit each time, exactly as
    `fit_data` fits (the prior goes where the resample needs it).

    Seeded and deterministic: the same data and seed give the same figures. Resamples that
    cannot be fitted are skipped and counted; with fewer than two fitted, the figures are
    empty. RatingsError if the data themselves cannot be fitted.
    """
    if replicates < 2:
        raise ValueError("a bootstrap needs at least two replicates")
    original = solve(data, anchor, prior).theta
    finite = [math.isfinite(t) for t in original]
    start = [t if ok else 0.0 for t, ok in zip(original, finite, strict=True)]
    rng = random.Random(seed)
    draws = []
    for _ in range(replicates):
        try:
            solution = solve(data.resampled(rng), anchor, prior, start)
        except RatingsError:
            continue
        theta = solution.theta
        if not all(math.isfinite(t) for t, ok in zip(theta, finite, strict=True) if ok):
            continue  # a rating the data estimates is infinite in this resample
        base, _ = elo_base(solution, anchor is None)
        draws.append([(t - base) * ELO_PER_LOGIT + anchor_elo if ok else math.nan
                      for t, ok in zip(theta, finite, strict=True)])
    return summarise(data.entrants, draws, seed, replicates - len(draws))


def _percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile of sorted values, q in [0, 1]."""
    pos = q * (len(values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (pos - lo)


def summarise(keys: tuple[str, ...], draws: Sequence[Sequence[float]], seed: int,
              skipped: int) -> BootstrapResult:
    """The spread of bootstrap draws (one rating per key each): standard errors, 2.5th and
    97.5th percentiles, covariance. Keys whose draws are nan (infinite ratings) are left out;
    with fewer than two draws every figure is empty."""
    count, n = len(draws), len(keys)
    if count < 2:
        return BootstrapResult(keys, count, seed, {}, {}, {}, (), skipped)
    mean = [sum(d[k] for d in draws) / count for k in range(n)]
    cov = tuple(tuple(sum((d[i] - mean[i]) * (d[j] - mean[j]) for d in draws) / (count - 1)
                      for j in range(n)) for i in range(n))
    columns = [sorted(d[k] for d in draws) for k in range(n)]
    kept = [(k, e) for k, e in enumerate(keys) if not math.isnan(mean[k])]
    return BootstrapResult(
        keys, count, seed,
        {e: math.sqrt(cov[k][k]) for k, e in kept},
        {e: _percentile(columns[k], 0.025) for k, e in kept},
        {e: _percentile(columns[k], 0.975) for k, e in kept},
        cov, skipped)
