"""One run per store: the run lock, held by a run that writes a store for its whole life.

The lock is an exclusive `flock` on `<store>.lock`, a file beside the store that names the
holder (pid, command, start), so that a second run is refused naming the first.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from arena.errors import ArenaError


class StoreBusy(ArenaError):
    """Another run holds the store."""


@contextmanager
def run_lock(storage: Path, what: str) -> Iterator[None]:
    """Hold the store's run lock (`<storage>.lock`, an exclusive `flock`) for the block:
    one run per store. StoreBusy naming the other run (pid, command, start) if it is held.

    The kernel releases the lock when the holder dies, however it dies: no stale locks.
    """
    storage = Path(storage).resolve()
    storage.parent.mkdir(parents=True, exist_ok=True)
    path = storage.with_name(storage.name + ".lock")
    fd = _locked(path, storage)
    try:
        since = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} (`{what}`, since {since})\n".encode(), 0)
        yield
    finally:
        # Removed while still held, so that no run is left waiting on a file gone: a run
        # that opened it meanwhile sees its lock on a removed file and opens the path anew.
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        os.close(fd)  # releases the lock


def _locked(path: Path, storage: Path) -> int:
    """A descriptor of `path` holding its exclusive lock, the file still at that path."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 4096, 0).decode(errors="replace").strip() or "another run"
            os.close(fd)
            raise StoreBusy(f"{storage}: in use by {holder}. One run per store: wait until "
                            "it ends (or stop it; a stopped run resumes later), then run "
                            "this command again.") from None
        try:
            if os.stat(path).st_ino == os.fstat(fd).st_ino:
                return fd
        except FileNotFoundError:
            pass
        os.close(fd)  # the run that held it removed the file as it ended: take the new one
