"""Floods against a real `arena league serve` (the guards of arena.league.limits). Each is
tried for real from one loopback address while another address is a second client (Linux
routes all of 127/8 to the loopback):

| attack                                  | guard                                       |
|-----------------------------------------|---------------------------------------------|
| half-sent headers, held (slowloris)      | connections_per_client 429, header_seconds 408 |
| headers without end                      | HEAD_BYTES 431                              |
| a body that never ends                   | body_seconds 408                            |
| event streams opened without end         | streams_per_client 429                      |
| many addresses at once                   | connections and streams in total, 503       |
| upgrades to WebSocket (out of the count) | no upgrade taken                            |
| a listed proxy                           | the totals only; streams per forwarded address |

The control is a server whose caps are far above the attack and whose header deadline is
long: there every connection of the same attack is held open, and every stream streams.
The counts are small, as the test config's caps are. README's Security section has the
figures of the full-size floods against the default limits (scripts/flood.py).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.league.conftest import WAIT, League, served
from tests.requirements import not_applicable

pytestmark = pytest.mark.timeout(300)

PER_CLIENT = 4
TOTAL = 12
STREAMS_PER_CLIENT = 2
STREAMS = 6
GUARDED = f"""connections = {TOTAL}
connections_per_client = {PER_CLIENT}
streams = {STREAMS}
streams_per_client = {STREAMS_PER_CLIENT}
header_seconds = 5
body_seconds = 3
proxies = ["127.0.0.9"]
"""
"""Small caps (127.0.0.1 is no proxy here: it attacks like any address)."""
CONTROL = """connections = 500
connections_per_client = 500
streams = 100
streams_per_client = 100
header_seconds = 600
stream_minutes = 0.05
proxies = []
"""
"""Caps far above the attacks, a long header deadline, streams of 3 s."""
HALF = b"GET /api/standings HTTP/1.1\r\nHost: league\r\nX-Slow: "
"""A request's headers, never finished."""
STREAM = b"GET /events HTTP/1.1\r\nHost: league\r\n\r\n"


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[League]:
    _loopback_addresses()
    with served(tmp_path_factory.mktemp("guarded"), GUARDED, house=("random",)) as league:
        yield league


@pytest.fixture(scope="module")
def control(tmp_path_factory: pytest.TempPathFactory) -> Iterator[League]:
    _loopback_addresses()
    with served(tmp_path_factory.mktemp("control"), CONTROL, house=("random",)) as league:
        yield league


def _loopback_addresses() -> None:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.2", 0))
        except OSError:
            not_applicable("this system routes only 127.0.0.1 to the loopback")


@contextlib.contextmanager
def sockets() -> Iterator[list[socket.socket]]:
    """A list to put the test's connections in, all closed after the block."""
    opened: list[socket.socket] = []
    try:
        yield opened
    finally:
        for sock in opened:
            sock.close()


def connect(league: League, source: str, send: bytes, opened: list[socket.socket]
            ) -> socket.socket:
    sock = socket.socket()
    opened.append(sock)
    sock.settimeout(WAIT)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", league.port))
    sock.sendall(send)
    return sock


def read_all(sock: socket.socket) -> bytes:
    """What the server sends until it closes (bounded by the socket's timeout)."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def head(sock: socket.socket) -> bytes:
    """A response's status line and headers, and what came with them."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, f"closed after {data!r}"
        data += chunk
    return data


def status_of(data: bytes) -> int:
    return int(data.split(b" ", 2)[1])


def error_of(data: bytes) -> str:
    body = json.loads(data.split(b"\r\n\r\n", 1)[1])
    assert body["status"] == status_of(data)
    return str(body["error"])


def held(sock: socket.socket) -> bool:
    """Nothing has come on `sock`, neither an answer nor its end."""
    sock.setblocking(False)
    try:
        sock.recv(1, socket.MSG_PEEK)
    except BlockingIOError:
        return True
    finally:
        sock.settimeout(WAIT)
    return False


def answered(league: League, source: str, path: str = "/api/standings") -> int:
    """The status of a plain request from `source`, read whole."""
    client = http.client.HTTPConnection("127.0.0.1", league.port, timeout=WAIT,
                                        source_address=(source, 0))
    try:
        client.request("GET", path)
        response = client.getresponse()
        response.read()
        return response.status
    finally:
        client.close()


def test_slowloris_from_one_address_is_capped_and_another_client_is_served(guarded: League):
    with sockets() as opened:
        silent = connect(guarded, "127.0.0.3", b"", opened)
        kept = [connect(guarded, "127.0.0.1", HALF, opened) for _ in range(PER_CLIENT)]
        extra = [connect(guarded, "127.0.0.1", HALF, opened) for _ in range(6)]
        for sock in extra:
            refused = read_all(sock)
            assert status_of(refused) == 429, refused
            assert f"at most {PER_CLIENT}" in error_of(refused)
        assert all(held(sock) for sock in kept)
        assert answered(guarded, "127.0.0.2") == 200
        assert all(held(sock) for sock in kept)  # the other client was served meanwhile
        for sock in kept:  # the header deadline, eventually
            late = read_all(sock)
            assert status_of(late) == 408 and "headers did not arrive" in error_of(late)
        assert read_all(silent) == b""  # it sent nothing: closed without a word


def test_the_same_slowloris_holds_every_connection_without_the_caps(control: League):
    """The control: the attack is real."""
    with sockets() as opened:
        kept = [connect(control, "127.0.0.1", HALF, opened) for _ in range(PER_CLIENT + 6)]
        assert answered(control, "127.0.0.1") == 200  # the server took every one before
        assert all(held(sock) for sock in kept)


def test_a_body_that_never_ends_gets_408(guarded: League):
    post = (b"POST /upload HTTP/1.1\r\nHost: league\r\nContent-Length: 1000\r\n"
            b"Connection: close\r\n"
            b"Content-Type: multipart/form-data; boundary=x\r\n\r\n--x\r\n")
    with sockets() as opened:
        late = read_all(connect(guarded, "127.0.0.4", post, opened))
        assert status_of(late) == 408 and "body did not arrive" in error_of(late)
        whole = post + b"x" * (1000 - len(post.split(b"\r\n\r\n", 1)[1]))
        assert status_of(read_all(connect(guarded, "127.0.0.4", whole, opened))) in (400, 403)


def test_a_stream_flood_from_one_address_is_capped_and_another_client_streams(
        guarded: League):
    with sockets() as opened:
        kept = [connect(guarded, "127.0.0.5", STREAM, opened)
                for _ in range(STREAMS_PER_CLIENT)]
        for sock in kept:
            assert status_of(head(sock)) == 200
        for _ in range(3):
            refused = read_all(connect(guarded, "127.0.0.5", STREAM, opened))
            assert status_of(refused) == 429, refused
            assert f"at most {STREAMS_PER_CLIENT}" in error_of(refused)
        other = connect(guarded, "127.0.0.6", STREAM, opened)
        first = head(other)
        while b"event: standings" not in first:
            first += other.recv(65536)
        assert status_of(first) == 200


def test_the_same_stream_flood_streams_every_one_without_the_caps(control: League):
    with sockets() as opened:
        for _ in range(STREAMS_PER_CLIENT + 3):
            assert status_of(head(connect(control, "127.0.0.5", STREAM, opened))) == 200


def test_a_stream_ends_by_itself_after_its_lifetime(control: League):
    with sockets() as opened:
        sock = connect(control, "127.0.0.7", STREAM, opened)
        whole = head(sock)
        while not whole.endswith(b"\r\n0\r\n\r\n"):  # the chunked body's end
            chunk = sock.recv(65536)
            assert chunk, f"closed before the stream's end: {whole!r}"
            whole += chunk
        assert status_of(whole) == 200


def flood(league: League, send: bytes, per_address: int, count: int,
          opened: list[socket.socket]) -> list[socket.socket]:
    """`count` connections sending `send`, `per_address` from each of 127.0.0.10 and up
    (under the per-client cap)."""
    return [connect(league, f"127.0.0.{10 + i // per_address}", send, opened)
            for i in range(count)]


def test_connections_past_the_total_get_503_while_those_before_are_held(guarded: League):
    with sockets() as opened:
        socks = flood(guarded, HALF, PER_CLIENT - 1, TOTAL + 3, opened)
        replies = [read_all(sock) for sock in socks]  # 408: held until the header deadline
        statuses = [status_of(reply) for reply in replies]
        kept = statuses.count(408)
        assert statuses == [408] * kept + [503] * (len(statuses) - kept), statuses
        assert 0 < kept <= TOTAL
        assert f"({TOTAL}, the league's connections)" in error_of(replies[-1])


def test_the_same_connections_are_all_held_without_the_caps(control: League):
    with sockets() as opened:
        socks = flood(control, HALF, PER_CLIENT - 1, TOTAL + 3, opened)
        assert answered(control, "127.0.0.2") == 200  # the server took every one before
        assert all(held(sock) for sock in socks)


def test_streams_past_the_total_get_503(guarded: League):
    with sockets() as opened:
        socks = flood(guarded, STREAM, 1, STREAMS + 2, opened)
        heads = [head(sock) for sock in socks]
        statuses = [status_of(h) for h in heads]
        streaming = statuses.count(200)
        assert statuses == [200] * streaming + [503] * (len(statuses) - streaming), statuses
        assert 0 < streaming <= STREAMS
        refused = heads[-1] + read_all(socks[-1])
        assert f"({STREAMS}, the league's streams)" in error_of(refused)


def test_the_same_streams_all_stream_without_the_caps(control: League):
    with sockets() as opened:
        socks = flood(control, STREAM, 1, STREAMS + 2, opened)
        assert [status_of(head(sock)) for sock in socks] == [200] * (STREAMS + 2)


def test_a_listed_proxy_is_held_to_the_totals_and_its_streams_to_the_forwarded_address(
        guarded: League):
    with sockets() as opened:
        kept = [connect(guarded, "127.0.0.9", HALF, opened) for _ in range(PER_CLIENT + 2)]
        assert answered(guarded, "127.0.0.2") == 200
        assert all(held(sock) for sock in kept)  # past connections_per_client: no 429
    forwarded = b"GET /events HTTP/1.1\r\nHost: league\r\nX-Forwarded-For: %s\r\n\r\n"
    with sockets() as opened:
        for _ in range(STREAMS_PER_CLIENT):
            assert status_of(head(connect(guarded, "127.0.0.9", forwarded % b"10.1.1.1",
                                          opened))) == 200
        refused = read_all(connect(guarded, "127.0.0.9", forwarded % b"10.1.1.1", opened))
        assert status_of(refused) == 429
        assert status_of(head(connect(guarded, "127.0.0.9", forwarded % b"10.1.1.2",
                                      opened))) == 200


def test_upgrades_to_websocket_leave_no_connection_counted(guarded: League):
    """Uvicorn hands an upgraded connection to another protocol, out of the guard's count:
    the league takes no upgrade, so TOTAL of them leave the server as open as before."""
    upgrade = (b"GET /api/standings HTTP/1.1\r\nHost: league\r\nConnection: Upgrade\r\n"
               b"Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
               b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
    for i in range(TOTAL + 2):
        with sockets() as opened:
            assert status_of(head(connect(guarded, f"127.0.0.{40 + i}", upgrade, opened))) \
                == 200
    assert answered(guarded, "127.0.0.2") == 200


def rss_kib(league: League) -> int:
    assert league.process is not None
    status = Path(f"/proc/{league.process.pid}/status").read_text()
    return int(status.split("VmRSS:")[1].split()[0])


def test_endless_headers_get_431_and_the_server_keeps_none_of_them(guarded: League):
    """Uvicorn bounds no head: by hand, 300 MB of headers in 1.5 s grew a server by 360 MB."""
    line = b"X-Pad: " + b"a" * 1016 + b"\r\n"
    before = rss_kib(guarded)
    with sockets() as opened:
        sock = connect(guarded, "127.0.0.8", HALF + b"a\r\n", opened)
        with contextlib.suppress(OSError):  # the server closes it, sooner or later
            for _ in range(32 * 1024 // 64):  # 32 MiB
                sock.sendall(line * 64)
        refused = head(sock)
        assert status_of(refused) == 431, refused
    assert rss_kib(guarded) - before < 16 * 1024
    with sockets() as opened:  # the control: a head of 60 KiB is served
        whole = HALF + b"a\r\n" + line * 60 + b"Connection: close\r\n\r\n"
        assert status_of(read_all(connect(guarded, "127.0.0.8", whole, opened))) == 200
