"""Hostile builds against the build sandbox (`arena.sandbox.run_build`): each attack is a
real build command in a snapshot folder of its own, and must fail at level sandbox. Where an
attack needs no privilege, the same build at level none is the control, showing that it
really tries (level none does not confine).

| attack                  | what the build tries                                              |
|-------------------------|-------------------------------------------------------------------|
| read_store, list_beside | read the tournament store in the folder beside its snapshot       |
| root_home               | look into the organizer's home (/root)                            |
| write_sibling, host_tmp | write another bot's folder, leave a file in the machine's /tmp    |
| tcp_to_machine          | connect to a port listening on the machine's 127.0.0.1            |
| daemon                  | setsid and double fork a daemon that outlives the build           |
| forever                 | never end                                                         |
| fork_bomb               | start 10,000 processes                                            |
| fill_disk               | write 10 GB (zeros, preallocated, sparse, /tmp, folder and /tmp)  |
| flood                   | print 100 MB                                                      |
| cpu_burn, memory_hog    | more CPU time or memory than its limits                           |

Without root the build sandbox is made by bubblewrap in a user namespace: the read, network
and daemon attacks run again there, as `nobody`.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from arena.referee.manifest import load_manifest
from arena.sandbox import (
                           BuildLimits,
                           BuildResult,
                           Isolation,
                           find_toolchains,
                           jail,
                           probe,
                           run_build,
)
from arena.sandbox.tree import tree_bytes
from tests.processes import bot_processes
from tests.requirements import SETUP, missing, need_programs, need_root
from tests.sandbox.conftest import (
    NOBODY,
    ROOT,
    as_nobody,
    need_cgroups,
    need_sandbox,
    processes_marked,
)

pytestmark = pytest.mark.timeout(180)
LIMITS = BuildLimits(wall_seconds=120)
SECRET = "the store's secret: 5f0c2b1e"
MB = 1024 * 1024

ATTEMPT = """
import json, os, socket, sys, time

def attempt(name, action):
    try:
        got = action()
    except OSError as exc:
        print(f"ATTACK {name}: HELD {exc.strerror}", flush=True)
    else:
        print(f"ATTACK {name}: BROKEN {got!r:.100}", flush=True)

def connect(port):
    with socket.create_connection(("127.0.0.1", int(port)), timeout=5):
        return f"connected to {port}"

"""
SNOOP = ATTEMPT + """
store, hidden, port = sys.argv[1:4]
attempt("read_store", lambda: open(store).read())
attempt("list_beside", lambda: sorted(os.listdir(os.path.dirname(os.getcwd()))))
attempt("root_home", lambda: os.stat(hidden) and hidden)
attempt("tcp_to_machine", lambda: connect(port))
print("ROOT_LISTING", json.dumps(sorted(os.listdir("/root")) if os.path.isdir("/root") else []))
"""
WRITE = ATTEMPT + """
sibling, host_file = sys.argv[1:3]

def append(path):
    with open(path, "a") as file:
        file.write("written by a build\\n")
    return path

attempt("write_sibling", lambda: append(os.path.join(sibling, "bot.py")))
attempt("create_in_sibling", lambda: append(os.path.join(sibling, "new.py")))
attempt("host_tmp", lambda: append(host_file))
"""
DAEMON = """
import os, sys, time
mark = sys.argv[1]
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        beat = "while True:\\n open('heartbeat', 'a').write('x')\\n __import__('time').sleep(0.05)"
        os.execv(sys.executable, [sys.executable, "-c", beat, mark])
    os._exit(0)
# its first beat written, not only the file created: open() makes the file before the write
while not os.path.exists("heartbeat") or os.path.getsize("heartbeat") == 0:
    time.sleep(0.01)
print("the daemon is beating", flush=True)
"""
FOREVER = """
import os, sys, time
if os.fork() == 0:
    os.setsid()
    time.sleep(100000)
time.sleep(100000)
"""
FORK_BOMB = """
import os, sys, time
started = 0
for _ in range(10000):
    try:
        pid = os.fork()
    except OSError as exc:
        print(f"fork_bomb: {started} started, then {exc.strerror}", flush=True)
        break
    if pid == 0:
        time.sleep(100000)
        os._exit(0)
    started += 1
time.sleep(100000)
"""
FILL = {  # each writes up to 10 GB (sparse: makes files of 10 GB that take no disk)
    "zeros_dd": ["sh", "-c", "i=0; while [ $i -lt 160 ]; do "
                 "dd if=/dev/zero of=f$i bs=1M count=64 2>/dev/null; i=$((i+1)); done"],
    "zeros_python": [sys.executable, "-c", "chunk = bytes(1 << 20)\n"
                     "for i in range(160):\n with open(f'f{i}', 'wb') as f:\n"
                     "  for _ in range(64): f.write(chunk)"],
    "one_big_file": ["sh", "-c", "dd if=/dev/zero of=big bs=1M count=10240; sleep 100000"],
    "preallocated": [sys.executable, "-c", "import os\nfor i in range(160):\n"
                     " fd = os.open(f'f{i}', os.O_CREAT | os.O_WRONLY)\n"
                     " os.posix_fallocate(fd, 0, 64 << 20)\n os.close(fd)\n"
                     "import time; time.sleep(100000)"],
    "sparse": [sys.executable, "-c", "import os\nfor i in range(160):\n"
               " with open(f'f{i}', 'wb') as f: f.truncate(64 << 20)\n"
               "import time; time.sleep(100000)"],
    "tmp": ["sh", "-c", "dd if=/dev/zero of=/tmp/big bs=1M count=10240; sleep 100000"],
    "folder_and_tmp": ["sh", "-c", "dd if=/dev/zero of=/tmp/half bs=1M count=40; "
                       "dd if=/dev/zero of=half bs=1M count=40; sleep 100000"],
}
FLOOD = """
import sys
line = b"x" * 1023 + b"\\n"
block = line * 1024
for _ in range(100):
    sys.stdout.buffer.write(block)
sys.stdout.buffer.write(b"THE END\\n")
"""
CPU_BURN = """
import os
for _ in range(2):
    if os.fork() == 0:
        break
while True:
    pass
"""
MEMORY_HOG = """
import time
hog = []
while True:
    hog.append(bytearray(16 << 20))
    hog[-1][::4096] = b"x" * len(hog[-1][::4096])
"""


def snapshot(tmp_path: Path, script: str = "", name: str = "bot") -> Path:
    """A bot folder (the arena's copy) holding `script` as build.py, beside a store."""
    folder = tmp_path / name
    folder.mkdir()
    (folder / "build.py").write_text(textwrap.dedent(script))
    store = tmp_path / "store.sqlite"
    if not store.exists():
        store.write_text(SECRET)
    return folder


def python_build(level: Isolation, folder: Path, *args: object,
                 limits: BuildLimits = LIMITS, network: bool = False) -> BuildResult:
    return run_build(level, folder, [sys.executable, "build.py", *map(str, args)], limits,
                     network)


def attacks(output: str) -> dict[str, str]:
    """A build's report by attack: 'HELD ...' or 'BROKEN ...'."""
    found = {}
    for line in output.splitlines():
        if line.startswith("ATTACK "):
            name, _, outcome = line[len("ATTACK "):].partition(": ")
            found[name] = outcome
    return found


@pytest.fixture
def listener():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.setblocking(False)
    yield server
    server.close()


def hidden_in_root() -> Path | None:
    """An entry of /root that no runtime a sandbox shows lies in (None if there is none)."""
    shown = [p for p in [*jail.runtime_paths(sys.executable, Path("/nowhere")),
                         *find_toolchains(Path("/")).folders()]
             if Path("/root") in p.parents]
    try:
        names = sorted(os.listdir("/root"))
    except OSError:
        return None
    for name in names:
        path = Path("/root", name)
        if not any(path == p or path in p.parents for p in shown):
            return path
    return None


def owned_by_caller(folder: Path) -> list[str]:
    """The entries of `folder` (itself included) not owned by this process's uid and gid."""
    wrong = []
    for path in [folder, *folder.rglob("*")]:
        st = path.lstat()
        if (st.st_uid, st.st_gid) != (os.getuid(), os.getgid()):
            wrong.append(f"{path} {st.st_uid}:{st.st_gid}")
    return wrong


def test_a_build_cannot_read_the_store_beside_its_folder_root_s_home_or_the_network(
        tmp_path, listener):
    need_sandbox()
    folder = snapshot(tmp_path, SNOOP)
    hidden = hidden_in_root() or Path("/root/.none")
    port = listener.getsockname()[1]
    result = python_build(Isolation.SANDBOX, folder, tmp_path / "store.sqlite", hidden, port)
    assert result.ok, (result.reason(), result.output)
    found = attacks(result.output)
    assert found.keys() == {"read_store", "list_beside", "root_home", "tcp_to_machine"}
    for name in ("read_store", "root_home", "tcp_to_machine"):
        assert found[name].startswith("HELD"), (name, found[name])
    assert found["list_beside"] == "BROKEN ['bot']", "only the folder itself is beside it"
    listing = json.loads(result.output.split("ROOT_LISTING ")[1].splitlines()[0])

    runtime = {p.relative_to("/root").parts[0] for p in
               [*jail.runtime_paths(sys.executable, folder), *find_toolchains(folder).folders()]
               if Path("/root") in p.parents}  # (the toolchains: tests/sandbox/test_toolchains.py)
    assert set(listing) <= runtime, f"/root shows more than the runtime: {listing}"
    with pytest.raises(BlockingIOError):
        listener.accept()
    assert owned_by_caller(folder) == []


def test_unconfined_the_same_build_reads_the_store_and_connects(tmp_path, listener):
    """The control: at level none the build reads the store and reaches the listener."""
    folder = snapshot(tmp_path, SNOOP)
    hidden = hidden_in_root()
    port = listener.getsockname()[1]
    result = python_build(Isolation.NONE, folder, tmp_path / "store.sqlite",
                          hidden or "/root/.none", port)
    found = attacks(result.output)
    assert found["read_store"] == f"BROKEN {SECRET!r}"
    assert "store.sqlite" in found["list_beside"]
    assert found["tcp_to_machine"].startswith("BROKEN")
    if hidden is not None and os.geteuid() == 0:
        assert found["root_home"].startswith("BROKEN")
    listener.accept()[0].close()


def test_with_the_network_a_build_connects_but_still_sees_no_file_of_the_machine(
        tmp_path, listener):
    need_sandbox()
    folder = snapshot(tmp_path, SNOOP + "print('RESOLV', os.path.exists('/etc/resolv.conf'))")
    port = listener.getsockname()[1]
    result = python_build(Isolation.SANDBOX, folder, tmp_path / "store.sqlite",
                          hidden_in_root() or "/root/.none", port, network=True)
    assert result.ok, (result.reason(), result.output)
    found = attacks(result.output)
    assert found["tcp_to_machine"] == f"BROKEN 'connected to {port}'"
    assert found["read_store"].startswith("HELD") and found["root_home"].startswith("HELD")
    assert found["list_beside"] == "BROKEN ['bot']"
    assert f"RESOLV {os.path.exists('/etc/resolv.conf')}" in result.output
    listener.accept()[0].close()


@pytest.mark.parametrize("level", [Isolation.SANDBOX, Isolation.NONE])
def test_a_build_writes_nothing_outside_its_folder(tmp_path, level):
    if level is Isolation.SANDBOX:
        need_sandbox()
    folder = snapshot(tmp_path, WRITE)
    sibling = tmp_path / "other"
    sibling.mkdir()
    (sibling / "bot.py").write_text("print('other')\n")
    host_file = Path(tempfile.gettempdir(), f"tichu-build-{uuid.uuid4().hex}")
    try:
        result = python_build(level, folder, sibling, host_file)
        found = attacks(result.output)
        written = host_file.exists()
    finally:
        host_file.unlink(missing_ok=True)
    if level is Isolation.NONE:  # the control
        assert found["write_sibling"].startswith("BROKEN") and written
        return
    assert result.ok, (result.reason(), result.output)
    assert found["write_sibling"].startswith("HELD"), found
    assert found["create_in_sibling"].startswith("HELD"), found
    assert not written, "the build left a file in the machine's /tmp"
    assert sorted(p.name for p in sibling.iterdir()) == ["bot.py"]
    assert (sibling / "bot.py").read_text() == "print('other')\n"


@pytest.mark.parametrize("level", [Isolation.SANDBOX, Isolation.NONE])
def test_a_daemon_that_left_its_session_does_not_outlive_the_build(tmp_path, level):
    if level is Isolation.SANDBOX:
        need_sandbox()
    mark = f"tichu-build-daemon-{uuid.uuid4().hex}"
    folder = snapshot(tmp_path, DAEMON)
    result = python_build(level, folder, mark)
    try:
        assert result.ok, (result.reason(), result.output)
        assert "the daemon is beating" in result.output
        beat = folder / "heartbeat"
        size = beat.stat().st_size
        time.sleep(1.0)
        grown = beat.stat().st_size > size
        left = processes_marked(mark)
        if level is Isolation.NONE:  # the control: it escaped the process group's kill
            assert grown and left
            return
        assert not grown, "the daemon still writes after the build"
        assert not left, f"processes of the build are left: {left}"
        assert not bot_processes(folder)
        assert owned_by_caller(folder) == []
    finally:
        _kill(processes_marked(mark))


@pytest.mark.parametrize("level", [Isolation.SANDBOX, Isolation.NONE])
def test_a_build_that_never_ends_is_killed_at_its_wall_time_limit(tmp_path, level):
    if level is Isolation.SANDBOX:
        need_sandbox()
    folder = snapshot(tmp_path, FOREVER)
    mark = f"tichu-build-forever-{uuid.uuid4().hex}"
    try:
        result = python_build(level, folder, mark, limits=BuildLimits(wall_seconds=3))
        assert result.returncode is None and not result.ok
        assert result.exceeded == "wall time limit 3 s exceeded"
        assert result.reason() == "wall time limit 3 s exceeded"
        if level is Isolation.SANDBOX:  # at level none its setsid child escapes
            assert not processes_marked(mark)
    finally:
        _kill(processes_marked(mark))


def test_a_fork_bomb_is_stopped_at_the_process_limit_and_leaves_nothing(tmp_path):
    need_sandbox()
    folder = snapshot(tmp_path, FORK_BOMB)
    mark = f"tichu-build-bomb-{uuid.uuid4().hex}"
    result = python_build(Isolation.SANDBOX, folder, mark,
                          limits=BuildLimits(wall_seconds=60, processes=64))
    assert not result.ok and result.returncode is None
    if len(probe().limit_cgroups) == 3:
        assert result.exceeded == "process limit 64 reached"
    else:  # RLIMIT_NPROC refuses the forks; the build then sleeps until its wall time
        assert result.exceeded == "wall time limit 60 s exceeded"
    if "fork_bomb: " in result.output:
        assert int(result.output.split("fork_bomb: ")[1].split()[0]) <= 64
    assert not processes_marked(mark)
    assert owned_by_caller(folder) == []


@pytest.mark.parametrize("attack", sorted(FILL))
def test_a_build_that_writes_10_gb_is_stopped_at_the_disk_limit(tmp_path, attack):
    need_sandbox()
    folder = snapshot(tmp_path)
    before = tree_bytes(folder)
    result = run_build(Isolation.SANDBOX, folder, FILL[attack],
                       BuildLimits(wall_seconds=120, disk_mb=64))
    grown = tree_bytes(folder) - before
    assert result.exceeded == "disk limit 64 MB reached", (result.reason(), result.output)
    assert result.returncode is None and not result.ok
    print(f"{attack}: the folder grew by {grown / MB:.0f} MB")
    if attack != "sparse":  # it overshoots by what is written between two looks
        assert grown <= 64 * MB + 1024 * MB, f"{grown / MB:.0f} MB"
    assert owned_by_caller(folder) == []


def test_a_build_cannot_preallocate_disk_without_writing_it(tmp_path):
    """fallocate(2) is refused as unsupported (posix_fallocate then writes, as above)."""
    need_sandbox()
    need_programs("fallocate", what="util-linux")
    folder = snapshot(tmp_path)
    result = run_build(Isolation.SANDBOX, folder, ["fallocate", "-l", "64M", "big"],
                       BuildLimits(wall_seconds=120, disk_mb=64))
    assert result.returncode == 1 and "not supported" in result.output, result.output
    assert not (folder / "big").exists() or (folder / "big").stat().st_blocks == 0


def test_unconfined_a_single_file_is_still_bounded_by_the_disk_limit(tmp_path):
    """Level none keeps RLIMIT_FSIZE and the watcher (it bounds nothing else)."""
    folder = snapshot(tmp_path)
    result = run_build(Isolation.NONE, folder, FILL["one_big_file"],
                       BuildLimits(wall_seconds=120, disk_mb=64))
    assert result.exceeded == "disk limit 64 MB reached", (result.reason(), result.output)
    assert (folder / "big").stat().st_size <= 64 * MB


@pytest.mark.parametrize("level", [Isolation.SANDBOX, Isolation.NONE])
def test_a_build_that_prints_100_mb_keeps_only_the_tail(tmp_path, level):
    if level is Isolation.SANDBOX:
        need_sandbox()
    folder = snapshot(tmp_path, FLOOD)
    result = python_build(level, folder, limits=BuildLimits(wall_seconds=120, output_kb=64))
    assert result.ok, result.reason()
    header, _, tail = result.output.partition("\n")
    assert header == f"[{100 * MB + len('THE END') + 1 - 64 * 1024} earlier bytes dropped]"
    assert len(tail) == 64 * 1024 and tail.endswith("x\nTHE END\n")


def test_a_build_over_its_cpu_time_is_stopped_naming_the_limit(tmp_path):
    need_sandbox()
    folder = snapshot(tmp_path, CPU_BURN)
    result = python_build(Isolation.SANDBOX, folder, limits=BuildLimits(wall_seconds=120,
                                                                         cpu_seconds=1))
    assert result.exceeded == "CPU time limit 1 s exceeded", (result.reason(), result.output)
    assert not result.ok


def test_a_build_over_its_memory_is_stopped_naming_the_limit(tmp_path):
    need_cgroups()
    folder = snapshot(tmp_path, MEMORY_HOG)
    result = python_build(Isolation.SANDBOX, folder, limits=BuildLimits(wall_seconds=120,
                                                                         memory_mb=128))
    assert result.exceeded == "memory limit 128 MB exceeded", (result.reason(), result.output)
    assert not result.ok


def test_without_cgroups_a_build_over_its_memory_fails_its_allocations(tmp_path):
    """At level none (as without root) memory is an rlimit per process (RLIMIT_DATA): the
    hog's allocation fails, and so does its build."""
    folder = snapshot(tmp_path, MEMORY_HOG)
    result = python_build(Isolation.NONE, folder, limits=BuildLimits(wall_seconds=120,
                                                                      memory_mb=128))
    assert not result.ok and "MemoryError" in result.output, (result.reason(), result.output)


def test_a_build_that_cannot_start_says_so(tmp_path):
    folder = snapshot(tmp_path)
    for level in (Isolation.SANDBOX, Isolation.NONE):
        result = run_build(level, folder, ["no-such-build-tool", "all"])
        assert result.returncode is None and result.exceeded is None and not result.ok
        assert result.reason() == "cannot start 'no-such-build-tool': not installed"
    result = run_build(Isolation.NONE, folder, ["./configure"])
    assert result.reason() == "cannot start './configure': no such executable file"


def test_a_build_fails_with_its_exit_code_and_output(tmp_path):
    need_sandbox()
    folder = snapshot(tmp_path)
    result = run_build(Isolation.SANDBOX, folder, ["sh", "-c", "echo broken >&2; exit 2"])
    assert result.returncode == 2 and result.exceeded is None and not result.ok
    assert result.reason() == "exit code 2" and result.output == "broken\n"


def test_a_c_program_builds_with_make_and_its_files_belong_to_the_caller(tmp_path):
    need_sandbox()
    need_programs("make", "cc", what="make and a C compiler (to build C bots)")
    folder = snapshot(tmp_path)
    (folder / "hello.c").write_text('#include <stdio.h>\nint main(void) '
                                    '{ puts("hello from a build"); return 0; }\n')
    (folder / "Makefile").write_text("build/hello: hello.c\n\tmkdir -p build\n"
                                     "\tcc -O2 -o $@ hello.c\n")
    result = run_build(Isolation.SANDBOX, folder, ["make"])
    assert result.ok, (result.reason(), result.output)
    done = subprocess.run([folder / "build" / "hello"], capture_output=True, text=True)
    assert done.stdout == "hello from a build\n"
    assert owned_by_caller(folder) == []


def test_a_shell_build_writes_its_folder_and_leaves_no_link_followed(tmp_path):
    need_sandbox()
    folder = snapshot(tmp_path)
    shadow = os.stat("/etc/shadow") if os.path.exists("/etc/shadow") else None
    script = ("echo made > out.txt && chmod 4755 out.txt && mkdir -p deep/shut && "
              "ln -s /etc/shadow deep/shadow && ln -s /etc deep/etc && chmod 000 deep/shut && "
              "echo scratch > /tmp/x && cat /tmp/x && echo $HOME $TMPDIR")
    result = run_build(Isolation.SANDBOX, folder, ["sh", "-c", script])
    assert result.ok, (result.reason(), result.output)
    assert result.output == "scratch\n/tmp /tmp\n"
    assert (folder / "out.txt").read_text() == "made\n"
    assert not (folder / "out.txt").stat().st_mode & (stat.S_ISUID | stat.S_ISGID)
    assert os.readlink(folder / "deep" / "shadow") == "/etc/shadow"
    assert owned_by_caller(folder) == []
    if shadow is not None:
        now = os.stat("/etc/shadow")
        assert (now.st_uid, now.st_gid, now.st_mode) == \
            (shadow.st_uid, shadow.st_gid, shadow.st_mode)
    assert os.stat("/etc").st_uid == 0


def test_python_runs_as_a_module_in_a_build(tmp_path):
    need_sandbox()
    folder = snapshot(tmp_path, "print('compiled')\n")
    result = run_build(Isolation.SANDBOX, folder, [sys.executable, "-m", "py_compile",
                                                    "build.py"])
    assert result.ok, (result.reason(), result.output)
    assert list((folder / "__pycache__").glob("build.*.pyc"))


UNPRIVILEGED = """
import json, os, sys, time
from pathlib import Path
from arena.referee.manifest import load_manifest
from arena.sandbox import BuildLimits, Isolation, probe, run_build

work, port, mark = Path(sys.argv[1]), sys.argv[2], sys.argv[3] + "-daemon"  # not in our argv
machine = probe()
if machine.level is not Isolation.SANDBOX:
    print(json.dumps({"unavailable": machine.why_no_sandbox()}))
    sys.exit(0)
limits = BuildLimits(wall_seconds=120)
python = sys.executable
store = str(work / "store.sqlite")
out = {"summary": machine.summary(), "uid": os.getuid()}
for level in (Isolation.SANDBOX, Isolation.NONE):
    result = run_build(level, work / "snoop", [python, "build.py", store, "/root/.none", port],
                       limits)
    out[f"snoop_{level.value}"] = [result.ok, result.output]
daemon = run_build(Isolation.SANDBOX, work / "daemon", [python, "build.py", mark], limits)
beat = work / "daemon" / "heartbeat"
size = beat.stat().st_size if beat.exists() else -1
time.sleep(1.0)
def marked(pid):
    try:
        return mark.encode() in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:  # gone meanwhile
        return False
left = [pid for pid in filter(str.isdigit, os.listdir("/proc")) if marked(pid)]
out["daemon"] = [daemon.ok, daemon.output, size, beat.stat().st_size if beat.exists() else -1,
                 left]
print(json.dumps(out))
"""


def test_without_root_the_build_sandbox_still_holds(listener):
    """The read, network and daemon attacks again, by an arena running as `nobody`: the
    build sandbox is then bubblewrap in a user namespace."""
    need_sandbox()
    need_root("becoming an unprivileged user for the test")
    work = Path(tempfile.mkdtemp(prefix="tichu-build-unprivileged-"))
    mark = f"tichu-build-{uuid.uuid4().hex}"
    try:
        snapshot(work, SNOOP, "snoop")
        snapshot(work, DAEMON, "daemon")
        for path in [work, *work.rglob("*")]:
            os.chown(path, NOBODY, NOBODY)
        work.chmod(0o755)
        done = subprocess.run([*as_nobody(work), sys.executable, "-c", UNPRIVILEGED, str(work),
                               str(listener.getsockname()[1]), mark],
                              capture_output=True, text=True, timeout=150, cwd=ROOT)
        assert done.returncode == 0, done.stderr[-3000:]
        result = json.loads(done.stdout.splitlines()[-1])
    finally:
        _kill(processes_marked(f"{mark}-daemon"))
        shutil.rmtree(work, ignore_errors=True)

    if "unavailable" in result:
        missing("without root, bubblewrap cannot make a sandbox here (it needs unprivileged "
                f"user namespaces): {result['unavailable']}",
                "allow them (sysctl user.max_user_namespaces, kernel.unprivileged_userns_clone)")
    assert result["uid"] == NOBODY and "user namespaces" in result["summary"], result
    ok, output = result["snoop_sandbox"]
    found = attacks(output)
    assert ok and found["read_store"].startswith("HELD") and \
        found["tcp_to_machine"].startswith("HELD"), output
    assert found["list_beside"] == "BROKEN ['snoop']", output
    ok, output = result["snoop_none"]  # the control: nobody can read the store unconfined
    found = attacks(output)
    assert found["read_store"] == f"BROKEN {SECRET!r}" and \
        found["tcp_to_machine"].startswith("BROKEN"), output
    listener.accept()[0].close()
    ok, output, size, later, left = result["daemon"]
    assert ok and "the daemon is beating" in output, output
    assert size > 0 and later == size, "the daemon still writes after the build"
    assert left == [], f"processes of the build are left: {left}"


@pytest.mark.parametrize("level", [Isolation.SANDBOX, Isolation.NONE])
def test_the_bundled_bots_build_in_the_sandbox_offline(tmp_path, level):
    """c-random (make), java-random (javac) and node-random (npm install, with its
    node_modules already there, as the setup left them) build with no network, at every
    level (without cgroups their memory is an rlimit: javac's JVM must fit under it)."""
    if level is Isolation.SANDBOX:
        need_sandbox()
    left_out = []
    for name, needs, output in (("c-random", "cc", "build/bot"),
                                ("java-random", "javac", "build/RandomBot.class"),
                                ("node-random", "npm", "node_modules/zeromq")):
        source = ROOT / "bots" / name
        if not shutil.which(needs) or (name == "node-random"
                                       and not (source / "node_modules").is_dir()):
            left_out.append(name)
            continue
        folder = tmp_path / name
        shutil.copytree(source, folder, symlinks=True,  # without a build of the checkout's
                        ignore=lambda at, names, source=source: (
                            ["build"] if Path(at) == source else []))

        result = run_build(level, folder, load_manifest(folder).build_argv())
        assert result.ok, (name, result.reason(), result.output)
        assert (folder / output).exists(), name
        assert owned_by_caller(folder) == []
    if left_out:
        missing(f"the build tools of {', '.join(left_out)} are not installed (the others "
                "built)", SETUP)


def _kill(pids: list[int]) -> None:
    """End the processes this test started that escaped (found by its own marker)."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
