"""Fixed partners: Elo ratings of entrants each playing as a team of two copies of itself.

A game between entrants a and b is one between teams (a, a) and (b, b). So the ratings are
those of `arena.ratings.model` with such teams, on the team's scale. A rating here is a
team's strength: the mixed model's rating of the entrant, doubled. This module turns stored
games into the comparisons the model fits: which games are rated, grouped into duplicate
pairs, each pair one comparison between its two entrants.

Rated games: a game whose pair has a harness fault is void (the whole pair is). A forfeit is a
loss for the offending team; a game with no winner and no forfeit is void. Incremental
K-factor Elo is a secondary, order-dependent figure, never the ranking. Counts, connected
groups and the `Standings` bundle are in `arena.ratings.standings`. The sequential test on
pairs is in `arena.ratings.sprt`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from arena.faults import ForfeitKind
from arena.ratings.bootstrap import BootstrapResult, bootstrap_data
from arena.ratings.model import (
    ELO_PER_LOGIT,
    Comparison,
    Contrast,
    FitData,
    RatingFit,
    RatingsError,
    Sides,
    fit_data,
    rate_data,
)


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

    @property
    def teams(self) -> tuple[tuple[str, str], tuple[str, str]]:
        """The entrants of each team's two seats: two copies of one entrant, (a, a)."""
        a, b = self.entrants
        return (a, a), (b, b)

    @property
    def team_entrants(self) -> tuple[tuple[str], tuple[str]]:
        """The different entrants of each team: a alone, then b alone."""
        a, b = self.entrants
        return (a,), (b,)

    @property
    def offender(self) -> str | None:
        """The entrant of the forfeiting team (None without a forfeit)."""
        return None if self.forfeit is None else self.entrants[self.forfeit[0]]


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


def rated_games_of(results: Sequence[G], pairs: Mapping[str, Sequence[G]]) -> list[G]:
    """The games of `pairs` (rated pairs of `results`) in the order of `results`."""
    keep = {id(g) for games in pairs.values() for g in games}
    return [g for g in results if id(g) in keep]



# --- The comparisons of fixed partners -----------------------------------------------------

class _Shapes(dict[tuple[int, int], tuple[Contrast, Sides]]):
    """Per matchup (lower index first), its contrast and sides, made once and shared by its
    pairs."""

    def __missing__(self, key: tuple[int, int]) -> tuple[Contrast, Sides]:
        lo, hi = key
        shape = self[key] = (((lo, 1.0), (hi, -1.0)), ((lo,), (hi,)))
        return shape


def _data(entrants: tuple[str, ...],
          pairs: Iterable[tuple[str, str, float, float]]) -> FitData:
    """The model's data of pairs given as (a, b, wins of a, games): per pair, team (lo, lo)
    minus team (hi, hi), the lower index first, on the team's scale (one coefficient each)."""
    index = {e: k for k, e in enumerate(entrants)}
    shapes = _Shapes()
    comparisons, sides = [], []
    for cluster, (a, b, wins_a, games) in enumerate(pairs):
        i, j = index[a], index[b]
        contrast, side = shapes[(i, j) if i < j else (j, i)]
        wins = wins_a if i < j else games - wins_a
        comparisons.append(Comparison(contrast, wins, games, cluster))
        sides.append(side)
    return FitData(entrants, tuple(comparisons), tuple(sides))


def fixed_data(pairs: Mapping[str, Sequence[GameResult]]) -> FitData:
    """Rated pairs (`rated_pairs`) as the model's data: one comparison per pair."""
    entrants = tuple(sorted({e for games in pairs.values() for e in games[0].entrants}))
    rows = []
    for games in pairs.values():  # the games of a pair: one matchup
        a, b = games[0].entrants
        won = [g.rated_winner_entrant for g in games].count(a)
        rows.append((a, b, float(won), float(len(games))))
    return _data(entrants, rows)


def counted_data(counts: Mapping[tuple[str, str, float, float], int]) -> FitData:
    """Rated pairs counted by what they came to (`arena.ratings.tally`) as the model's data.
    `counts`: (a, b, wins of a, wins of b) -> how many pairs did so. Each pair is its own
    cluster, so the fit is that of the pairs themselves."""
    entrants = tuple(sorted({e for a, b, _, _ in counts for e in (a, b)}))
    return _data(entrants, [(a, b, float(wa), float(wa + wb))
                            for (a, b, wa, wb), n in counts.items() for _ in range(n)])


# --- The fits ------------------------------------------------------------------------------

def fit_ratings(results: Iterable[GameResult], *, anchor: str | None = None,
                anchor_elo: float = 0.0, prior: float = 2.0) -> RatingFit:
    """Fit Bradley-Terry ratings on the Elo scale over all rated games (order-independent).

    `anchor` is held at `anchor_elo` (None: the mean rating of the largest group that beat
    each other is). `prior` is the number of virtual draws given to each matchup between two
    groups that never lost to each other, the only place where the estimate would not exist
    (`arena.ratings.model`); with 0 those ratings are infinite. Raises RatingsError when
    nothing can be rated, the anchor has no games, or entrants are not all connected.
    """
    return fit_rated_pairs(rated_pairs(results), anchor=anchor, anchor_elo=anchor_elo,
                           prior=prior)


def fit_rated_pairs(pairs: Mapping[str, Sequence[GameResult]], *, anchor: str | None = None,
                    anchor_elo: float = 0.0, prior: float = 2.0) -> RatingFit:
    """`fit_ratings` of results whose rated pairs (`rated_pairs`) are `pairs`: for a caller
    that selected them already."""
    return fit_data(fixed_data(pairs), anchor=anchor, anchor_elo=anchor_elo, prior=prior)


def fit_clusters(counts: Mapping[tuple[str, str, float, float], int], *,
                 anchor: str | None = None, anchor_elo: float = 0.0, prior: float = 2.0,
                 start: Mapping[str, float] | None = None) -> RatingFit:
    """`fit_ratings` of rated pairs counted by what they came to (`counted_data`), for a
    caller that keeps such counts as games arrive (`arena.ratings.tally`).

    `start`: ratings (Elo) to start the likelihood's maximisation from, e.g. the last fit's
    (a warm start: fewer Newton steps when a few games changed). The maximum is the same
    whatever the start; only the steps to it differ (the test: within 1e-6 Elo).
    """
    data = counted_data(counts)
    theta = None
    if start is not None:
        theta = [start.get(e, 0.0) / ELO_PER_LOGIT for e in data.entrants]
        theta = [t if math.isfinite(t) else 0.0 for t in theta]
    return fit_data(data, anchor=anchor, anchor_elo=anchor_elo, prior=prior, start=theta)


def rate(results: Iterable[GameResult], *, anchor: str | None = None, anchor_elo: float = 0.0,
         prior: float = 2.0) -> dict[str, float]:
    """The ratings `fit_ratings` gives, without their intervals (a fraction of the work: no
    covariance), e.g. for a live standings line. Raises RatingsError as `fit_ratings` does."""
    return rate_data(fixed_data(rated_pairs(results)), anchor=anchor, anchor_elo=anchor_elo,
                     prior=prior)


def bootstrap_ratings(results: Iterable[GameResult], *, anchor: str | None = None,
                      anchor_elo: float = 0.0, prior: float = 2.0, replicates: int = 200,
                      seed: int = 0) -> BootstrapResult:
    """Resample rated pairs with replacement `replicates` times and refit each time, exactly
    as `fit_ratings` fits (`bootstrap.bootstrap_data`). Seeded and deterministic; RatingsError
    if the results themselves cannot be fitted."""
    return bootstrap_rated_pairs(rated_pairs(results), anchor=anchor, anchor_elo=anchor_elo,
                                 prior=prior, replicates=replicates, seed=seed)


def bootstrap_rated_pairs(pairs: Mapping[str, Sequence[GameResult]], *,
                          anchor: str | None = None, anchor_elo: float = 0.0,
                          prior: float = 2.0, replicates: int = 200,
                          seed: int = 0) -> BootstrapResult:
    """`bootstrap_ratings` of results whose rated pairs (`rated_pairs`) are `pairs`."""
    return bootstrap_data(fixed_data(pairs), anchor=anchor, anchor_elo=anchor_elo,
                          prior=prior, replicates=replicates, seed=seed)


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
