"""The HTML pages and their forms: the leaderboard, games, a bot's page, replays, games in
progress, practice games and the upload form.

Each page's HTML is a view of `arena.presentation.league_views` (the report's views,
every string escaped); an endpoint here gathers its data (`queries.py`) and answers with
it. A form's POST is CSRF-checked (`auth.py`), then answered as its API endpoint is.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from urllib.parse import quote

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from arena.league.accounts import PracticeRow, PracticeStatus
from arena.league.privacy import PUBLIC, Viewer
from arena.league.web import queries
from arena.league.web.api import ask_practice
from arena.league.web.auth import CSRF_COOKIE, csrf_matches, csrf_of, form_author
from arena.league.web.errors import error
from arena.league.web.intake import receive_upload, too_large
from arena.league.web.queries import MAX_GAMES_PAGE
from arena.league.web.state import server_url, shared
from arena.presentation import league_views as views
from arena.presentation.failures import practice_verdict, reproduce_command
from arena.presentation.report import replay_payload, replay_script, slug
from arena.presentation.table_view import public_table


def index(request: Request) -> HTMLResponse:
    state = shared(request)
    table = state.league.standings.table
    return HTMLResponse(views.index_page(state.config.tournament.name, table.games,
                                         table.version, table.html, table.notes))


def games_page(request: Request) -> HTMLResponse:
    state = shared(request)
    listed = queries.games_of(state, request.query_params.get("bot"), 0, MAX_GAMES_PAGE,
                              newest=True)
    return HTMLResponse(views.games_page(queries.game_rows(state, listed),
                                         datetime.now(UTC)))


def bot_page(request: Request) -> HTMLResponse:
    """A bot's page as anyone may see it."""
    return bot_page_for(request, PUBLIC)


def bot_page_for(request: Request, viewer: Viewer) -> HTMLResponse:
    """A bot's page as `viewer` may see it (a build log only to whom `viewer.sees`)."""
    state = shared(request)
    name = request.path_params["name"]
    data = queries.bot_data(state, name, viewer, server_url(request))
    if data is None:
        raise HTTPException(404, f"no bot named {name!r}")
    data["uploads"] = [u if viewer.sees(u["author"]) else {**u, "log": ""}
                       for u in data["uploads"]]
    recent = queries.game_rows(state, queries.games_of(state, name, 0, 50, newest=True))
    active = {k.split("@")[0] for k in state.league.active()}
    others = sorted(active - {name})
    csrf = csrf_of(request)
    response = HTMLResponse(views.bot_page(data, recent, csrf, others,
                                           state.config.practice_per_day,
                                           signed_in=viewer is not PUBLIC,
                                           now=datetime.now(UTC),
                                           partners=sorted(state.house & active)
                                           if name in active else None))
    response.set_cookie(CSRF_COOKIE, csrf, httponly=True, samesite="strict")
    return response


async def signed_in_bot_page(request: Request) -> Response:
    """The bot's page with what its author (or the organizer) may see."""
    return await signed_in(request, bot_page_for)


async def signed_in(request: Request, page_for: Callable[[Request, Viewer], HTMLResponse]
                    ) -> Response:
    """The page `page_for` makes, for the author whose token the posted form holds."""
    signed = await form_author(request)
    if isinstance(signed, JSONResponse):
        return signed
    author = signed[0]
    return await run_in_threadpool(page_for, request, Viewer(author.name, author.organizer))


def game_page(request: Request) -> HTMLResponse:
    """A game's replay as anyone may see it."""
    return game_page_for(request, PUBLIC)


def game_page_for(request: Request, viewer: Viewer) -> HTMLResponse:
    """A game's replay, titled with its teams; a fault its last event, with the failed
    bot's output where `viewer` may see it (`privacy.Viewer.sees`)."""
    state = shared(request)
    game_id = request.path_params["game_id"]
    quoted = quote(game_id, safe="")
    named = queries.game_names(state, game_id)
    if named is None:
        raise HTTPException(404, f"no stored game {game_id!r}: the last games are on /games")
    failures, seen = queries.failures_seen(state, game_id, viewer)
    csrf = csrf_of(request)
    commands = [reproduce_command(game_id, f.seat, server_url(request)) if shown else ""
                for f, shown in zip(failures, seen, strict=True)]  # to its author
    fault = views.fault_event(failures, seen, [named[0], named[1]], csrf, f"/games/{quoted}",
                              commands)
    response = HTMLResponse(views.replay_page(
        views.game_title(named[:2], named[2]), "/games", slug(game_id),
        f"/replays/{quoted}.js", fault))
    response.set_cookie(CSRF_COOKIE, csrf, httponly=True, samesite="strict")
    return response


async def signed_in_game_page(request: Request) -> Response:
    """A game's replay with what its failed bot's author (or the organizer) may see."""
    return await signed_in(request, game_page_for)


def replay_data(request: Request) -> Response:
    state = shared(request)
    game_id = request.path_params["game_id"].removesuffix(".js")
    found = queries.one_game(state, game_id)
    if found is None or not found[1]:
        raise HTTPException(404, f"no stored game {game_id!r}")
    stored, record = found[0], found[1]
    names = queries.replay_names(state)
    payload = replay_payload(stored, record, names)
    if payload["fault"]:  # its message may name the server's folders
        payload["fault"]["message"] = state.scrub(str(payload["fault"]["message"] or ""))
    return Response(replay_script(stored.game_id, payload), media_type="text/javascript")


def upload_page(request: Request) -> HTMLResponse:
    csrf = csrf_of(request)
    response = HTMLResponse(views.upload_page(csrf))
    response.set_cookie(CSRF_COOKIE, csrf, httponly=True, samesite="strict")
    return response


async def upload_form(request: Request) -> Response:
    """The upload form: CSRF-checked, then as `POST /api/bots`; on success, a page."""
    refused = too_large(shared(request).config, request)
    if refused is not None:
        return refused
    async with request.form(max_files=1, max_fields=8) as form:  # its archive closed after
        token = form.get("token")
        if not csrf_matches(request, form.get("csrf")):
            return error(403, "the form is stale or was sent from another site: open "
                              "/upload again and send it from there")
        result = await receive_upload(request, token if isinstance(token, str) else None,
                                      body_read=True)
    if result.status_code != 202:
        return result
    data = json.loads(bytes(result.body))
    return HTMLResponse(views.uploaded_page(data["id"], data["name"]))


# ----- games in progress -----------------------------------------------------------------------

def live_list(request: Request) -> HTMLResponse:
    return HTMLResponse(views.live_list_page(queries.live_rows(shared(request))))


def live_page(request: Request) -> Response:
    """A game in progress; once over, its replay (a redirect), or a page linking to it."""
    state = shared(request)
    game_id = request.path_params["game_id"]
    quoted = quote(game_id, safe="")
    events = queries.live_events(state, game_id)
    if events is None:
        if queries.game_names(state, game_id) is not None:
            return RedirectResponse(f"/games/{quoted}", status_code=303)
        return HTMLResponse(views.not_live_page(game_id, f"/games/{quoted}"), 404)
    labels, title = queries.live_labels(state, game_id)
    return HTMLResponse(views.live_page(
        f"Live: {title}", title, public_table(events, labels),
        f"/live/{quoted}/events?seen={len(events)}", f"/games/{quoted}"))


# ----- practice games --------------------------------------------------------------------------

PRACTICE_SAID = {
    PracticeStatus.QUEUED: " It waits for its turn (practice games are played one at a "
                           "time): the table fills when it starts.",
    PracticeStatus.PLAYING: "",
    PracticeStatus.FAILED: " It failed: ",
    PracticeStatus.DONE: " It is over.",
}
"""What a practice game's page says of it, by its status (a failure's reason follows)."""


def short(key: str) -> str:
    """An entrant key as a page names it: the bot's name and its hash's first 8 digits."""
    name, _, version = key.partition("@")
    return f"{name} {version[:8]}"


def practice_said(row: PracticeRow, reason: str, verdict: str = "") -> str:
    """What the page says of a practice game: a failure's `reason`, or, in place of "It is
    over", the `verdict` of one over in which a bot failed (`failures.practice_verdict`)."""
    if row.status is PracticeStatus.DONE and verdict:
        return f" {verdict}"
    return PRACTICE_SAID[row.status] + (reason if row.status is PracticeStatus.FAILED else "")


def practice_page(request: Request) -> HTMLResponse:
    state = shared(request)
    practice = request.path_params["practice"]
    row, events = queries.practice_events(state, practice)
    if row is None:
        raise HTTPException(404, f"no practice game {practice}")
    replay = f"/practice/{row.id}/replay"
    over = queries.practice_data(state, row.id, PUBLIC) \
        if row.status is PracticeStatus.DONE else None
    verdict = practice_verdict(over["game"]) if over and "game" in over else ""
    status = views.practice_status(row.status, practice_said(row, state.scrub(row.reason),
                                                             verdict),
                                   replay if row.status is PracticeStatus.DONE else None)
    return HTMLResponse(views.live_page(
        f"Practice {row.id}: {short(row.entrant)} against {short(row.opponent)}",
        f"Practice {row.id}", public_table(events, queries.practice_labels(row)),
        f"/practice/{row.id}/events", replay, after=status))


def practice_replay(request: Request) -> HTMLResponse:
    practice = request.path_params["practice"]
    stored, _ = queries.practice_game(shared(request), practice)
    return HTMLResponse(views.replay_page(f"Practice {practice}: replay",
                                          f"/practice/{practice}", slug(stored.game_id),
                                          f"/practice/{practice}/replay.js"))


def practice_replay_data(request: Request) -> Response:
    state = shared(request)
    stored, record = queries.practice_game(state, request.path_params["practice"])
    names = queries.replay_names(state, state.practice_store)
    return Response(replay_script(stored.game_id, replay_payload(stored, record, names)),
                    media_type="text/javascript")


async def practice_form(request: Request) -> Response:
    """The bot page's practice form: CSRF-checked as the upload form is, then as
    `POST /api/practice`; on success, to the game's page."""
    signed = await form_author(request)
    if isinstance(signed, JSONResponse):
        return signed
    author, form = signed
    result = await ask_practice(request, author, {k: form.get(k) for k in ("bot", "opponent")})
    if result.status_code != 202:
        return result
    return RedirectResponse(json.loads(bytes(result.body))["page"], status_code=303)


def league_js(request: Request) -> Response:
    return Response(views.LEAGUE_JS, media_type="text/javascript")
