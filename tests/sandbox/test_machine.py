"""What the machine gives: `arena doctor` says it and why; a machine without bubblewrap runs
bots unsandboxed with a one-line notice, records "none", and a run that demands a sandbox
refuses to start, naming what to install."""

from __future__ import annotations

import logging
import shutil

import pytest
from click.testing import CliRunner

from arena.cli.main import main
from arena.cli.output import HARNESS_FAILURE
from arena.errors import ArenaError
from arena.sandbox import Isolation, SandboxUnavailable, machine, probe, resolve
from arena.tournament.config import load_config
from arena.tournament.records import read_record
from arena.tournament.runner import run_tournament
from tests.pace import pace, play_options
from tests.sandbox.conftest import need_sandbox
from tests.tournament.conftest import copy_bot, write_config

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def no_bubblewrap(tmp_path, monkeypatch):
    """A PATH with the usual tools but no bwrap (the probe is run again, and afterwards);
    the pace of unsandboxed bots is measured before (tests.pace)."""
    pace(Isolation.NONE)
    tools = tmp_path / "tools"
    tools.mkdir()
    for name in ("setpriv", "prlimit", "sh", "true", "make", "cc"):
        found = shutil.which(name)
        if found:
            (tools / name).symlink_to(found)
    monkeypatch.setenv("PATH", str(tools))
    probe.cache_clear()
    machine._notice.cache_clear()
    yield
    probe.cache_clear()


def test_doctor_says_what_isolation_the_machine_gives_and_why():
    need_sandbox()
    result = CliRunner().invoke(main, ["doctor"])
    assert result.exit_code == 0, result.output
    first = result.output.splitlines()[0]
    assert first.startswith("isolation: sandbox (bubblewrap ")
    assert "trial sandbox:     ran" in result.output
    assert "no network but its one connection to the referee" in result.output


def test_without_bubblewrap_doctor_names_what_to_install(no_bubblewrap):
    result = CliRunner().invoke(main, ["doctor"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("isolation: none (bubblewrap is not installed")
    assert "apt-get install bubblewrap" in result.output
    assert "a child that calls setsid escapes" in result.output


def test_a_run_that_demands_a_sandbox_refuses_to_start_naming_what_to_install(
        no_bubblewrap, tmp_path):
    with pytest.raises(SandboxUnavailable, match="apt-get install bubblewrap"):
        resolve("sandbox")
    copy_bot("random", tmp_path / "random")
    copy_bot("random", tmp_path / "other", name="other")
    config = write_config(tmp_path, ["random", "other"])
    config.write_text(config.read_text().replace("[tournament]",
                                                 '[tournament]\nisolation = "sandbox"'))
    with pytest.raises(ArenaError, match="demands isolation = \"sandbox\".*bubblewrap"):
        run_tournament(load_config(config), 1)
    assert not (tmp_path / "t.sqlite").exists(), "nothing may start"
    result = CliRunner().invoke(main, ["play", str(tmp_path / "random"),
                                       str(tmp_path / "other"), "--isolation", "sandbox"])
    # the arena cannot give what was demanded: a harness failure, not a bot's (exit 4)
    assert result.exit_code == HARNESS_FAILURE and "apt-get install bubblewrap" in result.output
    result = CliRunner().invoke(main, ["check-bot", str(tmp_path / "random"),
                                       "--isolation", "sandbox"])
    assert result.exit_code == HARNESS_FAILURE and "apt-get install bubblewrap" in result.output


def test_without_a_sandbox_a_game_says_so_once_and_records_none(no_bubblewrap, tmp_path,
                                                                caplog):
    copy_bot("random", tmp_path / "random")
    caplog.set_level(logging.WARNING, logger="arena.sandbox")
    record_file = tmp_path / "game.json"
    result = CliRunner().invoke(main, ["play", str(tmp_path / "random"),
                                       str(tmp_path / "random"), "--target", "100",
                                       "--record", str(record_file),
                                       *play_options(Isolation.NONE)])
    assert result.exit_code == 0, result.output
    notices = [r.getMessage() for r in caplog.records if r.name.startswith("arena.sandbox")]
    assert len(notices) == 1 and notices[0].startswith("isolation: none (bubblewrap is not")
    assert read_record(record_file).isolation == "none"


def test_a_sandboxed_game_records_its_isolation(tmp_path):
    need_sandbox()
    copy_bot("random", tmp_path / "random")
    record_file = tmp_path / "game.json"
    result = CliRunner().invoke(main, ["play", str(tmp_path / "random"),
                                       str(tmp_path / "random"), "--target", "100",
                                       "--record", str(record_file), "--isolation", "sandbox",
                                       *play_options(Isolation.SANDBOX)])
    assert result.exit_code == 0, result.output
    assert read_record(record_file).isolation == "sandbox"
    assert resolve("auto") is Isolation.SANDBOX and resolve("none") is Isolation.NONE
