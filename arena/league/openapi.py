"""The OpenAPI schema of the league's JSON API, served at `/openapi.json` (`app.py`).

Written out rather than generated: the API is small, and its schema is a contract that other
tools rely on, so it changes only on purpose (tests/league checks every path it names is
served).
"""

from __future__ import annotations

from typing import Any

_ERROR = {"description": "An error a person can act on",
          "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}

_OPTIONAL_TOKEN: list[dict[str, list[str]]] = [{}, {"token": []}]
"""Anyone may ask; a token shows its author's private parts too (403 if it is not valid)."""
_ID = {"type": "integer", "minimum": 0, "maximum": 2**63 - 1}
"""An id or cursor: past SQLite's integers it is a 400."""


def _ok(description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


SCHEMA: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Tichu Arena league", "version": "1"},
    "paths": {
        "/api/standings": {"get": {
            "summary": "Every active entrant's standing (refitted after each new game)",
            "responses": {"200": _ok("The table", {"$ref": "#/components/schemas/Standings"})}}},
        "/api/bots": {"post": {
            "summary": "Upload a new version of a bot (multipart: name, archive)",
            "security": [{"token": []}],
            "requestBody": {"required": True, "content": {"multipart/form-data": {"schema": {
                "type": "object", "required": ["name", "archive"],
                "properties": {"name": {"type": "string"},
                               "archive": {"type": "string", "format": "binary"}}}}}},
            "responses": {
                "202": _ok("Stored durably; intake follows", {
                    "type": "object", "properties": {
                        "id": {"type": "integer"}, "name": {"type": "string"},
                        "status": {"type": "string"}, "url": {"type": "string"},
                        "page": {"type": "string"}}}),
                **{code: _ERROR for code in ("400", "401", "403", "409", "411", "413", "429")}}}},
        "/api/bots/{name}": {"get": {
            "summary": "A bot's versions, uploads (status, failure) and standing; with its "
                       "author's or the organizer's token, the build logs too",
            "security": _OPTIONAL_TOKEN,
            "parameters": [{"name": "name", "in": "path", "required": True,
                            "schema": {"type": "string"}}],
            "responses": {"200": _ok("The bot", {"type": "object"}), "403": _ERROR,
                          "404": _ERROR}}},
        "/api/bots/{name}/{action}": {"post": {
            "summary": "An organizer's action: disable (out of the live table), enable, or "
                       "rebuild (an upload taken in again: built afresh and checked; by "
                       "default the active one, else the newest; ?upload=ID or ?version=V "
                       "names another, which becomes the active version once it passes; 202, "
                       "then follow GET /api/uploads/{id}; 404 for an upload the bot does not "
                       "have, 400 for a malformed one)",
            "security": [{"token": []}],
            "parameters": [{"name": "name", "in": "path", "required": True,
                            "schema": {"type": "string"}},
                           {"name": "action", "in": "path", "required": True,
                            "schema": {"enum": ["disable", "enable", "rebuild"]}},
                           {"name": "upload", "in": "query", "required": False,
                            "description": "rebuild only: the id of the upload to rebuild "
                                           "(GET /api/bots/{name} lists them)",
                            "schema": {"type": "integer"}},
                           {"name": "version", "in": "query", "required": False,
                            "description": "rebuild only: the version to rebuild, an entrant "
                                           "key (name@hash) or its hash; not with upload",
                            "schema": {"type": "string"}}],
            "responses": {"200": _ok("Done", {"type": "object"}),
                          "202": _ok("Rebuild queued", {"type": "object", "properties": {
                              "name": {"type": "string"}, "upload": {"type": "integer"},
                              "status": {"type": "string"}, "url": {"type": "string"}}}),
                          **{code: _ERROR for code in ("400", "401", "403", "404", "409")}}}},
        "/api/practice": {"post": {
            "summary": "Ask for an unrated practice game of one of your bots against an "
                       "active entrant (limited per author per day: league.practice_per_day)",
            "security": [{"token": []}],
            "requestBody": {"required": True, "content": {"application/json": {"schema": {
                "type": "object", "required": ["bot", "opponent"],
                "properties": {"bot": {"type": "string"}, "opponent": {"type": "string"},
                               "version": {"type": "string"}}}}}},
            "responses": {
                "202": _ok("Granted and queued; watch it live at `page`",
                           {"$ref": "#/components/schemas/Practice"}),
                **{code: _ERROR for code in ("400", "401", "403", "404", "413", "429")}}}},
        "/api/practice/{id}": {"get": {
            "summary": "One practice game's status, and once done its game and record (each "
                       "seat's stderr only with that bot's author's or the organizer's token)",
            "security": _OPTIONAL_TOKEN,
            "parameters": [{"name": "id", "in": "path", "required": True,
                            "schema": _ID}],
            "responses": {"200": _ok("The practice game",
                                     {"$ref": "#/components/schemas/Practice"}),
                          **{code: _ERROR for code in ("400", "403", "404")}}}},
        "/api/uploads/{id}": {"get": {
            "summary": "One upload's status (its build log and command only with its "
                       "author's or the organizer's token)",
            "security": _OPTIONAL_TOKEN,
            "parameters": [{"name": "id", "in": "path", "required": True,
                            "schema": _ID}],
            "responses": {"200": _ok("The upload", {"$ref": "#/components/schemas/Upload"}),
                          **{code: _ERROR for code in ("400", "403", "404")}}}},
        "/api/games": {"get": {
            "summary": "Stored games in the order stored, paged by `after` (a cursor)",
            "parameters": [
                {"name": "bot", "in": "query", "schema": {"type": "string"}},
                {"name": "after", "in": "query", "schema": {**_ID, "default": 0}},
                {"name": "limit", "in": "query",
                 "schema": {"type": "integer", "default": 50, "maximum": 200}}],
            "responses": {"200": _ok("A page of games", {
                "type": "object", "properties": {
                    "games": {"type": "array", "items": {"type": "object"}},
                    "next": {"type": ["integer", "null"]}}}), "400": _ERROR}}},
        "/api/games/{id}": {"get": {
            "summary": "One stored game and its record (each seat's stderr and its fault's "
                       "details only with that bot's author's or the organizer's token)",
            "security": _OPTIONAL_TOKEN,
            "parameters": [{"name": "id", "in": "path", "required": True,
                            "schema": {"type": "string"}}],
            "responses": {"200": _ok("The game", {"type": "object"}), "403": _ERROR,
                          "404": _ERROR}}},
    },
    "components": {
        "securitySchemes": {"token": {"type": "http", "scheme": "bearer"}},
        "schemas": {
            "Error": {"type": "object", "required": ["error", "status"], "properties": {
                "error": {"type": "string"}, "status": {"type": "integer"}}},
            "Upload": {"type": "object", "properties": {
                "id": {"type": "integer"}, "author": {"type": "string"},
                "name": {"type": "string"},
                "status": {"enum": ["received", "building", "checking", "active", "retired",
                                    "failed"]},
                "stage": {"type": "string"}, "reason": {"type": "string"},
                "log": {"type": "string", "description": "the failing step's output: its "
                        "author's and the organizer's only"},
                "command": {"type": "string", "description": "the command reproducing the "
                            "failure: its author's and the organizer's only"},
                "entrant": {"type": ["string", "null"]}}},
            "Practice": {"type": "object", "properties": {
                "id": {"type": "integer"}, "author": {"type": "string"},
                "entrant": {"type": "string"}, "opponent": {"type": "string"},
                "status": {"enum": ["queued", "playing", "done", "failed"]},
                "game_id": {"type": ["string", "null"]}, "reason": {"type": "string"},
                "url": {"type": "string"}, "page": {"type": "string"},
                "replay": {"type": "string"}, "game": {"type": "object"}}},
            "Standings": {"type": "object", "properties": {
                "games": {"type": "integer"}, "version": {"type": "integer"},
                "notes": {"type": "array", "items": {"type": "string"}},
                "stale": {"type": "boolean", "description": "the table the last run left, "
                          "served after a restart until the first fresh one (its notes say "
                          "so)"},
                "standings": {"type": "array", "items": {"type": "object", "properties": {
                    "key": {"type": "string"}, "name": {"type": "string"},
                    "author": {"type": "string"}, "version": {"type": "string"},
                    "rank": {"type": ["integer", "null"]},
                    "rating": {"type": ["number", "null"]},
                    "interval": {"type": ["number", "null"]},
                    "games": {"type": "integer"}, "forfeits": {"type": "integer"},
                    "failures": {"type": "object"},
                    "order_vs_next": {"type": "string"}}}}}},
        },
    },
}
