"""Standings: per-entrant counts, head to head, matchups and the bundle the tables show.

Pure functions of game results (see `arena.ratings.fit` for which games are rated). Fixed and
mixed partners go through one loop (`standings_of`). Their games are selected into pairs and
grouped by who played whom. Each group is fitted by the one model of `arena.ratings.model`
(fixed partners as teams (a, a)), and counted from each entrant's team. What differs is data
(`Partners`): how games become the model's comparisons, the order-dependent K-factor Elo, and
what each kind adds. Fixed partners add matchup summaries; mixed ones, the partnership synergy
of `arena.ratings.synergy`.

A table is given whenever one can be computed. Entrants not connected by games are rated as
separate groups, a missing anchor falls back to mean-centred ratings, and entrants without
rated games are listed unrated. Each such fallback is a `Note` for the tables to print.
"""

from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from arena.faults import ForfeitKind
from arena.ratings.bootstrap import BootstrapResult, bootstrap_data
from arena.ratings.fit import (
    GameResult,
    PairGame,
    fixed_data,
    incremental_rated,
    rated_games,
    rated_games_of,
    rated_pairs,
)
from arena.ratings.graph import connected_groups
from arena.ratings.individual import TeamResult, rated_team_pairs, team_data
from arena.ratings.model import (
    FitData,
    RatingFit,
    RatingsError,
    fit_data,
)
from arena.ratings.synergy import SynergyTable, synergies

# --- Counts: per entrant, head to head, per matchup ----------------------------------------

@dataclass(frozen=True)
class EntrantStats:
    """What one entrant's rated games came to."""

    games: int
    wins: int
    score_margin: float
    """Mean of (own score - opponent's score) over the rated games that ended normally
    (a forfeited game's partial scores say nothing; 0 when there are none)."""
    forfeits: Mapping[ForfeitKind, int] = field(default_factory=dict)
    """Rated games this entrant forfeited, by kind (every kind present, zero or not)."""
    void_games: int = 0
    """Games left out of the rating (void, or in a pair voided by a harness fault)."""
    harness_voided: int = 0
    """Of the void games, those in a pair with a harness fault (the referee's own failure)."""

    @property
    def losses(self) -> int:
        return self.games - self.wins

    @property
    def win_rate(self) -> float:
        """Wins per rated game, 0 to 1 (0 with no games)."""
        return self.wins / self.games if self.games else 0.0


class TeamGame(PairGame, Protocol):
    """What the counts read of a game: `GameResult` (teams (a, a) and (b, b)) or
    `individual.TeamResult`."""

    @property
    def team_entrants(self) -> tuple[tuple[str, ...], tuple[str, ...]]: ...
    @property
    def scores(self) -> tuple[int, int]: ...
    @property
    def forfeit(self) -> tuple[int, str] | None: ...
    @property
    def offender(self) -> str | None: ...
    @property
    def entrants(self) -> tuple[str, ...]: ...


G = TypeVar("G", bound=TeamGame)


def entrant_stats(results: Iterable[GameResult]) -> dict[str, EntrantStats]:
    """Games, wins, mean score margin, forfeits by kind and void games per entrant."""
    results = list(results)
    return _entrant_stats(results, rated_games(results))


def _entrant_stats(results: Sequence[TeamGame],
                   rated_list: Sequence[TeamGame]) -> dict[str, EntrantStats]:
    """EntrantStats from each entrant's side: its team's wins and margin; a forfeit counted
    for the entrant whose seat caused it, not for its partner."""
    rated = {id(g) for g in rated_list}
    harness = {g.pair_id for g in results if g.harness_fault}
    rows: dict[str, list[float]] = {}
    forfeits: dict[str, dict[ForfeitKind, int]] = {}
    for g in results:
        for team, side in enumerate(g.team_entrants):
            for e in side:
                row = rows.get(e)
                if row is None:
                    # games, wins, margin sum, void, normal, voided by a harness fault
                    row = rows[e] = [0, 0, 0.0, 0, 0, 0]
                    forfeits[e] = {k: 0 for k in ForfeitKind}
                if id(g) not in rated:
                    row[3] += 1
                    row[5] += g.pair_id in harness
                    continue
                row[0] += 1
                row[1] += g.rated_winner == team
                if g.forfeit is None:
                    row[2] += g.scores[team] - g.scores[1 - team]
                    row[4] += 1
                elif g.forfeit[0] == team and g.offender in (None, e):
                    forfeits[e][ForfeitKind(g.forfeit[1])] += 1
    return {e: EntrantStats(int(r[0]), int(r[1]), r[2] / r[4] if r[4] else 0.0, forfeits[e],
                            int(r[3]), int(r[5]))
            for e, r in sorted(rows.items())}


def head_to_head(results: Iterable[GameResult]) -> dict[tuple[str, str], tuple[int, int]]:
    """(a, b) -> (games a won against b, games a lost against b), both orders present."""
    return _head_to_head(rated_games(results))


def _head_to_head(rated: Iterable[TeamGame]) -> dict[tuple[str, str], tuple[int, int]]:
    """(a, b) -> (games a's team won against a team b was on, games it lost)."""
    counts: dict[tuple[str, str], list[int]] = {}
    for g in rated:
        won = g.rated_winner == 0
        first, second = g.team_entrants
        for a in first:
            for b in second:
                row = counts.get((a, b))
                if row is None:
                    row = counts[(a, b)] = [0, 0]
                    counts[(b, a)] = [0, 0]
                row[0 if won else 1] += 1
                counts[(b, a)][1 if won else 0] += 1
    return {key: (w, lost) for key, (w, lost) in counts.items()}


def pair_outcomes(results: Iterable[GameResult], a: str, b: str) -> list[int]:
    """Games a won in each complete rated pair against b (0, 1 or 2), in pair order.

    Pair order is the order of each pair's first game in `results`; a pair with a void game
    is incomplete and left out.
    """
    outcomes = []
    for games in rated_pairs(results).values():
        if len(games) == 2 and set(games[0].entrants) == {a, b}:
            outcomes.append(sum(g.rated_winner_entrant == a for g in games))
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


class _Rated(Protocol):
    """What matchup summaries need of a fit: `RatingFit` or `Standings`."""

    def ranking(self) -> tuple[str, ...]: ...

    def difference(self, a: str, b: str) -> tuple[float, float]: ...

    def los(self, a: str, b: str) -> float: ...


def matchup_summaries(results: Iterable[GameResult], fit: _Rated) -> list[MatchupSummary]:
    """One summary per matchup that has rated games, in order of a's rank then b's."""
    results = list(results)
    pairs = rated_pairs(results)
    return _matchup_summaries(pairs, _head_to_head(rated_games_of(results, pairs)), fit)


def _matchup_summaries(rated: Mapping[str, Sequence[GameResult]],
                       h2h: Mapping[tuple[str, str], tuple[int, int]],
                       fit: _Rated) -> list[MatchupSummary]:
    rank = {e: k for k, e in enumerate(fit.ranking())}
    pairs: dict[tuple[str, str], list[Sequence[GameResult]]] = {}
    for games in rated.values():
        first, second = sorted(games[0].entrants, key=rank.__getitem__)
        pairs.setdefault((first, second), []).append(games)
    summaries = []
    for (a, b), groups in sorted(pairs.items(), key=lambda kv: (rank[kv[0][0]], rank[kv[0][1]])):
        counts = [0, 0, 0]
        for games in groups:
            if len(games) == 2:
                counts[sum(g.rated_winner_entrant == a for g in games)] += 1
        diff, half = fit.difference(a, b)
        won, lost = h2h[(a, b)]
        summaries.append(MatchupSummary(a, b, counts[0], counts[1], counts[2],
                                        sum(len(g) == 1 for g in groups), won, lost, diff,
                                        half, fit.los(a, b)))
    return summaries


# --- Notes: what the tables must say beside the numbers ------------------------------------

class NoteKind(enum.StrEnum):
    """Why a table needs a note."""

    ANCHOR_MISSING = "anchor_missing"
    """The anchor has no rated games (or is no entrant): ratings are mean-centred."""
    GROUPS = "groups"
    """Entrants are not all connected by games: each group is rated on its own scale."""
    BOUND = "bound"
    """Ratings set by the prior (a perfect or zero record): bounds, not estimates."""
    INFINITE = "infinite"
    """With a zero prior, those ratings are infinite (or undetermined)."""
    UNRATED = "unrated"
    """Entrants with no rated games: listed without a rating."""
    BOOTSTRAP_SKIPPED = "bootstrap_skipped"
    """Bootstrap resamples that could not be fitted were left out."""
    SEPARATED = "separated"
    """Individual ratings: foursomes won or lost in every game got the prior, because the
    estimate did not exist otherwise."""


@dataclass(frozen=True)
class Note:
    """One thing the tables must say, with the entrant keys it is about."""

    kind: NoteKind
    entrants: tuple[str, ...] = ()
    detail: Mapping[str, Any] = field(default_factory=dict)
    """Kind-specific facts: `anchor` and `reason` (ANCHOR_MISSING), `groups` (GROUPS),
    `skipped` and `replicates` (BOOTSTRAP_SKIPPED), `foursomes` (SEPARATED)."""


# --- Everything the standings need ---------------------------------------------------------

@dataclass(frozen=True)
class Rank:
    """A place in the ranking; entrants whose ratings round to the same figure share it."""

    position: int
    shared: bool
    group: int
    """The connected group it is ranked in (0: the anchor's, or the largest)."""


RANK_DIGITS = 1
"""Ratings are rounded to this many decimals (as printed) before ranking."""


@dataclass(frozen=True)
class Standings:
    """All the figures the standings tables show, computed once from the results."""

    fits: tuple[RatingFit, ...]
    """One fit per group of entrants connected by games: the anchor's (else the largest)
    first. Ratings of different groups are on different scales."""
    stats: Mapping[str, EntrantStats]
    head_to_head: Mapping[tuple[str, str], tuple[int, int]]
    matchups: tuple[MatchupSummary, ...]
    incremental: Mapping[str, float]
    """K-factor Elo in game order: a secondary column, never the ranking."""
    bootstraps: tuple[BootstrapResult | None, ...] = ()
    """Per fit, its bootstrap (None when not asked or not computable)."""
    entrants: tuple[str, ...] = ()
    """Every entrant to list: the rated ones, then those without rated games."""
    notes: tuple[Note, ...] = ()
    anchor: str | None = None
    """The anchor asked for (a key), whether or not it could be used."""
    k_factor: float = 16.0
    individual: bool = False
    """Individual ratings from games with mixed partners (a team's rating is the sum of its
    partners'); head to head then counts games against a team the other entrant was on."""
    synergy: SynergyTable | None = None
    """With mixed partners: each partnership's synergy (`arena.ratings.synergy`)."""

    @property
    def fit(self) -> RatingFit:
        """The first group's fit (the only one when every entrant is connected)."""
        return self.fits[0]

    @property
    def bootstrap(self) -> BootstrapResult | None:
        return self.bootstraps[0] if self.bootstraps else None

    def fit_of(self, key: str) -> RatingFit | None:
        """The fit that rates `key` (None: it has no rated games)."""
        return next((f for f in self.fits if key in f.elo), None)

    def bootstrap_of(self, key: str) -> BootstrapResult | None:
        for fit, boot in zip(self.fits, self.bootstraps, strict=True):
            if key in fit.elo:
                return boot
        return None

    def ranks(self) -> dict[str, Rank]:
        """Rank per rated entrant, within its group, on ratings rounded as printed."""
        ranks = {}
        for g, fit in enumerate(self.fits):
            rounded = {e: _rounded(fit.elo[e]) for e in fit.entrants}
            order = fit_order(fit)
            for e in order:
                same = [o for o in order if _same(rounded[o], rounded[e])]
                ranks[e] = Rank(order.index(same[0]) + 1, len(same) > 1, g)
        return ranks

    def ranking(self) -> tuple[str, ...]:
        """Rated entrants by group, then by rounded rating (ties by key)."""
        return tuple(e for fit in self.fits for e in fit_order(fit))

    def unrated(self) -> tuple[str, ...]:
        """Entrants listed without a rating (no rated games)."""
        rated = {e for f in self.fits for e in f.elo}
        return tuple(e for e in self.entrants if e not in rated)

    def difference(self, a: str, b: str) -> tuple[float, float]:
        """Elo difference a - b and its 95% half-width; nan when in different groups."""
        fit = self.fit_of(a)
        if fit is None or b not in fit.elo:
            return math.nan, math.nan
        return fit.difference(a, b)

    def los(self, a: str, b: str) -> float:
        """Probability that a is stronger than b; nan when in different groups."""
        fit = self.fit_of(a)
        return fit.los(a, b) if fit is not None and b in fit.elo else math.nan


def _rounded(x: float) -> float:
    return round(x, RANK_DIGITS) if math.isfinite(x) else x


def _same(x: float, y: float) -> bool:
    return x == y or (math.isnan(x) and math.isnan(y))


def fit_order(fit: RatingFit) -> tuple[str, ...]:
    """A fit's entrants from the highest rounded rating down (ties by key, undetermined last)."""
    def key(e: str) -> tuple[bool, float, str]:
        x = _rounded(fit.elo[e])
        return (math.isnan(x), 0.0 if math.isnan(x) else -x, e)
    return tuple(sorted(fit.entrants, key=key))


def rating_groups(matchups: Iterable[tuple[str, str]]) -> list[list[str]]:
    """Entrants connected by these matchups, largest group first (entrant keys sorted)."""
    keys = sorted({e for m in matchups for e in m})
    index = {e: k for k, e in enumerate(keys)}
    edges = {(index[a], index[b]) for a, b in matchups}
    return [[keys[k] for k in group] for group in connected_groups(len(keys), edges)]


def _groups(pairs: Mapping[str, Sequence[TeamGame]]) -> list[list[str]]:
    """Entrants connected by rated games (in a game together), largest group first."""
    return rating_groups({(a, b) for games in pairs.values() for a in games[0].entrants
                          for b in games[0].entrants if a < b})


# --- One loop for fixed and mixed partners -------------------------------------------------

@dataclass(frozen=True)
class Partners(Generic[G]):
    """What differs between fixed and mixed partners; the standings are one loop over it."""

    rated: Callable[[Iterable[G]], dict[str, list[G]]]
    """Rated pairs of the results (`fit.rated_pairs`, `individual.rated_team_pairs`)."""
    data: Callable[[Mapping[str, Sequence[G]]], FitData]
    """Rated pairs as the model's comparisons (`fit.fixed_data`, `individual.team_data`)."""
    incremental: Callable[[Sequence[G], float, str | None, float], dict[str, float]]
    """K-factor Elo over the rated games in order: (games, k_factor, anchor, anchor_elo)."""
    extras: Callable[[Standings, Mapping[str, Sequence[G]], Mapping[str, Sequence[G]], float],
                     Standings]
    """What this kind adds: (standings, rated pairs, the first group's pairs, prior)."""
    individual: bool
    """Whether the ratings are individual (`Standings.individual`)."""


def _fixed_incremental(games: Sequence[GameResult], k_factor: float, anchor: str | None,
                       anchor_elo: float) -> dict[str, float]:
    return incremental_rated(games, k_factor=k_factor, anchor=anchor, anchor_elo=anchor_elo)


def _with_matchups(standings: Standings, pairs: Mapping[str, Sequence[GameResult]],
                   main: Mapping[str, Sequence[GameResult]], prior: float) -> Standings:
    return dataclasses.replace(standings, matchups=tuple(
        _matchup_summaries(pairs, standings.head_to_head, standings)))


def _with_synergy(standings: Standings, pairs: Mapping[str, Sequence[TeamResult]],
                  main: Mapping[str, Sequence[TeamResult]], prior: float) -> Standings:
    return dataclasses.replace(standings, synergy=synergies(main, standings.fit, prior=prior))


FIXED: Partners[GameResult] = Partners(rated_pairs, fixed_data, _fixed_incremental,
                                       _with_matchups, individual=False)
"""Fixed partners: teams (a, a); matchup summaries."""


def compute_standings(results: Iterable[GameResult], *, anchor: str | None = None,
                      anchor_elo: float = 0.0, prior: float = 2.0, k_factor: float = 16.0,
                      bootstrap: int = 0, seed: int = 0,
                      entrants: Iterable[str] = ()) -> Standings:
    """Fit, counts and secondary figures in one go; `bootstrap` replicates (0: none).

    Never refuses what can be shown: each group of entrants connected by games is fitted on
    its own (anchored if it holds the anchor, else mean-centred), and `entrants` without rated
    games are listed unrated; `Standings.notes` says what was done. Raises RatingsError only
    when no two entrants have a rated game between them.
    """
    return standings_of(FIXED, results, anchor=anchor, anchor_elo=anchor_elo, prior=prior,
                        k_factor=k_factor, bootstrap=bootstrap, seed=seed, entrants=entrants)


def standings_of(partners: Partners[G], results: Iterable[G], *, anchor: str | None = None,
                 anchor_elo: float = 0.0, prior: float = 2.0, k_factor: float = 16.0,
                 bootstrap: int = 0, seed: int = 0, entrants: Iterable[str] = ()) -> Standings:
    """The standings of `results` played by `partners` (`FIXED` or `MIXED`): what
    `compute_standings` and `compute_mixed_standings` say, in one loop."""
    results, entrants = list(results), list(entrants)
    pairs = partners.rated(results)  # selected once: every figure below counts these
    groups = [g for g in _groups(pairs) if len(g) > 1]
    if not groups:
        raise RatingsError("no rated games between two entrants yet")
    if anchor is not None:
        groups.sort(key=lambda g: anchor not in g)
    fits: list[RatingFit] = []
    boots: list[BootstrapResult | None] = []
    for group in groups:
        data = partners.data(_pairs_of(pairs, group, len(groups)))
        own = anchor if anchor in group else None
        fits.append(fit_data(data, anchor=own, anchor_elo=anchor_elo, prior=prior))
        boots.append(bootstrap_data(data, anchor=own, anchor_elo=anchor_elo, prior=prior,
                                    replicates=bootstrap, seed=seed) if bootstrap else None)
    rated_list = rated_games_of(results, pairs)
    stats = _entrant_stats(results, rated_list)
    rated = [e for f in fits for e in fit_order(f)]
    listed = tuple(rated) + tuple(sorted((set(entrants) | set(stats)) - set(rated)))
    standings = Standings(
        tuple(fits), stats, _head_to_head(rated_list), (),
        partners.incremental(rated_list, k_factor, anchor, anchor_elo), tuple(boots), listed,
        (), anchor, k_factor, individual=partners.individual)
    standings = partners.extras(standings, pairs, _pairs_of(pairs, groups[0], len(groups)),
                                prior)
    return dataclasses.replace(
        standings, notes=tuple(notes_for(standings, anchor, known=set(entrants) | set(stats))))


def _pairs_of(pairs: Mapping[str, Sequence[G]], group: Sequence[str],
              groups: int) -> Mapping[str, Sequence[G]]:
    """The pairs of one group of entrants (all of them when there is one group)."""
    if groups == 1:
        return pairs
    members = set(group)
    return {p: games for p, games in pairs.items() if games[0].entrants[0] in members}


def notes_for(standings: Standings, anchor: str | None, known: set[str]) -> list[Note]:
    """What was done to give `standings` a table (`Standings.notes`): an anchor that could
    not be used, separate groups, ratings set by the prior or infinite, entrants without
    rated games, separated foursomes, skipped bootstrap resamples. `known`: every entrant
    key asked for or counted (an anchor among them has no rated games; else it is no
    entrant)."""
    notes = []
    if anchor is not None and all(anchor not in f.elo for f in standings.fits):
        reason = "no rated games" if anchor in known else "not an entrant"
        notes.append(Note(NoteKind.ANCHOR_MISSING, (anchor,) if anchor in known else (),
                          {"anchor": anchor, "reason": reason}))
    if len(standings.fits) > 1:
        notes.append(Note(NoteKind.GROUPS, (),
                          {"groups": [list(fit_order(f)) for f in standings.fits]}))
    bounded = [e for f in standings.fits for e in fit_order(f) if e in f.bounds]
    infinite = [e for f in standings.fits for e in fit_order(f)
                if e in f.bounds and not math.isfinite(f.elo[e])]
    finite = [e for e in bounded if e not in infinite]
    if finite:
        notes.append(Note(NoteKind.BOUND, tuple(finite)))
    if infinite:
        notes.append(Note(NoteKind.INFINITE, tuple(infinite)))
    if standings.unrated():
        notes.append(Note(NoteKind.UNRATED, standings.unrated()))
    separated = sum(f.separated for f in standings.fits)
    if separated:
        notes.append(Note(NoteKind.SEPARATED, (), {"foursomes": separated}))
    skipped = sum(b.skipped for b in standings.bootstraps if b is not None)
    if skipped:
        total = sum(b.skipped + b.replicates for b in standings.bootstraps if b is not None)
        notes.append(Note(NoteKind.BOOTSTRAP_SKIPPED, (),
                          {"skipped": skipped, "replicates": total}))
    return notes


# --- Mixed partners ------------------------------------------------------------------------

def compute_mixed_standings(results: Iterable[TeamResult], *, anchor: str | None = None,
                            anchor_elo: float = 0.0, prior: float = 2.0,
                            k_factor: float = 16.0, bootstrap: int = 0, seed: int = 0,
                            entrants: Iterable[str] = ()) -> Standings:
    """Individual ratings (`arena.ratings.individual`), counts from each entrant's side, head
    to head as opponents, and the partnership synergy, with the same fallbacks and notes as
    `compute_standings` (groups of entrants never in a game together are rated apart).
    There are no matchups. Raises RatingsError only when nothing can be rated."""
    return standings_of(MIXED, results, anchor=anchor, anchor_elo=anchor_elo, prior=prior,
                        k_factor=k_factor, bootstrap=bootstrap, seed=seed, entrants=entrants)


def _mixed_incremental(games: Iterable[TeamResult], k_factor: float, anchor: str | None,
                       anchor_elo: float) -> dict[str, float]:
    """K-factor Elo over teams in game order: a team's rating is the sum of its seats', and
    each seat moves by half the team's change (order-dependent: for comparison only)."""
    elo: dict[str, float] = {}
    for g in games:
        ratings = [sum(elo.setdefault(e, anchor_elo) for e in side) for side in g.teams]
        expected = 1.0 / (1.0 + 10.0 ** ((ratings[1] - ratings[0]) / 400.0))
        delta = k_factor * ((1.0 if g.rated_winner == 0 else 0.0) - expected) / 2.0
        for team, sign in ((0, 1.0), (1, -1.0)):
            for e in g.teams[team]:
                elo[e] += sign * delta
    shift = elo[anchor] - anchor_elo if anchor in elo else 0.0
    return {e: r - shift for e, r in elo.items()}


MIXED: Partners[TeamResult] = Partners(rated_team_pairs, team_data, _mixed_incremental,
                                       _with_synergy, individual=True)
"""Mixed partners: a team's rating is the sum of its partners'; the partnership synergy."""
