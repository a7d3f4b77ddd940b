"""Errors: JSON `{"error": sentence, "status": N}` for the API, a page for a browser.

`error` is every endpoint's refusal; `http_error` and `server_error` are the application's
handlers of an `HTTPException` and of any error no endpoint caught (logged with its
traceback, answered 500 with a sentence that holds none of the server's text or paths).
"""

from __future__ import annotations

import logging
from http import HTTPStatus

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from arena.league.web.state import shared
from arena.presentation.league_views import error_page as error_view

logger = logging.getLogger(__name__)


def error(status: int, message: str) -> JSONResponse:
    """A refusal: `message`, a sentence a person can act on, with its `status`."""
    return JSONResponse({"error": message, "status": status}, status_code=status)


def error_page(request: Request, status: int, message: str) -> Response:
    """An error as JSON (the API, the event streams, the scripts) or as a page."""
    path = request.url.path
    if path.startswith("/api/") or path.endswith(("/events", ".js", ".json")) or \
            request.method != "GET":
        return error(status, message)
    return HTMLResponse(error_view(status, message), status_code=status)


async def http_error(request: Request, exc: Exception) -> Response:
    """An `HTTPException` raised by an endpoint, its detail scrubbed of the server's paths."""
    assert isinstance(exc, HTTPException)
    detail = str(exc.detail)
    if detail == HTTPStatus(exc.status_code).phrase:  # routing's refusal: say what to do
        detail = _routing_sentence(request, exc)
    return error_page(request, exc.status_code, shared(request).scrub(detail))


def _routing_sentence(request: Request, exc: HTTPException) -> str:
    """A sentence for a refusal of Starlette's routing (an unknown path, a wrong method)."""
    path = request.url.path
    if exc.status_code == 405:
        allowed = (exc.headers or {}).get("Allow", "")
        return f"{request.method} is not answered at {path}" + (
            f": send {allowed}" if allowed else "")
    if exc.status_code == 404:
        return (f"nothing is at {path}: the pages start at /, and /openapi.json lists the "
                "API's paths")
    return f"{HTTPStatus(exc.status_code).phrase} ({path})"


async def server_error(request: Request, exc: Exception) -> Response:
    """Any error no handler caught: logged with its traceback, answered 500 with a
    sentence (never the server's text or paths)."""
    logger.error("%s %s failed", request.method, request.url.path, exc_info=exc)
    return error_page(request, 500, "the league failed to answer this request (its "
                                    "organizer finds the details in the server's log)")
