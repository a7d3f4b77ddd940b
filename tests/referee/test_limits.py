"""Resource limits per bot: exceeding one is a recorded crash, never a hang; bad limits in a
manifest are named precisely."""

from __future__ import annotations

import shutil

import pytest

from arena.errors import ConfigError
from arena.referee.manifest import load_manifest
from arena.referee.match import Entrant, GameSpec, run_game
from arena.referee.record import Termination
from arena.sandbox import DEFAULT_LIMITS, ResourceLimits
from tests.pace import honest_time
from tests.processes import bot_processes
from tests.referee.conftest import HERE

pytestmark = pytest.mark.timeout(120)
LIMITED = """
[limits]
memory_mb = 512
cpu_seconds = 1
open_files = 64
"""


def limited_faulty(tmp_path) -> Entrant:
    folder = tmp_path / "faulty"
    shutil.copytree(HERE / "bots" / "faulty", folder)
    with open(folder / "bot.toml", "a") as manifest:
        manifest.write(LIMITED)
    return Entrant(load_manifest(folder), "limited")


@pytest.mark.parametrize("fault", ["memory_hog", "cpu_burn", "fd_hog"])
def test_exceeding_a_resource_limit_is_a_recorded_crash(monkeypatch, tmp_path, random_bot, fault):
    monkeypatch.setenv("TICHU_TEST_FAULT", fault)
    monkeypatch.setenv("TICHU_TEST_FAULT_AT", "2")
    bot = limited_faulty(tmp_path)
    time = honest_time(decision=20.0)  # the limit stops the bot, not a clock
    record = run_game(GameSpec("limits", 1, (random_bot, bot), time=time))
    assert record.termination is Termination.CRASH, record.fault
    assert record.fault.seat in (1, 3) and record.winner == 0
    assert record.fault.details["exit_code"] != 0
    assert not bot_processes(tmp_path / "faulty")


def test_manifest_limits_only_lower_the_ceiling_and_zero_means_the_ceilings(tmp_path):
    shutil.copytree(HERE / "bots" / "faulty", tmp_path / "bot")
    with open(tmp_path / "bot" / "bot.toml", "a") as manifest:
        manifest.write("[limits]\nmemory_mb = 0\ncpu_seconds = 30\nprocesses = 100000\n")
    manifest = load_manifest(tmp_path / "bot")
    limits = manifest.limits
    assert limits.cpu_seconds == 30, "a manifest may lower a limit"
    assert limits.processes == DEFAULT_LIMITS.processes, "but never raise one"
    assert limits.memory_mb == DEFAULT_LIMITS.memory_mb, "0 asks for no limit: the ceiling's"
    assert limits.open_files == DEFAULT_LIMITS.open_files, "an omitted limit is the ceiling's"
    higher = manifest.with_ceiling(ResourceLimits(memory_mb=8192, processes=None))
    assert higher.limits.memory_mb == 8192 and higher.limits.processes == 100000
    assert higher.limits.cpu_seconds == 30


@pytest.mark.parametrize("table, problem", [
    ("[limits]\nmemory = 5\n", "unknown key 'limits.memory'"),
    ("[limits]\ncpu_seconds = -1\n", "'limits.cpu_seconds' must be a whole number >= 0"),
    ("[limits]\nopen_files = \"many\"\n", "'limits.open_files' must be a whole number"),
])
def test_bad_limits_name_the_file_key_and_problem(tmp_path, table, problem):
    shutil.copytree(HERE / "bots" / "faulty", tmp_path / "bot")
    with open(tmp_path / "bot" / "bot.toml", "a") as manifest:
        manifest.write(table)
    with pytest.raises(ConfigError, match="bot.toml") as error:
        load_manifest(tmp_path / "bot")
    assert problem in str(error.value)


def test_a_manifest_version_of_unbounded_length_is_refused(tmp_path):
    shutil.copytree(HERE / "bots" / "faulty", tmp_path / "bot")
    manifest = tmp_path / "bot" / "bot.toml"
    manifest.write_text(manifest.read_text().replace('version = "1"', f'version = "{"9" * 5000}"'))
    with pytest.raises(ConfigError, match="'version' must be at most 64 characters, not 5000"):
        load_manifest(tmp_path / "bot")
