"""Individual ratings from team results: a rating per entrant when partners are mixed.

The model (`arena.ratings.model`) is Bradley-Terry over teams, a team's strength the sum of its
partners' ratings: team {a, b} beats team {c, d} with probability
1 / (1 + 10 ** (-(r_a + r_b - r_c - r_d) / 400)). So an entrant's rating is what it adds to
any team: in place of an entrant rated 0, it makes its team r Elo stronger. A team of two
copies of one entrant is 2r, so with fixed partners an entrant's team Elo would be about
twice its individual rating, if strengths add. Fixed and mixed partners share one fitter,
prior and intervals.

A duplicate pair of mixed partners plays one foursome twice, on the same deals, the
partnerships swapping seats. Its two games are one comparison, team {a, b} minus team {c, d},
played twice; each pair is a cluster of the sandwich covariance. The prior's virtual draws
between two entrants of different win components are as if each had played with the other's
partners against the other's opponents. Their measured coverage on simulated tournaments is
in docs/explanation/mixed-partners.md (`scripts/mixed_study.py`).

Rated games: a game whose pair has a harness fault is void (the whole pair is). A forfeit is a
loss for the offending team: the partner of the entrant whose seat failed loses with it, as
partnership games do, and the counts charge the failure to the offender alone. A game with no
winner and no forfeit is void. Pure functions of `TeamResult`s.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from arena.faults import ForfeitKind
from arena.ratings.bootstrap import BootstrapResult, bootstrap_data
from arena.ratings.fit import pairs_of, rated_of
from arena.ratings.model import (
    Comparison,
    Contrast,
    FitData,
    RatingFit,
    RatingsError,
    fit_data,
    rate_data,
)

Team = tuple[str, str]
"""The entrants of a team's two seats (the same key twice for an entrant's two copies)."""


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

    @property
    def team_entrants(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The different entrants of each team, in seat order (one for two copies)."""
        return tuple(dict.fromkeys(self.teams[0])), tuple(dict.fromkeys(self.teams[1]))

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

def team_data(pairs: Mapping[str, Sequence[TeamResult]]) -> FitData:
    """Rated pairs (`rated_team_pairs`) as the model's data: per pair, its first game's team 0
    minus its team 1, over entrant indices (entrants sorted)."""
    entrants = tuple(sorted({e for games in pairs.values() for g in games for e in g.entrants}))
    index = {e: k for k, e in enumerate(entrants)}
    comparisons, sides = [], []
    for cluster, games in enumerate(pairs.values()):
        first, second = games[0].teams  # the comparison is "this team minus the other"
        won = sum(set(g.teams[g.rated_winner]) == set(first)  # type: ignore[index]
                  for g in games)
        comparisons.append(Comparison(_contrast(index, first, second), float(won),
                                      float(len(games)), cluster))
        sides.append((tuple(sorted({index[e] for e in first})),
                      tuple(sorted({index[e] for e in second}))))
    return FitData(entrants, tuple(comparisons), tuple(sides))


def _contrast(index: Mapping[str, int], first: Team, second: Team) -> Contrast:
    coefficients: dict[int, float] = {}
    for team, sign in ((first, 1.0), (second, -1.0)):
        for key in team:
            coefficients[index[key]] = coefficients.get(index[key], 0.0) + sign
    return tuple(sorted((k, v) for k, v in coefficients.items() if v))


# --- Individual ratings --------------------------------------------------------------------

def fit_individual(pairs: Mapping[str, Sequence[TeamResult]], *, anchor: str | None = None,
                   anchor_elo: float = 0.0, prior: float = 2.0) -> RatingFit:
    """Individual Bradley-Terry ratings on the Elo scale from rated pairs (`rated_team_pairs`),
    with pair-clustered covariances; the same fields and claims as `fit.fit_ratings`, a
    rating being what an entrant adds to its team. RatingsError when nothing can be rated,
    the anchor has no games, entrants are not connected, or partners cannot be told apart."""
    return fit_data(team_data(pairs), anchor=anchor, anchor_elo=anchor_elo, prior=prior)


def rate_individual(pairs: Mapping[str, Sequence[TeamResult]], *, anchor: str | None = None,
                    anchor_elo: float = 0.0, prior: float = 2.0) -> dict[str, float]:
    """The ratings of `fit_individual` without their intervals (for a live standings line)."""
    return rate_data(team_data(pairs), anchor=anchor, anchor_elo=anchor_elo, prior=prior)


def bootstrap_individual(pairs: Mapping[str, Sequence[TeamResult]], *,
                         anchor: str | None = None, anchor_elo: float = 0.0,
                         prior: float = 2.0, replicates: int = 200,
                         seed: int = 0) -> BootstrapResult:
    """Individual ratings refitted on pairs resampled with replacement (a cross-check of the
    sandwich), as `fit.bootstrap_rated_pairs` does for fixed partners."""
    return bootstrap_data(team_data(pairs), anchor=anchor, anchor_elo=anchor_elo,
                          prior=prior, replicates=replicates, seed=seed)
