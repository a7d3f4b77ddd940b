"""Worker processes that play games in parallel, each with its own referee and bot processes.

The main process hands out batches of pairs of one lineup (a matchup, or a foursome of mixed
partners) on request (`schedule.Dispatcher`, which keeps a worker on its lineup while pairs
are left). A worker plays a batch's first
games with one set of bot processes, stops them, then plays its second games with a fresh
set. So no process ever plays both games of a pair (they share the deals: a process that
remembered game 0 would know every hand of game 1), and none that saw a pair's deals is even
alive while the other game of that pair is played. The set that played the second games has
seen none of the next batch's deals: it plays that batch's first games if the batch is of the
same lineup. So bots that play several games per session (`multi_game`) start about once
per batch, not once per game: start-up is costly for some languages (a JVM takes seconds). A
worker writes each record file under a name of its own (`records.pending_record`) and sends
back a small `GameRow`; only the main process writes the store, and it gives the record its
final name once the row is committed.

Each worker talks to the main process through two one-way pipes and shares no lock with
anyone: a worker killed at any moment cannot block the others. Its inbox's write end is held
by the main process alone, so the main process's death, however it dies (SIGKILL included),
is an end of file there: the worker then stops its game and exits, and if that clean-up
hangs it exits anyway (its bots die with it: they get SIGKILL when their parent dies).

Signals: a worker ignores SIGINT from birth (Ctrl-C reaches the whole process group; the main
process then stops the workers, so a worker still starting prints nothing: it is born with
SIGINT blocked, then ignores it). The first SIGTERM stops its game as Ctrl-C does (the
referee stops its bot processes), a second one ends it at once. A worker stopped by a SIGTERM
the main process did not ask for says so, and the run ends with an error naming it.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import queue
import signal
import sys
import threading
import traceback
from collections.abc import Generator, Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any, Protocol, cast

from arena.errors import ArenaError
from arena.referee.match import Entrant, GameSpec, Guest, Match, TimeControl
from arena.referee.placement import CpuClaim, cpu_for_worker, pin_to_free_cpu
from arena.referee.record import GameRecord
from arena.sandbox import Isolation
from arena.tournament.records import pending_record, write_record
from arena.tournament.schedule import Dispatcher, Lineup, ScheduledGame
from arena.tournament.store import GameRow

logger = logging.getLogger(__name__)

_STOP_WAIT = 15.0  # seconds a stopped worker gets to stop its bots and exit
_STOP = "stop"     # main process -> worker: stop now (the run ends)
_SIGTERM_EXIT = 128 + signal.SIGTERM


@dataclass(frozen=True)
class Setup:
    """What every worker needs besides its batches of pairs."""

    entrants: Mapping[str, Entrant]
    """Every entrant that may play, by key."""
    target: int
    time: TimeControl
    records: Path
    """The folder of record files."""
    base: Path
    """The folder record paths are given relative to (the store's)."""
    transport: str = "tcp"
    pin_cpus: bool = True
    """Pin each worker (and so its bots) to a CPU of its own, where there are enough."""
    isolation: Isolation | None = None
    """The isolation of bot processes (None: the best the machine gives)."""
    live: Path | None = None
    """A folder for the spectators' files of the games in progress (`GameSpec.live`, one
    `<game id>.json` each: a league's live pages); None: none written."""
    guest: Guest | None = None
    """A seat every game gives to this guest (a league's person at a seat, `GameSpec.guest`);
    its games are of fixed partners."""

    def record_file(self, game: ScheduledGame) -> Path:
        return self.records / f"{game.record_name}.json.gz"

    def spec(self, game: ScheduledGame) -> GameSpec:
        seats = [self.entrants[k] for k in game.seat_keys]
        return GameSpec(game.game_id, game.seed, (seats[0], seats[1]), self.target,
                        self.time,
                        guest=self.guest,
                        partners=None if game.partners is None else (seats[2], seats[3]),
                        live=None if self.live is None else str(self.live / f"{game.game_id}.json"))


@dataclass(frozen=True)
class Finished:
    """A game a worker finished: its row, and its record: the file under its pending name
    that a local worker wrote (renamed to `row.record` once the row is committed), or the
    record's content (`records.record_bytes`) that a cluster's worker sent, for the store's
    writer to write (`GameWriter.add`)."""

    row: GameRow
    record: Path | bytes


# ----- inside a worker process --------------------------------------------------------------

class _State:
    """What the signal handlers and the inbox reader share, in a worker."""

    stopping = False   # a stop began (first SIGTERM)
    asked = False      # the main process asked for it (or is gone): not a failure


def _first_sigterm(signum: int, frame: Any) -> None:
    """First SIGTERM: stop the game as Ctrl-C does; a second one ends the worker at once."""
    _State.stopping = True
    signal.signal(signal.SIGTERM, _second_sigterm)
    raise KeyboardInterrupt


def _second_sigterm(signum: int, frame: Any) -> None:
    os._exit(_SIGTERM_EXIT)  # its bots get SIGKILL as their parent dies


class _Inbox(threading.Thread):
    """Reads the worker's inbox: passes batches on to the worker's loop. On `stop`, or when the
    main process is gone (end of file), it stops the worker: a SIGTERM to itself, so that a
    game in progress stops as on Ctrl-C. Once the main process is gone, it also ends the
    process after `_STOP_WAIT` seconds if the clean-up hangs (its bots then get SIGKILL as
    their parent dies)."""

    def __init__(self, conn: Connection) -> None:
        super().__init__(name="inbox", daemon=True)
        self.conn = conn
        self.replies: queue.Queue[Any] = queue.Queue()
        self.signalled = False

    def run(self) -> None:
        while True:
            try:
                message = self.conn.recv()
            except (EOFError, OSError):
                break
            if message == _STOP:
                self._stop()  # and read on: the main process's death still matters
            else:
                self.replies.put(message)
        self._stop()
        threading.Event().wait(_STOP_WAIT)
        logger.warning("the tournament process is gone and the clean-up hangs: exiting")
        os._exit(_SIGTERM_EXIT)

    def _stop(self) -> None:
        _State.asked = True
        self.replies.put(None)
        if not (_State.stopping or self.signalled):
            self.signalled = True
            os.kill(os.getpid(), signal.SIGTERM)


def _send(conn: Connection, message: Any) -> None:
    """Send a message whole: SIGTERM waits (blocked) until it is written, so that the main
    process never reads half a message."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    try:
        conn.send(message)
    except OSError:
        pass  # the main process is gone: the inbox reader stops this worker
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


Batch = list[tuple[ScheduledGame, ...]]


class PairPlayer:
    """Plays batches of pairs of one lineup (a matchup, or a foursome of mixed partners), by
    the rule that no bot process plays both games of a pair: a batch's first games with one
    set of bot processes, closed afterwards; its second games with a fresh set. The set that
    played second games, which never saw the next batch's deals, plays the next batch's first
    games if it is of the same lineup.

    Subclasses say where the next batch comes from (`ask`) and where a finished game goes
    (`deliver`): the local worker asks the main process through its pipes and writes the
    record; a cluster task plays the batch it was given and returns the records as data.
    """

    def __init__(self, setup: Setup) -> None:
        self.setup = setup
        self.spare: Match | None = None  # the last second games' set, kept for reuse
        self.spare_lineup: Lineup | None = None

    def ask(self) -> Batch:
        """The next batch ([]: no more)."""
        return []

    def deliver(self, game: ScheduledGame, record: GameRecord) -> None:
        """Hand on a finished game."""
        raise NotImplementedError

    def run(self, batch: Batch) -> None:
        """Play `batch` and every batch `ask` gives after it, then close the spare set."""
        try:
            while batch:
                batch = self.play_batch(batch)
        finally:
            self.take_spare(None)

    def play_batch(self, batch: Batch) -> Batch:
        """Play a batch; the next one, asked for before its last game so that the set
        playing it can be told whether more games follow."""
        lineup = batch[0][0].lineup
        firsts = [g for pair in batch for g in pair if g.game_index == 0]
        seconds = [g for pair in batch for g in pair if g.game_index == 1]
        following: Batch = []
        if firsts:
            match = self.take_spare(lineup) or self.new_match(lineup)
            try:
                for k, game in enumerate(firsts):
                    if k == len(firsts) - 1 and not seconds:
                        following = self.ask()
                    self.play(match, game, last=k == len(firsts) - 1)
            finally:
                match.close()  # it knows these deals: it plays none of their second games
        if seconds:
            match = self.take_spare(lineup) or self.new_match(lineup, swapped=True)
            keep = False
            try:
                for k, game in enumerate(seconds):
                    if k == len(seconds) - 1:
                        following = self.ask()
                        keep = (bool(following) and following[0][0].lineup == lineup
                                and self.setup.guest is None)  # a guest's set is of one side
                    self.play(match, game, last=k == len(seconds) - 1 and not keep)
            except BaseException:
                match.close()
                raise
            if keep:
                self.spare, self.spare_lineup = match, lineup
            else:
                match.close()
        return following

    def take_spare(self, lineup: Lineup | None) -> Match | None:
        """The spare set if it is of `lineup` (it is handed over), else None (it is closed)."""
        spare, self.spare = self.spare, None
        if spare is not None and self.spare_lineup == lineup:
            return spare
        if spare is not None:
            spare.close()
        return None

    def new_match(self, lineup: Lineup, swapped: bool = False) -> Match:
        """The bot processes of `lineup`, for its games 0 (or, `swapped`, its games 1). With a
        guest, its team's entrant gets one copy, so the teams go in the games' order."""
        (a, b), partners = lineup
        if swapped and self.setup.guest is not None:
            a, b = b, a
        entrants = self.setup.entrants
        return Match(entrants[a], entrants[b], self.setup.transport, self.setup.isolation,
                     guest=self.setup.guest, partners=None if partners is None else (entrants[partners[0]],
                                                             entrants[partners[1]]))

    def play(self, match: Match, game: ScheduledGame, last: bool) -> None:
        self.deliver(game, match.play(self.setup.spec(game), last=last))


class _Worker(PairPlayer):
    """A local worker process's player: batches come from the main process on request, each
    record is written under a pending name and its row sent back."""

    def __init__(self, setup: Setup, inbox: _Inbox, outbox: Connection) -> None:
        super().__init__(setup)
        self.inbox, self.outbox = inbox, outbox

    def ask(self) -> Batch:
        _send(self.outbox, ("want", None))
        return self.inbox.replies.get() or []

    def deliver(self, game: ScheduledGame, record: GameRecord) -> None:
        final = self.setup.record_file(game)
        pending = pending_record(final)
        write_record(record, pending)
        row = GameRow.from_record(game, record, os.path.relpath(final, self.setup.base))
        _send(self.outbox, ("game", Finished(row, pending)))


def _worker(wid: int, workers: int, setup: Setup, inbox: Connection,
            outbox: Connection) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # see _sigint_blocked
    signal.signal(signal.SIGTERM, _first_sigterm)
    status, detail, code = "done", None, 0
    try:
        reader = _Inbox(inbox)
        reader.start()  # inside: the stop it reads may come (as a SIGTERM) before start returns
        if setup.pin_cpus:
            _pin(wid, workers)
        worker = _Worker(setup, reader, outbox)
        worker.run(worker.ask())
    except KeyboardInterrupt:
        status, code = ("stopped", 0) if _State.asked else ("terminated", _SIGTERM_EXIT)
    except Exception as exc:
        status, detail, code = "error", (f"{type(exc).__name__}: {exc}",
                                         traceback.format_exc()), 1
    _State.stopping = True  # the inbox's end of file is no news any more
    _send(outbox, (status, detail))
    outbox.close()
    sys.exit(code)


_claim: CpuClaim | None = None  # held for the worker's life


def _pin(wid: int, workers: int) -> None:
    """Put this worker on a CPU of its own before it starts any bot (they inherit it): its
    own CPU by index if free, else any free one, else none (unpinned)."""
    global _claim
    preferred = cpu_for_worker(wid, workers)
    if preferred is not None:
        _claim = pin_to_free_cpu(preferred)
        logger.debug("worker %d on CPU %s", wid, _claim.cpu if _claim else "any (unpinned)")


# ----- in the main process ------------------------------------------------------------------

class Source(Protocol):
    """What hands out batches of pairs to workers (`schedule.Dispatcher`, or a league's
    scheduler): each batch of one lineup; [] when there are no more for this worker."""

    def next(self, worker: int) -> list[tuple[ScheduledGame, ...]]: ...


class WorkerError(ArenaError):
    """A worker failed outside any game (a harness bug, a full disk, a kill...); the games it
    had not finished are not stored."""


@dataclass
class _Handle:
    """The main process's view of one worker."""

    proc: Any
    inbox: Connection
    outbox: Connection
    unfinished: dict[str, str] = field(default_factory=dict)  # game id -> pair id
    ending: str | None = None   # its last word: done, stopped, terminated, error, lost
    detail: Any = None

    def give(self, batch: list[tuple[ScheduledGame, ...]]) -> None:
        for pair in batch:
            for game in pair:
                self.unfinished[game.game_id] = game.pair_id
        with suppress(OSError):  # it died: its outbox says so
            self.inbox.send(batch)

    def failure(self) -> str | None:
        """What went wrong with this worker, for the user; None if nothing did."""
        name = self.proc.name
        if self.ending == "error":
            logger.debug("%s failed:\n%s", name, self.detail[1])
            what = f"{name} failed: {self.detail[0]}"
        elif self.ending == "terminated":
            what = f"{name} was stopped by a SIGTERM that this run did not send"
        elif self.ending == "lost":
            code = self.proc.exitcode
            how = (f"was killed by {signal.Signals(-code).name}" if code is not None and code < 0
                   else f"ended with exit code {code}" if code is not None
                   else "stopped answering")
            what = f"{name} {how}"
        else:
            return None
        pairs = sorted(set(self.unfinished.values()))
        if pairs:
            what += (f"; {len(self.unfinished)} game(s) it had been given were not played "
                     f"(pair {', '.join(pairs)})")
        return what


@contextmanager
def _sigint_ignored() -> Iterator[None]:
    """SIGINT ignored in this process for the block; a no-op outside the main thread."""
    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: signals are not ours to handle
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def ignore_sigint() -> None:
    """Ignore SIGINT from now on (a run that was interrupted is ending: a second Ctrl-C must
    not cut short what it says); a no-op outside the main thread."""
    with suppress(ValueError):
        signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextmanager
def _sigint_blocked() -> Iterator[None]:
    """SIGINT held back in this thread for the block (a Ctrl-C meanwhile arrives after it),
    and ignored by the processes started meanwhile until they say otherwise, so that a Ctrl-C
    cannot reach a worker still starting (it would print a traceback) before it ignores
    SIGINT itself. The mask alone is not enough: a spawned process starts with an empty
    signal mask, but an ignored signal stays ignored across exec (and Python then installs
    no KeyboardInterrupt handler). Linux keeps a blocked signal pending even while it is
    ignored, so a Ctrl-C during the block still reaches this process's own handler after it.
    """
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    main = threading.current_thread() is threading.main_thread()  # where handlers may change
    handler = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
    try:
        yield
    finally:
        if main:
            signal.signal(signal.SIGINT, handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _start(setup: Setup, count: int, handles: list[_Handle]) -> None:
    """Start `count` workers, appending each to `handles` as it starts."""
    context = multiprocessing.get_context("spawn")
    with _sigint_blocked():
        for k in range(count):
            inbox_r, inbox_w = context.Pipe(duplex=False)
            outbox_r, outbox_w = context.Pipe(duplex=False)
            proc = context.Process(target=_worker, args=(k, count, setup, inbox_r, outbox_w),
                                   name=f"arena-worker-{k}", daemon=True)
            handles.append(_Handle(proc, inbox_w, outbox_r))
            proc.start()
            inbox_r.close()   # the worker holds the only read end of its inbox,
            outbox_w.close()  # and the only write end of its outbox


def run_games(setup: Setup, games: Iterable[ScheduledGame], workers: int,
              source: Source | None = None) -> Generator[Finished, None, None]:
    """Play the games on `workers` processes; yield each as it finishes, in any order.

    `source` (instead of `games`): where the batches come from, asked as each worker wants
    one, until it answers [] (a league's scheduler, `arena.league.scheduler`): `workers`
    processes start whatever it will give.

    Closing the iterator (or an exception in the consumer, such as KeyboardInterrupt) stops
    the workers and waits until they stopped their bots. Raises WorkerError naming every
    worker that failed (and the games it did not play), after the other workers' games.
    """
    dispatcher: Source
    if source is None:
        fixed = Dispatcher(games, workers)
        if not fixed.pairs:
            return
        dispatcher, count = fixed, max(1, min(workers, len(fixed.pairs)))
    else:
        dispatcher, count = source, max(1, workers)
    handles: list[_Handle] = []
    completed = False
    try:
        _start(setup, count, handles)
        live = {h.outbox: (wid, h) for wid, h in enumerate(handles)}
        while live:
            for ready in wait(list(live)):
                conn = cast(Connection, ready)  # (`wait` hands back what it was given)
                wid, handle = live[conn]
                kind: str
                payload: Any
                try:
                    kind, payload = conn.recv()
                except (EOFError, OSError):
                    kind, payload = "lost", None
                if kind == "want":
                    handle.give(dispatcher.next(wid))
                elif kind == "game":
                    handle.unfinished.pop(payload.row.game.game_id, None)
                    yield payload
                else:
                    handle.ending, handle.detail = kind, payload
                    del live[conn]
        completed = True
    finally:
        _stop(handles, graceful=completed)
    failures = [f for f in (h.failure() for h in handles) if f]
    if failures:
        raise WorkerError("; ".join(failures))


def _stop(handles: list[_Handle], graceful: bool) -> None:
    """Ask every live worker to stop (it stops its game like Ctrl-C), wait, then kill what is
    left; `graceful`: they are done, give them a moment to exit by themselves first. SIGINT
    is ignored meanwhile so that a second Ctrl-C cannot cut the clean-up short."""
    started = [h for h in handles if h.proc.pid is not None]
    with _sigint_ignored():
        if graceful:
            for handle in started:
                handle.proc.join(_STOP_WAIT)
        for handle in started:
            if handle.proc.is_alive():
                with suppress(OSError):
                    handle.inbox.send(_STOP)
        for handle in started:
            handle.proc.join(_STOP_WAIT)
            if handle.proc.is_alive():
                logger.warning("%s did not stop; killing it", handle.proc.name)
                handle.proc.kill()
                handle.proc.join()
        for handle in handles:
            handle.inbox.close()
            handle.outbox.close()
