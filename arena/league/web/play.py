"""A seat at the table in the browser (`/play`): the start form, the game's page, the seat's
event stream, the person's answers and their leaving (`arena.league.seats` plays the game).

The author's token is given once per browser, with the start form: it is kept in a cookie
(`TOKEN_COOKIE`: HttpOnly, SameSite=Strict, sent to `/play` paths only), never in a URL. The
stream, the answers and the leaving are the seat's author's only: 401 without the cookie, 403
with another author's token (the organizer's too: a person's hand is theirs). The POSTs carry
the CSRF token of the league's other forms, in the form, the JSON body or an `X-CSRF-Token`
header, compared with its SameSite=Strict cookie.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from arena.league import models
from arena.league.accounts import Accounts, Author
from arena.league.guards import json_body
from arena.league.limits import POLL_SECONDS
from arena.league.practice import PracticeRefused, opponent_key
from arena.league.seat_bridge import CHOICES as BOMB_WINDOWS
from arena.league.seats import SEAT, SeatGame, SeatState
from arena.league.web.answers import answer
from arena.league.web.auth import CSRF_COOKIE, authenticate, csrf_matches, csrf_of
from arena.league.web.errors import error
from arena.league.web.state import WebState, shared
from arena.presentation import play_views

TOKEN_COOKIE = "arena_token"
"""The cookie holding the author's token for the `/play` paths."""
TOKEN_DAYS = 30
"""How long a browser keeps the token."""
NEWS_TICKS = 10
"""A seat's stream looks for news this many times per poll of the streams (`POLL_SECONDS`):
a person waits for the next decision a few tens of milliseconds, not a quarter second."""
STALE = ("the form is stale or was sent from another site: open the bot's page again and "
         "send it from there")


def _text(form: Any, key: str) -> str:
    value = form.get(key)
    return value.strip() if isinstance(value, str) else ""


async def play_form(request: Request) -> Response:
    """The start form of a bot's page: CSRF-checked, the token from the form (then kept in
    the cookie) or the cookie; the game started, then to its page (303)."""
    form = await request.form(max_files=0, max_fields=8)
    if not csrf_matches(request, form.get("csrf")):
        return error(403, STALE)
    token = _text(form, "token") or request.cookies.get(TOKEN_COOKIE) or None
    author = await authenticate(request, token)
    if isinstance(author, JSONResponse):
        return author
    bomb_windows = _text(form, "bomb_windows") or "ask"
    if bomb_windows not in BOMB_WINDOWS:
        return error(400, "bomb_windows is one of ask, every or never")
    state = shared(request)
    try:
        game = await run_in_threadpool(
            _begin, state, author, _text(form, "opponent"),
            _text(form, "own_partner") or _text(form, "partner"), bomb_windows)
    except PracticeRefused as exc:
        return error(exc.status, state.scrub(str(exc)))
    response = RedirectResponse(f"/play/{game.practice}", status_code=303)
    if _text(form, "token"):
        response.set_cookie(TOKEN_COOKIE, _text(form, "token"), max_age=TOKEN_DAYS * 86400,
                            path="/play", httponly=True, samesite="strict",
                            secure=request.url.scheme == "https")
    return response


def _begin(state: WebState, author: Author, opponent: str, partner: str,
           bomb_windows: str) -> SeatGame:
    """Start the seat game of `author` against `opponent` with `partner` (one of their bots,
    or a house bot); PracticeRefused as the practice games' (400, 403, 404, 429)."""
    practice = state.league.practice
    active = practice.active()
    if not opponent or not partner:
        raise PracticeRefused(400, "choose an opponent (an active entrant) and a partner "
                                   "(one of your bots, or a house bot)")
    theirs = opponent_key(opponent, active)
    house = [k for k in active if k.split("@")[0] == partner and partner in state.house]
    if house:
        ours = house[0]
    else:
        with Accounts(state.storage) as accounts:
            ours = practice.own_version(accounts, author.name, partner, None, active)
    if ours == theirs:
        raise PracticeRefused(400, f"{partner} cannot partner you against itself: choose "
                                   "another partner or opponent")
    return state.league.seats.begin(author.name, ours, theirs, bomb_windows)


def play_page(request: Request) -> Response:
    """The seat game's page (`play_views.play_page`): no card in it, only where the seat's
    stream, answers and leaving are; the script draws the game from the stream."""
    practice = request.path_params["practice"]
    game = shared(request).league.seats.get(practice)
    if game is None:
        raise HTTPException(404, f"no game at a seat {practice} on this server (one over "
                                 f"before its last start is at /practice/{practice}/replay)")
    partner, opponent = (key.split("@")[0] for key in (game.partner, game.opponent))
    csrf = csrf_of(request)
    base = f"/play/{practice}"
    response = HTMLResponse(play_views.play_page(
        practice, f"Practice {practice}: {game.author} and {partner} against {opponent}",
        f"{base}/events", f"{base}/answer", f"{base}/leave", csrf, SEAT,
        [game.author, opponent, partner, opponent], game.bomb_windows))
    response.set_cookie(CSRF_COOKIE, csrf, httponly=True, samesite="strict")
    return response


async def seat_of(request: Request) -> SeatGame | JSONResponse:
    """The seat game of the request's path, if the request's token is its author's: 401
    without a token, 403 with another's, 404 for a game this server is not playing."""
    token = request.cookies.get(TOKEN_COOKIE)
    if token is None:
        return error(401, "no token: start the game from a bot's page, with your token "
                          "(this browser keeps it for the game's pages)")
    author = await authenticate(request, token)
    if isinstance(author, JSONResponse):
        return author
    practice = request.path_params["practice"]
    game = shared(request).league.seats.get(practice)
    if game is None:
        return error(404, f"no game at a seat {practice} on this server (one over before its "
                          f"last start is at /practice/{practice}/replay)")
    if game.author != author.name:
        return error(403, f"the game {practice} is another author's seat: only they may "
                          "see its cards and play it")
    return game


async def play_events(request: Request) -> Response:
    """The seat's server-sent events: each message it was sent (`message`, from the first,
    or after `Last-Event-ID`), and the game's `status`."""
    game = await seat_of(request)
    if isinstance(game, JSONResponse):
        return game
    last = request.headers.get("last-event-id", "")
    start = int(last) + 1 if last.isdigit() and len(last) < 10 else 0
    return shared(request).streams.response(request, seat_ticks(game, start))


async def seat_ticks(game: SeatGame, start: int) -> AsyncGenerator[str, None]:
    """The stream's ticks: new messages (each with its index as `id`), then a status that
    changed; it ends once the game's end is told."""
    game.page_opened()
    try:
        sent, seen = start, None
        while True:
            messages, status, changed = game.read(sent)
            for _ in range(NEWS_TICKS):  # news sooner than the streams' poll
                if messages or changed != seen:
                    break
                await asyncio.sleep(POLL_SECONDS / NEWS_TICKS)
                messages, status, changed = game.read(sent)
            chunk = "".join(f"id: {sent + i}\nevent: message\ndata: {json.dumps(m)}\n\n"
                            for i, m in enumerate(messages))
            sent += len(messages)
            if changed != seen:
                chunk += f"event: status\ndata: {json.dumps(status)}\n\n"
                seen = changed
            yield chunk
            if SeatState(status["state"]).final and not messages:
                return
    finally:
        game.page_closed()


async def _csrf_ok(request: Request, sent: Any) -> bool:
    header = request.headers.get("x-csrf-token")
    return csrf_matches(request, header if header is not None else sent)


async def play_answer(request: Request) -> Response:
    """The person's answer to the open request (JSON: request_id, action, and optionally
    call_tichu and wish): 200, 400 (not allowed: the rule), 409 (not the open request)."""
    game = await seat_of(request)
    if isinstance(game, JSONResponse):
        return game
    body = json_body(await request.body())
    if not isinstance(body, dict):
        return error(400, 'send {"request_id": N, "action": ACTION} as JSON')
    if not await _csrf_ok(request, body.get("csrf")):
        return error(403, "the answer is stale or was sent from another site: open the "
                          "game's page again")
    status, said = await run_in_threadpool(
        game.answer, body.get("request_id"), body.get("action"),
        body.get("call_tichu", False), body.get("wish"))
    if status != 200:
        return error(status, said)
    return answer(models.SeatAnswer, {"accepted": True})


async def play_leave(request: Request) -> Response:
    """The person leaves the game: it ends as left, their team forfeiting."""
    game = await seat_of(request)
    if isinstance(game, JSONResponse):
        return game
    kind = request.headers.get("content-type", "")
    sent = None
    if "form" in kind:
        sent = (await request.form(max_files=0, max_fields=4)).get("csrf")
    elif "json" in kind:
        body = json_body(await request.body())
        sent = body.get("csrf") if isinstance(body, dict) else None
    if not await _csrf_ok(request, sent):
        return error(403, "the leave is stale or was sent from another site: open the "
                          "game's page again")
    game.leave("left the game (forfeit): the person chose to leave")
    return answer(models.SeatLeft, {"left": True})
