"""Partnership synergy: how much better (or worse) two entrants do together than their
individual ratings predict.

For each two entrants that partnered in rated games, the individual model of
`arena.ratings.individual` is fitted again with one more parameter, the pair's synergy: Elo
added to a team made of exactly these two. The individual ratings are re-estimated with it
(so a pair that does well only together does not lift its members' ratings, which would
hide the effect), and the synergy gets a pair-clustered 95% interval (CR3, floored) like the
ratings. The synergy parameter carries the prior's virtual draws (`prior` games, half won):
that keeps a perfect record together finite and pulls every synergy a little toward 0, so a
flag errs on the side of silence.

The flag. Under the model without synergy, each pair's z-score (synergy over its standard
error) is about standard normal; with K pairs tested, a pair is flagged when |z| exceeds the
two-sided Bonferroni bound for K tests at 5% (`threshold`): in a field without any synergy,
a flag appears in at most one tournament in twenty. A flagged pair does much better (or
worse) together than the field's partnerships do: two programs that signal to each other
through their plays (which no isolation of processes can stop), or two styles that suit (or
clash with) each other. The synergies of a field sum to roughly zero per entrant: a pair
that gains together makes its members look slightly worse with everyone else.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arena.ratings.individual import TeamResult, team_data
from arena.ratings.linalg import sigmoid
from arena.ratings.model import (
    ELO_PER_LOGIT,
    Z95,
    Comparison,
    FitData,
    RatingFit,
    RatingsError,
    estimate,
    eta,
    solve,
)

FAMILY_ALPHA = 0.05
"""The chance, in a field without synergy, that any pair is flagged (Bonferroni)."""


@dataclass(frozen=True)
class Synergy:
    """One partnership's synergy, in Elo added to the team of these two."""

    a: str
    b: str
    """The two entrant keys, in key order."""
    elo: float
    interval: float
    """Half-width of the 95% interval (nan when it cannot be computed)."""
    z: float
    """The synergy over its standard error."""
    games: int
    """Rated games the two played together."""
    wins: int
    """Of those, games their team won."""
    expected: float
    """Wins together that the individual ratings alone predict (without synergy)."""
    flagged: bool
    """|z| is beyond the field's Bonferroni bound (`SynergyTable.threshold`)."""


@dataclass(frozen=True)
class SynergyTable:
    """Every partnership's synergy, from the highest z-score down."""

    pairs: tuple[Synergy, ...]
    threshold: float
    """The |z| beyond which a pair is flagged: the two-sided Bonferroni bound at FAMILY_ALPHA
    for len(pairs) tests."""
    prior: float
    """Virtual games (half won) on each synergy."""

    @property
    def flagged(self) -> tuple[Synergy, ...]:
        return tuple(s for s in self.pairs if s.flagged)


def normal_quantile(p: float) -> float:
    """The standard normal quantile of p (0 < p < 1), by bisection on erf."""
    lo, hi = -40.0, 40.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if 0.5 * (1.0 + math.erf(mid / math.sqrt(2.0))) < p:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def bonferroni(tests: int, alpha: float = FAMILY_ALPHA) -> float:
    """The |z| beyond which one of `tests` two-sided tests rejects at family-wise `alpha`."""
    return normal_quantile(1.0 - alpha / (2.0 * max(tests, 1)))


def synergies(pairs: Mapping[str, Sequence[TeamResult]], fit: RatingFit, *,
              prior: float = 2.0) -> SynergyTable:
    """The synergy of every two entrants that partnered in the rated pairs `pairs`
    (`individual.rated_team_pairs`), given their individual `fit` (of the same pairs, from
    `individual.fit_individual`). RatingsError if the pairs cannot be fitted."""
    data = team_data(pairs)
    solution = solve(data, fit.anchor, fit.prior)
    n = len(data.entrants)
    partnerships = _partnerships(data)
    threshold = bonferroni(len(partnerships))
    start = [t if math.isfinite(t) else 0.0 for t in solution.theta] + [0.0]
    out = []
    for (i, j), together in sorted(partnerships.items()):
        comparisons = [_with_synergy(c, sides, i, j, n)
                       for c, sides in zip(data.comparisons, data.sides, strict=True)]
        penalties = [*solution.penalties,
                     Comparison(((n, 1.0),), prior / 2.0, prior, -1)] if prior > 0 else \
            list(solution.penalties)
        try:
            est = estimate(n + 1, solution.ref, comparisons, penalties, start)
        except RatingsError:
            continue  # not identified (nor made so by a zero prior): no figure for this pair
        gamma = est.theta[n]
        variance = est.covariance[est.free.index(n)][est.free.index(n)]
        se = math.sqrt(variance) if variance > 0 else math.nan
        z = gamma / se if se and math.isfinite(se) else math.nan
        wins, games, expected = _record(data, solution.theta, together)
        out.append(Synergy(data.entrants[i], data.entrants[j], gamma * ELO_PER_LOGIT,
                           Z95 * se * ELO_PER_LOGIT, z, games, wins, expected,
                           bool(math.isfinite(z) and abs(z) > threshold)))
    out.sort(key=_order)
    return SynergyTable(tuple(out), threshold, prior)


def _order(s: Synergy) -> tuple[float, str, str]:
    """Highest z first; z-scores equal to 9 decimals (they differ by the fits' rounding
    alone) in key order, so that the order does not hang on the order of summation."""
    return (-round(s.z, 9) if math.isfinite(s.z) else math.inf, s.a, s.b)


def _partnerships(data: FitData) -> dict[tuple[int, int], list[tuple[int, int]]]:
    """Every two different entrants that partnered: (comparison, their side: 0 or 1) each."""
    found: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for k, sides in enumerate(data.sides):
        for side, team in enumerate(sides):
            if len(team) == 2:
                found.setdefault((team[0], team[1]), []).append((k, side))
    return found


def _with_synergy(c: Comparison, sides: tuple[tuple[int, ...], tuple[int, ...]], i: int,
                  j: int, n: int) -> Comparison:
    """`c` with the synergy (parameter n) on the side where i and j are partners."""
    for side, sign in zip(sides, (1.0, -1.0), strict=True):
        if side == (i, j):
            return Comparison((*c.contrast, (n, sign)), c.wins, c.games, c.cluster)
    return c


def _record(data: FitData, theta: Sequence[float],
            together: Sequence[tuple[int, int]]) -> tuple[int, int, float]:
    """(wins, games, wins the ratings alone predict) of two partners' rated games."""
    wins = games = 0
    expected = 0.0
    for k, side in together:
        c = data.comparisons[k]
        ours = c.wins if side == 0 else c.games - c.wins
        x = eta(theta, c.contrast)
        p = sigmoid(x if side == 0 else -x) if math.isfinite(x) else math.nan
        wins += int(ours)
        games += int(c.games)
        expected += c.games * p
    return wins, games, expected
