"""The web server's guards (arena.league.limits) without a server: the slots, whom a
connection counts for, the connection guard driven through a scripted transport (as
python-chess drives an engine protocol), the event streams driven as raw ASGI, and the
open-file limit. tests/league/test_floods.py tries the same attacks on a real server."""

from __future__ import annotations

import asyncio
import json
import resource
from collections.abc import AsyncGenerator, Callable
from typing import Any

import pytest
from starlette.requests import Request
from uvicorn.server import ServerState

from arena.errors import ArenaError
from arena.league import limits
from arena.league.config import ServerLimits
from arena.league.limits import (
    EventStreams,
    Excess,
    GuardedHttp,
    Slots,
    answer,
    check_open_files,
    client_key,
    proxy_networks,
    raise_open_files,
    server_config,
)
from tests.requirements import not_applicable

pytestmark = pytest.mark.timeout(60)

SHORT = 0.05
"""The deadlines of these tests, in seconds."""


# ----- slots and clients -------------------------------------------------------------------


def test_slots_refuse_past_the_per_client_cap_then_past_the_total():
    slots = Slots(per_client=2, total=3)
    assert [slots.take("a"), slots.take("a"), slots.take("a")] == [None, None, Excess.CLIENT]
    assert slots.take("b") is None
    assert slots.take("c") is Excess.TOTAL and slots.take(None) is Excess.TOTAL
    slots.give_back("a")
    assert slots.take("c") is None and slots.open == 3
    assert slots.by_client == {"a": 1, "b": 1, "c": 1}


def test_a_client_of_none_counts_toward_the_total_only():
    slots = Slots(per_client=1, total=3)
    assert [slots.take(None) for _ in range(4)] == [None, None, None, Excess.TOTAL]
    for _ in range(3):
        slots.give_back(None)
    assert slots.open == 0 and not slots.by_client


def test_a_client_is_its_address_an_ipv6_client_its_64_and_a_proxy_none():
    proxies = proxy_networks(["127.0.0.1", "10.0.0.0/8", "::1"])
    assert client_key("203.0.113.7", proxies) == "203.0.113.7"
    assert client_key("::ffff:203.0.113.7", proxies) == "203.0.113.7"
    assert client_key("2001:db8:1:2:aaaa::1", proxies) == client_key("2001:db8:1:2::99", proxies) \
        == "2001:db8:1:2::/64"
    assert client_key("2001:db8:1:3::1", proxies) == "2001:db8:1:3::/64"
    assert [client_key(h, proxies) for h in ("127.0.0.1", "10.9.8.7", "::1", "::ffff:10.1.1.1",
                                             None, "")] == [None] * 6
    assert client_key("127.0.0.2", proxies) == "127.0.0.2"
    assert client_key("testclient", proxies) == "testclient"


def test_an_answer_is_a_complete_response_with_a_json_error():
    raw = answer(429, "too many")
    head, body = raw.split(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    assert lines[0] == "HTTP/1.1 429 Too Many Requests"
    assert f"content-length: {len(body)}" in lines and "connection: close" in lines
    assert "retry-after: 10" in lines and "content-type: application/json" in lines
    assert json.loads(body) == {"error": "too many", "status": 429}
    assert b"retry-after" not in answer(408, "late")


# ----- the connection guard, on a scripted transport ----------------------------------------


class Transport:
    """A transport that records what the protocol does to it; `close` reports the loss as
    a real one does, on the loop's next turn, to the protocol it has then."""

    def __init__(self, peer: str) -> None:
        self.peer = peer
        self.written = bytearray()
        self.eof = False
        self.closing = False
        self.lost = False
        """The protocol was told the connection is lost."""
        self.protocol: Any = None

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": (self.peer, 40000), "sockname": ("127.0.0.1", 8000)}.get(
            name, default)

    def write(self, data: bytes) -> None:
        assert not self.eof, "written after write_eof"
        self.written += data

    def can_write_eof(self) -> bool:
        return True

    def write_eof(self) -> None:
        self.eof = True

    def close(self) -> None:
        if not self.closing:
            self.closing = True
            asyncio.get_running_loop().call_soon(self._lose)

    def _lose(self) -> None:
        self.protocol.connection_lost(None)
        self.lost = True

    def is_closing(self) -> bool:
        return self.closing

    def set_protocol(self, protocol: Any) -> None:
        self.protocol = protocol

    def get_protocol(self) -> Any:
        return self.protocol

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def status(self) -> int | None:
        """The status of the first response written, if any."""
        return int(self.written.split(b" ")[1]) if self.written else None

    def error(self) -> str:
        return str(json.loads(bytes(self.written).split(b"\r\n\r\n", 1)[1])["error"])


async def app(scope: dict[str, Any], receive: Callable[..., Any], send: Callable[..., Any]
              ) -> None:
    """Reads the request's body, then answers 200."""
    while (await receive()).get("more_body"):
        pass
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


class Server:
    """The guard's protocol class as uvicorn would make its connections."""

    def __init__(self, **caps: Any) -> None:
        defaults: dict[str, Any] = {"header_seconds": SHORT, "body_seconds": SHORT,
                                    "proxies": ("192.0.2.1",)}
        self.config = server_config(app, ServerLimits(**{**defaults, **caps}),
                                    lifespan="off", log_level="warning")
        self.config.load()
        self.protocol = self.config.http_protocol_class
        assert issubclass(self.protocol, GuardedHttp)
        self.guard = self.protocol.guard
        self.state = ServerState()

    def connect(self, peer: str, data: bytes = b"") -> Transport:
        transport = Transport(peer)
        protocol = self.protocol(config=self.config, server_state=self.state, app_state={},
                                 _loop=asyncio.get_running_loop())
        transport.protocol = protocol
        protocol.connection_made(transport)  # type: ignore[arg-type]  # the scripted one
        if data:
            transport.protocol.data_received(data)
        return transport


GET = b"GET /api/standings HTTP/1.1\r\nHost: x\r\n\r\n"
HALF = b"GET /api/standings HTTP/1.1\r\nHost: x\r\n"


async def settle(until: Callable[[], bool], seconds: float = 10.0) -> None:
    """Run the loop until `until()` holds (at most `seconds`: a bound against a hang)."""
    for _ in range(int(seconds / 0.01)):
        if until():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the guard never got there")


@pytest.fixture(autouse=True)
def brief_lingering(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "LINGER_SECONDS", SHORT)
    monkeypatch.setattr(limits, "POLL_SECONDS", 0.01)


def test_connections_past_the_per_client_cap_get_429_and_past_the_total_503():
    async def scenario() -> None:
        server = Server(connections=3, connections_per_client=2, header_seconds=60)
        held = [server.connect("203.0.113.5", HALF) for _ in range(2)]
        refused = server.connect("203.0.113.5", HALF)
        assert refused.status() == 429 and refused.eof and "at most 2" in refused.error()
        assert "connections_per_client" in refused.error()
        other = server.connect("198.51.100.9", GET)
        assert not other.closing
        full = server.connect("198.51.100.10", GET)
        assert full.status() == 503 and full.eof and "(3, the league's connections)" in \
            full.error()
        assert [t.written for t in held] == [b"", b""]  # held, unanswered
        await settle(lambda: other.status() == 200)
        await settle(lambda: refused.lost and full.lost)  # after their lingering
        assert server.guard.connections.open == 3 and server.guard.lingering == 0
        held[0].close()
        await settle(lambda: server.guard.connections.open == 2)
        again = server.connect("203.0.113.5", GET)
        await settle(lambda: again.status() == 200)

    asyncio.run(scenario())


def test_a_listed_proxy_counts_toward_the_total_only():
    async def scenario() -> None:
        server = Server(connections=5, connections_per_client=1, header_seconds=60)
        proxied = [server.connect("192.0.2.1", HALF) for _ in range(5)]
        assert [t.written for t in proxied] == [b""] * 5
        assert server.connect("192.0.2.1", HALF).status() == 503

    asyncio.run(scenario())


def test_headers_late_get_408_and_a_silent_connection_is_closed_without_a_word():
    async def scenario() -> None:
        server = Server()
        half, silent = server.connect("203.0.113.5", HALF), server.connect("203.0.113.6")
        await settle(lambda: half.lost and silent.lost)
        assert half.status() == 408 and "headers did not arrive within 0.05 s" in half.error()
        assert half.eof and silent.written == b"" and silent.eof
        assert server.guard.connections.open == 0

    asyncio.run(scenario())


def test_a_body_late_gets_408_and_its_request_is_told_the_client_is_gone():
    async def scenario() -> None:
        server = Server()
        transport = server.connect("203.0.113.5", b"POST /x HTTP/1.1\r\nHost: x\r\n"
                                   b"Content-Length: 10\r\n\r\n12345")
        cycle = transport.protocol.cycle
        await settle(lambda: transport.status() == 408)
        assert cycle.disconnected  # at once, before the connection is closed
        assert "body did not arrive" in transport.error()
        await settle(lambda: transport.lost)
        assert server.guard.connections.open == 0

    asyncio.run(scenario())


def test_a_head_over_its_size_gets_431_however_it_is_cut():
    """One endless header value (httptools gathers it whole before telling uvicorn), or many
    header lines: the bytes of the head are counted as they come."""
    async def scenario() -> None:
        server = Server(header_seconds=60)
        one, many = (server.connect("203.0.113.5", HALF + b"X-Slow: "),
                     server.connect("203.0.113.6", HALF + b"X-Slow: "))
        for _ in range(limits.HEAD_BYTES // 8192 + 2):
            for transport, piece in ((one, b"a" * 8192), (many, b"a\r\nX-More: " + b"b" * 8180)):
                if not transport.closing:
                    transport.protocol.data_received(piece)
        for transport in (one, many):
            assert transport.status() == 431 and "over 64 KiB" in transport.error()
            assert transport.protocol.head_bytes <= limits.HEAD_BYTES + 8192
        await settle(lambda: server.guard.connections.open == 0)

    asyncio.run(scenario())


def test_a_head_under_its_size_in_many_pieces_is_served():
    """The control: a head of 60 KiB, sent a line at a time."""
    async def scenario() -> None:
        server = Server(header_seconds=60)
        transport = server.connect("203.0.113.5", HALF)
        for _ in range(60):
            transport.protocol.data_received(b"X-Line: " + b"b" * 1014 + b"\r\n")
        transport.protocol.data_received(b"\r\n")
        await settle(lambda: transport.status() is not None)
        assert transport.status() == 200

    asyncio.run(scenario())


def test_a_request_the_parser_refuses_gets_a_json_400():
    async def scenario() -> None:
        server = Server()
        transport = server.connect("203.0.113.5", b"GET / HTTP/1.1\r\nBad Header\r\n\r\n")
        assert transport.status() == 400 and "not an HTTP/1.1 request" in transport.error()
        await settle(lambda: server.guard.connections.open == 0)

    asyncio.run(scenario())


def test_a_request_in_time_is_answered_and_the_next_one_has_a_deadline_of_its_own():
    """The control: the deadlines do not touch a prompt request; and after a response, a
    keep-alive connection's next request gets the header deadline again."""
    async def scenario() -> None:
        server = Server(header_seconds=0.5)
        transport = server.connect("203.0.113.5", GET)
        await settle(lambda: transport.status() == 200)
        assert not transport.closing and transport.protocol.deadline is not None
        transport.protocol.data_received(HALF)
        await settle(lambda: transport.closing)
        assert transport.written.count(b"HTTP/1.1 ") == 2 and b"HTTP/1.1 408" in \
            transport.written

    asyncio.run(scenario())


def test_a_body_within_its_deadline_is_read_whole():
    async def scenario() -> None:
        server = Server(body_seconds=5)
        transport = server.connect("203.0.113.5", b"POST /x HTTP/1.1\r\nHost: x\r\n"
                                   b"Content-Length: 10\r\n\r\n12345")
        await asyncio.sleep(SHORT * 2)
        transport.protocol.data_received(b"67890")
        await settle(lambda: transport.status() == 200)
        assert not transport.closing

    asyncio.run(scenario())


def test_an_upgrade_to_websocket_is_not_taken_and_its_connection_stays_counted():
    """An upgraded connection would leave the guard (its slot never given back)."""
    async def scenario() -> None:
        server = Server(header_seconds=60)
        transport = server.connect("203.0.113.5", b"GET / HTTP/1.1\r\nHost: x\r\n"
                                   b"Connection: Upgrade\r\nUpgrade: websocket\r\n"
                                   b"Sec-WebSocket-Version: 13\r\n"
                                   b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
        await settle(lambda: transport.status() is not None)
        assert transport.status() == 200 and transport.protocol.admitted
        transport.close()
        await settle(lambda: server.guard.connections.open == 0)

    asyncio.run(scenario())


def test_refused_connections_linger_only_up_to_a_cap(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(limits, "LINGERING", 2)

    async def scenario() -> None:
        server = Server(connections=1, connections_per_client=1, header_seconds=60)
        server.connect("203.0.113.5", HALF)
        refused = [server.connect("203.0.113.5", HALF) for _ in range(3)]
        assert [t.status() for t in refused] == [429] * 3
        assert [t.eof for t in refused] == [True, True, False]  # the third: closed at once
        assert refused[2].closing and server.guard.lingering == 2
        await settle(lambda: server.guard.lingering == 0)

    asyncio.run(scenario())


# ----- the event streams, as raw ASGI -------------------------------------------------------


class Stream:
    """One event stream's request, its messages sent and its client's hanging up."""

    def __init__(self, streams: EventStreams, host: str,
                 ticks: AsyncGenerator[str, None] | None = None) -> None:
        self.sent: list[dict[str, Any]] = []
        self.gone = asyncio.Event()
        scope = {"type": "http", "client": (host, 40000), "asgi": {"spec_version": "2.3"},
                 "method": "GET", "path": "/events", "headers": [], "query_string": b""}
        request = Request(scope, self.receive)
        response = streams.response(request, ticks or news())
        self.task = asyncio.ensure_future(response(scope, self.receive, self.send))

    async def receive(self) -> dict[str, Any]:
        await self.gone.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)

    def status(self) -> int | None:
        return self.sent[0]["status"] if self.sent else None

    def body(self) -> bytes:
        return b"".join(m.get("body", b"") for m in self.sent[1:])


async def news() -> AsyncGenerator[str, None]:
    """A stream's ticks: news once, then none, for ever."""
    yield "event: table\ndata: 1\n\n"
    while True:
        yield ""


def make_streams(per_client: int = 2, total: int = 3, minutes: float = 10.0,
                 heartbeat: float = 60.0) -> EventStreams:
    import threading

    caps = ServerLimits(streams=total, streams_per_client=per_client, stream_minutes=minutes,
                        proxies=("192.0.2.1",))
    return EventStreams(caps, threading.Event(), heartbeat)


def test_streams_past_the_per_client_cap_get_429_past_the_total_503_before_streaming():
    async def scenario() -> None:
        streams = make_streams()
        mine = [Stream(streams, "203.0.113.5") for _ in range(2)]
        await settle(lambda: all(s.status() == 200 for s in mine))
        extra = Stream(streams, "203.0.113.5")
        await settle(extra.task.done)
        assert extra.status() == 429 and b"at most 2" in extra.body()
        assert b"streams_per_client" in extra.body()
        other = Stream(streams, "198.51.100.9")
        await settle(lambda: other.status() == 200 and b"event: table" in other.body())
        full = Stream(streams, "198.51.100.10")
        await settle(full.task.done)
        assert full.status() == 503 and b"the league's streams" in full.body()
        mine[0].gone.set()  # a client that goes gives its slot back
        await settle(lambda: mine[0].task.done() and streams.slots.open == 2)
        again = Stream(streams, "203.0.113.5")
        await settle(lambda: again.status() == 200)
        for stream in [mine[1], other, again]:
            stream.gone.set()
        await settle(lambda: streams.slots.open == 0)

    asyncio.run(scenario())


def test_a_stream_ends_by_itself_after_its_lifetime_and_gives_its_slot_back():
    async def scenario() -> None:
        streams = make_streams(minutes=0.002)  # 0.12 s
        stream = Stream(streams, "203.0.113.5")
        await settle(stream.task.done)
        assert stream.status() == 200 and stream.sent[-1] == {
            "type": "http.response.body", "body": b"", "more_body": False}
        assert streams.slots.open == 0

    asyncio.run(scenario())


def test_a_quiet_stream_sends_heartbeats_and_ends_when_the_server_stops():
    async def scenario() -> None:
        streams = make_streams(heartbeat=0.02)
        stream = Stream(streams, "203.0.113.5")
        await settle(lambda: stream.body().count(b": still here\n\n") >= 2)
        streams.stopping.set()
        await settle(stream.task.done)
        assert streams.slots.open == 0

    asyncio.run(scenario())


def test_streams_forwarded_by_a_listed_proxy_count_toward_the_total_only():
    async def scenario() -> None:
        streams = make_streams(per_client=1, total=3)
        proxied = [Stream(streams, "192.0.2.1") for _ in range(3)]
        await settle(lambda: all(s.status() == 200 for s in proxied))
        for stream in proxied:
            stream.gone.set()
        await settle(lambda: streams.slots.open == 0)

    asyncio.run(scenario())


# ----- the open-file limit ------------------------------------------------------------------


def test_the_soft_open_file_limit_is_raised_toward_the_hard_one():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard <= 256:
        not_applicable(f"the hard limit ({hard}) leaves nothing to raise")
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
    try:
        raised = raise_open_files()
        assert raised == resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        assert raised == (limits.OPEN_FILES_CEILING if hard == resource.RLIM_INFINITY
                          else min(hard, limits.OPEN_FILES_CEILING)) > 256
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_connection_cap_over_half_the_open_file_limit_is_refused():
    check_open_files(ServerLimits(), 1024)  # 256 + 64 lingering fit in 512
    with pytest.raises(ArenaError, match=r"connections = 500 .* lower league.connections"):
        check_open_files(ServerLimits(connections=500), 1024)
