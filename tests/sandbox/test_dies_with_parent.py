"""A bot's or a build's first program dies with the process that started it, even when that
process is killed with SIGKILL (`arena.sandbox.confine.dies_with_parent`), also when the kill
lands before the program has asked the kernel for that signal."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from tests.processes import processes_with
from tests.requirements import missing

ROOT = Path(__file__).resolve().parents[2]

# The starter: runs the command `dies_with_parent` gives for argv (its first argument, as
# JSON) through `sh -c $2` with the command's words after and its own pid in $STARTER,
# prints the command, waits.
STARTER = """
import json, os, subprocess, sys, time
from arena.sandbox.confine import dies_with_parent
argv = dies_with_parent(json.loads(sys.argv[1]))
subprocess.Popen(["sh", "-c", sys.argv[2], "starter", *argv],
                 env={**os.environ, "STARTER": str(os.getpid())})
print(json.dumps(argv), flush=True)
time.sleep(600)
"""


def until(check, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while not (value := check()):
        if time.monotonic() > deadline:
            return value
        time.sleep(0.05)
    return value


@contextlib.contextmanager
def started(argv: list[str], script: str, marker: str) -> Iterator[subprocess.Popen[str]]:
    """A starter process (Python, this package's) that runs `argv` as `dies_with_parent`
    words it, under `sh -c script`; at the end every process with `marker` is killed."""
    with subprocess.Popen([sys.executable, "-c", STARTER, json.dumps(argv), script], cwd=ROOT,
                          stdout=subprocess.PIPE, text=True) as starter:
        try:
            assert starter.stdout is not None
            command = json.loads(starter.stdout.readline())
            if "setpriv" not in Path(command[0]).name:
                missing("util-linux setpriv is not installed", "apt install util-linux")
            yield starter
        finally:
            starter.kill()
            for pid in processes_with(marker):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)


def test_the_program_is_killed_when_its_starter_is():
    marker = str(secrets.randbelow(10**9) + 10**9)
    with started(["sleep", marker], 'exec "$@"', marker) as starter:
        assert until(lambda: processes_with(marker)), "the program never started"
        starter.kill()
        starter.wait()
        assert until(lambda: not processes_with(marker)), "it outlived its starter's SIGKILL"


def test_a_program_whose_starter_died_before_it_asked_for_the_signal_does_not_run(
        tmp_path: Path):
    """The window the kernel leaves open: the starter killed after the fork, before setpriv
    asks for the signal (then the program, already an orphan, would never get it, and live
    on). Made certain here: the forked child waits until its starter is gone, then execs."""
    marker = str(secrets.randbelow(10**9) + 10**9)
    ran, reached = tmp_path / "ran", tmp_path / "reached"
    wait_for_orphan = f'while kill -0 $STARTER 2>/dev/null; do sleep 0.02; done; : > {reached}; exec "$@"'
    with started(["sh", "-c", f": > {ran}; exec sleep {marker}"], wait_for_orphan,
                 marker) as starter:
        starter.kill()
        starter.wait()
        assert until(reached.exists), "the starter's child never got to exec the command"
        time.sleep(0.5)
        assert not ran.exists() and not processes_with(marker), (
            "the program ran with no starter left to die with")
