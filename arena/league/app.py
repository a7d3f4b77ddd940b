"""The league's web application (Starlette): the JSON API, its OpenAPI schema and the pages.

Every page is made of the static report's views (`arena.presentation.views`: the leaderboard,
the games table, the replay viewer, the page frame), which escape every string they are
given; the report's stylesheet and scripts are served from its own assets folder. The
leaderboard on `/` updates itself from the server-sent events of `/events` (`league.js`):
each event carries the table's new HTML, made by the same view.

Errors are JSON (`{"error": ...}`, a sentence a person can act on) with their status: 400 a
bad request or archive, 401 no token, 403 a token that is not (or no longer) valid, 404, 409
a bot name that is another author's, 411 no length, 413 too large, 429 too many uploads. The
upload form of `/upload` carries a CSRF token (a random value in a SameSite=Strict cookie and
in the form, compared in constant time) besides the author's token. Every response carries
the security headers of `SECURITY_HEADERS` (a content security policy that allows no inline
script, no framing, no sniffing, no referrer).
"""

from __future__ import annotations

import hmac
import json
import logging
import math
import secrets
from collections.abc import AsyncGenerator
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arena.errors import ArenaError
from arena.league.accounts import (
    Accounts,
    Author,
    CountedRefusal,
    PracticeRow,
    PracticeStatus,
    UploadQuota,
    UploadStatus,
)
from arena.league.guards import (
    MULTIPART_SLACK,
    SMALL_BODY,
    BodyLimit,
    BodyTooLarge,
    bounded_int,
    json_body,
    meter_of,
)
from arena.league.limits import EventStreams
from arena.league.openapi import SCHEMA
from arena.league.practice import PracticeRefused, practice_storage
from arena.league.privacy import PUBLIC, PathScrubber, Viewer, game_view, upload_view
from arena.league.uploads import BadUpload, Busy, NoSuchUpload, refusal_error, store_upload
from arena.presentation.charts import rating_line
from arena.presentation.pages import cell, esc, table
from arena.presentation.report import replay_payload, replay_script, slug
from arena.presentation.table_view import public_table
from arena.presentation.views import (
    GameListRow,
    games_table,
    live_fragment,
    live_game,
    page,
    replay_viewer,
)
from arena.referee.manifest import NAME_RULE, valid_name
from arena.tournament.records import record_json
from arena.tournament.runner import labels
from arena.tournament.store import Store, StoredGame

if TYPE_CHECKING:
    from arena.league.server import League

logger = logging.getLogger(__name__)

SECURITY_HEADERS = [
    (b"content-security-policy", b"default-src 'self'; img-src 'self' data:; "
     b"style-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; "
     b"frame-ancestors 'none'; form-action 'self'"),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
]
MAX_GAMES_PAGE = 200
PENDING_PER_AUTHOR = 2
"""Uploads of one author being taken in at once, at most (429 beyond)."""
CSRF_COOKIE = "arena_csrf"
EVENT_SECONDS = 15.0
"""A comment line on the events stream at least this often (proxies close a silent one)."""

LEAGUE_JS = """// The live leaderboard: each `standings` event's data is the table's new HTML.
(function () {
  var board = document.getElementById("leaderboard");
  if (!board || !window.EventSource) { return; }
  var source = new EventSource(board.getAttribute("data-events"));
  source.addEventListener("standings", function (event) {
    var data = JSON.parse(event.data);
    board.innerHTML = data.html;
    board.setAttribute("data-version", String(data.version));
    var games = document.getElementById("games-count");
    if (games) { games.textContent = String(data.games); }
  });
})();
"""


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

    def __init__(self, app: ASGIApp, league: League) -> None:
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


def error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message, "status": status}, status_code=status)


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def make_app(league: League) -> ASGIApp:
    """The application serving `league`."""
    config = league.config
    storage = config.storage
    house = {m.name for m in config.tournament.entrants}

    def accounts() -> Accounts:
        return Accounts(storage)

    practice_store = practice_storage(config)
    scrub = PathScrubber.for_league(league.policy.root, config.uploads, storage)

    def read_store(path: Path = storage) -> Store:
        return Store(path, read_only=True)

    # ----- the API ---------------------------------------------------------------------------

    async def standings(request: Request) -> Response:
        # (GET and HEAD are answered by StandingsFirst before routing; the route stays for
        # the rest: 405 to another method)
        return Response(league.standings.table.body, media_type="application/json")

    def bot_data(name: str, viewer: Viewer = PUBLIC) -> dict[str, Any] | None:
        with accounts() as acc, read_store() as store:
            uploads = acc.uploads(name)
            versions = [e for e in store.entrants() if e.name == name]
            owner = acc.owner(name)
            failures = store.failures()
            opponents = _opponents(store, [e.key for e in versions])
            history = {e.key: acc.ratings(e.key) for e in versions}
        if not uploads and not versions:
            return None
        active = set(league.active())
        table = {r["key"]: r for r in league.standings.table.rows}
        return {
            "name": name, "author": owner or "house",
            "versions": [{"key": e.key, "version": e.bot_version, "hash": e.version,
                          "language": e.language, "active": e.key in active,
                          "retired": e.retired, "failures": failures.get(e.key, {}),
                          "standing": table.get(e.key),
                          "history": [{"games": g, "rating": r,
                                       "interval": h if math.isfinite(h) else None}
                                      for g, r, h in history[e.key]]} for e in versions],
            "uploads": [upload_view(u, viewer, scrub) for u in uploads],
            "opponents": opponents}

    async def bot(request: Request) -> JSONResponse:
        name = request.path_params["name"]
        viewer = await viewer_of(request)
        if isinstance(viewer, JSONResponse):
            return viewer
        data = await run_in_threadpool(bot_data, name, viewer)
        if data is None:
            return error(404, f"no bot named {name!r} in this league (GET /api/standings "
                              "lists the entrants)")
        return JSONResponse(data)

    def games_of(bot_name: str | None, after: int, limit: int,
                 game_id: str | None = None, newest: bool = False, path: Path = storage
                 ) -> list[tuple[int, StoredGame]]:
        """Stored games after the cursor `after`, oldest first (`newest`: the last `limit`
        stored, newest first); `path`: of that store (the practice games')."""
        if not path.exists():
            return []
        with read_store(path) as store:
            return store.games_page(after, limit, bot_name, game_id, newest)

    def game_json(rowid: int, g: StoredGame) -> dict[str, Any]:
        return {"id": g.game_id, "cursor": rowid, "pair": g.pair_id, "pair_index": g.pair_index,
                "game_index": g.game_index, "teams": list(g.teams), "scores": list(g.scores),
                "winner": g.winner, "rounds": g.rounds, "termination": g.termination,
                "fault_seat": g.fault_seat, "fault_message": scrub(g.fault_message or "")
                or None,
                "seconds": g.seconds, "finished_at": g.finished_at,
                "url": f"/api/games/{quote(g.game_id, safe='')}",
                "replay": f"/games/{quote(g.game_id, safe='')}"}

    def _int(request: Request, key: str, default: int) -> int:
        value = request.query_params.get(key)
        return default if value is None else bounded_int(f"query parameter {key!r}", value)

    def games(request: Request) -> JSONResponse:
        after = _int(request, "after", 0)
        limit = _int(request, "limit", 50)
        if not 1 <= limit <= MAX_GAMES_PAGE:
            return error(400, f"limit must be between 1 and {MAX_GAMES_PAGE}, not {limit}")
        listed = games_of(request.query_params.get("bot"), after, limit)
        return JSONResponse({"games": [game_json(r, g) for r, g in listed],
                             "next": listed[-1][0] if len(listed) == limit else None})

    def one_game(game_id: str, path: Path = storage
                 ) -> tuple[StoredGame, dict[str, Any]] | None:
        listed = games_of(None, 0, 1, game_id, path=path)
        if not listed:
            return None
        found = listed[0][1]
        with read_store(path) as store:
            try:
                record = record_json(store.record_path(found.record))
            except ArenaError:
                record = {}
        return found, record

    async def game(request: Request) -> JSONResponse:
        game_id = request.path_params["game_id"]
        viewer = await viewer_of(request)
        if isinstance(viewer, JSONResponse):
            return viewer
        found = await run_in_threadpool(one_game, game_id)
        if found is None:
            return error(404, f"no stored game {game_id!r} (GET /api/games lists them)")
        stored, record = found
        return JSONResponse({**game_json(0, stored),
                             "record": await run_in_threadpool(record_view, record, viewer)})

    def record_view(record: dict[str, Any], viewer: Viewer) -> dict[str, Any]:
        """A record as `viewer` may see it (`privacy.game_view`)."""
        with accounts() as acc:
            owners = acc.authors_of()
        return game_view(record, owners, viewer, scrub)

    async def upload_status(request: Request) -> JSONResponse:
        viewer = await viewer_of(request)
        if isinstance(viewer, JSONResponse):
            return viewer
        row = await run_in_threadpool(upload_row, request.path_params["upload"])
        if row is None:
            return error(404, f"no upload {request.path_params['upload']}")
        return JSONResponse(upload_view(row, viewer, scrub))

    def upload_row(upload: int) -> Any:
        with accounts() as acc:
            return acc.upload(upload)

    async def viewer_of(request: Request) -> Viewer | JSONResponse:
        """Who asks: anyone without a token; with one, its author (403 if it is not valid)."""
        token = _bearer(request)
        if token is None:
            return PUBLIC
        author = await authenticate(token)
        if isinstance(author, JSONResponse):
            return author
        return Viewer(author.name, author.organizer)

    async def authenticate(token: str | None) -> Author | JSONResponse:
        if token is None:
            return error(401, "no token: send `Authorization: Bearer TOKEN` with the token "
                              "the organizer gave you (arena league invite)")
        author = await run_in_threadpool(_authenticate, token)
        if author is None:
            return error(403, "this token is not valid (mistyped, or revoked): ask the "
                              "organizer for a new one")
        return author

    def _authenticate(token: str) -> Author | None:
        with accounts() as acc:
            return acc.authenticate(token)

    quota = UploadQuota(config.uploads_per_hour, PENDING_PER_AUTHOR)

    def _admit(author: Author, name: str) -> JSONResponse | None:
        """The checks made before an upload's bytes are read (its name, its owner, the
        author's quotas): a fast refusal only, since `store_upload` checks again as it
        records the upload."""
        if not valid_name(name):
            return error(400, f"the bot name {name!r} is not a bot name ({NAME_RULE})")
        if name in house:
            return error(409, f"the bot name {name!r} is a house bot's (the league's own "
                              "entrants): choose another name (in bot.toml, and --name)")
        with accounts() as acc:
            refused = acc.upload_refusal(author.name, name, quota)
        if refused is None:
            return None
        exc = refusal_error(refused, name, quota)
        return error(exc.status, str(exc))

    def _count_refusal(author: Author, kind: CountedRefusal) -> None:
        with accounts() as acc:
            acc.add_refusal(author.name, kind, quota)

    def too_large(request: Request) -> JSONResponse | None:
        """411/413 from the request's Content-Length, before a byte of the body is read
        (the ASGI server holds the body to that length)."""
        length = request.headers.get("content-length")
        if length is None or not length.isdigit():
            return error(411, "send the upload with a Content-Length")
        if int(length) > config.upload_bytes + MULTIPART_SLACK:
            return error(413, f"the upload is larger than the league's limit of "
                              f"{config.upload_bytes // 2**20} MB (league.upload_megabytes)")
        return None

    async def refuse_unread(request: Request, refusal: JSONResponse) -> JSONResponse:
        """`refusal`, after reading and dropping the body it was sent with (up to twice the
        upload limit): answered before the body is read, the connection is closed while
        the client still sends, and the client sees a broken pipe, not the refusal."""
        meter = meter_of(request.scope)
        if meter is not None:  # dropped as it comes: twice the limit may be read, not kept
            meter.limit = max(meter.limit, 2 * config.upload_bytes)
        try:
            async for _ in request.stream():
                pass
        except (ClientDisconnect, BodyTooLarge):  # it gave up, or sent too much to drain
            pass
        return refusal

    async def receive_upload(request: Request, token: str | None,
                             form_name: str = "archive") -> JSONResponse:
        author = await authenticate(token)
        if isinstance(author, JSONResponse):
            return await refuse_unread(request, author)
        refused = too_large(request)
        if refused is not None:
            if refused.status_code == 413:  # counts toward the hourly quota (not a 411)
                await run_in_threadpool(_count_refusal, author, CountedRefusal.TOO_LARGE)
            return await refuse_unread(request, refused)
        async with request.form(max_files=1, max_fields=8) as form:
            name = form.get("name")
            archive = form.get(form_name)
            if not isinstance(name, str) or not isinstance(archive, UploadFile):
                return error(400, f"send a multipart form with the fields `name` (the bot's "
                                  f"name) and `{form_name}` (a .tar.gz, .tgz, .tar or .zip "
                                  "of the bot folder)")
            refused = await run_in_threadpool(_admit, author, name)
            if refused is not None:
                return refused
            try:
                upload = await run_in_threadpool(
                    _store, author.name, name, archive.filename or "", archive)
            except BadUpload as exc:
                return error(exc.status, scrub(str(exc)))
        league.intake.put(upload)
        return JSONResponse({"id": upload, "name": name, "status": UploadStatus.RECEIVED,
                             "url": f"/api/uploads/{upload}", "page": f"/bots/{name}"},
                            status_code=202)

    def _store(author: str, name: str, filename: str, archive: UploadFile) -> int:
        with accounts() as acc:
            return store_upload(config, league.policy, acc, author, name, filename,
                                archive.file, quota)

    async def post_bot(request: Request) -> JSONResponse:
        return await receive_upload(request, _bearer(request))

    async def admin(request: Request) -> JSONResponse:
        """An organizer's action on a bot: disable (out of the live table, its games kept),
        enable (back in) or rebuild (its version built and checked again)."""
        author = await authenticate(_bearer(request))
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
        done = await run_in_threadpool(league.set_disabled, name, action == "disable")
        if not done:
            return error(404, f"no uploaded bot named {name!r} (house bots are the "
                              "config's: edit its entrants)")
        return JSONResponse({"name": name, "disabled": action == "disable"})

    # ----- practice games --------------------------------------------------------------------

    def practice_json(row: PracticeRow) -> dict[str, Any]:
        return {**row.public(), "url": f"/api/practice/{row.id}",
                "page": f"/practice/{row.id}", "replay": f"/practice/{row.id}/replay"}

    def practice_row(practice: int) -> PracticeRow | None:
        with accounts() as acc:
            return acc.practice(practice)

    async def ask_practice(author: Author, fields: Any) -> JSONResponse:
        bot, opponent = (fields.get(k) if isinstance(fields, dict) else None
                         for k in ("bot", "opponent"))
        version = fields.get("version") if isinstance(fields, dict) else None
        if not isinstance(bot, str) or not isinstance(opponent, str) or not isinstance(
                version, (str, type(None))):
            return error(400, 'send {"bot": one of your bots, "opponent": an active entrant '
                              '(a name from GET /api/standings)} and optionally "version" '
                              "(one of your bot's versions; default: its active one)")
        try:
            row = await run_in_threadpool(league.practice.ask, author.name, bot, opponent,
                                          version or None)
        except PracticeRefused as exc:
            return error(exc.status, scrub(str(exc)))
        return JSONResponse(practice_json(row), status_code=202)

    async def post_practice(request: Request) -> JSONResponse:
        """An author asks for an unrated practice game (JSON: bot, opponent, version)."""
        author = await authenticate(_bearer(request))
        if isinstance(author, JSONResponse):
            return author
        length = request.headers.get("content-length", "")
        if length.isdigit() and int(length) > SMALL_BODY:
            return error(413, f"a practice request is a small JSON object ({SMALL_BODY} "
                              "bytes at most)")
        return await ask_practice(author, json_body(await request.body()))

    async def practice_status(request: Request) -> JSONResponse:
        viewer = await viewer_of(request)
        if isinstance(viewer, JSONResponse):
            return viewer
        data = await run_in_threadpool(practice_data, request.path_params["practice"], viewer)
        if data is None:
            return error(404, f"no practice game {request.path_params['practice']}")
        return JSONResponse(data)

    def practice_data(practice: int, viewer: Viewer) -> dict[str, Any] | None:
        """A practice game's status and, once over, its game as `viewer` may see it."""
        row = practice_row(practice)
        if row is None:
            return None
        data = {**practice_json(row), "reason": scrub(row.reason)}
        found = one_game(row.game_id, practice_store) if row.status is PracticeStatus.DONE and \
            row.game_id else None
        if found is not None:
            data["game"] = {**game_json(0, found[0]), "url": data["url"],
                            "replay": data["replay"], "record": record_view(found[1], viewer)}
        return data

    async def rebuild(name: str, request: Request) -> JSONResponse:
        """An organizer's rebuild; `?upload=ID` or `?version=V` names the upload to rebuild
        (default: the bot's active one, else its newest)."""
        asked, version = (request.query_params.get(k) for k in ("upload", "version"))
        if asked is not None and version is not None:
            return error(400, "name the upload to rebuild by ?upload=ID or by ?version=V "
                              "(an entrant key or its hash), not both")
        if asked is not None and not asked.isdigit():
            return error(400, f"?upload= takes an upload's id, a number (GET /api/bots/{name} "
                              f"lists them), not {asked!r}")
        if version is not None and not version:
            return error(400, "?version= is empty: give an entrant key or its hash")
        upload_id = None if asked is None else bounded_int("?upload=", asked)
        try:
            upload = await run_in_threadpool(league.rebuild, name, upload_id, version)
        except Busy as exc:
            return error(409, str(exc))
        except NoSuchUpload as exc:
            return error(404, str(exc))
        if upload is None:
            return error(404, f"no uploaded bot named {name!r} (house bots are the "
                              "config's: they are built at each start)")
        return JSONResponse({"name": name, "upload": upload, "status": UploadStatus.RECEIVED,
                             "url": f"/api/uploads/{upload}"}, status_code=202)

    def openapi(request: Request) -> JSONResponse:
        return JSONResponse(SCHEMA)

    def body_limit(method: str, path: str) -> int:
        """The largest body a request may send (`guards.BodyLimit`): an upload's, or small."""
        if method == "POST" and path in ("/api/bots", "/upload"):
            return config.upload_bytes + MULTIPART_SLACK
        return SMALL_BODY

    # ----- pages -----------------------------------------------------------------------------

    nav = [("/", "Leaderboard"), ("/games", "Games"), ("/live", "Live"), ("/upload", "Upload")]

    def frame(title: str, body: str, scripts: tuple[str, ...] = ()) -> HTMLResponse:
        return HTMLResponse(page(title, body, assets="/assets", nav=nav,
                                 scripts=("report.js", *scripts)))

    def index(request: Request) -> HTMLResponse:
        table = league.standings.table
        body = (f"<h1>{esc(config.tournament.name)}: the live leaderboard</h1>"
                f'<p><span id="games-count">{table.games}</span> games played; the table '
                "updates itself as games finish.</p>"
                f'<section id="leaderboard" data-events="/events" '
                f'data-version="{table.version}">{table.html}</section>'
                + "".join(f"<p class=\"note\">{esc(n)}</p>" for n in table.notes))
        return frame(f"{config.tournament.name}: leaderboard", body, ("league.js",))

    def game_rows(listed: list[tuple[int, StoredGame]]) -> list[GameListRow]:
        with read_store() as store:
            names = labels(store)
        rows = []
        for _, g in listed:
            teams = tuple(names.get(k, (k, ""))[0] for k in g.teams)
            winner = "" if g.winner is None else teams[g.winner]
            rows.append(GameListRow(g.game_id, f"/games/{quote(g.game_id, safe='')}",
                                    g.pair_index, g.game_index, (teams[0], teams[1]),
                                    g.scores, winner, g.rounds, g.termination,
                                    "" if g.fault_seat is None else
                                    f"seat {g.fault_seat}: {scrub(g.fault_message or '')}",
                                    g.seconds, g.finished_at))
        return rows

    def games_page(request: Request) -> HTMLResponse:
        listed = games_of(request.query_params.get("bot"), 0, MAX_GAMES_PAGE, newest=True)
        return frame("Games", f"<h1>The last {len(listed)} games</h1>"
                     + games_table(game_rows(listed)))

    def bot_page(request: Request, viewer: Viewer = PUBLIC) -> HTMLResponse:
        name = request.path_params["name"]
        data = bot_data(name, viewer)
        if data is None:
            raise HTTPException(404, f"no bot named {name!r}")
        parts = [f"<h1>{esc(name)}</h1><p>Author: {esc(data['author'])}</p>",
                 "<h2>Uploads</h2>"]
        if not data["uploads"]:
            parts.append("<p>None: a house bot, from the league's config.</p>")
        for u in reversed(data["uploads"]):
            parts.append(f'<div class="upload" id="upload-{u["id"]}"><p>Upload {u["id"]}: '
                         f'<strong class="status">{esc(u["status"])}</strong>'
                         + (f" at {esc(u['stage'])}: {esc(u['reason'])}" if u["reason"] else "")
                         + "</p>"
                         + (f"<pre>{esc(u['log'])}</pre>" if u["log"] and
                            viewer.sees(u["author"]) else "")
                         + (f"<p>Reproduce it on your machine: <code>{esc(u['command'])}</code>"
                            "</p>" if u["command"] else "") + "</div>")
        parts.append("<h2>Versions</h2><ul>")
        for v in data["versions"]:
            s = v["standing"]
            parts.append(f"<li>{esc(v['version'])} {esc(v['hash'][:8])}: "
                         + ("active" if v["active"] else "retired" if v["retired"] else
                            "inactive")
                         + (f", rating {esc(s['rating_text'])} ({esc(s['interval_text'])}) "
                            f"over {s['games']} games" if s else "")
                         + (f", failures {esc(json.dumps(v['failures']))}" if v["failures"]
                            else "") + "</li>")
        parts.append("</ul>")
        for v in data["versions"]:
            chart = rating_line([(p["games"], p["rating"], p["interval"] or math.inf)
                                 for p in v["history"]],
                                f"{name} {v['version']} {v['hash'][:8]}: rating over games")
            if chart:
                parts.append(f"<h2>Rating over time: {esc(v['version'])} "
                             f"{esc(v['hash'][:8])}</h2><figure>{chart}<figcaption>Elo after "
                             "each number of games, with its 95% interval.</figcaption>"
                             "</figure>")
        parts.append("<h2>Against each opponent</h2>")
        parts.append(table(
            ["Opponent", "Games", "Wins", "Win %"],
            [[cell(o["opponent"]), cell(o["games"]), cell(o["wins"]),
              cell(f"{100 * o['wins'] / o['games']:.0f}", o["wins"] / o["games"])]
             for o in data["opponents"] if o["games"]],
            "opponents-table", numeric=[False, True, True, True]))
        kinds: dict[str, int] = {}
        for v in data["versions"]:
            for kind, count in v["failures"].items():
                kinds[kind] = kinds.get(kind, 0) + count
        parts.append("<h2>Failures by kind</h2>" + (
            "<ul>" + "".join(f"<li>{esc(k)}: {n}</li>" for k, n in sorted(kinds.items()))
            + "</ul>" if kinds else "<p>None.</p>"))
        parts.append("<h2>Recent games</h2>")
        parts.append(games_table(game_rows(games_of(name, 0, 50, newest=True))))
        csrf = request.cookies.get(CSRF_COOKIE) or secrets.token_urlsafe(32)
        if data["uploads"]:
            parts.append(practice_form_html(name, csrf))
            if viewer is PUBLIC:
                parts.append(sign_in_html(name, csrf))
        response = frame(name, "".join(parts))
        response.set_cookie(CSRF_COOKIE, csrf, httponly=True, samesite="strict")
        return response

    def sign_in_html(name: str, csrf: str) -> str:
        """The form showing the bot's author its build logs (their token needed)."""
        return ('<h2>Your build logs</h2><p>Build logs and the commands that reproduce a '
                "failure are shown to the bot's author only.</p>"
                f'<form method="post" action="/bots/{esc(quote(name))}" id="sign-in-form">'
                f'<input type="hidden" name="csrf" value="{esc(csrf)}">'
                '<p><label>Token <input type="password" name="token" required '
                'autocomplete="off"></label></p>'
                '<p><button type="submit">Show my logs</button></p></form>')

    async def form_author(request: Request) -> tuple[Author, Any] | JSONResponse:
        """A bot page's form (CSRF-checked as the upload form is) and its token's author."""
        cookie = request.cookies.get(CSRF_COOKIE, "")
        form = await request.form(max_files=0, max_fields=8)
        sent, token = form.get("csrf"), form.get("token")
        if not cookie or not isinstance(sent, str) or not hmac.compare_digest(
                cookie.encode(), sent.encode()):
            return error(403, "the form is stale or was sent from another site: open the "
                              "bot's page again and send it from there")
        author = await authenticate(token if isinstance(token, str) and token else None)
        return author if isinstance(author, JSONResponse) else (author, form)

    async def signed_in_bot_page(request: Request) -> Response:
        """The bot's page with what its author (or the organizer) may see."""
        signed = await form_author(request)
        if isinstance(signed, JSONResponse):
            return signed
        author = signed[0]
        return await run_in_threadpool(bot_page, request, Viewer(author.name,
                                                                 author.organizer))

    def practice_form_html(name: str, csrf: str) -> str:
        """The form asking for a practice game of bot `name` (its author's token needed)."""
        others = sorted({k.split("@")[0] for k in league.active()} - {name})
        options = "".join(f'<option value="{esc(o)}">{esc(o)}</option>' for o in others)
        return ('<h2>Practice game</h2><p>An unrated game of this bot\'s active version '
                "against an entrant of your choice, to watch live; it counts in no table "
                f"(at most {config.practice_per_day} a day).</p>"
                '<form method="post" action="/practice" id="practice-form">'
                f'<input type="hidden" name="csrf" value="{esc(csrf)}">'
                f'<input type="hidden" name="bot" value="{esc(name)}">'
                '<p><label>Token <input type="password" name="token" required '
                'autocomplete="off"></label></p>'
                f'<p><label>Opponent <select name="opponent">{options}</select></label></p>'
                '<p><button type="submit">Play a practice game</button></p></form>')

    def game_page(request: Request) -> HTMLResponse:
        game_id = request.path_params["game_id"]
        body = replay_viewer("/games", game=slug(game_id),
                             data_script=f"/replays/{quote(game_id, safe='')}.js")
        return frame(f"Replay {game_id}", body, ("replay.js",))

    def replay_data(request: Request) -> Response:
        game_id = request.path_params["game_id"].removesuffix(".js")
        found = one_game(game_id)
        if found is None or not found[1]:
            raise HTTPException(404, f"no stored game {game_id!r}")
        stored, record = found
        with read_store() as store:
            names = labels(store)
        return Response(replay_script(stored.game_id, replay_payload(stored, record, names)),
                        media_type="text/javascript")

    def upload_page(request: Request) -> HTMLResponse:
        csrf = request.cookies.get(CSRF_COOKIE) or secrets.token_urlsafe(32)
        body = ('<h1>Upload a bot</h1><form method="post" action="/upload" '
                'enctype="multipart/form-data" id="upload-form">'
                f'<input type="hidden" name="csrf" value="{esc(csrf)}">'
                '<p><label>Token <input type="password" name="token" required '
                'autocomplete="off"></label></p>'
                '<p><label>Bot name <input type="text" name="name" required></label></p>'
                '<p><label>Archive (.tar.gz, .tgz, .tar, .zip) <input type="file" '
                'name="archive" required></label></p>'
                '<p><button type="submit">Upload</button></p></form>')
        response = frame("Upload a bot", body)
        response.set_cookie(CSRF_COOKIE, csrf, httponly=True, samesite="strict")
        return response

    async def upload_form(request: Request) -> Response:
        cookie = request.cookies.get(CSRF_COOKIE, "")
        refused = too_large(request)
        if refused is not None:
            return refused
        form = await request.form(max_files=1, max_fields=8)  # kept for receive_upload
        sent = form.get("csrf")
        token = form.get("token")
        if not cookie or not isinstance(sent, str) or not hmac.compare_digest(
                cookie.encode(), sent.encode()):
            return error(403, "the form is stale or was sent from another site: open "
                              "/upload again and send it from there")
        result = await receive_upload(request, token if isinstance(token, str) else None)
        if result.status_code != 202:
            return result
        data = json.loads(bytes(result.body))
        return frame("Uploaded", f"<h1>Upload {data['id']} received</h1><p>Follow it on "
                                 f"<a href=\"/bots/{quote(data['name'])}\">its bot's page"
                                 "</a>.</p>")

    # The three event streams share their caps, lifetime and heartbeat (limits.py).
    streams = EventStreams(config.limits, league.stopping, EVENT_SECONDS)

    async def events(request: Request) -> StreamingResponse:
        async def stream() -> AsyncGenerator[str, None]:
            seen = -1
            while True:
                table = league.standings.table
                yield table.event if table.version != seen else ""
                seen = table.version

        return streams.response(request, stream())

    def live_events(game_id: str) -> list[dict[str, Any]] | None:
        """The public events so far of a game in progress (None: not in progress)."""
        if "/" in game_id or game_id.startswith("."):
            return None
        try:
            return list(json.loads((league.live / f"{game_id}.json").read_text()))
        except (OSError, ValueError):
            return None

    def seat_labels(game_id: str) -> list[str]:
        sides, _, rest = game_id.rpartition("#")
        first, _, second = sides.partition("~")
        teams = (first, second) if rest.endswith(".0") else (second, first)
        names = [t.split("@")[0] for t in teams]
        return [names[0], names[1], names[0], names[1]]

    def live_list(request: Request) -> HTMLResponse:
        games = sorted(p.name.removesuffix(".json") for p in league.live.glob("*.json"))
        items = "".join(f'<li><a href="/live/{quote(g, safe="")}">{esc(g)}</a></li>'
                        for g in games)
        return frame("Live games", "<h1>Games in progress</h1>" + (
            f'<ul id="live-games">{items}</ul>' if items else
            '<p class="empty">None right now: reload in a moment.</p>'))

    def live_page(request: Request) -> HTMLResponse:
        game_id = request.path_params["game_id"]
        events = live_events(game_id)
        if events is None:
            raise HTTPException(404, f"game {game_id!r} is not in progress (it may be over: "
                                     f"/games/{game_id})")
        quoted = quote(game_id, safe="")
        body = live_game(f"Live: {game_id}", public_table(events, seat_labels(game_id)),
                         f"/live/{quoted}/events", f"/games/{quoted}")
        return frame(f"Live {game_id}", body, ("live.js",))

    async def live_stream(request: Request) -> StreamingResponse:
        game_id = request.path_params["game_id"]
        labels = seat_labels(game_id)

        async def stream() -> AsyncGenerator[str, None]:
            shown = None
            while True:
                events = await run_in_threadpool(live_events, game_id)
                if events is None:
                    yield "event: end\ndata: over\n\n"
                    return
                new = len(events) != shown
                shown = len(events)
                yield f"event: table\ndata: {live_fragment(events, labels)}\n\n" if new else ""

        return streams.response(request, stream())

    def practice_events(practice: int) -> tuple[PracticeRow | None, list[dict[str, Any]]]:
        """A practice game as stored, and its public events so far ([]: none yet)."""
        row = practice_row(practice)
        path = None if row is None else league.practice.live_file(row)
        if path is None:
            return row, []
        try:
            return row, list(json.loads(path.read_text()))
        except (OSError, ValueError):  # not started yet, or being rewritten
            return row, []

    def practice_labels(row: PracticeRow) -> list[str]:
        mine, theirs = row.entrant.split("@")[0], row.opponent.split("@")[0]
        return [mine, theirs, mine, theirs]  # the author's version is team 0

    def practice_page(request: Request) -> HTMLResponse:
        practice = request.path_params["practice"]
        row, events = practice_events(practice)
        if row is None:
            raise HTTPException(404, f"no practice game {practice}")
        replay = f"/practice/{row.id}/replay"
        said = {PracticeStatus.QUEUED: " It waits for its turn (practice games are played one "
                                       "at a time): the table fills when it starts.",
                PracticeStatus.PLAYING: "",
                PracticeStatus.FAILED: f" It failed: {scrub(row.reason)}",
                PracticeStatus.DONE: " It is over."}[row.status]

        def short(key: str) -> str:
            name, _, version = key.partition("@")
            return f"{name} {version[:8]}"

        body = (live_game(f"Practice {row.id}: {short(row.entrant)} against "
                          f"{short(row.opponent)}",
                          public_table(events, practice_labels(row)),
                          f"/practice/{row.id}/events", replay)
                + f'<p id="practice-status" data-status="{esc(row.status)}">Unrated: it '
                f"counts in no table.{esc(said)}"
                + (f' <a href="{esc(replay)}">Open the replay</a>.' if row.status is PracticeStatus.DONE
                   else "") + "</p>")
        return frame(f"Practice {row.id}", body, ("live.js",))

    async def practice_stream(request: Request) -> StreamingResponse:
        practice = request.path_params["practice"]

        async def stream() -> AsyncGenerator[str, None]:
            shown = None
            while True:
                row, events = await run_in_threadpool(practice_events, practice)
                if row is None or row.status.final:
                    yield "event: end\ndata: over\n\n"
                    return
                new = len(events) != shown
                shown = len(events)
                yield (f"event: table\ndata: {live_fragment(events, practice_labels(row))}"
                       "\n\n") if new else ""

        return streams.response(request, stream())

    def practice_game(practice: int) -> tuple[StoredGame, dict[str, Any]]:
        row = practice_row(practice)
        found = None if row is None or row.status is not PracticeStatus.DONE or not row.game_id else \
            one_game(row.game_id, practice_store)
        if found is None or not found[1]:
            raise HTTPException(404, f"practice game {practice} is not over (or not kept): "
                                     f"/practice/{practice} shows it")
        return found

    def practice_replay(request: Request) -> HTMLResponse:
        practice = request.path_params["practice"]
        stored, _ = practice_game(practice)
        body = replay_viewer(f"/practice/{practice}", game=slug(stored.game_id),
                             data_script=f"/practice/{practice}/replay.js")
        return frame(f"Practice {practice}: replay", body, ("replay.js",))

    def practice_replay_data(request: Request) -> Response:
        stored, record = practice_game(request.path_params["practice"])
        with read_store(practice_store) as store:
            names = labels(store)
        return Response(replay_script(stored.game_id, replay_payload(stored, record, names)),
                        media_type="text/javascript")

    async def practice_form(request: Request) -> Response:
        """The bot page's practice form: CSRF-checked as the upload form is, then as
        `POST /api/practice`; on success, to the game's page."""
        signed = await form_author(request)
        if isinstance(signed, JSONResponse):
            return signed
        author, form = signed
        result = await ask_practice(author, {k: form.get(k) for k in ("bot", "opponent")})
        if result.status_code != 202:
            return result
        return RedirectResponse(json.loads(bytes(result.body))["page"], status_code=303)

    def league_js(request: Request) -> Response:
        return Response(LEAGUE_JS, media_type="text/javascript")

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return error_page(request, exc.status_code, scrub(str(exc.detail)))

    def error_page(request: Request, status: int, message: str) -> Response:
        """An error as JSON (the API, the event streams, the scripts) or as a page."""
        path = request.url.path
        if path.startswith("/api/") or path.endswith(("/events", ".js", ".json")) or \
                request.method != "GET":
            return error(status, message)
        return HTMLResponse(page("Error", f"<h1>{status}</h1><p>{esc(message)}</p>",
                                 assets="/assets", nav=nav), status_code=status)

    async def server_error(request: Request, exc: Exception) -> Response:
        """Any error no handler caught: logged with its traceback, answered 500 with a
        sentence (never the server's text or paths)."""
        logger.error("%s %s failed", request.method, request.url.path, exc_info=exc)
        return error_page(request, 500, "the league failed to answer this request (its "
                                        "organizer finds the details in the server's log)")

    assets = StaticFiles(directory=str(resources.files("arena.presentation") / "assets"))
    routes = [
        Route("/openapi.json", openapi),
        Route("/api/standings", standings),
        Route("/api/bots", post_bot, methods=["POST"]),
        Route("/api/bots/{name}", bot),
        Route("/api/bots/{name}/{action}", admin, methods=["POST"]),
        Route("/api/practice", post_practice, methods=["POST"]),
        Route("/api/practice/{practice:id}", practice_status),
        Route("/api/uploads/{upload:id}", upload_status),
        Route("/api/games", games),
        Route("/api/games/{game_id:path}", game),
        Route("/", index),
        Route("/events", events),
        Route("/games", games_page),
        Route("/games/{game_id:path}", game_page),
        Route("/replays/{game_id:path}", replay_data),
        Route("/live", live_list),
        Route("/live/{game_id}/events", live_stream),
        Route("/live/{game_id}", live_page),
        Route("/bots/{name}", bot_page, methods=["GET"]),
        Route("/bots/{name}", signed_in_bot_page, methods=["POST"]),
        Route("/practice", practice_form, methods=["POST"]),
        Route("/practice/{practice:id}", practice_page),
        Route("/practice/{practice:id}/events", practice_stream),
        Route("/practice/{practice:id}/replay", practice_replay),
        Route("/practice/{practice:id}/replay.js", practice_replay_data),
        Route("/upload", upload_page, methods=["GET"]),
        Route("/upload", upload_form, methods=["POST"]),
        Route("/assets/league.js", league_js),
        Mount("/assets", assets),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: http_error,
                                                      Exception: server_error})
    guarded = SecurityHeaders(BodyLimit(app, body_limit))
    return StandingsFirst(guarded, league)


def _opponents(store: Store, keys: list[str]) -> list[dict[str, Any]]:
    """Games and wins of the bot's versions (`keys`) against each other bot, by name."""
    totals: dict[str, list[int]] = {}
    for opponent, games, wins in store.opponents(keys):
        entry = totals.setdefault(opponent.split("@")[0], [0, 0])
        entry[0] += games
        entry[1] += wins
    return [{"opponent": name, "games": g, "wins": w} for name, (g, w) in sorted(totals.items())]
