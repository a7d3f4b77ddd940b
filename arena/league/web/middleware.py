"""The ASGI layers around the application: the security headers on every response, and
`GET /api/standings` answered before routing.

Every response carries `SECURITY_HEADERS`: a content security policy that allows no inline
script, no framing, no sniffing, no referrer.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arena.league.web.state import ServedLeague

SECURITY_HEADERS = [
    (b"content-security-policy", b"default-src 'self'; img-src 'self' data:; "
     b"style-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; "
     b"frame-ancestors 'none'; form-action 'self'"),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
]


class SecurityHeaders:
    """ASGI middleware: the security headers on every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + SECURITY_HEADERS
            await send(message)

        await self.app(scope, receive, with_headers)


class StandingsFirst:
    """ASGI: `GET /api/standings` answered first, with the last table's bytes and the
    security headers, before routing (every other request goes on to `app`). It is the
    request asked most, by every client polling the table: without Starlette's middleware,
    routing, request and response objects, the one thread serving requests answers it
    about twice as often (README, "Run a league")."""

    def __init__(self, app: ASGIApp, league: ServedLeague) -> None:
        self.app = app
        self.league = league

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != "/api/standings" or \
                scope["method"] not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        body = self.league.standings.table.body  # encoded once, when the table was made
        await send({"type": "http.response.start", "status": 200, "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()), *SECURITY_HEADERS]})
        await send({"type": "http.response.body",
                    "body": body if scope["method"] == "GET" else b""})
