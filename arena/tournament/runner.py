"""The tournament runner: config -> entrants -> schedule -> workers -> store, resumable.

An entrant is a bot version: its name from `bot.toml` and the content hash of its folder
(key "name@hash"). Entrants come from the config's folders and from folders added with
`submit`; each folder's current content is its active version. A changed folder is a new
entrant: the old version keeps its games (and stays in the standings, marked retired) but is
scheduled no more. Running again plays only what the store lacks: games of matchups that are
new, and any game of a pair that is missing (an unfinished game is replayed with its seed).
"""

from __future__ import annotations

import contextlib
import logging
import subprocess
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.errors import ArenaError, ConfigError
from arena.referee.manifest import BotManifest, folder_hash, load_manifest
from arena.ratings.fit import RatingsError, fit_ratings
from arena.referee.match import Entrant, build_bot
from arena.sandbox import resolve as resolve_isolation
from arena.tournament.schedule import ScheduledGame, entrant_key, missing, round_robin
from arena.tournament.store import EntrantRow, GameRow, Store
from arena.tournament.config import TournamentConfig
from arena.tournament.workers import Setup, run_games

logger = logging.getLogger(__name__)

_RECORDS_IGNORE = "# Game records of a tournament: data, not source.\n*\n"


class TournamentInterrupted(ArenaError):
    """The user stopped the run; everything finished is stored and the run can resume."""

    def __init__(self, played: int, stored: int, config: Path) -> None:
        super().__init__(f"interrupted: {played} games played in this run, {stored} stored in "
                         f"all; run the same command again to resume ({config})")
        self.played, self.stored = played, stored


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

    @property
    def games_per_second(self) -> float:
        return self.played / self.seconds if self.seconds > 0 else 0.0


# ----- the store and the entrants -------------------------------------------------------------

def open_store(config: TournamentConfig, create: bool = True) -> Store:
    """The config's store, checked against (and tied to) the config's seed and target."""
    store = Store(config.storage, create=create)
    try:
        store.bind(config.path, {"seed": str(config.seed), "target": str(config.target)},
                   {"name": config.name, "config": str(config.path),
                    "anchor": config.ratings.anchor or "",
                    "anchor_elo": repr(config.ratings.anchor_elo),
                    "prior": repr(config.ratings.prior)})
    except BaseException:
        store.close()
        raise
    return store


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
            sources.append((load_manifest(folder), "submit"))
        except ConfigError as exc:
            raise ConfigError(f"{store.path}: submitted bot folder: {exc}") from None
        folders.add(folder)
    names: dict[str, Path] = {}
    for manifest, _ in sources:
        other = names.setdefault(manifest.name, manifest.folder)
        if other != manifest.folder:
            raise ConfigError(f"{manifest.folder}/bot.toml: key 'name': {manifest.name!r} is "
                              f"also the name of {other}, in the same tournament")
    return sources


def register_entrants(config: TournamentConfig, store: Store,
                      build: bool = True) -> dict[str, Entrant]:
    """Hash (and build) every bot folder and register its current version; the active
    entrants by key, in source order. A failed build is an ArenaError naming the bot."""
    entrants = {}
    for manifest, source in entrant_sources(config, store):
        version = folder_hash(manifest.folder)
        key = entrant_key(manifest.name, version)
        store.register_entrant(EntrantRow(key, manifest.name, version, manifest.version,
                                          manifest.language, str(manifest.folder), source,
                                          False))
        if build:
            _build(manifest)
        entrants[key] = Entrant(config.with_limits(manifest), version)
    return entrants


def _build(manifest: BotManifest) -> None:
    try:
        build_bot(manifest)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as exc:
        output = (getattr(exc, "stderr", b"") or b"").decode(errors="replace")[-2000:]
        raise ArenaError(f"{manifest.folder}: build of {manifest.name} failed: {exc}\n"
                         f"{output}") from None


def submit(config: TournamentConfig, folder: str | Path) -> tuple[EntrantRow, bool]:
    """Add a bot folder (or its new version) to the tournament's store; (entrant, new?).

    ConfigError if the folder holds no valid bot or its name belongs to another folder.
    """
    manifest = load_manifest(folder)
    with open_store(config) as store:
        known = {e.key for e in store.entrants()}
        if manifest.folder not in {m.folder for m in config.entrants}:
            store.add_submission(manifest.folder)
        try:
            entrants = register_entrants(config, store, build=False)
        except ConfigError:
            store.db.execute("DELETE FROM submissions WHERE folder = ?", (str(manifest.folder),))
            raise
        key = next(k for k, e in entrants.items() if e.manifest.folder == manifest.folder)
        row = next(e for e in store.entrants() if e.key == key)
        return row, key not in known


def labels(store: Store) -> dict[str, tuple[str, str]]:
    """Entrant key -> (name, version shown): the hash's first 8 digits, marked if retired."""
    return {e.key: (e.name, e.version[:8] + (" (retired)" if e.retired else ""))
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

def scheduled_games(config: TournamentConfig, keys: Iterable[str]) -> list[ScheduledGame]:
    return round_robin(keys, config.pairs_per_matchup, config.seed)


def play_games(config: TournamentConfig, store: Store, entrants: dict[str, Entrant],
               games: Sequence[ScheduledGame], workers: int,
               on_game: Callable[[GameRow], None] | None = None) -> int:
    """Play `games` on `workers` processes, committing each to the store as it finishes;
    the number stored. KeyboardInterrupt propagates once the workers stopped."""
    _ignore_records_in_git(config.records)
    setup = Setup(dict(entrants), config.target, config.time, config.records,
                  store.path.parent, pin_cpus=config.pin_cpus,
                  isolation=resolve_isolation(config.isolation))
    stored = 0
    with contextlib.closing(run_games(setup, games, workers)) as rows:
        for row in rows:
            if store.add_game(row):
                stored += 1
            if on_game is not None:
                on_game(row)
    return stored


def run_tournament(config: TournamentConfig, workers: int | None = None,
                   on_progress: Callable[[int, int, str | None], None] | None = None,
                   ) -> RunSummary:
    """Play every missing game of the round robin and store it.

    `on_progress(done, total, standings_line)` is called at the start and after each game.
    Raises TournamentInterrupted on Ctrl-C (after stopping every worker and bot process).
    """
    count = config.workers(workers)
    resolve_isolation(config.isolation)  # refuse before anything starts if it cannot be had
    with open_store(config) as store:
        entrants = register_entrants(config, store)
        if len(entrants) < 2:
            raise ConfigError(f"{config.path}: key 'tournament.entrants': a tournament needs "
                              f"at least two entrants, it has {len(entrants)}")
        todo = missing(scheduled_games(config, entrants), store.done_game_ids())
        live = LiveStandings(store, list(entrants), labels(store), config.ratings.anchor)
        done = 0
        if on_progress:
            on_progress(0, len(todo), live.line(force=True))
        start = time.monotonic()

        def on_game(row: GameRow) -> None:
            nonlocal done
            done += 1
            if on_progress:
                on_progress(done, len(todo), live.line())

        played = 0
        try:
            played = play_games(config, store, entrants, todo, count, on_game)
        except KeyboardInterrupt:
            raise TournamentInterrupted(done, store.game_count(), config.path) from None
        seconds = time.monotonic() - start
        pending = len(missing(scheduled_games(config, entrants), store.done_game_ids()))
        return RunSummary(played, pending, store.game_count(), seconds,
                          min(count, max(1, len(todo))))


class LiveStandings:
    """A compact standings line for the progress bar, refitted at most every few seconds."""

    def __init__(self, store: Store, keys: list[str], names: dict[str, tuple[str, str]],
                 anchor: str | None, every: float = 2.0, shown: int = 5) -> None:
        self.store, self.keys, self.names = store, keys, names
        self.anchor = next((k for k in keys if anchor in (k, names.get(k, ("",))[0])), None)
        self.every, self.shown = every, shown
        self.last = float("-inf")
        self.text = ""

    def line(self, force: bool = False) -> str:
        if force or not self.text or time.monotonic() - self.last >= self.every:
            self.last = time.monotonic()
            self.text = self._compute()
        return self.text

    def _compute(self) -> str:
        results = self.store.results(self.keys)
        try:
            fit = fit_ratings(results, anchor=self.anchor)
        except RatingsError:
            return ""
        return "  ".join(f"{self.names.get(k, (k,))[0]} {fit.elo[k]:+.0f}"
                         for k in fit.ranking()[:self.shown])


def _ignore_records_in_git(records: Path) -> None:
    """Record folders are data: a .gitignore inside keeps them out of version control."""
    records.mkdir(parents=True, exist_ok=True)
    ignore = records / ".gitignore"
    if not ignore.exists():
        ignore.write_text(_RECORDS_IGNORE)
