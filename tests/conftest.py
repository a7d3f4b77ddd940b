"""What every test shares: a tag in the environment of everything a test starts, CPU claims
of its own, intake's cache folder, Hypothesis with no clock of its own; and Ctrl-C as a
user's terminal delivers it.

Bot processes inherit the referee's environment (a sandbox passes on every `TICHU_*`
variable), so `tests.processes.bot_processes` counts only the processes of the running test,
never those of another test, another test run or an arena run of the same user beside it.
Likewise each test claims CPUs in a lock folder of its own (`ARENA_CPU_LOCKS`), so that an
arena run beside the tests cannot leave a test's workers unpinned.

A shell without job control (a CI script's `cmd &`) starts its background commands with
SIGINT ignored, and every process they start inherits that: the tests of Ctrl-C would then
fail (the run never sees it). So the tests' processes get Python's own handler back, and what
they start gets the default disposition, as under a terminal.
"""

from __future__ import annotations

import os
import signal
import tempfile
import uuid
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from arena.intake import CACHE_VAR
from arena.referee.placement import LOCKS_VAR
from tests.processes import TAG_VAR

# Intake's snapshots and builds go to a folder of the tests', not the user's ~/.cache: shared
# by every test (content-addressed, so they cannot clash) and kept between runs, like a
# user's own cache. A test that counts builds gives its tournament a folder of its own.
os.environ.setdefault(CACHE_VAR, os.path.join(tempfile.gettempdir(),
                                              f"tichu-arena-tests-{os.getuid()}"))

# Hypothesis's own clocks (a deadline per example, the health check of slow input generation)
# would fail a property test because the machine is busy, not because the property broke: a
# test may fail only for the behaviour it names. So neither applies to any property test; a
# test that sets `suppress_health_check` itself names `too_slow` again.
settings.register_profile("arena", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("arena")

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


SLOW_MARK = "pytest.mark.slow"
"""How a test is marked slow: written in its own file (on the test, in the file's
`pytestmark`, or in a parameter's marks), so that a run of the slow tests alone
(`-m slow`: `make test-slow`) collects only the files that hold some."""


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Under `-m slow`, a test file that marks no test slow is not even imported: collecting
    the whole suite cost each xdist worker 2.4 s of CPU, for the 8 files of 250 that hold the
    slow tests."""
    if config.option.markexpr != "slow" or collection_path.suffix != ".py" \
            or not collection_path.name.startswith("test_"):
        return None
    return SLOW_MARK not in collection_path.read_text(encoding="utf-8") or None


WAITING_FIRST = ("tests/soak/", "tests/league/", "tests/test_lint.py",
                 "tests/docs/test_tutorial.py")
"""Where the suite's longest waits are, run first: the soak tests (the longest of `make
test-slow`), the league's tests, which wait on a served league's games (2 minutes on one
worker, on which pytest-xdist keeps a package), mypy's test, the longest single one of
`make test`, and the tutorial's, which serves a league of its own. Last in the run, they were its tail, the other workers idle (beside a CPU hog:
20 of `make test`'s 225 s, 12 of `make test-slow`'s 72 s)."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """`WAITING_FIRST` first, in its order, the rest in theirs (each xdist worker sorts the
    same)."""
    def rank(item: pytest.Item) -> int:
        return next((k for k, first in enumerate(WAITING_FIRST)
                     if item.nodeid.startswith(first)), len(WAITING_FIRST))

    items.sort(key=rank)


@pytest.fixture(autouse=True)
def _tag_the_processes_of_this_test(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TAG_VAR, uuid.uuid4().hex)


@pytest.fixture(autouse=True)
def _cpu_claims_of_this_test(monkeypatch: pytest.MonkeyPatch,
                             tmp_path_factory: pytest.TempPathFactory) -> None:
    monkeypatch.setenv(LOCKS_VAR, str(tmp_path_factory.mktemp("cpu-locks")))
