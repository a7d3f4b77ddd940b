"""The one Bradley-Terry model every rating here is fitted with: teams compared, pair by pair.

The model. A team's strength is the sum of its seats' ratings. Team A beats team B with
probability 1 / (1 + e^-(strength A - strength B)): a logistic regression on contrasts, one
coefficient per entrant. Mixed partners (`arena.ratings.individual`) are fitted so: a rating
is what an entrant adds to any team. Fixed partners (`arena.ratings.fit`) are the same model
with teams (a, a), on the team's scale: one parameter per team of two copies. The fit is
maximum likelihood over every rated game, on the Elo scale, anchored on one entrant (or
centred on the mean).

The prior. The estimate exists only when every entrant has beaten every other through a chain
of wins (`arena.ratings.graph`). The graph of wins has an edge from every entrant of a
winning team to every entrant of the losing one. BayesElo's weak prior (a few virtual draws)
keeps such ratings finite. Put on every matchup, it also pulls every other rating toward the
mean: by a fifth of the spread with 8 pairs per matchup, so that in a field of 50 most true
ratings fell outside their intervals. Here the virtual draws go only where the estimate does
not exist. They go between two entrants that faced each other from different groups that
never lost to each other (the strongly connected components of the graph of wins). Everyone
else gets the plain maximum-likelihood estimate. A rating set by the prior is marked
(`RatingFit.bounds`), beside the one-sided 95% bound its perfect (or zero) record supports
alone. With a zero prior such ratings are infinite, and only the anchor's group is fitted.
Mixed partners can be separated in a way the components do not show. Then each foursome won
or lost in every game gets the prior too (`RatingFit.separated`).

The intervals. A duplicate pair plays one comparison twice, on the same deals, so each pair
is a cluster. The covariance is a sandwich clustered by pair, with the jackknife small-sample
correction (CR3: each pair's score divided by one minus its leverage). It holds the nominal
95% coverage from 2 pairs per matchup up, where the plain one (CR1) covered 77-82% at 2
pairs. A floor (`VARIANCE_FLOOR`) keeps a comparison whose pairs all split from claiming
certainty. A seeded bootstrap over pairs cross-checks them (`arena.ratings.bootstrap`).

The speed. The likelihood reads the games only through the wins and games summed per
contrast (`Summed`). So the Newton steps run over the distinct contrasts (the matchups, for
fixed partners), not over every pair: their cost grows with the entrants, not the games.
"""

from __future__ import annotations

import enum
import functools
import math
import operator
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from arena.errors import ArenaError
from arena.ratings.graph import connected_groups, reaches, win_components
from arena.ratings.linalg import (
    Matrix,
    SingularError,
    centre_on,
    cholesky,
    embed,
    inverse,
    mat_mul,
    sigmoid,
    solve_linear,
)

ELO_PER_LOGIT = 400.0 / math.log(10.0)
"""Elo points per natural-log odds unit: P(win) = 1 / (1 + 10 ** (-elo_difference / 400))."""

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""

VARIANCE_FLOOR = 0.1
"""No rating (or comparison played) gets a variance below this share of the one independent
games would give. Duplicate deals cancel luck, so the pair-clustered variance is rightly
smaller, but a matchup whose every pair split would otherwise show +-0.0."""

MAX_LEVERAGE = 0.99
"""A pair's leverage is capped here: a pair that alone decides a rating makes the jackknife
factor 1 / (1 - h) infinite; capped, it gives an interval a hundred times wider instead."""

ONE_SIDED_ALPHA = 0.05
"""The one-sided error of the bounds given for ratings set by the prior."""

DIVERGED = 25.0
"""A comparison fitted this many logits (about 4300 Elo) from even is a fit running off to
infinity, stopped by rounding (the estimate does not exist), not an estimate."""


class RatingsError(ArenaError):
    """The results cannot be rated as asked (no games, disconnected entrants, unknown anchor)."""


class Bound(enum.StrEnum):
    """Whether a rating is an estimate or only a bound of one (its likelihood has no maximum)."""

    NONE = ""
    """A maximum-likelihood estimate."""
    LOWER = "lower"
    """Never lost to the anchor's group (through any chain of wins): the estimate is infinite;
    the figure shown is set by the prior and is only a lower bound of it."""
    UPPER = "upper"
    """Never beat the anchor's group: the mirror of LOWER."""
    UNDETERMINED = "undetermined"
    """Neither above nor below the anchor's group: set by the prior both ways."""


# --- What a fit gives ----------------------------------------------------------------------

@dataclass(frozen=True)
class RatingFit:
    """Bradley-Terry ratings on the Elo scale with their pair-clustered covariance.

    A rating set by the prior is marked in `bounds`; with a zero prior it is infinite (+-inf,
    or nan when undetermined) and has no interval.
    """

    entrants: tuple[str, ...]
    """Entrant keys, sorted; the order of the covariance rows."""
    elo: Mapping[str, float]
    """Rating per entrant: the anchor sits at `anchor_elo`."""
    covariance: tuple[tuple[float, ...], ...]
    """Sandwich covariance clustered by pair (CR3, floored), in Elo squared; the anchor's row
    is zero, and so are the rows of infinite ratings."""
    model_covariance: tuple[tuple[float, ...], ...]
    """Inverse-information covariance that treats games as independent (for comparison)."""
    anchor: str | None
    """The entrant held at `anchor_elo`; None centres the mean rating there instead."""
    anchor_elo: float
    prior: float
    """Virtual draws per matchup between groups that never lost to each other."""
    pairs: int
    """Rated pairs (clusters) in the fit."""
    games: int
    """Rated games in the fit."""
    bounds: Mapping[str, Bound] = field(default_factory=dict)
    """Entrants whose maximum-likelihood rating is infinite (absent: an estimate)."""
    confidence_bounds: Mapping[str, float] = field(default_factory=dict)
    """For a LOWER (UPPER) entrant: the rating it exceeds (stays under) with 95% confidence
    by its record against the anchor's group alone (one-sided, games taken as independent:
    duplicate pairs split more often than independent games, which makes it conservative)."""
    prior_matchups: int = 0
    """Matchups that received the prior's virtual draws."""
    separated: int = 0
    """Individual ratings (`arena.ratings.individual`): foursomes that received the prior
    because the estimate did not exist otherwise (0 for fixed partners)."""
    win_groups: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """For each entrant in `bounds`: its win group (the entrants that beat one another
    through chains of wins, itself included), in entrant order. The group rated by estimate
    is the entrants not in `bounds`."""

    def _k(self, key: str) -> int:
        return self.entrants.index(key)

    def is_estimate(self, key: str) -> bool:
        """Whether the rating is a finite maximum-likelihood estimate (not set by the prior)."""
        return key not in self.bounds

    def stderr(self, key: str) -> float:
        """Standard error of one rating, in Elo (nan for an infinite rating)."""
        if not math.isfinite(self.elo[key]):
            return math.nan
        return math.sqrt(max(self.covariance[self._k(key)][self._k(key)], 0.0))

    def interval(self, key: str) -> float:
        """Half-width of the 95% interval of one rating, in Elo."""
        return Z95 * self.stderr(key)

    def difference(self, a: str, b: str) -> tuple[float, float]:
        """Elo difference a - b and the half-width of its 95% interval (nan if infinite)."""
        diff = self.elo[a] - self.elo[b] if a != b else 0.0
        if not math.isfinite(diff):
            return diff, math.nan
        i, j = self._k(a), self._k(b)
        c = self.covariance
        var = c[i][i] + c[j][j] - 2.0 * c[i][j]
        return diff, Z95 * math.sqrt(max(var, 0.0))

    def los(self, a: str, b: str) -> float:
        """Likelihood of superiority: the probability that a is stronger than b (nan when the
        difference is undetermined)."""
        diff, half = self.difference(a, b)
        if math.isinf(diff):
            return float(diff > 0.0)
        if math.isnan(diff):
            return math.nan
        sd = half / Z95
        if sd == 0.0:
            return 0.5 if diff == 0.0 else float(diff > 0.0)
        return 0.5 * (1.0 + math.erf(diff / sd / math.sqrt(2.0)))

    def ranking(self) -> tuple[str, ...]:
        """Entrant keys from the highest rating down (ties by key; undetermined last)."""
        return ranking_of(self.elo)


def ranking_of(elo: Mapping[str, float]) -> tuple[str, ...]:
    """The keys of `elo` from the highest rating down (ties by key; undetermined last)."""
    return tuple(sorted(elo, key=lambda e: (math.isnan(elo[e]), -_finite(elo[e]), e)))


def _finite(x: float) -> float:
    return 0.0 if math.isnan(x) else x


# --- The data of a fit: one comparison of two teams per pair -------------------------------

Contrast = tuple[tuple[int, float], ...]
"""A comparison of two teams as a sparse vector over parameters: (index, coefficient) in
index order, +1 per seat of the first team and -1 per seat of the second."""

Sides = tuple[tuple[int, ...], tuple[int, ...]]
"""The distinct entrant indices of a comparison's first and second team."""


class Comparison(NamedTuple):
    """A pair's rated games as one comparison: the first team's wins out of `games` (a named
    tuple: a fit builds one per pair, and a bootstrap one per pair drawn)."""

    contrast: Contrast
    wins: float
    games: float
    cluster: int
    """The pair it came from (virtual draws of the prior have -1)."""


@dataclass(frozen=True)
class FitData:
    """Rated pairs as comparisons over entrant indices (entrants sorted): what a fit reads."""

    entrants: tuple[str, ...]
    comparisons: tuple[Comparison, ...]
    sides: tuple[Sides, ...]
    """Per comparison, its two teams."""

    def restrict(self, members: Sequence[int]) -> FitData:
        """The comparisons among `members` only, re-indexed in their order."""
        index = {k: a for a, k in enumerate(members)}
        kept, sides = [], []
        for c, (first, second) in zip(self.comparisons, self.sides, strict=True):
            if all(k in index for k in (*first, *second)):
                kept.append(c._replace(contrast=tuple((index[k], v) for k, v in c.contrast)))
                sides.append((tuple(index[k] for k in first), tuple(index[k] for k in second)))
        return FitData(tuple(self.entrants[k] for k in members), tuple(kept), tuple(sides))

    def resampled(self, rng: random.Random) -> FitData:
        """The pairs drawn with replacement, as many as there are (a bootstrap sample); each
        draw its own cluster. Its sums are taken from ours (a bootstrap fits hundreds)."""
        picks = rng.choices(range(len(self.comparisons)), k=len(self.comparisons))
        drawn = (self.comparisons[k] for k in picks)
        comparisons = tuple(Comparison(c.contrast, c.wins, c.games, n)
                            for n, c in enumerate(drawn))
        sample = FitData(self.entrants, comparisons, tuple(self.sides[k] for k in picks))
        vars(sample)["summed"] = self.summed.drawn(comparisons, picks)  # `summed`, cached
        return sample

    @functools.cached_property
    def summed(self) -> Summed:
        """The comparisons summed per contrast (built once: each fit reads it many times)."""
        return sum_comparisons(self.comparisons)

    def wins_graph(self) -> Matrix:
        """wins[i][j]: games i's team won against a team of j (the graph of wins)."""
        n = len(self.entrants)
        wins = [[0.0] * n for _ in range(n)]
        total = self.summed
        for contrast, won, games in zip(total.contrasts, total.wins, total.games, strict=True):
            for i, vi in contrast:
                for j, vj in contrast:
                    if vi > 0 > vj:  # i on the first team, j on the second
                        wins[i][j] += won
                        wins[j][i] += games - won
        return wins

    def opponents(self) -> set[tuple[int, int]]:
        """Every two entrants (lower index first) that faced each other."""
        return {(min(i, j), max(i, j)) for contrast in self.summed.contrasts
                for i, vi in contrast for j, vj in contrast if vi > 0 > vj}

    def together(self) -> set[tuple[int, int]]:
        """Every two entrants that played in one game (as partners or opponents)."""
        return {(i, j) for contrast in self.summed.contrasts
                for i, _ in contrast for j, _ in contrast if i < j}

    @property
    def games(self) -> int:
        return int(sum(c.games for c in self.comparisons))


def eta(theta: Sequence[float], contrast: Contrast) -> float:
    """The contrast's strength difference at `theta`: first team minus second, in logits."""
    return sum(theta[k] * v for k, v in contrast)


# --- Maximum likelihood and the covariance clustered by pair -------------------------------

@dataclass(frozen=True)
class Estimate:
    """A fitted parameter vector with its covariances (logit units, free parameters only)."""

    theta: list[float]
    free: list[int]
    """The parameters fitted (the reference's is fixed at 0 and left out)."""
    covariance: Matrix
    """Pair-clustered sandwich (CR3, floored), over `free`."""
    model: Matrix
    """Inverse information (games taken as independent), over `free`."""


@dataclass(frozen=True)
class Summed:
    """Comparisons summed per contrast: the wins and games are all the likelihood reads."""

    contrasts: tuple[Contrast, ...]
    """The distinct contrasts, in contrast order."""
    wins: tuple[float, ...]
    games: tuple[float, ...]
    codes: tuple[int, ...]
    """Per comparison, the index of its contrast."""
    first_seen: tuple[int, ...]
    """The contrasts' indices in the order the comparisons first show them."""
    lone: bool
    """Every pair (cluster) holds one comparison."""

    def drawn(self, comparisons: Sequence[Comparison], picks: Sequence[int]) -> Summed:
        """`sum_comparisons(comparisons)` of the comparisons drawn at `picks` (each its own cluster),
        from the codes of these sums rather than from the contrasts."""
        size = len(self.contrasts)
        wins, games, seen, hit = [0.0] * size, [0.0] * size, [], [False] * size
        for c, k in zip(comparisons, picks, strict=True):
            code = self.codes[k]
            wins[code] += c.wins
            games[code] += c.games
            if not hit[code]:
                hit[code] = True
                seen.append(code)
        kept = [code for code in range(size) if hit[code]]
        new = {code: n for n, code in enumerate(kept)}
        return Summed(tuple(self.contrasts[k] for k in kept), tuple(wins[k] for k in kept),
                      tuple(games[k] for k in kept), tuple(new[self.codes[k]] for k in picks),
                      tuple(new[k] for k in seen), True)


def sum_comparisons(comparisons: Sequence[Comparison]) -> Summed:
    """The comparisons summed per contrast (`Summed`)."""
    sums: dict[Contrast, list[float]] = {}
    seen = []
    for c in comparisons:
        total = sums.get(c.contrast)
        if total is None:
            sums[c.contrast] = [c.wins, c.games]
            seen.append(c.contrast)
        else:
            total[0] += c.wins
            total[1] += c.games
    ordered = sorted(sums)
    code = {contrast: k for k, contrast in enumerate(ordered)}
    clusters = {c.cluster for c in comparisons}
    return Summed(tuple(ordered), tuple(sums[c][0] for c in ordered),
                  tuple(sums[c][1] for c in ordered), tuple(code[c.contrast] for c in comparisons),
                  tuple(code[c] for c in seen), len(clusters) == len(comparisons))


Total = tuple[tuple[int, ...], tuple[float, ...], float, float, tuple[tuple[int, float], ...],
              tuple[int, int, int, int] | None]
"""A contrast summed over its comparisons: its indices, their coefficients, the wins and
games of every comparison of it, and (row, coefficient) of its free parameters. Last, for a
difference of two entrants (+1, -1; every pair of fixed partners): their indices and rows
(-1 for the reference), which the hot loops read directly, the arithmetic unchanged."""


def _totals(data: Summed, penalties: Iterable[Comparison], pos: Mapping[int, int]) -> list[Total]:
    """The summed comparisons with the prior's virtual games added, in contrast order, each
    with its free parameters' rows: what the Newton steps read."""
    rows = list(zip(data.contrasts, data.wins, data.games, strict=True))
    if penalties:
        sums = {contrast: [wins, games] for contrast, wins, games in rows}
        for c in penalties:
            total = sums.setdefault(c.contrast, [0.0, 0.0])
            total[0] += c.wins
            total[1] += c.games
        rows = [(contrast, wins, games) for contrast, (wins, games) in sorted(sums.items())]
    return [(tuple(k for k, _ in contrast), tuple(v for _, v in contrast), wins, games,
             tuple((pos[k], v) for k, v in contrast if k in pos), _difference(contrast, pos))
            for contrast, wins, games in rows]


def _difference(contrast: Contrast, pos: Mapping[int, int]) -> tuple[int, int, int, int] | None:
    """(i, j, row of i, row of j) when the contrast is entrant i minus entrant j, else None."""
    if len(contrast) != 2 or contrast[0][1] != 1.0 or contrast[1][1] != -1.0:
        return None
    (i, _), (j, _) = contrast
    return i, j, pos.get(i, -1), pos.get(j, -1)


def _log_likelihood(theta: Sequence[float], totals: Iterable[Total]) -> float:
    """The log-likelihood of the games summed in `totals` at `theta`."""
    total = 0.0
    at, exp, log = theta.__getitem__, math.exp, math.log
    for keys, coefficients, wins, games, _, pair in totals:
        if pair is None:
            x = sum(map(operator.mul, map(at, keys), coefficients))  # eta, inlined
        else:
            x = theta[pair[0]] - theta[pair[1]]  # the same sum, two terms
        e = exp(-abs(x))  # sigmoid(x) and sigmoid(-x) as `sigmoid` gives them
        high, low = 1.0 / (1.0 + e), e / (1.0 + e)
        won, lost = (high, low) if x >= 0 else (low, high)
        if wins:
            total += wins * log(max(won, 1e-300))
        if games - wins:
            total += (games - wins) * log(max(lost, 1e-300))
    return total


def _gradient_information(theta: Sequence[float], totals: Iterable[Total],
                          size: int) -> tuple[list[float], Matrix]:
    """Gradient and observed information over the `size` free parameters."""
    grad = [0.0] * size
    info = [[0.0] * size for _ in range(size)]
    at = theta.__getitem__
    for keys, coefficients, wins, games, free, pair in totals:
        if pair is not None:
            p = sigmoid(theta[pair[0]] - theta[pair[1]])
            _add_difference(grad, info, pair[2], pair[3], wins - games * p,
                            games * p * (1.0 - p))
            continue
        p = sigmoid(sum(map(operator.mul, map(at, keys), coefficients)))  # eta, inlined
        residual = wins - games * p
        weight = games * p * (1.0 - p)
        for a, va in free:
            grad[a] += residual * va
            row, wa = info[a], weight * va
            for b, vb in free:
                row[b] += wa * vb
    return grad, info


def _add_difference(grad: list[float], info: Matrix, a: int, b: int, residual: float,
                    weight: float) -> None:
    """The general loop's additions for a contrast of rows a minus b (-1: the reference)."""
    if a >= 0:
        grad[a] += residual
        info[a][a] += weight
    if b >= 0:
        grad[b] -= residual
        info[b][b] += weight
    if a >= 0 and b >= 0:
        info[a][b] -= weight
        info[b][a] -= weight


def _positions(size: int, ref: int) -> tuple[list[int], dict[int, int]]:
    """The free parameters (all but `ref`) and each one's row."""
    free = [k for k in range(size) if k != ref]
    return free, {k: a for a, k in enumerate(free)}


def _maximise(size: int, ref: int, data: Summed, penalties: Sequence[Comparison],
              start: Sequence[float] | None) -> list[float]:
    """The maximum-likelihood parameters with parameter `ref` held at 0 (damped Newton, from
    `start` shifted so that its `ref` is 0); RatingsError if the information is singular or
    the fit does not converge."""
    free, pos = _positions(size, ref)
    theta = list(start) if start is not None else [0.0] * size
    shift = theta[ref]
    theta = [t - shift for t in theta]
    totals = _totals(data, penalties, pos)
    current = _log_likelihood(theta, totals)
    for _ in range(200):
        grad, info = _gradient_information(theta, totals, len(free))
        try:
            step = solve_linear(info, grad)
        except SingularError as exc:
            raise RatingsError(str(exc)) from None
        t = 1.0
        while True:
            trial = theta[:]
            for k, s in zip(free, step, strict=True):
                trial[k] += t * s
            value = _log_likelihood(trial, totals)
            if value >= current - 1e-12 or t < 1e-6:
                break
            t /= 2.0
        theta, current = trial, value
        if max((abs(t * s) for s in step), default=0.0) < 1e-10:
            if any(abs(eta(theta, c)) > DIVERGED for c in data.contrasts):
                break  # a plateau of rounding, not a maximum: the estimate does not exist
            return theta
    raise RatingsError("the rating fit did not converge (the estimate may not exist: some "
                       "group of entrants never lost, in a way the prior does not cover)")


def _contrast_variance(v: Matrix, pos: Mapping[int, int], contrast: Contrast) -> float:
    """The variance of a contrast from a covariance over the free parameters (`v` symmetric:
    its upper triangle is read)."""
    free = [(pos[k], c) for k, c in contrast if k in pos]
    total = sum(c * c * v[a][a] for a, c in free)
    for x, (a, ca) in enumerate(free):
        for b, cb in free[x + 1:]:
            total += 2.0 * ca * cb * v[a][b]
    return total


def _meat(theta: Sequence[float], comparisons: Sequence[Comparison], data: Summed,
          bread: Matrix, pos: Mapping[int, int]) -> Matrix:
    """Sum over pairs of the outer product of their jackknife-corrected scores (CR3).

    A comparison's score is its residual, wins minus expected, divided by one minus its
    leverage h = games p (1 - p) var(contrast), times its contrast. A pair of one comparison
    (every pair) adds its squared residual times the contrast's outer product: these are
    summed per contrast first.
    """
    factors: dict[tuple[int, float], tuple[float, float]] = {}
    squares = [0.0] * len(data.contrasts)
    scores: dict[int, dict[int, float]] = {}
    for c, code in zip(comparisons, data.codes, strict=True):
        factor = factors.get((code, c.games))
        if factor is None:  # the same for every pair of the contrast with as many games
            p = sigmoid(eta(theta, c.contrast))
            leverage = c.games * p * (1.0 - p) * _contrast_variance(bread, pos, c.contrast)
            factor = factors[(code, c.games)] = (p, 1.0 / (1.0 - min(leverage, MAX_LEVERAGE)))
        p, scale = factor
        residual = (c.wins - c.games * p) * scale
        if data.lone:
            squares[code] += residual * residual
            continue
        score = scores.setdefault(c.cluster, {})
        for k, v in c.contrast:
            if k in pos:
                score[pos[k]] = score.get(pos[k], 0.0) + residual * v
    meat = [[0.0] * len(pos) for _ in pos]
    outer = [(score, 1.0) for score in scores.values()]
    if data.lone:
        outer += [({pos[k]: v for k, v in data.contrasts[code] if k in pos}, squares[code])
                  for code in data.first_seen]
    for vector, weight in outer:
        for a, va in vector.items():
            row = meat[a]
            for b, vb in vector.items():
                row[b] += va * vb * weight
    return meat


def _floored(sandwich: Matrix, bread: Matrix, pos: Mapping[int, int],
             contrasts: Iterable[Contrast]) -> Matrix:
    """sandwich + lambda * bread with the least lambda >= 0 that lifts every parameter's
    variance, and every played comparison's, to VARIANCE_FLOOR times the model's (stays
    positive semi-definite)."""
    lam = 0.0
    checks = [((k, 1.0),) for k in pos] + list(contrasts)
    for contrast in checks:
        s = _contrast_variance(sandwich, pos, contrast)
        b = _contrast_variance(bread, pos, contrast)
        if b > 0.0:
            lam = max(lam, (VARIANCE_FLOOR * b - s) / b)
    if lam == 0.0:
        return sandwich
    return [[s + lam * b for s, b in zip(rs, rb, strict=True)]
            for rs, rb in zip(sandwich, bread, strict=True)]


def covariances(theta: list[float], ref: int, comparisons: Sequence[Comparison],
                penalties: Sequence[Comparison] = (), data: Summed | None = None) -> Estimate:
    """The covariances of the parameters `theta` (`ref` held at 0) fitted to the comparisons:
    the information counts `penalties` (the prior's virtual games), the pairs' scores do not.
    `data`: the comparisons summed, if the caller has them. RatingsError if the information
    is singular."""
    data = sum_comparisons(comparisons) if data is None else data
    free, pos = _positions(len(theta), ref)
    _, info = _gradient_information(theta, _totals(data, penalties, pos), len(free))
    try:
        bread = inverse(info)
    except SingularError as exc:
        raise RatingsError(str(exc)) from None
    meat = _meat(theta, comparisons, data, bread, pos)
    sandwich = mat_mul(mat_mul(bread, meat), bread)
    return Estimate(theta, free, _floored(sandwich, bread, pos, data.contrasts), bread)


def estimate(size: int, ref: int, comparisons: Sequence[Comparison],
             penalties: Sequence[Comparison] = (),
             start: Sequence[float] | None = None) -> Estimate:
    """Fit `size` parameters (`ref` held at 0) to the comparisons, with `penalties` (virtual
    games: the prior) in the likelihood and the information but not in the scores; with the
    pair-clustered sandwich covariance. RatingsError if they do not identify the
    parameters."""
    data = sum_comparisons(comparisons)
    theta = _maximise(size, ref, data, penalties, start)
    return covariances(theta, ref, comparisons, penalties, data)


# --- Where the estimate exists: the prior --------------------------------------------------

@dataclass(frozen=True)
class Solution:
    """The point estimate of one fit, before covariances: logit ratings with ref at 0."""

    theta: list[float]
    ref: int
    component: list[int]
    """Each entrant's win component (`graph.win_components`)."""
    home: int
    """The reference component: the anchor's, else the largest."""
    kinds: dict[int, Bound]
    penalties: tuple[Comparison, ...]
    """The prior's virtual draws (none with a zero prior or when every estimate exists)."""
    separated: int = 0
    """Foursomes that got the prior because the estimate did not exist otherwise."""

    def members(self) -> list[int]:
        """The entrants of the reference component."""
        return [k for k, c in enumerate(self.component) if c == self.home]


def solve(data: FitData, anchor: str | None, prior: float,
          start: Sequence[float] | None = None) -> Solution:
    """Maximise the likelihood, with the prior between win components only (see the module
    docstring). RatingsError when fewer than two entrants played, they are not all
    connected by games, the anchor has no games, or the games do not tell partners apart."""
    n = len(data.entrants)
    if n < 2:
        raise RatingsError("ratings need rated games between at least two entrants")
    groups = connected_groups(n, data.together())
    if len(groups) > 1:
        names = "; ".join(", ".join(data.entrants[k] for k in g) for g in groups)
        raise RatingsError(f"entrants are not all connected by games: {names}")
    if anchor is not None and anchor not in data.entrants:
        raise RatingsError(f"the anchor {anchor!r} has no rated games")
    ref = 0 if anchor is None else data.entrants.index(anchor)
    wins = data.wins_graph()
    component = win_components(wins)
    home = _reference_group(component, ref, anchor is not None)
    if component[ref] != home:
        ref = component.index(home)
    kinds = _bound_kinds(wins, component, home)
    if kinds and prior <= 0.0:
        return Solution(_solve_home(data, component, home, ref, kinds, start), ref,
                        component, home, kinds, ())
    cross = {(i, j) for i, j in data.opponents() if component[i] != component[j]}
    penalties = _virtual_draws(cross, prior)
    _check_identified(data, ref, penalties)
    try:
        theta = _maximise(n, ref, data.summed, penalties, start)
    except RatingsError:
        if prior <= 0.0:
            raise
        # Separated in a way the components do not show: the prior on each foursome won or
        # lost in every one of its games makes every comparison's likelihood bounded.
        extra = _perfect_draws(data, prior)
        penalties = (*penalties, *extra)
        theta = _maximise(n, ref, data.summed, penalties, start)
        return Solution(theta, ref, component, home, kinds, penalties, len(extra))
    return Solution(theta, ref, component, home, kinds, penalties)


def _reference_group(component: Sequence[int], ref: int, anchored: bool) -> int:
    """The win component the ratings are measured from: the anchor's, else the largest
    (ties: the one holding the lowest entrant index)."""
    if anchored:
        return component[ref]
    sizes: dict[int, int] = {}
    for c in component:
        sizes[c] = sizes.get(c, 0) + 1
    return max(sizes, key=lambda c: (sizes[c], -component.index(c)))


def _bound_kinds(wins: Matrix, component: Sequence[int], home: int) -> dict[int, Bound]:
    """For each entrant outside the reference component `home`: which bound its rating is."""
    member = component.index(home)
    below_home = reaches(wins, member)
    kinds = {}
    for k, c in enumerate(component):
        if c == home:
            continue
        if member in reaches(wins, k):
            kinds[k] = Bound.LOWER
        elif k in below_home:
            kinds[k] = Bound.UPPER
        else:
            kinds[k] = Bound.UNDETERMINED
    return kinds


def _virtual_draws(pairs: Iterable[tuple[int, int]], prior: float) -> tuple[Comparison, ...]:
    return tuple(Comparison(((i, 1.0), (j, -1.0)), prior / 2.0, prior, -1)
                 for i, j in sorted(pairs))


def _check_identified(data: FitData, ref: int, penalties: Sequence[Comparison]) -> None:
    """RatingsError if the games (with the prior's draws) cannot tell every rating apart:
    the information at equal ratings is singular (a separation shows only later). Teams of
    lone entrants (fixed partners) always can once connected: their information without
    the reference is a connected graph's Laplacian, positive definite, so it is not built."""
    if all(len(first) == len(second) == 1 for first, second in data.sides):
        return
    n = len(data.entrants)
    _, pos = _positions(n, ref)
    totals = _totals(data.summed, penalties, pos)
    _, info = _gradient_information([0.0] * n, totals, len(pos))
    try:
        cholesky(info)
    except SingularError:
        raise _unidentified(data) from None


def _perfect_draws(data: FitData, prior: float) -> tuple[Comparison, ...]:
    """`prior` virtual draws on each comparison (foursome, whatever its seating) whose
    rated games were all won, or all lost, by one side."""
    totals: dict[Contrast, list[float]] = {}
    for c in data.comparisons:
        sign = 1.0 if c.contrast[0][1] > 0 else -1.0  # the same foursome either way round
        key = tuple((k, v * sign) for k, v in c.contrast)
        wins = c.wins if sign > 0 else c.games - c.wins
        total = totals.setdefault(key, [0.0, 0.0])
        total[0] += wins
        total[1] += c.games
    return tuple(Comparison(contrast, prior / 2.0, prior, -1)
                 for contrast, (wins, games) in sorted(totals.items())
                 if wins in (0.0, games))


def _unidentified(data: FitData) -> RatingsError:
    return RatingsError(f"the {data.games} rated games do not tell every entrant's rating "
                        "apart yet (partners that always played together, or too few "
                        "foursomes played): play more of the movement")


def _solve_home(data: FitData, component: Sequence[int], home: int, ref: int,
                kinds: Mapping[int, Bound], start: Sequence[float] | None) -> list[float]:
    """With a zero prior: the reference component alone (its estimate exists), on the
    games among its members; everyone else +-inf, or nan."""
    members = [k for k, c in enumerate(component) if c == home]
    sub = data.restrict(members)
    sub_start = None if start is None else [start[k] for k in members]
    try:
        inner = _maximise(len(members), members.index(ref), sub.summed, (), sub_start)
    except RatingsError as exc:
        if "singular" in str(exc):
            raise _unidentified(sub) from None
        raise
    infinite = {Bound.LOWER: math.inf, Bound.UPPER: -math.inf, Bound.UNDETERMINED: math.nan}
    theta = [infinite[kinds[k]] if k in kinds else 0.0 for k in range(len(component))]
    for k, t in zip(members, inner, strict=True):
        theta[k] = t
    return theta


# --- From logits to ratings ----------------------------------------------------------------

def fit_data(data: FitData, *, anchor: str | None = None, anchor_elo: float = 0.0,
             prior: float = 2.0, start: Sequence[float] | None = None) -> RatingFit:
    """Ratings on the Elo scale with their pair-clustered covariances, bounds for ratings set
    by the prior and their one-sided confidence bounds. `anchor` is held at `anchor_elo`
    (None: the mean of the reference group is); `prior`: virtual draws where the estimate
    does not exist; `start`: logits to start the maximisation from (the maximum is the same,
    only the steps to it differ). RatingsError as `solve` raises it."""
    solution = solve(data, anchor, prior, start)
    cov, model = _full_covariances(data, solution)
    base, members = elo_base(solution, anchor is None)

    def scale(m: Matrix) -> tuple[tuple[float, ...], ...]:
        m = centre_on(m, members) if anchor is None else m
        return tuple(tuple(x * ELO_PER_LOGIT ** 2 for x in row) for row in m)

    def to_elo(t: float) -> float:
        return (t - base) * ELO_PER_LOGIT + anchor_elo

    keys = data.entrants
    bounds = _confidence_bounds(data, solution)
    return RatingFit(
        keys, {e: to_elo(t) for e, t in zip(keys, solution.theta, strict=True)},
        scale(cov), scale(model), anchor, anchor_elo, prior, len(data.comparisons),
        data.games, {keys[k]: kind for k, kind in solution.kinds.items()},
        {keys[k]: to_elo(t) for k, t in bounds.items()},
        len(solution.penalties) - solution.separated, solution.separated,
        _win_groups(keys, solution))


def _win_groups(keys: Sequence[str], solution: Solution) -> dict[str, tuple[str, ...]]:
    """Each bounded entrant's win group, as `RatingFit.win_groups`."""
    component = solution.component
    return {keys[k]: tuple(keys[j] for j, c in enumerate(component) if c == component[k])
            for k in solution.kinds}


def rate_data(data: FitData, *, anchor: str | None = None, anchor_elo: float = 0.0,
              prior: float = 2.0) -> dict[str, float]:
    """The ratings of `fit_data` without their intervals (a fraction of the work: no
    covariance), e.g. for a live standings line."""
    solution = solve(data, anchor, prior)
    base, _ = elo_base(solution, anchor is None)
    return {e: (t - base) * ELO_PER_LOGIT + anchor_elo
            for e, t in zip(data.entrants, solution.theta, strict=True)}


def elo_base(solution: Solution, centred: bool) -> tuple[float, list[int]]:
    """The logit put at the anchor's Elo (the anchor's, or centred, the reference group's
    mean), and the reference group's members."""
    theta = solution.theta
    members = solution.members()
    base = sum(theta[k] for k in members) / len(members) if centred else theta[solution.ref]
    return base, members


def _full_covariances(data: FitData, solution: Solution) -> tuple[Matrix, Matrix]:
    """(clustered, model) covariances over every entrant, in logits; zero rows for the
    reference and for infinite ratings."""
    n = len(data.entrants)
    if solution.penalties or not solution.kinds:
        est = covariances(solution.theta, solution.ref, data.comparisons, solution.penalties,
                          data.summed)
        return embed(est.covariance, est.free, n), embed(est.model, est.free, n)
    members = solution.members()
    sub = data.restrict(members)
    est = covariances([solution.theta[k] for k in members], members.index(solution.ref),
                      sub.comparisons, (), sub.summed)
    rows = [members[k] for k in est.free]
    return embed(est.covariance, rows, n), embed(est.model, rows, n)


def _confidence_bounds(data: FitData, solution: Solution) -> dict[int, float]:
    """Per LOWER/UPPER entrant, the one-sided 95% bound (logits) of its rating from its games
    against teams of the reference component alone. The members of its component keep their
    fitted distances and shift together; every other entrant stays where it was fitted. With
    a zero prior those distances are unknown: then only a lone entrant gets a bound. Absent
    when there are no such games."""
    theta, component = solution.theta, solution.component
    bounds = {}
    for k, kind in solution.kinds.items():
        mine = [e for e, c in enumerate(component) if c == component[k]]
        if kind is Bound.UNDETERMINED or (not math.isfinite(theta[k]) and len(mine) > 1):
            continue
        own = {e: theta[e] if math.isfinite(theta[e]) else 0.0 for e in mine}
        sign = 1.0 if kind is Bound.LOWER else -1.0
        games = [(sign * offset, coefficient, count)  # a LOWER component won all these games
                 for offset, coefficient, count in _games_against_home(data, solution, own)]
        if games:
            bounds[k] = own[k] + sign * _one_sided_shift(games, ONE_SIDED_ALPHA)
    return bounds


def _games_against_home(data: FitData, solution: Solution,
                        own: Mapping[int, float]) -> list[tuple[float, float, float]]:
    """(offset, coefficient, games) of each comparison between a team holding entrants of
    `own` (at the values given) and teams of the reference component alone, from our side:
    our team's strength difference is offset + coefficient * (the shift of `own`)."""
    values = [own.get(k, t) for k, t in enumerate(solution.theta)]
    games = []
    for c, (first, second) in zip(data.comparisons, data.sides, strict=True):
        ours = [t for t, side in enumerate((first, second)) if any(e in own for e in side)]
        others = [e for e in (*first, *second) if e not in own]
        if len(ours) != 1 or any(solution.component[e] != solution.home for e in others):
            continue
        direction = 1.0 if ours[0] == 0 else -1.0  # our team's side of the contrast
        coefficient = sum(v for e, v in c.contrast if e in own) * direction
        games.append((eta(values, c.contrast) * direction, coefficient, c.games))
    return games


def _one_sided_shift(games: Sequence[tuple[float, float, float]], alpha: float) -> float:
    """The shift x (logits) at which winning every game, each with probability
    sigmoid(offset + coefficient * x), has probability alpha: increasing in x."""
    target = math.log(alpha)

    def log_p(x: float) -> float:
        return sum(n * math.log(max(sigmoid(offset + coefficient * x), 1e-300))
                   for offset, coefficient, n in games)

    lo, hi = -60.0, 60.0
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if log_p(mid) < target:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)
