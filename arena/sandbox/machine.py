"""What isolation this machine gives bot processes, and why (`arena doctor` prints it).

Two isolation levels (`Isolation`):

- `sandbox`: each bot process in a bubblewrap sandbox of its own (`jail.py`). As root, also
  under a uid of its own and, where cgroup v1 controllers can be made, with cgroup limits.
- `none`: each bot process in a process group of its own, as the referee's user, with
  per-process rlimits: the bot can read what that user can, reach the network, see other
  processes, and a daemon that calls `setsid` escapes the clean-up.

A run asks for `auto` (the best the machine gives; the default), `sandbox` (refuse to run
without one: `SandboxUnavailable` names what to install) or `none`. The probe runs a real
sandbox once per process and keeps the answer.
"""

from __future__ import annotations

import enum
import functools
import logging
import os
import shutil
import subprocess
from dataclasses import dataclass

from arena.errors import ArenaError
from arena.sandbox import cgroups, jail, seccomp

logger = logging.getLogger(__name__)

REQUESTS = ("auto", "sandbox", "none")
INSTALL = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; `make test` and " \
          "`make demo` do it as root)"


class Isolation(enum.Enum):
    """How bot processes are kept apart from the machine and from each other (closed set)."""

    NONE = "none"
    SANDBOX = "sandbox"


class SandboxUnavailable(ArenaError):
    """A run demanded `isolation = "sandbox"` on a machine that gives none."""


@dataclass(frozen=True)
class Machine:
    """The facts the isolation of bot processes depends on."""

    bwrap: str | None
    """The bubblewrap program, or None if it is not installed."""
    bwrap_version: str
    sandbox_error: str | None
    """Why a trial sandbox failed to start (None: it ran)."""
    root: bool
    setpriv: bool
    prlimit: bool
    cgroups: tuple[str, ...]
    """The cgroup v1 controllers in which the referee can make a cgroup per bot."""
    cgroup_problem: str
    seccomp: bool

    @property
    def level(self) -> Isolation:
        """The best isolation this machine gives."""
        ok = self.bwrap is not None and self.sandbox_error is None
        return Isolation.SANDBOX if ok else Isolation.NONE

    @property
    def own_uids(self) -> bool:
        """Each sandboxed process runs under a uid of its own (root with setpriv)."""
        return self.level is Isolation.SANDBOX and self.root and self.setpriv

    @property
    def limit_cgroups(self) -> tuple[str, ...]:
        """The controllers used for sandboxed processes (cgroups need root here)."""
        return self.cgroups if self.level is Isolation.SANDBOX and self.root else ()

    def why_no_sandbox(self) -> str:
        """Why there is no sandbox and what to do about it ('' if there is one)."""
        if self.bwrap is None:
            return f"bubblewrap is not installed: {INSTALL}"
        if self.sandbox_error is not None:
            return (f"bubblewrap cannot make a sandbox here ({self.sandbox_error}); it needs "
                    "root or unprivileged user namespaces (sysctl user.max_user_namespaces, "
                    "kernel.unprivileged_userns_clone)")
        return ""

    def summary(self) -> str:
        """One line: the isolation level and what it rests on."""
        if self.level is Isolation.NONE:
            return (f"isolation: none ({self.why_no_sandbox()}); bots run as this user with "
                    "its files, network and processes in reach")
        parts = [f"bubblewrap {self.bwrap_version}"]
        parts.append("a uid per process" if self.own_uids else "user namespaces")
        if self.limit_cgroups:
            parts.append("cgroup v1 " + "+".join(self.limit_cgroups))
        else:
            parts.append("rlimits only")
        if not self.seccomp:
            parts.append("no seccomp filter")
        return "isolation: sandbox (" + ", ".join(parts) + ")"

    def report(self) -> list[str]:
        """The lines of `arena doctor`."""
        yes = {True: "yes", False: "no"}
        lines = [self.summary(), ""]
        lines.append(f"bubblewrap:        {self.bwrap or 'not installed'}"
                     + (f" ({self.bwrap_version})" if self.bwrap else ""))
        if self.bwrap:
            lines.append("trial sandbox:     " + ("ran" if self.sandbox_error is None
                                                  else f"failed: {self.sandbox_error}"))
        lines.append(f"running as root:   {yes[self.root]}"
                     + ("" if self.root else " (user namespaces; no uid per process, no cgroups)"))
        lines.append(f"setpriv, prlimit:  {yes[self.setpriv]}, {yes[self.prlimit]}")
        lines.append("cgroup v1:         " + (", ".join(self.cgroups) or "none")
                     + (f" ({self.cgroup_problem})" if self.cgroup_problem else ""))
        lines.append(f"seccomp filter:    {yes[self.seccomp]}")
        lines.append("")
        lines += [f"- {line}" for line in self.guarantees()]
        if self.level is Isolation.NONE:
            lines.append(f"To sandbox bots: {self.why_no_sandbox()}.")
        return lines

    def guarantees(self) -> list[str]:
        """What a bot process can and cannot do at this machine's level."""
        if self.level is Isolation.NONE:
            return ["each bot runs in a process group of its own, killed at the end of its "
                    "game; a child that calls setsid escapes",
                    "per-process rlimits (address space, CPU time, processes per user, open "
                    "files); RLIMIT_NPROC does not hold for root; nothing bounds disk writes",
                    "bots can read and write whatever this user can, open network "
                    "connections and read other processes' /proc entries"]
        limits = ("memory, processes and CPU time per bot (cgroups), open files per process"
                  if self.limit_cgroups else "per-process rlimits (address space, CPU time, "
                  "processes per user, open files)")
        return ["each bot process sees only the system's programs, its runtime and its own "
                "folder, read-only; it writes only to its private, size-limited /tmp",
                "its own pid, network and IPC namespaces: no other process, no network but "
                "its one connection to the referee, nothing shared with its partner",
                ("under a uid of its own, with no capability" if self.own_uids
                 else "in a user namespace, with the caller's uid"),
                f"limits: {limits}; a bot over a limit is stopped and recorded as a crash "
                "naming it",
                "every process of a bot, daemons included, is killed at the end of its game"]


def describe(level: Isolation) -> str:
    """A run's isolation in one line: what it rests on (the machine's summary, as `arena
    doctor` says it, when the run has the machine's best level) and which guarantees hold
    at it (docs/explanation/security.md, "What holds without root")."""
    machine = probe()
    if level is Isolation.NONE:
        head = (machine.summary() if machine.level is Isolation.NONE
                else "isolation: none, as asked")
        return (f"{head}; nothing is confined: bots and builds run as this user with its "
                "files, network and processes in reach")
    if machine.own_uids and machine.limit_cgroups:
        holds = ("every bot process and build sandboxed under a uid of its own, limits for "
                 "the bot as a whole")
    elif machine.own_uids:
        holds = ("every bot process and build sandboxed under a uid of its own; limits per "
                 "process (no cgroups)")
    else:
        holds = ("every bot process and build sandboxed, but under this user's uid (no "
                 "root): limits per process, processes counted over this user")
    return f"{machine.summary()}; {holds}"


def resolve(requested: str) -> Isolation:
    """The isolation for a run that asks for `requested` ('auto', 'sandbox' or 'none');
    SandboxUnavailable if it demands a sandbox the machine does not give."""
    if requested not in REQUESTS:
        raise ValueError(f"isolation must be one of {', '.join(REQUESTS)}, not {requested!r}")
    if requested == "none":
        logger.info("isolation: none, as asked")
        return Isolation.NONE
    machine = probe()
    if requested == "sandbox" and machine.level is not Isolation.SANDBOX:
        raise SandboxUnavailable(f"this run demands isolation = \"sandbox\", but "
                                 f"{machine.why_no_sandbox()}")
    if machine.level is Isolation.NONE:
        _notice(machine.summary())
    return machine.level


@functools.cache
def _notice(line: str) -> None:
    """Say once per process that bots run unsandboxed, and why."""
    logger.warning("%s", line)


@functools.cache
def probe() -> Machine:
    """The facts of this machine (a trial sandbox runs once per process)."""
    bwrap = shutil.which("bwrap")
    root = os.geteuid() == 0
    setpriv = shutil.which("setpriv") is not None
    controllers, problem = cgroups.usable_controllers() if root else ((), "")
    version, error = "", None
    if bwrap is not None:
        version = _version(bwrap)
        error = _trial(bwrap, root and setpriv)
    return Machine(bwrap, version, error, root, setpriv, shutil.which("prlimit") is not None,
                   controllers, problem, seccomp.filter_program() is not None)


def _version(bwrap: str) -> str:
    try:
        out = subprocess.run([bwrap, "--version"], capture_output=True, text=True, timeout=10)
        return out.stdout.strip().removeprefix("bubblewrap ") or "unknown version"
    except (OSError, subprocess.SubprocessError):
        return "unknown version"


def _trial(bwrap: str, switch_uid: bool) -> str | None:
    """Run `true` in a sandbox built as bots' are; the error if that fails, else None."""
    args = [bwrap, *jail.namespace_args(switch_uid), *jail.system_view(),
            "--proc", "/proc", "--dev", "/dev", *jail.tmpfs("/tmp", 1), "--"]
    if switch_uid:
        args += jail.switch_user(65534)
    true = shutil.which("true") or "/usr/bin/true"
    try:
        done = subprocess.run([*args, os.path.realpath(true)], capture_output=True, text=True,
                              timeout=30, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as exc:
        return str(exc)
    if done.returncode != 0:
        return done.stderr.strip().splitlines()[-1] if done.stderr.strip() \
            else f"exit code {done.returncode}"
    return None
