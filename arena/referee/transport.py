"""The referee's end of the wire: one listening socket that every bot's ZeroMQ DEALER connects
to, the ZeroMQ wire protocol (ZMTP) spoken by the referee's own code.

Not libzmq, because libzmq cannot bound what a peer makes the referee hold: its MAXMSGSIZE
limits each frame, not a message, and it buffers an unfinished multi-part message without
limit (a peer sending frames with the "more" flag and never a last one grew a referee to
3 GB); its I/O thread also reads and queues whatever a peer sends, whether or not the referee
wants it. Here nothing is read until the referee asks (`receive`), and then:

- a message is at most `max_in` bytes, its frames counted together, and at most `_MAX_PARTS`
  frames: a frame header announcing more is refused before the body is read, and a
  connection is read no further after a refusal (`Incoming.refused`);
- each connection holds at most one unread message and one partial one, so memory is bounded
  by the number of connections, which is bounded too (`_MAX_PEERS`, oldest silent one
  dropped first); a peer that never finishes its handshake is dropped after
  `_HANDSHAKE_SECONDS`;
- connections are read in turn, one message each, so no peer can starve another;
- routing identities are chosen here (a zero byte and a counter); an identity a peer asks for
  is ignored, so no peer can take over another's;
- each new connection is shown to `classify`, which can tell which bot process it comes from
  (`arena.referee.peers`) and have a stranger's connection closed before it is read.

It speaks ZMTP 3.0 (libzmq 4, pyzmq, zeromq.js, recent JeroMQ) and ZMTP 2.0 (libzmq 3,
JeroMQ 0.3), NULL security mechanism, as a ROUTER whose peers are DEALERs; ZMTP 3.1's PING is
answered. The framing itself (flag bits, frames, commands, headers) is `protocol.zmtp`'s,
shared with the SDK's DEALER; what is here is the ROUTER's own: its greeting, its bounded
buffers and its peers. Frames are raw bytes here; encoding and validation are the codec's job.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import os
import select
import socket
import tempfile
import time
from collections.abc import Callable
from typing import Any, NamedTuple

from protocol.zmtp import (
    COMMAND,
    LONG,
    MORE,
    NULL_MECHANISM,
    command,
    command_parts,
    frame,
    frame_header,
    pong,
    ready,
)

logger = logging.getLogger(__name__)

STRANGER = object()
"""What `classify` returns for a connection to close at once, unread."""
_CLASSIFY = object()  # the owner of a listener whose connections `classify` tells apart

_MAX_PARTS = 64             # frames in one message
_MAX_COMMAND = 1024         # bytes of one ZMTP command (READY, PING, ERROR)
_MAX_COMMANDS = 1000        # commands between two messages (PING floods)
_MAX_PEERS = 128            # connections at once; past it the oldest silent one is dropped
_MAX_OUT = 4 << 20          # bytes of unsent output a peer may leave unread before it is dropped
_HANDSHAKE_SECONDS = 30.0   # to finish the ZMTP handshake
_READ = 65536               # bytes read at once from one connection
_ACCEPTS = 64               # connections accepted per turn, so that reading goes on meanwhile

_SIGNATURE = b"\xff" + bytes(7) + b"\x01\x7f"  # ZMTP 2/3 signature; length 1 for ZMTP 1.0 peers
_V3_REST = b"\x00" + NULL_MECHANISM + bytes(32)  # minor version, mechanism, as-server, filler
_ROUTER, _DEALER = 6, 5  # ZMTP 2.0 socket type numbers

# connection states
_GREETING, _IDENTITY, _READY, _OPEN, _MUTED = range(5)


class Incoming(NamedTuple):
    """Something from one connection: a message (its frames, normally one), or an event.

    `owner` is what `classify` said of the connection. `connected`: a new connection (only
    when a `classify` is given), no frames. `refused`: the connection broke the transport's
    limits or ZMTP itself; why, no frames; nothing more is read from it.
    """

    identity: bytes
    frames: list[bytes]
    owner: Any = None
    refused: str | None = None
    connected: bool = False


class _Peer:
    """One connection and its buffers."""

    __slots__ = ("sock", "fd", "identity", "owner", "state", "buf", "out", "v3", "stage",
                 "parts", "size", "commands", "opened", "spoke", "mask")

    def __init__(self, sock: socket.socket, identity: bytes, owner: Any) -> None:
        self.sock = sock
        self.fd = sock.fileno()
        self.identity = identity
        self.owner = owner
        self.state = _GREETING
        self.buf = bytearray()
        self.out = bytearray()
        self.v3 = True
        self.stage = 0  # of our greeting: 0 signature sent, 1 major version, 2 all
        self.parts: list[bytes] = []
        self.size = 0       # bytes of the message being read, frames so far
        self.commands = 0   # ZMTP commands since the last message
        self.opened = time.monotonic()
        self.spoke = False  # has delivered a message
        self.mask = 0


class _Broken(Exception):
    """A peer broke ZMTP or a limit: refuse it with this reason."""


class RefereeSocket:
    """The referee's listening socket; `endpoint` is what bots connect to.

    `max_in`: the largest message accepted from a peer, in bytes. `classify(sock)` is called
    with each new connection's socket: `STRANGER` closes it unread, anything else is its
    `owner`, delivered with everything it sends (and with a `connected` event first, when
    there is a `classify` or the listener was adopted for an owner).
    """

    def __init__(self, max_in: int, transport: str = "tcp",
                 classify: Callable[[socket.socket], Any] | None = None) -> None:
        self.max_in = max_in
        self.classify = classify
        self._ipc_dir: str | None = None
        if transport == "tcp":
            self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            self._listener.bind(("127.0.0.1", 0))
            self.endpoint = f"tcp://127.0.0.1:{self._listener.getsockname()[1]}"
        elif transport == "ipc":
            self._ipc_dir = tempfile.mkdtemp(prefix="tichu-arena-")
            os.chmod(self._ipc_dir, 0o700)
            path = os.path.join(self._ipc_dir, "referee.sock")
            self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self._listener.bind(path)
            self.endpoint = f"ipc://{path}"
        else:
            raise ValueError(f"transport must be 'tcp' or 'ipc', not {transport!r}")
        self._listener.listen(128)
        self._poll = select.poll()
        self._listeners: dict[int, tuple[socket.socket, Any]] = {}  # by fd: socket, owner
        self._listen(self._listener, _CLASSIFY)
        self._peers: dict[int, _Peer] = {}         # by file descriptor
        self._by_identity: dict[bytes, _Peer] = {}
        self._ready: collections.deque[Incoming] = collections.deque()
        self._held: list[_Peer] = []  # peers with buffered bytes still to parse
        self._next_id = 0
        self._last_sweep = time.monotonic()

    def adopt(self, listener: socket.socket, owner: Any) -> str:
        """Accept connections on a listening socket made elsewhere, such as one handed out of
        a bot's sandbox (its network namespace: nothing else can reach it), as connections
        of `owner`; the name to `release` it by."""
        listener.setblocking(False)
        self._listen(listener, owner)
        return f"adopted:{listener.fileno()}"

    def release(self, name: str) -> None:
        """Stop accepting on an adopted listener and close it (its connections stay)."""
        fd = int(name.rpartition(":")[2])
        if fd in self._listeners and fd != self._listener.fileno():
            listener, _owner = self._listeners.pop(fd)
            self._poll.unregister(fd)
            listener.close()

    # ----- the referee's side ----------------------------------------------------------------

    def receive(self, timeout: float) -> Incoming | None:
        """The next message or event, waiting at most `timeout` seconds; None if none came."""
        if self._ready:
            return self._ready.popleft()
        deadline = time.monotonic() + timeout
        while True:
            if self._held:  # one message of each peer whose bytes are read already, and then
                self._parse_held()  # the others' turn: a look at them without waiting
            left = 0.0 if self._ready else deadline - time.monotonic()
            events = self._poll.poll(max(0, int(left * 1000 + 0.999)))
            for fd, event in events:
                if fd in self._listeners:
                    self._accept(*self._listeners[fd])
                else:
                    peer = self._peers.get(fd)
                    if peer is not None:
                        self._service(peer, event)
            if self._ready:
                return self._ready.popleft()
            now = time.monotonic()
            if now - self._last_sweep > 1.0:
                self._sweep(now)
            if now >= deadline:
                return None

    def send(self, identity: bytes, data: bytes) -> bool:
        """Send one single-frame message; False if that peer is not (or no longer) connected."""
        peer = self._by_identity.get(identity)
        if peer is None or peer.state < _OPEN:
            return False
        return self._write(peer, frame(data))

    def disconnect(self, identity: bytes) -> None:
        """Close one connection (what it has not read yet is lost)."""
        peer = self._by_identity.get(identity)
        if peer is not None:
            self._close(peer)

    def close(self) -> None:
        for peer in list(self._peers.values()):
            self._close(peer)
        for listener, _owner in self._listeners.values():
            listener.close()
        self._listeners.clear()
        self._ready.clear()
        if self._ipc_dir is not None:
            for name in os.listdir(self._ipc_dir):
                os.unlink(os.path.join(self._ipc_dir, name))
            os.rmdir(self._ipc_dir)
            self._ipc_dir = None

    # ----- connections -----------------------------------------------------------------------

    def _listen(self, listener: socket.socket, owner: Any) -> None:
        listener.setblocking(False)
        self._listeners[listener.fileno()] = (listener, owner)
        self._poll.register(listener.fileno(), select.POLLIN)

    def _accept(self, listener: socket.socket, owner: Any) -> None:
        for _ in range(_ACCEPTS):
            try:
                sock, _address = listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:  # out of file descriptors, ...: try again next turn
                logger.warning("cannot accept a connection: %s", exc)
                return
            sock.setblocking(False)
            tag = owner
            if tag is _CLASSIFY:
                tag = self.classify(sock) if self.classify is not None else None
            if tag is STRANGER:
                logger.info("closed a connection from a process of no seat")
                sock.close()
                continue
            if sock.family != socket.AF_UNIX:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if len(self._peers) >= _MAX_PEERS:
                self._drop_oldest_silent()
            self._next_id += 1
            peer = _Peer(sock, b"\x00" + self._next_id.to_bytes(4, "big"), tag)
            self._peers[peer.fd] = peer
            self._by_identity[peer.identity] = peer
            self._write(peer, bytearray(_SIGNATURE))
            self._watch(peer)
            if self.classify is not None or owner is not _CLASSIFY:
                self._ready.append(Incoming(peer.identity, [], tag, connected=True))

    def _drop_oldest_silent(self) -> None:
        silent = [p for p in self._peers.values() if not p.spoke]
        victim = min(silent or self._peers.values(), key=lambda p: p.opened)
        logger.info("too many connections: dropped the oldest silent one")
        self._close(victim)

    def _sweep(self, now: float) -> None:
        """Drop connections that have not finished their handshake in time."""
        self._last_sweep = now
        for peer in [p for p in self._peers.values() if p.state < _OPEN]:
            if now - peer.opened > _HANDSHAKE_SECONDS:
                self._refuse(peer, f"no ZMTP handshake within {_HANDSHAKE_SECONDS:g} s")

    def _close(self, peer: _Peer) -> None:
        if self._peers.pop(peer.fd, None) is None:
            return
        self._by_identity.pop(peer.identity, None)
        if peer in self._held:
            self._held.remove(peer)
        with contextlib.suppress(KeyError):
            self._poll.unregister(peer.fd)
        peer.sock.close()
        peer.state, peer.mask = _MUTED, 0

    def _watch(self, peer: _Peer) -> None:
        """Poll a peer for what it needs now: input unless muted or holding bytes, output
        while some is unsent."""
        if peer.fd not in self._peers or self._peers[peer.fd] is not peer:
            return  # closed
        mask = 0 if peer.state == _MUTED or peer in self._held else select.POLLIN
        if peer.out:
            mask |= select.POLLOUT
        if mask != peer.mask:
            if peer.mask == 0:
                self._poll.register(peer.fd, mask)
            elif mask == 0:
                self._poll.unregister(peer.fd)
            else:
                self._poll.modify(peer.fd, mask)
            peer.mask = mask

    def _write(self, peer: _Peer, data: bytes | bytearray) -> bool:
        if peer.out:
            if len(peer.out) + len(data) > _MAX_OUT:
                logger.info("a peer does not read what it is sent: disconnected")
                self._close(peer)
                return False
            peer.out += data
            return True
        try:
            sent = peer.sock.send(data)
        except (BlockingIOError, InterruptedError):
            sent = 0
        except OSError:
            self._close(peer)
            return False
        if sent < len(data):
            peer.out = bytearray(data[sent:])
            self._watch(peer)
        return True

    def _flush(self, peer: _Peer) -> None:
        try:
            sent = peer.sock.send(peer.out)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self._close(peer)
            return
        del peer.out[:sent]
        if not peer.out:
            self._watch(peer)

    def _service(self, peer: _Peer, event: int) -> None:
        if event & select.POLLOUT and peer.out:
            self._flush(peer)
            if peer.fd not in self._peers:
                return
        if peer.state == _MUTED:
            if event & (select.POLLHUP | select.POLLERR):
                self._close(peer)  # gone: what was left to send to it is lost
            return
        if not event & (select.POLLIN | select.POLLHUP | select.POLLERR) or peer in self._held:
            return
        try:
            data = peer.sock.recv(_READ)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:  # the peer is gone; a message it left half sent is dropped
            self._close(peer)
            return
        if (not data[0] and peer.state == _OPEN and not peer.buf and not peer.parts
                and len(data) == data[1] + 2 and data[1] <= self.max_in):
            # the common case, a reply: exactly one short final frame, nothing before it
            peer.spoke = True
            peer.commands = 0
            self._ready.append(Incoming(peer.identity, [data[2:]], peer.owner))
            return
        peer.buf += data
        self._parse(peer)

    def _parse_held(self) -> None:
        for peer in list(self._held):
            self._held.remove(peer)
            self._parse(peer)

    def _refuse(self, peer: _Peer, why: str) -> None:
        """Read nothing more from this peer and tell the referee why. A peer still in its
        handshake is closed (nothing can be sent to it); another one stays open for sending."""
        logger.info("connection %s refused: %s", peer.identity.hex(), why)
        self._ready.append(Incoming(peer.identity, [], peer.owner, refused=why))
        if peer.state < _OPEN:
            self._close(peer)
            return
        peer.state = _MUTED
        peer.buf = bytearray()
        peer.parts = []
        if peer in self._held:
            self._held.remove(peer)
        self._watch(peer)

    # ----- ZMTP ------------------------------------------------------------------------------

    def _parse(self, peer: _Peer) -> None:
        """Consume the peer's buffered bytes up to one complete message (then hold the rest)."""
        try:
            ready = peer.state == _OPEN or self._handshake(peer)
            message = self._frames(peer) if ready else None
        except _Broken as exc:
            self._refuse(peer, str(exc))
            return
        if message is not None:
            peer.spoke = True
            self._ready.append(Incoming(peer.identity, message, peer.owner))
            if peer.buf:  # more is buffered: parse it once this message is taken
                self._held.append(peer)
        self._watch(peer)

    def _handshake(self, peer: _Peer) -> bool:
        """Advance the handshake with the bytes so far; True once messages may flow.

        As libzmq does: our signature goes out at once, our major version once the peer's
        signature is in, the rest once its version is known (ZMTP 2.0 peers get a socket type
        and an identity frame, ZMTP 3.0 peers a mechanism and a READY command)."""
        buf = peer.buf
        if peer.state == _GREETING:
            if buf and buf[0] != 0xFF or len(buf) >= 10 and not buf[9] & 1:
                raise _Broken("zmtp: not a ZMTP 2.0 or 3.0 greeting")
            if len(buf) < 10:
                return False
            if peer.stage == 0:
                self._write(peer, b"\x03")
                peer.stage = 1
            if len(buf) < 11:
                return False
            if buf[10] == 0:
                raise _Broken("zmtp: ZMTP 1.0 is not supported")
            peer.v3 = buf[10] >= 2
            if peer.stage == 1:
                self._write(peer, _V3_REST if peer.v3 else bytes((_ROUTER,)))
                peer.stage = 2
            if len(buf) < (64 if peer.v3 else 12):
                return False
            if peer.v3:
                if bytes(buf[12:32]) != NULL_MECHANISM:
                    raise _Broken("zmtp: only the NULL security mechanism is supported")
                del buf[:64]
                self._write(peer, ready(b"ROUTER"))
                peer.state = _READY
            else:
                if buf[11] != _DEALER:
                    raise _Broken(f"zmtp: socket type {buf[11]}, not a DEALER")
                del buf[:12]
                self._write(peer, b"\x00\x00")  # our identity frame: empty
                peer.state = _IDENTITY
        if peer.state == _IDENTITY:
            if len(buf) < 2 or len(buf) < 2 + buf[1]:
                return False
            if buf[0] != 0:
                raise _Broken("zmtp: a malformed identity frame")
            del buf[:2 + buf[1]]  # the identity a peer asks for is ignored
            peer.state = _OPEN
            return True
        parts = self._command(peer)
        if parts is None:
            return False
        name, body = parts
        if name == b"ERROR":
            raise _Broken("zmtp: the peer sent ERROR")
        if name != b"READY":
            raise _Broken(f"zmtp: expected READY, got {name[:20]!r}")
        socket_type = _properties(body).get(b"socket-type")
        if socket_type != b"DEALER":
            self._write(peer, command(b"ERROR", b"\x1finvalid socket type: not a DEALER"))
            raise _Broken(f"zmtp: socket type {(socket_type or b'?')[:20]!r}, not DEALER")
        peer.state = _OPEN
        return True

    def _command(self, peer: _Peer) -> tuple[bytes, bytes] | None:
        """The next ZMTP 3 command in the buffer, if whole; _Broken if the frame is not one."""
        buf = peer.buf
        if len(buf) < 2:
            return None
        flags = buf[0]
        if flags & ~(LONG | COMMAND) or not flags & COMMAND:
            raise _Broken("zmtp: expected a command frame")
        header = frame_header(buf)
        if header is None:
            return None
        head, size = header
        if size > _MAX_COMMAND:
            raise _Broken(f"zmtp: a command of {size} bytes")
        if len(buf) < head + size:
            return None
        body = bytes(buf[head:head + size])
        del buf[:head + size]
        parts = command_parts(body)
        if parts is None:
            raise _Broken("zmtp: a malformed command")
        return parts

    def _frames(self, peer: _Peer) -> list[bytes] | None:
        """Take frames from the buffer until one message is whole; None if more is needed."""
        buf = peer.buf
        limit = self.max_in
        allowed = MORE | LONG | (COMMAND if peer.v3 else 0)
        while len(buf) >= 2:
            flags = buf[0]
            if flags & ~allowed:
                raise _Broken(f"zmtp: bad frame flags {flags:#04x}")
            if flags & COMMAND:
                parts = self._command(peer)
                if parts is None:
                    return None
                self._on_command(peer, *parts)
                continue
            header = frame_header(buf)
            if header is None:
                return None
            head, size = header
            if peer.size + size > limit:
                raise _Broken(f"oversize: a message of {peer.size + size} bytes or more, "
                              f"over the maximum {limit}")
            if len(buf) < head + size:
                return None
            part = bytes(buf[head:head + size])
            del buf[:head + size]
            peer.parts.append(part)
            peer.size += size
            if flags & MORE:
                if len(peer.parts) >= _MAX_PARTS:
                    raise _Broken(f"oversize: a message of more than {_MAX_PARTS} frames")
                continue
            message, peer.parts, peer.size, peer.commands = peer.parts, [], 0, 0
            return message
        return None

    def _on_command(self, peer: _Peer, name: bytes, body: bytes) -> None:
        peer.commands += 1
        if peer.commands > _MAX_COMMANDS:
            raise _Broken(f"zmtp: more than {_MAX_COMMANDS} commands between two messages")
        if name == b"PING":  # ZMTP 3.1 heartbeat: answer with its context
            self._write(peer, pong(body))
        elif name == b"ERROR":
            raise _Broken("zmtp: the peer sent ERROR")
        elif name != b"PONG":
            raise _Broken(f"zmtp: unexpected command {name[:20]!r}")


def _properties(body: bytes) -> dict[bytes, bytes]:
    """A READY command's metadata, names lowercased; _Broken if malformed."""
    out: dict[bytes, bytes] = {}
    i = 0
    while i < len(body):
        n = body[i]
        name = body[i + 1:i + 1 + n]
        j = i + 1 + n
        if j + 4 > len(body):
            raise _Broken("zmtp: malformed READY metadata")
        size = int.from_bytes(body[j:j + 4], "big")
        if j + 4 + size > len(body):
            raise _Broken("zmtp: malformed READY metadata")
        out[name.lower()] = body[j + 4:j + 4 + size]
        i = j + 4 + size
    return out
