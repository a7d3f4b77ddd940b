"""The referee's connection into a sandbox: a tcp listener made inside, handed out.

A sandboxed bot has a network namespace of its own, holding nothing but its loopback, so it
can reach no port of the machine, and its partner cannot reach its ports. Its one connection
is made this way: before the bot's code runs, this file runs inside the sandbox (as the bot's
user, with the standard library only: `python -I -S handoff.py FD PORT -- COMMAND...`). It
listens on 127.0.0.1:PORT in the sandbox's namespace, sends the listening socket to the
referee over FD (one end of a socket pair the referee made, SCM_RIGHTS), closes FD and execs
COMMAND with `TICHU_ENDPOINT=tcp://127.0.0.1:PORT`. The referee's ZeroMQ socket then accepts
connections on that listener (ZMQ_USE_FD): the bot speaks plain tcp, as PROTOCOL.md promises
(JeroMQ included), with no relay in between, and nothing outside its sandbox is listening
where it connects.

`receive_listener` is the referee's side. Both sides use the standard library only.

`compiled` gives this file's twin in C (`handoff.c`, the same steps in the same order),
compiled once per machine where a C compiler is: the sandbox runs that instead, for a Python
start costs 9 ms of CPU and that program's a tenth of it, paid by each bot of each game.
"""

from __future__ import annotations

import _socket  # not `socket`: its import (enum and all) would slow every bot's start-up
import os
import sys

_TAG = b"listener"
# protocol.sdk.ENDPOINT_VAR, copied: this file runs with the standard library only
ENDPOINT_VAR = "TICHU_ENDPOINT"


def main(argv: list[str]) -> int:
    """Listen, hand the listener over, exec the bot; 126/127 if it cannot be started."""
    fd, port, command = int(argv[0]), int(argv[1]), argv[3:]
    listener = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    listener.setsockopt(_socket.SOL_SOCKET, _socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    channel = _socket.socket(fileno=fd)
    rights = listener.fileno().to_bytes(4, sys.byteorder)
    channel.sendmsg([_TAG], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, rights)])
    channel.close()
    listener.close()  # the referee holds it now; exec would close it anyway
    os.environ[ENDPOINT_VAR] = f"tcp://127.0.0.1:{port}"
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        print(f"sandbox: cannot start {command[0]}: {exc.strerror}", file=sys.stderr)
        return 127 if isinstance(exc, FileNotFoundError) else 126


_COMPILED: dict[str, str | None] = {}


def compiled() -> str | None:
    """The path of `handoff.c` compiled for this machine (`handoff FD PORT -- COMMAND...`, as
    this file takes them), made once and kept in the user's cache folder
    ($XDG_CACHE_HOME/tichu-arena/handoff, by the source's digest); None where it cannot be
    (no C compiler, no writable cache folder, a program that does not run there): this
    file then serves. Asked once per process."""
    if "path" not in _COMPILED:
        _COMPILED["path"] = _compile()
    return _COMPILED["path"]


def _compile() -> str | None:
    import hashlib
    import shutil
    import subprocess
    import tempfile

    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return None
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "handoff.c")
    try:
        with open(source, "rb") as file:
            digest = hashlib.sha256(file.read()).hexdigest()[:16]
        cache = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
        folder = os.path.join(cache, "tichu-arena", "handoff")
        program = os.path.join(folder, f"handoff-{digest}")
        if _runs(program):
            return program
        os.makedirs(folder, exist_ok=True)
        made, temporary = tempfile.mkstemp(dir=folder, prefix=".handoff-")
        os.close(made)
        try:
            done = subprocess.run([cc, "-O2", "-o", temporary, source], capture_output=True,
                                  timeout=120)
            if done.returncode != 0:
                return None
            os.chmod(temporary, 0o755)
            if not _runs(temporary):
                return None
            os.replace(temporary, program)  # whole, for a process asking at the same time
        finally:
            if os.path.exists(temporary):
                os.unlink(temporary)
        return program
    except (OSError, subprocess.SubprocessError):
        return None


def _runs(program: str) -> bool:
    """Whether `program` starts here (not on a noexec mount, say) and is the hand-off: with
    no arguments it says how to call it and exits with 2."""
    import subprocess

    try:
        done = subprocess.run([program], capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 2 and done.stderr.startswith(b"usage: handoff FD PORT")


def receive_listener(channel, timeout: float):
    """The listening socket (a `socket.socket`) sent over `channel` within `timeout` s; None
    if the sandboxed process ended (or closed its end) without sending one, or nothing came
    in time."""
    import select
    import socket

    ready, _, _ = select.select([channel], [], [], max(0.0, timeout))
    if not ready:
        return None
    try:
        message, fds, _, _ = socket.recv_fds(channel, len(_TAG), 1)
    except OSError:
        return None
    if message != _TAG or len(fds) != 1:
        for fd in fds:
            os.close(fd)
        return None
    return socket.socket(fileno=fds[0])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
