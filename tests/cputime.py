"""A pytest plugin that tells where the suite's CPU goes: `-p tests.cputime` writes one line
per test to the file named by `ARENA_TEST_CPU_LOG` (tab-separated: CPU seconds of the test's
process and of the children it reaped, wall-clock seconds, the test's id).

The suite is latency-bound on two cores (most tests wait on bot processes), so `--durations`
ranks tests by how long they waited, not by what they cost a busy machine; this ranks them by
CPU. With pytest-xdist each worker appends its own lines to the same file.
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Generator

import pytest

LOG_VAR = "ARENA_TEST_CPU_LOG"


def _cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    path = os.environ.get(LOG_VAR)
    cpu, wall = _cpu_seconds(), time.monotonic()
    yield
    if path:
        line = f"{_cpu_seconds() - cpu:.2f}\t{time.monotonic() - wall:.2f}\t{item.nodeid}\n"
        with open(path, "a", encoding="utf-8") as log:
            log.write(line)
