"""Receiving an upload, from `POST /api/bots` or the upload form: the checks made before
its bytes are read (the length, the name, the owner, the quotas), then the archive stored
and handed to intake (`uploads.py`).

A refusal made before the body is read still reads and drops the body (`refuse_unread`),
so that the client sees the refusal rather than a broken pipe.
"""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response

from arena.league import models
from arena.league.accounts import Author, CountedRefusal, UploadStatus
from arena.league.config import LeagueConfig
from arena.league.guards import MULTIPART_SLACK, SMALL_BODY, BodyTooLarge, meter_of
from arena.league.uploads import BadUpload, refusal_error, store_upload
from arena.league.web.answers import answer
from arena.league.web.auth import authenticate
from arena.league.web.errors import error
from arena.league.web.state import WebState, shared
from arena.referee.manifest import NAME_RULE, valid_name

UPLOAD_PATHS = ("/api/bots", "/upload")
"""The routes a POST of which carries an upload (its body up to the upload limit)."""


def body_limit(config: LeagueConfig, method: str, path: str) -> int:
    """The largest body a request may send (`guards.BodyLimit`): an upload's, or small."""
    if method == "POST" and path in UPLOAD_PATHS:
        return config.upload_bytes + MULTIPART_SLACK
    return SMALL_BODY


def admit(state: WebState, author: Author, name: str) -> JSONResponse | None:
    """The checks made before an upload's bytes are read (its name, its owner, the
    author's quotas): a fast refusal only, since `store_upload` checks again as it
    records the upload."""
    if not valid_name(name):
        return error(400, f"the bot name {name!r} is not a bot name ({NAME_RULE})")
    if name in state.house:
        return error(409, f"the bot name {name!r} is a house bot's (the league's own "
                          "entrants): choose another name (in bot.toml, and --name)")
    with state.accounts() as acc:
        refused = acc.upload_refusal(author.name, name, state.quota)
    if refused is None:
        return None
    exc = refusal_error(refused, name, state.quota)
    return error(exc.status, str(exc))


def count_refusal(state: WebState, author: Author, kind: CountedRefusal) -> None:
    """A refusal that counts toward the author's hourly quota, recorded."""
    with state.accounts() as acc:
        acc.add_refusal(author.name, kind, state.quota)


def too_large(config: LeagueConfig, request: Request) -> JSONResponse | None:
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
        meter.limit = max(meter.limit, 2 * shared(request).config.upload_bytes)
    try:
        async for _ in request.stream():
            pass
    except (ClientDisconnect, BodyTooLarge):  # it gave up, or sent too much to drain
        pass
    return refusal


def store(state: WebState, author: str, name: str, archive: UploadFile) -> int:
    """The upload's archive stored and recorded (`uploads.store_upload`); its id."""
    with state.accounts() as acc:
        return store_upload(state.config, state.league.policy, acc, author, name,
                            archive.filename or "", archive.file, state.quota)


async def receive_upload(request: Request, token: str | None, form_name: str = "archive",
                         body_read: bool = False) -> Response:
    """An upload received: 202 with its id and links, handed to intake; else the refusal
    (its body drained first, unless the form was read already: `body_read`)."""
    state = shared(request)
    author = await authenticate(request, token)
    if isinstance(author, JSONResponse):
        return author if body_read else await refuse_unread(request, author)
    refused = too_large(state.config, request)
    if refused is not None:
        if refused.status_code == 413:  # counts toward the hourly quota (not a 411)
            await run_in_threadpool(count_refusal, state, author, CountedRefusal.TOO_LARGE)
        return refused if body_read else await refuse_unread(request, refused)
    async with request.form(max_files=1, max_fields=8) as form:
        name = form.get("name")
        archive = form.get(form_name)
        if not isinstance(name, str) or not isinstance(archive, UploadFile):
            return error(400, f"send a multipart form with the fields `name` (the bot's "
                              f"name) and `{form_name}` (a .tar.gz, .tgz, .tar or .zip "
                              "of the bot folder)")
        refused = await run_in_threadpool(admit, state, author, name)
        if refused is not None:
            return refused
        try:
            upload = await run_in_threadpool(store, state, author.name, name, archive)
        except BadUpload as exc:
            return error(exc.status, state.scrub(str(exc)))
    state.league.intake.put(upload)
    return answer(models.UploadAccepted, {
        "id": upload, "name": name, "status": UploadStatus.RECEIVED,
        "url": f"/api/uploads/{upload}", "page": f"/bots/{name}"}, 202)
