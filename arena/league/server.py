"""`arena league serve`: one process, the web server, the scheduler and the game workers.

The main thread plays games for the server's whole life, exactly as `arena tournament`
does (`arena.tournament.runner.play_games`: the same worker processes, the same store and
its game writer, so that every finished game is stored exactly once), its batches handed out
by the league's scheduler (`scheduler.LeagueSource`) as the workers ask. When the entrants
change (an upload becomes active, a version retires) the workers finish their batch and
start again with the new field; with `--cluster`, the batches are played by Dask tasks on
the cluster's workers instead (`arena.tournament.cluster.Cluster.play`, the same source),
and the games come back to be stored here. The web server (uvicorn, `app.py`) runs on a
thread of its own, and so does intake (`uploads.py`); the standings are made by a process of
their own (`standings.py`), so that no fit holds the interpreter the requests are served
from.

Ctrl-C or SIGTERM stops it cleanly: the workers stop their games (those are replayed at the
next start), the games received are stored, the web server closes. `kill -9` loses nothing
acknowledged: the store's lock (`arena.tournament.lock`) is the kernel's and goes with the
process; the next start sweeps the records of unstored games (`sweep_pending`), completes the
pairs stored half and takes in again the uploads not finished.
"""

from __future__ import annotations

import functools
import logging
import os
import shutil
import signal
import threading
import time
from collections.abc import Callable, Generator, Sequence
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from arena.errors import ArenaError
from arena.intake import ReadyBot, take_bot
from arena.league.accounts import PENDING, Accounts, Upload, UploadStatus
from arena.league.config import LeagueConfig, ServerLimits
from arena.league.practice import Practice
from arena.league.reaper import reap
from arena.league.scheduler import LeagueSource, Pace, stored_pairs
from arena.league.seats import SeatGames
from arena.league.standings import StandingsCache
from arena.league.uploads import Busy, Details, IntakeQueue, NoSuchUpload, Rebuild
from arena.referee.match import Entrant
from arena.sandbox import Isolation
from arena.sandbox import resolve as resolve_isolation
from arena.tournament.lock import run_lock
from arena.tournament.records import sweep_pending
from arena.tournament.runner import (
    cluster_at,
    deals_of,
    open_store,
    play_games,
    register_entrants,
)
from arena.tournament.schedule import ScheduledGame, entrant_key
from arena.tournament.store import EntrantRow, GameRow, Store
from arena.tournament.workers import Finished, Setup, WorkerError

if TYPE_CHECKING:  # the cluster is imported only by a league that asks for one
    import uvicorn
    from starlette.types import ASGIApp

    from arena.tournament.cluster import Cluster

logger = logging.getLogger(__name__)

GAMES_NICE = 2
"""How much nicer than the web server the league's games run (`League.play`). Measured
(`arena bench league --entrants 100 --stored-games 100000`, a shared 2-core machine): at 5,
the standings' p99 fell from 211-443 ms to 132-146 ms but the league's games/s to 0.7-0.8x
the tournament's, other jobs' processes taking the CPU the games left; at 2, p99 168 ms and
1.54x (those figures with the benchmark's first clients, urllib threads: README, "Run a
league", has the later ones)."""
UPLOAD_FOLDER = "upload:"
"""An uploaded bot's `folder` in the store: its versions retire one another by it."""


class Unsandboxed(ArenaError):
    """The machine offers no sandbox and the organizer did not say to go on without."""


class League:
    """The running league: its entrants, its scheduler state and its background parts."""

    def __init__(self, config: LeagueConfig, workers: int, isolation: Isolation,
                 say: Callable[[str], None] = print) -> None:
        self.config = config
        self.workers = workers
        self.isolation = isolation
        self.say = say
        self.policy = config.tournament.intake_policy(isolation)
        self.entrants: dict[str, Entrant] = {}
        self.generation = 0
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.in_play = -1
        """The generation of entrants the games being played were started with."""
        self.pace = Pace(config.games_per_minute)
        """The rated games' cap a minute, across the workers and generations."""
        self.games_played = 0
        self.changed = threading.Condition()
        """Notified when a game is stored or the table changes (the pages' events)."""
        self.standings = StandingsCache(config.tournament, self.authors, self.active,
                                        lambda table: self._notify())
        self.intake = IntakeQueue(config, self.policy, self._activate)
        self.unbuilt: set[Path] = set()
        """Entrants' folders a cluster worker could not build (`--cluster`)."""
        self.live = config.storage.with_name(config.storage.name + ".live")
        """The spectators' files of the games in progress (`GameSpec.live`)."""
        self.practice = Practice(config, self.policy, self.entrants_now)
        """Unrated practice games asked for by authors (`practice.py`)."""
        self.seats = SeatGames(self.practice)
        """Practice games with a person at a seat, in the browser (`seats.py`)."""

    # ----- entrants --------------------------------------------------------------------------

    def authors(self) -> dict[str, str]:
        with Accounts(self.config.storage) as accounts:
            return accounts.authors_of()

    def active(self) -> list[str]:
        with self.lock:
            return sorted(self.entrants)

    def entrants_now(self) -> dict[str, Entrant]:
        with self.lock:
            return dict(self.entrants)

    def _activate(self, upload: int, ready: ReadyBot) -> str:
        """An upload passed intake: register it (its older versions retire) and let the
        scheduler place it."""
        manifest = ready.manifest
        key = entrant_key(manifest.name, ready.version)
        with Store(self.config.storage) as store:
            store.register_entrant(EntrantRow(key, manifest.name, ready.version,
                                              manifest.version, manifest.language,
                                              UPLOAD_FOLDER + manifest.name, "submit", False))
        entrant = Entrant(self.config.tournament.with_limits(manifest), ready.version,
                          source=f"upload {upload}", snapshot=ready.snapshot.folder)
        with Accounts(self.config.storage) as accounts:
            disabled = manifest.name in accounts.disabled()
        with self.lock:
            for old in [k for k in self.entrants if k.split("@")[0] == manifest.name]:
                del self.entrants[old]
            if not disabled:  # the organizer took the bot out: its new version waits too
                self.entrants[key] = entrant
            self.generation += 1
        self.say(f"upload {upload}: {manifest.name} is active as {key}")
        self.standings.wake()
        return key

    def set_disabled(self, name: str, disabled: bool) -> bool:
        """The organizer takes a bot out of the live table (its games stay) or brings it
        back; False if no uploaded bot has that name."""
        with Accounts(self.config.storage) as accounts:
            if not accounts.set_disabled(name, disabled):
                return False
            active = [u for u in accounts.uploads(name, (UploadStatus.ACTIVE,)) if u.entrant]
        entrant = self._entrant(active[-1]) if not disabled and active else None
        with self.lock:
            for key in [k for k in self.entrants if k.split("@")[0] == name]:
                del self.entrants[key]
            if entrant is not None:
                self.entrants[str(active[-1].entrant)] = entrant
            self.generation += 1
        self.standings.wake()
        return True

    def _entrant(self, upload: Upload) -> Entrant:
        """An upload taken in (its build cached: no rebuild), as an entrant."""
        ready = take_bot(self.config.uploads / upload.file, self.policy)
        return Entrant(self.config.tournament.with_limits(ready.manifest), ready.version,
                       source=f"upload {upload.id}", snapshot=ready.snapshot.folder)

    def _key_of(self, upload: Upload) -> str | None:
        """The entrant key an upload's bytes would have (None: its snapshot or manifest
        fails): an upload that failed has the build of an active one with the same bytes."""
        try:
            ready = take_bot(self.config.uploads / upload.file, self.policy, build=False)
        except ArenaError:
            return None
        return entrant_key(ready.manifest.name, ready.version)

    def rebuild(self, name: str, upload_id: int | None = None, version: str | None = None
                ) -> int | None:
        """The organizer has one of a bot's uploads built and checked again from scratch: the
        one `upload_id` (an upload's id) or `version` (an entrant key or its hash) names, by
        default its active upload (else its newest). It is taken in again as a new upload
        is: once active, it is the bot's active version (the one before retires). While it
        is taken in, the bot's active version stays in the live table unless it is the one
        rebuilt (the same build, or the same bytes uploaded again: it leaves the table
        meanwhile, and should its new build fail, the build from before is put back and
        plays on: `_kept`). The upload's id; None if no uploaded bot has that name;
        NoSuchUpload (404) if the bot has no such upload; Busy if it is being taken in
        already."""
        with Accounts(self.config.storage) as accounts:
            uploads = accounts.uploads(name)
            if not uploads:
                return None
            upload = _chosen(name, uploads, upload_id, version)
            key = upload.entrant or self._key_of(upload)  # (one never taken in: its bytes')
            previous = next((u for u in uploads if u.status is UploadStatus.ACTIVE
                             and key is not None and u.entrant == key), None)
            if upload.status in PENDING:
                raise Busy(f"upload {upload.id} of {name!r} is being taken in already: wait "
                           "until it is active or failed")
            accounts.set_status(upload.id, UploadStatus.RECEIVED)
        with self.lock:
            playing = key is not None and self.entrants.pop(key, None) is not None
            if playing:
                self.generation += 1
            out = self.generation
        self.standings.wake()
        self.say(f"upload {upload.id}: {name} is rebuilt, as the organizer asked")

        def quiet() -> bool:
            """Wait until no game runs the old build (the league's games are of a later
            generation, no practice game plays it, nor a seat game); False if the server
            stops first."""
            while self.in_play < out or str(key) in self.practice.playing or \
                    str(key) in self.seats.in_play():
                if self.stopping.wait(0.2):
                    return False
            return True

        fallback = None if previous is None else functools.partial(self._kept, upload.id,
                                                                   previous)
        self.intake.rebuild(upload.id, Rebuild(quiet, fallback))
        return upload.id

    def _kept(self, upload: int, previous: Upload, accounts: Accounts,
              details: Details) -> None:
        """The rebuild of `upload`, the build of the bot's active version `previous`, failed:
        that build (restored) plays on, back in the live table, and the failure is on the
        upload (its status active again, if it is `previous`, else failed)."""
        entrant = self._entrant(previous)
        with Accounts(self.config.storage) as mine:
            disabled = previous.name in mine.disabled()
        with self.lock:
            if not disabled:
                self.entrants[str(previous.entrant)] = entrant
            self.generation += 1
        if upload == previous.id:
            accounts.set_status(upload, UploadStatus.ACTIVE, stage=details.get("stage", ""), reason=(
                f"the organizer's rebuild failed: {details.get('reason', '')}; the build "
                "from before plays on"), log=details.get("log", ""),
                command=details.get("command", ""), entrant=previous.entrant)
        else:
            accounts.set_status(upload, UploadStatus.FAILED, **details)
        self.standings.wake()
        self.say(f"upload {upload}: the rebuild of {previous.name} failed; its build from "
                 "before plays on")

    def _restore(self, store: Store) -> None:
        """House bots from the config, and each uploaded bot's active version, taken in again
        (their builds are cached by content: no rebuild)."""
        house, failures = register_entrants(self.config.tournament, store, note=self.say)
        for failure in failures:
            self.say(failure.line())
        self.entrants.update(house)
        with Accounts(self.config.storage) as accounts:
            disabled = accounts.disabled()
            for upload in accounts.uploads(status=(UploadStatus.ACTIVE,)):
                if upload.name in disabled or upload.entrant is None:
                    continue
                try:
                    ready = take_bot(self.config.uploads / upload.file, self.policy)
                except ArenaError as exc:
                    self.say(f"upload {upload.id} ({upload.name}) cannot be taken in again: "
                             f"{exc}")
                    continue
                self.entrants[upload.entrant] = Entrant(
                    self.config.tournament.with_limits(ready.manifest), ready.version,
                    source=f"upload {upload.id}", snapshot=ready.snapshot.folder)

    # ----- events ----------------------------------------------------------------------------

    def _notify(self) -> None:
        with self.changed:
            self.changed.notify_all()

    def _on_game(self, row: GameRow) -> None:
        self.games_played += 1
        self.standings.wake()

    # ----- the games -------------------------------------------------------------------------

    def play(self, store: Store, remote: Cluster | None = None) -> None:
        """Play games until `stopping` (KeyboardInterrupt propagates, the games received
        stored); on `remote`, a Dask cluster, rather than local worker processes."""
        # The games' thread, and so the workers and bots it starts, a little below the web
        # server's: on Linux a thread's niceness is its own (the server's thread, started
        # before, keeps 0) and processes inherit their starter's. A request then waits for
        # no game's turn at a CPU; the games get every moment the requests leave.
        os.nice(GAMES_NICE)
        deals = deals_of(self.config.tournament, store)
        while not self.stopping.is_set():
            with self.lock:
                generation = self.generation
                entrants = dict(self.entrants)
            self.in_play = generation  # the games of every earlier generation are over
            if remote is not None:
                entrants = self._shipped(remote, entrants)
            if len(entrants) < 2:
                self.stopping.wait(0.5)
                continue
            following, half = stored_pairs(store.game_seeds())

            def changed(generation: int = generation) -> bool:
                return self.stopping.is_set() or self.generation != generation

            source = LeagueSource(
                sorted(entrants), deals, following, half,
                lambda: self.standings.table.ratings, self.config.placement_pairs,
                self.config.batch_pairs, changed, self.pace)
            executor = None if remote is None else \
                functools.partial(_play_on, remote, source=source)
            try:
                play_games(self.config.tournament, store, entrants, [], self.workers,
                           self._on_game, executor, source=source, live=self.live)
            except WorkerError as exc:  # its unfinished games are played again
                self.say(f"a game worker failed: {exc}; the league goes on")
                time.sleep(1.0)

    def _shipped(self, remote: Cluster, entrants: dict[str, Entrant]) -> dict[str, Entrant]:
        """The entrants, those not shipped yet sent to the cluster and built on its workers
        (once: the cluster keeps what it was sent); those a worker could not build are left
        out of the field for the server's life, saying why."""
        new = {k: e for k, e in entrants.items() if e.version not in remote.bundles}
        if new:
            for failure in remote.ship(new, self.config.tournament.intake_policy(
                    Isolation.NONE)):
                self.say(f"left out on the cluster: {failure.line()}")
                self.unbuilt.add(failure.source)
        return {k: e for k, e in entrants.items()
                if Path(e.source or e.manifest.folder) not in self.unbuilt}


def _chosen(name: str, uploads: list[Upload], upload_id: int | None, version: str | None
            ) -> Upload:
    """The upload of `name` that `upload_id` or `version` (an entrant key or its hash) names,
    by default its active one, else its newest; NoSuchUpload if it has none such."""
    if upload_id is None and not version:
        active = [u for u in uploads if u.status is UploadStatus.ACTIVE]
        return (active or uploads)[-1]
    for upload in reversed(uploads):
        if upload.id == upload_id or (version and upload.entrant and version in (
                upload.entrant, upload.entrant.split("@", 1)[1])):
            return upload
    listed = ", ".join(f"{u.id} ({u.entrant or u.status})" for u in uploads)
    asked = f"upload {upload_id}" if upload_id is not None else f"version {version!r}"
    raise NoSuchUpload(f"{name!r} has no {asked} (its uploads: {listed}; see GET "
                       f"/api/bots/{name})")


def _play_on(remote: Cluster, setup: Setup, games: Sequence[ScheduledGame],
             source: LeagueSource) -> Generator[Finished, None, None]:
    """The league's executor on a cluster: its batches from the league's scheduler."""
    return remote.play(setup, games, source)


def check_isolation(config: LeagueConfig, allow_unsandboxed: bool) -> Isolation:
    """The isolation the league's bots run at; Unsandboxed if there is no sandbox and the
    organizer did not pass --allow-unsandboxed."""
    level = resolve_isolation(config.tournament.isolation)
    if level is Isolation.NONE and not allow_unsandboxed:
        raise Unsandboxed(
            f"{config.path}: this machine offers no sandbox for bot processes (`arena "
            "doctor` says why), and a league runs code uploaded by strangers. Run it where "
            "a sandbox is available, or pass --allow-unsandboxed if every author is "
            "trusted.")
    return level


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _web_server(app: ASGIApp, limits: ServerLimits, host: str, port: int) -> uvicorn.Server:
    """Uvicorn serving `app`, its connections kept to `limits` (`limits.py`: the caps, the
    deadlines, the proxies), the open-file limit raised for them; ArenaError if they do not
    fit in it."""
    import uvicorn

    from arena.league.limits import check_open_files, raise_open_files, server_config

    check_open_files(limits, raise_open_files())
    return uvicorn.Server(server_config(app, limits, host=host, port=port, log_level="warning",
                                        access_log=False, lifespan="off"))


def serve(config: LeagueConfig, host: str = "127.0.0.1", port: int = 8000,
          workers: int | None = None, allow_unsandboxed: bool = False,
          say: Callable[[str], None] = print, cluster: str | None = None) -> int:
    """Run the league until Ctrl-C or SIGTERM; the number of games played. `cluster`
    (default: the config's): play the games on the Dask cluster at that address ('local:N':
    N worker processes here), as `arena tournament --cluster` does. StoreBusy if another
    server (or tournament run) holds the store; Unsandboxed; ArenaError if the address
    cannot be bound or the connection caps exceed half the open-file limit; ClusterError if
    the cluster cannot be used."""
    from arena.league.app import make_app

    isolation = check_isolation(config, allow_unsandboxed)
    count = config.tournament.workers(workers)
    address = cluster or config.tournament.cluster
    with run_lock(config.storage, f"arena league serve {config.path}"), \
            open_store(config.tournament) as store, \
            cluster_at(address, config.tournament) as remote:
        if remote is not None:
            count = remote.threads()
        league = _prepared(config, store, count, isolation, say)
        league.seats.start()  # its sockets' folder, before a request can start a seat game
        server, thread = _started(make_app(league), config.limits, host, port)
        previous: Any = signal.signal(signal.SIGTERM, _raise_interrupt)
        league.standings.start()
        league.intake.start()
        league.practice.start()
        where = "" if address is None else f" on the cluster at {address}"
        say(f"league {config.tournament.name!r} at http://{host}:{port}/ "
            f"({count} game workers{where}; Ctrl-C stops it)")
        try:
            league.play(store, remote)
        except KeyboardInterrupt:
            say(f"stopping: {league.games_played} games played by this server")
        finally:
            signal.signal(signal.SIGTERM, previous)
            _stop(league, server, thread, say)
        return league.games_played


def _prepared(config: LeagueConfig, store: Store, workers: int, isolation: Isolation,
              say: Callable[[str], None]) -> League:
    """The league of a store held by this server, what the last server left put right: its
    processes ended, its unstored games swept, its cut rebuilds undone, its entrants back."""
    Accounts(config.storage).close()  # the league's tables, before any thread reads them
    ended = reap(config.storage)  # what a kill -9 of the last server left (level none)
    if ended:
        say(f"ended {ended} process(es) the last server of this store left running")
    sweep_pending(config.tournament.records, store)
    league = League(config, workers, isolation, say)
    shutil.rmtree(league.live, ignore_errors=True)  # games a kill -9 left unfinished
    league.live.mkdir(parents=True)
    for upload in league.intake.undo_cut_rebuilds():
        say(f"upload {upload}: its rebuild was cut short by the last server's end; the "
            "build it had is back (ask for the rebuild again if need be)")
    league._restore(store)
    return league


def _started(app: ASGIApp, limits: ServerLimits, host: str, port: int
             ) -> tuple[uvicorn.Server, threading.Thread]:
    """The web server serving `app`, started on a thread of its own; ArenaError if it
    cannot serve on the address."""
    server = _web_server(app, limits, host, port)
    thread = threading.Thread(target=server.run, name="arena-http", daemon=True)
    thread.start()
    while not server.started and thread.is_alive():
        time.sleep(0.05)
    if not server.started:
        raise ArenaError(f"cannot serve on {host}:{port} (is the port in use?)")
    return server, thread


def _stop(league: League, server: uvicorn.Server, thread: threading.Thread,
          say: Callable[[str], None]) -> None:
    """The league's parts stopped: the event streams, the web server, then intake waited
    for, the practice games, intake and the standings closed."""
    league.stopping.set()
    league._notify()
    server.should_exit = True
    thread.join(10)
    if league.intake.taking:
        say(f"waiting for the intake of upload(s) "
            f"{', '.join(map(str, sorted(league.intake.taking)))} to finish ...")
    league.practice.close()
    league.seats.close()
    league.intake.close()
    league.standings.close()
