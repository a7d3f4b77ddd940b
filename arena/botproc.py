"""Bot processes: start a bot in its own process group, keep a bounded tail of its output,
and stop it for certain (terminate, then kill, then reap), children included."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Mapping
from pathlib import Path

logger = logging.getLogger(__name__)

OUTPUT_TAIL_BYTES = 16 * 1024


class BotProcess:
    """One running bot program. Its stdout and stderr are merged and kept as a bounded tail."""

    def __init__(self, argv: list[str], cwd: Path, env: Mapping[str, str], label: str,
                 tail_bytes: int = OUTPUT_TAIL_BYTES) -> None:
        self.argv = argv
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
        """Start the program; OSError if it cannot be started at all."""
        self._proc = subprocess.Popen(
            self.argv, cwd=self.cwd, env=self._env, stdin=subprocess.DEVNULL,
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
