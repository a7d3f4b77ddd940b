"""Hostile bots against the sandbox: each attack is tried for real by a bot process (the
hostile bot of tests/sandbox/bots) and must fail. The guarantee each attack tests (numbers of
issue 13, README "Security"):

| attack                 | what the bot tries                                          | guarantee |
|------------------------|-------------------------------------------------------------|-----------|
| proc_token             | another seat's TICHU_TOKEN from /proc/*/environ, cmdline    | 4 |
| list_processes         | see any process outside its sandbox                         | 3 |
| signal_referee         | send a signal to the referee                                | 3 |
| read_opponent          | read another entrant's bot.py                               | 3 |
| list_opponent          | list another entrant's folder                               | 3 |
| write_opponent         | append a line to another entrant's bot.py                   | 3 |
| read_tournament        | list the tournament folder (SQLite, records, secret)        | 3 |
| write_tournament       | write a file into the tournament folder                     | 3 |
| write_own_folder       | change its own bot.py                                       | 2 |
| create_in_own_folder   | create a file in its own folder                             | 2 |
| tcp_to_machine         | connect to a port listening on the machine's loopback       | 3 |
| tcp_to_internet        | connect to an address outside                               | 3 |
| partner_file           | read a file its partner left in /tmp or /dev/shm            | 3 |
| partner_tcp            | connect to a port its partner listens on (127.0.0.1)        | 3 |
| partner_abstract       | connect to its partner's abstract unix socket               | 3 |
| keyring                | leave a key in the kernel's per-uid keyring                 | 2, 3 |
| user_namespace         | make a user namespace (a nested sandbox)                    | 3 |
| renice                 | raise its own priority (nice -5)                            | 5 |
| open_files             | open more files than its limit                              | 5 |
| note_survives          | find, in a later game's process, a note it left in /tmp     | 2 |
| fill_disk              | write more than its disk limit                              | 5 |
| fork_bomb              | start more processes than its limit, as root                | 5 |
| memory_hog             | allocate more than its memory limit                         | 5 |
| cpu_burn               | burn more CPU time than its limit, in several processes     | 5 |
| daemon                 | setsid and double fork a daemon that outlives the game      | 6 |

The same game unsandboxed (isolation none) is the control: there the attacks that need no
privilege work, which shows that the hostile bot really tries them.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from arena.referee.match import GameSpec, Match, TimeControl, run_game
from arena.referee.record import Termination
from arena.sandbox import Isolation
from tests.processes import bot_processes
from tests.referee.conftest import ROOT, entrant
from tests.sandbox.conftest import (
    HOSTILE,
    hostile,
    need_cgroups,
    need_sandbox,
    processes_marked,
    reports,
)

pytestmark = pytest.mark.timeout(180)
TIME = TimeControl(hello=20.0, decision=5.0, bank=60.0, grace=0.2)
# the limit must stop the bot before a clock does, however busy the machine (2 s of CPU time
# may take far longer than 5 s of wall time when the CPUs are shared)
LIMIT_TIME = TimeControl(hello=20.0, decision=120.0, bank=240.0, grace=0.2)
ESCAPES = "proc_token,processes,read_folders,write_folders,network,kernel,partner,open_files"
EXPECTED = {  # attack: reports in a game of two hostile entrants (one per seat, or per folder)
    "proc_token": 4, "list_processes": 4, "signal_referee": 4, "read_opponent": 4,
    "list_opponent": 4, "write_opponent": 4, "read_tournament": 4, "write_tournament": 4,
    "write_own_folder": 4, "create_in_own_folder": 4, "tcp_to_machine": 4,
    "tcp_to_internet": 4, "partner_file": 8, "partner_tcp": 4, "partner_abstract": 4,
    "keyring": 4, "user_namespace": 4, "renice": 4, "open_files": 4,
}


def escape_game(tmp: Path, attacks: str, isolation: Isolation):
    """Two hostile entrants try every escape at once; (record, folders, secret, listener)."""
    folders = [tmp / "hostile", tmp / "victim"]
    bots = [hostile(folders[0], limits="open_files = 64"),
            hostile(folders[1], "victim", limits="open_files = 64")]
    secret = tmp / "tournament"
    secret.mkdir()
    (secret / "t.sqlite").write_text("results")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.setblocking(False)
    with pytest.MonkeyPatch.context() as patch:
        for key, value in {"ATTACKS": attacks, "FOLDERS": ":".join(map(str, folders)),
                           "SECRET_DIR": str(secret), "REFEREE_PID": str(os.getpid()),
                           "HOST_PORT": str(listener.getsockname()[1]),
                           "OPEN_FILES": "64"}.items():
            patch.setenv(f"TICHU_TEST_{key}", value)
        record = run_game(GameSpec("escape", 5, tuple(bots), target=200, time=TIME),
                          isolation=isolation)
    return record, folders, secret, listener


@pytest.fixture(scope="module")
def escapes(tmp_path_factory):
    need_sandbox()
    tmp = tmp_path_factory.mktemp("escapes")
    record, folders, secret, listener = escape_game(tmp, ESCAPES, Isolation.SANDBOX)
    found: dict[str, list[str]] = {}
    for output in record.bot_output:
        for name, lines in reports(output).items():
            found.setdefault(name, []).extend(lines)
    yield record, found, folders, secret, listener
    listener.close()


@pytest.mark.parametrize("attack", sorted(EXPECTED))
def test_a_sandboxed_bot_cannot_break_out(escapes, attack):
    record, found, _, _, _ = escapes
    assert record.termination is Termination.NORMAL, record.fault
    assert len(found.get(attack, [])) == EXPECTED[attack], (attack, record.bot_output)
    broken = [line for line in found[attack] if line.startswith("BROKEN")]
    assert not broken, f"{attack}: {broken}"


def test_what_the_hostile_bots_tried_left_every_file_and_port_as_it_was(escapes):
    record, _, folders, secret, listener = escapes
    assert record.isolation == "sandbox"
    for folder in folders:
        assert (folder / "bot.py").read_bytes() == (HOSTILE / "bot.py").read_bytes()
        assert sorted(p.name for p in folder.iterdir() if p.name != "__pycache__") == \
            ["bot.py", "bot.toml"]
    assert sorted(p.name for p in secret.iterdir()) == ["t.sqlite"]
    with pytest.raises(BlockingIOError):
        listener.accept()


def test_unsandboxed_the_same_bots_reach_each_other_and_the_machine(tmp_path):
    """The control: without a sandbox the attacks that need no privilege work."""
    record, _, _, listener = escape_game(tmp_path, "processes,read_folders,partner,network",
                                         Isolation.NONE)
    listener.close()
    found: dict[str, list[str]] = {}
    for output in record.bot_output:
        for name, lines in reports(output).items():
            found.setdefault(name, []).extend(lines)
    assert record.isolation == "none"
    for attack in ("list_processes", "signal_referee", "read_opponent", "read_tournament",
                   "tcp_to_machine", "partner_file", "partner_tcp", "partner_abstract"):
        assert any(line.startswith("BROKEN") for line in found.get(attack, [])), \
            (attack, found.get(attack))


def test_nothing_a_bot_writes_survives_into_its_next_process(tmp_path, monkeypatch):
    need_sandbox()
    bot = hostile(tmp_path / "hostile")
    opponent = entrant(ROOT / "bots" / "random")
    monkeypatch.setenv("TICHU_TEST_ATTACKS", "note,kernel")
    with Match(bot, opponent) as match:  # the hostile bot is not multi_game: fresh processes
        games = [match.play(GameSpec(f"note-{k}", 5, (bot, opponent), target=100, time=TIME),
                            last=k == 1) for k in range(2)]
    for record in games:
        assert record.termination is Termination.NORMAL, record.fault
        found = [reports(out) for out in record.bot_output[0::2]]
        assert all(len(f["note_survives"]) == 1 and f["note_survives"][0].startswith("HELD")
                   for f in found), found
        assert all(f["keyring"][0].startswith("HELD") for f in found)


@pytest.mark.parametrize("attack, limits, named", [
    ("fill_disk", "disk_mb = 8", "disk limit 8 MB reached"),
    ("fork_bomb", "processes = 32", "process limit 32 reached"),
    ("memory_hog", "memory_mb = 256", "memory limit 256 MB exceeded"),
    ("cpu_burn", "cpu_seconds = 2", "CPU time limit 2 s exceeded"),
])
def test_a_bot_over_a_limit_is_stopped_and_its_crash_names_the_limit(tmp_path, monkeypatch,
                                                                     attack, limits, named):
    need_sandbox()
    if attack != "fill_disk":
        need_cgroups()
    monkeypatch.setenv("TICHU_TEST_ATTACKS", attack)
    bot = hostile(tmp_path / "hostile", limits=limits)
    record = run_game(GameSpec(attack, 5, (entrant(ROOT / "bots" / "random"), bot), target=200,
                               time=LIMIT_TIME))
    assert record.termination is Termination.CRASH, (record.fault, record.bot_output)
    assert record.fault.seat in (1, 3) and record.winner == 0
    assert named in record.fault.message and record.fault.details["limit"] == named
    assert not bot_processes(tmp_path / "hostile"), "a process of the bot outlived its game"
    output = record.bot_output[record.fault.seat]
    if attack == "fill_disk":
        assert "fill_disk: wrote" in output
        assert int(output.split("fill_disk: wrote ")[1].split()[0]) <= 8
    if attack == "fork_bomb":
        assert int(output.split("fork_bomb: ")[1].split()[0]) <= 32


def test_a_daemon_that_left_its_session_is_gone_when_the_game_ends(tmp_path, monkeypatch):
    need_sandbox()
    mark = f"tichu-daemon-{os.getpid()}-{tmp_path.name}"
    monkeypatch.setenv("TICHU_TEST_ATTACKS", "daemon")
    monkeypatch.setenv("TICHU_TEST_MARK", mark)
    bot = hostile(tmp_path / "hostile")
    record = run_game(GameSpec("daemon", 5, (bot, entrant(ROOT / "bots" / "random")),
                               target=100, time=TIME))
    assert record.termination is Termination.NORMAL, record.fault
    assert not bot_processes(tmp_path / "hostile")
    assert not processes_marked(mark)
