"""Shared helpers of the tournament tests: small configs over copies of the bundled bots and
of the hostile test bot, finding processes, running the CLI in a process of its own."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.referee.match import TimeControl
from tests.pace import honest_time, time_table

ROOT = Path(__file__).resolve().parents[2]


def copy_bot(source: str, dest: Path, name: str | None = None) -> Path:
    """A private copy of a bundled bot (so that its processes are recognised by folder),
    optionally renamed in its bot.toml."""
    shutil.copytree(ROOT / "bots" / source, dest, ignore=shutil.ignore_patterns("__pycache__"))
    if name is not None:
        manifest = dest / "bot.toml"
        text = manifest.read_text()
        manifest.write_text(text.replace(f'name = "{source}"', f'name = "{name}"'))
    return dest


HOSTILE = ROOT / "tests" / "tournament" / "bots" / "hostile"


def hostile_bot(dest: Path, mode: str, name: str | None = None, **settings: object) -> Path:
    """A copy of the hostile test bot attacking as `mode` says (see its bot.py)."""
    shutil.copytree(HOSTILE, dest, ignore=shutil.ignore_patterns("__pycache__"))
    (dest / "settings.json").write_text(json.dumps({"mode": mode, **settings}))
    manifest = dest / "bot.toml"
    manifest.write_text(manifest.read_text().replace('name = "hostile"',
                                                     f'name = "{name or dest.name}"'))
    return dest


def write_config(folder: Path, entrants: list[str], games: int = 2, target: int = 200,
                 extra: str = "", name: str = "t.toml", seed: int | None = None,
                 hello: float = 10.0, control: TimeControl | None = None) -> Path:
    """A config; no seed (secret deals) unless `seed` is given. Its time control is `control`,
    else honest limits at the pace now (tests.pace), at least a hello of `hello`, a decision
    of 3 s and a bank of 60 s."""
    if control is None:
        control = honest_time(hello=hello, decision=3.0, bank=60.0)
    listed = "\n".join(f'    "{e}",' for e in entrants)
    path = folder / name
    seed_line = "" if seed is None else f"seed = {seed}\n"
    path.write_text(f"""[tournament]
entrants = [
{listed}
]
games_per_matchup = {games}
target = {target}
{seed_line}concurrency = 2
storage = "t.sqlite"

{time_table(control)}
[ratings]
anchor = "random"
{extra}""")
    return path


def game_rows(db: Path) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT game_id, pair_id, team0, team1, score0, score1, winner, "
                            "rounds, termination, record FROM games ORDER BY game_id").fetchall()


@pytest.fixture
def two_bots(tmp_path: Path) -> tuple[Path, Path]:
    return copy_bot("random", tmp_path / "random"), copy_bot("heuristic", tmp_path / "heuristic")


def game_seeds(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as conn:
        return dict(conn.execute("SELECT game_id, seed FROM games"))


def start_cli(*args: str, env: dict[str, str] | None = None,
              session: bool = False) -> subprocess.Popen:
    """`arena ARGS` in a process of its own (`session`: and a process group of its own, as a
    shell's foreground job), its output captured as text."""
    return subprocess.Popen([sys.executable, "-m", "arena.cli", *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, start_new_session=session)


def children(pid: int) -> list[int]:
    """Pids of the live child processes of `pid`."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(name))
    return found


def workers_of(pid: int) -> list[int]:
    """Pids of the tournament worker processes of the arena process `pid`: its children
    started by multiprocessing, and Dask's workers, which rename themselves ("dask worker
    [ADDRESS]") where `setproctitle` is installed (mutmut, of the test extra, brings it)."""
    found = []
    for child in children(pid):
        try:
            with open(f"/proc/{child}/cmdline", "rb") as cmdline:
                line = cmdline.read()
                if b"spawn_main" in line or line.startswith(b"dask worker"):
                    found.append(child)
        except OSError:
            continue
    return found


def alive(pid: int) -> bool:
    """True if `pid` runs (not a zombie)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_until(condition, what: str, limit: float = 120.0, proc=None) -> None:
    """Poll `condition` until it holds; AssertionError naming `what` after `limit` seconds
    (a bound against hangs, far above the time it takes), or if `proc` ended meanwhile."""
    deadline = time.monotonic() + limit
    while not condition():
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"the process ended before {what}: {proc.communicate()}")
        if time.monotonic() > deadline:
            raise AssertionError(f"not seen in {limit:g} s: {what}")
        time.sleep(0.05)


def stored_games(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return conn.execute("SELECT count(*) FROM games").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def kill_all(pids) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def reap(*runs: subprocess.Popen) -> None:
    """Kill (SIGKILL) and reap the runs still going: a test's clean-up."""
    for run in runs:
        if run.poll() is None:
            run.kill()
            run.communicate()
