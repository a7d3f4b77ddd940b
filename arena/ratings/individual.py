"""Individual ratings from team results: a rating per entrant when partners are mixed.

The model. Bradley-Terry over teams, where a team's strength is the sum of its partners'
ratings: team {a, b} beats team {c, d} with probability
1 / (1 + 10 ** (-(r_a + r_b - r_c - r_d) / 400)). So an entrant's rating is what it adds to
any team: in place of an entrant rated 0, it makes its team r Elo stronger (a team of two
copies of one entrant is 2r; in a tournament of fixed partners the team Elo of an entrant
would be about twice its individual rating, if strengths add). The fit is maximum likelihood
over every rated game, anchored on one entrant (or centred on the mean), as `fit` does.

A duplicate pair of mixed partners plays one foursome twice, on the same deals, the
partnerships swapping seats: its two games are one comparison, team {a, b} minus team
{c, d}, played twice. Each pair is a cluster, and everything `arena.ratings.fit` says of its
intervals holds here, for that comparison instead of a matchup: a sandwich covariance
clustered by pair with the jackknife correction (CR3) and the floor at `VARIANCE_FLOOR` of the
independent-games variance, for each rating and for each comparison played. Their measured
coverage on simulated tournaments is in README ("Mixed partners"; `scripts/mixed_study.py`).

The prior goes where the estimate does not exist, as in `fit`: the graph of wins has an edge
from every entrant of a winning team to every entrant of the losing one; its strongly
connected components are the groups that never lost to each other, and each two entrants
of different components that faced each other get `prior` virtual draws between them alone
(as if each had played with the other's partners against the other's opponents). A rating
set so is marked (`RatingFit.bounds`), with the one-sided 95% bound its record supports
beside it. (When the graph is strongly connected the estimate exists for every field that
arises from a balanced movement; a fit that still does not converge says so.)

Rated games: a game whose pair has a harness fault is void (the whole pair is); a forfeit is
a loss for the offending team (the partner of the entrant whose seat failed loses with it:
partnership games are like that; the failure is charged to the offender alone in the counts);
a game with no winner and no forfeit is void. Pure functions of `TeamResult`s.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from arena.faults import ForfeitKind
from arena.ratings.fit import (
    ELO_PER_LOGIT,
    MAX_LEVERAGE,
    ONE_SIDED_ALPHA,
    VARIANCE_FLOOR,
    BootstrapResult,
    Bound,
    Matrix,
    RatingFit,
    RatingsError,
    _bound_kinds,
    _centre_on,
    _inverse,
    _mat_mul,
    _reference_group,
    _sigmoid,
    _solve_linear,
    _summarise,
    pairs_of,
    rated_of,
)
from arena.ratings.graph import connected_groups, win_components

DIVERGED = 25.0
"""A comparison fitted this many logits (about 4300 Elo) from even is a fit running off to
infinity, stopped by rounding (the estimate does not exist), not an estimate."""

Team = tuple[str, str]
"""The entrants of a team's two seats (the same key twice for an entrant's two copies)."""
Contrast = tuple[tuple[int, float], ...]
"""A comparison of two teams as a sparse vector over parameters: (index, coefficient),
+1 per seat of the first team and -1 per seat of the second."""


@dataclass(frozen=True)
class TeamResult:
    """One stored game as individual ratings see it; tournament-agnostic."""

    pair_id: str
    """The duplicate pair this game belongs to; both games of a pair share their deals."""
    teams: tuple[Team, Team]
    """The entrants of team 0 (seats 0 and 2) and of team 1 (seats 1 and 3)."""
    scores: tuple[int, int]
    winner: int | None
    """The winning team (0 or 1), or None when the game is void."""
    forfeit: tuple[int, str] | None = None
    """(offending team, kind) when a team forfeited; the game is then a loss for that team."""
    harness_fault: bool = False
    """The harness (not a bot) failed: the whole pair is void."""
    offender: str | None = None
    """The entrant whose seat caused the forfeit (its partner is not charged with it)."""

    def __post_init__(self) -> None:
        if len(self.teams) != 2 or any(len(t) != 2 for t in self.teams):
            raise ValueError(f"pair {self.pair_id}: a game has two teams of two seats")
        if set(self.teams[0]) & set(self.teams[1]):
            raise ValueError(f"pair {self.pair_id}: an entrant on both teams: {self.teams!r}")
        if self.winner not in (0, 1, None):
            raise ValueError(f"pair {self.pair_id}: winner must be 0, 1 or None")
        if self.forfeit is not None:
            team, kind = self.forfeit
            if team not in (0, 1):
                raise ValueError(f"pair {self.pair_id}: forfeiting team must be 0 or 1")
            if self.winner == team:
                raise ValueError(f"pair {self.pair_id}: team {team} forfeited but is the winner")
            if self.offender is not None and self.offender not in self.teams[team]:
                raise ValueError(f"pair {self.pair_id}: {self.offender!r} is not on the "
                                 f"forfeiting team")
            object.__setattr__(self, "forfeit", (team, ForfeitKind(kind)))

    @property
    def rated_winner(self) -> int | None:
        """The team the rating counts as winner: the forfeiter's opponent, else `winner`."""
        if self.forfeit is not None:
            return 1 - self.forfeit[0]
        return self.winner

    @property
    def entrants(self) -> tuple[str, ...]:
        """The different entrants of the game, sorted."""
        return tuple(sorted({*self.teams[0], *self.teams[1]}))

    def side(self) -> frozenset[frozenset[str]]:
        """The game's two teams, whatever their seats (the same for both games of a pair)."""
        return frozenset((frozenset(self.teams[0]), frozenset(self.teams[1])))


# --- Selecting rated games -----------------------------------------------------------------

def team_pairs(results: Iterable[TeamResult]) -> dict[str, list[TeamResult]]:
    """Games grouped by pair id, in order of each pair's first game; RatingsError if a pair
    has more than two games or games of different teams."""
    return pairs_of(results, _check_joins_team_pair)


def _check_joins_team_pair(games: Sequence[TeamResult], game: TeamResult) -> None:
    """RatingsError unless `game` may join the `games` stored of its pair: the same two
    teams (whatever their seats), two games at most."""
    if games and games[0].side() != game.side():
        raise RatingsError(f"pair {game.pair_id} mixes teams {games[0].teams} and "
                           f"{game.teams}")
    if len(games) == 2:
        raise RatingsError(f"pair {game.pair_id} has more than two games")


def rated_team_pairs(results: Iterable[TeamResult]) -> dict[str, list[TeamResult]]:
    """Pairs with their rated games: harness-faulted pairs and void games left out."""
    return rated_of(team_pairs(results))


# --- The data of a fit: one comparison per pair --------------------------------------------

@dataclass(frozen=True)
class Comparison:
    """A pair's rated games as one comparison: the first team's wins out of `games`."""

    contrast: Contrast
    wins: float
    games: float
    cluster: int
    """The pair it came from (virtual draws of the prior have -1)."""


@dataclass(frozen=True)
class TeamData:
    """Rated pairs as comparisons over entrant indices (entrants sorted)."""

    entrants: tuple[str, ...]
    comparisons: tuple[Comparison, ...]
    sides: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]
    """Per comparison, the distinct entrant indices of its first and second team."""

    @classmethod
    def from_pairs(cls, pairs: Mapping[str, Sequence[TeamResult]]) -> TeamData:
        entrants = tuple(sorted({e for games in pairs.values() for g in games
                                 for e in g.entrants}))
        index = {e: k for k, e in enumerate(entrants)}
        comparisons, sides = [], []
        for cluster, games in enumerate(pairs.values()):
            first = games[0].teams[0]  # the comparison is "this team minus the other"
            second = games[0].teams[1]
            won = sum(set(g.teams[g.rated_winner]) == set(first)  # type: ignore[index]
                      for g in games)
            comparisons.append(Comparison(_contrast(index, first, second), float(won),
                                          float(len(games)), cluster))
            sides.append((tuple(sorted({index[e] for e in first})),
                          tuple(sorted({index[e] for e in second}))))
        return cls(entrants, tuple(comparisons), tuple(sides))

    def restrict(self, members: Sequence[int]) -> TeamData:
        """The comparisons among `members` only, re-indexed in their order."""
        index = {k: a for a, k in enumerate(members)}
        kept, sides = [], []
        for c, (first, second) in zip(self.comparisons, self.sides, strict=True):
            if all(k in index for k in (*first, *second)):
                kept.append(dataclasses.replace(
                    c, contrast=tuple((index[k], v) for k, v in c.contrast)))
                sides.append((tuple(index[k] for k in first), tuple(index[k] for k in second)))
        return TeamData(tuple(self.entrants[k] for k in members), tuple(kept), tuple(sides))

    def resampled(self, rng: random.Random) -> TeamData:
        """The pairs drawn with replacement, as many as there are (a bootstrap sample)."""
        picks = rng.choices(range(len(self.comparisons)), k=len(self.comparisons))
        comparisons = tuple(dataclasses.replace(self.comparisons[k], cluster=n)
                            for n, k in enumerate(picks))
        return TeamData(self.entrants, comparisons, tuple(self.sides[k] for k in picks))

    def wins_graph(self) -> Matrix:
        """wins[i][j]: games i's team won against a team of j (the graph of wins)."""
        n = len(self.entrants)
        wins = [[0.0] * n for _ in range(n)]
        for c, (first, second) in zip(self.comparisons, self.sides, strict=True):
            for i in first:
                for j in second:
                    wins[i][j] += c.wins
                    wins[j][i] += c.games - c.wins
        return wins

    def opponents(self) -> set[tuple[int, int]]:
        """Every two entrants (lower index first) that faced each other."""
        return {(min(i, j), max(i, j)) for first, second in self.sides
                for i in first for j in second}

    def together(self) -> set[tuple[int, int]]:
        """Every two entrants that played in one game (as partners or opponents)."""
        return self.opponents() | {(min(i, j), max(i, j)) for side in self.sides
                                   for team in side for i in team for j in team if i != j}

    @property
    def games(self) -> int:
        return int(sum(c.games for c in self.comparisons))


def _contrast(index: Mapping[str, int], first: Team, second: Team) -> Contrast:
    coefficients: dict[int, float] = {}
    for team, sign in ((first, 1.0), (second, -1.0)):
        for key in team:
            coefficients[index[key]] = coefficients.get(index[key], 0.0) + sign
    return tuple(sorted((k, v) for k, v in coefficients.items() if v))


# --- The generic fit: logistic regression on contrasts, clustered by pair -------------------

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


def _eta(theta: Sequence[float], contrast: Contrast) -> float:
    return sum(theta[k] * v for k, v in contrast)


def _log_likelihood(theta: Sequence[float], comparisons: Iterable[Comparison],
                    penalties: Iterable[Comparison]) -> float:
    total = 0.0
    for c in (*comparisons, *penalties):
        eta = _eta(theta, c.contrast)
        total += c.wins * math.log(max(_sigmoid(eta), 1e-300))
        total += (c.games - c.wins) * math.log(max(_sigmoid(-eta), 1e-300))
    return total


def _gradient_information(theta: Sequence[float], comparisons: Iterable[Comparison],
                          pos: Mapping[int, int]) -> tuple[list[float], Matrix]:
    """Gradient and observed information over the free parameters (`pos`: index -> row)."""
    m = len(pos)
    grad = [0.0] * m
    info = [[0.0] * m for _ in range(m)]
    for c in comparisons:
        p = _sigmoid(_eta(theta, c.contrast))
        residual = c.wins - c.games * p
        weight = c.games * p * (1.0 - p)
        free = [(pos[k], v) for k, v in c.contrast if k in pos]
        for a, va in free:
            grad[a] += residual * va
            row = info[a]
            for b, vb in free:
                row[b] += weight * va * vb
    return grad, info


def _maximise(size: int, ref: int, comparisons: Sequence[Comparison],
              penalties: Sequence[Comparison], start: Sequence[float] | None) -> list[float]:
    """The maximum-likelihood parameters with parameter `ref` held at 0 (damped Newton);
    RatingsError if the information is singular or the fit does not converge."""
    free = [k for k in range(size) if k != ref]
    pos = {k: a for a, k in enumerate(free)}
    theta = list(start) if start is not None else [0.0] * size
    theta[ref] = 0.0
    both = [*comparisons, *penalties]
    current = _log_likelihood(theta, comparisons, penalties)
    for _ in range(200):
        grad, info = _gradient_information(theta, both, pos)
        step = _solve_linear(info, grad)
        t = 1.0
        while True:
            trial = theta[:]
            for k, s in zip(free, step, strict=True):
                trial[k] += t * s
            value = _log_likelihood(trial, comparisons, penalties)
            if value >= current - 1e-12 or t < 1e-6:
                break
            t /= 2.0
        theta, current = trial, value
        if max((abs(t * s) for s in step), default=0.0) < 1e-10:
            if any(abs(_eta(theta, c.contrast)) > DIVERGED for c in comparisons):
                break  # a plateau of rounding, not a maximum: the estimate does not exist
            return theta
    raise RatingsError("the rating fit did not converge (the estimate may not exist: some "
                       "group of entrants never lost, in a way the prior does not cover)")


def _contrast_variance(v: Matrix, pos: Mapping[int, int], contrast: Contrast) -> float:
    free = [(pos[k], c) for k, c in contrast if k in pos]
    return sum(ca * cb * v[a][b] for a, ca in free for b, cb in free)


def _sandwich(theta: Sequence[float], comparisons: Sequence[Comparison], bread: Matrix,
              pos: Mapping[int, int]) -> Matrix:
    """Sum over pairs of the outer product of their jackknife-corrected scores (CR3): a
    comparison's residual, wins minus expected, over one minus its leverage h =
    games p (1 - p) var(contrast), times its contrast; bread, meat, bread."""
    m = len(pos)
    scores: dict[int, dict[int, float]] = {}
    for c in comparisons:
        p = _sigmoid(_eta(theta, c.contrast))
        leverage = c.games * p * (1.0 - p) * _contrast_variance(bread, pos, c.contrast)
        residual = (c.wins - c.games * p) / (1.0 - min(leverage, MAX_LEVERAGE))
        score = scores.setdefault(c.cluster, {})
        for k, v in c.contrast:
            if k in pos:
                score[pos[k]] = score.get(pos[k], 0.0) + residual * v
    meat = [[0.0] * m for _ in range(m)]
    for score in scores.values():
        for a, sa in score.items():
            row = meat[a]
            for b, sb in score.items():
                row[b] += sa * sb
    return _mat_mul(_mat_mul(bread, meat), bread)


def _floored(sandwich: Matrix, bread: Matrix, pos: Mapping[int, int],
             contrasts: Iterable[Contrast]) -> Matrix:
    """sandwich + lambda * bread with the least lambda >= 0 that lifts every parameter's
    variance, and every played comparison's, to VARIANCE_FLOOR times the model's."""
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


def estimate(size: int, ref: int, comparisons: Sequence[Comparison],
             penalties: Sequence[Comparison] = (),
             start: Sequence[float] | None = None) -> Estimate:
    """Fit `size` parameters (`ref` held at 0) to the comparisons, with `penalties` (virtual
    games: the prior) in the likelihood and the information but not in the scores; with the
    pair-clustered sandwich covariance. RatingsError if they do not identify the
    parameters."""
    theta = _maximise(size, ref, comparisons, penalties, start)
    free = [k for k in range(size) if k != ref]
    pos = {k: a for a, k in enumerate(free)}
    _, info = _gradient_information(theta, [*comparisons, *penalties], pos)
    bread = _inverse(info)
    sandwich = _sandwich(theta, comparisons, bread, pos)
    played = {c.contrast for c in comparisons}
    return Estimate(theta, free, _floored(sandwich, bread, pos, played), bread)


# --- Individual ratings --------------------------------------------------------------------

@dataclass(frozen=True)
class _Solution:
    theta: list[float]
    ref: int
    component: list[int]
    home: int
    kinds: dict[int, Bound]
    penalties: tuple[Comparison, ...]
    """The prior's virtual draws (none with a zero prior or when every estimate exists)."""
    separated: int = 0
    """Foursomes that got the prior because the estimate did not exist otherwise."""


def _virtual_draws(pairs: Iterable[tuple[int, int]], prior: float) -> tuple[Comparison, ...]:
    return tuple(Comparison(((i, 1.0), (j, -1.0)), prior / 2.0, prior, -1)
                 for i, j in sorted(pairs))


def _solve(data: TeamData, anchor: str | None, prior: float,
           start: Sequence[float] | None = None) -> _Solution:
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
    component = win_components(data.wins_graph())
    home = _reference_group(component, ref, anchor is not None)
    if component[ref] != home:
        ref = component.index(home)
    kinds = _bound_kinds(data.wins_graph(), component, home)
    cross = {(i, j) for i, j in data.opponents() if component[i] != component[j]}
    if kinds and prior <= 0.0:
        return _Solution(_solve_home(data, component, home, ref, kinds, start), ref,
                         component, home, kinds, ())
    penalties = _virtual_draws(cross, prior)
    _check_identified(data, n, ref, penalties)
    try:
        theta = _maximise(n, ref, data.comparisons, penalties, start)
    except RatingsError:
        if prior <= 0.0:
            raise
        # Separated in a way the components do not show: the prior on each foursome won or
        # lost in every one of its games makes every comparison's likelihood bounded.
        extra = _perfect_draws(data, prior)
        penalties = (*penalties, *extra)
        theta = _maximise(n, ref, data.comparisons, penalties, start)
        return _Solution(theta, ref, component, home, kinds, penalties, len(extra))
    return _Solution(theta, ref, component, home, kinds, penalties)


def _check_identified(data: TeamData, n: int, ref: int,
                      penalties: Sequence[Comparison]) -> None:
    """RatingsError if the games (with the prior's draws) cannot tell every rating apart:
    the information at equal ratings is singular (a separation shows only later)."""
    free = [k for k in range(n) if k != ref]
    pos = {k: a for a, k in enumerate(free)}
    _, info = _gradient_information([0.0] * n, [*data.comparisons, *penalties], pos)
    try:
        _inverse(info)
    except RatingsError:
        raise _unidentified(data) from None


def _perfect_draws(data: TeamData, prior: float) -> tuple[Comparison, ...]:
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


def _unidentified(data: TeamData) -> RatingsError:
    return RatingsError(f"the {data.games} rated games do not tell every entrant's rating "
                        "apart yet (partners that always played together, or too few "
                        "foursomes played): play more of the movement")


def _solve_home(data: TeamData, component: Sequence[int], home: int, ref: int,
                kinds: Mapping[int, Bound], start: Sequence[float] | None) -> list[float]:
    """With a zero prior: the reference component alone, on the games among its members;
    everyone else +-inf, or nan."""
    members = [k for k, c in enumerate(component) if c == home]
    sub = data.restrict(members)
    sub_start = None if start is None else [start[k] for k in members]
    try:
        inner = _maximise(len(members), members.index(ref), sub.comparisons, (), sub_start)
    except RatingsError as exc:
        if "singular" in str(exc):
            raise _unidentified(sub) from None
        raise
    infinite = {Bound.LOWER: math.inf, Bound.UPPER: -math.inf, Bound.UNDETERMINED: math.nan}
    theta = [infinite[kinds[k]] if k in kinds else 0.0 for k in range(len(component))]
    for k, t in zip(members, inner, strict=True):
        theta[k] = t
    return theta


def _expand(v: Matrix, free: Sequence[int], n: int) -> Matrix:
    full = [[0.0] * n for _ in range(n)]
    for a, i in enumerate(free):
        for b, j in enumerate(free):
            full[i][j] = v[a][b]
    return full


def _covariances(data: TeamData, solution: _Solution) -> tuple[Matrix, Matrix]:
    """Full (clustered, model) covariances in logits; zero rows for the reference and for
    infinite ratings."""
    n = len(data.entrants)
    if solution.penalties or not solution.kinds:
        est = estimate(n, solution.ref, data.comparisons, solution.penalties, solution.theta)
        return _expand(est.covariance, est.free, n), _expand(est.model, est.free, n)
    members = [k for k, c in enumerate(solution.component) if c == solution.home]
    sub = data.restrict(members)
    est = estimate(len(members), members.index(solution.ref), sub.comparisons, (),
                   [solution.theta[k] for k in members])
    full = [[0.0] * n for _ in range(n)], [[0.0] * n for _ in range(n)]
    for target, small in zip(full, (est.covariance, est.model), strict=True):
        inner = _expand(small, est.free, len(members))
        for a, i in enumerate(members):
            for b, j in enumerate(members):
                target[i][j] = inner[a][b]
    return full


def _to_elo(solution: _Solution, centred: bool) -> tuple[float, list[int]]:
    """The logit subtracted before scaling (the anchor's, or the home group's mean), and the
    home group's members."""
    theta = solution.theta
    members = [k for k, c in enumerate(solution.component) if c == solution.home]
    base = sum(theta[k] for k in members) / len(members) if centred else theta[solution.ref]
    return base, members


def fit_individual(pairs: Mapping[str, Sequence[TeamResult]], *, anchor: str | None = None,
                   anchor_elo: float = 0.0, prior: float = 2.0) -> RatingFit:
    """Individual Bradley-Terry ratings on the Elo scale from rated pairs (`rated_team_pairs`),
    with pair-clustered covariances; the same fields and claims as `fit.fit_ratings`, a
    rating being what an entrant adds to its team. RatingsError when nothing can be rated,
    the anchor has no games, entrants are not connected, or partners cannot be told apart."""
    data = TeamData.from_pairs(pairs)
    solution = _solve(data, anchor, prior)
    cov, model = _covariances(data, solution)
    base, members = _to_elo(solution, anchor is None)

    def scale(m: Matrix) -> tuple[tuple[float, ...], ...]:
        m = _centre_on(m, members) if anchor is None else m
        return tuple(tuple(x * ELO_PER_LOGIT ** 2 for x in row) for row in m)

    keys = data.entrants
    bounds = _confidence_bounds(data, solution)
    return RatingFit(
        keys, {e: (t - base) * ELO_PER_LOGIT + anchor_elo
               for e, t in zip(keys, solution.theta, strict=True)},
        scale(cov), scale(model), anchor, anchor_elo, prior, len(data.comparisons),
        data.games, {keys[k]: kind for k, kind in solution.kinds.items()},
        {keys[k]: (t - base) * ELO_PER_LOGIT + anchor_elo for k, t in bounds.items()},
        len(solution.penalties) - solution.separated, solution.separated)


def rate_individual(pairs: Mapping[str, Sequence[TeamResult]], *, anchor: str | None = None,
                    anchor_elo: float = 0.0, prior: float = 2.0) -> dict[str, float]:
    """The ratings of `fit_individual` without their intervals (for a live standings line)."""
    data = TeamData.from_pairs(pairs)
    solution = _solve(data, anchor, prior)
    base, _ = _to_elo(solution, anchor is None)
    return {e: (t - base) * ELO_PER_LOGIT + anchor_elo
            for e, t in zip(data.entrants, solution.theta, strict=True)}


def _confidence_bounds(data: TeamData, solution: _Solution) -> dict[int, float]:
    """Per LOWER/UPPER entrant, the one-sided 95% bound (logits) of its rating from its games
    against teams of the reference component alone: the members of its component keep their
    fitted distances and shift together, every other entrant stays where it was fitted.
    Absent when there are no such games or a fitted distance is unknown."""
    theta, component = solution.theta, solution.component
    bounds = {}
    for k, kind in solution.kinds.items():
        mine = [e for e, c in enumerate(component) if c == component[k]]
        if kind is Bound.UNDETERMINED or any(not math.isfinite(theta[e]) for e in mine):
            continue
        own = set(mine)
        sign = 1.0 if kind is Bound.LOWER else -1.0
        games: list[tuple[float, float, float]] = []  # (offset, shift coefficient, count)
        for c, (first, second) in zip(data.comparisons, data.sides, strict=True):
            ours = [t for t, side in enumerate((first, second)) if own & set(side)]
            others = [e for e in (*first, *second) if e not in own]
            if len(ours) != 1 or any(component[e] != solution.home for e in others):
                continue
            direction = 1.0 if ours[0] == 0 else -1.0  # our team's side of the contrast
            coefficient = sum(v for e, v in c.contrast if e in own) * direction
            offset = _eta(theta, c.contrast) * direction
            # a LOWER component won all these games; an UPPER one lost them all
            games.append((sign * offset, coefficient, c.games))
        if games:
            bounds[k] = theta[k] + sign * _one_sided_shift(games, ONE_SIDED_ALPHA)
    return bounds


def _one_sided_shift(games: Sequence[tuple[float, float, float]], alpha: float) -> float:
    """The shift x (logits) at which winning every game, each with probability
    sigmoid(offset + coefficient * x), has probability alpha: increasing in x."""
    target = math.log(alpha)

    def log_p(x: float) -> float:
        return sum(n * math.log(max(_sigmoid(offset + coefficient * x), 1e-300))
                   for offset, coefficient, n in games)

    lo, hi = -60.0, 60.0
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if log_p(mid) < target:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def bootstrap_individual(pairs: Mapping[str, Sequence[TeamResult]], *,
                         anchor: str | None = None, anchor_elo: float = 0.0,
                         prior: float = 2.0, replicates: int = 200,
                         seed: int = 0) -> BootstrapResult:
    """Individual ratings refitted on pairs resampled with replacement (a cross-check of the
    sandwich), as `fit.bootstrap_rated_pairs` does for fixed partners."""
    if replicates < 2:
        raise ValueError("a bootstrap needs at least two replicates")
    data = TeamData.from_pairs(pairs)
    original = _solve(data, anchor, prior).theta
    finite = [math.isfinite(t) for t in original]
    start = [t if ok else 0.0 for t, ok in zip(original, finite, strict=True)]
    rng = random.Random(seed)
    draws = []
    for _ in range(replicates):
        try:
            solution = _solve(data.resampled(rng), anchor, prior, start)
        except RatingsError:
            continue
        theta = solution.theta
        if not all(math.isfinite(t) for t, ok in zip(theta, finite, strict=True) if ok):
            continue
        base, _ = _to_elo(solution, anchor is None)
        draws.append([(t - base) * ELO_PER_LOGIT + anchor_elo if ok else math.nan
                      for t, ok in zip(theta, finite, strict=True)])
    return _summarise(data.entrants, draws, seed, replicates - len(draws))
