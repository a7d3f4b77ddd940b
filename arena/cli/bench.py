"""Benchmarks: scripts that print speed figures (never timed unit tests)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import zmq
from tabulate import tabulate

from arena.cli.benchwork import TRIVIAL as _TRIVIAL
from arena.errors import ArenaError
from arena.referee.inprocess import Meter, load_bot, play_local_game
from arena.referee.manifest import folder_hash, load_manifest
from arena.referee.match import Entrant, GameSpec, Match
from arena.referee.placement import pinned
from arena.rules.selfplay import play_random_games


@dataclass(frozen=True)
class EngineFigures:
    """Throughput of the rules engine with four random players in one process."""

    games: int
    rounds: int
    decisions: int
    seconds: float

    def lines(self) -> list[str]:
        """Rounds/s first: games/s also depends on how often the players call (random
        players never do, which shortens games), rounds/s much less."""
        s = self.seconds
        return [
            f"rounds/s:    {self.rounds / s:.0f}  ({self.rounds / self.games:.1f} rounds per game)",
            f"decisions/s: {self.decisions / s:.0f}  "
            f"({self.decisions / self.rounds:.0f} per round)",
            f"games/s:     {self.games / s:.1f}  ({self.games} games in {s:.2f} s)",
        ]


def bench_engine(games: int, seed: int = 0) -> EngineFigures:
    """Play `games` full games to 1000 with four uniformly random legal players."""
    start = time.perf_counter()
    rounds, decisions = play_random_games(games, seed)
    return EngineFigures(games, rounds, decisions, time.perf_counter() - start)


@dataclass(frozen=True)
class InstructionFigures:
    """Machine instructions of the engine workload (`bench_engine`) under callgrind, net of
    the interpreter's start-up (the same command with no game, subtracted)."""

    games: int
    rounds: int
    decisions: int
    instructions: int  # net: the workload's run minus the start-up run

    def lines(self) -> list[str]:
        return [
            f"instructions per round:    {self.instructions / self.rounds / 1e6:.2f} M  "
            f"({self.games} games, {self.rounds} rounds; callgrind, start-up subtracted)",
            f"instructions per decision: {self.instructions / self.decisions / 1e3:.1f} k  "
            f"({self.decisions / self.rounds:.0f} decisions per round)",
        ]


# The workload measured under callgrind: `bench_engine`'s games, importing only the engine.
_WORKLOAD = """
import sys
from arena.referee.packing import EventFeed
from arena.rules import PASS, Event, Game
from arena.rules.selfplay import play_random_games
from protocol import codec
from protocol.sdk import Session
print("played", *play_random_games(int(sys.argv[1]), int(sys.argv[2])))
"""


class CallgrindMissing(ArenaError):
    """valgrind is not installed (or fails to run): no instruction count is possible."""


def count_instructions(games: int, seed: int = 0) -> InstructionFigures:
    """The engine workload's instructions under ``valgrind --tool=callgrind``, per round.

    Runs the workload twice, with `games` games and with none, and subtracts, so the figure
    counts the games only. Hash randomisation is fixed (PYTHONHASHSEED=0) so that a run gives
    the same count each time. Raises CallgrindMissing when valgrind cannot run.
    """
    played, net = _net_instructions(_WORKLOAD, (games, seed), (0, seed),
                                    r"played (\d+) (\d+)")
    return InstructionFigures(games, int(played[1]), int(played[2]), net)


def _net_instructions(workload: str, measured: tuple[int, ...], base: tuple[int, ...],
                      printed: str) -> tuple[re.Match[str], int]:
    """Run `workload` under callgrind with the arguments `measured` and `base` at once (one
    per CPU): what the first printed (`printed`, a pattern) and its instructions net of the
    second's. CallgrindMissing when valgrind cannot run or the count is not printed."""
    runs = [_Callgrind(workload, *measured), _Callgrind(workload, *base)]
    try:
        out, total = runs[0].result()
        _, without = runs[1].result()
    finally:
        for run in runs:
            run.stop()
    found = re.search(printed, out)
    if found is None:
        raise CallgrindMissing(f"the workload printed no count: {out[-300:]}")
    return found, total - without


class _Callgrind:
    """One run of a workload script under callgrind, started at once; `result()` waits."""

    def __init__(self, workload: str, *args: int) -> None:
        if shutil.which("valgrind") is None:
            raise CallgrindMissing("valgrind is not installed (Debian: apt-get install valgrind)")
        command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                   sys.executable, "-c", workload, *map(str, args)]
        # Run from the folder holding this `arena` package: `-c` puts the working folder
        # first on sys.path, and another checkout there would be measured instead.
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True, cwd=Path(__file__).resolve().parents[2],
                                        env=dict(os.environ, PYTHONHASHSEED="0"))

    def result(self) -> tuple[str, int]:
        """(what the workload printed, instructions); CallgrindMissing if the run failed."""
        out, err = self.process.communicate()
        collected = re.search(r"Collected : (\d+)", err)
        if self.process.returncode != 0 or collected is None:
            raise CallgrindMissing(f"valgrind failed (exit code {self.process.returncode}): "
                                   f"{err.strip()[-500:]}")
        return out, int(collected[1])

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


_SLICES = 4  # (a) and (b) alternate in this many slices; (b) plays one game per slice
_TRIVIAL_TARGET = 300


@dataclass(frozen=True)
class PlacementFigures:
    """(a), (b) and (c) measured with one placement of the processes on the CPUs."""

    raw_bytes_us: tuple[float, float]    # (median, p90): echo of bytes, nothing decoded
    raw_msgpack_us: tuple[float, float]  # (median, p90): the peer unpacks and packs
    referee_us: tuple[float, float]      # (median, p90): request sent -> reply received
    games: int
    games_per_s: float
    decisions_per_game: float
    asked_per_game: float
    spent: Spent  # (c)'s time per asked decision, by side


@dataclass(frozen=True)
class Spent:
    """Where (c)'s time goes, per asked decision, in microseconds (CPU times from /proc,
    in clock ticks: coarse, but summed over a thousand decisions a game): the referee's
    process (its user and kernel time; all its threads), the four bot processes (and their
    sandboxes), and the wall clock; switches: context switches per asked decision, the
    voluntary ones (a process waits: each hand-over of the turn) and the involuntary ones
    (preempted: the CPU is busy with other work)."""

    wall_us: float
    referee_user_us: float
    referee_sys_us: float
    bots_user_us: float
    bots_sys_us: float
    referee_switches: tuple[float, float]  # voluntary, involuntary
    bots_switches: tuple[float, float]

    @property
    def other_us(self) -> float:
        """Wall time not spent on the CPU by any process of the match: waiting for a CPU (other
        processes of the machine) and for wake-ups."""
        return self.wall_us - (self.referee_user_us + self.referee_sys_us + self.bots_user_us
                               + self.bots_sys_us)

    @property
    def cpu_us(self) -> float:
        """CPU of every process of the match per asked decision."""
        return self.referee_user_us + self.referee_sys_us + self.bots_user_us + self.bots_sys_us

    def cells(self) -> list[str]:
        return [f"{self.wall_us:.0f} us",
                f"{self.referee_user_us:.0f} + {self.referee_sys_us:.0f} us",
                f"{self.bots_user_us:.0f} + {self.bots_sys_us:.0f} us",
                f"{self.other_us:.0f} us",
                "{:.1f} + {:.1f} / {:.1f} + {:.1f}".format(*self.referee_switches,
                                                         *self.bots_switches)]


@dataclass(frozen=True)
class InProcessFigures:
    """CPU per asked decision of in-process games between trivial bots (no sockets, no
    processes: `arena.referee.inprocess` with a `Meter`), in microseconds: the referee's work
    as `Match` does it (events, packing the request, decoding and checking the reply), the
    bots' (the SDK reading the request as over the wire, the decision, the reply packed) and
    the engine's; net of the clock's own cost (`Meter`), which `clock_us` gives."""

    asked: int
    referee_us: float
    bots_us: float
    engine_us: float
    clock_us: float  # one read of the thread's CPU clock, taken off each stretch measured


@dataclass(frozen=True)
class TransportFigures:
    """The transport benchmark: one CPU for everything (as tournament workers run) and CPUs
    shared (the scheduler's choice)."""

    requests: int
    request_bytes: int  # the median size
    pinned: PlacementFigures | None  # None: no affinity support, or every CPU claimed
    shared: PlacementFigures
    inprocess: InProcessFigures

    def lines(self) -> list[str]:
        columns = [("one CPU (pinned)", self.pinned)] if self.pinned else []
        columns.append(("CPUs shared", self.shared))

        def us(pair: tuple[float, float]) -> str:
            return f"{pair[0]:.0f} us (p90 {pair[1]:.0f})"

        rows = [
            ["(a) raw pyzmq + msgpack round trip"] + [us(f.raw_msgpack_us) for _, f in columns],
            ["(a) bytes only, the peer decodes nothing"]
            + [us(f.raw_bytes_us) for _, f in columns],
            ["(b) referee round trip, trivial Python bot"]
            + [f"{us(f.referee_us)} = {f.referee_us[0] / f.raw_msgpack_us[0]:.2f}x (a)"
               for _, f in columns],
            ["(c) games/s, four random Python bots"]
            + [f"{f.games_per_s:.2f} ({f.games} games)" for _, f in columns],
            ["(c) decisions per game (asked over the wire)"]
            + [f"{f.decisions_per_game:.0f} ({f.asked_per_game:.0f})" for _, f in columns],
        ]
        rows.append(["(c) games/s on a CPU of its own: 1 / CPU per game"]
                    + [f"{1e6 / (f.spent.cpu_us * f.asked_per_game):.2f}" for _, f in columns])
        names = ["(c) per asked decision: wall", "(c)   referee CPU, user + kernel",
                 "(c)   bots CPU, user + kernel", "(c)   off CPU (waiting, wake-ups)",
                 "(c)   switches: referee vol + invol / bots"]
        for i, name in enumerate(names):
            rows.append([name] + [f.spent.cells()[i] for _, f in columns])
        table = tabulate(rows, headers=[""] + [name for name, _ in columns], tablefmt="simple")
        inproc = self.inprocess
        return [f"(a) sends in turn the {self.requests} requests (median {self.request_bytes} "
                "bytes) that the trivial bot gets in (b)'s games. Medians over single round "
                "trips; (b) counts asked decisions only (the others are passed by the "
                "referee: auto_pass).", "", *table.splitlines(), "",
                f"In-process, CPU per asked decision ({inproc.asked} decisions, trivial bots): "
                f"referee {inproc.referee_us:.1f} us, bots {inproc.bots_us:.1f} us, engine "
                f"{inproc.engine_us:.1f} us (net of the clock's cost, "
                f"{inproc.clock_us:.2f} us a read)."]


def bench_transport(games: int = 3, round_trips: int = 2000, seed: int = 0) -> TransportFigures:
    """Measure (a), (b) and (c) in one run, pinned to one CPU and with CPUs shared."""
    requests = _trivial_requests(range(seed, seed + _SLICES), _TRIVIAL_TARGET)
    pinned_figures = None
    with pinned() as cpu:
        if cpu is not None:
            pinned_figures = _measure(requests, games, round_trips, seed)
    shared_figures = _measure(requests, games, round_trips, seed)
    return TransportFigures(len(requests), sorted(map(len, requests))[len(requests) // 2],
                            pinned_figures, shared_figures, bench_inprocess(2, seed))


def bench_inprocess(games: int, seed: int = 0) -> InProcessFigures:
    """CPU per asked decision of `games` in-process games to 1000 between trivial bots."""
    make_bot = load_bot(_TRIVIAL)
    meter = Meter()
    for i in range(games):
        play_local_game(seed + i, [make_bot(s) for s in range(4)], meter=meter)
    per = 1e6 / max(1, meter.asked)
    return InProcessFigures(meter.asked, meter.referee * per, meter.bots * per,
                            meter.engine * per, meter.clock_cost * 1e6)


@dataclass(frozen=True)
class RefereeInstructions:
    """Machine instructions of the referee's work per asked decision (`referee_work`) under
    callgrind, net of everything else (the same run without the replay, subtracted)."""

    asked: int
    instructions: int

    def line(self) -> str:
        per = self.instructions / self.asked / 1e3
        return (f"Referee instructions per asked decision: {per:.1f} k "
                f"({self.asked} decisions of in-process trivial games, the referee's work "
                "replayed alone under callgrind).")


# The workload measured under callgrind: trivial games recorded, then (if asked) replayed.
_REFEREE_WORKLOAD = """
import sys
from arena.cli.benchwork import referee_work
print("asked", referee_work(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1",
                           int(sys.argv[4])))
"""


def count_referee_instructions(games: int = 1, seed: int = 0,
                               target: int = 1000) -> RefereeInstructions:
    """The referee's instructions per asked decision: `referee_work` under callgrind with
    the replay and without it, subtracted. CallgrindMissing when valgrind cannot run."""
    asked, net = _net_instructions(_REFEREE_WORKLOAD, (games, seed, 1, target),
                                   (games, seed, 0, target), r"asked (\d+)")
    return RefereeInstructions(int(asked[1]), net)


def _measure(requests: list[bytes], games: int, round_trips: int,
             seed: int) -> PlacementFigures:
    """(a) and (b) in interleaved slices (so that both see the machine in the same mood: a
    virtual machine's speed drifts), then (c)."""
    raw_bytes: list[float] = []
    raw_msgpack: list[float] = []
    latencies: list[float] = []
    trivial = _entrant(_TRIVIAL)
    with _EchoPeer("bytes") as bytes_peer, _EchoPeer("msgpack") as msgpack_peer, \
            Match(trivial, trivial) as match:
        for k in range(_SLICES):
            raw_bytes += bytes_peer.round_trips(requests, round_trips // _SLICES)
            raw_msgpack += msgpack_peer.round_trips(requests, round_trips // _SLICES)
            spec = GameSpec(f"bench-trivial-{k}", seed + k, (trivial, trivial),
                            target=_TRIVIAL_TARGET)
            record = match.play(spec, last=k == _SLICES - 1)
            latencies += [d["latency_ms"] * 1000 for d in record.decisions if not d.get("auto")]
    rand = _entrant(Path(__file__).resolve().parents[2] / "bots" / "random")
    decisions = asked = 0
    with Match(rand, rand) as match:  # processes start once and play every game (multi_game)
        match.play(GameSpec("bench-warm-up", seed, (rand, rand), target=100), last=False)
        bots = _descendants(os.getpid())
        before = _cpu([os.getpid()]), _cpu(bots)
        start = time.perf_counter()
        for i in range(games):
            spec = GameSpec(f"bench-random-{i}", seed + i, (rand, rand))
            played = match.play(spec, last=False).decisions  # processes measured after
            decisions += len(played)
            asked += sum(1 for d in played if not d.get("auto"))
        seconds = time.perf_counter() - start
        after = _cpu([os.getpid()]), _cpu(bots)
    per = 1e6 / max(1, asked)
    referee, bot = (_minus(after[k], before[k], per) for k in (0, 1))
    spent = Spent(seconds * per, referee[0], referee[1], bot[0], bot[1], referee[2:], bot[2:])
    return PlacementFigures(_median_p90(sorted(raw_bytes)), _median_p90(sorted(raw_msgpack)),
                            _median_p90(sorted(latencies)), games, games / seconds,
                            decisions / games, asked / games, spent)


_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _descendants(root: int) -> list[int]:
    """The processes below `root` (Linux /proc; empty elsewhere)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            parent = int((entry / "stat").read_text().rpartition(")")[2].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], list(children.get(root, []))
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def _cpu(pids: list[int]) -> tuple[float, float, int, int]:
    """Seconds of user and kernel CPU, voluntary and involuntary context switches, summed
    over every thread of `pids` (those still running)."""
    user = system = voluntary = involuntary = 0
    for pid in pids:
        for task in Path(f"/proc/{pid}/task").glob("*"):
            try:
                fields = (task / "stat").read_text().rpartition(")")[2].split()
                status = (task / "status").read_text()
            except OSError:
                continue
            user += int(fields[11])
            system += int(fields[12])
            voluntary += _status_count(status, "voluntary_ctxt_switches")
            involuntary += _status_count(status, "nonvoluntary_ctxt_switches")
    return user / _TICK, system / _TICK, voluntary, involuntary


def _status_count(status: str, name: str) -> int:
    """The count `name` of a task's /proc status (which lists every count, always)."""
    found = re.search(rf"^{name}:\s*(\d+)", status, re.M)
    assert found is not None, name
    return int(found[1])


def _minus(after: tuple[float, ...], before: tuple[float, ...],
           per: float) -> tuple[float, float, float, float]:
    """Per asked decision: CPU in microseconds, switches as counts."""
    diff = [a - b for a, b in zip(after, before, strict=True)]
    return diff[0] * per, diff[1] * per, diff[2] * per / 1e6, diff[3] * per / 1e6


def _entrant(folder: Path) -> Entrant:
    manifest = load_manifest(folder)
    return Entrant(manifest, folder_hash(folder))


def _trivial_requests(seeds: range, target: int) -> list[bytes]:
    """The packed requests the trivial bot gets in the games of `seeds`, in order, from the
    in-process harness (which asks as the referee does): (a) sends exactly what (b) sends."""
    make_bot = load_bot(_TRIVIAL)
    requests: list[bytes] = []

    def keep(seat: int, sender: str, message: dict[str, object], data: bytes) -> None:
        if message["type"] == "request":
            requests.append(data)

    for seed in seeds:
        play_local_game(seed, [make_bot(s) for s in range(4)], target, record=keep)
    return requests


class _EchoPeer:
    """An echo peer process (`mode`: bytes or msgpack, see `benchbots.echo_peer`) behind a
    ROUTER socket of this process; a context manager."""

    def __init__(self, mode: str) -> None:
        self.sock: zmq.Socket[bytes] = zmq.Context.instance().socket(zmq.ROUTER)
        self.sock.setsockopt(zmq.LINGER, 0)
        self.sock.bind("tcp://127.0.0.1:0")
        endpoint: str = self.sock.getsockopt_string(zmq.LAST_ENDPOINT)
        self.peer = subprocess.Popen([sys.executable, "-m", "arena.cli.benchbots.echo_peer",
                                      endpoint, mode])
        self.identity: bytes | None = None

    def __enter__(self) -> _EchoPeer:
        return self

    def round_trips(self, requests: list[bytes], count: int) -> list[float]:
        """`count` round trips sending `requests` in turn; each in microseconds."""
        sock = self.sock
        if self.identity is None:
            self.identity, _ = sock.recv_multipart()
        identity = self.identity
        times = []
        for i in range(count):
            request = requests[i % len(requests)]
            start = time.perf_counter()
            sock.send_multipart([identity, request])
            sock.recv_multipart()
            times.append((time.perf_counter() - start) * 1e6)
        return times

    def __exit__(self, *exc_info: object) -> None:
        try:
            if self.identity is not None:
                self.sock.send_multipart([self.identity, b"stop"])
                self.peer.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        finally:
            if self.peer.poll() is None:
                self.peer.kill()
                self.peer.wait()
            self.sock.close()


def _median_p90(sorted_values: list[float]) -> tuple[float, float]:
    return _percentile(sorted_values, 50), _percentile(sorted_values, 90)


def _percentile(sorted_values: list[float], pct: float) -> float:
    if not sorted_values:
        return 0.0
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * pct / 100))]


@dataclass(frozen=True)
class SandboxFigures:
    """What the sandbox costs: start-up of bot processes and game time, against none."""

    runs: int
    startup_s: dict[str, float]  # isolation level -> median s to start and greet 4 processes
    game_s: dict[str, float]     # isolation level -> median s of one game (processes reused)
    isolation: str               # what the sandbox rests on (Machine.summary)

    def lines(self) -> list[str]:
        none, box = "none", "sandbox"
        rows = [["start four trivial bot processes, to their hellos",
                 f"{self.startup_s[none] * 1000:.0f} ms", f"{self.startup_s[box] * 1000:.0f} ms",
                 f"{self.startup_s[box] / self.startup_s[none]:.2f}x",
                 f"+{(self.startup_s[box] - self.startup_s[none]) * 250:.0f} ms"],
                ["a game to 1000, four random Python bots",
                 f"{self.game_s[none]:.2f} s", f"{self.game_s[box]:.2f} s",
                 f"{self.game_s[box] / self.game_s[none]:.2f}x", ""]]
        table = tabulate(rows, headers=["median of " + str(self.runs), none, box, "ratio",
                                        "per process"], tablefmt="simple")
        return [self.isolation, "Runs alternate between the two levels (same machine mood).",
                "", *table.splitlines()]


def bench_sandbox(runs: int = 10, seed: int = 0) -> SandboxFigures:
    """Start-up and game time of bot processes sandboxed and not, alternating run by run.
    SandboxUnavailable if the machine gives no sandbox."""
    from arena.sandbox import Isolation, probe, resolve

    resolve("sandbox")
    levels = (Isolation.NONE, Isolation.SANDBOX)
    trivial, rand = _entrant(_TRIVIAL), _entrant(_TRIVIAL.parents[3] / "bots" / "random")
    startup: dict[str, list[float]] = {level.value: [] for level in levels}
    games: dict[str, list[float]] = {level.value: [] for level in levels}
    for k in range(runs):
        for level in levels if k % 2 == 0 else reversed(levels):
            spec = GameSpec(f"bench-start-{k}", seed + k, (trivial, trivial))
            with Match(trivial, trivial, isolation=level) as match:
                start = time.perf_counter()
                match.greet(spec)
                startup[level.value].append(time.perf_counter() - start)
            with Match(rand, rand, isolation=level) as match:
                match.play(GameSpec("bench-warm-up", seed, (rand, rand), target=100), last=False)
                start = time.perf_counter()
                match.play(GameSpec(f"bench-game-{k}", seed + k, (rand, rand)))
                games[level.value].append(time.perf_counter() - start)
    median = {name: sorted(v)[len(v) // 2] for name, v in startup.items()}
    return SandboxFigures(runs, median, {n: sorted(v)[len(v) // 2] for n, v in games.items()},
                          probe().summary())
