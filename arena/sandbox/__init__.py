"""The sandbox: what a bot process may see and do, and the limits it runs under.

It owns the isolation levels and the probe of what this machine gives (`machine.py`, printed
by `arena doctor`), the resource limits and their ceiling (`limits.py`), and the confinement
of one bot process (`confine.py`): a bubblewrap sandbox (`jail.py`) with a uid (`uids.py`),
cgroups (`cgroups.py`) and a seccomp filter (`seccomp.py`) of its own, reached by the
referee through a listener handed out of it (`handoff.py`, or its twin in C, `handoff.c`,
compiled once per machine where a C compiler is), showing the toolchains an author installed
in their home (rustup, nvm, pyenv, sdkman) as their shell chooses them (`toolchains.py`); or,
where the machine gives no
sandbox, a process group with rlimits. It also runs a bot's build command at the same level
(`build.py`), in a folder it may write, walked without following links (`tree.py`). It
knows nothing of Tichu, the protocol or ZeroMQ: the referee starts bot processes through
it. It sits below the referee and may import only `arena.errors` and the standard library.
"""

from arena.sandbox.build import BuildResult, run_build
from arena.sandbox.confine import Confinement, confine
from arena.sandbox.limits import (
                                  DEFAULT_BUILD_LIMITS,
                                  DEFAULT_LIMITS,
                                  LIMIT_NAMES,
                                  NO_LIMITS,
                                  BuildLimits,
                                  ResourceLimits,
)
from arena.sandbox.machine import (
                                  REQUESTS,
                                  Isolation,
                                  Machine,
                                  SandboxUnavailable,
                                  describe,
                                  probe,
                                  resolve,
)
from arena.sandbox.toolchains import Toolchain, ToolchainKind, Toolchains, find_toolchains

__all__ = ["DEFAULT_BUILD_LIMITS", "DEFAULT_LIMITS", "LIMIT_NAMES", "NO_LIMITS", "REQUESTS",
           "BuildLimits", "BuildResult", "Confinement", "Isolation", "Machine",
           "ResourceLimits", "SandboxUnavailable", "Toolchain", "ToolchainKind", "Toolchains",
           "confine", "describe", "find_toolchains", "probe", "resolve", "run_build"]
