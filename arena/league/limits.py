"""The web server's guards against floods: connections, request deadlines and event streams.

A league is often served without a proxy in front. The server itself must then stay
reachable while one client opens connections or event streams without end. Uvicorn offers
a total cap (`limit_concurrency`), but applies it only once a request's headers have
arrived; it has no per-client cap and no deadline on a request's headers or body. Neither
Hypercorn nor Granian caps connections per client either. So the guard is a subclass of
uvicorn's httptools protocol (`guarded_protocol`, set by `server_config`). httptools is in
the league extra, so uvicorn's h11 fallback is never used.

- A connection is counted per client address and in total (`Slots`) in `connection_made`.
  Past a cap it is answered at once, 429 (per client) or 503 (in total), with a JSON body
  and `Connection: close`, then closed (`_Refusal`).
- A request's headers must arrive within `header_seconds` of the connection or the last
  response, its body within `body_seconds` of its headers. Past that it is answered 408 and
  closed; a connection that sent nothing of a new request is closed without a word.
- A request's line and headers hold HEAD_BYTES at most (431 beyond). A request the parser
  refuses is answered 400. Every refusal here is JSON.

The event streams are capped the same way, per client and in total; each ends after
`stream_minutes` (`EventStreams`). `raise_open_files` lifts the process's soft limit of open
files, so that the caps sit well below it. Addresses of reverse proxies
(`ServerLimits.proxies`) count toward the totals only.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import ipaddress
import json
import logging
import threading
import time
from collections import Counter
from collections.abc import AsyncGenerator, Sequence
from typing import Any, ClassVar

import anyio
import uvicorn
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.utils import get_remote_addr

from arena.errors import ArenaError
from arena.league.config import ServerLimits

logger = logging.getLogger(__name__)

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

LINGER_SECONDS = 2.0
"""How long a connection being closed is read (and what it sends dropped) before it is
closed: closing with unread bytes makes the kernel send a reset, which loses the answer."""
LINGERING = 64
"""Refused connections lingering at once, at most; past that one is closed at once."""
HEAD_BYTES = 64 * 1024
"""A request's line and headers together, at most (431 beyond): uvicorn sets no bound, and
300 MB of headers sent in 1.5 s grew the server by 360 MB."""
RETRY_SECONDS = 10
"""The `Retry-After` of a 429 or 503."""
POLL_SECONDS = 0.25
"""How often an event stream looks for news."""
BACKSTOP_SECONDS = 60.0
"""A stream stuck writing to a client that reads nothing is cut this long after its end."""
OPEN_FILES_CEILING = 65536
"""The soft limit of open files `raise_open_files` asks for at most."""
WARN_SECONDS = 60.0
"""Refusals are logged at most once in this long, with their count since the last line."""


class Excess(enum.Enum):
    """Which cap a refused connection or stream is over."""

    CLIENT = "client"
    """Its client address has as many open as `*_per_client` allows: 429."""
    TOTAL = "total"
    """The server has as many open as the total cap allows: 503."""

    @property
    def status(self) -> int:
        return 429 if self is Excess.CLIENT else 503

    def key(self, what: str) -> str:
        """The [league] key of this cap on `what` ("connections" or "streams")."""
        return f"{what}_per_client" if self is Excess.CLIENT else what


class Slots:
    """Things open at once (connections, streams), counted per client and in total, capped.
    A client of None (a listed proxy, or no address) counts toward the total only."""

    def __init__(self, per_client: int, total: int) -> None:
        self.per_client = per_client
        self.total = total
        self.open = 0
        self.by_client: Counter[str] = Counter()

    def take(self, client: str | None) -> Excess | None:
        """Take a slot for `client`; None if taken, else the cap it would go over."""
        if client is not None and self.by_client[client] >= self.per_client:
            return Excess.CLIENT
        if self.open >= self.total:
            return Excess.TOTAL
        self.open += 1
        if client is not None:
            self.by_client[client] += 1
        return None

    def give_back(self, client: str | None) -> None:
        """Release a slot `take` gave `client`."""
        self.open -= 1
        if client is not None:
            self.by_client[client] -= 1
            if self.by_client[client] <= 0:
                del self.by_client[client]  # the counter holds open clients only


def proxy_networks(proxies: Sequence[str]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(p, strict=False) for p in proxies)


def client_key(host: str | None, proxies: Sequence[Network]) -> str | None:
    """Whom a connection from `host` is counted for: its address (IPv4, or an IPv6 address's
    /64, which one machine or home usually holds whole); None for a listed proxy or none."""
    if not host:
        return None
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if any(address in network for network in proxies):
        return None
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def answer(status: int, message: str) -> bytes:
    """A complete HTTP/1.1 response closing its connection, with the JSON error body."""
    body = json.dumps({"error": message, "status": status}).encode()
    reason = {400: "Bad Request", 408: "Request Timeout", 429: "Too Many Requests",
              431: "Request Header Fields Too Large", 503: "Service Unavailable"}[status]
    retry = f"retry-after: {RETRY_SECONDS}\r\n" if status in (429, 503) else ""
    return (f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(body)}\r\n{retry}connection: close\r\n\r\n").encode() + body


def excess_message(excess: Excess, what: str, limit: int) -> str:
    """The sentence of a refused connection or stream (`what`: "connections" or "streams")."""
    things = "connections" if what == "connections" else "event streams"
    if excess is Excess.CLIENT:
        return (f"too many {things} at once from your address (at most {limit}, the "
                f"league's {excess.key(what)}): close some and try again")
    return (f"the server has as many {things} open as it takes ({limit}, the league's "
            f"{excess.key(what)}): try again in a moment")


def linger(transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
    """Close `transport` gently: its answer flushed and the write side shut, then closed when
    the client closes its side (`eof_received`) or after LINGER_SECONDS at most."""
    if transport.can_write_eof():
        transport.write_eof()
    loop.call_later(LINGER_SECONDS, transport.close)


class Guard:
    """The connections of one server: their slots, the refused ones lingering, the log."""

    def __init__(self, limits: ServerLimits) -> None:
        self.limits = limits
        self.connections = Slots(limits.connections_per_client, limits.connections)
        self.proxies = proxy_networks(limits.proxies)
        self.lingering = 0
        self.refused: Counter[Excess] = Counter()
        self.warned = 0.0

    def limit(self, excess: Excess) -> int:
        return self.connections.per_client if excess is Excess.CLIENT else \
            self.connections.total

    def refuse(self, transport: asyncio.Transport, excess: Excess,
               loop: asyncio.AbstractEventLoop, host: str | None) -> None:
        """Answer a connection over a cap and close it (lingering, if few are)."""
        transport.write(answer(excess.status, excess_message(excess, "connections",
                                                             self.limit(excess))))
        self.note(excess, host)
        if self.lingering >= LINGERING:  # a flood: nothing more is held for it
            transport.close()
            return
        self.lingering += 1
        transport.set_protocol(_Refusal(self))
        linger(transport, loop)

    def note(self, excess: Excess, host: str | None) -> None:
        """Count a refusal; log the count at most once every WARN_SECONDS."""
        self.refused[excess] += 1
        now = time.monotonic()
        if now - self.warned >= WARN_SECONDS:
            self.warned = now
            logger.warning("refused connections over the caps since the last note: %d per "
                           "client (429), %d in total (503); the last from %s",
                           self.refused[Excess.CLIENT], self.refused[Excess.TOTAL], host)
            self.refused.clear()


class _Refusal(asyncio.Protocol):
    """A refused connection after its answer: what it sends is dropped until it closes."""

    def __init__(self, guard: Guard) -> None:
        self.guard = guard

    def data_received(self, data: bytes) -> None:
        pass  # read, so that closing sends no reset

    def connection_lost(self, exc: Exception | None) -> None:
        self.guard.lingering -= 1


class GuardedHttp(HttpToolsProtocol):
    """Uvicorn's httptools protocol with the guard's caps and deadlines (`guarded_protocol`
    makes the class of one server, its `guard` set)."""

    guard: ClassVar[Guard]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.client_key: str | None = None
        self.admitted = False
        self.deadline: asyncio.TimerHandle | None = None
        self.begun = False
        """Some of a request arrived, its headers not all (the header deadline answers 408)."""
        self.head_bytes = 0
        """The bytes of the unfinished head counted so far (HEAD_BYTES at most)."""
        self.reading_body = False
        self.ending = False
        """Answered and closing: what the client sends is dropped."""

    def connection_made(  # type: ignore[override]  # uvicorn's signature, as its class has it
            self, transport: asyncio.Transport) -> None:
        peer = get_remote_addr(transport)
        host = peer[0] if peer else None
        self.client_key = client_key(host, self.guard.proxies)
        excess = self.guard.connections.take(self.client_key)
        if excess is not None:
            self.guard.refuse(transport, excess, self.loop, host)
            return
        self.admitted = True
        super().connection_made(transport)
        self._arm(self.guard.limits.header_seconds, self._headers_late)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.admitted:
            return
        self.admitted = False
        self._disarm()
        self.guard.connections.give_back(self.client_key)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.ending:
            return
        in_head = self.begun
        super().data_received(data)
        if in_head and self.begun:  # all of `data` was head, and the head goes on
            self.head_bytes += len(data)
            if self.head_bytes > HEAD_BYTES:
                self._end(431, f"the request's line and headers are over {HEAD_BYTES // 1024} "
                               "KiB")

    def send_400_response(self, msg: str) -> None:
        """A request the parser refuses: answered 400 in JSON (uvicorn's is plain text)."""
        self._end(400, f"not an HTTP/1.1 request this server can read ({msg.rstrip('.')})")

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self.begun = True
        self.head_bytes = 0

    def on_headers_complete(self) -> None:
        self.begun = False
        self.reading_body = True
        self._arm(self.guard.limits.body_seconds, self._body_late)
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self.reading_body = False
        self._disarm()
        super().on_message_complete()
        self._idle()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.reading_body:
            self._idle()

    def _idle(self) -> None:
        """Between requests (no response under way): the next one's headers are due."""
        if self.admitted and not self.ending and not self.transport.is_closing() and (
                self.cycle is None or self.cycle.response_complete):
            self._arm(self.guard.limits.header_seconds, self._headers_late)

    def _arm(self, seconds: float, late: Any) -> None:
        self._disarm()
        self.deadline = self.loop.call_later(seconds, late)

    def _disarm(self) -> None:
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None

    def _headers_late(self) -> None:
        self.deadline = None
        seconds = self.guard.limits.header_seconds
        self._end(408 if self.begun else None,
                  f"the request's headers did not arrive within {seconds:g} s (the league's "
                  "header_seconds)")

    def _body_late(self) -> None:
        self.deadline = None
        seconds = self.guard.limits.body_seconds
        self._end(408, f"the request's body did not arrive within {seconds:g} s of its "
                       "headers (the league's body_seconds)")

    def _end(self, status: int | None, message: str) -> None:
        """Answer `status` (None, or a response under way: no answer) and close, the
        request's app told the client is gone (its receive() says so, its sends are
        dropped)."""
        if self.transport.is_closing():
            return
        cycle = self.cycle
        under_way = cycle is not None and cycle.response_started and \
            not cycle.response_complete
        if cycle is not None and not cycle.response_complete:
            cycle.disconnected = True
            cycle.message_event.set()
        if status is not None and not under_way:
            self.transport.write(answer(status, message))
        self.ending = True
        linger(self.transport, self.loop)


def guarded_protocol(guard: Guard) -> type[GuardedHttp]:
    """The protocol class for `uvicorn.Config(http=...)`, its connections kept by `guard`."""
    return type("GuardedHttp", (GuardedHttp,), {"guard": guard})


def server_config(app: ASGIApp, limits: ServerLimits, **options: Any) -> uvicorn.Config:
    """Uvicorn's config (`options`: more of its settings) with the guarded protocol (its
    guard at `.http.guard`), the proxies trusted for X-Forwarded-For, and no WebSocket: the
    league serves none, and an upgraded connection would leave the guard's count."""
    return uvicorn.Config(app, http=guarded_protocol(Guard(limits)), ws="none",
                          forwarded_allow_ips=list(limits.proxies), **options)


class EventStreams:
    """The event streams open, capped per client and in total; each ends after its lifetime
    (`stream_minutes`), sends a comment line when nothing else for `heartbeat` seconds, and
    ends when its client goes, or the server stops."""

    def __init__(self, limits: ServerLimits, stopping: threading.Event,
                 heartbeat: float) -> None:
        self.limits = limits
        self.slots = Slots(limits.streams_per_client, limits.streams)
        self.proxies = proxy_networks(limits.proxies)
        self.stopping = stopping
        self.heartbeat = heartbeat

    def response(self, request: Request, ticks: AsyncGenerator[str, None]
                 ) -> StreamingResponse:
        """The stream of `ticks` (each poll's news, "" for none; it ends the stream by
        ending) for `request`; answered 429 or 503 instead if a cap is reached."""
        return _GuardedStream(self, request, ticks)

    async def paced(self, request: Request, ticks: AsyncGenerator[str, None]
                    ) -> AsyncGenerator[str, None]:
        """`ticks` polled every POLL_SECONDS, with heartbeats, until an end."""
        start = last = time.monotonic()
        async with contextlib.aclosing(ticks):
            async for chunk in ticks:
                now = time.monotonic()
                if chunk:
                    yield chunk
                    last = now
                elif now - last >= self.heartbeat:
                    yield ": still here\n\n"
                    last = now
                if self.stopping.is_set() or now - start >= self.limits.stream_minutes * 60 \
                        or await request.is_disconnected():
                    return
                await asyncio.sleep(POLL_SECONDS)


class _GuardedStream(StreamingResponse):
    """An event stream that holds one of `EventStreams`' slots while it runs."""

    def __init__(self, streams: EventStreams, request: Request,
                 ticks: AsyncGenerator[str, None]) -> None:
        self.paced = streams.paced(request, ticks)
        super().__init__(self.paced, media_type="text/event-stream",
                         headers={"cache-control": "no-store"})
        self.streams = streams

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        streams = self.streams
        client = scope.get("client")
        key = client_key(client[0] if client else None, streams.proxies)
        excess = streams.slots.take(key)
        if excess is not None:
            await self.paced.aclose()  # never started: so never a slot to give back
            limit = streams.slots.per_client if excess is Excess.CLIENT else streams.slots.total
            refusal = excess_message(excess, "streams", limit)
            await JSONResponse({"error": refusal, "status": excess.status}, excess.status,
                               headers={"retry-after": str(RETRY_SECONDS),
                                        "connection": "close"})(scope, receive, send)
            return
        try:
            with anyio.move_on_after(streams.limits.stream_minutes * 60 + BACKSTOP_SECONDS):
                await super().__call__(scope, receive, send)
        finally:
            streams.slots.give_back(key)


def raise_open_files() -> int:
    """Raise this process's soft limit of open files to its hard limit (OPEN_FILES_CEILING
    at most); the soft limit now (unchanged where the system does not allow it)."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    ceiling = OPEN_FILES_CEILING if hard == resource.RLIM_INFINITY else \
        min(hard, OPEN_FILES_CEILING)
    if soft != resource.RLIM_INFINITY and soft < ceiling:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (ceiling, hard))
    return int(resource.getrlimit(resource.RLIMIT_NOFILE)[0])


def check_open_files(limits: ServerLimits, soft: int) -> None:
    """ArenaError unless the connections the caps allow fit in half of `soft`, the open-file
    limit: the rest is the store's, the workers' pipes' and intake's."""
    needed = limits.connections + LINGERING
    if needed > soft // 2:
        raise ArenaError(
            f"the league's connections = {limits.connections} (and {LINGERING} refused ones "
            f"closing) need {needed} open files, over half of this process's limit ({soft}): "
            "lower league.connections, or raise the limit (`ulimit -n`)")
