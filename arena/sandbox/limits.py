"""Resource limits of one bot process, and the ceiling that a tournament puts over them."""

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
