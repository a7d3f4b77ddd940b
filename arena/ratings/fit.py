"""Ratings: pure functions from game results to Elo ratings that say how sure they are.

The ranking is a Bradley-Terry maximum-likelihood fit over all rated games (order does not
matter), on the Elo scale, anchored on one entrant at a fixed rating (or centred on the mean).

The prior. The maximum-likelihood estimate exists only when every entrant has beaten every
other through a chain of wins (`arena.ratings.graph`); a perfect score breaks that, and its
rating is infinite. BayesElo's weak prior (a few virtual draws) keeps such ratings finite, but
put on every matchup it also pulls every other rating toward the mean: by about a fifth of
the spread with 8 pairs per matchup, so that in a field of 50 most true ratings fell outside
their intervals. Here the virtual draws go only where the estimate does not exist: to the
matchups between groups that never lost to each other (the strongly connected components of
the graph of wins). Everyone else gets the plain maximum-likelihood estimate; an entrant whose
rating is set by the prior is marked (`RatingFit.bounds`) with, beside it, the one-sided 95%
bound that its perfect (or zero) record supports by itself. With a zero prior such ratings
are infinite, and only the anchor's group is fitted.

The intervals. A sandwich covariance clustered by pair, because the two games of a duplicate
pair share their deals and are correlated, with the jackknife small-sample correction (CR3:
each pair's score divided by one minus its leverage), which holds the nominal 95% coverage
from 2 pairs per matchup up where the plain one (CR1) covered 77-82% at 2 pairs; and a floor
(`VARIANCE_FLOOR`) so that a matchup whose pairs all split cannot claim certainty. A seeded
bootstrap over pairs cross-checks them, skipping (and counting) resamples that cannot be
fitted. Incremental K-factor Elo is a secondary, order-dependent figure, never the ranking.

Rated games: a game whose pair has a harness fault is void (the whole pair is); a forfeit is a
loss for the offending team; a game with no winner and no forfeit is void.
Counts (per entrant, head to head, per matchup), connected groups and the `Standings` bundle
are in `arena.ratings.standings`; the sequential test on pairs is in `arena.ratings.sprt`.
"""

from __future__ import annotations

import enum
import math
import operator
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from arena.errors import ArenaError
from arena.faults import ForfeitKind
from arena.ratings.graph import connected_groups, reaches, win_components

ELO_PER_LOGIT = 400.0 / math.log(10.0)
"""Elo points per natural-log odds unit: P(win) = 1 / (1 + 10 ** (-elo_difference / 400))."""

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""

VARIANCE_FLOOR = 0.1
"""No rating (or difference of two that played) gets a variance below this share of the one
independent games would give. Duplicate deals cancel luck, so the pair-clustered variance is
rightly smaller, but a matchup whose every pair split would otherwise show +-0.0."""

MAX_LEVERAGE = 0.99
"""A pair's leverage is capped here: a pair that alone decides a rating makes the jackknife
factor 1 / (1 - h) infinite; capped, it gives an interval a hundred times wider instead."""

ONE_SIDED_ALPHA = 0.05
"""The one-sided error of the bounds given for ratings set by the prior."""


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


@dataclass(frozen=True)
class GameResult:
    """One stored game, as the ratings see it; tournament-agnostic."""

    pair_id: str
    """The duplicate pair this game belongs to; both games of a pair share their deals."""
    entrants: tuple[str, str]
    """Entrant keys of team 0 and team 1 (each team is two copies of one entrant)."""
    scores: tuple[int, int]
    """Final scores of team 0 and team 1."""
    winner: int | None
    """The winning team (0 or 1), or None when the game is void."""
    forfeit: tuple[int, str] | None = None
    """(offending team, kind) when a team forfeited; the game is then a loss for that team."""
    harness_fault: bool = False
    """The harness (not a bot) failed: the whole pair is void."""

    def __post_init__(self) -> None:
        if len(self.entrants) != 2 or self.entrants[0] == self.entrants[1]:
            raise ValueError(f"pair {self.pair_id}: a game needs two different entrants, "
                             f"got {self.entrants!r}")
        if self.winner not in (0, 1, None):
            raise ValueError(f"pair {self.pair_id}: winner must be 0, 1 or None")
        if self.forfeit is not None:
            team, kind = self.forfeit
            if team not in (0, 1):
                raise ValueError(f"pair {self.pair_id}: forfeiting team must be 0 or 1")
            if self.winner == team:
                raise ValueError(f"pair {self.pair_id}: team {team} forfeited but is the winner")
            object.__setattr__(self, "forfeit", (team, ForfeitKind(kind)))

    @property
    def rated_winner(self) -> int | None:
        """The team the rating counts as winner: the forfeiter's opponent, else `winner`."""
        if self.forfeit is not None:
            return 1 - self.forfeit[0]
        return self.winner

    @property
    def rated_winner_entrant(self) -> str | None:
        """The entrant key of `rated_winner`; None when the game is void."""
        team = self.rated_winner
        return None if team is None else self.entrants[team]


# --- Selecting rated games -----------------------------------------------------------------

class PairGame(Protocol):
    """What grouping games into pairs and picking the rated ones reads of a game
    (`GameResult` here, `individual.TeamResult` for mixed partners)."""

    @property
    def pair_id(self) -> str: ...
    @property
    def harness_fault(self) -> bool: ...
    @property
    def rated_winner(self) -> int | None: ...


G = TypeVar("G", bound=PairGame)


def pairs_of(results: Iterable[G], check: Callable[[Sequence[G], G], None],
             ) -> dict[str, list[G]]:
    """Games grouped by pair id, in order of each pair's first game; `check(games, game)`
    raises RatingsError unless `game` may join the `games` already grouped of its pair."""
    pairs: dict[str, list[G]] = {}
    for game in results:
        games = pairs.setdefault(game.pair_id, [])
        check(games, game)
        games.append(game)
    return pairs


def rated_of(pairs: Mapping[str, Sequence[G]]) -> dict[str, list[G]]:
    """Pairs with their rated games: harness-faulted pairs and void games left out."""
    rated = {}
    for pair_id, games in pairs.items():
        if any(g.harness_fault for g in games):
            continue
        kept = [g for g in games if g.rated_winner is not None]
        if kept:
            rated[pair_id] = kept
    return rated


def group_pairs(results: Iterable[GameResult]) -> dict[str, list[GameResult]]:
    """Games grouped by pair id, in order of each pair's first game; checks pair consistency.

    Raises RatingsError if a pair has more than two games or games between different entrants.
    """
    return pairs_of(results, check_joins_pair)


def check_joins_pair(games: Sequence[GameResult], game: GameResult) -> None:
    """RatingsError unless `game` may join the `games` stored of its pair: the same matchup
    (either way round), two games at most."""
    if not games:
        return
    first = games[0].entrants
    if first != game.entrants and first != game.entrants[::-1]:
        raise RatingsError(f"pair {game.pair_id} mixes matchups {first} and {game.entrants}")
    if len(games) == 2:
        raise RatingsError(f"pair {game.pair_id} has more than two games")


def rated_pairs(results: Iterable[GameResult]) -> dict[str, list[GameResult]]:
    """Pairs with their rated games: harness-faulted pairs and void games left out."""
    return rated_of(group_pairs(results))


def rated_games(results: Iterable[GameResult]) -> list[GameResult]:
    """The games that count, in their given order (see `rated_pairs`)."""
    results = list(results)
    return rated_games_of(results, rated_pairs(results))


def rated_games_of(results: Sequence[GameResult],
                   pairs: Mapping[str, Sequence[GameResult]]) -> list[GameResult]:
    """The games of `pairs` (rated pairs of `results`) in the order of `results`."""
    keep = {id(g) for games in pairs.values() for g in games}
    return [g for g in results if id(g) in keep]


# --- Small dense linear algebra (the number of entrants is small) --------------------------

Matrix = list[list[float]]
_SINGULAR = "singular information matrix: some entrants are not connected"


def _cholesky(a: Matrix) -> Matrix:
    """Lower-triangular L (rows of growing length) with a = L L^T, for a symmetric positive
    definite `a` (an information matrix, a Laplacian without its reference); RatingsError if
    it is not (entrants not connected). n^3/6 multiply-adds, each row a dot product in C."""
    low: Matrix = []
    for i, row in enumerate(a):
        li: list[float] = []
        for j in range(i):
            lj = low[j]
            li.append((row[j] - sum(map(operator.mul, li, lj[:j]))) / lj[j])
        pivot = row[i] - sum(map(operator.mul, li, li))
        if not pivot > 1e-300 * max(1.0, abs(row[i])):
            raise RatingsError(_SINGULAR)
        li.append(math.sqrt(pivot))
        low.append(li)
    return low


def _lower_inverse(low: Matrix) -> Matrix:
    """The inverse of a lower-triangular L from `_cholesky`, as rows of growing length."""
    n = len(low)
    inv: Matrix = []
    for i in range(n):
        li = low[i]
        row = [-sum(li[k] * inv[k][j] for k in range(j, i)) / li[i] for j in range(i)]
        row.append(1.0 / li[i])
        inv.append(row)
    return inv


def _inverse(a: Matrix) -> Matrix:
    """Inverse of a symmetric positive definite matrix, by Cholesky: a^-1 = L^-T L^-1;
    raises RatingsError if it is singular (not positive definite)."""
    n = len(a)
    inv_low = _lower_inverse(_cholesky(a))
    columns = [[inv_low[k][j] for k in range(j, n)] for j in range(n)]  # column j from row j
    out = [[0.0] * n for _ in range(n)]
    for i in range(n):
        ci = columns[i]
        for j in range(i, n):
            value = sum(map(operator.mul, ci[j - i:], columns[j]))
            out[i][j] = out[j][i] = value
    return out


def _solve_linear(a: Matrix, b: Sequence[float]) -> list[float]:
    """x with a x = b for a symmetric positive definite `a`, by Cholesky (a sixth of the
    work of an inverse by elimination); raises RatingsError if a is singular."""
    low = _cholesky(a)
    n = len(low)
    y: list[float] = []
    for i, li in enumerate(low):
        y.append((b[i] - sum(map(operator.mul, li, y))) / li[i])
    x = [0.0] * n
    for i in range(n - 1, -1, -1):
        x[i] = (y[i] - sum(low[k][i] * x[k] for k in range(i + 1, n))) / low[i][i]
    return x


def _mat_mul(a: Matrix, b: Matrix) -> Matrix:
    cols = list(zip(*b, strict=True))
    return [[sum(map(operator.mul, row, col)) for col in cols] for row in a]


# --- The Bradley-Terry fit -----------------------------------------------------------------

def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


@dataclass(frozen=True)
class _Data:
    """Rated games as index counts: per pair, (i, j, wins of i, wins of j) per matchup."""

    entrants: tuple[str, ...]
    clusters: tuple[tuple[tuple[int, int, float, float], ...], ...]
    matchups: frozenset[tuple[int, int]]

    @classmethod
    def from_results(cls, results: Iterable[GameResult]) -> _Data:
        return cls.from_pairs(rated_pairs(results))

    @classmethod
    def from_pairs(cls, pairs: Mapping[str, Sequence[GameResult]]) -> _Data:
        """From rated pairs (`rated_pairs`)."""
        entrants = tuple(sorted({e for games in pairs.values() for e in games[0].entrants}))
        index = {e: k for k, e in enumerate(entrants)}
        clusters = []
        for games in pairs.values():  # the games of a pair are of one matchup
            first = games[0].entrants
            a, b = index[first[0]], index[first[1]]
            low = first[0] if a < b else first[1]
            won_low = sum(g.rated_winner_entrant == low for g in games)
            clusters.append(((min(a, b), max(a, b), float(won_low),
                              float(len(games) - won_low)),))
        matchups = frozenset((i, j) for c in clusters for i, j, _, _ in c)
        return cls(entrants, tuple(clusters), matchups)

    @classmethod
    def from_clusters(cls, counts: Mapping[tuple[str, str, float, float], int]) -> _Data:
        """From rated pairs counted by what they came to: (a, b, wins of a, wins of b) with
        a < b, and how many pairs did so (`arena.ratings.tally`). Pairs that came to the same
        are the same cluster repeated: the fit is that of the pairs themselves."""
        entrants = tuple(sorted({e for a, b, _, _ in counts for e in (a, b)}))
        index = {e: k for k, e in enumerate(entrants)}
        clusters = []
        for (a, b, wa, wb), n in counts.items():
            clusters.extend([((index[a], index[b], float(wa), float(wb)),)] * n)
        matchups = frozenset((i, j) for c in clusters for i, j, _, _ in c)
        return cls(entrants, tuple(clusters), matchups)

    def restrict(self, members: Sequence[int]) -> _Data:
        """The games among `members` only, re-indexed in their order."""
        index = {k: a for a, k in enumerate(members)}
        clusters = []
        for cluster in self.clusters:
            kept = tuple((index[i], index[j], wi, wj) for i, j, wi, wj in cluster
                         if i in index and j in index)
            if kept:
                clusters.append(kept)
        matchups = frozenset((i, j) for c in clusters for i, j, _, _ in c)
        return _Data(tuple(self.entrants[k] for k in members), tuple(clusters), matchups)


def _win_matrix(n: int, clusters: Iterable[Sequence[tuple[int, int, float, float]]],
                matchups: Iterable[tuple[int, int]], prior: float) -> Matrix:
    """wins[i][j]: games i won against j, plus prior/2 virtual wins each way per matchup
    of `matchups` (those that get the prior)."""
    wins = [[0.0] * n for _ in range(n)]
    for cluster in clusters:
        for i, j, wi, wj in cluster:
            wins[i][j] += wi
            wins[j][i] += wj
    for i, j in matchups:
        wins[i][j] += prior / 2.0
        wins[j][i] += prior / 2.0
    return wins


def _log_likelihood(theta: Sequence[float], wins: Matrix) -> float:
    total = 0.0
    n = len(theta)
    for i in range(n):
        for j in range(n):
            if wins[i][j]:
                total += wins[i][j] * math.log(_sigmoid(theta[i] - theta[j]))
    return total


def _gradient_information(theta: Sequence[float], wins: Matrix,
                          free: Sequence[int]) -> tuple[list[float], Matrix]:
    """Gradient and observed information (minus the Hessian) over the free parameters."""
    n = len(theta)
    grad = [0.0] * n
    info = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            games = wins[i][j] + wins[j][i]
            if not games:
                continue
            p = _sigmoid(theta[i] - theta[j])
            grad[i] += wins[i][j] - games * p
            grad[j] -= wins[i][j] - games * p
            w = games * p * (1.0 - p)
            info[i][i] += w
            info[j][j] += w
            info[i][j] -= w
            info[j][i] -= w
    return [grad[i] for i in free], [[info[i][j] for j in free] for i in free]


def _fit_theta(wins: Matrix, ref: int, start: Sequence[float] | None = None) -> list[float]:
    """Maximise the likelihood with theta[ref] = 0 by damped Newton; natural-log units."""
    n = len(wins)
    free = [k for k in range(n) if k != ref]
    theta = list(start) if start is not None else [0.0] * n
    shift = theta[ref]
    theta = [t - shift for t in theta]
    current = _log_likelihood(theta, wins)
    for _ in range(200):
        grad, info = _gradient_information(theta, wins, free)
        step = _solve_linear(info, grad)
        t = 1.0
        while True:
            trial = theta[:]
            for k, s in zip(free, step, strict=True):
                trial[k] += t * s
            value = _log_likelihood(trial, wins)
            if value >= current - 1e-12 or t < 1e-6:
                break
            t /= 2.0
        theta, current = trial, value
        if max((abs(t * s) for s in step), default=0.0) < 1e-10:
            return theta
    raise RatingsError("the rating fit did not converge")


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


def _expand(v: Matrix, ref: int, n: int) -> Matrix:
    """Free-parameter covariance to a full one with a zero row and column at `ref`."""
    free = [k for k in range(n) if k != ref]
    full = [[0.0] * n for _ in range(n)]
    for a, i in enumerate(free):
        for b, j in enumerate(free):
            full[i][j] = v[a][b]
    return full


def _contrast_variance(v: Matrix, pos: Mapping[int, int], i: int, j: int) -> float:
    """Variance of theta_i - theta_j from a free-parameter covariance (the anchor is fixed)."""
    a, b = pos.get(i), pos.get(j)
    total = 0.0
    if a is not None:
        total += v[a][a]
    if b is not None:
        total += v[b][b]
    if a is not None and b is not None:
        total -= 2.0 * v[a][b]
    return total


def _meat(data: _Data, theta: Sequence[float], bread: Matrix,
          pos: Mapping[int, int]) -> Matrix:
    """Sum over pairs of the outer product of their jackknife-corrected score vectors (CR3).

    A pair's score on matchup (i, j) is its residual, wins of i minus expected, divided by one
    minus its leverage h = games p (1 - p) var(theta_i - theta_j). Sparse: a pair touches two
    entrants.
    """
    m = len(pos)
    meat = [[0.0] * m for _ in range(m)]
    factors: dict[tuple[int, int, float], tuple[float, float]] = {}

    def residual(i: int, j: int, wi: float, wj: float) -> float:
        """The pair's jackknife-corrected residual on matchup (i, j)."""
        games = wi + wj
        factor = factors.get((i, j, games))
        if factor is None:  # the same for every pair of the matchup with as many games
            p = _sigmoid(theta[i] - theta[j])
            leverage = games * p * (1.0 - p) * _contrast_variance(bread, pos, i, j)
            factor = factors[(i, j, games)] = (p, 1.0 / (1.0 - min(leverage, MAX_LEVERAGE)))
        p, scale = factor
        return (wi - games * p) * scale

    squares: dict[tuple[int, int], float] = {}  # per matchup: its pairs' squared scores
    for cluster in data.clusters:
        if len(cluster) == 1:  # the usual pair: its score vector is (+r, -r) on (i, j)
            i, j, wi, wj = cluster[0]
            r = residual(i, j, wi, wj)
            squares[(i, j)] = squares.get((i, j), 0.0) + r * r
            continue
        score: dict[int, float] = {}
        for i, j, wi, wj in cluster:
            r = residual(i, j, wi, wj)
            if i in pos:
                score[pos[i]] = score.get(pos[i], 0.0) + r
            if j in pos:
                score[pos[j]] = score.get(pos[j], 0.0) - r
        for row_at, row_score in score.items():
            row = meat[row_at]
            for column_at, column_score in score.items():
                row[column_at] += row_score * column_score
    for (i, j), total in squares.items():
        a, b = pos.get(i), pos.get(j)
        if a is not None:
            meat[a][a] += total
        if b is not None:
            meat[b][b] += total
        if a is not None and b is not None:
            meat[a][b] -= total
            meat[b][a] -= total
    return meat


def _floor(sandwich: Matrix, bread: Matrix, data: _Data, pos: Mapping[int, int]) -> Matrix:
    """sandwich + lambda * bread with the least lambda >= 0 that lifts every rating's variance,
    and that of every played difference, to VARIANCE_FLOOR times the model's (stays PSD)."""
    lam = 0.0
    checks = [(k, k) for k in pos] + list(data.matchups)
    for i, j in checks:
        if i == j:
            s, b = sandwich[pos[i]][pos[i]], bread[pos[i]][pos[i]]
        else:
            s, b = _contrast_variance(sandwich, pos, i, j), _contrast_variance(bread, pos, i, j)
        if b > 0.0:
            lam = max(lam, (VARIANCE_FLOOR * b - s) / b)
    if lam == 0.0:
        return sandwich
    return [[s + lam * b for s, b in zip(rs, rb, strict=True)] for rs, rb in zip(sandwich, bread, strict=True)]


def _covariances(data: _Data, theta: Sequence[float], wins: Matrix,
                 ref: int) -> tuple[Matrix, Matrix]:
    """(clustered, model) covariances over the free parameters (all but ref), logit units."""
    free = [k for k in range(len(theta)) if k != ref]
    pos = {k: a for a, k in enumerate(free)}
    _, info = _gradient_information(theta, wins, free)
    bread = _inverse(info)
    sandwich = _mat_mul(_mat_mul(bread, _meat(data, theta, bread, pos)), bread)
    return _floor(sandwich, bread, data, pos), bread


def _reference(data: _Data, anchor: str | None) -> int:
    if anchor is None:
        return 0
    if anchor not in data.entrants:
        raise RatingsError(f"the anchor {anchor!r} has no rated games")
    return data.entrants.index(anchor)


def _reference_group(component: Sequence[int], ref: int, anchored: bool) -> int:
    """The win component the ratings are measured from: the anchor's, else the largest
    (ties: the one holding the lowest entrant index)."""
    if anchored:
        return component[ref]
    sizes: dict[int, int] = {}
    for c in component:
        sizes[c] = sizes.get(c, 0) + 1
    return max(sizes, key=lambda c: (sizes[c], -component.index(c)))


def _bound_kinds(raw: Matrix, component: Sequence[int], home: int) -> dict[int, Bound]:
    """For each entrant outside the reference component `home`: which bound its rating is."""
    member = component.index(home)
    below_home = reaches(raw, member)
    kinds = {}
    for k, c in enumerate(component):
        if c == home:
            continue
        if member in reaches(raw, k):
            kinds[k] = Bound.LOWER
        elif k in below_home:
            kinds[k] = Bound.UPPER
        else:
            kinds[k] = Bound.UNDETERMINED
    return kinds


def _one_sided_shift(games: Sequence[tuple[float, float]], alpha: float) -> float:
    """The shift x (logits) at which winning every game, each at sigmoid(x + offset) with
    `count` games, has probability alpha: games is [(offset, count)]. Increasing in x."""
    target = math.log(alpha)

    def log_p(x: float) -> float:
        return sum(n * math.log(max(_sigmoid(x + offset), 1e-300)) for offset, n in games)

    lo, hi = -60.0, 60.0
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if log_p(mid) < target:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def _confidence_bounds(data: _Data, theta: Sequence[float], component: Sequence[int],
                       kinds: Mapping[int, Bound], home: int) -> dict[int, float]:
    """Per LOWER/UPPER entrant, the one-sided 95% bound (logits, the fit's scale) of its
    rating from its games against the reference component alone: its component's members
    keep their fitted distances (unknown with a zero prior: then only a lone entrant gets a
    bound) and shift together. Absent when there are no such games."""
    bounds = {}
    for k, kind in kinds.items():
        mine = [e for e, c in enumerate(component) if c == component[k]]
        if kind is Bound.UNDETERMINED or (not math.isfinite(theta[k]) and len(mine) > 1):
            continue
        own = {e: theta[e] if math.isfinite(theta[e]) else 0.0 for e in mine}
        sign = 1.0 if kind is Bound.LOWER else -1.0
        games = [(sign * (own[a] - theta[b]), wi + wj)
                 for cluster in data.clusters for i, j, wi, wj in cluster
                 for a, b in ((i, j), (j, i)) if a in own and component[b] == home]
        if games:
            bounds[k] = own[k] + sign * _one_sided_shift(games, ONE_SIDED_ALPHA)
    return bounds


@dataclass(frozen=True)
class _Solution:
    """The point estimate of one fit, before covariances: logit ratings with ref at 0."""

    theta: list[float]
    ref: int
    wins: Matrix
    """Real games plus the prior's virtual draws (empty with a zero prior and infinities)."""
    component: list[int]
    home: int
    kinds: dict[int, Bound]
    prior_matchups: frozenset[tuple[int, int]]


def _solve(data: _Data, anchor: str | None, prior: float,
           start: Sequence[float] | None = None) -> _Solution:
    """Maximise the likelihood, with the prior on the matchups between win components only.

    Raises RatingsError when fewer than two entrants played, they are not all connected by
    games, or the anchor has no games.
    """
    n = len(data.entrants)
    if n < 2:
        raise RatingsError("ratings need rated games between at least two entrants")
    groups = connected_groups(n, data.matchups)
    if len(groups) > 1:
        names = "; ".join(", ".join(data.entrants[k] for k in g) for g in groups)
        raise RatingsError(f"entrants are not all connected by games: {names}")
    ref = _reference(data, anchor)
    raw = _win_matrix(n, data.clusters, (), 0.0)
    component = win_components(raw)
    home = _reference_group(component, ref, anchor is not None)
    if component[ref] != home:
        ref = component.index(home)
    kinds = _bound_kinds(raw, component, home)
    cross = frozenset((i, j) for i, j in data.matchups if component[i] != component[j])
    if kinds and prior <= 0.0:
        return _Solution(_solve_home(data, component, home, ref, kinds, start), ref, [],
                         component, home, kinds, frozenset())
    wins = _win_matrix(n, data.clusters, cross, prior)
    return _Solution(_fit_theta(wins, ref, start), ref, wins, component, home, kinds, cross)


def _solve_home(data: _Data, component: Sequence[int], home: int, ref: int,
                kinds: Mapping[int, Bound], start: Sequence[float] | None) -> list[float]:
    """With a zero prior: the reference component alone by maximum likelihood (it is
    strongly connected, so the estimate exists); everyone else +-inf, or nan."""
    members = [k for k, c in enumerate(component) if c == home]
    sub = data.restrict(members)
    wins = _win_matrix(len(members), sub.clusters, (), 0.0)
    sub_start = None if start is None else [start[k] for k in members]
    inner = _fit_theta(wins, members.index(ref), sub_start)
    infinite = {Bound.LOWER: math.inf, Bound.UPPER: -math.inf, Bound.UNDETERMINED: math.nan}
    theta = [infinite[kinds[k]] if k in kinds else 0.0 for k in range(len(component))]
    for k, t in zip(members, inner, strict=True):
        theta[k] = t
    return theta


def _centre_on(cov: Matrix, members: Sequence[int]) -> Matrix:
    """Covariance of ratings shifted so that the mean over `members` is zero."""
    size = len(members)
    row = [sum(r[k] for k in members) / size for r in cov]
    total = sum(row[k] for k in members) / size
    return [[cov[i][j] - row[i] - row[j] + total for j in range(len(cov))]
            for i in range(len(cov))]


def fit_ratings(results: Iterable[GameResult], *, anchor: str | None = None,
                anchor_elo: float = 0.0, prior: float = 2.0) -> RatingFit:
    """Fit Bradley-Terry ratings on the Elo scale over all rated games (order-independent).

    `anchor` is held at `anchor_elo` (None: the mean rating of the largest group that beat
    each other is). `prior` is the number of virtual draws given to each matchup between two
    groups that never lost to each other, the only place where the estimate would not exist
    (see the module docstring); with 0 those ratings are infinite. Raises RatingsError when
    nothing can be rated, the anchor has no games, or entrants are not all connected.
    """
    return _fit_data(_Data.from_results(results), anchor, anchor_elo, prior)


def fit_rated_pairs(pairs: Mapping[str, Sequence[GameResult]], *, anchor: str | None = None,
                    anchor_elo: float = 0.0, prior: float = 2.0) -> RatingFit:
    """`fit_ratings` of results whose rated pairs (`rated_pairs`) are `pairs`: for a caller
    that selected them already."""
    return _fit_data(_Data.from_pairs(pairs), anchor, anchor_elo, prior)


def fit_clusters(counts: Mapping[tuple[str, str, float, float], int], *,
                 anchor: str | None = None, anchor_elo: float = 0.0, prior: float = 2.0,
                 start: Mapping[str, float] | None = None) -> RatingFit:
    """`fit_ratings` of rated pairs counted by what they came to (`_Data.from_clusters`),
    for a caller that keeps such counts as games arrive (`arena.ratings.tally`).

    `start`: ratings (Elo) to start the likelihood's maximisation from, e.g. the last fit's
    (a warm start: fewer Newton steps when a few games changed). The maximum is the same
    whatever the start; only the steps to it differ (the test: within 1e-6 Elo).
    """
    data = _Data.from_clusters(counts)
    theta = None
    if start is not None:
        theta = [start.get(e, 0.0) / ELO_PER_LOGIT for e in data.entrants]
        theta = [t if math.isfinite(t) else 0.0 for t in theta]
    return _fit_data(data, anchor, anchor_elo, prior, theta)


def rate(results: Iterable[GameResult], *, anchor: str | None = None, anchor_elo: float = 0.0,
         prior: float = 2.0) -> dict[str, float]:
    """The ratings `fit_ratings` gives, without their intervals (a fraction of the work: no
    covariance), e.g. for a live standings line. Raises RatingsError as `fit_ratings` does."""
    data = _Data.from_results(results)
    solution = _solve(data, anchor, prior)
    to_elo = _elo_scale(solution, anchor is None, anchor_elo)
    return {e: to_elo(t) for e, t in zip(data.entrants, solution.theta, strict=True)}


def _elo_scale(solution: _Solution, centred: bool,
               anchor_elo: float) -> Callable[[float], float]:
    """Logits to Elo: the anchor (or, centred, the mean of the reference group) at
    `anchor_elo`."""
    theta = solution.theta
    members = [k for k, c in enumerate(solution.component) if c == solution.home]
    base = sum(theta[k] for k in members) / len(members) if centred else theta[solution.ref]
    return lambda t: (t - base) * ELO_PER_LOGIT + anchor_elo


def _fit_data(data: _Data, anchor: str | None, anchor_elo: float, prior: float,
              start: Sequence[float] | None = None) -> RatingFit:
    solution = _solve(data, anchor, prior, start)
    n, ref, theta = len(data.entrants), solution.ref, solution.theta
    members = [k for k, c in enumerate(solution.component) if c == solution.home]
    if solution.wins:
        cov, model = _covariances(data, theta, solution.wins, ref)
        cov_full = _expand(cov, ref, n)
        model_full = _expand(model, ref, n)
    else:
        sub = data.restrict(members)
        inner = [theta[k] for k in members]
        cov, model = _covariances(sub, inner, _win_matrix(len(members), sub.clusters, (), 0.0),
                                  members.index(ref))
        cov_full, model_full = ([[0.0] * n for _ in range(n)] for _ in range(2))
        for target, small in ((cov_full, _expand(cov, members.index(ref), len(members))),
                              (model_full, _expand(model, members.index(ref), len(members)))):
            for a, i in enumerate(members):
                for b, j in enumerate(members):
                    target[i][j] = small[a][b]
    centred = anchor is None
    to_elo = _elo_scale(solution, centred, anchor_elo)

    def scale(m: Matrix) -> tuple[tuple[float, ...], ...]:
        m = _centre_on(m, members) if centred else m
        return tuple(tuple(x * ELO_PER_LOGIT ** 2 for x in row) for row in m)

    confidence = _confidence_bounds(data, theta, solution.component, solution.kinds,
                                    solution.home)
    keys = data.entrants
    games = int(sum(wi + wj for c in data.clusters for _, _, wi, wj in c))
    return RatingFit(keys, {e: to_elo(t) for e, t in zip(keys, theta, strict=True)}, scale(cov_full),
                     scale(model_full), anchor, anchor_elo, prior, len(data.clusters), games,
                     {keys[k]: kind for k, kind in solution.kinds.items()},
                     {keys[k]: to_elo(t) for k, t in confidence.items()},
                     len(solution.prior_matchups))


# --- Bootstrap over pairs ------------------------------------------------------------------

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


def _percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile of sorted values, q in [0, 1]."""
    pos = q * (len(values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (pos - lo)


def bootstrap_ratings(results: Iterable[GameResult], *, anchor: str | None = None,
                      anchor_elo: float = 0.0, prior: float = 2.0, replicates: int = 200,
                      seed: int = 0) -> BootstrapResult:
    """Resample rated pairs with replacement `replicates` times and refit each time, exactly
    as `fit_ratings` fits (the prior goes where the resample needs it).

    Seeded and deterministic: the same results and seed give the same figures. Resamples that
    cannot be fitted are skipped and counted; with fewer than two fitted, the figures are
    empty. Raises RatingsError if the results themselves cannot be fitted.
    """
    return bootstrap_rated_pairs(rated_pairs(results), anchor=anchor, anchor_elo=anchor_elo,
                                 prior=prior, replicates=replicates, seed=seed)


def bootstrap_rated_pairs(pairs: Mapping[str, Sequence[GameResult]], *,
                          anchor: str | None = None, anchor_elo: float = 0.0,
                          prior: float = 2.0, replicates: int = 200,
                          seed: int = 0) -> BootstrapResult:
    """`bootstrap_ratings` of results whose rated pairs (`rated_pairs`) are `pairs`."""
    if replicates < 2:
        raise ValueError("a bootstrap needs at least two replicates")
    data = _Data.from_pairs(pairs)
    original = _solve(data, anchor, prior).theta
    finite = [math.isfinite(t) for t in original]
    start = [t if ok else 0.0 for t, ok in zip(original, finite, strict=True)]
    rng = random.Random(seed)
    draws = []
    for _ in range(replicates):
        clusters = tuple(rng.choices(data.clusters, k=len(data.clusters)))
        sample = _Data(data.entrants, clusters,
                       frozenset((i, j) for c in clusters for i, j, _, _ in c))
        try:
            solution = _solve(sample, anchor, prior, start)
        except RatingsError:
            continue
        theta = solution.theta
        if not all(math.isfinite(t) for t, ok in zip(theta, finite, strict=True) if ok):
            continue  # a rating the data estimates is infinite in this resample
        members = [k for k, c in enumerate(solution.component) if c == solution.home]
        base = sum(theta[k] for k in members) / len(members) if anchor is None else \
            theta[solution.ref]
        draws.append([(t - base) * ELO_PER_LOGIT + anchor_elo if ok else math.nan
                      for t, ok in zip(theta, finite, strict=True)])
    return _summarise(data.entrants, draws, seed, replicates - len(draws))


def _summarise(keys: tuple[str, ...], draws: Sequence[Sequence[float]], seed: int,
               skipped: int) -> BootstrapResult:
    """Spread of the draws; entrants whose draws are nan (infinite ratings) are left out."""
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


# --- Incremental Elo (secondary) -----------------------------------------------------------

def incremental_elo(results: Iterable[GameResult], *, k_factor: float = 16.0,
                    anchor: str | None = None, anchor_elo: float = 0.0) -> dict[str, float]:
    """Classic K-factor Elo over the rated games in their given order (order-dependent).

    Everyone starts at `anchor_elo`; at the end all ratings shift so that the anchor (if
    given and rated) sits at `anchor_elo`. For display beside the fit, never for ranking.
    """
    return incremental_rated(rated_games(results), k_factor=k_factor, anchor=anchor,
                             anchor_elo=anchor_elo)


def incremental_rated(games: Iterable[GameResult], *, k_factor: float = 16.0,
                      anchor: str | None = None, anchor_elo: float = 0.0) -> dict[str, float]:
    """`incremental_elo` of games that are all rated (`rated_games`), in their order."""
    elo: dict[str, float] = {}
    for g in games:
        a, b = g.entrants
        ra, rb = elo.setdefault(a, anchor_elo), elo.setdefault(b, anchor_elo)
        expected = 1.0 / (1.0 + 10.0 ** ((rb - ra) / 400.0))
        delta = k_factor * ((1.0 if g.rated_winner == 0 else 0.0) - expected)
        elo[a], elo[b] = ra + delta, rb - delta
    shift = elo[anchor] - anchor_elo if anchor in elo else 0.0
    return {e: r - shift for e, r in elo.items()}
