"""Soak: a tournament of normal and broken bots, killed with SIGKILL at random moments and
resumed until done, ends exactly as an uninterrupted run with the same seeds, and leaves no
process behind (no bot, no worker); a long match keeps the referee's memory flat. Marked
slow; CI runs it at the bounded size below."""

from __future__ import annotations

import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import main
from arena.referee.manifest import folder_hash, load_manifest
from arena.referee.match import Entrant, GameSpec, Match, TimeControl
from arena.referee.record import Termination
from tests.pace import honest_time, time_table
from tests.processes import bot_processes
from tests.tournament.conftest import game_rows

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]
ROOT = Path(__file__).resolve().parents[2]
FAULTY = ROOT / "tests" / "referee" / "bots" / "faulty"
TRIVIAL = ROOT / "arena" / "cli" / "benchbots" / "trivial"
# (name, fault): every bot plays deterministically, so every game's outcome is fixed by its seed
BOTS = [("steady", ""), ("sturdy", ""), ("crashy", "crash"), ("cheater", "illegal"),
        ("sleepy", "slow")]


def soak_time() -> TimeControl:
    """The games' time control: a 1 s decision, or what honest bots need at the pace now."""
    return honest_time(hello=10.0, decision=1.0, bank=60.0, grace=0.2)


def make_bot(folder: Path, name: str, fault: str, time: TimeControl) -> Path:
    """A deterministic bot folder: the faulty test bot with its fault fixed by a wrapper (the
    slow one sleeps twice the decision limit and its grace, a timeout however busy the
    machine)."""
    delay = 2 * (time.decision + time.grace)
    shutil.copytree(FAULTY, folder, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "run.py").write_text(
        "import os, runpy\n"
        f"os.environ['TICHU_TEST_FAULT'] = {fault!r}\n"
        "os.environ['TICHU_TEST_FAULT_AT'] = '25'\n"
        "os.environ['TICHU_TEST_ILLEGAL'] = 'too_low'\n"
        f"os.environ['TICHU_TEST_DELAY'] = '{delay!r}'\n"
        "runpy.run_path('bot.py', run_name='__main__')\n")
    (folder / "bot.toml").write_text(f'name = "{name}"\nversion = "1"\nlanguage = "python"\n'
                                     'command = ["python", "run.py"]\n')
    return folder


def write_config(folder: Path, storage: str, time: TimeControl) -> Path:
    entrants = "\n".join(f'    "bots/{name}",' for name, _ in BOTS)
    path = folder / f"{storage}.toml"
    path.write_text(f"""[tournament]
entrants = [
{entrants}
]
games_per_matchup = 2
target = 300
seed = 11
concurrency = 2
storage = "{storage}.sqlite"

{time_table(time)}
[ratings]
anchor = "steady"
""")
    return path


def tagged_processes(tag: str) -> list[int]:
    """Pids of live processes whose environment holds `tag` (a run's workers inherit the
    environment of the run, and so do its bots)."""
    found = []
    needle = tag.encode()
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as environ:
                if needle not in environ.read():
                    continue
            with open(f"/proc/{name}/stat") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] != "Z":
                    found.append(int(name))
        except OSError:
            continue
    return found


def standings_json(config: Path) -> dict:
    result = CliRunner().invoke(main, ["standings", str(config), "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_a_tournament_killed_at_random_moments_ends_as_an_uninterrupted_run(tmp_path):
    time_control = soak_time()
    for name, fault in BOTS:
        make_bot(tmp_path / "bots" / name, name, fault, time_control)
    calm = write_config(tmp_path, "calm", time_control)
    result = CliRunner().invoke(main, ["tournament", str(calm), "--no-standings"])
    assert result.exit_code == 0, result.output

    stormy = write_config(tmp_path, "stormy", time_control)
    rng = random.Random(5)
    kills = 0
    tag = f"TICHU_SOAK_RUN={tmp_path.name}-{os.getpid()}"  # marks the storm's processes
    env = dict(os.environ, TICHU_SOAK_RUN=tag.split("=", 1)[1])
    # At most 6 kills: on a quiet machine the run completes after about 4; under load, each
    # further kill only replays the games it cut and starts the workers again (with 12, this
    # was the slow tests' longest test: 56 s beside a CPU hog)
    for _ in range(6):
        proc = subprocess.Popen([sys.executable, "-m", "arena.cli", "tournament", str(stormy),
                                 "--no-standings"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, env=env)
        try:
            proc.wait(timeout=rng.uniform(1.0, 4.0))
            break  # finished before the kill
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            kills += 1
    final = CliRunner().invoke(main, ["tournament", str(stormy), "--no-standings"])
    assert final.exit_code == 0, final.output
    assert kills >= 2, "the storm should interrupt the run several times"

    deadline = time.monotonic() + 60  # a bound against hangs: workers stop within seconds
    while time.monotonic() < deadline and (tagged_processes(tag) or any(
            bot_processes(tmp_path / "bots" / name) for name, _ in BOTS)):
        time.sleep(0.2)
    for name, _ in BOTS:
        assert not bot_processes(tmp_path / "bots" / name), f"{name} processes left behind"
    assert not tagged_processes(tag), "workers (or their bots) outlived their killed run"

    calm_rows = game_rows(tmp_path / "calm.sqlite")
    stormy_rows = game_rows(tmp_path / "stormy.sqlite")
    assert len(calm_rows) == 10 * 2
    ids = [row[0] for row in stormy_rows]
    assert len(ids) == len(set(ids)) == len(calm_rows), "every game stored exactly once"

    def outcome(row: tuple) -> tuple:  # everything but the record's path
        return row[:-1]
    assert sorted(map(outcome, stormy_rows)) == sorted(map(outcome, calm_rows))
    assert {row[8] for row in calm_rows} >= {"normal", "crash", "illegal_action", "timeout"}
    assert standings_json(stormy) == standings_json(calm)


def test_the_referee_memory_stays_flat_over_a_long_match():
    trivial = Entrant(load_manifest(TRIVIAL), folder_hash(TRIVIAL))
    peaks = []
    with Match(trivial, trivial) as match:
        for i in range(40):
            record = match.play(GameSpec(f"mem-{i}", i, (trivial, trivial), target=200,
                                         time=honest_time()),
                                last=i == 39)
            assert record.termination is Termination.NORMAL
            if i in (9, 39):
                peaks.append(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)  # KiB
    assert peaks[1] - peaks[0] < 8 * 1024, f"peak RSS grew from {peaks[0]} to {peaks[1]} KiB"
