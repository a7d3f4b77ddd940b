"""The JSON API: the standings, bots, games, uploads and practice games, and the
organizer's actions; `/openapi.json` is its schema (`openapi.py`).

Each endpoint is a function of the request, reaching the league through `state.shared`;
the data it answers with is `queries.py`'s, the same the pages show.
"""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from arena.errors import ArenaError
from arena.league import models
from arena.league.accounts import Author, UploadStatus
from arena.league.guards import SMALL_BODY, bounded_int, json_body
from arena.league.openapi import SCHEMA
from arena.league.practice import PracticeRefused
from arena.league.privacy import Viewer, upload_view
from arena.league.uploads import Busy, NoSuchUpload
from arena.league.web import queries
from arena.league.web.answers import answer
from arena.league.web.auth import authenticate, bearer, viewer_of
from arena.league.web.errors import error
from arena.league.web.intake import receive_upload
from arena.league.web.queries import MAX_GAMES_PAGE
from arena.league.web.state import server_url, shared


def openapi(request: Request) -> JSONResponse:
    return JSONResponse(SCHEMA)


async def standings(request: Request) -> Response:
    # (GET and HEAD are answered by StandingsFirst before routing; the route stays for
    # the rest: 405 to another method)
    return Response(shared(request).league.standings.table.body, media_type="application/json")


async def bot(request: Request) -> Response:
    name = request.path_params["name"]
    viewer = await viewer_of(request)
    if isinstance(viewer, JSONResponse):
        return viewer
    data = await run_in_threadpool(queries.bot_data, shared(request), name, viewer,
                                   server_url(request))
    if data is None:
        return error(404, f"no bot named {name!r} in this league (GET /api/standings "
                          "lists the entrants)")
    return answer(models.Bot, data)


def query_int(request: Request, key: str, default: int) -> int:
    """The query parameter `key` as a bounded integer (`guards.bounded_int`: 400 if not)."""
    value = request.query_params.get(key)
    return default if value is None else bounded_int(f"query parameter {key!r}", value)


def games(request: Request) -> Response:
    after = query_int(request, "after", 0)
    limit = query_int(request, "limit", 50)
    if not 1 <= limit <= MAX_GAMES_PAGE:
        return error(400, f"limit must be between 1 and {MAX_GAMES_PAGE}, not {limit}")
    state = shared(request)
    listed = queries.games_of(state, request.query_params.get("bot"), after, limit)
    return answer(models.GamesPage, {
        "games": [queries.game_json(state, r, g) for r, g in listed],
        "next": listed[-1][0] if len(listed) == limit else None})


async def game(request: Request) -> Response:
    game_id = request.path_params["game_id"]
    viewer = await viewer_of(request)
    if isinstance(viewer, JSONResponse):
        return viewer
    state = shared(request)
    found = await run_in_threadpool(queries.one_game, state, game_id)
    if found is None:
        return error(404, f"no stored game {game_id!r} (GET /api/games lists them)")
    stored, record = found
    return answer(models.Game, {**queries.game_json(state, 0, stored), "record": await
                  run_in_threadpool(queries.record_view, state, record, viewer)})


async def seat_messages(request: Request) -> Response:
    """The messages one seat of a stored game was sent (`arena reproduce`): only for the
    author of that seat's bot and the organizer (401 without a token, 403 otherwise)."""
    author = await authenticate(request, bearer(request))
    if isinstance(author, JSONResponse):
        return author
    game_id = request.path_params["game_id"]
    state = shared(request)
    found = await run_in_threadpool(queries.one_game, state, game_id)
    if found is None:  # a practice game's id (`practice/ID` names one without doubt)
        found = await run_in_threadpool(queries.one_game, state, game_id,
                                        state.practice_store)
    if found is None or found[1] is None:
        return error(404, f"no stored game {game_id!r} with a readable record (GET "
                          "/api/games lists them)")
    return await seat_answer(request, author, found[1], f"game {game_id}")


async def practice_seat_messages(request: Request) -> Response:
    """The messages one seat of a practice game over and kept was sent, as `seat_messages`."""
    author = await authenticate(request, bearer(request))
    if isinstance(author, JSONResponse):
        return author
    practice = request.path_params["practice"]
    record = await run_in_threadpool(queries.practice_record, shared(request), practice)
    if record is None:
        return error(404, f"no practice game {practice} that is over and kept (GET "
                          f"/api/practice/{practice} says where it is)")
    return await seat_answer(request, author, record, f"practice game {practice}")


async def seat_answer(request: Request, author: Author, record: dict[str, Any],
                      game: str) -> Response:
    """The messages of the request's seat in `record` (of `game`, as named in errors), if
    `author` sees that seat's bot: its author's or the organizer's (403 otherwise)."""
    seat = request.path_params["seat"]
    if not 0 <= seat <= 3:
        return error(404, f"a game has seats 0 to 3, not {seat}")
    state = shared(request)
    owner = await run_in_threadpool(queries.seat_owner, state, record, seat)
    if not Viewer(author.name, author.organizer).sees(owner):
        return error(403, f"seat {seat} of {game} is not played by a bot of yours: only "
                          "its author (or the organizer) may fetch its messages")
    try:
        data = await run_in_threadpool(queries.seat_messages, state, record, seat)
    except ArenaError as exc:
        return error(500, f"the record of {game} cannot be replayed: {exc}")
    return answer(models.SeatMessages, data)


async def upload_status(request: Request) -> Response:
    viewer = await viewer_of(request)
    if isinstance(viewer, JSONResponse):
        return viewer
    state = shared(request)
    row = await run_in_threadpool(queries.upload_row, state, request.path_params["upload"])
    if row is None:
        return error(404, f"no upload {request.path_params['upload']}")
    return answer(models.Upload, upload_view(row, viewer, state.scrub))


async def post_bot(request: Request) -> Response:
    return await receive_upload(request, bearer(request))


# ----- the organizer's actions -----------------------------------------------------------------

async def admin(request: Request) -> Response:
    """An organizer's action on a bot: disable (out of the live table, its games kept),
    enable (back in) or rebuild (its version built and checked again)."""
    author = await authenticate(request, bearer(request))
    if isinstance(author, JSONResponse):
        return author
    if not author.organizer:
        return error(403, "this is an organizer's action: an author's token cannot "
                          "do it (arena league invite CONFIG NAME --organizer)")
    name, action = request.path_params["name"], request.path_params["action"]
    if action == "rebuild":
        return await rebuild(name, request)
    if action not in ("disable", "enable"):
        return error(404, f"no action {action!r} (disable, enable or rebuild)")
    done = await run_in_threadpool(shared(request).league.set_disabled, name,
                                   action == "disable")
    if not done:
        return error(404, f"no uploaded bot named {name!r} (house bots are the "
                          "config's: edit its entrants)")
    return answer(models.AdminDone, {"name": name, "disabled": action == "disable"})


def rebuild_asked(name: str, request: Request) -> tuple[int | None, str | None] | JSONResponse:
    """The upload a rebuild names, by `?upload=ID` or `?version=V`; 400 if it is unclear."""
    asked, version = (request.query_params.get(k) for k in ("upload", "version"))
    if asked is not None and version is not None:
        return error(400, "name the upload to rebuild by ?upload=ID or by ?version=V "
                          "(an entrant key or its hash), not both")
    if asked is not None and not asked.isdigit():
        return error(400, f"?upload= takes an upload's id, a number (GET /api/bots/{name} "
                          f"lists them), not {asked!r}")
    if version is not None and not version:
        return error(400, "?version= is empty: give an entrant key or its hash")
    return None if asked is None else bounded_int("?upload=", asked), version


async def rebuild(name: str, request: Request) -> Response:
    """An organizer's rebuild; `?upload=ID` or `?version=V` names the upload to rebuild
    (default: the bot's active one, else its newest)."""
    asked = rebuild_asked(name, request)
    if isinstance(asked, JSONResponse):
        return asked
    try:
        upload = await run_in_threadpool(shared(request).league.rebuild, name, *asked)
    except Busy as exc:
        return error(409, str(exc))
    except NoSuchUpload as exc:
        return error(404, str(exc))
    if upload is None:
        return error(404, f"no uploaded bot named {name!r} (house bots are the "
                          "config's: they are built at each start)")
    return answer(models.RebuildAccepted, {"name": name, "upload": upload,
                                           "status": UploadStatus.RECEIVED,
                                           "url": f"/api/uploads/{upload}"}, 202)


# ----- practice games --------------------------------------------------------------------------

async def ask_practice(request: Request, author: Author, fields: Any) -> Response:
    """A practice game asked for by `author` (`fields`: bot, opponent, version): 202."""
    bot, opponent = (fields.get(k) if isinstance(fields, dict) else None
                     for k in ("bot", "opponent"))
    version = fields.get("version") if isinstance(fields, dict) else None
    if not isinstance(bot, str) or not isinstance(opponent, str) or not isinstance(
            version, (str, type(None))):
        return error(400, 'send {"bot": one of your bots, "opponent": an active entrant '
                          '(a name from GET /api/standings)} and optionally "version" '
                          "(one of your bot's versions; default: its active one)")
    state = shared(request)
    try:
        row = await run_in_threadpool(state.league.practice.ask, author.name, bot, opponent,
                                      version or None)
    except PracticeRefused as exc:
        return error(exc.status, state.scrub(str(exc)))
    return answer(models.Practice, queries.practice_json(row), 202)


async def post_practice(request: Request) -> Response:
    """An author asks for an unrated practice game (JSON: bot, opponent, version)."""
    author = await authenticate(request, bearer(request))
    if isinstance(author, JSONResponse):
        return author
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > SMALL_BODY:
        return error(413, f"a practice request is a small JSON object ({SMALL_BODY} "
                          "bytes at most)")
    return await ask_practice(request, author, json_body(await request.body()))


async def practice_status(request: Request) -> Response:
    viewer = await viewer_of(request)
    if isinstance(viewer, JSONResponse):
        return viewer
    data = await run_in_threadpool(queries.practice_data, shared(request),
                                   request.path_params["practice"], viewer)
    if data is None:
        return error(404, f"no practice game {request.path_params['practice']}")
    return answer(models.Practice, data)
