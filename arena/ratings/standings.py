"""Standings: per-entrant counts, head to head, matchups and the bundle the tables show.

Pure functions of game results (see `arena.ratings.fit` for which games are rated); the rating fit
itself lives in `arena.ratings.fit`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from arena.ratings.fit import (BootstrapResult, ForfeitKind, GameResult, RatingFit, bootstrap_ratings,
                           fit_ratings, incremental_elo, rated_games, rated_pairs)


# --- Counts: per entrant, head to head, per matchup ----------------------------------------

@dataclass(frozen=True)
class EntrantStats:
    """What one entrant's rated games came to."""

    games: int
    wins: int
    score_margin: float
    """Mean of (own score - opponent's score) per rated game."""
    forfeits: Mapping[ForfeitKind, int] = field(default_factory=dict)
    """Rated games this entrant forfeited, by kind (every kind present, zero or not)."""
    void_games: int = 0
    """Games left out of the rating (void, or in a pair voided by a harness fault)."""

    @property
    def losses(self) -> int:
        return self.games - self.wins

    @property
    def win_rate(self) -> float:
        """Wins per rated game, 0 to 1 (0 with no games)."""
        return self.wins / self.games if self.games else 0.0


def entrant_stats(results: Iterable[GameResult]) -> dict[str, EntrantStats]:
    """Games, wins, mean score margin, forfeits by kind and void games per entrant."""
    results = list(results)
    rated = {id(g) for g in rated_games(results)}
    games: dict[str, list[float]] = {}
    forfeits: dict[str, dict[ForfeitKind, int]] = {}
    for g in results:
        for team, e in enumerate(g.entrants):
            row = games.setdefault(e, [0, 0, 0.0, 0])  # games, wins, margin sum, void
            forfeits.setdefault(e, {k: 0 for k in ForfeitKind})
            if id(g) not in rated:
                row[3] += 1
                continue
            row[0] += 1
            row[1] += g.rated_winner == team
            row[2] += g.scores[team] - g.scores[1 - team]
            if g.forfeit is not None and g.forfeit[0] == team:
                forfeits[e][ForfeitKind(g.forfeit[1])] += 1
    return {e: EntrantStats(int(r[0]), int(r[1]), r[2] / r[0] if r[0] else 0.0, forfeits[e],
                            int(r[3]))
            for e, r in sorted(games.items())}


def head_to_head(results: Iterable[GameResult]) -> dict[tuple[str, str], tuple[int, int]]:
    """(a, b) -> (games a won against b, games a lost against b), both orders present."""
    table: dict[tuple[str, str], tuple[int, int]] = {}
    for g in rated_games(results):
        for team in (0, 1):
            a, b = g.entrants[team], g.entrants[1 - team]
            won, lost = table.get((a, b), (0, 0))
            table[(a, b)] = (won + (g.rated_winner == team), lost + (g.rated_winner != team))
    return table


def pair_outcomes(results: Iterable[GameResult], a: str, b: str) -> list[int]:
    """Games a won in each complete rated pair against b (0, 1 or 2), in pair order.

    Pair order is the order of each pair's first game in `results`; a pair with a void game
    is incomplete and left out.
    """
    outcomes = []
    for games in rated_pairs(results).values():
        if len(games) == 2 and set(games[0].entrants) == {a, b}:
            outcomes.append(sum(g.entrants[g.rated_winner] == a for g in games))
    return outcomes


@dataclass(frozen=True)
class MatchupSummary:
    """Two entrants' games against each other, from a's side (a is ranked higher)."""

    a: str
    b: str
    both_lost: int
    """Complete pairs in which a lost both games."""
    split: int
    both_won: int
    incomplete: int
    """Rated pairs with one rated game only."""
    wins: int
    """Rated games a won against b."""
    losses: int
    elo_difference: float
    """Fitted rating of a minus that of b."""
    interval: float
    """Half-width of the 95% interval of the difference."""
    los: float
    """Likelihood that a is stronger than b."""

    @property
    def pairs(self) -> int:
        return self.both_lost + self.split + self.both_won

    @property
    def score(self) -> float:
        """a's share of the rated games, 0 to 1."""
        games = self.wins + self.losses
        return self.wins / games if games else 0.0


def matchup_summaries(results: Iterable[GameResult], fit: RatingFit) -> list[MatchupSummary]:
    """One summary per matchup that has rated games, in order of a's rank then b's."""
    results = list(results)
    rank = {e: k for k, e in enumerate(fit.ranking())}
    pairs: dict[tuple[str, str], list[list[GameResult]]] = {}
    for games in rated_pairs(results).values():
        key = tuple(sorted(games[0].entrants, key=rank.__getitem__))
        pairs.setdefault(key, []).append(games)  # type: ignore[arg-type]
    h2h = head_to_head(results)
    summaries = []
    for (a, b), groups in sorted(pairs.items(), key=lambda kv: (rank[kv[0][0]], rank[kv[0][1]])):
        counts = [0, 0, 0]
        for games in groups:
            if len(games) == 2:
                counts[sum(g.entrants[g.rated_winner] == a for g in games)] += 1
        diff, half = fit.difference(a, b)
        won, lost = h2h[(a, b)]
        summaries.append(MatchupSummary(a, b, counts[0], counts[1], counts[2],
                                        sum(len(g) == 1 for g in groups), won, lost, diff,
                                        half, fit.los(a, b)))
    return summaries


# --- Everything the standings need ---------------------------------------------------------

@dataclass(frozen=True)
class Standings:
    """All the figures the standings tables show, computed once from the results."""

    fit: RatingFit
    stats: Mapping[str, EntrantStats]
    head_to_head: Mapping[tuple[str, str], tuple[int, int]]
    matchups: tuple[MatchupSummary, ...]
    incremental: Mapping[str, float]
    """K-factor Elo in game order: a secondary column, never the ranking."""
    bootstrap: BootstrapResult | None = None

    def ranking(self) -> tuple[str, ...]:
        return self.fit.ranking()


def compute_standings(results: Iterable[GameResult], *, anchor: str | None = None,
                      anchor_elo: float = 0.0, prior: float = 2.0, k_factor: float = 16.0,
                      bootstrap: int = 0, seed: int = 0) -> Standings:
    """Fit, counts and secondary figures in one go; `bootstrap` replicates (0: none)."""
    results = list(results)
    fit = fit_ratings(results, anchor=anchor, anchor_elo=anchor_elo, prior=prior)
    boot = None
    if bootstrap:
        boot = bootstrap_ratings(results, anchor=anchor, anchor_elo=anchor_elo, prior=prior,
                                 replicates=bootstrap, seed=seed)
    return Standings(fit, entrant_stats(results), head_to_head(results),
                     tuple(matchup_summaries(results, fit)),
                     incremental_elo(results, k_factor=k_factor, anchor=anchor,
                                     anchor_elo=anchor_elo), boot)
