"""Worker processes that play games in parallel, each with its own referee and bot processes.

The main process hands out pairs on request (`schedule.Dispatcher`); a worker plays them in
one `Match` as long as they are of the same matchup, so bots that play several games per
session are started once. Before the last game of a pair it asks for its next pair, so that
it can tell the bots whether more games follow. It writes each record file atomically and
sends back a small `GameRow`; only the main process writes the store.

Workers die with the main process (SIGTERM on its death, on Linux), and SIGINT or SIGTERM
stop a worker's game the way Ctrl-C does: the referee stops its bot processes, nothing is
left behind.
"""

from __future__ import annotations

import ctypes
import logging
import multiprocessing
import os
import queue
import signal
import sys
import traceback
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.referee.placement import CpuClaim, cpu_for_worker, pin_to_free_cpu
from arena.referee.match import Entrant, GameSpec, Match, TimeControl
from arena.sandbox import Isolation
from arena.tournament.schedule import Dispatcher, ScheduledGame
from arena.tournament.store import GameRow, write_record

logger = logging.getLogger(__name__)

_POLL = 0.2        # seconds between checks that the workers are alive
_STOP_WAIT = 15.0  # seconds a stopped worker gets to stop its bots and exit
_PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class Setup:
    """What every worker needs besides its pairs."""

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

    def record_file(self, game: ScheduledGame) -> Path:
        return self.records / f"{game.record_name}.json.gz"

    def spec(self, game: ScheduledGame) -> GameSpec:
        teams = game.teams
        return GameSpec(game.game_id, game.seed,
                        (self.entrants[teams[0]], self.entrants[teams[1]]), self.target,
                        self.time)


# ----- inside a worker process --------------------------------------------------------------

def _interrupt(signum: int, frame: Any) -> None:
    """First SIGINT/SIGTERM: stop the game as Ctrl-C does; later ones are ignored so that the
    clean-up (stopping bot processes) is not cut short."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise KeyboardInterrupt


def _die_with_parent() -> None:
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        except (OSError, AttributeError):
            pass


class _Worker:
    """One worker's loop: ask for a pair, play it, report each game."""

    def __init__(self, wid: int, setup: Setup, inbox: Any, outbox: Any, parent: int) -> None:
        self.wid, self.setup = wid, setup
        self.inbox, self.outbox, self.parent = inbox, outbox, parent

    def ask(self) -> tuple[ScheduledGame, ...] | None:
        if os.getppid() != self.parent:  # orphaned: play nothing more
            return None
        self.outbox.put(("want", self.wid, None))
        return self.inbox.get()

    def run(self) -> None:
        pair = self.ask()
        match: Match | None = None
        playing: tuple[str, str] | None = None
        try:
            while pair is not None:
                if pair[0].matchup != playing:
                    if match is not None:
                        match.close()
                    playing = pair[0].matchup
                    match = Match(self.setup.entrants[playing[0]],
                                  self.setup.entrants[playing[1]], self.setup.transport,
                                  self.setup.isolation)
                pair = self.play_pair(match, pair)
        finally:
            if match is not None:
                match.close()

    def play_pair(self, match: Match, pair: tuple[ScheduledGame, ...],
                  ) -> tuple[ScheduledGame, ...] | None:
        """Play a pair's games; the next pair, asked for before the last game."""
        following = None
        for k, game in enumerate(pair):
            last = False
            if k == len(pair) - 1:
                following = self.ask()
                last = following is None or following[0].matchup != game.matchup
            record = match.play(self.setup.spec(game), last=last)
            path = self.setup.record_file(game)
            write_record(record, path)
            self.outbox.put(("game", self.wid,
                             GameRow.from_record(game, record,
                                                 os.path.relpath(path, self.setup.base))))
        return following


def _worker(wid: int, workers: int, setup: Setup, inbox: Any, outbox: Any,
            parent: int) -> None:
    signal.signal(signal.SIGINT, _interrupt)
    signal.signal(signal.SIGTERM, _interrupt)
    _die_with_parent()
    try:
        if setup.pin_cpus:
            _pin(wid, workers)
        _Worker(wid, setup, inbox, outbox, parent).run()
        outbox.put(("done", wid, None))
    except KeyboardInterrupt:
        outbox.cancel_join_thread()  # unsent rows are not committed: those games are replayed
    except Exception:
        outbox.put(("error", wid, traceback.format_exc()))


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

class WorkerError(Exception):
    """A worker failed outside any game (a harness bug, a full disk...)."""


def run_games(setup: Setup, games: Iterable[ScheduledGame], workers: int) -> Iterator[GameRow]:
    """Play the games on `workers` processes; yield rows as games finish, in any order.

    Closing the iterator (or an exception in the consumer, such as KeyboardInterrupt) stops
    the workers and waits until they stopped their bots. Raises WorkerError if a worker
    failed, after the other workers' games.
    """
    dispatcher = Dispatcher(games)
    count = max(1, min(workers, len(dispatcher.pairs)))
    if not dispatcher.pairs:
        return
    context = multiprocessing.get_context("spawn")
    outbox = context.Queue()
    inboxes = [context.Queue() for _ in range(count)]
    for inbox in inboxes:
        inbox.cancel_join_thread()
    procs = [context.Process(target=_worker,
                             args=(k, count, setup, inboxes[k], outbox, os.getpid()),
                             name=f"arena-worker-{k}", daemon=True) for k in range(count)]
    errors: list[str] = []
    completed = False
    try:
        for proc in procs:
            proc.start()
        finished = 0
        while finished < count:
            try:
                kind, wid, payload = outbox.get(timeout=_POLL)
            except queue.Empty:
                if not any(p.is_alive() for p in procs):
                    break  # a worker died without a word: what it sent is drained below
                continue
            if kind == "want":
                inboxes[wid].put(dispatcher.next(wid))
            elif kind == "game":
                yield payload
            else:
                finished += 1
                if kind == "error":
                    errors.append(payload)
        completed = True
    finally:
        _stop(procs, graceful=completed)
    for kind, _, payload in _drained(outbox):
        if kind == "game":
            yield payload
        elif kind == "error":
            errors.append(payload)
    dead = [p for p in procs if p.exitcode not in (0, None)]
    if dead and not errors:
        errors.append(f"{dead[0].name} ended with exit code {dead[0].exitcode}")
    if errors:
        raise WorkerError(errors[0])


def _drained(outbox: Any) -> Iterator[tuple[str, int, Any]]:
    while True:
        try:
            yield outbox.get(timeout=0.05)
        except (queue.Empty, OSError, ValueError):
            return


def _stop(procs: list[Any], graceful: bool) -> None:
    """Ask every live worker to stop (SIGTERM, which stops its game like Ctrl-C), wait, then
    kill what is left; `graceful`: they are done, give them a moment to exit by themselves
    first. SIGINT is ignored meanwhile so that a second Ctrl-C cannot cut the clean-up short."""
    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: signals are not ours to handle
        previous = None
    try:
        if graceful:
            for proc in procs:
                if proc.pid is not None:
                    proc.join(_STOP_WAIT)
        for proc in procs:
            if proc.is_alive() and proc.pid is not None:
                try:
                    os.kill(proc.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for proc in procs:
            if proc.pid is not None:
                proc.join(_STOP_WAIT)
                if proc.is_alive():
                    logger.warning("%s did not stop; killing it", proc.name)
                    proc.kill()
                    proc.join()
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
