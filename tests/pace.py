"""How fast this machine is now, and the time limits an honest bot meets at that pace.

A test's time limit for its honest side is never a fixed second: on a machine busy with a
second suite and a tournament beside it, some 70 of 740 tests failed on fixed limits, for the
load and not for the behaviour they name (issue 33). On the 2-core machine of that issue,
already shared, four bots started in 0.47 s and the slowest reply of a game took 5 ms; with
six CPU hogs beside them, 1.4 to 1.5 s and 80 to 160 ms. So the honest side's limits are
derived from what is measured here at the time of use:

- `measure()` starts real honest bundled bots through the referee's normal path (a `Match` of
  the random bot against the heuristic bot, isolated as `run_game` would, four processes at
  once) and times their start-up to the last hello; it then plays a short game with them and
  takes the slowest reply (the referee's own `latency_ms`: its request sent to the reply
  received).
- `pace()` is that measurement, taken once per test session and per isolation level;
  `pace(fresh=True)` measures again (a test whose margin is narrow measures just before).
- A limit is `max(floor, k × measured)` (`Pace.hello_limit`, `Pace.decision_limit`), and
  `honest_time()` is the time control of a test that is about no time limit at all: the
  former fixed limits are its floors, so an idle machine plays as before.

A hostile bot that must be late is late relative to the derived limit (a multiple of it), or
forever; never by a fixed second that a derived limit could overtake.

`play_options()` gives `arena play` the same, `time_table()` a tournament config, and
`pace_check_bot` check-bot's own limits.

Measuring costs a second or so (two bot start-ups and a game to 100); a test whose control is
built from `pace()` needs a pytest timeout covering the measurement too.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.botkit import check
from arena.referee.manifest import folder_hash, load_manifest
from arena.referee.match import Entrant, GameSpec, Match, TimeControl
from arena.referee.record import Termination
from arena.sandbox import Isolation, resolve

BOTS = Path(__file__).resolve().parents[1] / "bots"
HELLO_FACTOR = 10.0
"""An honest hello limit is this many times the measured start-up (or its floor, if more):
the load may grow after the measurement, and a start-up is the part of a game a busy machine
slows most (imports, a sandbox's set-up)."""
DECISION_FACTOR = 20.0
"""An honest decision limit is this many times the slowest measured reply (or its floor): a
reply takes a millisecond or so idle, and one descheduled bot process can take a hundred."""
DECISIONS_PER_GAME = 500
"""More decisions than a seat is asked in one game to 1000, for an honest bank: this many
replies, each as slow as an honest decision limit allows."""
_PROBE_CONTROL = TimeControl(hello=600.0, decision=120.0, bank=3600.0, grace=1.0)
"""Wide enough to never end the measuring game on any machine a test could pass on."""


@dataclass(frozen=True)
class Pace:
    """What an honest bot took on this machine when measured, in seconds."""

    hello: float
    """Four honest bot processes started at once (the random and the heuristic bot), from
    their start to the last one's hello."""
    decision: float
    """The slowest reply of a short game between them, as the referee timed it."""
    isolation: Isolation
    """The isolation level it was measured at."""

    def hello_limit(self, floor: float = 5.0, factor: float = HELLO_FACTOR) -> float:
        """A hello limit every honest bot's start-up keeps within at this pace."""
        return max(floor, factor * self.hello)

    def decision_limit(self, floor: float = 2.0, factor: float = DECISION_FACTOR) -> float:
        """A decision limit every honest reply keeps within at this pace."""
        return max(floor, factor * self.decision)

    def bank_limit(self, floor: float = 60.0, factor: float = DECISION_FACTOR) -> float:
        """A bank a seat replying honestly keeps within over a whole game: its floor, or
        `DECISIONS_PER_GAME` replies of `factor` times the slowest measured one, if more."""
        return max(floor, DECISIONS_PER_GAME * factor * self.decision)

    def grace_limit(self, floor: float = 0.2, factor: float = DECISION_FACTOR) -> float:
        """A grace (past a decision's limit, for the transport) the slowest honest reply
        would fit in by itself."""
        return max(floor, factor * self.decision)


_measured: dict[Isolation, Pace] = {}


def measure(isolation: Isolation | None = None) -> Pace:
    """Time honest bots on this machine now (see the module docstring); `isolation`: as
    `run_game` takes it (None: sandboxed where the machine allows). Raises AssertionError
    if the honest bots did not even play a normal game under the wide probe control."""
    honest = [_entrant(BOTS / name) for name in ("random", "heuristic")]
    spec = GameSpec("pace", 1, (honest[0], honest[1]), target=100, time=_PROBE_CONTROL)
    with Match(honest[0], honest[1], isolation=isolation) as match:
        started = time.monotonic()
        match.greet(spec)
        hello = time.monotonic() - started
        record = match.play(spec)
        level = match.isolation
    assert record.termination is Termination.NORMAL, ("honest bots failed to play while "
                                                      f"measuring the pace: {record.fault}")
    slowest = max(d["latency_ms"] for d in record.decisions) / 1000.0
    return Pace(hello, slowest, level)


def pace(isolation: Isolation | None = None, fresh: bool = False) -> Pace:
    """The pace of this session at `isolation` (None: sandboxed where the machine allows):
    measured the first time it is asked for, or again with `fresh`."""
    key = isolation if isolation is not None else resolve("auto")
    if fresh or key not in _measured:
        _measured[key] = measure(key)
    return _measured[key]


def honest_time(isolation: Isolation | None = None, hello: float = 5.0,
                decision: float = 2.0, bank: float = 60.0, grace: float = 0.2,
                hello_factor: float = HELLO_FACTOR) -> TimeControl:
    """The time control of a test about no time limit: each limit its floor given here, or
    what honest bots need at this session's pace, if more (`hello_factor`: times the measured
    start-up of the Python bots; more for a runtime slower to start, such as a JVM)."""
    now = pace(isolation)
    return TimeControl(hello=now.hello_limit(hello, hello_factor),
                       decision=now.decision_limit(decision),
                       bank=now.bank_limit(bank), grace=now.grace_limit(grace))


def _entrant(folder: Path) -> Entrant:
    return Entrant(load_manifest(folder), folder_hash(folder))


def play_options(isolation: Isolation | None = None) -> list[str]:
    """`arena play`'s time options for an honest game at the pace now: its defaults (10 s
    hello, 5 s decision, 300 s bank, 0.2 s grace) as floors."""
    time = honest_time(isolation, hello=10.0, decision=5.0, bank=300.0)
    return ["--hello-time", repr(time.hello), "--decision-time", repr(time.decision),
            "--time-bank", repr(time.bank), "--grace", repr(time.grace)]


def time_table(control: TimeControl) -> str:
    """The `[time]` table of a tournament config holding `control` (e.g. `honest_time()`)."""
    return (f"[time]\nhello = {control.hello!r}\ndecision = {control.decision!r}\n"
            f"bank = {control.bank!r}\ngrace = {control.grace!r}\n")


def pace_check_bot(monkeypatch: pytest.MonkeyPatch) -> None:
    """Give check-bot's honest side (arena.botkit.check: the hello, each decision, a closing
    game's bank, the wait for an exit) its product limits, or what honest bots need at the
    pace now, if more: on an idle machine check-bot runs as shipped. A broken bot that must
    be late is late by a multiple of the limit it is told (deadline_ms), or forever."""
    now = pace()
    monkeypatch.setattr(check, "HELLO_SECONDS", now.hello_limit(check.HELLO_SECONDS))
    monkeypatch.setattr(check, "DECISION_SECONDS", now.decision_limit(check.DECISION_SECONDS))
    monkeypatch.setattr(check, "GAME_BANK", now.bank_limit(check.GAME_BANK))
    monkeypatch.setattr(check, "EXIT_WAIT", now.hello_limit(check.EXIT_WAIT))
