"""A hostile bot for the referee's trust tests. It speaks ZMTP 3.0 itself, over a plain
socket, so that it can send what no ZeroMQ library would (frames with the "more" flag and no
last one, any bytes in any frame). TICHU_TEST_ATTACK says what it does:

none              play: the first option, the first three cards at the exchange
multipart         frames of TICHU_TEST_FRAME_BYTES (default 65536) with the "more" flag,
                  TICHU_TEST_MB MiB in all (default 256), never a last frame; then wait
bomb_wide         a 1 MiB hello: a map whose value is an array of a million empty maps
bomb_small_wide   the same within 16 KiB: an array of 16000 empty maps
bomb_deep         a hello nested 16000 arrays deep
bomb_declared     a hello whose capabilities declare 2**32-1 items (and hold none)
oversize_hello    a valid hello with a 200 KiB token
nul_hello         a hello whose type is TICHU_TEST_NULS NUL characters (default 1000000)
connection_flood  30 connections opened at once, then a 1 MiB bomb_wide frame on each
impostor          a first connection says hello with TICHU_TEST_VICTIM_TOKEN, then the bot
                  says its own hello on a second connection and plays
extra_connections TICHU_TEST_CONNECTIONS connections in all (default 3): idle ones (their
                  handshake done) and the one it plays on, opened last
second_hello      at the welcome, say hello again (its own token) on a new connection, then hang
hello_again       play; at the welcome, say hello again on its own connection
stranger          (started by a test, not by the referee) connect (saying so on stdout), send
                  its greeting and a hello with TICHU_TOKEN at once, read until the referee
                  closes the connection, say on stdout how many bytes came, and wait

Whatever it receives (reject, error, end) is written to stderr, one line per message type
with its length, so that tests can check what the referee sent back.
"""

import contextlib
import os
import socket
import struct
import sys
import time

import msgpack

ATTACK = os.environ.get("TICHU_TEST_ATTACK", "none")
ENDPOINT = os.environ["TICHU_ENDPOINT"]
TOKEN = os.environ.get("TICHU_TOKEN", "")


class Link:
    """A plain socket to the referee speaking ZMTP 3.0 as a DEALER. The greeting goes out at
    once; READY once the referee's greeting is in (libzmq drops a peer that sends READY
    before it has sent its own greeting), then its first message."""

    def __init__(self):
        if ENDPOINT.startswith("ipc://"):
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock.connect(ENDPOINT[len("ipc://"):])
        else:
            host, port = ENDPOINT[len("tcp://"):].rsplit(":", 1)
            self.sock = socket.create_connection((host, int(port)))
        self.sock.sendall(b"\xff" + bytes(7) + b"\x01\x7f\x03\x00"
                          + b"NULL".ljust(20, b"\x00") + bytes(32))
        self.ready = False

    def handshake(self):
        if not self.ready:
            self.read(64)
            body = b"\x05READY" + b"\x0bSocket-Type" + struct.pack(">I", 6) + b"DEALER"
            self.sock.sendall(bytes((4, len(body))) + body)
            self.ready = True

    def read(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise EOFError("the referee closed the connection")
            data += chunk
        return data

    def frame(self):
        """The next frame (flags, body)."""
        self.handshake()
        flags = self.read(1)[0]
        size = struct.unpack(">Q", self.read(8))[0] if flags & 2 else self.read(1)[0]
        return flags, self.read(size)

    def sendall(self, data):
        self.handshake()
        self.sock.sendall(data)


def connect():
    return Link()


def frame(link):
    return link.frame()


def header(size, more=False):
    flags = 1 if more else 0
    return bytes((flags, size)) if size < 256 else bytes((flags | 2,)) + struct.pack(">Q", size)


def send(sock, data, more=False):
    sock.sendall(header(len(data), more) + data)


def hello(token=TOKEN, **extra):
    return msgpack.packb({"type": "hello", "protocol": 1, "token": token, "name": "hostile",
                          "version": "1", **extra})


def receive(sock):
    """The next message (commands skipped), logged to stderr."""
    while True:
        flags, body = frame(sock)
        if not flags & 4:
            message = msgpack.unpackb(body)
            print(f"hostile: got {message['type']} of {len(body)} bytes"
                  + (f": {message.get('message', '')[:200]!r}"
                     if message["type"] in ("reject", "error") else ""),
                  file=sys.stderr, flush=True)
            return message


def play(sock, at_welcome=None):
    """Say hello and play the first option of every request; `at_welcome(sock)` runs once
    the welcome is in."""
    send(sock, hello())
    while True:
        try:
            message = receive(sock)
        except EOFError:
            return
        if message["type"] in ("reject", "error") or (
                message["type"] == "end" and not message.get("more_games")):
            return
        if message["type"] == "welcome" and at_welcome is not None:
            at_welcome(sock)
        if message["type"] != "request":
            continue
        if message["kind"] == "exchange":
            reply = {"type": "reply", "id": message["id"], "action": {
                "action": "exchange", "give": message["observation"]["hand"][:3]}}
        else:
            reply = {"type": "reply", "id": message["id"], "option": 0}
        send(sock, msgpack.packb(reply))


def wide(count):
    """A map holding an array of `count` empty maps: cheap to send, costly to decode."""
    head = b"\xdd" + struct.pack(">I", count)
    return b"\x81\xa4type" + head + b"\x80" * count


def linger():
    """Keep the connections open (and the process alive) until the referee stops it."""
    time.sleep(120)


def main():
    if ATTACK == "none":
        play(connect())
    elif ATTACK == "multipart":
        sock = connect()
        size = int(os.environ.get("TICHU_TEST_FRAME_BYTES", "65536"))
        chunk = header(size, more=True) + b"x" * size
        for _ in range(int(os.environ.get("TICHU_TEST_MB", "256")) * (1 << 20) // size):
            try:
                sock.sendall(chunk)
            except OSError:
                break  # the referee closed the connection: nothing more to send
        print("hostile: multipart sent", file=sys.stderr, flush=True)
        linger()
    elif ATTACK in ("bomb_wide", "bomb_small_wide", "bomb_deep", "bomb_declared",
                    "oversize_hello", "nul_hello"):
        sock = connect()
        data = {
            "bomb_wide": lambda: wide(1000000),
            "bomb_small_wide": lambda: wide(16000),
            "bomb_deep": lambda: b"\x81\xa4type" + b"\x91" * 16000 + b"\xc0",
            "bomb_declared": lambda: b"\x86" + b"".join(msgpack.packb(x) for x in (
                "type", "hello", "protocol", 1, "token", TOKEN, "name", "hostile", "version",
                "1", "capabilities")) + b"\xdd\xff\xff\xff\xff",
            "oversize_hello": lambda: hello(token="t" * 200000),
            "nul_hello": lambda: msgpack.packb({
                "type": "\x00" * int(os.environ.get("TICHU_TEST_NULS", "1000000")),
                "protocol": 1, "token": TOKEN, "name": "hostile", "version": "1"}),
        }[ATTACK]()
        send(sock, data)
        with contextlib.suppress(EOFError):
            receive(sock)
        linger()
    elif ATTACK == "connection_flood":
        socks = []
        for _ in range(30):
            with contextlib.suppress(OSError):
                socks.append(connect())
        for sock in socks:
            try:
                send(sock, wide(1000000))
            except (OSError, EOFError):
                break  # the referee has seen enough
        linger()
    elif ATTACK == "impostor":
        impostor = connect()
        send(impostor, hello(token=os.environ["TICHU_TEST_VICTIM_TOKEN"]))
        play(connect())
    elif ATTACK == "extra_connections":
        idle = [connect() for _ in range(int(os.environ.get("TICHU_TEST_CONNECTIONS", "3")) - 1)]
        for link in idle:
            link.handshake()  # idle, not stalled: a handshake left unfinished is dropped
        play(connect())
        del idle
    elif ATTACK == "second_hello":
        kept = []

        def second_hello(sock):
            kept.append(connect())  # kept open for the game
            send(kept[0], hello())
            time.sleep(3600)  # and no reply: the referee, waiting for one, reads the hello
            # (were it to play on, a short game could end before that connection's turn)
        play(connect(), at_welcome=second_hello)
    elif ATTACK == "hello_again":
        play(connect(), at_welcome=lambda sock: send(sock, hello()))
    elif ATTACK == "stranger":
        link = connect()
        print("hostile: stranger connected", flush=True)
        ready = b"\x05READY" + b"\x0bSocket-Type" + struct.pack(">I", 6) + b"DEALER"
        data = hello()
        got = 0
        try:  # everything at once, without waiting for the referee's greeting
            link.sock.sendall(bytes((4, len(ready))) + ready + header(len(data)) + data)
            while chunk := link.sock.recv(4096):
                got += len(chunk)
        except OSError:
            pass  # reset: closed with what it sent unread
        print(f"hostile: stranger closed after {got} bytes from the referee", flush=True)
        linger()
    else:
        sys.exit(f"unknown TICHU_TEST_ATTACK {ATTACK!r}")


if __name__ == "__main__":
    main()
