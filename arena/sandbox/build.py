"""A bot's build step (`build` in bot.toml), run at the isolation level of play.

`run_build(level, folder, argv, limits, network)` runs one build command in `folder`, a
snapshot of the bot that the arena owns, and returns a `BuildResult`; a failing, hanging or
hostile build is a result, never an exception (OSError only if the sandbox cannot be set up).

**Level sandbox** builds the sandbox of a playing bot (`jail.py`: the same system view,
runtime, /etc files, namespaces, seccomp filter, no capability, death with the caller), with
these differences: `folder` is the working directory and is writable, the only writable place
besides the private /tmp (HOME and TMPDIR) and /dev/shm; there is no hand-off of a connection;
and with `network=True` the build keeps the machine's network namespace (it can reach what the
machine reaches, its loopback included), with /etc/resolv.conf and the name service files
visible, but still sees no other file or process of the machine. As root the build runs under
a uid of its own (`uids.py`): `folder` is given to that uid before (lchown, never following a
link: `tree.py`) and back to the caller's uid and gid after, once every process of the build
is dead, so nothing in it is left owned by the build's uid, and its regular files lose any
setuid or setgid bit. Without root, bubblewrap makes a user namespace and the build keeps the
caller's uid.

How each limit of `BuildLimits` is enforced ("as root": at level sandbox, with cgroup v1):

- `wall_seconds`: the build is killed at the deadline, at every level.
- `cpu_seconds`: as root, the build as a whole (cpuacct) and each process (RLIMIT_CPU);
  otherwise each process.
- `memory_mb`: as root, the build as a whole, its /tmp included (memory cgroup); otherwise
  the private writable memory of each process (RLIMIT_DATA, not RLIMIT_AS: a JVM reserves
  far more address space than it uses, and javac fails under an address-space limit of 4 GB).
- `processes`: as root, the build's processes and threads at once (pids cgroup); otherwise
  RLIMIT_NPROC, which counts every process of the build's uid: its own as root without
  cgroups, the caller's without root (and not at all for root at level none).
- `disk_mb`: each file (RLIMIT_FSIZE) and the disk watcher (below), at every level; at level
  sandbox also the size of /tmp, and the watcher adds what /tmp and /dev/shm hold.
- `output_kb`: the last bytes of stdout+stderr are kept, at every level.

The disk watcher totals the folder (`tree.tree_bytes`: each entry counts its size (st_size)
or its allocated blocks (st_blocks*512), whichever is more, and at least 4 KiB; hard links
once; no link followed) and the space used in /tmp and /dev/shm, and stops the build once the
total grown since the start reaches `disk_mb` (a file written to RLIMIT_FSIZE, the last byte
refused, is at the limit: the build is stopped at once, not once the file system allocates
the file's blocks, which here came 30 s later and pushed it past); when the build is over,
the folder is measured once more. Every 20 ms it looks at what costs nothing (the usage of
/tmp, /dev/shm and of the folder's file system); it walks the folder as often as a tenth of a CPU allows, and at once
when the folder's file system grew by half of what the build has left (whoever wrote it).
Between two looks the build goes on writing, so the folder can overshoot `disk_mb` by what
the build writes during one walk and one interval: at page-cache speed (1-3 GB/s) some tens
of MB for a small folder (the tests see 70-130 MB of growth under a 64 MB limit), some
hundreds for a folder of 100,000 entries, whose walk takes most of a second (370 MB over a
1024 MB limit, measured). Preallocating costs no write, so a build's
seccomp filter refuses fallocate as unsupported (the C library's posix_fallocate then writes
the blocks, as fast as the writes go). Sparse files (ftruncate past the end) take no disk but
count by their size: a build can make many of them between two looks (the tests see several
GB of sparse files under a 64 MB limit), each at most `disk_mb` (RLIMIT_FSIZE). A build that
moves its folders while they are walked can make a look count less; the last measurement,
with no process left, is exact.

No process survives a build: its pid namespace ends when its first process exits (bubblewrap's
init dies with bubblewrap, and the kernel kills every process of the namespace, daemons that
called `setsid` and double-forked included); as root every process of its cgroup and of its
uid is killed too, and the build's folder is handed back only when none is left.

**Level none** does not confine: the build runs as the caller, in a process group of its
own, with the caller's environment, files and network; only the wall clock, rlimits (per
process; RLIMIT_NPROC does not hold for root), the folder watcher (the folder's growth only)
and the output tail hold, and a daemon that calls `setsid` escapes the group's kill.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
import select
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from arena.sandbox import jail, seccomp, tree
from arena.sandbox.cgroups import Cgroup
from arena.sandbox.confine import dies_with_parent, memfd, rlimit_argv
from arena.sandbox.limits import DEFAULT_BUILD_LIMITS, BuildLimits
from arena.sandbox.machine import Isolation, Machine, probe
from arena.sandbox.toolchains import Toolchains, find_toolchains
from arena.sandbox.uids import UidClaim, claim_uid

logger = logging.getLogger(__name__)

NETWORK_ETC = ("resolv.conf", "hosts", "gai.conf", "services", "protocols", "nsswitch.conf")
WATCH_EVERY = 0.02  # seconds between looks at the bytes written (at least)
WATCH_SHARE = 0.1  # of a CPU at most for those looks: a slow walk makes them rarer
_READ = 0.05  # seconds the loop waits for output before it looks at the clock and limits
_DRAIN = 2.0  # seconds to read what is left of the output once the build is stopped
_KILL_TIMEOUT = 10.0  # seconds for the processes of a build to be gone after SIGKILL


@dataclass(frozen=True)
class BuildResult:
    """How one build ended."""

    returncode: int | None
    """The build command's exit code (128+N at level sandbox, -N at level none, if a signal
    N ended it); None if it was stopped (a limit) or could not start. A build that ended by
    itself keeps its code even if it went over a limit (`exceeded` names it: a process of
    it was killed, or its folder grew too much)."""

    output: str
    """The tail of its stdout+stderr (decoded with errors='replace'), after a line
    `[N earlier bytes dropped]` if there was more."""
    exceeded: str | None
    """The limit it went over, named with its value ("disk limit 1024 MB reached")."""
    seconds: float
    """Wall-clock time from start to end."""
    error: str | None = None
    """Why it could not start ("cannot start 'make': not installed"), else None."""

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and self.exceeded is None

    def reason(self) -> str:
        """One line: why the build failed ("exit code 2", the limit...), or "exit code 0"."""
        if self.exceeded is not None:
            return self.exceeded
        if self.error is not None:
            return self.error
        if self.returncode is None:
            return "stopped"
        if self.returncode < 0:
            return f"killed by {_signal_name(-self.returncode)}"
        return f"exit code {self.returncode}"


def run_build(level: Isolation, folder: Path, argv: list[str],
              limits: BuildLimits = DEFAULT_BUILD_LIMITS, network: bool = False) -> BuildResult:
    """Run the build command `argv` in `folder` at `level` (see the module docstring); the
    caller owns `folder` and nothing else may write to it meanwhile. OSError if the sandbox
    cannot be set up (no bubblewrap, no uid free, no cgroup...)."""
    folder = Path(os.path.abspath(folder))
    toolchains = find_toolchains(folder)
    problem = _cannot_start(argv, folder, toolchains)
    if problem is not None:
        return BuildResult(None, "", None, 0.0, problem)
    started = time.monotonic()
    if level is Isolation.SANDBOX:
        machine = probe()
        if machine.level is not Isolation.SANDBOX:
            raise OSError(f"no sandbox for a build here: {machine.why_no_sandbox()}")
        build: _Build = _SandboxBuild(folder, limits, network, machine, toolchains)
    else:
        build = _Build(folder, limits)
    try:
        return _noted(_run(build, argv, started), toolchains)
    finally:
        build.release()


def _noted(result: BuildResult, toolchains: Toolchains) -> BuildResult:
    """A failed build's result, with a last line of output per toolchain on the caller's
    PATH that could not be used (the build may have needed it)."""
    problems = toolchains.problems()
    if result.ok or not problems:
        return result
    notes = "".join(f"\narena: {problem}" for problem in problems)
    return dataclasses.replace(result, output=result.output.rstrip("\n") + notes + "\n")


def _cannot_start(argv: list[str], folder: Path, toolchains: Toolchains) -> str | None:
    """Why `argv` cannot start, or None (a program is looked up as in `jail.runtime_paths`:
    a bare name on the caller's PATH, a path relative to the folder; one an unusable
    toolchain provides cannot start, its problem says why)."""
    if not argv:
        return "cannot start: the build command is empty"
    problem = toolchains.problem_of(argv)
    if problem is not None:
        return problem
    program = argv[0]
    if os.sep not in program:
        return None if shutil.which(program) else f"cannot start {program!r}: not installed"
    path = Path(folder, program)
    if path.is_file() and os.access(path, os.X_OK):
        return None
    return f"cannot start {program!r}: no such executable file"


class _Build:
    """Level none: a process group with rlimits (see the module docstring)."""

    def __init__(self, folder: Path, limits: BuildLimits) -> None:
        self.folder = folder
        self.limits = limits
        self.pass_fds: tuple[int, ...] = ()
        self.before = tree.tree_bytes(folder)

    def command(self, argv: list[str]) -> list[str]:
        return dies_with_parent(rlimit_argv(self.limits.resources(), memory=True,
                                            processes=True, file_mb=self.limits.disk_mb,
                                            memory_kind="data")
                                + argv)

    def environment(self) -> dict[str, str]:
        return dict(os.environ)

    def started(self, proc: subprocess.Popen[bytes]) -> None:
        """The build is running (the caller's copies of `pass_fds` may close)."""

    def exceeded(self) -> str | None:
        """The limit the build went over, if the kernel counts it (its cgroups)."""
        return None

    def scratch(self) -> tuple[int, bool]:
        """The bytes used in its private /tmp and /dev/shm, and whether one of them is full."""
        return 0, False

    def kill(self, proc: subprocess.Popen[bytes]) -> None:
        """SIGKILL every process of the build (`proc` not yet reaped: its group is ours)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)

    def release(self) -> None:
        """Give back what the build held (once every process is gone)."""


class _SandboxBuild(_Build):
    """Level sandbox: bubblewrap, and as root a uid and cgroups of its own."""

    def __init__(self, folder: Path, limits: BuildLimits, network: bool,
                 machine: Machine, toolchains: Toolchains) -> None:
        super().__init__(folder, limits)
        self.network = network
        self.machine = machine
        self.toolchains = toolchains
        self._uid: UidClaim | None = None
        self._cgroup: Cgroup | None = None
        self._fds: list[int] = []  # the child's ends, closed once it started
        self._info: int | None = None  # our end of bubblewrap's --info-fd
        self._init: int | None = None  # a pidfd of the sandbox's init (pid 1 inside)
        self._init_pid: int | None = None
        self._handed = False  # whether the folder belongs to the build's uid
        try:
            self._prepare()
        except BaseException:
            self.release()
            raise

    def _prepare(self) -> None:
        if self.machine.own_uids:
            self._uid = claim_uid()
            tree.chown_tree(self.folder, self._uid.uid, self._uid.uid)
            self._handed = True
        if self.machine.limit_cgroups:
            self._cgroup = Cgroup(self.limits.resources(), self.machine.limit_cgroups)
        passwd, group = jail.passwd_text(self.uid)
        program = seccomp.filter_program(unsupported=seccomp.BUILD_UNSUPPORTED)
        self._jail = jail.JailFds(self._keep(memfd("seccomp", program)) if program else None,
                                  self._keep(memfd("passwd", passwd)),
                                  self._keep(memfd("group", group)))
        self._info, info = os.pipe2(os.O_CLOEXEC)
        self._info_child = self._keep(info)
        self.pass_fds = tuple(self._fds)

    def _keep(self, fd: int) -> int:
        self._fds.append(fd)
        return fd

    @property
    def uid(self) -> int | None:
        return self._uid.uid if self._uid else None

    def command(self, argv: list[str]) -> list[str]:
        program, named = jail.located(argv[0], self.toolchains)
        inner = [self.machine.bwrap or "bwrap", *jail.namespace_args(self.uid is not None,
                                                                      self.network)]
        inner += ["--info-fd", str(self._info_child)]
        inner += jail.sandbox_view(self.folder, named, self.limits.disk_mb or None, self._jail,
                                   writable=True, etc=NETWORK_ETC if self.network else (),
                                   toolchains=self.toolchains)
        if self.uid is not None:
            inner += jail.switch_user(self.uid)
        inner += [program, *argv[1:]]
        cgroup = self._cgroup
        rlimits = rlimit_argv(self.limits.resources(),
                              memory=not (cgroup and cgroup.limits_memory),
                              processes=not (cgroup and cgroup.limits_processes),
                              file_mb=self.limits.disk_mb, memory_kind="data")
        return dies_with_parent((cgroup.join_argv() if cgroup else []) + rlimits + inner)

    def environment(self) -> dict[str, str]:
        return jail.sandbox_env(os.environ, self.uid, self.toolchains)

    def started(self, proc: subprocess.Popen[bytes]) -> None:
        self._close_fds()
        self._init_pid = self._read_init(proc)

    def _read_init(self, proc: subprocess.Popen[bytes]) -> int | None:
        """The pid of the sandbox's init, from bubblewrap's --info-fd (written right after
        the sandbox's first process is made; EOF if bubblewrap failed before). A pidfd of it
        is kept, checked to be a child of `proc` (not reaped yet), to wait for its end."""
        info = self._info
        assert info is not None  # (opened by `_prepare`, closed here only)
        data = b""
        deadline = time.monotonic() + 30.0
        while b"}" not in data and time.monotonic() < deadline:
            ready, _, _ = select.select([info], [], [], 1.0)
            if ready:
                chunk = os.read(info, 4096)
                if not chunk:
                    break
                data += chunk
        os.close(info)
        self._info = None
        try:
            pid = int(json.loads(data)["child-pid"])
            fd = os.pidfd_open(pid)
        except (ValueError, KeyError, TypeError, OSError):
            return None
        if _parent(pid) == proc.pid and not _ended(fd):
            self._init = fd
            return pid
        os.close(fd)
        return None

    def exceeded(self) -> str | None:
        return self._cgroup.exceeded() if self._cgroup is not None else None

    def scratch(self) -> tuple[int, bool]:
        if self._init_pid is None or self._init is None or _ended(self._init):
            return 0, False
        used, full = 0, False
        root = f"/proc/{self._init_pid}/root"
        for path, size_mb in (("tmp", self.limits.disk_mb),
                              ("dev/shm", min(self.limits.disk_mb or jail.SHM_MB,
                                              jail.SHM_MB))):
            try:
                st = os.statvfs(f"{root}/{path}")
            except OSError:
                continue
            if st.f_blocks * st.f_frsize != size_mb * 1024 * 1024:
                continue  # not (yet) the sandbox's own: bubblewrap is still setting it up
            used += (st.f_blocks - st.f_bfree) * st.f_frsize
            full = full or st.f_bavail == 0
        return used, full

    def kill(self, proc: subprocess.Popen[bytes]) -> None:
        super().kill(proc)  # bubblewrap: its init then dies (--die-with-parent)...
        if self._init is not None:  # ... and ends the pid namespace; this only hurries it
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(self._init, signal.SIGKILL)
        if self._cgroup is not None:
            self._cgroup.kill(_KILL_TIMEOUT)
        if self.uid is not None:
            _kill_uid(self.uid, _KILL_TIMEOUT)
        if self._init is not None:
            ready, _, _ = select.select([self._init], [], [], _KILL_TIMEOUT)
            if not ready:
                logger.warning("build in %s: its sandbox outlived SIGKILL", self.folder)

    def release(self) -> None:
        self._close_fds()
        for fd in (self._info, self._init):
            if fd is not None:
                os.close(fd)
        self._info = self._init = None
        if self._cgroup is not None:
            self._cgroup.release()
            self._cgroup = None
        if self._handed:
            tree.chown_tree(self.folder, os.getuid(), os.getgid())
            self._handed = False
        if self._uid is not None:
            self._uid.release()
            self._uid = None

    def _close_fds(self) -> None:
        for fd in self._fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fds = []


class _Tail:
    """The last `size` bytes of a stream, and how many came before them."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.data = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        self.data += chunk
        extra = len(self.data) - self.size
        if extra > 0:
            del self.data[:extra]
            self.dropped += extra

    def text(self) -> str:
        text = self.data.decode("utf-8", "replace")
        return f"[{self.dropped} earlier bytes dropped]\n{text}" if self.dropped else text


class _Watcher(threading.Thread):
    """Looks at the bytes the build wrote (its folder's growth and its scratch space) until
    stopped, and sets `exceeded` once they pass the disk limit.

    Every `WATCH_EVERY` s it looks at what costs nothing (the scratch space's and the folder's
    file system's usage); it walks the folder when its share of a CPU allows, or at once when
    the folder's file system grew by half of what the build has left (whoever wrote it)."""

    def __init__(self, build: _Build) -> None:
        super().__init__(name=f"build-disk-{build.folder.name}", daemon=True)
        self.build = build
        self.limit = build.limits.disk_mb * 1024 * 1024
        self.exceeded: str | None = None
        self._halt = threading.Event()
        self._grown = 0  # the folder's growth at the last walk
        self._system = 0  # the file system's usage when that walk began
        self._next = 0.0  # when the next walk is due anyway

    def run(self) -> None:
        wait = 0.0
        while not self._halt.wait(wait):
            wait = WATCH_EVERY
            try:
                if self._look():
                    self.exceeded = self.message()
                    return
            except OSError as exc:
                logger.debug("build in %s: disk watcher: %s", self.build.folder, exc)

    def _look(self) -> bool:
        used, full = self.build.scratch()
        if full or self._grown + used >= self.limit:
            return True
        system = _used(self.build.folder)
        left = self.limit - self._grown - used
        if time.monotonic() < self._next and system - self._system <= left / 2:
            return False
        # The walk's cost in this thread's CPU time: on a busy machine its wall time may be
        # many times more, and would put the next walk off past the build's wall time limit
        # (a 64 MB file, written whole before a walk could see it, then went unnoticed).
        began = time.thread_time()
        self._system = system
        budget = self.build.before + self.limit - used
        total = tree.tree_bytes(self.build.folder, stop_above=budget)
        self._grown = total - self.build.before
        cost = time.thread_time() - began
        self._next = time.monotonic() + cost * (1 / WATCH_SHARE - 1)
        return total >= budget

    def over(self) -> bool:
        """Whether the folder grew by the limit (once no process of the build is left: its
        scratch space is gone)."""
        return tree.tree_bytes(self.build.folder) - self.build.before >= self.limit


    def message(self) -> str:
        return f"disk limit {self.build.limits.disk_mb} MB reached"

    def stop(self) -> None:
        self._halt.set()
        if self.is_alive():
            self.join()


def _run(build: _Build, argv: list[str], started: float) -> BuildResult:
    """Start the build, keep its output's tail, stop it at a limit or when it ends, and end
    every process it started."""
    limits = build.limits
    tail = _Tail(limits.output_kb * 1024)
    logger.debug("build in %s: %s", build.folder, " ".join(argv))
    proc = subprocess.Popen(build.command(argv), cwd=build.folder, env=build.environment(),
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True,
                            pass_fds=build.pass_fds)
    watcher = _Watcher(build) if limits.disk_mb else None
    exceeded = None
    try:
        build.started(proc)
        if watcher is not None:
            watcher.start()
        exceeded = _watch(build, proc, tail, watcher, started)
    finally:
        build.kill(proc)
        if watcher is not None:
            watcher.stop()
        code = proc.wait()
        _drain(proc, tail)
    exceeded = exceeded or build.exceeded() or _signalled(code, limits)
    if exceeded is None and watcher is not None:
        exceeded = watcher.exceeded or (watcher.message() if watcher.over() else None)
    seconds = time.monotonic() - started
    if exceeded is not None:
        logger.info("build in %s: %s", build.folder, exceeded)
    returncode = None if exceeded is not None and not _ended_by_itself(code) else code
    return BuildResult(returncode, tail.text(), exceeded, seconds)


def _watch(build: _Build, proc: subprocess.Popen[bytes], tail: _Tail, watcher: _Watcher | None,
           started: float) -> str | None:
    """Read the build's output until it ends (None) or goes over a limit (named)."""
    limits = build.limits
    assert proc.stdout is not None  # (stdout=PIPE)
    fd = proc.stdout.fileno()
    os.set_blocking(fd, False)
    open_ = True
    while True:
        if open_:
            open_ = _read(fd, tail, _READ)
        else:
            time.sleep(_READ)
        if _exited(proc):
            return None
        reason = build.exceeded() or (watcher.exceeded if watcher is not None else None)
        if reason is None and limits.wall_seconds and \
                time.monotonic() - started >= limits.wall_seconds:
            reason = f"wall time limit {limits.wall_seconds} s exceeded"
        if reason is not None:
            return reason


def _read(fd: int, tail: _Tail, timeout: float) -> bool:
    """Add what `fd` has to `tail`, waiting up to `timeout` s; False at its end."""
    ready, _, _ = select.select([fd], [], [], timeout)
    if not ready:
        return True
    try:
        chunk = os.read(fd, 65536)
    except BlockingIOError:
        return True
    if chunk:
        tail.add(chunk)
    return bool(chunk)


def _drain(proc: subprocess.Popen[bytes], tail: _Tail) -> None:
    """Read what is left of the output (a daemon at level none may hold the pipe open)."""
    assert proc.stdout is not None  # (stdout=PIPE)
    fd = proc.stdout.fileno()
    deadline = time.monotonic() + _DRAIN
    while time.monotonic() < deadline and _read(fd, tail, deadline - time.monotonic()):
        pass
    proc.stdout.close()


def _exited(proc: subprocess.Popen[bytes]) -> bool:
    """Whether the build's first process has ended, leaving it unreaped (its pid and
    process group stay ours until `proc.wait`)."""
    try:
        return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _signalled(code: int, limits: BuildLimits) -> str | None:
    """The limit that the signal which ended the build stands for, if one does (the kernel
    sends SIGXCPU past RLIMIT_CPU and SIGXFSZ past RLIMIT_FSIZE)."""
    for number, limit, message in (
            (signal.SIGXCPU, limits.cpu_seconds, f"CPU time limit {limits.cpu_seconds} s "
                                                 "exceeded"),
            (signal.SIGXFSZ, limits.disk_mb, f"disk limit {limits.disk_mb} MB reached")):
        if limit and code in (-number, 128 + number):
            return message
    return None


def _ended_by_itself(code: int) -> bool:
    """Whether an exit code is the build's own rather than our SIGKILL's."""
    return code not in (-signal.SIGKILL, 128 + signal.SIGKILL)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _parent(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def _used(folder: Path) -> int:
    """The bytes in use on the file system of `folder`."""
    st = os.statvfs(folder)
    return (st.f_blocks - st.f_bfree) * st.f_frsize


def _ended(pidfd: int) -> bool:

    ready, _, _ = select.select([pidfd], [], [], 0)
    return bool(ready)


def _kill_uid(uid: int, timeout: float) -> bool:
    """SIGKILL every process running as `uid` (a uid of this build's alone) until none is
    left; False if some outlived `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        pids = _processes_of(uid)
        if not pids:
            return True
        for pid in pids:
            _kill_if_uid(pid, uid)
        if time.monotonic() > deadline:
            logger.warning("uid %d: processes %s outlived SIGKILL", uid, pids)
            return False
        time.sleep(0.005)


def _processes_of(uid: int) -> list[int]:
    """The live (not zombie) processes with `uid` among their uids."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit() and _has_uid(int(name), uid):
            found.append(int(name))
    return found


def _has_uid(pid: int, uid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    uids = fields.get("Uid", "").split()
    return str(uid) in uids and not fields.get("State", "").strip().startswith("Z")


def _kill_if_uid(pid: int, uid: int) -> None:
    """SIGKILL `pid` through a pidfd if it runs as `uid` (the pidfd is taken before the check,
    so a pid reused in between is never signalled)."""
    try:
        fd = os.pidfd_open(pid)
    except OSError:
        return
    try:
        if _has_uid(pid, uid):
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(fd, signal.SIGKILL)
    finally:
        os.close(fd)
