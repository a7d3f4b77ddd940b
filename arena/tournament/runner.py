"""The tournament runner: config -> entrants -> schedule -> workers -> store, resumable.

An entrant is a bot version: its name from `bot.toml` and the content hash of the snapshot
intake took of its folder (key "name@hash"; see `arena.intake`: every run plays and builds
copies, never the author's folder). Entrants come from the config's folders
and from folders added with `submit`; each folder's current content is its active version. A
changed folder is a new entrant: the old version keeps its games (and stays in the
standings, marked retired) but is scheduled no more. Running again plays only what the store
lacks: games of matchups that are new, and any game of a pair that is missing (an unfinished
game is replayed on its deals).

One run per store: a run holds the store's lock (`lock.run_lock`) for its whole life. A bot
that cannot be built stops the run before any game, naming every such bot, unless the run
leaves them out (`skip_unbuildable`), which it says, and which the standings header says.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from arena.errors import ArenaError, ConfigError
from arena.intake import IntakeFailed, IntakeStage, Unbuildable, take_bot
from arena.ratings.fit import GameResult
from arena.ratings.fit import rate as rate_points
from arena.ratings.individual import rate_individual, rated_team_pairs
from arena.ratings.model import RatingsError, ranking_of
from arena.referee.manifest import BotManifest, load_manifest
from arena.referee.match import Entrant, Guest
from arena.sandbox import Isolation, describe
from arena.sandbox import resolve as resolve_isolation
from arena.tournament.config import TournamentConfig, check_outside
from arena.tournament.lock import run_lock
from arena.tournament.movement import movement
from arena.tournament.records import sweep_pending
from arena.tournament.schedule import (
    Deals,
    ScheduledGame,
    dealt_as_stored,
    entrant_key,
    missing,
    mixed_schedule,
    round_robin,
)
from arena.tournament.store import EntrantRow, GameRow, GameWriter, Store
from arena.tournament.workers import (
    Finished,
    Setup,
    Source,
    WorkerError,
    ignore_sigint,
    run_games,
)

if TYPE_CHECKING:  # the cluster is imported only by a run that asks for one
    from arena.tournament.cluster import Cluster

logger = logging.getLogger(__name__)

_RECORDS_IGNORE = "# Game records of a tournament: data, not source.\n*\n"
_RESUME = "run the same command again to resume"


class TournamentInterrupted(ArenaError):
    """The user stopped the run; everything finished is stored and the run can resume."""

    def __init__(self, played: int, stored: int, config: Path) -> None:
        super().__init__(f"interrupted: {played} games played in this run, {stored} stored in "
                         f"all; {_RESUME} ({config})")
        self.played, self.stored = played, stored


class RunFailed(ArenaError):
    """A worker failed: the games finished are stored and the run can resume."""


class CannotBuild(ArenaError):
    """Entrants cannot be built and the run was not asked to leave them out."""

    def __init__(self, failures: Sequence[Unbuildable], config: Path) -> None:
        listed = "\n".join(f"  {f.details()}" for f in failures)
        super().__init__(
            f"{config}: {len(failures)} entrant(s) cannot be built, so the tournament does not "
            f"start:\n{listed}\nFix them, or leave them out: --skip-unbuildable (or "
            "skip_unbuildable = true in the config's [tournament]).")
        self.failures = tuple(failures)


class Listener(Protocol):
    """What a run tells its caller as it goes (the default, `QuietListener`, ignores it)."""

    def note(self, text: str) -> None:
        """One line of news: a bot being built, an entrant left out, public deals."""

    def started(self, total: int, standings: str) -> None:
        """Before the first game: `total` games to play."""

    def game(self, row: GameRow, pair_done: bool, standings: str) -> None:
        """A game stored; `pair_done`: its pair is complete now."""


class QuietListener:
    """A Listener that ignores everything."""

    def note(self, text: str) -> None:
        pass

    def started(self, total: int, standings: str) -> None:
        pass

    def game(self, row: GameRow, pair_done: bool, standings: str) -> None:
        pass


@dataclass(frozen=True)
class RunSummary:
    """What one run did."""

    played: int
    """Games played and stored by this run."""
    pending: int
    """Scheduled games still missing afterwards (0 when the round robin is complete)."""
    stored: int
    """Games in the store after the run."""
    seconds: float
    workers: int
    left_out: tuple[Unbuildable, ...] = ()
    """Entrants that could not be built and were left out of this run."""

    @property
    def games_per_second(self) -> float:
        return self.played / self.seconds if self.seconds > 0 else 0.0


# ----- the store and the entrants -------------------------------------------------------------

def open_store(config: TournamentConfig, create: bool = True) -> Store:
    """The config's store, checked against (and tied to) the config's deals and target."""
    store = Store(config.storage, create=create)
    try:
        _bind_deals(config, store)
        _bind_partners(config, store)
        store.bind(config.path, {"target": str(config.target)},
                   {"name": config.name, "config": str(config.path),
                    "anchor": config.ratings.anchor or "",
                    "anchor_elo": repr(config.ratings.anchor_elo),
                    "prior": repr(config.ratings.prior)})
    except BaseException:
        store.close()
        raise
    return store


def _bind_deals(config: TournamentConfig, store: Store) -> None:
    """A store plays secret deals or one fixed seed for its whole life (ConfigError naming
    'tournament.seed' if the config says otherwise)."""
    stored = stored_deals(store)
    wanted = "secret" if config.seed is None else f"seed {config.seed}"
    if stored is not None and stored != wanted:
        words = {"secret": "secret deals (no seed)"}
        fix = (f"set seed = {stored.split()[1]} again" if stored != "secret"
               else "remove the seed")
        raise ConfigError(f"{config.path}: key 'tournament.seed': the tournament in "
                          f"{store.path} was started with "
                          f"{words.get(stored, stored.replace(' ', ' = '))}, not "
                          f"{words.get(wanted, wanted.replace(' ', ' = '))}; its games would "
                          f"not match ({fix}, or use a new storage path)")
    store.set_meta({"deals": wanted})


def _bind_partners(config: TournamentConfig, store: Store) -> None:
    """A store holds one kind of tournament, fixed or mixed partners, for its whole life
    (ConfigError naming 'tournament.partners' if the config says otherwise; a store of an
    older arena holds fixed partners)."""
    stored = store.meta("partners") or ("fixed" if store.game_count() else None)
    if stored is not None and stored != config.partners:
        raise ConfigError(f"{config.path}: key 'tournament.partners': the tournament in "
                          f"{store.path} was played with {stored} partners, not "
                          f"{config.partners}; its games would not mix (use a new storage "
                          "path)")
    store.set_meta({"partners": config.partners})


def stored_deals(store: Store) -> str | None:
    """How the store's games were dealt: "secret", "seed N", or None (no run yet)."""
    stored = store.meta("deals")
    if stored is None and store.meta("seed") is not None:  # a store of schema 1
        stored = f"seed {store.meta('seed')}"
    return stored


def deals_of(config: TournamentConfig, store: Store) -> Deals:
    """Where the config's game seeds come from: the store's secret, or the fixed seed."""
    return Deals.secret(store.deal_secret()) if config.seed is None \
        else Deals.fixed(config.seed)


def entrant_sources(config: TournamentConfig, store: Store) -> list[tuple[BotManifest, str]]:
    """Each bot folder taking part with its source ('config' or 'submit'), config's first.

    Raises ConfigError if a submitted folder is gone or two folders share a bot name.
    """
    sources = [(m, "config") for m in config.entrants]
    folders = {m.folder for m in config.entrants}
    for folder in store.submissions():
        if folder in folders:
            continue
        try:
            manifest = load_manifest(folder)
        except ConfigError as exc:
            raise ConfigError(f"{store.path}: submitted bot folder: {exc}") from None
        check_outside(config.path, manifest, config.storage, config.records)
        sources.append((manifest, "submit"))
        folders.add(folder)
    names: dict[str, Path] = {}
    for manifest, _ in sources:
        other = names.setdefault(manifest.name, manifest.folder)
        if other != manifest.folder:
            raise ConfigError(f"{manifest.folder}/bot.toml: key 'name': {manifest.name!r} is "
                              f"also the name of {other}, in the same tournament")
    return sources


def register_entrants(config: TournamentConfig, store: Store, build: bool = True,
                      note: Callable[[str], None] | None = None,
                      ) -> tuple[dict[str, Entrant], list[Unbuildable]]:
    """Take in every bot folder (`arena.intake.take_bot`: a snapshot, and with `build` its
    build in the sandbox, once per version) and register its current version: the active
    entrants by key, in source order, and the bots refused (those are not registered)."""
    policy = config.intake_policy(resolve_isolation(config.isolation))
    entrants: dict[str, Entrant] = {}
    failures: list[Unbuildable] = []
    for manifest, source in entrant_sources(config, store):
        try:
            ready = take_bot(manifest.folder, policy, build, note)
        except IntakeFailed as exc:
            failures.append(exc.failure)
            continue
        taken = ready.manifest
        if taken.name != manifest.name:  # its author renamed it after the config was read
            failures.append(Unbuildable(
                manifest.folder, manifest.name, IntakeStage.MANIFEST, f"{manifest.folder}/bot.toml: "
                f"key 'name' changed from {manifest.name!r} to {taken.name!r} while the run "
                "started; run it again", language=taken.language))
            continue
        key = entrant_key(taken.name, ready.version)
        if note is not None:
            _note_new_version(store, key, str(manifest.folder), taken.version, note)
        store.register_entrant(EntrantRow(key, taken.name, ready.version, taken.version,
                                          taken.language, str(manifest.folder), source,
                                          False))
        entrants[key] = Entrant(config.with_limits(taken), ready.version,
                                source=str(manifest.folder), snapshot=ready.snapshot.folder)
    return entrants, failures


def _note_new_version(store: Store, key: str, folder: str, bot_version: str,
                      note: Callable[[str], None]) -> None:
    """Say so when a bot's folder changed since its last run: its new version replaces the
    old one (retired, kept with its games) and plays its matchups anew."""
    rows = store.entrants()
    if any(e.key == key for e in rows):
        return
    before = [e for e in rows if e.folder == folder and not e.retired]
    if not before:
        return
    old = before[-1]
    same = (f"; its bot.toml still says version {bot_version}: raise it to tell the versions "
            "apart" if old.bot_version == bot_version else "")
    note(f"{old.name}: the folder changed since version {old.version[:8]} ({old.bot_version}): "
         f"new version {key.split('@')[1][:8]} ({bot_version}) replaces it and plays its "
         f"matchups anew; the old one is retired, its games kept{same}")


def withdraw(config: TournamentConfig, name: str, undo: bool = False) -> list[EntrantRow]:
    """Withdraw the bot `name` added by `submit` (or with `undo`, bring it back): it is not
    scheduled any more and leaves the standings; its games are kept. Returns its versions.
    ConfigError if no such bot was submitted, or the config itself lists it."""
    with open_store(config) as store:
        named = [e for e in store.entrants() if e.name == name]
        withdrawn = store.withdrawn(name)
        if undo:
            if withdrawn is None:
                raise ConfigError(f"{store.path}: {name!r} is not withdrawn")
            store.reinstate(name)
            return [e for e in store.entrants() if e.name == name]
        if not named:
            known = ", ".join(sorted({e.name for e in store.entrants()})) or "none"
            raise ConfigError(f"{store.path}: no entrant named {name!r} (entrants: {known})")
        if withdrawn is not None:
            raise ConfigError(f"{store.path}: {name!r} is withdrawn already (--undo brings it "
                              "back)")
        listed = {str(m.folder) for m in config.entrants}
        if any(e.folder in listed for e in named):
            raise ConfigError(f"{config.path}: key 'tournament.entrants': {name!r} is listed "
                              "there; remove its folder from the list to withdraw it")
        store.withdraw(name, {e.folder for e in named if e.source == "submit"})
        return [e for e in store.entrants() if e.name == name]


def submit(config: TournamentConfig, folder: str | Path) -> tuple[EntrantRow, bool]:
    """Add a bot folder (or its new version) to the tournament's store; (entrant, new?).

    ConfigError if the folder holds no valid bot or its name belongs to another folder;
    IntakeFailed if intake refuses it.
    """
    manifest = load_manifest(folder)
    with open_store(config) as store:
        known = {e.key for e in store.entrants()}
        if store.withdrawn(manifest.name) is not None:  # submitted again: back in
            store.reinstate(manifest.name)
        if manifest.folder not in {m.folder for m in config.entrants}:
            store.add_submission(manifest.folder)
        try:
            entrants, failures = register_entrants(config, store, build=False)
            failure = next((f for f in failures if f.source == manifest.folder), None)
            if failure is not None:
                raise IntakeFailed(failure)
        except ArenaError:
            store.remove_submission(manifest.folder)
            raise
        key = next(k for k, e in entrants.items() if e.source == str(manifest.folder))
        row = next(e for e in store.entrants() if e.key == key)
        return row, key not in known


def labels(store: Store) -> dict[str, tuple[str, str]]:
    """Entrant key -> (name, version shown): the author's version string from bot.toml and
    the folder hash's first 8 digits (which tell apart two versions bot.toml does not), marked
    if retired."""
    return {e.key: (e.name, f"{e.bot_version} {e.version[:8]}"
                    + (" (retired)" if e.retired else ""))
            for e in store.entrants()}


def resolve_entrant(store: Store, name: str) -> str:
    """An entrant key from a key or a bot name (its active version, else its latest one)."""
    rows = store.entrants()
    if any(e.key == name for e in rows):
        return name
    named = [e for e in rows if e.name == name]
    if not named:
        known = ", ".join(sorted({e.name for e in rows})) or "none"
        raise ConfigError(f"{store.path}: no entrant named {name!r} (entrants: {known})")
    active = [e for e in named if not e.retired]
    return (active or named)[-1].key


# ----- running ------------------------------------------------------------------------------

def scheduled_games(config: TournamentConfig, store: Store,
                    keys: Iterable[str]) -> list[ScheduledGame]:
    """The schedule of the config's format: the round robin of matchups, or with mixed
    partners the cycles of the movement (`mixed_schedule`)."""
    if config.mixed:
        return mixed_schedule(keys, config.cycles, deals_of(config, store))
    return round_robin(keys, config.pairs_per_matchup, deals_of(config, store))


Executor = Callable[[Setup, Sequence[ScheduledGame]], Generator[Finished, None, None]]
"""Plays games and yields each as it finishes, its record under its pending name: the local
worker processes (`workers.run_games`) or a cluster (`cluster.Cluster.play`). A generator:
closing it stops the games."""


def play_games(config: TournamentConfig, store: Store, entrants: dict[str, Entrant],
               games: Sequence[ScheduledGame], workers: int,
               on_game: Callable[[GameRow], None] | None = None,
               executor: Executor | None = None, source: Source | None = None,
               live: Path | None = None, guest: Guest | None = None) -> int:
    """Play `games` on `workers` local processes (or with `executor`, which resolves the
    isolation where the games run), handing each to the store's writer as it finishes
    (`GameWriter`: committed, then its record given its final name); `on_game` is called for
    each game once it is committed; `source` (local workers only): the batches come from it
    as the workers ask, not from `games` (a league's scheduler); `live`: a folder for the
    spectators' files of the games in progress (`workers.Setup.live`); `guest`: a seat of
    every game given to it (`workers.Setup.guest`). The number stored. KeyboardInterrupt propagates once the
    workers stopped and the games received are stored; so does the store's IntegrityError (a
    result that differs from a stored one: nothing of that game is kept)."""
    _ignore_records_in_git(config.records)
    isolation = resolve_isolation(config.isolation) if executor is None else None
    setup = Setup(dict(entrants), config.target, config.time, config.records,
                  store.path.parent, pin_cpus=config.pin_cpus, isolation=isolation,
                  live=live, guest=guest)
    play = executor or (lambda s, g: run_games(s, g, workers, source))
    stored = 0

    def report(committed: list[tuple[GameRow, bool]]) -> None:
        nonlocal stored
        for row, new in committed:
            stored += new
            if on_game is not None:
                on_game(row)

    with GameWriter(store) as writer, \
            contextlib.closing(play(setup, games)) as finished:
        try:
            for game in finished:
                writer.add(game.row, game.record)
                report(writer.stored())
        except KeyboardInterrupt:
            ignore_sigint()  # the run ends: a second Ctrl-C must not cut that short
            raise
    report(writer.stored())
    return stored


def prepare(config: TournamentConfig, store: Store, listener: Listener,
            skip_unbuildable: bool, remote: Cluster | None = None,
            ) -> tuple[dict[str, Entrant], list[Unbuildable]]:
    """Build and register the entrants (and, on a cluster, ship them to its workers and
    build them there); CannotBuild listing every one that cannot be built, unless
    `skip_unbuildable` (then each left out is noted)."""
    entrants, failures = register_entrants(config, store, note=listener.note)
    if remote is not None and entrants:
        listener.note(f"shipping {len(entrants)} entrants to the cluster and building them "
                      f"on its workers ({remote.threads()} threads) ...")
        remote_failures = remote.ship(entrants, config.intake_policy(Isolation.NONE))
        failed = {f.source for f in remote_failures}
        entrants = {k: e for k, e in entrants.items() if Path(e.source) not in failed}
        failures += remote_failures
    if failures and not skip_unbuildable:
        raise CannotBuild(failures, config.path)
    for failure in failures:
        listener.note(failure.line())
    return entrants, failures


def _check_field(config: TournamentConfig, store: Store, entrants: dict[str, Entrant],
                 left_out: list[Unbuildable], levels: set[str], listener: Listener) -> None:
    """Record who was left out and the isolation levels played at; ConfigError if too few
    entrants play; else the movement (mixed partners) and public deals are noted."""
    store.set_meta({"left_out": json.dumps([[f.name, f.reason] for f in left_out]),
                    "isolation": json.dumps(sorted({*isolations(store), *levels}))})
    least = 4 if config.mixed else 2
    if len(entrants) < least:
        raise ConfigError(f"{config.path}: key 'tournament.entrants': a tournament "
                          + ("with mixed partners " if config.mixed else "")
                          + f"needs at least {least} entrants, it has {len(entrants)}"
                          + (" that can be built" if left_out else ""))
    if config.mixed:
        plan = movement(entrants)
        store.set_meta({"movement": plan.describe()})
        listener.note(plan.describe())
    seeds = deals_of(config, store)
    if seeds.public:
        listener.note(f"deals: {seeds.describe()}")


def _still_to_play(config: TournamentConfig, store: Store, entrants: dict[str, Entrant]
                   ) -> tuple[list[ScheduledGame], set[str]]:
    """The games of the schedule not stored yet (a half-stored pair's missing game on its
    stored game's deals), and the ids of those stored."""
    stored = store.game_seeds()
    done = set(stored)
    return dealt_as_stored(missing(scheduled_games(config, store, entrants), done), stored), done


def run_tournament(config: TournamentConfig, workers: int | None = None,
                   listener: Listener | None = None, skip_unbuildable: bool | None = None,
                   cluster: str | None = None) -> RunSummary:
    """Play every missing game of the round robin and store it.

    `skip_unbuildable` (default: the config's) leaves out entrants that cannot be built.
    `cluster` (default: the config's): play on the Dask cluster at that address ('local:N':
    N worker processes here) instead of local worker processes.
    Raises StoreBusy if another run holds the store, CannotBuild, TournamentInterrupted on
    Ctrl-C (after stopping every worker and bot process), RunFailed if a worker failed,
    ClusterError if the cluster cannot be used.
    """
    listener = listener or QuietListener()
    skip = config.skip_unbuildable if skip_unbuildable is None else skip_unbuildable
    address = cluster or config.cluster
    count = config.workers(workers)
    isolation = resolve_isolation(config.isolation) if address is None else None
    with run_lock(config.storage, f"arena tournament {config.path}"), \
            open_store(config) as store, cluster_at(address, config) as remote:
        sweep_pending(config.records, store)
        if isolation is not None:
            listener.note(describe(isolation))
        entrants, left_out = prepare(config, store, listener, skip, remote)
        levels = {isolation.value} if isolation is not None else set()
        if remote is not None:
            count = remote.threads()
            levels = remote.levels
        _check_field(config, store, entrants, left_out, levels, listener)
        todo, done = _still_to_play(config, store, entrants)
        before = store.game_count()
        if not todo:  # nothing left to play: no standings to fit for a progress line
            return RunSummary(0, 0, before, 0.0, 0, tuple(left_out))
        live = LiveStandings(store, list(entrants), labels(store), config.ratings.anchor,
                             mixed=config.mixed)
        listener.started(len(todo), live.line())
        start = time.monotonic()

        def on_game(row: GameRow) -> None:
            done.add(row.game.game_id)
            other = f"{row.game.pair_id}.{1 - row.game.game_index}"
            listener.game(row, other in done, live.line())

        try:
            with contextlib.closing(live):
                play_games(config, store, entrants, todo, count, on_game,
                           remote.play if remote is not None else None)
        except KeyboardInterrupt:
            raise TournamentInterrupted(store.game_count() - before, store.game_count(),
                                        config.path) from None
        except WorkerError as exc:
            raise RunFailed(f"{exc}.\n{store.game_count() - before} games played in this run, "
                            f"{store.game_count()} stored in all; {_RESUME} "
                            f"({config.path})") from None
        seconds = time.monotonic() - start
        pending = len(missing(scheduled_games(config, store, entrants),
                              store.done_game_ids()))
        return RunSummary(store.game_count() - before, pending, store.game_count(), seconds,
                          min(count, max(1, len(todo))), tuple(left_out))


@contextlib.contextmanager
def cluster_at(address: str | None, config: TournamentConfig) -> Iterator[Cluster | None]:
    """The cluster at `address` for the block (None: no cluster, and no Dask import)."""
    if address is None:
        yield None
        return
    from arena.tournament.cluster import Cluster, connect

    with connect(address) as client:
        yield Cluster(client, config.isolation)


class LiveStandings:
    """A compact standings line for the progress bar, refitted in a thread of its own.

    `line` never waits for a fit: it returns the last line computed (empty until the first)
    and asks for a new one, which the thread computes at most every `every` seconds, on what
    the store has committed, through a read-only connection of its own: storing and handing
    out pairs go on meanwhile. A fit that takes long is done less often (at most a sixth of
    the time), so that a large league's fits do not take the coordinator's CPU. The line
    ranks by ratings without intervals (`rate`, which takes the results and the anchor key;
    with `mixed`, individual ratings of `Store.team_results`); `close` stops the thread (a
    fit under way is dropped).
    """

    def __init__(self, store: Store, keys: list[str], names: dict[str, tuple[str, str]],
                 anchor: str | None, every: float = 2.0, shown: int = 5,
                 rate: Callable[[list[GameResult], str | None], Mapping[str, float]]
                 | None = None, mixed: bool = False) -> None:
        self.path, self.keys, self.names = store.path, keys, names
        self.anchor = next((k for k in keys if anchor in (k, names.get(k, ("",))[0])), None)
        self.every, self.shown = every, shown
        self.mixed = mixed
        self.rate = rate or (lambda results, key: rate_points(results, anchor=key))
        self.text = ""
        self._wanted = threading.Event()
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._run, name="arena-live-standings",
                                        daemon=True)
        self._thread.start()

    def line(self) -> str:
        """The last line computed; a new one is computed in the background."""
        self._wanted.set()
        return self.text

    def close(self) -> None:
        self._closed.set()
        self._wanted.set()

    def _run(self) -> None:
        last, pause = float("-inf"), self.every
        with contextlib.closing(Store(self.path, read_only=True)) as store:
            while True:
                self._wanted.wait()
                if self._closed.wait(max(0.0, last + pause - time.monotonic())):
                    return
                self._wanted.clear()
                last = time.monotonic()
                text = self._compute(store)
                if self._closed.is_set():
                    return
                self.text = text
                # a long fit is done less often: at most a sixth of the time goes to it
                pause = max(self.every, 5.0 * (time.monotonic() - last))

    def _compute(self, store: Store) -> str:
        elo: Mapping[str, float]
        try:
            if self.mixed:
                elo = rate_individual(rated_team_pairs(store.team_results(self.keys)),
                                      anchor=self.anchor)
            else:
                elo = self.rate(store.results(self.keys), self.anchor)
        except RatingsError:
            return ""
        return "  ".join(f"{self.names.get(k, (k,))[0]} {elo[k]:+.0f}"
                         for k in ranking_of(elo)[:self.shown])


def left_out(store: Store) -> list[tuple[str, str]]:
    """(name, reason) of each entrant the last run left out because it could not be built."""
    return [tuple(e) for e in json.loads(store.meta("left_out") or "[]")]


def isolations(store: Store) -> list[str]:
    """The isolation levels ('sandbox', 'none') the runs of this store played under."""
    return json.loads(store.meta("isolation") or "[]")


def _ignore_records_in_git(records: Path) -> None:
    """Record folders are data: a .gitignore inside keeps them out of version control."""
    records.mkdir(parents=True, exist_ok=True)
    ignore = records / ".gitignore"
    if not ignore.exists():
        ignore.write_text(_RECORDS_IGNORE)
