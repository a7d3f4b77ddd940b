"""Playing a tournament's games on a Dask cluster (`arena tournament CONFIG --cluster ADDRESS`).

The coordinator (the `arena tournament` process) keeps everything it does locally: the
schedule, resume, progress, live standings, and it alone writes the store and the record
files. Only the executor differs: instead of local worker processes (`workers.run_games`),
Dask tasks play the games, and each task returns plain data (rows and record bytes) that the
coordinator stores as it arrives, through the same path as a local run (`runner.play_games`).

- A task plays a batch of pairs of one lineup (a matchup or a foursome; up to `PAIRS_PER_TASK`, as the local
  dispatcher's batches) with `workers.PairPlayer`, the local workers' own code, in a referee
  process of its own on the worker: the first games of its pairs with one set of bot
  processes, the second games with a fresh set, so no bot process plays both games of a
  pair, and both games of a pair come from one place. A task is played whole or
  not at all: a worker killed mid-task loses its games (none was stored), and the scheduler
  plays the task again elsewhere (`retries`, and Dask's `allowed-failures` for workers that
  died); the store ignores an identical duplicate. A task that fails every time ends the run
  naming its pairs. At most about twice the cluster's threads tasks are in flight.
- Bots travel by content: each entrant's intake snapshot (`arena.intake`, what its author
  wrote, before its build) is packed once (`pack_snapshot`), scattered to every worker once
  (keyed by version; should every worker holding them die at once, the run fails and
  resumes), and taken in on each host by the same intake as on the coordinator (its digest
  checked against the version it is shipped as, then built once per host in the sandbox
  the run asks for, resolved on the worker, under the run's build limits).
  Before the first game, every worker builds every entrant: one that fails anywhere is
  reported as an entrant that cannot be built (`Unbuildable`, its reason naming the host).
- What a task holds: its games (each with its own seed), its entrants' manifests and
  versions, the time control and limits. Never the tournament's deal secret.
- CPU placement on a worker follows the local rule (`placement.pinned`): a task claims a free
  CPU of its host for its games, or runs unpinned if none is free.

`dask` is imported only here, and only when a run asks for a cluster: the local path never
imports it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import logging
import os
import pickle
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import uuid
from collections.abc import Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.intake import (
    IntakeFailed,
    IntakePolicy,
    IntakeRefused,
    IntakeStage,
    Unbuildable,
    default_root,
    pack_snapshot,
    ready,
    take_snapshot,
)
from arena.referee.match import Entrant, TimeControl
from arena.referee.placement import pinned
from arena.referee.record import GameRecord
from arena.sandbox import Isolation
from arena.sandbox import resolve as resolve_isolation
from arena.tournament.config import address_problem
from arena.tournament.records import record_bytes
from arena.tournament.schedule import Dispatcher, ScheduledGame
from arena.tournament.store import GameRow
from arena.tournament.workers import Batch, Finished, PairPlayer, Setup, Source, WorkerError

logger = logging.getLogger(__name__)

LOCAL = "local:"  # an address of N worker processes on this machine
EXTRA = "pip install 'tichu-arena[cluster]'"
RETRIES = 2          # a task that raised is tried again this many times
TASKS_PER_THREAD = 2  # tasks in flight per worker thread of the cluster
PAIRS_PER_TASK = 8    # at most (bot processes start twice per task); fewer near the end, so
                      # that the last pairs spread over the threads
# Dask's housekeeping, made less frequent in the coordinator and in the worker processes of
# `local:N` (remote workers: the cluster guide's `dask worker` line sets the same through DASK_*
# variables). At Dask's defaults an idle local:2 cluster used 13% of a CPU (a stack sampler
# every 10 ms in each worker for the dashboard's profile, an event loop tick every 20 ms, a
# memory check every 100 ms, system statistics every 500 ms): on a 2-core machine that is CPU
# the games do not get. With these, 1.6% (measured with LocalCluster idle for 20 s).
QUIET = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "1s",
}


class ClusterError(ArenaError):
    """The cluster cannot be used: Dask is missing, the scheduler cannot be reached, or a
    worker failed outside any game."""


# ----- connecting ---------------------------------------------------------------------------

def _distributed() -> Any:
    try:
        import distributed
    except ImportError as exc:
        raise ClusterError(f"running on a cluster needs Dask's distributed scheduler, which is "
                           f"not installed ({exc}); install the cluster extra: {EXTRA}"
                           ) from None
    return distributed


@contextlib.contextmanager
def connect(address: str, wait: float = 60.0) -> Iterator[Any]:
    """A Dask client of the cluster at `address` ('local:N' starts one of N worker
    processes, one thread each, for the block); ClusterError if it cannot be reached or no
    worker joins within `wait` seconds."""
    problem = address_problem(address)
    if problem:
        raise ClusterError(f"--cluster: {problem}")
    distributed = _distributed()
    with contextlib.ExitStack() as stack:
        import dask  # installed with distributed

        stack.enter_context(dask.config.set(QUIET))
        if address.startswith(LOCAL):
            cluster = stack.enter_context(distributed.LocalCluster(
                n_workers=int(address[len(LOCAL):]), threads_per_worker=1, processes=True,
                dashboard_address=":0", silence_logs=logging.CRITICAL))
            # (its log lines on a stop or a lost worker are noise: the run says what matters)
            target: Any = cluster
        else:
            target = address
        try:
            client = stack.enter_context(distributed.Client(target, timeout=wait))
        except (OSError, TimeoutError) as exc:
            raise ClusterError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
        try:
            client.wait_for_workers(1, timeout=wait)
        except TimeoutError:
            raise ClusterError(f"no Dask worker joined the scheduler at {address} within "
                               f"{wait:g} s; start some (`dask worker {address} --nworkers N "
                               "--nthreads 1`)") from None
        yield client


def threads(client: Any) -> int:
    """The cluster's worker threads (games it plays at once)."""
    return max(1, sum(client.nthreads().values()))


# ----- bots travel by content -----------------------------------------------------------------

def pack(entrant: Entrant) -> bytes:
    """The bundle of an entrant: its intake snapshot, packed (it hashes to its version)."""
    if entrant.snapshot is None:
        raise ClusterError(f"{entrant.name}: no intake snapshot to ship")
    return pack_snapshot(entrant.snapshot)


@dataclass(frozen=True)
class BuildFailure:
    """An entrant a worker could not build, as plain data."""

    key: str
    host: str
    reason: str
    output: str = ""

    def unbuildable(self, entrant: Entrant) -> Unbuildable:
        return Unbuildable(Path(entrant.source or entrant.manifest.folder), entrant.name,
                           IntakeStage.BUILD, f"on the cluster worker {self.host}: {self.reason}",
                           self.output, entrant.manifest.language)


def ensure_built(key: str, entrant: Entrant, bundle: bytes, policy: IntakePolicy
                 ) -> Entrant | BuildFailure:
    """This host's built copy of an entrant: its bundle taken in by this host's intake (a
    snapshot whose digest must be the entrant's version, built once per host at the run's
    isolation level resolved here). A failed build leaves nothing behind, so a later run
    tries again."""
    policy = dataclasses.replace(policy, root=default_root())
    policy.root.mkdir(parents=True, exist_ok=True)
    host = socket.gethostname()
    limits = dataclasses.replace(policy.limits, links_in_archives=True)  # a snapshot's own
    with tempfile.NamedTemporaryFile(dir=policy.root, prefix=".bundle-", suffix=".tar") as f:
        f.write(bundle)
        f.flush()
        try:
            snapshot = take_snapshot(Path(f.name), policy.root / "snapshots", limits)
        except IntakeRefused as exc:
            return BuildFailure(key, host, f"its bundle was refused: {exc}")
    if snapshot.version != entrant.version:
        return BuildFailure(key, host, f"its bundle hashes to {snapshot.version}, not to the "
                                       f"version {entrant.version} it was shipped as")
    try:
        got = ready(snapshot, Path(entrant.source or entrant.manifest.folder), policy)
    except IntakeFailed as exc:
        return BuildFailure(key, host, exc.failure.reason, exc.failure.output)
    manifest = dataclasses.replace(entrant.manifest, folder=got.manifest.folder)
    return dataclasses.replace(entrant, manifest=manifest, snapshot=snapshot.folder)


# ----- on a worker ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Task:
    """A unit of work: pairs of one lineup (a matchup, or a foursome of mixed partners),
    played whole in one place, as plain data. It names each game's seed, never the
    tournament's deal secret."""

    pairs: tuple[tuple[ScheduledGame, ...], ...]
    entrants: tuple[tuple[str, Entrant], ...]
    """The lineup's entrants by key (their folders are the coordinator's)."""
    target: int
    time: TimeControl
    isolation: str
    """What the run asks ('auto', 'sandbox', 'none'), resolved on the worker."""
    transport: str = "tcp"
    pin_cpus: bool = True

    @property
    def pair_ids(self) -> list[str]:
        return [pair[0].pair_id for pair in self.pairs]


@dataclass(frozen=True)
class Outcome:
    """What a task sends back: each game's row (its record path left empty: the coordinator
    names it) and record file bytes; or the entrant it could not build."""

    games: tuple[tuple[GameRow, bytes], ...] = ()
    failure: BuildFailure | None = None


class _Collector(PairPlayer):
    """A task's player: it plays the batch it was given and keeps each game as data, naming
    each entrant's folder as the coordinator knows it (records match a local run's)."""

    def __init__(self, setup: Setup, shipped: Mapping[str, Entrant]) -> None:
        super().__init__(setup)
        self.shipped = shipped
        self.games: list[tuple[GameRow, bytes]] = []

    def deliver(self, game: ScheduledGame, record: GameRecord) -> None:
        team0, team1 = (self.shipped[k].info() for k in game.teams)
        record.entrants = (team0, team1)
        if record.seats is not None:
            record.seats = tuple(self.shipped[k].info() for k in game.seat_keys)
        self.games.append((GameRow.from_record(game, record, ""), record_bytes(record)))


def _built(entrants: Sequence[tuple[str, Entrant]], bundles: Mapping[str, bytes],
           policy: IntakePolicy) -> dict[str, Entrant] | BuildFailure:
    built: dict[str, Entrant] = {}
    for key, entrant in entrants:
        got = ensure_built(key, entrant, bundles[entrant.version], policy)
        if isinstance(got, BuildFailure):
            return got
        built[key] = got
    return built


def build_task(entrants: Sequence[tuple[str, Entrant]], bundles: Mapping[str, bytes],
               isolation: str, policy: IntakePolicy) -> tuple[str, list[BuildFailure]]:
    """On a worker: build every entrant (once per host); the isolation level its games will
    have there ('sandbox' or 'none') and the entrants that failed. Raises if the run's
    isolation cannot be had there."""
    level = resolve_isolation(isolation)
    policy = dataclasses.replace(policy, isolation=level)
    failures = []
    for key, entrant in entrants:
        got = ensure_built(key, entrant, bundles[entrant.version], policy)
        if isinstance(got, BuildFailure):
            failures.append(got)
    return level.value, failures


def play_task(task: Task, bundles: Mapping[str, bytes], policy: IntakePolicy) -> Outcome:
    """On a worker: play a task's pairs in a process of their own (`_referee`)."""
    policy = dataclasses.replace(policy, isolation=resolve_isolation(task.isolation))
    built = _built(task.entrants, bundles, policy)
    if isinstance(built, BuildFailure):
        return Outcome(failure=built)
    return _referee(task, built)


def _referee(task: Task, built: Mapping[str, Entrant]) -> Outcome:
    """Play a task's pairs in a fresh Python process: the referee's loop then shares no
    interpreter (and no lock) with the Dask worker's threads (games played inside the
    worker process took 30-70% longer than local ones). The child dies with this worker
    however it dies: it exits at the end of file of its input (its bots get SIGKILL as their
    parent dies). ClusterError if it fails."""
    # its error output goes to a file: a pipe read only after its result could fill and stall it
    with tempfile.TemporaryFile() as errors:
        child = subprocess.Popen([sys.executable, "-m", "arena.tournament.cluster"],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors)
        try:
            data = pickle.dumps((task, dict(built)))
            assert child.stdin is not None and child.stdout is not None
            child.stdin.write(len(data).to_bytes(8, "big") + data)
            child.stdin.flush()
            result = child.stdout.read()
            child.stdin.close()
            code = child.wait()
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
        errors.seek(0)
        error = errors.read()
    if code != 0 or not result:
        tail = error.decode(errors="replace").strip().splitlines()[-12:]
        raise ClusterError(f"the referee process of pair(s) {', '.join(task.pair_ids)} ended "
                           f"with exit code {code}:\n" + "\n".join(tail))
    return pickle.loads(result)


def _serve() -> None:
    """The referee process of one task (`_referee`): read it, play it on a CPU claimed for
    it where one is free, write the outcome."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C is the coordinator's to handle
    size = int.from_bytes(sys.stdin.buffer.read(8), "big")
    task, built = pickle.loads(sys.stdin.buffer.read(size))
    threading.Thread(target=_exit_at_end_of_input, daemon=True).start()
    setup = Setup(built, task.target, task.time, Path(), Path(), task.transport,
                  task.pin_cpus, resolve_isolation(task.isolation))
    player = _Collector(setup, dict(task.entrants))
    with pinned(task.pin_cpus):
        player.run(list(task.pairs))
    sys.stdout.buffer.write(pickle.dumps(Outcome(tuple(player.games))))
    sys.stdout.buffer.flush()
    os._exit(0)  # not a shutdown that waits for the thread reading the input


def _exit_at_end_of_input() -> None:
    """End the process once its input closes: the worker is gone (or gave up on it)."""
    while os.read(0, 4096):
        pass
    os._exit(1)


# ----- on the coordinator -------------------------------------------------------------------

class Cluster:
    """A connected cluster with the tournament's entrants shipped to it."""

    def __init__(self, client: Any, isolation: str) -> None:
        self.client, self.isolation = client, isolation
        self.bundles: dict[str, Any] = {}  # version -> the scattered bundle's future
        self.policy = IntakePolicy(Isolation.NONE)  # set by `ship`
        self.prefix = uuid.uuid4().hex[:8]  # task keys of this run
        self.levels: set[str] = set()  # isolation levels the workers resolved ('sandbox', ...)

    def threads(self) -> int:
        """The cluster's worker threads now (games it plays at once)."""
        return threads(self.client)

    def ship(self, entrants: Mapping[str, Entrant], policy: IntakePolicy) -> list[Unbuildable]:
        """Send every entrant's bundle to the workers once and build it on each under
        `policy` (its isolation resolved on each worker); the entrants that some worker
        cannot build."""
        self.policy = policy
        data = {f"arena-bot-{e.version}": pack(e) for e in entrants.values()
                if e.version not in self.bundles}  # (a league ships its new entrants)
        futures = self.client.scatter(data, broadcast=True) if data else {}
        self.bundles.update({key.removeprefix("arena-bot-"): f for key, f in futures.items()})
        listed = tuple(entrants.items())
        jobs = [self.client.submit(build_task, listed, self.bundles, self.isolation, policy,
                                   workers=[address], allow_other_workers=False, pure=False,
                                   key=f"arena-build-{self.prefix}-{k}")
                for k, address in enumerate(self.client.nthreads())]
        failed: dict[str, BuildFailure] = {}
        for job in jobs:
            try:
                level, failures = job.result()
            except Exception as exc:
                raise ClusterError(f"a cluster worker cannot prepare the entrants: "
                                   f"{type(exc).__name__}: {exc}") from None
            self.levels.add(level)
            for failure in failures:
                failed.setdefault(failure.key, failure)
        return [f.unbuildable(entrants[k]) for k, f in failed.items()]

    def play(self, setup: Setup, games: Sequence[ScheduledGame], source: Source | None = None
             ) -> Generator[Finished, None, None]:
        """Play `games` on the cluster; yield each as its task finishes (with its record's
        content). `source`: the batches come from it instead, as tasks finish (a league's
        scheduler; each task in flight has a slot number of its own, the `worker` it asks
        for), until it has none. WorkerError naming the pairs of a task that failed every
        time, or the entrant a worker could not build."""
        distributed = _distributed()
        dispatcher = source or Dispatcher(games, threads(self.client), PAIRS_PER_TASK)
        entrants = {k: e for k, e in setup.entrants.items()}
        pending = distributed.as_completed()
        tasks: dict[Any, tuple[Task, int]] = {}
        try:
            self._fill(dispatcher, entrants, setup, pending, tasks)
            for future in pending:
                task, _ = tasks.pop(future)
                outcome = self._outcome(future, task)
                if outcome.failure is not None:
                    raise WorkerError(outcome.failure.unbuildable(
                        entrants[outcome.failure.key]).line()
                        + f"; the games of pair(s) {', '.join(task.pair_ids)} were not played")
                for row, data in outcome.games:
                    yield _finished(setup, row, data)
                self._fill(dispatcher, entrants, setup, pending, tasks)
        finally:
            if tasks:
                self.client.cancel(list(tasks))

    def _fill(self, dispatcher: Source, entrants: Mapping[str, Entrant], setup: Setup,
              pending: Any, tasks: dict[Any, tuple[Task, int]]) -> None:
        """Submit tasks until about twice the cluster's threads are in flight."""
        slots = TASKS_PER_THREAD * threads(self.client)
        while len(tasks) < slots:
            taken = {slot for _, slot in tasks.values()}
            slot = next(k for k in itertools.count() if k not in taken)
            batch: Batch = dispatcher.next(slot)
            if not batch:
                return
            task = Task(tuple(batch), tuple((k, entrants[k]) for k in batch[0][0].keys),
                        setup.target, setup.time, self.isolation, setup.transport,
                        setup.pin_cpus)
            future = self.client.submit(play_task, task, self.bundles, self.policy, pure=False,
                                        retries=RETRIES,
                                        key=f"arena-pairs-{self.prefix}-{task.pair_ids[0]}")
            tasks[future] = (task, slot)
            pending.add(future)

    @staticmethod
    def _outcome(future: Any, task: Task) -> Outcome:
        try:
            return future.result()
        except Exception as exc:
            raise WorkerError(f"the cluster could not play pair(s) {', '.join(task.pair_ids)} "
                              f"after {RETRIES + 1} tries: {type(exc).__name__}: {exc}"
                              ) from None


def _finished(setup: Setup, row: GameRow, data: bytes) -> Finished:
    """A finished game from a worker, with its record's content (the store's writer writes
    it, durably, with the other records of its batch)."""
    final = setup.record_file(row.game)
    return Finished(dataclasses.replace(row, record=os.path.relpath(final, setup.base)), data)


if __name__ == "__main__":  # the referee process of a task (see `_referee`)
    from arena.tournament.cluster import _serve as serve  # its classes, not __main__'s

    serve()
