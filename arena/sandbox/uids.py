"""A user id of its own for each sandboxed bot process, when the referee runs as root.

A bot under a uid that no other process has cannot read another's `/proc/<pid>/environ`
(even outside its pid namespace), owns none of the system's files, and is subject to
RLIMIT_NPROC, which the kernel does not enforce for root. The uids come from a reserved range
that no account uses; each is claimed with a lock on a file of its own (in a folder only
root can enter), held until the process ends, so that concurrent referees on one machine
never hand out the same uid twice. A released uid may be reused at once: nothing of its last
process survives it (the scratch space dies with the sandbox, the keyrings are refused).
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

UID_BASE = 2_000_000_000
UID_COUNT = 65_536
CLAIMS = Path("/run/tichu-arena/uids")


class UidClaim:
    """This process's claim on one uid: held until `release` or until the process ends."""

    def __init__(self, uid: int, fd: int) -> None:
        self.uid = uid
        self._fd: int | None = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the file drops its lock
            self._fd = None


def claim_uid(directory: Path = CLAIMS) -> UidClaim:
    """The lowest free uid of the range; OSError if the folder cannot be made or all are held."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(directory, 0o700)
    for offset in range(UID_COUNT):
        fd = os.open(directory / str(offset), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # held by another sandboxed process
            os.close(fd)
            continue
        return UidClaim(UID_BASE + offset, fd)
    raise OSError(f"all {UID_COUNT} sandbox uids are in use ({directory})")
