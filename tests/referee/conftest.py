"""Shared helpers of the referee tests: entrants from bot folders, process checks. (The time
control of a test about no time limit is `tests.pace.honest_time()`.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.referee.manifest import folder_hash, load_manifest
from arena.referee.match import Entrant

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent


def entrant(folder: Path) -> Entrant:
    return Entrant(load_manifest(folder), folder_hash(folder))


@pytest.fixture
def random_bot() -> Entrant:
    return entrant(ROOT / "bots" / "random")


@pytest.fixture
def heuristic_bot() -> Entrant:
    return entrant(ROOT / "bots" / "heuristic")


@pytest.fixture
def faulty_bot() -> Entrant:
    return entrant(HERE / "bots" / "faulty")


@pytest.fixture
def spy_bot() -> Entrant:
    return entrant(HERE / "bots" / "spy")


@pytest.fixture
def trivial_bot() -> Entrant:
    return entrant(ROOT / "arena" / "cli" / "benchbots" / "trivial")
