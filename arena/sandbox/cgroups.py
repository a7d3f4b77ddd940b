"""Control groups (v1) for one bot process: limits that hold for the bot as a whole.

A bot's processes all live in one cgroup per controller, made under the referee's own:
`memory` caps their memory together (the sandbox's scratch files included, since they live
in memory), `pids` caps how many processes and threads they have at once, and `cpuacct`
counts their CPU time. Each cgroup also lists every process of the bot wherever it went
(`setsid`, double forks), so that all of them can be killed at the end.

The bot enters its cgroups before it runs any code of its own: its command starts with a
tiny shell (`join_argv`) that writes its own pid into each cgroup and then execs the rest.
A limit reached is read back from the kernel's counters (`exceeded`), so that the referee can
stop the bot and name the limit. Only cgroup v1 hierarchies are used (they are what these
machines mount); elsewhere limits fall back to per-process rlimits.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import signal
import time
from pathlib import Path

from arena.sandbox.limits import ResourceLimits

logger = logging.getLogger(__name__)

ROOT = Path("/sys/fs/cgroup")
CONTROLLERS = ("memory", "pids", "cpuacct")
PARENT = "tichu-arena"
PIDS_OVERHEAD = 2  # the sandbox's own processes: bubblewrap and its init (pid 1 inside)
_counter = itertools.count()


def own_cgroup(controller: str) -> Path | None:
    """The directory of this process's cgroup in a v1 `controller` hierarchy, or None."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, names, path = line.split(":", 2)
        if controller in names.split(","):
            directory = ROOT / controller / path.lstrip("/")
            return directory if directory.is_dir() else None
    return None


def usable_controllers() -> tuple[tuple[str, ...], str]:
    """The controllers in which this process can make cgroups, and why any is missing."""
    usable, problems = [], []
    for controller in CONTROLLERS:
        base = own_cgroup(controller)
        if base is None:
            problems.append(f"no cgroup v1 '{controller}' hierarchy under {ROOT}")
            continue
        probe = base / PARENT / f"probe-{os.getpid()}"
        try:
            probe.mkdir(parents=True, exist_ok=True)
            probe.rmdir()
            usable.append(controller)
        except OSError as exc:
            problems.append(f"cannot make a cgroup in {base}: {exc.strerror}")
    return tuple(usable), "; ".join(problems)


class Cgroup:
    """One bot process's cgroups; `release` removes them once the bot is gone."""

    def __init__(self, limits: ResourceLimits, controllers: tuple[str, ...]) -> None:
        self.limits = limits
        self.name = f"{os.getpid()}-{next(_counter)}"
        self.dirs: dict[str, Path] = {}
        for controller in controllers:
            base = own_cgroup(controller)
            if base is not None:
                _remove_stale(base / PARENT)
                directory = base / PARENT / self.name
                directory.mkdir(parents=True)
                self.dirs[controller] = directory
        try:
            self._set_limits()
        except BaseException:
            self.release()
            raise

    def _set_limits(self) -> None:
        memory = self.dirs.get("memory")
        if memory is not None and self.limits.memory_mb:
            size = str(self.limits.memory_mb * 1024 * 1024)
            (memory / "memory.limit_in_bytes").write_text(size)
            with contextlib.suppress(OSError):  # absent without swap accounting
                (memory / "memory.memsw.limit_in_bytes").write_text(size)
        pids = self.dirs.get("pids")
        if pids is not None and self.limits.processes:
            (pids / "pids.max").write_text(str(self.limits.processes + PIDS_OVERHEAD))

    @property
    def limits_memory(self) -> bool:
        return "memory" in self.dirs and bool(self.limits.memory_mb)

    @property
    def limits_processes(self) -> bool:
        return "pids" in self.dirs and bool(self.limits.processes)

    def join_argv(self) -> list[str]:
        """A command prefix that moves the process into these cgroups, then execs the rest."""
        script = ('while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; '
                  'shift; exec "$@"')
        return ["/bin/sh", "-c", script, "arena-cgroup",
                *(str(d / "cgroup.procs") for d in self.dirs.values()), "--"]

    def exceeded(self) -> str | None:
        """The limit the bot went over, named with its value, or None."""
        limits = self.limits
        if self.limits_memory and _field(self.dirs["memory"] / "memory.oom_control",
                                         "oom_kill") > 0:
            return f"memory limit {limits.memory_mb} MB exceeded"
        if self.limits_processes and _field(self.dirs["pids"] / "pids.events", "max") > 0:
            return f"process limit {limits.processes} reached"
        if limits.cpu_seconds and "cpuacct" in self.dirs:
            used = _number(self.dirs["cpuacct"] / "cpuacct.usage") / 1e9
            if used >= limits.cpu_seconds:
                return f"CPU time limit {limits.cpu_seconds} s exceeded"
        return None

    def pids(self) -> list[int]:
        """Every process (thread group) of the bot still in its cgroup."""
        for directory in self.dirs.values():
            try:
                return [int(p) for p in (directory / "cgroup.procs").read_text().split()]
            except OSError:
                continue
        return []

    def kill(self, timeout: float = 5.0) -> bool:
        """SIGKILL every process of the bot until none is left; False if some outlived
        `timeout` seconds (a process stuck in the kernel)."""
        deadline = time.monotonic() + timeout
        while True:
            pids = self.pids()
            if not pids:
                return True
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            if time.monotonic() > deadline:
                logger.warning("cgroup %s: processes %s outlived SIGKILL", self.name, pids)
                return False
            time.sleep(0.005)

    def release(self) -> None:
        """Remove the cgroups (the bot's processes must be gone: see `kill`)."""
        for directory in self.dirs.values():
            for _ in range(100):  # a killed process leaves its cgroup when it is reaped
                try:
                    directory.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)
            else:
                logger.warning("cgroup %s could not be removed", directory)
        self.dirs = {}


def _field(path: Path, name: str) -> int:
    """A `name value` line of a cgroup file (0 if absent)."""
    try:
        for line in path.read_text().splitlines():
            key, _, value = line.partition(" ")
            if key == name:
                return int(value)
    except (OSError, ValueError):
        pass
    return 0


def _number(path: Path) -> int:
    try:
        return int(path.read_text())
    except (OSError, ValueError):
        return 0


def _remove_stale(parent: Path) -> None:
    """Remove the empty cgroups that referees no longer running left behind."""
    try:
        names = os.listdir(parent)
    except OSError:
        return
    for name in names:
        owner = name.split("-", 1)[0]
        if owner.isdigit() and not Path(f"/proc/{owner}").exists():
            with contextlib.suppress(OSError):
                (parent / name).rmdir()
