"""Standings kept up as games arrive: `compute_standings`'s table without re-reading them all.

A `Tally` takes each game once (`add`) and keeps, per matchup, what its pairs came to: the
rated pairs counted by outcome (the fit's clusters: a pair is its matchup and its wins each
way, so pairs that came to the same are one count) and each side's counts (games, wins,
margin, forfeits, void). A game changes only its pair's share: the pair's old share is taken
out and its new one put in, so a harness fault in a pair's second game voids its first too,
as `rated_pairs` does. `standings` sums the matchups between the entrants asked for and fits
each connected group, warm-started from its last fit (`fit_clusters`: the same maximum in
fewer steps), so its cost no longer grows with the games stored, only with the entrants.

Its `Standings` are `compute_standings`'s of the same games (fits, counts, entrants, notes)
up to the order of summation (the tests: ratings within 1e-6 Elo, covariances within 1e-6
relative); it leaves out what the live table does not show and what is not kept per pair:
head to head, matchup summaries and the order-dependent K-factor Elo are empty.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from arena.faults import ForfeitKind
from arena.ratings.fit import GameResult, check_joins_pair, fit_clusters
from arena.ratings.model import RatingFit, RatingsError
from arena.ratings.standings import (
    EntrantStats,
    Standings,
    fit_order,
    notes_for,
    rating_groups,
)

Matchup = tuple[str, str]
"""Two entrant keys, the lower first."""


@dataclass
class _Side:
    """One entrant's counts in one matchup (as `EntrantStats`, unfinished)."""

    games: int = 0
    wins: int = 0
    margin: int = 0
    """Sum of own minus opponent's score over rated games that ended normally."""
    normal: int = 0
    void: int = 0
    harness: int = 0
    forfeits: Counter[ForfeitKind] = field(default_factory=Counter)

    def add(self, other: _Side, sign: int) -> None:
        self.games += sign * other.games
        self.wins += sign * other.wins
        self.margin += sign * other.margin
        self.normal += sign * other.normal
        self.void += sign * other.void
        self.harness += sign * other.harness
        for kind, n in other.forfeits.items():
            self.forfeits[kind] += sign * n


@dataclass
class _Share:
    """What one pair adds to its matchup."""

    sides: dict[str, _Side]
    cluster: tuple[float, float] | None
    """(wins of the lower key, of the other) over the pair's rated games; None: unrated."""
    complete: bool


@dataclass
class _MatchupTally:
    clusters: Counter[tuple[float, float]] = field(default_factory=Counter)
    sides: dict[str, _Side] = field(default_factory=dict)
    complete_pairs: int = 0

    def add(self, share: _Share, sign: int) -> None:
        if share.cluster is not None:
            self.clusters[share.cluster] += sign
            if not self.clusters[share.cluster]:
                del self.clusters[share.cluster]
        for key, side in share.sides.items():
            self.sides.setdefault(key, _Side()).add(side, sign)
        self.complete_pairs += sign * share.complete


def _share(games: Sequence[GameResult]) -> _Share:
    """A pair's share, as `rated_pairs` and `_entrant_stats` count it."""
    harness = any(g.harness_fault for g in games)
    low = min(games[0].entrants)
    sides: dict[str, _Side] = {e: _Side() for e in games[0].entrants}
    won = [0.0, 0.0]  # rated wins of low, of the other
    for g in games:
        rated = not harness and g.rated_winner is not None
        for team, e in enumerate(g.entrants):
            side = sides[e]
            if not rated:
                side.void += 1
                side.harness += harness
                continue
            side.games += 1
            side.wins += g.rated_winner == team
            if g.forfeit is None:
                side.margin += g.scores[team] - g.scores[1 - team]
                side.normal += 1
            elif g.forfeit[0] == team:
                side.forfeits[ForfeitKind(g.forfeit[1])] += 1
        if rated:
            won[g.rated_winner_entrant != low] += 1
    cluster = (won[0], won[1]) if won[0] + won[1] else None
    return _Share(sides, cluster, len(games) == 2)


class Tally:
    """Every game added so far, kept as per-matchup counts (see the module docstring)."""

    def __init__(self) -> None:
        self.games = 0
        self._pairs: dict[str, list[GameResult]] = {}
        self._shares: dict[str, _Share] = {}
        self._matchups: dict[Matchup, _MatchupTally] = {}
        self._played: Counter[Matchup] = Counter()  # games stored per matchup
        self._last: dict[str, float] = {}  # the last fits' ratings: where the next starts

    def add(self, results: Iterable[GameResult]) -> None:
        """Count games (each once: a game id is not checked, the store's rows are unique).
        RatingsError if a pair gets a third game or games of two matchups."""
        for game in results:
            self._add(game)

    def _add(self, game: GameResult) -> None:
        games = self._pairs.setdefault(game.pair_id, [])
        check_joins_pair(games, game)
        matchup: Matchup = tuple(sorted(game.entrants))  # type: ignore[assignment]  # (two)
        tally = self._matchups.setdefault(matchup, _MatchupTally())
        old = self._shares.get(game.pair_id)
        if old is not None:
            tally.add(old, -1)
        games.append(game)
        share = self._shares[game.pair_id] = _share(games)
        tally.add(share, +1)
        self._played[matchup] += 1
        self.games += 1

    def complete_pairs(self) -> dict[Matchup, int]:
        """Pairs with both games stored, per matchup."""
        return {m: t.complete_pairs for m, t in self._matchups.items() if t.complete_pairs}

    def games_against(self, entrants: Iterable[str], others: Iterable[str]) -> int:
        """The games stored between one of `entrants` and one of `others` (the games a table
        of `entrants` leaves out when `others` are, say, retired versions)."""
        inside, outside = set(entrants), set(others) - set(entrants)
        return sum(n for (a, b), n in self._played.items()
                   if (a in inside and b in outside) or (b in inside and a in outside))

    def standings(self, entrants: Iterable[str], *, anchor: str | None = None,
                  anchor_elo: float = 0.0, prior: float = 2.0,
                  k_factor: float = 16.0) -> Standings:
        """`compute_standings` of the games between `entrants` (see the module docstring).
        RatingsError when no two of them have a rated game between them."""
        entrants = list(entrants)
        wanted = set(entrants)
        kept = {m: t for m, t in self._matchups.items() if m[0] in wanted and m[1] in wanted}
        rated = {m for m, t in kept.items() if t.clusters}
        groups = [g for g in rating_groups(rated) if len(g) > 1]
        if not groups:
            raise RatingsError("no rated games between two entrants yet")
        if anchor is not None:
            groups.sort(key=lambda g: anchor not in g)
        fits = [self._fit(kept, set(group), anchor, anchor_elo, prior) for group in groups]
        stats = _stats(kept.values())
        listed = [e for f in fits for e in fit_order(f)]
        listed += sorted((wanted | set(stats)) - set(listed))
        standings = Standings(tuple(fits), stats, {}, (), {}, tuple(None for _ in fits),
                              tuple(listed), (), anchor, k_factor)
        return dataclasses.replace(standings, notes=tuple(
            notes_for(standings, anchor, known=wanted | set(stats))))

    def _fit(self, kept: Mapping[Matchup, _MatchupTally], members: set[str],
             anchor: str | None, anchor_elo: float, prior: float) -> RatingFit:
        counts = {(a, b, wa, wb): n for (a, b), t in kept.items() if a in members
                  for (wa, wb), n in t.clusters.items()}
        fit = fit_clusters(counts, anchor=anchor if anchor in members else None,
                           anchor_elo=anchor_elo, prior=prior, start=self._last)
        self._last.update(fit.elo)
        return fit


def _stats(tallies: Iterable[_MatchupTally]) -> dict[str, EntrantStats]:
    total: dict[str, _Side] = {}
    for tally in tallies:
        for key, side in tally.sides.items():
            total.setdefault(key, _Side()).add(side, +1)
    return {e: EntrantStats(s.games, s.wins, s.margin / s.normal if s.normal else 0.0,
                            {k: s.forfeits.get(k, 0) for k in ForfeitKind}, s.void, s.harness)
            for e, s in sorted(total.items())}
