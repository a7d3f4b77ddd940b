"""CPU placement: keep a match (its referee and its four bot processes) on one CPU.

Most of a game's time goes into handing the turn from one process to the next: referee to
bot and back, about a thousand times a game, each hand-over a few thread wake-ups inside
ZeroMQ. When the thread woken sits on another CPU that CPU must be woken too, which on a
small virtual machine costs tens of microseconds per wake-up; when every process of the
match shares one CPU a hand-over is a plain context switch. Only one process of a match
works at a time anyway (in the simultaneous phases its bots take turns on that CPU).

So a tournament worker pins itself to a CPU of its own before it starts any bot, and its bot
processes inherit the pinning; `arena play` and the benchmark pin the command's process for
the game. Pinning is skipped when there are more workers than usable CPUs (the scheduler then
balances better than a fixed assignment), and everything can be run unpinned (`--no-pin`,
`pin_cpus = false`), for bots that use several threads or think long in the simultaneous
phases (Grand Tichu, exchange, Tichu), where four bots sharing one CPU take longer by the
clock, which their time limits count.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator

logger = logging.getLogger(__name__)


def usable_cpus() -> list[int]:
    """The CPUs this process may run on, ascending (empty where affinity is not supported)."""
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return []


def cpu_for_worker(index: int, workers: int) -> int | None:
    """The CPU for worker `index` of `workers`, or None (unpinned) if there are more workers
    than usable CPUs, or affinity is not supported."""
    cpus = usable_cpus()
    if not cpus or workers > len(cpus):
        return None
    return cpus[index]


def pin_process(cpus: set[int]) -> None:
    """Confine every thread of this process to `cpus` (ZeroMQ's I/O threads included); any
    process or thread started afterwards inherits it. OSError if the system refuses."""
    try:
        threads = [int(t) for t in os.listdir("/proc/self/task")]
    except OSError:
        threads = [0]
    for tid in threads:
        try:
            os.sched_setaffinity(tid, cpus)
        except ProcessLookupError:  # the thread ended meanwhile
            pass


@contextlib.contextmanager
def pinned(cpu: int | None) -> Iterator[int | None]:
    """Run the block with this process on `cpu` (None or no affinity support: unpinned), then
    give every thread back the CPUs it had."""
    before = set(usable_cpus())
    if cpu is None or not before:
        yield None
        return
    try:
        pin_process({cpu})
    except OSError as exc:  # a system that refuses: run unpinned
        logger.info("not pinned to CPU %d: %s", cpu, exc)
        with contextlib.suppress(OSError):
            pin_process(before)
        yield None
        return
    try:
        yield cpu
    finally:
        pin_process(before)
