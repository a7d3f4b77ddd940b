"""Resource limits of one bot process and the ceiling that a tournament puts over them, and
the limits of a bot's build step."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True)
class ResourceLimits:
    """Limits on one bot process and everything it starts (None: no limit).

    How each is enforced depends on the isolation the machine gives (`arena doctor`); in a
    sandbox with cgroups (as root) every limit holds for the bot as a whole:

    - `memory_mb`: in a memory cgroup, the memory of all the bot's processes together, its
      scratch files included (they live in memory); otherwise the address space of each
      process (RLIMIT_AS: runtimes that reserve much virtual memory, such as the JVM and V8,
      start fine within the 4 GiB default).
    - `cpu_seconds`: the CPU time of each process (RLIMIT_CPU) and, in a cgroup, of all of
      them together, over the process's whole life (a multi_game process spends it over
      several games).
    - `processes`: processes and threads at once; a pids cgroup counts the bot's own, else
      RLIMIT_NPROC counts those of its user (its own uid in a sandbox as root; not enforced
      for root without one).
    - `open_files`: open files of each process (RLIMIT_NOFILE).
    - `disk_mb`: the size of the bot's private scratch directory (a sandbox's `/tmp`, which
      is also HOME and TMPDIR), the only place it may write. Without a sandbox nothing
      bounds what a bot writes.
    """

    memory_mb: int | None = 4096
    cpu_seconds: int | None = 600
    processes: int | None = 256
    open_files: int | None = 256
    disk_mb: int | None = 256

    def capped(self, ceiling: ResourceLimits) -> ResourceLimits:
        """These limits, none above `ceiling`'s (a missing limit takes the ceiling's)."""
        values = {}
        for field in dataclasses.fields(self):
            own, top = getattr(self, field.name), getattr(ceiling, field.name)
            values[field.name] = own if top is None else top if own is None else min(own, top)
        return ResourceLimits(**values)


DEFAULT_LIMITS = ResourceLimits()
"""The ceiling where nobody sets one (`arena play`, a tournament config without [limits])."""

NO_LIMITS = ResourceLimits(None, None, None, None, None)
"""What a manifest without [limits] asks for: whatever the ceiling allows."""

LIMIT_NAMES = tuple(field.name for field in dataclasses.fields(ResourceLimits))


@dataclass(frozen=True)
class BuildLimits:
    """Limits on one bot's build command and everything it starts (`build.run_build`; 0: no
    limit). How each is enforced at each isolation level: `arena/sandbox/build.py`."""

    wall_seconds: int = 1200
    """Wall-clock time from start to end; the build is killed when it is up. Twice the CPU
    limit: a Rust template's first build (a minute of CPU) took 9 minutes on a busy 2-core
    machine."""
    cpu_seconds: int = 600
    """CPU time: of the build as a whole where cgroups allow, else of each process."""
    memory_mb: int = 4096
    """Memory of the build as a whole (its /tmp included) in a memory cgroup, else the
    address space of each process."""
    processes: int = 256
    """Processes and threads at once (a pids cgroup, else RLIMIT_NPROC of its uid)."""
    disk_mb: int = 1024
    """Bytes the build may write: its folder's growth plus its /tmp (and /dev/shm)."""
    output_kb: int = 64
    """How much of stdout+stderr is kept (the tail)."""

    def resources(self) -> ResourceLimits:
        """The same limits as a bot process's (for its cgroups and rlimits); no open-files
        limit (compilers and package managers open many)."""
        return ResourceLimits(memory_mb=self.memory_mb or None,
                              cpu_seconds=self.cpu_seconds or None,
                              processes=self.processes or None, open_files=None,
                              disk_mb=self.disk_mb or None)


DEFAULT_BUILD_LIMITS = BuildLimits()
