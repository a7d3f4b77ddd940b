"""The OpenAPI schema of the league's JSON API, served at `/openapi.json` (`app.py`).

Generated, not written out: the bodies' schemas come from the models of `models.py`
(`msgspec.json.schema_components`), and `OPERATIONS` lists each route with its method,
parameters, security and which model answers which status. The tests decode every JSON answer
of the suite into the model `find_operation` names for it, so an answer and its schema cannot
drift apart (tests/league/conftest.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec
import msgspec.inspect

from arena.league.models import (
    AdminDone,
    Bot,
    Error,
    Game,
    GamesPage,
    Practice,
    PracticeRequest,
    RebuildAccepted,
    SeatAnswer,
    SeatAnswerRequest,
    SeatLeft,
    SeatMessages,
    Standings,
    Upload,
    UploadAccepted,
    UploadForm,
)

REF = "#/components/schemas/{name}"


@dataclass(frozen=True)
class Answer:
    """One status of an operation: what it means, and the model of its JSON body."""

    description: str
    model: type[msgspec.Struct]


ERROR = "An error a person can act on"
EVERY_ROUTE = {
    408: Answer("The request's headers or body came too slowly (league.header_seconds, "
                "league.body_seconds)", Error),
    413: Answer("The request's body is larger than this route takes", Error),
    429: Answer("Too many: this client's open connections (league.connections_per_client), "
                "or the route's own limit", Error),
    431: Answer("The request's line and headers are too large", Error),
    500: Answer("The league failed to answer (its organizer finds why in the server's log)",
                Error),
    503: Answer("The server holds as many connections as it takes (league.connections)",
                Error)}
"""The answers any route may give (the server's caps and deadlines, `limits.py`, and its own
failure), added to each operation's own."""


@dataclass(frozen=True)
class Operation:
    """One route and method of the API, as the schema documents it."""

    method: str
    """GET or POST."""
    route: str
    """Its path as Starlette routes it: `{name}` one segment, `{id:id}` digits, `{id:path}`
    the rest of the path."""
    summary: str
    answers: Mapping[int, Answer]
    parameters: Sequence[Mapping[str, Any]] = ()
    security: Sequence[Mapping[str, list[str]]] | None = None
    body: tuple[str, type[msgspec.Struct]] | None = None
    """The request body's media type and model; None: no body."""
    pattern: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        answers = {**self.answers, **EVERY_ROUTE}
        object.__setattr__(self, "answers", dict(sorted(answers.items())))
        object.__setattr__(self, "pattern", re.compile(re.sub(
            r"\\\{\w+(?::(\w+))?\\\}", _segment, re.escape(self.route)) + "$"))

    @property
    def path(self) -> str:
        """Its path as OpenAPI names it (no convertors)."""
        return re.sub(r"\{(\w+):\w+\}", r"{\1}", self.route)


def _segment(match: re.Match[str]) -> str:
    return {"id": "[0-9]+", "path": ".+"}.get(match.group(1) or "", "[^/]+")




def _errors(*codes: int) -> dict[int, Answer]:
    return {code: Answer(ERROR, Error) for code in codes}


def _path(name: str, description: str, schema: Mapping[str, Any]) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "description": description,
            "schema": dict(schema)}


def _query(name: str, description: str, schema: Mapping[str, Any]) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "description": description,
            "schema": dict(schema)}


OPTIONAL_TOKEN: list[dict[str, list[str]]] = [{}, {"token": []}]
"""Anyone may ask; a token shows its author's private parts too (403 if it is not valid)."""
TOKEN: list[dict[str, list[str]]] = [{"token": []}]
ID = {"type": "integer", "minimum": 0, "maximum": 2**63 - 1}
"""An id or cursor: past SQLite's integers it is a 400."""
BOT_NAME = _path("name", "The bot's name", {"type": "string"})
SEAT = _path("seat", "The seat, 0 to 3", {"type": "integer", "minimum": 0, "maximum": 3})

OPERATIONS: tuple[Operation, ...] = (
    Operation("GET", "/api/standings",
              "Every active entrant's standing (refitted after each new game)",
              {200: Answer("The table", Standings)}),
    Operation("POST", "/api/bots", "Upload a new version of a bot (multipart: name, archive)",
              {202: Answer("Stored durably; intake follows", UploadAccepted),
               **_errors(400, 401, 403, 409, 411, 413, 429)},
              security=TOKEN, body=("multipart/form-data", UploadForm)),
    Operation("GET", "/api/bots/{name}",
              "A bot's versions, uploads (status, failure) and standing; with its author's or "
              "the organizer's token, the build logs too",
              {200: Answer("The bot", Bot), **_errors(403, 404)},
              (BOT_NAME,), OPTIONAL_TOKEN),
    Operation("POST", "/api/bots/{name}/{action}",
              "An organizer's action: disable (out of the live table), enable, or rebuild (an "
              "upload taken in again: built afresh and checked; by default the active one, "
              "else the newest; ?upload=ID or ?version=V names another, which becomes the "
              "active version once it passes; 202, then follow GET /api/uploads/{id}; 404 for "
              "an upload the bot does not have, 400 for a malformed one)",
              {200: Answer("Done (disable, enable)", AdminDone),
               202: Answer("Rebuild queued", RebuildAccepted),
               **_errors(400, 401, 403, 404, 409)},
              (BOT_NAME,
               _path("action", "What to do", {"enum": ["disable", "enable", "rebuild"]}),
               _query("upload", "rebuild only: the id of the upload to rebuild "
                                "(GET /api/bots/{name} lists them)", {"type": "integer"}),
               _query("version", "rebuild only: the version to rebuild, an entrant key "
                                 "(name@hash) or its hash; not with upload",
                      {"type": "string"})), TOKEN),
    Operation("POST", "/api/practice",
              "Ask for an unrated practice game of one of your bots against an active "
              "entrant (limited per author per day: league.practice_per_day)",
              {202: Answer("Granted and queued; watch it live at `page`", Practice),
               **_errors(400, 401, 403, 404, 413, 429)},
              security=TOKEN, body=("application/json", PracticeRequest)),
    Operation("GET", "/api/practice/{id:id}",
              "One practice game's status, and once done its game and record (each seat's "
              "stderr only with that bot's author's or the organizer's token)",
              {200: Answer("The practice game", Practice), **_errors(400, 403, 404)},
              (_path("id", "The practice game's id", ID),), OPTIONAL_TOKEN),
    Operation("GET", "/api/practice/{id:id}/seats/{seat:int}/messages",
              "The messages one seat of a practice game over and kept was sent, as for a "
              "stored game: only to the author of that seat's bot, or the organizer",
              {200: Answer("The seat's messages", SeatMessages),
               **_errors(400, 401, 403, 404)},
              (_path("id", "The practice game's id", ID), SEAT), TOKEN),
    Operation("GET", "/api/uploads/{id:id}",
              "One upload's status (its build log and command only with its author's or the "
              "organizer's token)",
              {200: Answer("The upload", Upload), **_errors(400, 403, 404)},
              (_path("id", "The upload's id", ID),), OPTIONAL_TOKEN),
    Operation("GET", "/api/games", "Stored games in the order stored, paged by `after` (a "
                                   "cursor)",
              {200: Answer("A page of games", GamesPage), **_errors(400)},
              (_query("bot", "Only the games of this bot's versions", {"type": "string"}),
               _query("after", "The cursor: games stored after it (`next` of the last page)",
                      {**ID, "default": 0}),
               _query("limit", "Games in the page, at most",
                      {"type": "integer", "default": 50, "minimum": 1, "maximum": 200}))),
    Operation("GET", "/api/games/{id:path}/seats/{seat:int}/messages",
              "The messages one seat of a stored game was sent, its recorded answers and "
              "its fault, for `arena reproduce`: only to the author of that seat's bot, or "
              "the organizer",
              {200: Answer("The seat's messages", SeatMessages), **_errors(401, 403, 404)},
              (_path("id", "The game's id", {"type": "string"}),
               SEAT), TOKEN),
    Operation("POST", "/play/{id:id}/answer",
              "The person's answer to the open request of their seat in the browser (the "
              "token in the cookie the start form set, the CSRF token as the other forms')",
              {200: Answer("Taken, and sent to the referee", SeatAnswer),
               **_errors(400, 401, 403, 404, 409)},
              (_path("id", "The game's id (a practice game's)", ID),), TOKEN,
              body=("application/json", SeatAnswerRequest)),
    Operation("POST", "/play/{id:id}/leave",
              "The person leaves their seat: the game ends as left, a forfeit",
              {200: Answer("Left", SeatLeft), **_errors(401, 403, 404)},
              (_path("id", "The game's id (a practice game's)", ID),), TOKEN),
    Operation("GET", "/api/games/{id:path}",
              "One stored game and its record (each seat's stderr and its fault's details "
              "only with that bot's author's or the organizer's token)",
              {200: Answer("The game", Game), **_errors(403, 404)},
              (_path("id", "The game's id", {"type": "string"}),), OPTIONAL_TOKEN),
)


def find_operation(path: str, method: str) -> Operation | None:
    """The operation that answers `method` on the URL path `path` (None: none documented)."""
    return next((op for op in OPERATIONS if op.method == method.upper()
                 and op.pattern.match(path)), None)


def build_schema(operations: Sequence[Operation]) -> dict[str, Any]:
    """The OpenAPI document of `operations`, the bodies' schemas made from their models."""
    models = list(dict.fromkeys(
        [a.model for op in operations for a in op.answers.values()]
        + [op.body[1] for op in operations if op.body is not None]))
    refs, components = msgspec.json.schema_components(models, ref_template=REF)
    ref_of = dict(zip(models, refs, strict=True))
    paths: dict[str, dict[str, Any]] = {}
    for op in operations:
        paths.setdefault(op.path, {})[op.method.lower()] = _operation(op, ref_of)
    return {"openapi": "3.1.0", "info": {"title": "Tichu Arena league", "version": "1"},
            "paths": paths,
            "components": {"securitySchemes": {"token": {"type": "http", "scheme": "bearer"}},
                           "schemas": _inline_enums(components, _enum_words(models))}}


def _operation(op: Operation, ref_of: Mapping[type, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"summary": op.summary}
    if op.security is not None:
        out["security"] = [dict(s) for s in op.security]
    if op.parameters:
        out["parameters"] = [dict(p) for p in op.parameters]
    if op.body is not None:
        media, model = op.body
        out["requestBody"] = {"required": True,
                              "content": {media: {"schema": ref_of[model]}}}
    out["responses"] = {str(status): {
        "description": answer.description,
        "content": {"application/json": {"schema": ref_of[answer.model]}}}
        for status, answer in op.answers.items()}
    return out


def _inline_enums(components: dict[str, Any], words: Mapping[str, list[Any]]
                  ) -> dict[str, Any]:
    """The components with each enum written where it is used, not referred to: a field
    reads as its own list of words, in the enum's order (`words`: msgspec sorts them)."""
    enums = {REF.format(name=name): {**{k: v for k, v in schema.items() if k != "title"},
                                     "enum": words.get(name, schema["enum"])}
             for name, schema in components.items() if "enum" in schema}

    def inline(node: Any) -> Any:
        if isinstance(node, list):
            return [inline(item) for item in node]
        if not isinstance(node, dict):
            return node
        found = enums.get(node.get("$ref", ""))
        rest = {k: inline(v) for k, v in node.items() if k != "$ref" or found is None}
        return {**found, **rest} if found is not None else rest

    return {name: inline(schema) for name, schema in components.items()
            if REF.format(name=name) not in enums}


def _enum_words(models: Sequence[type[msgspec.Struct]]) -> dict[str, list[Any]]:
    """Every enum the models use, by name: its values in the order the enum declares them."""
    found: dict[str, list[Any]] = {}
    seen: set[int] = set()

    def walk(node: Any) -> None:
        if id(node) in seen:
            return
        seen.add(id(node))
        if isinstance(node, msgspec.inspect.EnumType):
            found[node.cls.__name__] = [member.value for member in node.cls]
        if isinstance(node, (list, tuple)):
            for item in node:
                walk(item)
        for name in getattr(node, "__struct_fields__", ()):
            walk(getattr(node, name))

    walk(msgspec.inspect.multi_type_info(models))
    return found


SCHEMA: dict[str, Any] = build_schema(OPERATIONS)
