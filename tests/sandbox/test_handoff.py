"""The hand-off of the referee's connection into a sandbox: its twin in C (`handoff.c`) is
compiled once per machine and kept, made again if what is kept does not run, and left out
where no C compiler is; a sandboxed game is played through either hand-off."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.referee.match import GameSpec, run_game
from arena.referee.record import Termination
from arena.sandbox import Isolation, handoff, jail
from tests.pace import honest_time
from tests.referee.conftest import ROOT, entrant
from tests.requirements import need_programs
from tests.sandbox.conftest import need_sandbox

pytestmark = pytest.mark.timeout(180)


def compiled_in(cache: Path, path: str | None = None) -> str:
    """What `handoff.compiled()` says in a new process with `cache` as its cache folder (and
    `path` as its PATH, if given)."""
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    if path is not None:
        env["PATH"] = path
    done = subprocess.run([sys.executable, "-c", "from arena.sandbox import handoff; "
                           "print(handoff.compiled())"], env=env, capture_output=True,
                          text=True, timeout=150, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_c_hand_off_is_compiled_once_and_kept(tmp_path: Path):
    need_programs("cc", what="a C compiler (gcc)")
    program = Path(compiled_in(tmp_path))
    assert program.parent == tmp_path / "tichu-arena" / "handoff" and os.access(program, os.X_OK)
    made = program.stat().st_mtime_ns
    assert compiled_in(tmp_path) == str(program) and program.stat().st_mtime_ns == made
    usage = subprocess.run([program], capture_output=True, text=True, timeout=30)
    assert usage.returncode == 2 and usage.stderr.startswith("usage: handoff FD PORT")
    assert list(program.parent.iterdir()) == [program]  # no temporary file left


def test_a_kept_hand_off_that_does_not_run_is_made_again(tmp_path: Path):
    need_programs("cc", what="a C compiler (gcc)")
    program = Path(compiled_in(tmp_path))
    program.write_bytes(b"#!/bin/sh\nexit 0\n")  # damaged: not the hand-off
    assert compiled_in(tmp_path) == str(program)
    usage = subprocess.run([program], capture_output=True, text=True, timeout=30)
    assert usage.returncode == 2 and usage.stderr.startswith("usage: handoff FD PORT")


def test_without_a_c_compiler_the_python_hand_off_serves(tmp_path: Path):
    empty = tmp_path / "bin"
    empty.mkdir()
    assert compiled_in(tmp_path / "cache", str(empty)) == "None"
    assert not (tmp_path / "cache").exists()


@pytest.mark.parametrize("kind", ["c", "python"])
def test_a_sandboxed_game_is_played_through_either_hand_off(kind: str,
                                                          monkeypatch: pytest.MonkeyPatch):
    need_sandbox()
    if kind == "c":
        need_programs("cc", what="a C compiler (gcc)")
        assert handoff.compiled() is not None
    else:
        monkeypatch.setitem(handoff._COMPILED, "path", None)  # as on a machine without cc
    fds = jail.JailFds(seccomp=None, passwd=5, group=6, handoff=7)
    argv = jail.bwrap_argv("bwrap", ROOT / "bots" / "random", ["python", "bot.py"], 64, None,
                           fds, 5555)
    start = argv[argv.index("--", argv.index("--chdir")) + 1:][:4]
    assert (start[0] == handoff.compiled()) if kind == "c" else \
        (start[1:] == ["-I", "-S", str(jail.HANDOFF)])
    bots = entrant(ROOT / "bots" / "random"), entrant(ROOT / "bots" / "heuristic")
    record = run_game(GameSpec(f"handoff-{kind}", 7, bots, target=200, time=honest_time()),
                      isolation=Isolation.SANDBOX)
    assert record.termination is Termination.NORMAL, (record.fault, record.bot_output)
    assert record.isolation == "sandbox"
