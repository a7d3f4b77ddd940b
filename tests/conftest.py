"""What every test shares: a tag in the environment of everything a test starts, and CPU
claims of its own.

Bot processes inherit the referee's environment (a sandbox passes on every `TICHU_*`
variable), so `tests.processes.bot_processes` counts only the processes of the running test,
never those of another test, another test run or an arena run of the same user beside it.
Likewise each test claims CPUs in a lock folder of its own (`ARENA_CPU_LOCKS`), so that an
arena run beside the tests cannot leave a test's workers unpinned.
"""

from __future__ import annotations

import uuid

import pytest

from arena.referee.placement import LOCKS_VAR
from tests.processes import TAG_VAR


@pytest.fixture(autouse=True)
def _tag_the_processes_of_this_test(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TAG_VAR, uuid.uuid4().hex)


@pytest.fixture(autouse=True)
def _cpu_claims_of_this_test(monkeypatch: pytest.MonkeyPatch,
                             tmp_path_factory: pytest.TempPathFactory) -> None:
    monkeypatch.setenv(LOCKS_VAR, str(tmp_path_factory.mktemp("cpu-locks")))
