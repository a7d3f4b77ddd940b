"""check-bot runs every process of the bot, its probe games as its closing games, at the level
a tournament game would use: sandboxed, a bot that tries to read the organizer's files or to
reach the machine's network gets nothing, while unsandboxed (the control) the same bot does.
The bots of these tests are told apart by their folders; the sandbox tests skip where the
machine gives no sandbox (and fail under CI)."""

from __future__ import annotations

import logging
import re
import shutil
import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.botkit.check import Status, check_bot
from arena.cli.main import main
from arena.sandbox import Isolation
from tests.botkit.conftest import BOTS
from tests.processes import bot_processes
from tests.sandbox.conftest import need_cgroups, need_sandbox

pytestmark = pytest.mark.timeout(120)
INTRUDER = Path(__file__).resolve().parent / "bots" / "intruder"
SECRET = "organizer-secret-5e1f"
# in the log, a bot's output is the repr of its bytes: its newline is a backslash and an n
REPORT = re.compile(r"INTRUDER secret: (HELD|BROKEN) (.*?); network: (HELD|BROKEN) (.*?)\\n")


@pytest.fixture
def intrusion(tmp_path, monkeypatch):
    """The intruder bot in a folder of its own, the organizer's secret beside it (outside
    the bot's folder) and a port listening on the machine's loopback: (folder, listener)."""
    folder = tmp_path / "intruder"
    shutil.copytree(INTRUDER, folder, ignore=shutil.ignore_patterns("__pycache__"))
    store = tmp_path / "store"
    store.mkdir()
    (store / "league.secret").write_text(SECRET)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.setblocking(False)
    monkeypatch.setenv("TICHU_TEST_SECRET", str(store / "league.secret"))
    monkeypatch.setenv("TICHU_TEST_PORT", str(listener.getsockname()[1]))
    yield folder, listener
    listener.close()


def started_and_reports(caplog, name: str) -> tuple[list[str], list[tuple[str, ...]]]:
    """What the bot processes of entrant `name` were started as (their isolation level),
    and the intruder's report lines, from their output, as BotProcess logs them (DEBUG)."""
    started, reports = [], []
    for record in caplog.records:
        message = record.getMessage()
        if record.name != "arena.referee.process" or not message.startswith(f"{name}#"):
            continue
        level = re.search(r": started pid \d+ \((\w+)\)", message)
        if level:
            started.append(level.group(1))
        reports += REPORT.findall(message)
    return started, reports


def test_at_level_sandbox_the_random_bot_passes_every_item() -> None:
    need_sandbox()
    report = check_bot(BOTS / "random", games=1, target=300, build=False,
                       isolation=Isolation.SANDBOX)
    assert report.ok, "\n".join(report.lines())
    assert report.isolation is Isolation.SANDBOX
    assert report.lines()[1].startswith("isolation: sandbox (bubblewrap ")
    # a late exit after `end` is a warning, which a busy machine may cause
    assert all(i.status is Status.PASS or (i.name, i.status) in (
        ("build", Status.SKIP), ("end", Status.WARN)) for i in report.items), report.lines()
    assert not bot_processes(BOTS / "random")


def test_sandboxed_the_intruder_reads_no_secret_and_reaches_no_port(intrusion, caplog) -> None:
    need_sandbox()
    folder, listener = intrusion
    caplog.set_level(logging.DEBUG, logger="arena.referee.process")
    report = check_bot(folder, games=1, target=300, build=False, isolation=Isolation.SANDBOX)
    # had any of its processes got through, it would have exited 3 and failed an item
    assert report.ok, "\n".join(report.lines())
    started, reports = started_and_reports(caplog, "intruder")
    # the session of the probes, those of `reject` and `error`, two copies in the games
    assert len(started) >= 5 and set(started) == {"sandbox"}, started
    assert len(reports) == len(started), reports
    for secret, secret_got, network, network_got in reports:
        assert (secret, secret_got) == ("HELD", "ENOENT"), reports
        assert network == "HELD" and SECRET not in network_got, reports
    with pytest.raises(BlockingIOError):
        listener.accept()  # no connection ever reached the machine's port
    assert not bot_processes(folder)


def test_unsandboxed_the_same_intruder_reads_the_secret_and_connects(intrusion) -> None:
    """The control: at level none the attacks work, which shows that the bot tries them."""
    folder, listener = intrusion
    report = check_bot(folder, games=1, target=300, build=False, isolation=Isolation.NONE)
    hello = report.item("hello")
    assert hello.status is Status.FAIL and "exited with code 3" in hello.got, hello
    assert f"secret: BROKEN '{SECRET}'" in hello.output and "network: BROKEN" in hello.output, \
        hello
    listener.setblocking(True)
    listener.settimeout(5)
    conn, _ = listener.accept()
    with conn:
        conn.settimeout(5)
        assert conn.recv(64) == b"intruder"
    assert report.lines()[1].startswith("isolation: none")


def test_the_bots_own_limits_hold_in_check_bot(tmp_path) -> None:
    """A bot over the memory limit of its bot.toml is stopped, and the item says which limit."""
    need_cgroups()
    folder = tmp_path / "hog"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "hog"\nversion = "1"\nlanguage = "python"\n'
                                     'command = ["python", "bot.py"]\n\n'
                                     '[limits]\nmemory_mb = 64\n')
    (folder / "bot.py").write_text("import time\nheld = b'x' * (256 << 20)\n"
                                   "while True:\n    time.sleep(3600)\n")
    report = check_bot(folder, games=0, build=False, isolation=Isolation.SANDBOX)
    hello = report.item("hello")
    assert hello.status is Status.FAIL, report.lines()
    assert "the bot was stopped: memory limit 64 MB exceeded" in hello.got, hello
    assert not bot_processes(folder)


def test_the_cli_says_the_isolation_level_it_ran_at() -> None:
    result = CliRunner().invoke(main, ["check-bot", str(BOTS / "random"), "--games", "0",
                                       "--no-build", "--isolation", "none"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[1].startswith("isolation: none"), result.output
    need_sandbox()
    result = CliRunner().invoke(main, ["check-bot", str(BOTS / "random"), "--games", "0",
                                       "--no-build", "--isolation", "sandbox"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[1].startswith("isolation: sandbox ("), result.output
