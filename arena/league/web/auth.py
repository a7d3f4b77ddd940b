"""Who asks: the bearer token of the API, the token of a page's form and its CSRF check.

A form of the pages carries a CSRF token besides the author's token: a random value in a
SameSite=Strict cookie (`CSRF_COOKIE`) and in the form, compared in constant time.
"""

from __future__ import annotations

import hmac
import secrets
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse

from arena.league.accounts import Author
from arena.league.privacy import PUBLIC, Viewer
from arena.league.web.errors import error
from arena.league.web.state import WebState, shared

CSRF_COOKIE = "arena_csrf"


def bearer(request: Request) -> str | None:
    """The token of the request's `Authorization: Bearer` header (None: none)."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def _author(state: WebState, token: str) -> Author | None:
    with state.accounts() as acc:
        return acc.authenticate(token)


async def authenticate(request: Request, token: str | None) -> Author | JSONResponse:
    """The author whose token `token` is; 401 without one, 403 if it is not valid."""
    if token is None:
        return error(401, "no token: send `Authorization: Bearer TOKEN` with the token "
                          "the organizer gave you (arena league invite)")
    author = await run_in_threadpool(_author, shared(request), token)
    if author is None:
        return error(403, "this token is not valid (mistyped, or revoked): ask the "
                          "organizer for a new one")
    return author


async def viewer_of(request: Request) -> Viewer | JSONResponse:
    """Who asks: anyone without a token; with one, its author (403 if it is not valid)."""
    token = bearer(request)
    if token is None:
        return PUBLIC
    author = await authenticate(request, token)
    if isinstance(author, JSONResponse):
        return author
    return Viewer(author.name, author.organizer)


def csrf_of(request: Request) -> str:
    """The request's CSRF cookie, or a new random value for the page to set."""
    return request.cookies.get(CSRF_COOKIE) or secrets.token_urlsafe(32)


def csrf_matches(request: Request, sent: Any) -> bool:
    """The form's CSRF field `sent` is the request's cookie (compared in constant time)."""
    cookie = request.cookies.get(CSRF_COOKIE, "")
    return bool(cookie) and isinstance(sent, str) and hmac.compare_digest(
        cookie.encode(), sent.encode())


async def form_author(request: Request) -> tuple[Author, Any] | JSONResponse:
    """A bot page's or a replay's form (CSRF-checked as the upload form is) and its token's
    author."""
    form = await request.form(max_files=0, max_fields=8)
    sent, token = form.get("csrf"), form.get("token")
    if not csrf_matches(request, sent):
        return error(403, "the form is stale or was sent from another site: open its page "
                          "again (the bot's, or the game's replay) and send it from there")
    author = await authenticate(request, token if isinstance(token, str) and token else None)
    return author if isinstance(author, JSONResponse) else (author, form)
