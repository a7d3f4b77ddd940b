"""The processes a killed league server left running, found and ended at its next start.

In the sandbox nothing outlives the server: bubblewrap dies with its parent and the kernel
ends its pid namespace (tests/league/test_crash.py kills a server during a build and during
check-bot to show it), but for a kill that lands in the few milliseconds while bubblewrap
sets a sandbox up or has just started its command (README, "Run a league"). Without one (`--allow-unsandboxed`, isolation none) only a process's
first program dies with its parent (`setpriv --pdeathsig`); what it started (a build's
compiler, a bot's helper) is handed to init and goes on. So the server marks its own
environment, which every process it starts inherits at level none, with `MARK` (a digest
of its store's path), and at its next start ends every process whose environment holds that
mark: only a server of that store starts such processes, and the store's lock says that
none other is running. A bot that scrubs its children's environment escapes this, as one
that calls setsid escapes the process-group kill at level none (README, "Security").
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
from pathlib import Path

MARK = "ARENA_LEAGUE_STORE"


def mark_of(storage: Path) -> str:
    """The mark of a league's processes: a digest of its store's absolute path."""
    return hashlib.sha256(str(storage.absolute()).encode()).hexdigest()[:32]


def marked(mark: str) -> list[int]:
    """The processes (other than this one) whose starting environment holds `mark`."""
    wanted = f"{MARK}={mark}".encode()
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        with contextlib.suppress(OSError):  # ended meanwhile, or not ours to read
            if wanted in (proc / "environ").read_bytes().split(b"\0"):
                found.append(int(proc.name))
    return found


def reap(storage: Path) -> int:
    """End (SIGKILL) what an earlier server of `storage` left running, then mark this
    process's environment for the next start; how many processes were ended. Call it with
    the store's run lock held."""
    mark = mark_of(storage)
    ended = 0
    for pid in marked(mark):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
            ended += 1
    os.environ[MARK] = mark
    return ended
