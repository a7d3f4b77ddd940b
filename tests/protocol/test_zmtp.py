"""The SDK's own ZMTP DEALER (`protocol.zmtp`) speaks the wire of libzmq: a libzmq ROUTER
and the referee's own transport both take it for a DEALER; it holds to its bound."""

from __future__ import annotations

import threading

import pytest
import zmq

from arena.referee.transport import RefereeSocket
from protocol.zmtp import Dealer, ZmtpError, frame

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize("size", [0, 5, 255, 256, 70000])
def test_a_libzmq_router_and_the_dealer_exchange_messages(size):
    context = zmq.Context()
    router = context.socket(zmq.ROUTER)
    router.setsockopt(zmq.LINGER, 0)
    router.bind("tcp://127.0.0.1:0")
    dealer = Dealer(router.getsockopt_string(zmq.LAST_ENDPOINT), 1 << 20)
    try:
        payload = bytes(range(256)) * (size // 256) + bytes(size % 256)
        dealer.send(payload)
        assert router.poll(5000)
        identity, received = router.recv_multipart()
        assert received == payload
        router.send_multipart([identity, payload[::-1]])
        assert dealer.recv(5.0) == payload[::-1]
        assert dealer.recv(0.05) is None  # nothing more: a timeout, not an error
        router.send_multipart([identity, b"after"])  # and the connection is still whole
        assert dealer.recv(None) == b"after"
    finally:
        dealer.close()
        router.close()
        context.term()


def test_the_referee_transport_takes_the_dealer_for_a_dealer():
    referee = RefereeSocket(1 << 14)
    got: list[bytes | None] = []

    def bot():  # the referee's transport moves only while it is asked to receive
        dealer = Dealer(referee.endpoint, 1 << 20)
        dealer.send(b"hello")
        got.append(dealer.recv(10.0))
        dealer.close()

    thread = threading.Thread(target=bot)
    thread.start()
    try:
        incoming = referee.receive(10.0)
        while incoming is not None and not incoming.frames:
            incoming = referee.receive(10.0)
        assert incoming is not None and incoming.frames == [b"hello"]
        assert referee.send(incoming.identity, b"x" * 1000)
        thread.join(10.0)
        assert got == [b"x" * 1000]
    finally:
        thread.join(10.0)
        referee.close()


def test_a_frame_over_the_bound_is_refused_at_its_header():
    context = zmq.Context()
    router = context.socket(zmq.ROUTER)
    router.setsockopt(zmq.LINGER, 0)
    router.bind("tcp://127.0.0.1:0")
    dealer = Dealer(router.getsockopt_string(zmq.LAST_ENDPOINT), 100)
    try:
        dealer.send(b"hi")
        identity, _ = router.recv_multipart()
        router.send_multipart([identity, bytes(101)])
        with pytest.raises(ZmtpError, match="over the maximum 100"):
            dealer.recv(5.0)
    finally:
        dealer.close()
        router.close()
        context.term()


def test_a_referee_that_is_not_zmtp_is_refused():
    import socket

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    endpoint = f"tcp://127.0.0.1:{listener.getsockname()[1]}"

    def not_zmtp():
        conn, _ = listener.accept()
        conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n" + bytes(64))
        conn.close()

    thread = threading.Thread(target=not_zmtp)
    thread.start()
    with pytest.raises(ZmtpError, match="greeting"):
        Dealer(endpoint, 100)
    thread.join()
    listener.close()
    assert frame(b"ab") == b"\x00\x02ab" and frame(bytes(300))[:9] == b"\x02" + (300).to_bytes(8, "big")
