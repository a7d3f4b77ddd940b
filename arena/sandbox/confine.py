"""How one bot process is started, watched and ended, at each isolation level.

`confine(level, folder, limits)` gives the `Confinement` of one process: the command that
starts it (`command`), its environment, the file descriptors it inherits, and afterwards
the referee's connection into it (`listener`), the limit it went over (`exceeded`) and the
end of every process it started (`kill`), then `release` of what the confinement held.

- `Confinement` itself (level none): the bot's command under util-linux `prlimit`, killed with
  the kernel's SIGKILL if the referee dies (`setpriv --pdeathsig`), in a process group of
  its own (the caller starts it in a new session).
- `Sandbox` (level sandbox): the same wrappers around bubblewrap (`jail.py`), with a uid of
  its own as root (`uids.py`), its cgroups where they can be made (`cgroups.py`), and the
  hand-off of its connection (`handoff.py`). Its pid namespace ends with it: every process
  of the bot is killed when its sandbox's init dies, whatever session it made.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import shutil
import signal
import socket
import time
from collections.abc import Mapping
from pathlib import Path

from arena.sandbox import handoff, jail, seccomp
from arena.sandbox.cgroups import Cgroup
from arena.sandbox.limits import ResourceLimits
from arena.sandbox.machine import Isolation, Machine, probe
from arena.sandbox.toolchains import remembered
from arena.sandbox.uids import UidClaim, claim_uid

logger = logging.getLogger(__name__)

PORT_BASE, PORT_SPAN = 20000, 40000  # listener ports inside sandboxes (each has all ports)
_ports = itertools.count()


class Confinement:
    """Level none: a process group with per-process rlimits (see the module docstring)."""

    def __init__(self, folder: Path, limits: ResourceLimits) -> None:
        self.folder = folder
        self.limits = limits
        self.pass_fds: tuple[int, ...] = ()

    def command(self, argv: list[str]) -> list[str]:
        return dies_with_parent(rlimit_argv(self.limits, memory=True, processes=True) + argv)

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        return dict(env)

    def started(self, pid: int) -> None:
        """The process is running (the caller's copies of `pass_fds` may close)."""

    def listener(self, timeout: float) -> socket.socket | None:
        """The tcp listener the bot connects to, handed out of a sandbox; None here."""
        return None

    def exceeded(self) -> str | None:
        """The limit the bot went over, named with its value, if the kernel counts it."""
        return None

    def kill(self) -> None:
        """After the bot's own process is stopped: end every process it left."""

    def release(self) -> None:
        """Give back what the confinement held (once every process is gone)."""


class Sandbox(Confinement):
    """Level sandbox: bubblewrap, a uid and cgroups of its own where the machine allows."""

    def __init__(self, folder: Path, limits: ResourceLimits, machine: Machine) -> None:
        super().__init__(folder, limits)
        self.machine = machine
        self.toolchains = remembered(folder)  # (once a minute: a bot starts every game)
        self.port = PORT_BASE + next(_ports) % PORT_SPAN
        self._uid: UidClaim | None = None
        self._cgroup: Cgroup | None = None
        self._fds: list[int] = []  # the child's ends, closed once it started
        self._channel: socket.socket | None = None
        self._pid: int | None = None
        self._inner: int | None = None
        try:
            self._prepare()
        except BaseException:
            self.release()
            raise

    def _prepare(self) -> None:
        if self.machine.own_uids:
            _check_readable(self.folder)
            self._uid = claim_uid()
        if self.machine.limit_cgroups:
            self._cgroup = Cgroup(self.limits, self.machine.limit_cgroups)
        uid = self._uid.uid if self._uid else None
        passwd, group = jail.passwd_text(uid)
        program = seccomp.filter_program()
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self._channel = parent
        self._fds = [child.detach()]
        fds = jail.JailFds(self._memfd("seccomp", program) if program else None,
                           self._memfd("passwd", passwd), self._memfd("group", group),
                           self._fds[0])
        self.pass_fds = tuple(self._fds)
        self._jail = (fds, uid)

    def _memfd(self, name: str, data: bytes) -> int:
        fd = memfd(name, data)
        self._fds.append(fd)
        return fd

    def command(self, argv: list[str]) -> list[str]:
        fds, uid = self._jail
        program, named = jail.located(argv[0], self.toolchains)
        inner = jail.bwrap_argv(self.machine.bwrap or "bwrap", self.folder, [program, *argv[1:]],
                                self.limits.disk_mb, uid, fds, self.port, named=named,
                                toolchains=self.toolchains)
        cgroup = self._cgroup
        rlimits = rlimit_argv(self.limits, memory=not (cgroup and cgroup.limits_memory),
                              processes=not (cgroup and cgroup.limits_processes))
        return dies_with_parent((cgroup.join_argv() if cgroup else []) + rlimits + inner)

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        return jail.sandbox_env(env, self._uid.uid if self._uid else None, self.toolchains)

    def started(self, pid: int) -> None:
        self._pid = pid
        self._close_fds()

    def listener(self, timeout: float) -> socket.socket | None:
        if self._channel is None:
            return None
        try:
            return handoff.receive_listener(self._channel, timeout)
        finally:
            self._channel.close()
            self._channel = None

    def exceeded(self) -> str | None:
        if self._cgroup is not None:
            reason = self._cgroup.exceeded()
            if reason:
                return reason
        if self.limits.disk_mb and self._scratch_full():
            return f"disk limit {self.limits.disk_mb} MB reached"
        return None

    def _scratch_full(self) -> bool:
        inner = self._inner_pid()
        if inner is None:
            return False
        try:
            stat = os.statvfs(f"/proc/{inner}/root/tmp")
        except OSError:
            return False
        return stat.f_bavail == 0

    def _inner_pid(self) -> int | None:
        """The sandbox's init (pid 1 inside), whose root is the sandbox's."""
        if self._inner is None and self._pid is not None:
            try:
                children = Path(f"/proc/{self._pid}/task/{self._pid}/children").read_text()
                self._inner = int(children.split()[0]) if children.split() else None
            except (OSError, ValueError):
                return None
        return self._inner

    def kill(self) -> None:
        inner = self._inner_pid()
        if self._cgroup is not None:
            self._cgroup.kill()
        elif inner is not None:  # its death ends the pid namespace: wait for that
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(inner, signal.SIGKILL)
            _wait_gone(inner, 5.0)

    def release(self) -> None:
        self._close_fds()
        if self._channel is not None:
            self._channel.close()
            self._channel = None
        if self._cgroup is not None:
            self._cgroup.release()
            self._cgroup = None
        if self._uid is not None:
            self._uid.release()
            self._uid = None

    def _close_fds(self) -> None:
        for fd in self._fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fds = []


def confine(level: Isolation, folder: Path, limits: ResourceLimits) -> Confinement:
    """The confinement of one bot process at `level`; OSError if a sandbox cannot be set up
    for it (no uid free, an unreadable folder...)."""
    if level is Isolation.SANDBOX:
        return Sandbox(Path(folder), limits, probe())
    return Confinement(Path(folder), limits)


def rlimit_argv(limits: ResourceLimits, memory: bool, processes: bool,
                file_mb: int | None = None, memory_kind: str = "as") -> list[str]:
    """A util-linux `prlimit` prefix setting `limits` as rlimits ([] where it is absent);
    `memory` and `processes`: whether those two are rlimits here (else a cgroup's);
    `file_mb`: the largest file a process may write (RLIMIT_FSIZE; a build's);
    `memory_kind`: the rlimit that bounds memory, "as" (the address space) or "data" (private
    writable memory: a build's, since javac's JVM reserves far more address space than it
    uses and fails under an RLIMIT_AS of 4 GB)."""
    options = [f"--{name}={value}" for name, value in (
        (memory_kind, memory and limits.memory_mb and limits.memory_mb * 1024 * 1024),
        ("cpu", limits.cpu_seconds), ("nproc", processes and limits.processes),
        ("nofile", limits.open_files), ("fsize", file_mb and file_mb * 1024 * 1024)) if value]
    if not options:
        return []
    prlimit = shutil.which("prlimit")
    if prlimit is None:
        logger.warning("prlimit not found: bot processes run without rlimits")
        return []
    return [prlimit, *options, "--"]


def memfd(name: str, data: bytes) -> int:
    """A file in memory holding `data`, positioned at its start (for bubblewrap to read)."""
    fd = os.memfd_create(f"arena-{name}", 0)
    try:
        os.write(fd, data)
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd


# Runs right after `setpriv --pdeathsig`: if the process that started it died before setpriv
# asked for the signal, the kernel never sends it (the process was already reparented), so
# the command does not run at all. $PPID is read when the shell starts, after the request.
_PARENT_CHECK = '[ "$PPID" = "$0" ] || exit 125; exec "$@"'


def dies_with_parent(argv: list[str]) -> list[str]:
    """`argv` run so that the kernel kills it (SIGKILL) if the process that started it dies,
    even by SIGKILL, when no clean-up code can run (util-linux `setpriv --pdeathsig`). It
    must be started by this process: if this process is gone by the time the request for
    the signal is made, `argv` is not run (exit status 125)."""
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return argv
    return [setpriv, "--pdeathsig", "KILL", "--", "/bin/sh", "-c", _PARENT_CHECK,
            str(os.getpid()), *argv]


def _check_readable(folder: Path) -> None:
    """A bot under a uid of its own reads its folder as 'other': say so if it cannot."""
    mode = folder.stat().st_mode
    if mode & 0o005 != 0o005:
        raise PermissionError(f"{folder} is not readable by other users (mode "
                              f"{mode & 0o777:o}), and a sandboxed bot runs under a uid of "
                              f"its own: chmod -R a+rX {folder}")


def _wait_gone(pid: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return
        if state in ("Z", "X"):
            return
        time.sleep(0.005)
