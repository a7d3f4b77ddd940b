"""A ZeroMQ DEALER for Python bots in a few syscalls: ZMTP 3.0 over one TCP or IPC connection.

The SDK's default transport (`protocol.sdk.run`). It speaks the same wire as a libzmq DEALER
(ZMTP 3.0, NULL security mechanism; PROTOCOL.md 3), so the referee cannot tell them apart,
but without libzmq's I/O thread: a message is one `send` of its frame, a reply one `recv`
into a buffer kept for the session, and no thread hands anything to another on the way (with
pyzmq, each message crosses a thread and wakes it through an eventfd, on both sides). What a
bot gives up: libzmq's reconnection (the referee never drops a live bot's connection, and a
bot whose connection broke has lost its game anyway).

Bounded like the referee: a message longer than `max_in` is refused at its frame header.
Imports nothing outside the standard library. The framing primitives (the flag bits, `frame`,
`command`, `ready`, `pong`, `frame_header`, `command_parts`) are the referee's too: its
transport (`arena.referee.transport`) imports them and keeps only what is a ROUTER's own.
"""

from __future__ import annotations

import socket
import struct
import sys
import time

MORE, LONG, COMMAND = 1, 2, 4
"""The flag bits of a frame's first byte: more frames follow, an 8-byte size, a command."""
NULL_MECHANISM = b"NULL".ljust(20, b"\x00")
"""The mechanism field of a ZMTP 3 greeting: the NULL security mechanism, zero-padded."""

_SIGNATURE = b"\xff" + bytes(8) + b"\x7f"
_GREETING = _SIGNATURE + b"\x03\x00" + NULL_MECHANISM + b"\x00" + bytes(31)
_READ = 1 << 16
_KERNEL_TIMEOUT = sys.platform.startswith("linux")  # SO_RCVTIMEO takes a struct timeval


class ZmtpError(ConnectionError):
    """The connection broke, or the peer broke ZMTP or a bound."""


# ----- framing, shared with the referee ---------------------------------------------------


def frame(data: bytes) -> bytes:
    """The ZMTP frame of a single-frame message (flags, length, body)."""
    n = len(data)
    return (b"\x00" + bytes((n,)) if n < 256 else b"\x02" + n.to_bytes(8, "big")) + data


def command(name: bytes, body: bytes) -> bytes:
    """The ZMTP 3 command frame `name` with `body` (READY, PING, PONG, ERROR)."""
    data = bytes((len(name),)) + name + body
    n = len(data)
    head = bytes((COMMAND, n)) if n < 256 else bytes((COMMAND | LONG,)) + n.to_bytes(8, "big")
    return head + data


def ready(socket_type: bytes) -> bytes:
    """The READY command that ends our side of a ZMTP 3 handshake, naming our socket type."""
    name = b"Socket-Type"
    return command(b"READY", bytes((len(name),)) + name + len(socket_type).to_bytes(4, "big")
                   + socket_type)


def pong(ping: bytes) -> bytes:
    """The PONG answering a PING command's body (ZMTP 3.1 heartbeat): its context echoed."""
    return command(b"PONG", ping[2:18])


def frame_header(buf: bytes | bytearray) -> tuple[int, int] | None:
    """(header length, body size) of the frame at the start of `buf`; None until the header
    is whole. Its flags are the caller's to check."""
    if len(buf) < 2:
        return None
    if buf[0] & LONG:
        if len(buf) < 9:
            return None
        return 9, int.from_bytes(buf[1:9], "big")
    return 2, buf[1]


def command_parts(body: bytes) -> tuple[bytes, bytes] | None:
    """(name, data) of a command frame's body; None if it is malformed (its name overruns)."""
    if not body or body[0] + 1 > len(body):
        return None
    return body[1:1 + body[0]], body[1 + body[0]:]


_READY = ready(b"DEALER")

START_WAIT = 60.0
"""Seconds a bot's connection waits for the referee's listener and greeting, at most."""


class Dealer:
    """One connection to a ZeroMQ ROUTER at `endpoint` (``tcp://host:port``, ``ipc://path``).

    `connect_timeout`: how long to retry a refused connection (the listener may not be up
    yet), and to wait for the peer's greeting. ZmtpError if the handshake fails or the peer
    is not a ROUTER. The referee bounds a bot's start by its own hello limit (PROTOCOL.md
    9.4, 10 s by default, more where a run sets it): the default, `START_WAIT`, is longer,
    so that on a busy machine the bot is never the one to give up first.
    """

    def __init__(self, endpoint: str, max_in: int,
                 connect_timeout: float | None = None) -> None:
        if connect_timeout is None:
            connect_timeout = START_WAIT
        self.max_in = max_in
        self._buf = bytearray()
        self._chunk = bytearray(_READ)
        self._view = memoryview(self._chunk)
        self.sock = _connect(endpoint, connect_timeout)
        try:
            self.sock.sendall(_GREETING + _READY)
            self._greeting(connect_timeout)
            self._timeout: float | None = connect_timeout  # what a receive waits at most now
            if _KERNEL_TIMEOUT:
                self.sock.settimeout(None)  # blocking: SO_RCVTIMEO bounds each receive
                self._timeout = None  # and it is unset (0): forever
        except BaseException:
            self.sock.close()
            raise

    def send(self, data: bytes) -> None:
        """Send one single-frame message."""
        self.sock.sendall(frame(data))

    def recv(self, timeout: float | None) -> bytes | None:
        """The next frame (a message's parts come one call each, as pyzmq's `recv` gives
        them), waiting at most `timeout` seconds (None: forever); None if none came."""
        if self._buf:
            data = self._frame()
            if data is not None:
                return data
        deadline = None if timeout is None else time.monotonic() + timeout
        wait = timeout
        while True:
            self._wait_at_most(wait)
            try:
                if not self._buf:  # the common case: one receive brings one whole frame
                    data = self._lone_frame(self.sock.recv_into(self._view))
                    if data is not None:
                        return data
                else:
                    self._fill()
            except (TimeoutError, BlockingIOError):  # BlockingIOError: SO_RCVTIMEO ran out
                return None
            data = self._frame()
            if data is not None:
                return data
            if deadline is not None:  # part of a frame came: wait for the rest, in time
                wait = deadline - time.monotonic()
                if wait <= 0:
                    return None

    def _wait_at_most(self, timeout: float | None) -> None:
        """Have the next receive wait at most `timeout` seconds. On Linux the kernel keeps
        the limit (SO_RCVTIMEO, set only when it changes): a receive is then one syscall,
        where a Python socket timeout costs a mode switch and a poll before each one."""
        if timeout == self._timeout:
            return
        self._timeout = timeout
        if not _KERNEL_TIMEOUT:
            self.sock.settimeout(timeout)
            return
        micros = 0 if timeout is None else max(1, round(timeout * 1e6))  # 0 is forever
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO,
                             struct.pack("ll", micros // 1000000, micros % 1000000))

    def close(self) -> None:
        self.sock.close()

    # ----- internals ---------------------------------------------------------------------------

    def _fill(self) -> None:
        n = self.sock.recv_into(self._view)
        if not n:
            raise ZmtpError("the referee closed the connection")
        self._buf += self._view[:n]

    def _lone_frame(self, n: int) -> bytes | None:
        """The body of the one final message frame that the `n` bytes just received into
        the empty buffer's chunk hold exactly; None (the bytes then buffered) for anything
        else, which `_frame` takes apart."""
        chunk = self._chunk
        if n >= 2 and not chunk[0] and n == chunk[1] + 2 and n - 2 <= self.max_in:
            return bytes(self._view[2:n])
        if (n >= 9 and chunk[0] == LONG and n == int.from_bytes(chunk[1:9], "big") + 9
                and n - 9 <= self.max_in):
            return bytes(self._view[9:n])
        if not n:
            raise ZmtpError("the referee closed the connection")
        self._buf += self._view[:n]
        return None

    def _need(self, n: int) -> None:
        while len(self._buf) < n:
            self._fill()

    def _greeting(self, timeout: float) -> None:
        self.sock.settimeout(timeout)
        self._need(11)
        buf = self._buf
        if buf[0] != 0xFF or not buf[9] & 1 or buf[10] < 3:
            raise ZmtpError("the referee did not answer with a ZMTP 3 greeting")
        self._need(64)
        if bytes(buf[12:32]) != NULL_MECHANISM:
            raise ZmtpError("the referee asks for a security mechanism other than NULL")
        del buf[:64]
        while True:  # its READY
            self._need(2)
            if not buf[0] & COMMAND:
                raise ZmtpError("the referee sent a message before READY")
            name, _body = self._take_command()
            if name == b"READY":
                return
            if name == b"ERROR":
                raise ZmtpError("the referee sent ERROR during the handshake")

    def _take_command(self) -> tuple[bytes, bytes]:
        while (header := frame_header(self._buf)) is None:
            self._fill()
        head, size = header
        if size > 1024:
            raise ZmtpError(f"a ZMTP command of {size} bytes")
        self._need(head + size)
        body = bytes(self._buf[head:head + size])
        del self._buf[:head + size]
        parts = command_parts(body)
        if parts is None:
            raise ZmtpError("a malformed ZMTP command")
        return parts

    def _frame(self) -> bytes | None:
        """A whole frame from the buffer, commands answered on the way; None if more bytes
        are needed."""
        buf = self._buf
        while (header := frame_header(buf)) is not None:
            flags = buf[0]
            if flags & COMMAND:
                head, size = header
                if len(buf) < head + size:
                    return None
                name, body = self._take_command()
                if name == b"PING":  # ZMTP 3.1 heartbeat: answer with its context
                    self.sock.sendall(pong(body))
                elif name == b"ERROR":
                    raise ZmtpError("the referee sent ERROR")
                continue
            head, size = header
            if size > self.max_in:
                raise ZmtpError(f"a frame of {size} bytes, over the maximum {self.max_in}")
            if len(buf) < head + size:
                return None
            with memoryview(buf) as view:
                data = bytes(view[head:head + size])
            del buf[:head + size]
            return data
        return None


def _connect(endpoint: str, timeout: float) -> socket.socket:
    scheme, _, address = endpoint.partition("://")
    target: tuple[str, int] | str  # (host, port), or a socket file's path
    if scheme == "tcp":
        host, _, port = address.rpartition(":")
        family, target = socket.AF_INET, (host.strip("[]"), int(port))
        if ":" in host:
            family = socket.AF_INET6
    elif scheme == "ipc":
        family, target = socket.AF_UNIX, address
    else:
        raise ValueError(f"endpoint must be tcp://host:port or ipc://path, not {endpoint!r}")
    deadline = time.monotonic() + timeout
    while True:
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.connect(target)
        except (ConnectionRefusedError, FileNotFoundError):
            sock.close()
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.02)
            continue
        except BaseException:
            sock.close()
            raise
        if family != socket.AF_UNIX:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock
