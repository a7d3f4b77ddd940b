"""Ratings: pure functions from game results to Elo ratings that say how sure they are.

The ranking is a Bradley-Terry maximum-a-posteriori fit over all rated games (order does not
matter), on the Elo scale, with BayesElo's weak prior (a few virtual draws per matchup) so that
perfect scores stay finite, anchored on one entrant at a fixed rating. Intervals come from a
sandwich covariance clustered by pair, because the two games of a duplicate pair share their
deals and are correlated; a seeded bootstrap over pairs cross-checks them. Incremental K-factor
Elo is a secondary, order-dependent figure, never the ranking.

Rated games: a game whose pair has a harness fault is void (the whole pair is); a forfeit is a
loss for the offending team; a game with no winner and no forfeit is void.
Counts (per entrant, head to head, per matchup) and the `Standings` bundle are in
`arena.ratings.standings`; the sequential test on pairs is in `arena.ratings.sprt`.
"""

from __future__ import annotations

import enum
import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from arena.errors import ArenaError

ELO_PER_LOGIT = 400.0 / math.log(10.0)
"""Elo points per natural-log odds unit: P(win) = 1 / (1 + 10 ** (-elo_difference / 400))."""

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""


class ForfeitKind(enum.StrEnum):
    """Why a team forfeited a game (the referee's bot-fault taxonomy)."""

    TIMEOUT = "timeout"
    CRASH = "crash"
    PROTOCOL_VIOLATION = "protocol_violation"
    ILLEGAL_ACTION = "illegal_action"
    START_FAILURE = "start_failure"
    HANDSHAKE_FAILURE = "handshake_failure"


class RatingsError(ArenaError):
    """The results cannot be rated as asked (disconnected entrants, an infinite estimate...)."""


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


# --- Selecting rated games -----------------------------------------------------------------

def group_pairs(results: Iterable[GameResult]) -> dict[str, list[GameResult]]:
    """Games grouped by pair id, in order of each pair's first game; checks pair consistency.

    Raises RatingsError if a pair has more than two games or games between different entrants.
    """
    pairs: dict[str, list[GameResult]] = {}
    for game in results:
        games = pairs.setdefault(game.pair_id, [])
        if games and set(games[0].entrants) != set(game.entrants):
            raise RatingsError(f"pair {game.pair_id} mixes matchups {games[0].entrants} "
                               f"and {game.entrants}")
        games.append(game)
        if len(games) > 2:
            raise RatingsError(f"pair {game.pair_id} has more than two games")
    return pairs


def rated_pairs(results: Iterable[GameResult]) -> dict[str, list[GameResult]]:
    """Pairs with their rated games: harness-faulted pairs and void games left out."""
    rated = {}
    for pair_id, games in group_pairs(results).items():
        if any(g.harness_fault for g in games):
            continue
        kept = [g for g in games if g.rated_winner is not None]
        if kept:
            rated[pair_id] = kept
    return rated


def rated_games(results: Iterable[GameResult]) -> list[GameResult]:
    """The games that count, in their given order (see `rated_pairs`)."""
    results = list(results)
    keep = {id(g) for games in rated_pairs(results).values() for g in games}
    return [g for g in results if id(g) in keep]


# --- Small dense linear algebra (the number of entrants is small) --------------------------

Matrix = list[list[float]]


def _inverse(a: Matrix) -> Matrix:
    """Inverse by Gauss-Jordan with partial pivoting; raises RatingsError if singular."""
    n = len(a)
    m = [row[:] + [1.0 if i == j else 0.0 for j in range(n)] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        if abs(m[pivot][col]) < 1e-300:
            raise RatingsError("singular information matrix: some entrants are not connected")
        m[col], m[pivot] = m[pivot], m[col]
        inv_p = 1.0 / m[col][col]
        m[col] = [x * inv_p for x in m[col]]
        for r in range(n):
            if r != col and m[r][col] != 0.0:
                f = m[r][col]
                m[r] = [x - f * y for x, y in zip(m[r], m[col])]
    return [row[n:] for row in m]


def _mat_vec(a: Matrix, v: Sequence[float]) -> list[float]:
    return [sum(x * y for x, y in zip(row, v)) for row in a]


def _mat_mul(a: Matrix, b: Matrix) -> Matrix:
    cols = list(zip(*b))
    return [[sum(x * y for x, y in zip(row, col)) for col in cols] for row in a]


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
        pairs = rated_pairs(results)
        entrants = tuple(sorted({e for games in pairs.values() for g in games for e in g.entrants}))
        index = {e: k for k, e in enumerate(entrants)}
        clusters = []
        for games in pairs.values():
            counts: dict[tuple[int, int], list[float]] = {}
            for g in games:
                a, b = index[g.entrants[0]], index[g.entrants[1]]
                i, j = min(a, b), max(a, b)
                winner = index[g.entrants[g.rated_winner]]
                counts.setdefault((i, j), [0.0, 0.0])[0 if winner == i else 1] += 1.0
            clusters.append(tuple((i, j, w[0], w[1]) for (i, j), w in counts.items()))
        matchups = frozenset((i, j) for c in clusters for i, j, _, _ in c)
        return cls(entrants, tuple(clusters), matchups)


def _win_matrix(n: int, clusters: Iterable[Sequence[tuple[int, int, float, float]]],
                matchups: Iterable[tuple[int, int]], prior: float) -> Matrix:
    """wins[i][j]: games i won against j, plus prior/2 virtual wins each way per matchup."""
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
        step = _mat_vec(_inverse(info), grad)
        t = 1.0
        while True:
            trial = theta[:]
            for k, s in zip(free, step):
                trial[k] += t * s
            value = _log_likelihood(trial, wins)
            if value >= current - 1e-12 or t < 1e-6:
                break
            t /= 2.0
        theta, current = trial, value
        if max((abs(t * s) for s in step), default=0.0) < 1e-10:
            return theta
    raise RatingsError("the rating fit did not converge")


def _check_identifiable(n: int, wins: Matrix) -> None:
    """The maximum exists iff every entrant has beaten, via a chain, every other (Zermelo)."""
    for forward in (True, False):
        seen, todo = {0}, [0]
        while todo:
            i = todo.pop()
            for j in range(n):
                if j not in seen and (wins[i][j] if forward else wins[j][i]) > 0:
                    seen.add(j)
                    todo.append(j)
        if len(seen) < n:
            raise RatingsError("some ratings are infinite or undetermined: entrants are not "
                               "connected by games, or someone has a perfect score and the "
                               "prior is 0")


@dataclass(frozen=True)
class RatingFit:
    """Bradley-Terry ratings on the Elo scale with their pair-clustered covariance."""

    entrants: tuple[str, ...]
    """Entrant keys, sorted; the order of the covariance rows."""
    elo: Mapping[str, float]
    """Rating per entrant: the anchor sits at `anchor_elo`."""
    covariance: tuple[tuple[float, ...], ...]
    """Sandwich covariance clustered by pair, in Elo squared; the anchor's row is zero."""
    model_covariance: tuple[tuple[float, ...], ...]
    """Inverse-information covariance that treats games as independent (for comparison)."""
    anchor: str | None
    """The entrant held at `anchor_elo`; None centres the mean rating there instead."""
    anchor_elo: float
    prior: float
    """Virtual draws added per matchup that was played (BayesElo's prior)."""
    pairs: int
    """Rated pairs (clusters) in the fit."""
    games: int
    """Rated games in the fit."""

    def _k(self, key: str) -> int:
        return self.entrants.index(key)

    def stderr(self, key: str) -> float:
        """Standard error of one rating, in Elo."""
        return math.sqrt(max(self.covariance[self._k(key)][self._k(key)], 0.0))

    def interval(self, key: str) -> float:
        """Half-width of the 95% interval of one rating, in Elo."""
        return Z95 * self.stderr(key)

    def difference(self, a: str, b: str) -> tuple[float, float]:
        """Elo difference a - b and the half-width of its 95% interval."""
        i, j = self._k(a), self._k(b)
        c = self.covariance
        var = c[i][i] + c[j][j] - 2.0 * c[i][j]
        return self.elo[a] - self.elo[b], Z95 * math.sqrt(max(var, 0.0))

    def los(self, a: str, b: str) -> float:
        """Likelihood of superiority: the probability that a is stronger than b."""
        diff, half = self.difference(a, b)
        sd = half / Z95
        if sd == 0.0:
            return 0.5 if diff == 0.0 else float(diff > 0.0)
        return 0.5 * (1.0 + math.erf(diff / sd / math.sqrt(2.0)))

    def ranking(self) -> tuple[str, ...]:
        """Entrant keys from the highest rating down (ties by key)."""
        return tuple(sorted(self.entrants, key=lambda e: (-self.elo[e], e)))


def _expand(v: Matrix, ref: int, n: int) -> Matrix:
    """Free-parameter covariance to a full one with a zero row and column at `ref`."""
    free = [k for k in range(n) if k != ref]
    full = [[0.0] * n for _ in range(n)]
    for a, i in enumerate(free):
        for b, j in enumerate(free):
            full[i][j] = v[a][b]
    return full


def _centre(cov: Matrix) -> Matrix:
    """Covariance of ratings shifted to a zero mean: A cov A' with A = I - 11'/n."""
    n = len(cov)
    row = [sum(r) / n for r in cov]
    total = sum(row) / n
    return [[cov[i][j] - row[i] - row[j] + total for j in range(n)] for i in range(n)]


def _cluster_scores(data: _Data, theta: Sequence[float], free: Sequence[int]) -> list[list[float]]:
    """Per pair, the gradient of its games' log-likelihood over the free parameters."""
    pos = {k: a for a, k in enumerate(free)}
    scores = []
    for cluster in data.clusters:
        s = [0.0] * len(free)
        for i, j, wi, wj in cluster:
            resid = wi - (wi + wj) * _sigmoid(theta[i] - theta[j])
            if i in pos:
                s[pos[i]] += resid
            if j in pos:
                s[pos[j]] -= resid
        scores.append(s)
    return scores


def _sandwich(data: _Data, theta: Sequence[float], info: Matrix,
              free: Sequence[int]) -> tuple[Matrix, Matrix]:
    """(clustered sandwich, model) covariances over the free parameters, logit units."""
    bread = _inverse(info)
    scores = _cluster_scores(data, theta, free)
    m = len(free)
    meat = [[sum(s[a] * s[b] for s in scores) for b in range(m)] for a in range(m)]
    g = len(scores)
    if g > 1:  # the usual small-sample correction of clustered sandwiches (CR1)
        meat = [[x * g / (g - 1) for x in row] for row in meat]
    return _mat_mul(_mat_mul(bread, meat), bread), bread


def _to_elo(cov: Matrix, ref: int, n: int, centred: bool) -> tuple[tuple[float, ...], ...]:
    full = _expand([[x * ELO_PER_LOGIT ** 2 for x in row] for row in cov], ref, n)
    if centred:
        full = _centre(full)
    return tuple(tuple(row) for row in full)


def _ratings(theta: Sequence[float], ref: int, centred: bool, anchor_elo: float) -> list[float]:
    elo = [t * ELO_PER_LOGIT for t in theta]
    base = sum(elo) / len(elo) if centred else elo[ref]
    return [e - base + anchor_elo for e in elo]


def _reference(data: _Data, anchor: str | None) -> int:
    if anchor is None:
        return 0
    if anchor not in data.entrants:
        raise RatingsError(f"the anchor {anchor!r} has no rated games")
    return data.entrants.index(anchor)


def fit_ratings(results: Iterable[GameResult], *, anchor: str | None = None,
                anchor_elo: float = 0.0, prior: float = 2.0) -> RatingFit:
    """Fit Bradley-Terry ratings on the Elo scale over all rated games (order-independent).

    `anchor` is held at `anchor_elo` (None: the mean rating is). `prior` is the number of
    virtual draws added to every matchup that was played; it keeps perfect scores finite and
    vanishes as games accumulate. Raises RatingsError when nothing can be rated, the anchor has
    no games, entrants are not connected, or a perfect score meets a zero prior.
    """
    data = _Data.from_results(results)
    n = len(data.entrants)
    if n < 2:
        raise RatingsError("ratings need rated games between at least two entrants")
    ref = _reference(data, anchor)
    wins = _win_matrix(n, data.clusters, data.matchups, prior)
    _check_identifiable(n, wins)
    theta = _fit_theta(wins, ref)
    free = [k for k in range(n) if k != ref]
    _, info = _gradient_information(theta, wins, free)
    sandwich, model = _sandwich(data, theta, info, free)
    centred = anchor is None
    elo = _ratings(theta, ref, centred, anchor_elo)
    games = int(sum(wi + wj for c in data.clusters for _, _, wi, wj in c))
    return RatingFit(data.entrants, dict(zip(data.entrants, elo)),
                     _to_elo(sandwich, ref, n, centred), _to_elo(model, ref, n, centred),
                     anchor, anchor_elo, prior, len(data.clusters), games)


# --- Bootstrap over pairs ------------------------------------------------------------------

@dataclass(frozen=True)
class BootstrapResult:
    """Ratings refitted on pairs resampled with replacement (a cross-check of the sandwich)."""

    entrants: tuple[str, ...]
    replicates: int
    seed: int
    stderr: Mapping[str, float]
    """Standard deviation of each rating over the replicates, in Elo."""
    low: Mapping[str, float]
    """2.5th percentile of each rating."""
    high: Mapping[str, float]
    """97.5th percentile of each rating."""
    covariance: tuple[tuple[float, ...], ...]
    """Covariance of the ratings over the replicates, in Elo squared."""


def _percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile of sorted values, q in [0, 1]."""
    pos = q * (len(values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (pos - lo)


def bootstrap_ratings(results: Iterable[GameResult], *, anchor: str | None = None,
                      anchor_elo: float = 0.0, prior: float = 2.0, replicates: int = 200,
                      seed: int = 0) -> BootstrapResult:
    """Resample rated pairs with replacement `replicates` times and refit each time.

    Seeded and deterministic: the same results and seed give the same figures. The prior goes
    to the matchups of the original data so that every replicate stays connected.
    """
    if replicates < 2:
        raise ValueError("a bootstrap needs at least two replicates")
    data = _Data.from_results(results)
    n = len(data.entrants)
    if n < 2:
        raise RatingsError("ratings need rated games between at least two entrants")
    ref = _reference(data, anchor)
    start = _fit_theta(_win_matrix(n, data.clusters, data.matchups, prior), ref)
    rng = random.Random(seed)
    draws = []
    for _ in range(replicates):
        sample = rng.choices(data.clusters, k=len(data.clusters))
        wins = _win_matrix(n, sample, data.matchups, prior)
        _check_identifiable(n, wins)
        draws.append(_ratings(_fit_theta(wins, ref, start), ref, anchor is None, anchor_elo))
    mean = [sum(d[k] for d in draws) / replicates for k in range(n)]
    cov = tuple(tuple(sum((d[i] - mean[i]) * (d[j] - mean[j]) for d in draws) / (replicates - 1)
                      for j in range(n)) for i in range(n))
    columns = [sorted(d[k] for d in draws) for k in range(n)]
    keys = data.entrants
    return BootstrapResult(
        keys, replicates, seed,
        {e: math.sqrt(cov[k][k]) for k, e in enumerate(keys)},
        {e: _percentile(columns[k], 0.025) for k, e in enumerate(keys)},
        {e: _percentile(columns[k], 0.975) for k, e in enumerate(keys)},
        cov)


# --- Incremental Elo (secondary) -----------------------------------------------------------

def incremental_elo(results: Iterable[GameResult], *, k_factor: float = 16.0,
                    anchor: str | None = None, anchor_elo: float = 0.0) -> dict[str, float]:
    """Classic K-factor Elo over the rated games in their given order (order-dependent).

    Everyone starts at `anchor_elo`; at the end all ratings shift so that the anchor (if
    given and rated) sits at `anchor_elo`. For display beside the fit, never for ranking.
    """
    elo: dict[str, float] = {}
    for g in rated_games(results):
        a, b = g.entrants
        ra, rb = elo.setdefault(a, anchor_elo), elo.setdefault(b, anchor_elo)
        expected = 1.0 / (1.0 + 10.0 ** ((rb - ra) / 400.0))
        delta = k_factor * ((1.0 if g.rated_winner == 0 else 0.0) - expected)
        elo[a], elo[b] = ra + delta, rb - delta
    shift = elo[anchor] - anchor_elo if anchor in elo else 0.0
    return {e: r - shift for e, r in elo.items()}
