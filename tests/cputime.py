"""A pytest plugin that tells where the suite's CPU goes: `-p tests.cputime` writes one line
per test to the file named by `ARENA_TEST_CPU_LOG` (tab-separated: CPU seconds, wall-clock
seconds, the test's id).

The CPU seconds are those of every process the test ran where the plugin can make a cgroup
(v1 `cpuacct`; as root, or with a delegated hierarchy): each test process moves into a
cgroup of its own, and the sandbox makes each bot's cgroup under its referee's, so the
sandboxed bots count too. `getrusage` misses them: a bot's bubblewrap is killed before it
reaps the bot, which the init process reaps instead (tests/tournament: 46 s by getrusage,
110 s by the cgroup). Without a cgroup, the CPU seconds are the test's process's and those
of the children it reaped, as `time` counts them.

The suite is latency-bound on two cores (most tests wait on bot processes), so `--durations`
ranks tests by how long they waited, not by what they cost a busy machine; this ranks them by
CPU. With pytest-xdist each worker appends its own lines to the same file.
"""

from __future__ import annotations

import contextlib
import os
import resource
import time
from collections.abc import Generator
from pathlib import Path

import pytest

from arena.sandbox.cgroups import own_cgroup

LOG_VAR = "ARENA_TEST_CPU_LOG"

_cgroup: Path | None = None


def _rusage_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _cpu_seconds() -> float:
    if _cgroup is not None:
        with contextlib.suppress(OSError, ValueError):
            return int((_cgroup / "cpuacct.usage").read_text()) / 1e9
    return _rusage_seconds()


def pytest_configure(config: pytest.Config) -> None:
    """Move this process into a cpuacct cgroup of its own, if a log is asked and one can be
    made (else the figures are getrusage's)."""
    global _cgroup
    base = own_cgroup("cpuacct") if os.environ.get(LOG_VAR) else None
    if base is None:
        return
    directory = base / f"cputime-{os.getpid()}"
    try:
        directory.mkdir()
        (directory / "cgroup.procs").write_text(str(os.getpid()))
    except OSError:
        with contextlib.suppress(OSError):
            directory.rmdir()
        return
    _cgroup = directory


def pytest_unconfigure(config: pytest.Config) -> None:
    """Back to the cgroup this process came from, and this one's removed (once empty)."""
    global _cgroup
    if _cgroup is None:
        return
    with contextlib.suppress(OSError):
        (_cgroup.parent / "cgroup.procs").write_text(str(os.getpid()))
        _cgroup.rmdir()
    _cgroup = None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    path = os.environ.get(LOG_VAR)
    cpu, wall = _cpu_seconds(), time.monotonic()
    yield
    if path:
        line = f"{_cpu_seconds() - cpu:.2f}\t{time.monotonic() - wall:.2f}\t{item.nodeid}\n"
        with open(path, "a", encoding="utf-8") as log:
            log.write(line)
