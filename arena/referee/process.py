"""Bot processes: start a bot confined as the run's isolation level says (a sandbox of its
own, or a process group), keep a bounded tail of its output, watch its limits, and stop it
for certain (terminate, then kill, then reap), every process it started included."""

from __future__ import annotations

import contextlib
import logging
import os
import select
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import FrameType
from typing import Any

from arena.sandbox import DEFAULT_LIMITS, Confinement, Isolation, ResourceLimits, confine

logger = logging.getLogger(__name__)

OUTPUT_TAIL_BYTES = 16 * 1024
_LIMIT_CHECK_EVERY = 0.1  # seconds between reads of a running bot's limit counters
_READ_POLL = 0.1  # seconds the output reader waits before looking whether to stop
_DRAIN = 2.0  # seconds the reader goes on reading a stopped bot's pipe (a daemon may hold it)
_OUTPUT_WAIT = 0.5  # seconds a fault waits for the output of a bot that ended (read_to_end)

__all__ = ["DEFAULT_LIMITS", "OUTPUT_TAIL_BYTES", "BotProcess", "ResourceLimits"]


class BotProcess:
    """One running bot program. Its stdout and stderr are merged and kept as a bounded tail."""

    def __init__(self, argv: list[str], cwd: Path, env: Mapping[str, str], label: str,
                 tail_bytes: int = OUTPUT_TAIL_BYTES,
                 limits: ResourceLimits = DEFAULT_LIMITS,
                 isolation: Isolation = Isolation.NONE,
                 on_output: Callable[[bytes], None] | None = None) -> None:
        self.argv = argv
        self.on_output = on_output  # given each chunk of output as it is read (its thread)
        self.limits = limits
        self.isolation = isolation
        self.cwd = cwd
        self.label = label
        self._env = dict(env)
        self._tail: deque[bytes] = deque()
        self._tail_size = 0
        self._tail_limit = tail_bytes
        self._dropped = 0
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._confinement: Confinement | None = None  # set with `_proc`, kept after it
        self._reader: threading.Thread | None = None
        self._stopping = threading.Event()
        self._stopped: int | None = None  # the exit code, once stopped and reaped
        self._limit: str | None = None
        self._checked = 0.0
        self._exit_checked = False

    def start(self) -> None:
        """Start the program; OSError if it cannot be started at all (no such program, no
        sandbox for it). If anything interrupts the start (Ctrl-C), no process is left."""
        program = self.argv[0]
        if os.sep in program:  # relative to the bot folder (an absolute path stays as it is)
            runnable = os.access(Path(self.cwd, program), os.X_OK)
        else:
            runnable = shutil.which(program) is not None
        if not runnable:
            where = "on PATH" if os.sep not in program else f"in {self.cwd}"
            raise FileNotFoundError(f"no executable program {program!r} {where}")
        proc: subprocess.Popen[bytes] = subprocess.Popen.__new__(subprocess.Popen)
        try:
            with _signals_deferred():  # a handler raising inside Popen would lose the child
                confinement = self._confinement = confine(self.isolation, self.cwd,
                                                          self.limits)
                subprocess.Popen.__init__(proc, confinement.command(self.argv), cwd=self.cwd,
                                          env=confinement.environment(self._env),
                                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                          stderr=subprocess.STDOUT, start_new_session=True,
                                          pass_fds=confinement.pass_fds)
                self._proc = proc
                confinement.started(proc.pid)
                assert proc.stdout is not None  # (stdout=PIPE)
                self._reader = threading.Thread(target=self._read_output,
                                                args=(proc.stdout.fileno(),),
                                                name=f"output-{self.label}", daemon=True)
                self._reader.start()
        except BaseException:  # a deferred signal's handler raises here: the child is known
            self._abandon(proc)
            raise
        logger.debug("%s: started pid %d (%s): %s", self.label, proc.pid,
                     self.isolation.value, " ".join(self.argv))

    def _abandon(self, proc: subprocess.Popen[bytes]) -> None:
        """A start cut short (an exception, a signal's handler): kill whatever started."""
        pid = getattr(proc, "pid", None)  # unset if Popen failed before the fork
        if pid:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
            proc.wait()
            if self._confinement is not None:
                self._confinement.kill()
        self._stopping.set()
        if self._reader is not None and self._reader.is_alive():
            self._reader.join()
        stdout = getattr(proc, "stdout", None)  # (unset as `pid` is)
        if stdout is not None:
            stdout.close()
        self._stopped = proc.returncode if pid else None
        self._proc = None
        if self._confinement is not None:
            self._confinement.release()

    def listener(self, timeout: float) -> socket.socket | None:
        """The tcp listener handed out of the bot's sandbox (the referee's ZeroMQ socket
        accepts on it), waiting at most `timeout` s; None without a sandbox, or if the
        sandbox ended before handing it out."""
        if self._confinement is None:
            return None
        return self._confinement.listener(timeout)

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    @property
    def limit_exceeded(self) -> str | None:
        """The limit the bot went over ("memory limit 4096 MB exceeded"), if it did."""
        return self._limit

    def exit_code(self) -> int | None:
        """The exit code if the process has ended (negative: killed by that signal), else
        None. A bot found over a limit is stopped here (see `limit_exceeded`)."""
        if self._proc is None:
            return self._stopped
        code = self._proc.poll()
        if code is None and self.isolation is Isolation.SANDBOX:
            now = time.monotonic()
            if now - self._checked >= _LIMIT_CHECK_EVERY:
                self._checked = now
                assert self._confinement is not None  # (set with `_proc`)
                reason = self._confinement.exceeded()
                if reason is not None:
                    logger.info("%s: %s: stopping it", self.label, reason)
                    self._limit = reason
                    self.stop(grace=0.0)
                    return self._stopped
        if code is not None and not self._exit_checked:
            self._limit = self._limit or self._limit_at_exit(code)
        return code

    def exit_reason(self) -> str:
        """Why the process ended, for a record: the limit it went over, or its exit code."""
        code = self.exit_code()
        if self._limit is not None:
            return f"the bot was stopped: {self._limit} (exit code {code})"
        return f"the bot process exited with code {code}"

    def _limit_at_exit(self, code: int) -> str | None:
        self._exit_checked = True
        reason = self._confinement.exceeded() if self._confinement is not None else None
        xcpu = int(signal.SIGXCPU)
        if reason is None and self.limits.cpu_seconds and code in (-xcpu, 128 + xcpu):
            reason = f"CPU time limit {self.limits.cpu_seconds} s exceeded"
        return reason

    def read_to_end(self, timeout: float = _OUTPUT_WAIT) -> None:
        """Wait up to `timeout` s for the output of the ended process to be read to its end
        (the reader reaches end of file once the bot's sandbox is gone; not while a process
        the bot left holds the pipe open), so that `output_tail` holds the bot's last words:
        the process's exit is seen at once, its output a moment later."""
        if self._reader is not None:
            self._reader.join(timeout)

    def output_tail(self) -> str:
        """The last bytes the bot wrote to stdout/stderr, decoded leniently."""
        with self._lock:
            text = b"".join(self._tail).decode("utf-8", "replace")
            dropped = self._dropped
        return (f"[{dropped} earlier bytes dropped]\n" if dropped else "") + text

    def stop(self, grace: float = 1.0) -> int | None:
        """Stop the bot: SIGTERM to its process group, wait up to `grace` s, then SIGKILL to
        the group and to every process of its sandbox; reap it and read the rest of its
        output. Idempotent: once stopped, no signal is sent again (its pid may be reused)."""
        proc, confinement = self._proc, self._confinement
        if proc is None:
            return self._stopped
        assert confinement is not None  # (set with `_proc`)
        if proc.poll() is None and grace > 0:
            self._signal_group(proc, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=grace)
        if not self._exit_checked:  # before the kill: the sandbox's counters die with it
            self._limit = self._limit or confinement.exceeded()
        self._signal_group(proc, signal.SIGKILL)  # also reaches children that outlived the bot
        confinement.kill()
        code = proc.wait()
        if not self._exit_checked:
            self._limit = self._limit or self._limit_at_exit(code)
        self._stopping.set()  # the reader drains what is left, then ends (even if a
        if self._reader is not None:  # process that left the group keeps the pipe open)
            self._reader.join(timeout=_DRAIN + 2 * _READ_POLL)
        if proc.stdout is not None and (self._reader is None or not self._reader.is_alive()):
            proc.stdout.close()
        confinement.release()
        self._stopped, self._proc = code, None
        return code

    def wait(self, timeout: float) -> int | None:
        """Wait up to `timeout` s for the process to end by itself; its exit code or None."""
        if self._proc is None:
            return self._stopped
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            code = self._proc.poll()
            if code is not None:
                return code
            time.sleep(0.01)
        return self._proc.poll()

    @staticmethod
    def _signal_group(proc: subprocess.Popen[bytes], sig: int) -> None:
        if proc.returncode is not None:
            return  # reaped: its pid (and group id) may belong to another process by now
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, sig)

    def _read_output(self, fd: int) -> None:
        """Keep the tail of the output. Reads the pipe's descriptor directly (never through
        the buffered file, whose lock a close would wait on, and which is closed only once
        this thread has ended), and ends at end of file, or once the bot is stopped and
        nothing more is waiting."""
        drain_until = None
        while True:
            if self._stopping.is_set():
                drain_until = drain_until or time.monotonic() + _DRAIN
                if time.monotonic() > drain_until:
                    return
            try:
                ready, _, _ = select.select([fd], [], [], _READ_POLL)
                if not ready:
                    if self._stopping.is_set():
                        return
                    continue
                chunk = os.read(fd, 4096)
            except (OSError, ValueError):
                return
            if not chunk:
                return
            logger.debug("%s: >> %r", self.label, chunk[:200])
            if self.on_output is not None:
                self.on_output(chunk)
            with self._lock:
                self._tail.append(chunk)
                self._tail_size += len(chunk)
                while self._tail_size > self._tail_limit and len(self._tail) > 1:
                    old = self._tail.popleft()
                    self._tail_size -= len(old)
                    self._dropped += len(old)


@contextlib.contextmanager
def _signals_deferred() -> Iterator[None]:
    """Hold back the Python-level signal handlers (Ctrl-C's included) for the block and run
    them, in order, once it is over: a handler that raises inside `subprocess.Popen`, after
    the fork and before Popen returns, would leave a child that nobody knows. Blocking the
    signals instead would block them in the child too. Python runs handlers in the main
    thread only; elsewhere there is nothing to hold back."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[tuple[int, Any]] = []
    saved: dict[int, Callable[[int, FrameType | None], Any]] = {}
    for sig in signal.valid_signals():
        handler = signal.getsignal(sig)
        if callable(handler):
            saved[sig] = handler
            signal.signal(sig, lambda signum, frame: held.append((signum, frame)))
    try:
        yield
    finally:
        for number, restored in saved.items():
            signal.signal(number, restored)
        for signum, frame in held:
            saved[signum](signum, frame)
