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
| interfaces             | find a network interface but its loopback                   | 3 |
| tcp_to_machine         | connect to a port listening on the machine's loopback       | 3 |
| tcp_to_outside         | connect to a port listening on another address of the machine | 3 |
| partner_file           | read a file its partner left in /tmp or /dev/shm            | 3 |
| partner_tcp            | connect to a port its partner listens on (127.0.0.1)        | 3 |
| partner_abstract       | connect to its partner's abstract unix socket               | 3 |
| partner_msg_queue, partner_semaphore, partner_shared_memory | open the System V message queue, semaphore set, shared memory its partner made | 3 |
| partner_posix_queue    | open the POSIX message queue its partner made               | 3 |
| keyring                | leave a key in the kernel's per-uid keyring                 | 2, 3 |
| user_namespace         | make a user namespace (a nested sandbox)                    | 3 |
| bpf, perf_event_open, userfaultfd, io_uring | make a BPF map, a perf event, a userfaultfd, an io_uring | 3 |
| environment            | find a variable of the referee's but TICHU_*                | 4 |
| namespaces             | share a pid, network, IPC, UTS or cgroup namespace          | 3 |
| identity               | run under the referee's uid, or hold a capability (as root) | 5 |
| renice                 | raise its own priority (nice -5)                            | 5 |
| open_files             | open more files than its limit                              | 5 |
| note_survives          | find, in a later game's process, a note it left in /tmp     | 2 |
| fill_disk              | write more than its disk limit                              | 5 |
| fork_bomb              | start more processes than its limit, as root                | 5 |
| memory_hog             | allocate more than its memory limit                         | 5 |
| cpu_burn               | burn more CPU time than its limit, in several processes     | 5 |
| daemon                 | setsid and double fork a daemon that outlives the game, and  | 6 |
|                        | its cgroups                                                 |   |

The same game unsandboxed (isolation none) is the control: there the attacks work, which
shows that the hostile bot really tries them (the seccomp ones reach the kernel, the IPC
objects are found, the referee's variables and namespaces are the bot's too).
"""

from __future__ import annotations

import os
import random
import signal
import socket
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.referee.match import GameSpec, Match, TimeControl, run_game
from arena.referee.record import GameRecord, Termination
from arena.sandbox import Isolation, probe
from arena.sandbox.cgroups import PARENT, own_cgroup
from arena.sandbox.uids import UID_BASE, UID_COUNT
from tests.pace import honest_time
from tests.processes import bot_processes
from tests.referee.conftest import ROOT, entrant
from tests.requirements import need_root, not_applicable
from tests.sandbox.conftest import (
    HOSTILE,
    hostile,
    need_cgroups,
    need_sandbox,
    outside_address,
    processes_marked,
    remove_ipc,
    reports,
)

pytestmark = pytest.mark.timeout(180)
ESCAPES = ("proc_token,processes,read_folders,write_folders,network,kernel,seccomp,partner,"
           "open_files,environment,identity,namespaces")
SECCOMP = ("bpf", "perf_event_open", "userfaultfd", "io_uring")
IPC = ("partner_msg_queue", "partner_semaphore", "partner_shared_memory",
       "partner_posix_queue")
EXPECTED = {  # attack: reports in a game of two hostile entrants (one per seat, or per folder)
    "proc_token": 4, "list_processes": 4, "signal_referee": 4, "read_opponent": 4,
    "list_opponent": 4, "write_opponent": 4, "read_tournament": 4, "write_tournament": 4,
    "write_own_folder": 4, "create_in_own_folder": 4, "interfaces": 4, "tcp_to_machine": 4,
    "tcp_to_outside": 4, "partner_file": 8, "partner_tcp": 4, "partner_abstract": 4,
    **{attack: 4 for attack in IPC}, "keyring": 4, "user_namespace": 4,
    **{attack: 4 for attack in SECCOMP}, "environment": 4, "namespaces": 4, "renice": 4,
    "open_files": 4,
}
NAMESPACES = ("pid", "net", "ipc", "uts", "cgroup")
LEAK = "ARENA_TEST_REFEREE_ONLY"  # a variable of the referee's that no sandboxed bot may get


def game_time() -> TimeControl:
    """The time control of a game about no time limit: honest limits at the pace now."""
    return honest_time(hello=20.0, decision=5.0)


def escape_time() -> TimeControl:
    """The time control of an escape game. Its bots attack before their hello: they read
    /proc of every process on the machine and try connections with 2 s timeouts, which takes
    longer the busier the machine is; a hello limit of 120 s (or what honest bots need at the
    pace now, if more) keeps the game about escapes, not about time."""
    return honest_time(hello=120.0, decision=5.0)


def limit_time() -> TimeControl:
    """A resource limit must stop the bot before a clock does, however busy the machine (1 s
    of CPU time may take far longer than 5 s of wall time when the CPUs are shared): a
    decision limit of 120 s, or what honest bots need at the pace now, if more."""
    return honest_time(hello=20.0, decision=120.0, bank=240.0)


@dataclass
class Escape:
    """A game of two hostile entrants trying escapes, and what the test gave them."""

    record: GameRecord
    found: dict[str, list[str]]
    """Each attack's report lines (HELD or BROKEN, with the detail), from the four seats."""
    folders: list[Path]
    secret: Path
    listener: socket.socket
    """Listening on the machine's loopback."""
    outside: socket.socket | None
    """Listening on another address of the machine (None: it has none)."""
    ipc_left: list[str]
    """The IPC objects of the bots found (and removed) in the machine's own namespace."""


def escape_game(tmp: Path, attacks: str, isolation: Isolation) -> Escape:
    """Two hostile entrants try every escape at once."""
    folders = [tmp / "hostile", tmp / "victim"]
    bots = [hostile(folders[0], limits="open_files = 64"),
            hostile(folders[1], "victim", limits="open_files = 64")]
    secret = tmp / "tournament"
    secret.mkdir()
    (secret / "t.sqlite").write_text("results")
    listener = listening("127.0.0.1")
    address = outside_address()
    outside = listening(address) if address else None
    ipc_key = random.randrange(0x10000000, 0x7FFF0000)
    env = {"ATTACKS": attacks, "FOLDERS": ":".join(map(str, folders)),
           "SECRET_DIR": str(secret), "REFEREE_PID": str(os.getpid()),
           "REFEREE_UID": str(os.getuid()), "HOST_PORT": str(listener.getsockname()[1]),
           "NAMESPACES": ",".join(f"{n}={os.readlink(f'/proc/self/ns/{n}')}"
                                  for n in NAMESPACES),
           "IPC_KEY": str(ipc_key), "PARTNER_PORTS": ",".join(map(str, free_ports(4))),
           "OPEN_FILES": "64"}
    if outside is not None:
        env["OUTSIDE"] = "{}:{}".format(*outside.getsockname())
    with pytest.MonkeyPatch.context() as patch:
        for key, value in env.items():
            patch.setenv(f"TICHU_TEST_{key}", value)
        patch.setenv(LEAK, "the referee's own")
        try:
            record = run_game(GameSpec("escape", 5, tuple(bots), target=200, time=escape_time()),
                              isolation=isolation)
        finally:
            left = remove_ipc(ipc_key)
    found: dict[str, list[str]] = {}
    for output in record.bot_output:
        for name, lines in reports(output).items():
            found.setdefault(name, []).extend(lines)
    return Escape(record, found, folders, secret, listener, outside, left)


def free_ports(count: int) -> list[int]:
    """`count` tcp ports of the loopback free a moment ago (the kernel's choice): unsandboxed,
    the bots of games at once (another suite beside this one) share the machine's ports."""
    sockets = [listening("127.0.0.1") for _ in range(count)]
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def listening(address: str) -> socket.socket:
    listener = socket.socket()
    listener.bind((address, 0))
    listener.listen(8)
    listener.setblocking(False)
    return listener


@pytest.fixture(scope="module")
def escapes(tmp_path_factory):
    need_sandbox()
    escape = escape_game(tmp_path_factory.mktemp("escapes"), ESCAPES, Isolation.SANDBOX)
    yield escape
    escape.listener.close()
    if escape.outside is not None:
        escape.outside.close()


@pytest.mark.parametrize("attack", sorted(EXPECTED))
def test_a_sandboxed_bot_cannot_break_out(escapes, attack):
    if attack == "tcp_to_outside" and escapes.outside is None:
        not_applicable("this machine has no address but its loopback: no outside to reach")
    if attack in SECCOMP and not probe().seccomp:
        not_applicable("the seccomp filter knows the system calls of x86-64 and AArch64 only")
    record, found = escapes.record, escapes.found
    assert record.termination is Termination.NORMAL, record.fault
    assert len(found.get(attack, [])) == EXPECTED[attack], (attack, record.bot_output)
    broken = [line for line in found[attack] if line.startswith("BROKEN")]
    assert not broken, f"{attack}: {broken}"


def test_what_the_hostile_bots_tried_left_every_file_and_port_as_it_was(escapes):
    assert escapes.record.isolation == "sandbox"
    for folder in escapes.folders:
        assert (folder / "bot.py").read_bytes() == (HOSTILE / "bot.py").read_bytes()
        assert sorted(p.name for p in folder.iterdir() if p.name != "__pycache__") == \
            ["bot.py", "bot.toml"]
    assert sorted(p.name for p in escapes.secret.iterdir()) == ["t.sqlite"]
    for listener in filter(None, (escapes.listener, escapes.outside)):
        with pytest.raises(BlockingIOError):
            listener.accept()


def test_the_seccomp_filter_refuses_bpf_perf_event_open_userfaultfd_and_io_uring(escapes):
    """EPERM for the real call and for one with bad arguments: the kernel would have answered
    those with EINVAL or EBADF, so the filter refused them before the kernel looked."""
    if not probe().seccomp:
        not_applicable("the seccomp filter knows the system calls of x86-64 and AArch64 only")
    for attack in SECCOMP:
        probes = 3 if attack == "io_uring" else 1
        held = "HELD EPERM; with bad arguments " + ", ".join(["EPERM"] * probes)
        assert escapes.found[attack] == [held] * 4, (attack, escapes.found[attack])


def test_partners_share_no_ipc_object(escapes):
    """Each bot makes a System V message queue, semaphore set and shared memory segment (at
    keys its partner knows, open to every user) and a POSIX message queue: its partner finds
    none of them, and none was made in the machine's own IPC namespace."""
    for attack in IPC:
        assert escapes.found[attack] == ["HELD ENOENT"] * 4, (attack, escapes.found[attack])
    assert escapes.ipc_left == []
    made = [line for out in escapes.record.bot_output for line in out.splitlines()
            if "cannot make" in line]
    assert made == [], "the bots could not even make the objects their partners look for"


def test_a_sandboxed_bot_has_no_network_but_its_loopback(escapes):
    assert escapes.found["interfaces"] == ["HELD network interfaces ['lo']"] * 4
    if escapes.outside is None:
        not_applicable("this machine has no address but its loopback: no outside to reach")
    assert escapes.found["tcp_to_outside"] == ["HELD ENETUNREACH"] * 4  # no route at all


def test_a_sandboxed_bots_environment_holds_only_its_own_variables_and_tichu_ones(escapes):
    assert escapes.found["environment"] == ["HELD 0 other variables: "] * 4


def test_each_sandboxed_bot_process_has_namespaces_of_its_own(escapes):
    """Pid, network, IPC, UTS and cgroup namespaces: none the referee's, none another's."""
    lines = escapes.found["namespaces"]
    assert len(lines) == 4 and all(line.startswith("HELD shares [] ") for line in lines), lines
    seen = [dict(part.split("=", 1) for part in line.split("; ", 1)[1].split())
            for line in lines]
    for name in NAMESPACES:
        assert len({process[name] for process in seen}) == 4, (name, seen)


def test_as_root_each_sandboxed_bot_process_runs_under_a_uid_of_its_own_without_capability(
        escapes):
    need_root("a uid per bot process")
    assert probe().own_uids, probe().summary()
    lines = escapes.found["identity"]
    assert len(lines) == 4 and all(line.startswith("HELD ") for line in lines), lines
    assert all(line.endswith("CapInh=0 CapPrm=0 CapEff=0 CapBnd=0 CapAmb=0") for line in lines)
    uids = [int(line.split()[2]) for line in lines]
    assert len(set(uids)) == 4, uids
    assert all(UID_BASE <= uid < UID_BASE + UID_COUNT for uid in uids), uids


def test_unsandboxed_the_same_bots_reach_each_other_and_the_machine(tmp_path):
    """The control: without a sandbox the attacks work."""
    escape = escape_game(tmp_path, "processes,read_folders,partner,network,seccomp,"
                                   "environment,identity,namespaces", Isolation.NONE)
    escape.listener.close()
    if escape.outside is not None:
        escape.outside.close()
    found = escape.found
    assert escape.record.isolation == "none"
    assert escape.record.termination is Termination.NORMAL, escape.record.fault
    for attack in ("list_processes", "signal_referee", "read_opponent", "read_tournament",
                   "tcp_to_machine", "partner_file", "partner_tcp", "partner_abstract",
                   *IPC, *SECCOMP, "environment", "identity", "namespaces",
                   *(["tcp_to_outside"] if escape.outside else [])):
        assert any(line.startswith("BROKEN") for line in found.get(attack, [])), \
            (attack, found.get(attack))
    assert all(LEAK in line for line in found["environment"]), found["environment"]
    machine = [name for _, name in socket.if_nameindex()]
    assert found["interfaces"] == [f"{'HELD' if machine == ['lo'] else 'BROKEN'} network "
                                   f"interfaces {machine}"] * 4


def test_nothing_a_bot_writes_survives_into_its_next_process(tmp_path, monkeypatch):
    need_sandbox()
    bot = hostile(tmp_path / "hostile")
    opponent = entrant(ROOT / "bots" / "random")
    monkeypatch.setenv("TICHU_TEST_ATTACKS", "note,kernel")
    with Match(bot, opponent) as match:  # the hostile bot is not multi_game: fresh processes
        games = [match.play(GameSpec(f"note-{k}", 5, (bot, opponent), target=100, time=game_time()),
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
    ("cpu_burn", "cpu_seconds = 1", "CPU time limit 1 s exceeded"),
])
def test_a_bot_over_a_limit_is_stopped_and_its_crash_names_the_limit(tmp_path, monkeypatch,
                                                                     attack, limits, named):
    need_sandbox()
    if attack != "fill_disk":
        need_cgroups()
    monkeypatch.setenv("TICHU_TEST_ATTACKS", attack)
    bot = hostile(tmp_path / "hostile", limits=limits)
    record = run_game(GameSpec(attack, 5, (entrant(ROOT / "bots" / "random"), bot), target=200,
                               time=limit_time()))
    assert record.termination is Termination.CRASH, (record.fault, record.bot_output)
    assert record.fault.seat in (1, 3) and record.winner == 0
    assert named in record.fault.message and record.fault.details["limit"] == named
    assert not bot_processes(tmp_path / "hostile"), "a process of the bot outlived its game"
    output = record.bot_output[record.fault.seat]
    if attack == "fill_disk":
        assert "fill_disk: wrote" in output
        assert int(output.split("fill_disk: wrote ")[-1].split()[0]) <= 8
    if attack == "fork_bomb":  # its last line counts the children it had made
        assert int(output.split("fork_bomb: ")[-1].split()[0]) <= 32


def test_a_daemon_that_left_its_session_is_gone_when_the_game_ends(tmp_path, monkeypatch):
    need_sandbox()
    mark = f"tichu-daemon-{os.getpid()}-{tmp_path.name}"
    monkeypatch.setenv("TICHU_TEST_ATTACKS", "daemon")
    monkeypatch.setenv("TICHU_TEST_MARK", mark)
    bot = hostile(tmp_path / "hostile")
    record = run_game(GameSpec("daemon", 5, (bot, entrant(ROOT / "bots" / "random")),
                               target=100, time=game_time()))
    assert record.termination is Termination.NORMAL, record.fault
    assert not bot_processes(tmp_path / "hostile")
    assert not processes_marked(mark)


def test_unsandboxed_a_daemon_that_left_its_session_outlives_the_game(tmp_path, monkeypatch):
    """The control of the daemon attack: unsandboxed, only the bot's process group is killed."""
    mark = f"tichu-daemon-{os.getpid()}-{tmp_path.name}"
    monkeypatch.setenv("TICHU_TEST_ATTACKS", "daemon")
    monkeypatch.setenv("TICHU_TEST_MARK", mark)
    bot = hostile(tmp_path / "hostile")
    try:
        record = run_game(GameSpec("daemon", 5, (bot, entrant(ROOT / "bots" / "random")),
                                   target=100, time=game_time()), isolation=Isolation.NONE)
        assert record.termination is Termination.NORMAL, record.fault
        assert processes_marked(mark), "the daemon did not outlive its game"
    finally:
        for pid in processes_marked(mark):
            os.kill(pid, signal.SIGKILL)


PF_EXITING = 0x4  # a process's flag from the moment it starts to exit (a SIGKILL taken)


def _started(pid: int) -> int | None:
    """When process `pid` started (clock ticks since boot), or None if it has ended or is
    ending (none; a zombie, whose exit status only is left for its parent; or exiting, which
    nothing can undo): a pid and its start tell a process apart from a later one that reuses
    the pid."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    fields = stat[stat.rindex(b")") + 2:].split()
    if fields[0] in (b"Z", b"X") or int(fields[6]) & PF_EXITING:
        return None
    return int(fields[19])


def test_a_bots_cgroups_hold_all_its_processes_and_are_emptied_and_removed_at_its_end(
        tmp_path, monkeypatch):
    """Four bot processes that play on (multi_game) after a first game, one of them having
    left a daemon (setsid, double fork): each process has a cgroup per controller, the daemon
    is in its bot's, and once the match is over every one of those processes is gone and every
    cgroup removed."""
    need_cgroups()
    controllers = probe().limit_cgroups
    parents = [own_cgroup(controller) / PARENT for controller in controllers]
    ours = f"{os.getpid()}-"
    before = {parent: set(os.listdir(parent)) if parent.is_dir() else set()
              for parent in parents}
    mark = f"tichu-daemon-{os.getpid()}-{tmp_path.name}"
    for key, value in {"ATTACKS": "daemon", "MARK": mark, "MULTI_GAME": "1"}.items():
        monkeypatch.setenv(f"TICHU_TEST_{key}", value)
    bot, opponent = hostile(tmp_path / "hostile"), entrant(ROOT / "bots" / "random")
    with Match(bot, opponent) as match:
        record = match.play(GameSpec("cgroups", 5, (bot, opponent), target=100, time=game_time()),
                            last=False)
        assert record.termination is Termination.NORMAL, record.fault
        made = sorted(parent / name for parent in parents for name in os.listdir(parent)
                      if name.startswith(ours) and name not in before[parent])
        held = {group: [int(p) for p in (group / "cgroup.procs").read_text().split()]
                for group in made}
        daemons = processes_marked(mark)
        seen = {(pid, _started(pid)) for pids in held.values() for pid in pids}
    assert len(made) == 4 * len(controllers), made  # a cgroup per process and controller
    assert all(held.values()), held
    assert len(daemons) == 2 and all(any(d in pids for pids in held.values()) for d in daemons)
    assert [group for group in made if group.exists()] == []
    alive = [pid for pid, started in seen if _started(pid) == started]
    assert alive == [], [Path(f"/proc/{pid}/stat").read_text() for pid in alive]
    assert not processes_marked(mark) and not bot_processes(tmp_path / "hostile")
