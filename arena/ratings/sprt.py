"""A sequential probability ratio test on duplicate pairs between two entrants.

As chess engine testing does on game pairs (fishtest's pentanomial GSPRT), each pair is one
observation: A lost both games, split them, or won both (pair score 0, 1/2, 1; Tichu has no
draws, so three outcomes instead of five). Under each hypothesis the outcome distribution is
the maximum-likelihood one whose mean pair score is the expected score of that logistic Elo
difference; the log-likelihood ratio of H1 (elo1) against H0 (elo0) is compared with Wald's
bounds log(beta / (1 - alpha)) and log((1 - beta) / alpha) after every pair.
`sprt_summary` adds what people ask: the Elo estimate of the pairs with its interval and LOS
(the standings' Bradley-Terry fit), and how far the LLR went toward each bound.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from arena.ratings.fit import GameResult, fit_ratings
from arena.ratings.model import Bound

PAIR_SCORES = (0.0, 0.5, 1.0)
"""A's pair score for 0, 1 and 2 games won in the pair."""

_REGULARISE = 1e-3  # pseudo-count per outcome so that a mean is reachable from few pairs


class Verdict(enum.Enum):
    """Where a sequential test stands."""

    H0 = "H0"
    """Accept elo0: A is not elo1 stronger."""
    H1 = "H1"
    """Accept elo1: A is stronger by about elo1."""
    CONTINUE = "continue"
    """Not decided yet: play more pairs."""


@dataclass(frozen=True)
class SprtResult:
    """The state of a test after the pairs it used."""

    decision: Verdict
    llr: float
    """Log-likelihood ratio of H1 against H0 after `pairs` pairs."""
    lower: float
    """H0 is accepted at or below this bound."""
    upper: float
    """H1 is accepted at or above this bound."""
    pairs: int
    """Pairs used: the test stops at the first one that crosses a bound."""
    counts: tuple[int, int, int]
    """(both lost, split, both won) from A's side over the pairs used."""
    elo0: float
    elo1: float
    alpha: float
    beta: float


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's (lower, upper) LLR bounds for false-positive rate alpha and false-negative beta."""
    if not (0.0 < alpha < 1.0 and 0.0 < beta < 1.0):
        raise ValueError("alpha and beta must lie strictly between 0 and 1")
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def expected_score(elo: float) -> float:
    """Expected game score of a logistic Elo difference."""
    odds: float = 10.0 ** (-elo / 400.0)  # (typeshed: a float power may be complex)
    return 1.0 / (1.0 + odds)


def _constrained_mle(freq: Sequence[float], mean: float) -> list[float]:
    """The distribution nearest `freq` (max likelihood) on PAIR_SCORES with the given mean.

    By Lagrange, p_k = f_k / (1 + lam (x_k - mean)); lam solves sum p_k (x_k - mean) = 0 on the
    interval where every denominator stays positive, and the left side falls in lam: bisection.
    """
    d = [x - mean for x in PAIR_SCORES]
    lo = max((-1.0 / v for v in d if v > 0), default=-1e9)
    hi = min((-1.0 / v for v in d if v < 0), default=1e9)
    for _ in range(80):  # the bracket is a few units wide: 2**-80 of it is exact enough
        lam = 0.5 * (lo + hi)
        g = sum(f * v / (1.0 + lam * v) for f, v in zip(freq, d, strict=True))
        if g > 0:
            lo = lam
        else:
            hi = lam
    lam = 0.5 * (lo + hi)
    p = [f / (1.0 + lam * v) for f, v in zip(freq, d, strict=True)]
    total = sum(p)
    return [x / total for x in p]


def sprt_llr(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """Generalised log-likelihood ratio of elo1 against elo0 for (both lost, split, both won)."""
    regular = [max(float(c), _REGULARISE) for c in counts]
    n = sum(regular)
    freq = [c / n for c in regular]
    p0 = _constrained_mle(freq, expected_score(elo0))
    p1 = _constrained_mle(freq, expected_score(elo1))
    return sum(c * math.log(a / b) for c, a, b in zip(counts, p1, p0, strict=True) if c)


def sprt(outcomes: Iterable[int], elo0: float, elo1: float, alpha: float = 0.05,
         beta: float = 0.05) -> SprtResult:
    """Run the test over pair outcomes (games A won per pair: 0, 1 or 2) in order.

    Stops at the first pair after which the LLR crosses a bound; otherwise the decision is
    CONTINUE with the LLR over all pairs. Raises ValueError for a bad outcome or elo0 >= elo1.
    """
    if elo0 >= elo1:
        raise ValueError("elo0 must be below elo1")
    lower, upper = sprt_bounds(alpha, beta)
    counts = [0, 0, 0]
    llr, pairs, decision = 0.0, 0, Verdict.CONTINUE
    for outcome in outcomes:
        if outcome not in (0, 1, 2):
            raise ValueError(f"a pair outcome is 0, 1 or 2 games won, not {outcome!r}")
        counts[outcome] += 1
        pairs += 1
        llr = sprt_llr(counts, elo0, elo1)
        if llr >= upper:
            decision = Verdict.H1
            break
        if llr <= lower:
            decision = Verdict.H0
            break
    return SprtResult(decision, llr, lower, upper, pairs, (counts[0], counts[1], counts[2]),
                      elo0, elo1, alpha, beta)


@dataclass(frozen=True)
class PairEstimate:
    """What the pairs of a test say about A - B, as the standings would fit it."""

    elo: float
    """Fitted Elo difference A - B (set by the prior when `bound` is set)."""
    interval: float
    """Half-width of its 95% interval (nan for a bound)."""
    los: float
    """Probability that A is the stronger."""
    bound: Bound | None
    """LOWER (A won every game), UPPER (A lost every game), or None for an estimate."""
    confidence_bound: float | None
    """For a bound: the one-sided 95% bound of the difference from the record alone."""


def pair_estimate(counts: Sequence[int], prior: float = 2.0) -> PairEstimate | None:
    """The Bradley-Terry fit of A against B over pairs counted as (both lost, split, both won),
    with the standings' intervals (`arena.ratings.model`); None with no pairs."""
    games = []
    for outcome, count in enumerate(counts):
        for k in range(count):
            pair = f"{outcome}-{k}"
            games += [GameResult(pair, ("A", "B"), (1, 0) if won else (0, 1), 0 if won else 1)
                      for won in (outcome >= 1, outcome == 2)]
    if not games:
        return None
    fit = fit_ratings(games, anchor="B", prior=prior)
    diff, half = fit.difference("A", "B")
    bound = fit.bounds.get("A")
    return PairEstimate(diff, math.nan if bound else half, fit.los("A", "B"), bound,
                        fit.confidence_bounds.get("A"))


@dataclass(frozen=True)
class SprtSummary:
    """A test's state for people: the estimate, and how far the LLR went toward each bound."""

    estimate: PairEstimate | None
    toward_h1: float
    """Share of the way from 0 to the upper bound (0 when the LLR is negative), 0 to 1."""
    toward_h0: float
    """Share of the way from 0 to the lower bound (0 when the LLR is positive), 0 to 1."""


def sprt_summary(result: SprtResult, prior: float = 2.0) -> SprtSummary:
    """The estimate over the pairs the test used and the LLR's progress to each bound."""
    up = max(0.0, min(1.0, result.llr / result.upper))
    down = max(0.0, min(1.0, result.llr / result.lower))
    return SprtSummary(pair_estimate(result.counts, prior), up, down)
