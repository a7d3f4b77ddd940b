"""The referee's end of the wire: one ZeroMQ ROUTER socket that every bot's DEALER connects to.

Frames are raw bytes here; encoding and validation are the codec's job. ZeroMQ's own
MAXMSGSIZE limit drops (and disconnects) a peer that sends a frame over the maximum.
"""

from __future__ import annotations

import os
import socket
import tempfile
from typing import NamedTuple

import zmq


class Incoming(NamedTuple):
    """One message from a bot: its ZeroMQ routing identity and its frames (normally one)."""

    identity: bytes
    frames: list[bytes]


class RefereeSocket:
    """A bound ROUTER socket; `endpoint` is what bots connect to."""

    def __init__(self, max_message_bytes: int, transport: str = "tcp") -> None:
        self._context = zmq.Context.instance()
        self._socket = self._context.socket(zmq.ROUTER)
        self._socket.setsockopt(zmq.LINGER, 0)
        self._socket.setsockopt(zmq.ROUTER_MANDATORY, 1)
        self._socket.setsockopt(zmq.MAXMSGSIZE, max_message_bytes)
        self._ipc_dir: str | None = None
        if transport == "tcp":
            self._socket.bind("tcp://127.0.0.1:0")
        elif transport == "ipc":
            self._ipc_dir = tempfile.mkdtemp(prefix="tichu-arena-")
            os.chmod(self._ipc_dir, 0o700)
            self._socket.bind(f"ipc://{self._ipc_dir}/referee.sock")
        else:
            raise ValueError(f"transport must be 'tcp' or 'ipc', not {transport!r}")
        self.endpoint: str = self._socket.getsockopt_string(zmq.LAST_ENDPOINT)
        self._timeout_ms = -1  # the socket's RCVTIMEO: -1 waits for ever

    def adopt(self, listener: socket.socket) -> str:
        """Accept connections on a listening tcp socket made elsewhere (a sandbox's, handed
        out of its network namespace); the endpoint to `release` it by. The socket is the
        ROUTER's from now on, the same socket as every other connection."""
        fd = listener.detach()
        self._socket.setsockopt(zmq.USE_FD, fd)
        try:
            self._socket.bind("tcp://127.0.0.1:0")  # the address is the listener's own
        except zmq.ZMQError:
            os.close(fd)
            raise
        finally:
            self._socket.setsockopt(zmq.USE_FD, -1)
        return self._socket.getsockopt_string(zmq.LAST_ENDPOINT)

    def release(self, endpoint: str) -> None:
        """Stop accepting on an adopted listener and close it."""
        try:
            self._socket.unbind(endpoint)
        except zmq.ZMQError:
            pass

    def receive(self, timeout: float) -> Incoming | None:
        """The next message, waiting at most `timeout` seconds; None if none came."""
        ms = max(0, int(timeout * 1000))
        if ms != self._timeout_ms:  # a blocking receive with a timeout: no poller in between
            self._socket.setsockopt(zmq.RCVTIMEO, ms)
            self._timeout_ms = ms
        try:
            frames = self._socket.recv_multipart()
        except zmq.Again:
            return None
        return Incoming(frames[0], frames[1:])

    def send(self, identity: bytes, data: bytes) -> bool:
        """Send one frame to a connected bot; False if that bot is no longer connected."""
        try:
            self._socket.send_multipart([identity, data], flags=zmq.NOBLOCK)
            return True
        except (zmq.Again, zmq.ZMQError):
            return False

    def close(self) -> None:
        self._socket.close(linger=0)
        if self._ipc_dir is not None:
            for name in os.listdir(self._ipc_dir):
                os.unlink(os.path.join(self._ipc_dir, name))
            os.rmdir(self._ipc_dir)
            self._ipc_dir = None
