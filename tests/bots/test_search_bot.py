"""The search bot (bots/search) through the real referee: it plays whole games at every
isolation level (sandboxed as root, sandboxed without root, and unconfined), and never
answers late, even under a time control far tighter than its own budget."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from arena.intake import IntakePolicy, take_bot
from arena.referee.match import Entrant, GameSpec, TimeControl, run_game
from arena.referee.record import Termination
from arena.sandbox import Isolation
from tests.bots.conftest import BOTS
from tests.pace import honest_time, pace
from tests.requirements import need_root
from tests.sandbox.conftest import NOBODY, as_nobody, need_sandbox

ROOT = Path(__file__).resolve().parents[2]


def _entrant(folder: Path, isolation: Isolation) -> Entrant:
    ready = take_bot(folder, IntakePolicy(isolation))
    return Entrant(ready.manifest, ready.version, source=str(folder))


THRIFTY_MS = "20"


def thrifty_search(folder: Path) -> Path:
    """The search bot thinking at most 20 ms a decision (its own `--budget-ms`, 100 in its
    bot.toml), copied to `folder` or lowered there if already copied: for the tests that it
    plays whole games, where how long it thinks is not what is tested (a fifth of the CPU)."""
    if not folder.exists():
        shutil.copytree(BOTS / "search", folder, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = folder / "bot.toml"
    text = manifest.read_text()
    assert '"--budget-ms", "100"' in text, text
    manifest.write_text(text.replace('"--budget-ms", "100"', f'"--budget-ms", "{THRIFTY_MS}"'))
    return folder


@pytest.mark.timeout(240)
@pytest.mark.parametrize("isolation", [Isolation.SANDBOX, Isolation.NONE])
def test_search_plays_a_game_against_the_heuristic(isolation, tmp_path):
    if isolation is Isolation.SANDBOX:
        need_sandbox()
    search = thrifty_search(tmp_path / "search")
    spec = GameSpec(f"search-{isolation.value}", 21, (_entrant(search, isolation),
                                                      _entrant(BOTS / "heuristic", isolation)),
                    target=300)
    record = run_game(spec, isolation=isolation)
    assert record.termination is Termination.NORMAL, record.fault
    assert record.isolation == isolation.value
    assert max(record.scores) >= 300


def _tight_control(seed: int, target: int) -> TimeControl:
    """A time control far tighter than the search bot's appetite, and yet one that an honest
    bot answering at once meets on this machine as it is now: measured by a game of the
    heuristic bot against itself (same deals, a generous control). The decision limit is a
    tenth of a second, or four times the slowest reply of that game if more; the grace
    0.15 s, or eight times that slowest reply (the grace is the referee's allowance for
    what the bot does not control: the bot aims at `deadline_ms`, which leaves the grace
    out, and a stall of the machine longer than the probe's slowest reply failed this test
    under a CPU hog at one slowest reply of grace, and at four on a quiet but slow virtual
    machine: a reply 77 ms past the limit, with 75 ms of grace; and at 63 ms of grace, a
    reply 65 ms past the limit during a CI run); the bank 40 decision
    limits (4 s at a tenth: the welcome announces it, and the bot would think 40% of each of
    some 130 decisions if it could) plus twice what the heuristic's busiest seat used."""
    slowest, busiest = _heuristic_pace(seed, target)
    decision = max(0.1, 4 * slowest)
    bank = 40 * decision + 2 * busiest
    return TimeControl(hello=pace().hello_limit(20.0), decision=decision, bank=bank,
                       grace=max(0.15, 8 * slowest))


def _heuristic_pace(seed: int, target: int) -> tuple[float, float]:
    """The slowest reply and the busiest seat's time used, in seconds, of a game of the
    heuristic bot (which answers at once) against itself under a generous control: what an
    honest bot needs of a time control on this machine as it is now."""
    heuristic = _entrant(BOTS / "heuristic", Isolation.NONE)
    probe = run_game(GameSpec("search-pace", seed, (heuristic, heuristic), target=target,
                              time=honest_time(hello=20.0, decision=5.0, bank=300.0)),
                     isolation=Isolation.NONE)
    assert probe.termination is Termination.NORMAL, probe.fault
    return max(d["latency_ms"] for d in probe.decisions) / 1000.0, max(probe.time_used)


@pytest.mark.timeout(300)
def test_search_never_answers_late_under_a_tight_time_control():
    """A tenth of a second per decision, a grace of 150 ms and a bank of 4 s for the game
    (which runs low within it), or as much more as the machine needs now (`_tight_control`):
    the bot thinks for a share of each deadline, then of what is left of the bank, and no
    reply comes late (a late one would forfeit the game)."""
    time = _tight_control(22, 500)
    spec = GameSpec("search-tight", 22, (_entrant(BOTS / "search", Isolation.NONE),
                                         _entrant(BOTS / "heuristic", Isolation.NONE)),
                    target=500, time=time)
    record = run_game(spec, isolation=Isolation.NONE)
    assert record.termination is Termination.NORMAL, (record.fault, time)
    assert max(record.scores) >= 500
    searched, answered = record.time_used[0] + record.time_used[2], sum(record.time_used[1::2])
    assert searched > 2 * answered, "the search thought, within the control, not only answered"


@pytest.mark.timeout(300)
def test_search_spreads_a_small_announced_bank_and_never_times_out():
    """A bank of 3 decision limits for the whole game, announced in the welcome (the bot
    asks for `bank`): the bot spreads it over the game from its first decision, where the
    30 limits it presumes without the announcement would be spent in a score of decisions
    of its 100 ms budget, and the game ends with no timeout. The limit is a second, or as
    much more as the machine needs now for the bank to hold twice what a seat of the
    heuristic bot, answering at once, uses in the same game (`_heuristic_pace`)."""
    slowest, busiest = _heuristic_pace(24, 500)
    decision = max(1.0, 4 * slowest, 2 * busiest / 3)
    time = TimeControl(hello=pace().hello_limit(20.0), decision=decision, bank=3 * decision)
    spec = GameSpec("search-small-bank", 24, (_entrant(BOTS / "search", Isolation.NONE),
                                              _entrant(BOTS / "heuristic", Isolation.NONE)),
                    target=500, time=time)
    record = run_game(spec, isolation=Isolation.NONE)
    assert record.termination is Termination.NORMAL and record.fault is None, (
        record.fault, time)
    assert max(record.scores) >= 500
    assert max(record.time_used[0::2]) <= time.bank  # the record: within the bank
    searched, answered = record.time_used[0] + record.time_used[2], sum(record.time_used[1::2])
    assert searched > 2 * answered, "the search thought, within the bank, not only answered"
    # Spread over the game, not spent at its start: measured, the second half of a search
    # seat's decisions took 0.7 of the time of its first half with the bank announced, and
    # 0.09 without (30 limits presumed, the bank spent in its first 20 decisions and the rest
    # of the game answered by the policy at once).
    for seat in (0, 2):
        took = [d["latency_ms"] for d in record.decisions if d["seat"] == seat
                and not d.get("auto")]
        half = len(took) // 2
        assert sum(took[half:]) > 0.25 * sum(took[:half]), (seat, took)


DRIVER = """
import json, sys
from pathlib import Path
from arena.intake import IntakePolicy, take_bot
from arena.referee.match import Entrant, GameSpec, TimeControl, run_game
from arena.sandbox import Isolation, probe

policy = IntakePolicy(Isolation.SANDBOX, root=Path(sys.argv[3]))
taken = [take_bot(f, policy) for f in sys.argv[1:3]]
bots = [Entrant(t.manifest, t.version, source=f) for t, f in zip(taken, sys.argv[1:3])]
record = run_game(GameSpec("search-unprivileged", 23, tuple(bots), target=200,
                           time=TimeControl(*map(float, sys.argv[4:8]))),
                 isolation=Isolation.SANDBOX)
print(json.dumps({"summary": probe().summary(), "termination": record.termination.value,
                  "fault": str(record.fault), "scores": record.scores}))
"""


@pytest.mark.timeout(240)
def test_search_plays_sandboxed_without_root():
    """As `nobody`, bubblewrap sandboxes the bots in a user namespace: the search bot still
    reaches the rules engine (the arena's own package, shown read-only) and plays."""
    need_sandbox()
    need_root("becoming an unprivileged user for the test")
    work = Path(tempfile.mkdtemp(prefix="tichu-search-unprivileged-"))
    try:
        folders = [work / "search", work / "heuristic"]
        for name, folder in zip(("search", "heuristic"), folders, strict=True):
            shutil.copytree(BOTS / name, folder, ignore=shutil.ignore_patterns("__pycache__"))
        thrifty_search(folders[0])
        for path in [work, *work.rglob("*")]:
            os.chown(path, NOBODY, NOBODY)
        work.chmod(0o755)
        time = honest_time(hello=20.0, decision=5.0, bank=300.0)
        limits = [str(v) for v in (time.hello, time.decision, time.bank, time.grace)]
        done = subprocess.run(
            [*as_nobody(work), sys.executable, "-c", DRIVER, *map(str, folders),
             str(work / "cache"), *limits], capture_output=True, text=True, timeout=200,
            cwd=ROOT)
        assert done.returncode == 0, done.stderr[-3000:]
        result = json.loads(done.stdout.splitlines()[-1])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    assert "user namespaces" in result["summary"], result["summary"]
    assert result["termination"] == "normal", result["fault"]
    assert max(result["scores"]) >= 200
