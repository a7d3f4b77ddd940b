"""Shared helpers of the sandbox tests: hostile bots in private folders, and the skip (or, under
CI, the failure: `tests.requirements.missing`) where the machine gives no sandbox."""

from __future__ import annotations

import ctypes
import fcntl
import os
import shutil
import socket
import struct
import sys
from pathlib import Path

from arena.referee.manifest import folder_hash, load_manifest
from arena.referee.match import Entrant
from arena.sandbox import Isolation, probe
from tests.requirements import AS_ROOT, missing

HERE = Path(__file__).resolve().parent
HOSTILE = HERE / "bots" / "hostile"
ROOT = HERE.parents[1]
NOBODY = 65534


BUBBLEWRAP = "scripts/setup-bots.sh (run by `make test` as root) installs bubblewrap"


def need_sandbox() -> None:
    machine = probe()
    if machine.level is not Isolation.SANDBOX:
        missing(f"this machine gives no sandbox: {machine.why_no_sandbox()}", BUBBLEWRAP)


def need_cgroups() -> None:
    """Limits for a bot as a whole (memory, processes, CPU time) need root and cgroups."""
    need_sandbox()
    machine = probe()
    if len(machine.limit_cgroups) < 3:
        missing(f"sandboxed bots get no cgroups here (root: {machine.root}; "
                f"{machine.cgroup_problem or 'cgroup v1 controllers missing'})",
                f"{AS_ROOT}, on a machine with cgroup v1 memory, pids and cpuacct")


def hostile(folder: Path, name: str = "hostile", limits: str = "") -> Entrant:
    """A private copy of the hostile bot (its processes are told apart by folder)."""
    shutil.copytree(HOSTILE, folder, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = folder / "bot.toml"
    text = manifest.read_text().replace('name = "hostile"', f'name = "{name}"')
    manifest.write_text(text + (f"\n[limits]\n{limits}\n" if limits else ""))
    return Entrant(load_manifest(folder), folder_hash(folder))


def reports(output: str) -> dict[str, list[str]]:
    """The hostile bot's report lines by attack: 'HELD ...' or 'BROKEN ...'."""
    found: dict[str, list[str]] = {}
    for line in output.splitlines():
        if line.startswith("ATTACK "):
            name, _, rest = line[len("ATTACK "):].partition(" seat ")
            found.setdefault(name, []).append(rest.split(": ", 1)[1])
    return found


def processes_marked(mark: str) -> list[int]:
    """Pids of the live processes with `mark` in their command line (a test's own marker)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if mark.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(int(pid))
        except OSError:
            continue
    return found


def as_nobody(work: Path) -> list[str]:
    """A command prefix (for root) that runs the rest as `nobody`, in bubblewrap showing this
    machine read-only (the folders that shut others out, such as /root, replaced by what the
    arena's Python needs) but for `work`, writable: the test of an unprivileged arena."""
    needed = [Path(sys.base_prefix), Path(sys.prefix), ROOT]
    args = ["bwrap", "--ro-bind", "/", "/", "--dev-bind", "/dev", "/dev", "--bind", "/proc",
            "/proc", "--bind", str(work), str(work)]
    covered: set[Path] = set()
    for path in needed:
        closed = next((p for p in reversed(path.parents) if p != Path("/")
                       and not os.stat(p).st_mode & 0o001), None)
        if closed is not None and closed not in covered:
            covered.add(closed)
            args += ["--perms", "0755", "--tmpfs", str(closed)]
        if closed is not None:  # its child on the way (folders made on the way are 0700)
            top = closed / path.relative_to(closed).parts[0]
            args += ["--ro-bind", str(top), str(top)]
    return args + ["--", "setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
                   "--reset-env", "--", "env", f"HOME={work}", "PATH=/usr/bin:/bin"]


def outside_address() -> str | None:
    """An IPv4 address of this machine that is not a loopback one (None if it has none)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        for _, name in socket.if_nameindex():
            try:  # SIOCGIFADDR: the interface's IPv4 address
                packed = fcntl.ioctl(sock.fileno(), 0x8915, struct.pack("256s", name.encode()[:15]))
            except OSError:
                continue  # it has none
            address = socket.inet_ntoa(packed[20:24])
            if not address.startswith("127."):
                return address
    return None


IPC_RMID = 0


def remove_ipc(base: int) -> list[str]:
    """Remove, from this machine's own IPC namespace, what hostile bots of a game with
    TICHU_TEST_IPC_KEY=`base` may have left there (System V keys base+seat, POSIX queues
    /tichu-base-seat-N); which of them were there."""
    libc = ctypes.CDLL(None, use_errno=True)
    queues = libc if hasattr(libc, "mq_unlink") else ctypes.CDLL("librt.so.1")
    found = []
    for seat in range(4):
        key = ctypes.c_int(base + seat)
        for kind, number, remove in (
                ("msg_queue", libc.msgget(key, 0), lambda n: libc.msgctl(n, IPC_RMID, None)),
                ("semaphore", libc.semget(key, 0, 0), lambda n: libc.semctl(n, 0, IPC_RMID)),
                ("shared_memory", libc.shmget(key, ctypes.c_size_t(0), 0),
                 lambda n: libc.shmctl(n, IPC_RMID, None))):
            if number >= 0:
                remove(number)
                found.append(f"{kind} of seat {seat}")
        if queues.mq_unlink(f"/tichu-{base}-seat-{seat}".encode()) == 0:
            found.append(f"posix_queue of seat {seat}")
    return found
