"""The web layer's guards on what a request may hold: bounded bodies, ids and numbers, JSON.

Every request body is counted as the application reads it (`BodyLimit`), whatever its
headers say: chunked or not, multipart parts included. Past its route's limit, reading
stops and the request is answered 413. So nothing is read, parsed or spooled past the limit.

Numbers from a client (path ids, query parameters) are whole numbers within SQLite's range,
else 400 (`bounded_int`, the `id` path convertor). JSON bodies are parsed by `json_body`:
deep nesting and bad bytes are a 400 with a sentence, never a 500.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from starlette.convertors import Convertor, register_url_convertor
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

MAX_ID = 2**63 - 1
"""The largest id or count a client may send: SQLite's largest integer."""
SMALL_BODY = 4096
"""The body of every request but an upload, at most (a practice request, a form)."""
MAX_JSON_DEPTH = 32
"""How deeply a JSON body may nest (a practice request is one flat object)."""
MULTIPART_SLACK = 64 * 1024
"""An upload's body may exceed the archive limit by this much: the form's other fields."""
BODY_SCOPE_KEY = "arena.body"
"""Where `BodyLimit` keeps a request's meter in its ASGI scope."""


class BodyTooLarge(HTTPException):
    """A request body went past its route's limit while it was read (413)."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the request body is larger than this address takes "
                              f"({limit} bytes at most)")


class BodyMeter:
    """The bytes of one request body read so far, against its limit."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.read = 0

    def count(self, size: int) -> None:
        """Count `size` more bytes; BodyTooLarge once the total is past the limit."""
        self.read += size
        if self.read > self.limit:
            raise BodyTooLarge(self.limit)


def meter_of(scope: Scope) -> BodyMeter | None:
    """The meter `BodyLimit` put in a request's scope (None: not behind one)."""
    meter = scope.get(BODY_SCOPE_KEY)
    return meter if isinstance(meter, BodyMeter) else None


class BodyLimit:
    """ASGI middleware: each request body counted as it is read, against `limit_of(method,
    path)`; past it, the read raises BodyTooLarge and the application answers 413."""

    def __init__(self, app: ASGIApp, limit_of: Callable[[str, str], int]) -> None:
        self.app = app
        self.limit_of = limit_of

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        meter = BodyMeter(self.limit_of(scope["method"], scope["path"]))
        scope[BODY_SCOPE_KEY] = meter

        async def counted() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                meter.count(len(message.get("body", b"")))
            return message

        await self.app(scope, counted, send)


def bounded_int(name: str, text: str, low: int = 0, high: int = MAX_ID) -> int:
    """`text` as a whole number from `low` to `high`; HTTPException 400 naming `name` if it
    is not one."""
    digits = text[1:] if text[:1] == "-" else text
    if not digits.isdigit() or not digits.isascii() or len(digits) > len(str(MAX_ID)):
        raise HTTPException(400, f"{name} must be a whole number from {low} to {high}, "
                                 f"not {text[:40]!r}")
    value = int(text)
    if not low <= value <= high:
        raise HTTPException(400, f"{name} must be a whole number from {low} to {high}, "
                                 f"not {value}")
    return value


class IdConvertor(Convertor[int]):
    """The `{name:id}` path parameter: digits, at most `MAX_ID` (400 past it, not 500)."""

    regex = "[0-9]+"

    def convert(self, value: str) -> int:
        return bounded_int("an id in the path", value)

    def to_string(self, value: int) -> str:
        return str(int(value))


register_url_convertor("id", IdConvertor())


def json_body(body: bytes) -> Any:
    """A request body parsed as JSON; HTTPException 400 saying why if it is not JSON or
    nests deeper than `MAX_JSON_DEPTH`."""
    try:
        text = body.decode()
    except UnicodeDecodeError:
        raise HTTPException(400, "the body is not UTF-8 text: send JSON") from None
    if _depth(text) > MAX_JSON_DEPTH:
        raise HTTPException(400, f"the JSON body nests more than {MAX_JSON_DEPTH} levels "
                                 "deep: send one flat object")
    try:
        return json.loads(text)
    except ValueError as exc:
        raise HTTPException(400, f"the body is not JSON ({exc})") from None


def _depth(text: str) -> int:
    """How deeply brackets nest in `text`, outside strings (an upper bound for JSON's)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if escaped:
            escaped = False
        elif in_string:
            escaped = char == "\\"
            in_string = char != '"'
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest
