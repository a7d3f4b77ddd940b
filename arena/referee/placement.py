"""CPU placement: keep a match (its referee and its four bot processes) on one CPU.

Most of a game's time goes into handing the turn from one process to the next: referee to
bot and back, about a thousand times a game, each hand-over a few thread wake-ups inside
ZeroMQ. When the thread woken sits on another CPU that CPU must be woken too, which on a
small virtual machine costs tens of microseconds per wake-up; when every process of the
match shares one CPU a hand-over is a plain context switch. Only one process of a match
works at a time anyway: the referee asks one seat at a time, the simultaneous phases
included.

So a tournament worker pins itself to a CPU of its own before it starts any bot, and its bot
processes inherit the pinning; `arena play --pin` and the benchmark pin the command's process
for the game. A CPU is *claimed* first, with a lock file per CPU shared by every arena process
of the user on this machine, so that two runs at once do not both pile onto the first CPU: a
process that finds no free CPU runs unpinned, as it does when there are more workers than
usable CPUs (the scheduler then balances better than a fixed assignment). Everything can be
run unpinned (`--no-pin`, `pin_cpus = false`), for bots that think with several threads.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

logger = logging.getLogger(__name__)

LOCKS_VAR = "ARENA_CPU_LOCKS"  # the folder of the CPU lock files, if not the default


def usable_cpus() -> list[int]:
    """The CPUs this process may run on, ascending (empty where affinity is not supported)."""
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return []


def cpu_for_worker(index: int, workers: int) -> int | None:
    """The CPU worker `index` of `workers` prefers (its claim tries it first), or None (stay
    unpinned) if there are more workers than usable CPUs, or affinity is not supported."""
    cpus = usable_cpus()
    if not cpus or workers > len(cpus):
        return None
    return cpus[index]


class CpuClaim:
    """This process's claim on one CPU: a lock on the CPU's file, held until `release` or
    until the process ends (the system drops the lock then, whatever the way it ended)."""

    def __init__(self, cpu: int, fd: int) -> None:
        self.cpu = cpu
        self._fd: int | None = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the file drops its lock
            self._fd = None


def claim_cpu(preferred: int | None = None, directory: Path | None = None) -> CpuClaim | None:
    """Claim a usable CPU that no other arena process of this user holds, `preferred` first;
    None if every one is held or affinity is not supported. `directory` holds the lock files
    (default: $ARENA_CPU_LOCKS, else one per user in the temporary directory; runs that name
    different folders claim CPUs independently, as the tests do)."""
    cpus = usable_cpus()
    if not cpus:
        return None
    if directory is None:
        directory = Path(os.environ.get(LOCKS_VAR) or Path(tempfile.gettempdir())
                         / f"tichu-arena-cpus-{os.getuid()}")
    try:
        directory.mkdir(mode=0o700, exist_ok=True)
    except OSError as exc:
        logger.info("no CPU claimed: %s", exc)
        return None
    order = ([preferred] if preferred in cpus else []) + [c for c in cpus if c != preferred]
    for cpu in order:
        try:
            fd = os.open(directory / f"cpu{cpu}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # held by another process
            os.close(fd)
            continue
        return CpuClaim(cpu, fd)
    return None


def pin_process(cpus: set[int]) -> None:
    """Confine every thread of this process to `cpus` (ZeroMQ's I/O threads included); any
    process or thread started afterwards inherits it. OSError if the system refuses."""
    try:
        threads = [int(t) for t in os.listdir("/proc/self/task")]
    except OSError:
        threads = [0]
    for tid in threads:
        with contextlib.suppress(ProcessLookupError):  # the thread ended meanwhile
            os.sched_setaffinity(tid, cpus)


def pin_to_free_cpu(preferred: int | None = None,
                    directory: Path | None = None) -> CpuClaim | None:
    """Claim a free CPU (see `claim_cpu`) and confine this process to it; the claim, or None
    (unpinned: no CPU free, or a system that refuses affinity)."""
    claim = claim_cpu(preferred, directory)
    if claim is None:
        return None
    before = set(usable_cpus())
    try:
        pin_process({claim.cpu})
    except OSError as exc:  # a system that refuses: stay unpinned
        logger.info("not pinned to CPU %d: %s", claim.cpu, exc)
        with contextlib.suppress(OSError):
            pin_process(before)
        claim.release()
        return None
    return claim


@contextlib.contextmanager
def pinned(enabled: bool = True, directory: Path | None = None) -> Iterator[int | None]:
    """Run the block with this process on a CPU claimed for it (`pin_to_free_cpu`), then give
    every thread back the CPUs it had; the CPU, or None if unpinned (not `enabled`, no CPU
    free, or a system that refuses)."""
    before = set(usable_cpus())
    claim = pin_to_free_cpu(directory=directory) if enabled and before else None
    if claim is None:
        yield None
        return
    try:
        yield claim.cpu
    finally:
        with contextlib.suppress(OSError):
            pin_process(before)
        claim.release()
