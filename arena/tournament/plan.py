"""A tournament's plan: what the next run would play, how long it would take here, and how
sure its standings would be; nothing is played, no bot is built or started.

`plan_tournament(config)` reads the config, the names, languages and current versions of the
bot folders (`arena.intake.folder_version`: the hash intake would give, without taking a
copy), and the store if there is one (read-only: a plan never creates or changes it). The
schedule and what is missing from it are the runner's own (`schedule.round_robin`,
`schedule.missing`), so a plan counts what the next run plays: the games of new matchups
and of unfinished pairs, and for a new version of a bot only its own matchups.

The time: a game between a and b takes about c[a] + c[b] seconds, each entrant's share
fitted by least squares on the store's games (`fit_costs`, from the `seconds` each game
took); an entrant that has not played takes that of its earlier versions, else that of its
language in this store (a store's games are all to its config's target), else its
language's default (`LANGUAGE_SECONDS`, measured to 1000, scaled to the config's target by
`language_seconds`: a quarter of it stays, the rest grows as the target). The total is
divided among the workers that play at once (each assumed to have a core of its own, as
when the games were measured). It is rough: the machine's load varies from minute to minute,
and a game's length depends on the matchup (a strong bot ends its games in fewer rounds),
which the sum only averages. The intervals come from `arena.ratings.planning`, with the win
variance and pair factor measured on the store's pairs once it has enough.
`build_plan` is the pure part: rows and counts in, a `TournamentPlan` out.
"""

from __future__ import annotations

import collections
import json
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass

from arena.errors import ConfigError
from arena.intake import IntakeRefused, folder_version
from arena.ratings.fit import GameResult
from arena.ratings.planning import (
    DEFAULT_ASSUMPTIONS,
    IntervalAssumptions,
    expected_half_width,
    games_for_half_width,
    measure_assumptions,
)
from arena.referee.manifest import BotManifest
from arena.tournament.config import TournamentConfig, available_cores
from arena.tournament.runner import entrant_sources
from arena.tournament.schedule import ScheduledGame, entrant_key, missing, round_robin
from arena.tournament.store import EntrantRow, Store

# Seconds of one game to 1000 each entrant accounts for, by language, for an entrant (and a
# language) without stored games: its share, fitted as a plan fits a store's games, in a
# round robin between the bundled random bots of the four languages, played as a tournament
# plays (intake and builds, one worker pinned, bots sandboxed, 4 pairs per matchup: each set
# of processes plays 4 games), by
#     arena bench game-cost --target 1000 --target 500 --pairs 4      (and 500 before 1000)
#     arena bench game-cost --target 250 --target 1000 --pairs 4
# on this machine (2 cores, nice 0) while other work kept its load average at 10-18 (the
# first two runs) and 25-30 (the third). Shares to 1000 in the three runs: python 1.37,
# 1.38, 2.61; c 0.98, 1.22, 0.62; node 1.63, 4.04, 3.97; java 3.84, 4.58, 6.90; the median
# of each is taken. The machine's load moves them by 2x from run to run; a quiet machine is
# faster; a tournament's own games replace them as soon as it has some.
LANGUAGE_SECONDS: Mapping[str, float] = {"python": 1.4, "c": 1.0, "node": 4.0, "java": 4.6}
LANGUAGE_TARGET = 1000
"""The target the shares of `LANGUAGE_SECONDS` were measured at."""
OTHER_LANGUAGE_SECONDS = 2.8
"""For a language `LANGUAGE_SECONDS` does not know (bot.toml's language is free text): the
mean of the four."""
FIXED_PART = 0.25
"""The part of a default share to `LANGUAGE_TARGET` that does not grow with the target: the
bots' start-up, spread over the games a set of processes plays, and each game's welcome and
end. The rest grows as the rounds, and the rounds as the target (13.5-13.8 rounds per game
to 1000 in the runs above, 6.8 to 500, 3.4 to 250). The same runs, the four languages
together: 4.99 s to 500 against 7.82 s to 1000, 7.29 against 11.22, 5.34 to 250 against
14.10 (its 1000 played at a higher load): straight lines through them leave 28%, 30% and
17% of the cost to 1000 at target 0."""

LOCAL = "local:"
"""The cluster address of N worker processes on this machine, 'local:N' (as
`config.address_problem` reads it)."""

TARGET_WIDTHS = (50.0, 25.0)
"""The interval half-widths (Elo) whose games per matchup a plan states."""


@dataclass(frozen=True)
class PlannedEntrant:
    """One bot folder taking part, as the next run would see it."""

    name: str
    language: str
    source: str
    """'config' or 'submit'."""
    folder: str
    key: str | None
    """Its entrant key now ("name@version"); None if intake would refuse the folder."""
    refused: str | None
    """Why intake would refuse the folder (it then plays nothing)."""
    replaces: str | None
    """The key of the version it replaces (its folder changed since the last run)."""
    stored_games: int
    """Games of this version in the store."""
    games_to_play: int
    seconds_per_game: float
    """Its share of a game's seconds."""
    cost_from: str
    """Where that share comes from, in words."""


@dataclass(frozen=True)
class TournamentPlan:
    """What the next run of a tournament would do, and what its standings would claim."""

    name: str
    config: str
    entrants: tuple[PlannedEntrant, ...]
    games_per_matchup: int
    target: int
    """The score that ends a game (the config's): a language's default share is scaled to it."""
    matchups: int
    matchups_complete: int
    """Matchups with every game stored."""
    matchups_begun: int
    """Matchups with some of their games stored."""
    games_scheduled: int
    games_to_play: int
    stored_games: int
    """Every game in the store (retired versions' too)."""
    workers: int
    workers_from: str
    """What set the workers: '-j', 'concurrency', 'cores' or a 'local:N' cluster."""
    cores: int
    at_once: int
    """Games played at the same time: the workers, at most the cores here (a remote cluster:
    the workers) and the pairs to play."""
    game_seconds: float
    """The games to play, one after another."""
    wall_seconds: float
    cost_games: int
    """The stored games the per-game costs were fitted on."""
    assumed: tuple[str, ...]
    """For the entrants without games: '<language> <seconds per game> (<where from>)'."""
    anchor: str | None
    """The anchor the ratings are measured from, or None (mean-centred)."""
    half_width: float | None
    """The expected 95% half-width (Elo) of each rating; None with fewer than 2 entrants."""
    games_for_widths: tuple[tuple[float, int | None], ...]
    """(half-width, games per matchup that give it), for each of `TARGET_WIDTHS`."""
    interval_assumptions: IntervalAssumptions
    new_version_games: int
    """Games a new version of one entrant plays: its n - 1 matchups."""
    new_version_seconds: float
    new_entrant_games: int
    """Games a new entrant plays: its n matchups."""
    cluster: str | None

    def lines(self) -> list[str]:
        """The plan as text, for the terminal."""
        return _lines(self)

    def to_json(self) -> str:
        data = asdict(self)
        data["games_for_widths"] = [{"half_width": w, "games_per_matchup": g}
                                    for w, g in self.games_for_widths]
        return json.dumps(data, indent=2)


# ----- costs --------------------------------------------------------------------------------

def fit_costs(games: Iterable[tuple[str, str, float]], rounds: int = 200) -> dict[str, float]:
    """Each entrant's share of a game's seconds from (entrant, entrant, seconds) games: the
    least-squares c with c[a] + c[b] about a game's seconds, never negative.

    Damped Jacobi on the normal equations, matchup by matchup; a share the games cannot tell
    apart (two entrants that only played each other) stays at half of their mean game."""
    totals: dict[str, dict[str, list[float]]] = {}  # entrant: opponent: [games, seconds]
    for a, b, seconds in games:
        for one, other in ((a, b), (b, a)):
            cell = totals.setdefault(one, {}).setdefault(other, [0.0, 0.0])
            cell[0] += 1.0
            cell[1] += seconds
    count = {e: sum(c[0] for c in row.values()) for e, row in totals.items()}
    cost = {e: sum(c[1] for c in row.values()) / count[e] / 2.0 for e, row in totals.items()}
    for _ in range(rounds):
        target = {e: max(0.0, sum(c[1] - c[0] * cost[o] for o, c in row.items()) / count[e])
                  for e, row in totals.items()}
        cost = {e: (cost[e] + target[e]) / 2.0 for e in cost}
    return cost


def language_seconds(language: str, target: int) -> float:
    """The default share of a game to `target` of an entrant in `language` (free text, any
    case): its measured share to `LANGUAGE_TARGET`, of which `FIXED_PART` stays and the rest
    is scaled by the target (a game's rounds grow as its target)."""
    measured = LANGUAGE_SECONDS.get(language.strip().lower(), OTHER_LANGUAGE_SECONDS)
    return measured * (FIXED_PART + (1.0 - FIXED_PART) * target / LANGUAGE_TARGET)


@dataclass(frozen=True)
class _Cost:
    seconds: float
    source: str
    assumed: str | None = None
    """For an entrant without games: the assumption, in words."""


def _entrant_cost(key: str, name: str, language: str, fitted: Mapping[str, float],
                  stored: Sequence[EntrantRow], played: Mapping[str, int],
                  target: int) -> _Cost:
    """An entrant's share of a game: its own games', else its earlier versions', else its
    language's in this store (a store's games are all to its config's target), else the
    language's default scaled to `target`."""
    if key in fitted:
        return _Cost(fitted[key], f"its {played.get(key, 0)} games")
    earlier = [fitted[e.key] for e in stored if e.name == name and e.key in fitted]
    if earlier:
        return _Cost(_mean(earlier), "its earlier versions' games")
    lang = language.strip().lower()
    same = [fitted[e.key] for e in stored if e.language.strip().lower() == lang
            and e.key in fitted]
    shown = language or "unknown language"
    if same:
        seconds = _mean(same)
        return _Cost(seconds, f"{shown} bots of this store",
                     f"{shown} {seconds:.2f} (its bots in this store)")
    seconds = language_seconds(language, target)
    return _Cost(seconds, f"{shown} default", f"{shown} {seconds:.2f} (default)")


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


# ----- the plan -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Source:
    """A bot folder taking part: its manifest, where it came from, its version now."""

    manifest: BotManifest
    source: str
    version: str | None
    refused: str | None = None

    @property
    def key(self) -> str | None:
        """Its entrant key now; None if intake would refuse it."""
        return None if self.version is None else entrant_key(self.manifest.name, self.version)


@dataclass(frozen=True)
class StoreRows:
    """What a plan reads of a store (all empty: no store yet)."""

    entrants: tuple[EntrantRow, ...] = ()
    done: frozenset[str] = frozenset()
    """Ids of the stored games."""
    timed: tuple[tuple[str, str, float], ...] = ()
    """(team 0, team 1, seconds) of every stored game."""
    results: tuple[GameResult, ...] = ()


def build_plan(config: TournamentConfig, sources: Sequence[Source], rows: StoreRows,
               workers: int | None = None, cores: int | None = None,
               cluster: str | None = None) -> TournamentPlan:
    """The plan of `config` for these bot folders and store rows (pure): `workers` is -j,
    `cores` this machine's (default: counted), `cluster` --cluster (default: the config's)."""
    cores = cores or available_cores()
    address = cluster or config.cluster
    count, workers_from = _workers(config, workers, address)
    lanes = count if address and not address.startswith(LOCAL) else min(count, cores)
    keys = [s.key for s in sources if s.key]
    # a game's id holds no seed, and ids are all `missing` compares
    scheduled = round_robin(keys, config.pairs_per_matchup, config.seed or 0)
    todo = missing(scheduled, set(rows.done))
    timed = [row for row in rows.timed if row[2] > 0]
    fitted = fit_costs(timed)
    played = collections.Counter(k for a, b, _ in rows.timed for k in (a, b))
    costs = {s.key: _entrant_cost(s.key, s.manifest.name, s.manifest.language, fitted,
                                  rows.entrants, played, config.target)
             for s in sources if s.key}
    share = {k: c.seconds for k, c in costs.items()}
    game_seconds = sum(share[g.matchup[0]] + share[g.matchup[1]] for g in todo)
    at_once = max(1, min(lanes, len({(g.matchup, g.pair_index) for g in todo})))
    n, games = len(keys), config.games_per_matchup
    anchor = _anchor(config, sources)
    assumptions = measure_assumptions(rows.results) if rows.results else DEFAULT_ASSUMPTIONS
    left = _missing_per_matchup(scheduled, todo)
    resubmit = max(0, n - 1) * games
    typical = 2.0 * _mean(list(share.values())) if share else 0.0
    return TournamentPlan(
        name=config.name, config=str(config.path),
        entrants=tuple(_planned(source, rows, costs, played, todo) for source in sources),
        games_per_matchup=games, target=config.target, matchups=len(left),
        matchups_complete=sum(1 for m in left.values() if m == 0),
        matchups_begun=sum(1 for m in left.values() if 0 < m < games),
        games_scheduled=len(scheduled), games_to_play=len(todo), stored_games=len(rows.done),
        workers=count, workers_from=workers_from, cores=cores, at_once=at_once,
        game_seconds=game_seconds, wall_seconds=game_seconds / at_once,
        cost_games=len(timed),
        assumed=tuple(sorted({c.assumed for c in costs.values() if c.assumed})),
        anchor=anchor,
        half_width=(expected_half_width(n, games, assumptions, anchor is not None)
                    if n >= 2 else None),
        games_for_widths=tuple((w, games_for_half_width(n, w, assumptions, anchor is not None)
                                if n >= 2 else None) for w in TARGET_WIDTHS),
        interval_assumptions=assumptions,
        new_version_games=resubmit,
        new_version_seconds=resubmit * typical / max(1, min(lanes, resubmit // 2)),
        new_entrant_games=n * games, cluster=address)


def _planned(source: Source, rows: StoreRows, costs: Mapping[str, _Cost],
             played: Mapping[str, int], todo: Sequence[ScheduledGame]) -> PlannedEntrant:
    manifest, key = source.manifest, source.key
    folder = str(manifest.folder)
    if key is None:
        return PlannedEntrant(manifest.name, manifest.language, source.source, folder, None,
                              source.refused, None, 0, 0, 0.0, "")
    before = [e for e in rows.entrants if e.folder == folder and not e.retired and e.key != key]
    cost = costs[key]
    return PlannedEntrant(manifest.name, manifest.language, source.source, folder, key, None,
                          before[-1].key if before else None, played.get(key, 0),
                          sum(1 for g in todo if key in g.matchup), cost.seconds, cost.source)


def _missing_per_matchup(scheduled: Sequence[ScheduledGame],
                         todo: Sequence[ScheduledGame]) -> dict[tuple[str, str], int]:
    left = {g.matchup: 0 for g in scheduled}
    for game in todo:
        left[game.matchup] += 1
    return left


def _anchor(config: TournamentConfig, sources: Sequence[Source]) -> str | None:
    """The anchor entrant's name if it takes part (else the ratings are mean-centred)."""
    wanted = config.ratings.anchor
    for source in sources:
        if source.key and wanted in (source.manifest.name, source.key):
            return source.manifest.name
    return None


def _workers(config: TournamentConfig, workers: int | None,
             address: str | None) -> tuple[int, str]:
    """The workers a run would start and what sets them: 'local:N' (N processes here),
    '-j', the config's 'concurrency' or the 'cores'. A remote cluster's workers are not known
    here: -j (else the config's) stands for them."""
    if address and address.startswith(LOCAL):
        return int(address[len(LOCAL):]), address
    if workers:
        return workers, "-j"
    return config.workers(), "concurrency" if config.concurrency > 0 else "cores"


# ----- reading what a plan needs ------------------------------------------------------------

def plan_tournament(config: TournamentConfig, workers: int | None = None,
                    cluster: str | None = None) -> TournamentPlan:
    """The plan of `config` as it stands: its bot folders now and its store (read-only; a
    config without a store gets a plan of a fresh tournament, and still no store).
    ConfigError if a submitted folder is gone or two folders share a name (as for a run), or
    for mixed partners, which a plan does not cover (its intervals are those of matchups)."""
    if config.mixed:
        raise ConfigError(f"{config.path}: key 'tournament.partners': --plan covers "
                          "tournaments of fixed partners; with mixed partners each cycle plays "
                          "the movement the run's first line describes")
    if not config.storage.is_file():
        sources = _sources([(m, "config") for m in config.entrants])
        return build_plan(config, sources, StoreRows(), workers, cluster=cluster)
    with Store(config.storage, read_only=True) as store:
        sources = _sources(entrant_sources(config, store))
        rows = StoreRows(tuple(store.entrants()), frozenset(store.done_game_ids()),
                         tuple((g.teams[0], g.teams[1], g.seconds) for g in store.games()),
                         tuple(store.results()))
    return build_plan(config, sources, rows, workers, cluster=cluster)


def _sources(folders: Iterable[tuple[BotManifest, str]]) -> list[Source]:
    sources = []
    for manifest, where in folders:
        try:
            sources.append(Source(manifest, where, folder_version(manifest.folder)))
        except IntakeRefused as exc:
            sources.append(Source(manifest, where, None, str(exc)))
    return sources


# ----- the text -----------------------------------------------------------------------------

def duration(seconds: float) -> str:
    """A duration in words a person reads at a glance: '45 s', '12 min', '3 h 20 min'."""
    if seconds < 90:
        return f"{max(seconds, 0.0):.0f} s"
    minutes = round(seconds / 60.0)
    if minutes < 90:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    return f"{seconds / 86400.0:.1f} days"


TEXT_WIDTH = 92
"""Columns of the plan's text; a longer line goes on, indented, on the next."""


def _lines(plan: TournamentPlan) -> list[str]:
    n = sum(1 for e in plan.entrants if e.key)
    games = plan.games_per_matchup
    source = {"-j": "-j", "concurrency": "the config's concurrency", "cores": "one per core",
              }.get(plan.workers_from, f"the cluster {plan.workers_from}")
    out = [f"Plan of {plan.name} ({plan.config}): nothing is played, no bot is built.",
           f"Entrants ({n}):"]
    width = min(30, max((len(e.name) for e in plan.entrants), default=4))
    out += [f"  {e.name:<{width}}  {e.language or '?':<7} {e.source:<6}  {_entrant_text(e)}"
            for e in plan.entrants]
    out += [f"Matchups: {plan.matchups} ({n} entrants: n(n-1)/2): {plan.matchups_complete} "
            f"complete, {plan.matchups_begun} begun, "
            f"{plan.matchups - plan.matchups_complete - plan.matchups_begun} not started.",
            f"Games per matchup: {games} ({games // 2} duplicate pairs): "
            f"{plan.games_scheduled} scheduled, {plan.games_scheduled - plan.games_to_play} "
            f"stored, {plan.games_to_play} to play.",
            f"Workers: {plan.workers} ({source}; {plan.cores} cores here): {plan.at_once} "
            "games at a time.",
            _time_text(plan), _interval_text(plan),
            f"Resubmission: a new version of one bot plays only its own matchups: {max(0, n - 1)}"
            f" x {games} = {plan.new_version_games} games, about "
            f"{duration(plan.new_version_seconds)}; the old version keeps its games. A new "
            f"bot plays {n} x {games} = {plan.new_entrant_games}."]
    if n < 2:
        out.append("The run would not start as it stands: it needs two entrants that intake "
                   "takes in.")
    out.append("Builds are not checked: a bot that cannot be built stops the run (or is left "
               "out, with --skip-unbuildable).")
    return [part for line in out for part in _wrapped(line)]


def _wrapped(line: str) -> list[str]:
    indent = " " * (len(line) - len(line.lstrip(" ")) + 2)
    return textwrap.wrap(line, TEXT_WIDTH, subsequent_indent=indent, break_long_words=False,
                         break_on_hyphens=False) or [""]


def _entrant_text(e: PlannedEntrant) -> str:
    if e.key is None:
        return f"refused by intake, plays nothing: {e.refused}"
    stored = f"{e.stored_games} games stored" if e.stored_games else "no games yet"
    if e.replaces:
        stored += f", new version (replaces {e.replaces.split('@')[1][:8]})"
    return (f"{stored}, {e.games_to_play} to play; {e.seconds_per_game:.2f} s/game "
            f"({e.cost_from})")


def _time_text(plan: TournamentPlan) -> str:
    if not plan.games_to_play:
        return "Time: nothing to play."
    remote = plan.cluster is not None and not plan.cluster.startswith(LOCAL)
    where = (f" The games play on the cluster {plan.cluster}: this assumes {plan.workers} of "
             "its workers (-j N says how many), each as fast as this machine." if remote
             else "")
    basis = (f"Estimated from {plan.cost_games} stored games" if plan.cost_games
             else "No stored games yet")
    assumed = (f"; entrants without games by their language, in seconds per game to "
               f"{plan.target}: "
               + ", ".join(plan.assumed) if plan.assumed else "")
    return (f"Time: about {duration(plan.wall_seconds)} ({duration(plan.game_seconds)} of "
            f"games, {plan.at_once} at a time).{where} {basis}: a game takes about the sum of "
            f"its two entrants' shares{assumed}.")


def _interval_text(plan: TournamentPlan) -> str:
    if plan.half_width is None:
        return "Intervals: none (fewer than two entrants)."
    against = (f"against the anchor {plan.anchor}; the same for the difference of any two"
               if plan.anchor else "mean-centred: no anchor among the entrants")
    needs = ", ".join(f"±{w:.0f} needs {g}" if g is not None else f"±{w:.0f} is out of reach"
                      for w, g in plan.games_for_widths)
    return (f"Intervals: about ±{plan.half_width:.0f} Elo (95%) on each rating with "
            f"{plan.games_per_matchup} games per matchup ({against}); {needs} games per "
            f"matchup. Assumes {plan.interval_assumptions.describe()}.")
