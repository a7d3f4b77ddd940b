"""Bot processes: start a bot in its own process group, keep a bounded tail of its output,
and stop it for certain (terminate, then kill, then reap), children included."""

from __future__ import annotations

import logging
import os
import shutil
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

logger = logging.getLogger(__name__)

OUTPUT_TAIL_BYTES = 16 * 1024


@dataclass(frozen=True)
class ResourceLimits:
    """Operating-system limits on one bot process (None: no limit). Exceeding one ends the
    process (out of memory, SIGXCPU, failed fork or open), which the referee records as a crash.

    `memory_mb` limits the address space (RLIMIT_AS; runtimes that reserve much virtual
    memory, such as the JVM and V8, start fine within the 4 GiB default). `cpu_seconds` is the
    CPU time of the process over its whole life (RLIMIT_CPU; a multi_game process spends it
    over several games). `processes` is RLIMIT_NPROC, which the kernel counts per user and does
    not enforce for root. `open_files` is RLIMIT_NOFILE.
    """

    memory_mb: int | None = 4096
    cpu_seconds: int | None = 600
    processes: int | None = 256
    open_files: int | None = 256

    def wrap(self, argv: list[str]) -> list[str]:
        """`argv` run under these limits with util-linux `prlimit` (unchanged where it is absent)."""
        options = [f"--{name}={value}" for name, value in (
            ("as", self.memory_mb and self.memory_mb * 1024 * 1024), ("cpu", self.cpu_seconds),
            ("nproc", self.processes), ("nofile", self.open_files)) if value]
        if not options:
            return argv
        prlimit = shutil.which("prlimit")
        if prlimit is None:
            logger.warning("prlimit not found: bot processes run without resource limits")
            return argv
        return [prlimit, *options, "--", *argv]


DEFAULT_LIMITS = ResourceLimits()


def _dies_with_parent(argv: list[str]) -> list[str]:
    """`argv` run so that the kernel kills it (SIGKILL) if the process that started it dies,
    even by SIGKILL, when no clean-up code can run (util-linux `setpriv --pdeathsig`)."""
    setpriv = shutil.which("setpriv")
    return [setpriv, "--pdeathsig", "KILL", "--", *argv] if setpriv else argv


class BotProcess:
    """One running bot program. Its stdout and stderr are merged and kept as a bounded tail."""

    def __init__(self, argv: list[str], cwd: Path, env: Mapping[str, str], label: str,
                 tail_bytes: int = OUTPUT_TAIL_BYTES,
                 limits: ResourceLimits = DEFAULT_LIMITS) -> None:
        self.argv = argv
        self.limits = limits
        self.cwd = cwd
        self.label = label
        self._env = dict(env)
        self._tail: deque[bytes] = deque()
        self._tail_size = 0
        self._tail_limit = tail_bytes
        self._dropped = 0
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None
        self._reader: threading.Thread | None = None

    def start(self) -> None:
        """Start the program; OSError if it cannot be started at all (e.g. no such program)."""
        program = self.argv[0]
        if os.sep in program:  # relative to the bot folder (an absolute path stays as it is)
            runnable = os.access(Path(self.cwd, program), os.X_OK)
        else:
            runnable = shutil.which(program) is not None
        if not runnable:
            where = "on PATH" if os.sep not in program else f"in {self.cwd}"
            raise FileNotFoundError(f"no executable program {program!r} {where}")
        self._proc = subprocess.Popen(
            _dies_with_parent(self.limits.wrap(self.argv)), cwd=self.cwd, env=self._env, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        self._reader = threading.Thread(target=self._read_output, name=f"output-{self.label}",
                                        daemon=True)
        self._reader.start()
        logger.debug("%s: started pid %d: %s", self.label, self._proc.pid, " ".join(self.argv))

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    def exit_code(self) -> int | None:
        """The exit code if the process has ended (negative: killed by that signal), else None."""
        return self._proc.poll() if self._proc else None

    def output_tail(self) -> str:
        """The last bytes the bot wrote to stdout/stderr, decoded leniently."""
        with self._lock:
            text = b"".join(self._tail).decode("utf-8", "replace")
            dropped = self._dropped
        return (f"[{dropped} earlier bytes dropped]\n" if dropped else "") + text

    def stop(self, grace: float = 1.0) -> int | None:
        """Stop the process group: SIGTERM, wait up to `grace` s, then SIGKILL; reap. Idempotent."""
        proc = self._proc
        if proc is None:
            return None
        self._signal_group(signal.SIGTERM)
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
        self._signal_group(signal.SIGKILL)  # also reaches children that outlived the bot
        code = proc.wait()
        if self._reader is not None:
            self._reader.join(timeout=2.0)
        if proc.stdout is not None:
            proc.stdout.close()
        return code

    def wait(self, timeout: float) -> int | None:
        """Wait up to `timeout` s for the process to end by itself; its exit code or None."""
        if self._proc is None:
            return None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            code = self._proc.poll()
            if code is not None:
                return code
            time.sleep(0.01)
        return self._proc.poll()

    def _signal_group(self, sig: int) -> None:
        try:
            os.killpg(self._proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def _read_output(self) -> None:
        stream = self._proc.stdout
        while True:
            try:
                chunk = stream.read1(4096)
            except (OSError, ValueError):
                return
            if not chunk:
                return
            logger.debug("%s: >> %r", self.label, chunk[:200])
            with self._lock:
                self._tail.append(chunk)
                self._tail_size += len(chunk)
                while self._tail_size > self._tail_limit and len(self._tail) > 1:
                    old = self._tail.popleft()
                    self._tail_size -= len(old)
                    self._dropped += len(old)
