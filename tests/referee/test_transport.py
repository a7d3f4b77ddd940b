"""The referee's ZMTP transport, spoken to by libzmq (pyzmq) and by raw sockets: both ZMTP
versions bots use, the bounds it keeps, and identities no peer can choose."""

from __future__ import annotations

import socket
import struct

import pytest
import zmq

from arena.referee.transport import RefereeSocket

pytestmark = pytest.mark.timeout(60)
LIMIT = 16384


@pytest.fixture
def referee():
    sock = RefereeSocket(LIMIT)
    yield sock
    sock.close()


class Dealers:
    """pyzmq DEALER sockets, all closed at the end of the test."""

    def __init__(self) -> None:
        self.context = zmq.Context()
        self.sockets: list[zmq.Socket] = []

    def __call__(self, endpoint: str, routing_id: bytes | None = None) -> zmq.Socket:
        sock = self.context.socket(zmq.DEALER)
        self.sockets.append(sock)
        sock.setsockopt(zmq.LINGER, 0)
        sock.setsockopt(zmq.RCVTIMEO, 5000)
        if routing_id is not None:
            sock.setsockopt(zmq.ROUTING_ID, routing_id)
        sock.connect(endpoint)
        return sock

    def close(self) -> None:
        for sock in self.sockets:
            sock.close(linger=0)
        self.context.term()


@pytest.fixture
def dealer():
    dealers = Dealers()
    yield dealers
    dealers.close()


def receive(referee: RefereeSocket):
    incoming = referee.receive(5.0)
    assert incoming is not None, "nothing arrived"
    return incoming


@pytest.fixture
def raw():
    """Plain sockets connected to an endpoint, all closed at the end of the test."""
    opened: list[socket.socket] = []

    def connect(endpoint: str) -> socket.socket:
        host, port = endpoint[len("tcp://"):].rsplit(":", 1)
        opened.append(socket.create_connection((host, int(port)), timeout=5))
        return opened[-1]
    yield connect
    for sock in opened:
        sock.close()


def read(referee: RefereeSocket, sock: socket.socket, n: int) -> bytes:
    """`n` bytes from the referee, which does its share of the work only while it is asked
    to receive (nothing may arrive meanwhile)."""
    sock.settimeout(0.01)
    data = b""
    for _ in range(500):
        assert referee.receive(0.01) is None
        try:
            chunk = sock.recv(n - len(data))
        except TimeoutError:
            continue
        assert chunk, "the referee closed the connection"
        data += chunk
        if len(data) == n:
            return data
    raise AssertionError(f"{len(data)} of {n} bytes came")


@pytest.mark.parametrize("transport", ["tcp", "ipc"])
def test_a_libzmq_dealer_talks_to_the_referee_both_ways(dealer, transport):
    referee = RefereeSocket(LIMIT, transport)
    try:
        bot = dealer(referee.endpoint)
        bot.send(b"hello")
        incoming = receive(referee)
        assert incoming.frames == [b"hello"] and incoming.refused is None
        assert referee.send(incoming.identity, b"x" * 100000)  # a long frame, 8-byte size
        assert bot.recv() == b"x" * 100000
        bot.send_multipart([b"a", b"b"])
        assert receive(referee).frames == [b"a", b"b"]  # several frames: the referee's call
    finally:
        referee.close()


def test_a_message_past_the_limit_is_refused_and_the_connection_read_no_more(dealer,
                                                                             referee):
    bot = dealer(referee.endpoint)
    bot.send(b"y" * (LIMIT + 1))
    incoming = receive(referee)
    assert incoming.frames == [] and "over the maximum 16384" in incoming.refused
    bot.send(b"after")
    assert referee.receive(0.3) is None
    assert referee.send(incoming.identity, b"still told why")  # it may still be sent to
    assert bot.recv() == b"still told why"


def test_frames_with_the_more_flag_are_refused_once_they_pass_the_limit(dealer, referee):
    bot = dealer(referee.endpoint)
    bot.send_multipart([b"z" * 1000] * 20)
    incoming = receive(referee)
    assert "over the maximum 16384" in incoming.refused


def test_identities_are_the_referees_whatever_a_peer_asks_for(dealer, referee):
    first = dealer(referee.endpoint, routing_id=b"same")
    second = dealer(referee.endpoint, routing_id=b"same")
    first.send(b"1")
    second.send(b"2")
    got = {m.frames[0]: m.identity for m in (receive(referee), receive(referee))}
    assert got[b"1"] != got[b"2"] and b"same" not in got.values()
    referee.send(got[b"2"], b"to the second")
    assert second.recv() == b"to the second"


def test_a_zmtp_2_peer_as_jeromq_0_3_is_spoken_to(referee, raw):
    peer = raw(referee.endpoint)
    peer.sendall(b"\xff" + bytes(7) + b"\x01\x7f")
    assert read(referee, peer, 10)[0] == 0xFF
    peer.sendall(b"\x01\x05")           # revision 1 (ZMTP 2.0), socket type DEALER
    assert read(referee, peer, 2)[1] == 6        # major version, then ROUTER
    peer.sendall(b"\x00\x00")           # our identity frame: empty
    assert read(referee, peer, 2) == b"\x00\x00"  # the referee's
    peer.sendall(b"\x00\x05hello")
    incoming = receive(referee)
    assert incoming.frames == [b"hello"]
    referee.send(incoming.identity, b"welcome")
    assert read(referee, peer, 9) == b"\x00\x07welcome"


def test_a_zmtp_3_ping_is_answered_with_its_context(referee, raw):
    peer = raw(referee.endpoint)
    peer.sendall(b"\xff" + bytes(7) + b"\x01\x7f\x03\x00" + b"NULL".ljust(20, b"\x00")
                 + bytes(32))
    read(referee, peer, 64)
    ready = b"\x05READY\x0bSocket-Type" + struct.pack(">I", 6) + b"DEALER"
    peer.sendall(bytes((4, len(ready))) + ready)
    peer.sendall(b"\x04\x0a\x04PING\x00\x0actx")  # TTL 1 s, context "ctx"
    peer.sendall(b"\x00\x02hi")
    assert receive(referee).frames == [b"hi"]
    flags, size = read(referee, peer, 2)
    assert flags == 4 and read(referee, peer, size).startswith(b"\x05READY")
    flags, size = read(referee, peer, 2)
    assert flags == 4 and read(referee, peer, size) == b"\x04PONGctx"


def test_a_peer_that_does_not_speak_zmtp_is_refused(referee, raw):
    peer = raw(referee.endpoint)
    peer.sendall(b"GET / HTTP/1.0\r\n\r\n")
    assert "not a ZMTP" in receive(referee).refused


def test_connections_on_an_adopted_listener_belong_to_its_owner(dealer, referee):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    name = referee.adopt(listener, "seat 2")
    bot = dealer(f"tcp://127.0.0.1:{port}")
    bot.send(b"hello")
    connected = receive(referee)
    assert connected.connected and connected.owner == "seat 2"
    message = receive(referee)
    assert message.frames == [b"hello"] and message.owner == "seat 2"
    referee.release(name)
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=5).close()


def open_zmtp3(referee: RefereeSocket, sock: socket.socket) -> None:
    """Finish a ZMTP 3.0 handshake as a DEALER on a plain socket connected to `referee`."""
    sock.sendall(b"\xff" + bytes(7) + b"\x01\x7f\x03\x00" + b"NULL".ljust(20, b"\x00")
                 + bytes(32))
    ready = b"\x05READY\x0bSocket-Type" + struct.pack(">I", 6) + b"DEALER"
    sock.sendall(bytes((4, len(ready))) + ready)
    read(referee, sock, 64)  # the referee's greeting
    flags, size = read(referee, sock, 2)
    assert flags == 4 and read(referee, sock, size).startswith(b"\x05READY")


def test_connections_are_read_in_turn_however_much_one_peer_has_sent(referee, raw):
    """A peer whose 32,768 messages the referee has read at once (one 64 KiB read) does not
    hold back another's message: each connection gets its turn, one message each."""
    flooder, other = raw(referee.endpoint), raw(referee.endpoint)
    for peer in (flooder, other):
        open_zmtp3(referee, peer)
    flood = 32768
    flooder.sendall(b"\x00\x00" * flood)  # empty messages: 64 KiB, one read of the referee
    first = receive(referee)
    assert first.frames == [b""]
    other.sendall(b"\x00\x05other")
    before = 1
    while (incoming := receive(referee)).frames != [b"other"]:
        assert incoming.identity == first.identity
        before += 1
    # it waits for what arrived before it, not for the flood: with a turn per read (not per
    # message) it would come after all 32,768
    assert before < flood // 4, f"the other peer's message came after {before} of the flood"
    rest = sum(1 for _ in range(flood - before) if receive(referee).frames == [b""])
    assert rest == flood - before and referee.receive(0.1) is None


def closed(sock: socket.socket, wait: float = 0.0) -> bool:
    """Whether the referee closed `sock` (what it sent before is read and dropped): waits up
    to `wait` seconds for the end of the connection."""
    sock.settimeout(wait or None)
    if not wait:
        sock.setblocking(False)
    try:
        while data := sock.recv(4096):
            del data
    except (BlockingIOError, TimeoutError):
        return False
    except ConnectionResetError:
        return True
    return True


def test_at_most_128_connections_are_open_and_the_oldest_silent_one_goes_first(
        dealer, referee, raw):
    speaker = dealer(referee.endpoint)  # the oldest connection, but one that has spoken
    speaker.send(b"first")
    spoke = receive(referee)
    silent = [raw(referee.endpoint) for _ in range(127)]  # 128 open: the limit
    for sock in silent:
        assert read(referee, sock, 10)[0] == 0xFF  # accepted: the referee's signature came
    assert not any(closed(sock) for sock in silent), "a connection within the limit was closed"
    newest = raw(referee.endpoint)
    assert read(referee, newest, 10)[0] == 0xFF
    assert closed(silent[0], wait=10.0), "129 connections open"
    assert not any(closed(sock) for sock in [*silent[1:], newest])
    assert referee.send(spoke.identity, b"still open")
    assert speaker.recv() == b"still open"


@pytest.mark.timeout(150)
def test_a_stalled_handshake_is_dropped(dealer, referee, raw):
    """A connection that began its ZMTP greeting and never finished it is closed after the 30 s
    a handshake may take; one that finished its handshake stays."""
    stalled = raw(referee.endpoint)
    stalled.sendall(b"\xff")
    talker = dealer(referee.endpoint)
    talker.send(b"hello")
    hello = receive(referee)
    verdict = None
    while verdict is None:  # (the test's timeout bounds the wait)
        incoming = referee.receive(1.0)
        if incoming is not None:
            assert incoming.refused is not None, incoming
            verdict = incoming
    assert verdict.refused == "no ZMTP handshake within 30 s" and verdict.identity != hello.identity
    assert closed(stalled, wait=10.0)
    assert referee.send(hello.identity, b"still open")
    assert talker.recv() == b"still open"
