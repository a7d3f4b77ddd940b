"""The league API's schema: generated from the models, every field described, every route of
the application in it, and the check that holds every answer of the suite to it able to fail
(`check_answer`, tests/league/conftest.py)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from starlette.routing import Route
from starlette.testclient import TestClient

from arena.league.accounts import UploadStatus
from arena.league.app import make_app
from arena.league.models import Error, Upload
from arena.league.openapi import OPERATIONS, SCHEMA, find_operation
from arena.league.server import League
from arena.tournament.store import EntrantRow, Store
from tests.league.conftest import check_answer, schema_checked, unstarted_league

JSON = "application/json"
UPLOAD = Upload(id=7, author="ann", name="ann-bot", status=UploadStatus.FAILED, stage="build",
                reason="the build failed", log="make: no rule", command="make", entrant=None,
                created=1.5, updated=2)
DROP = object()
"""A field left out of an answer."""


def walk(node: Any, where: str = "") -> Iterator[tuple[str, Any]]:
    """Every (place, value) of a JSON document, depth first."""
    yield where, node
    items = node.items() if isinstance(node, dict) else enumerate(node) \
        if isinstance(node, list) else ()
    for key, value in items:
        yield from walk(value, f"{where}/{key}")


# ----- the document ---------------------------------------------------------------------------

def test_every_property_of_the_schema_has_a_description():
    properties = [(f"{where}/{name}", prop) for where, node in walk(SCHEMA)
                  if where.endswith("/properties") for name, prop in node.items()]
    assert len(properties) > 80  # every model's fields, not a few
    assert [where for where, prop in properties if not str(prop.get("description", "")).strip()
            ] == []


def test_every_component_parameter_and_answer_has_a_description():
    schemas = SCHEMA["components"]["schemas"]
    assert [name for name, s in schemas.items() if not s.get("description")] == []
    operations = [op for methods in SCHEMA["paths"].values() for op in methods.values()]
    assert [p["name"] for op in operations for p in op.get("parameters", ())
            if not p.get("description")] == []
    assert all(op["summary"] and all(a["description"] for a in op["responses"].values())
               for op in operations)


def test_every_reference_of_the_schema_resolves():
    refs = [value for where, value in walk(SCHEMA) if where.endswith("/$ref")]
    assert refs and all(r.startswith("#/components/schemas/") for r in refs)
    assert {r.rsplit("/", 1)[1] for r in refs} <= set(SCHEMA["components"]["schemas"])


def test_the_bot_and_the_game_are_documented_field_by_field():
    """Once a bare `object`: now each field that comes back, and nothing else."""
    schemas = SCHEMA["components"]["schemas"]
    bot = SCHEMA["paths"]["/api/bots/{name}"]["get"]["responses"]["200"]
    assert bot["content"][JSON]["schema"] == {"$ref": "#/components/schemas/Bot"}
    assert set(schemas["Bot"]["properties"]) == {"name", "author", "versions", "uploads", "failures",
                                                  "opponents"}
    assert {"standing", "history", "failures"} <= set(schemas["BotVersion"]["properties"])
    assert {"record", "teams", "scores", "termination"} <= set(schemas["Game"]["properties"])
    assert {"events", "decisions", "bot_output", "fault"} <= set(
        schemas["Record"]["properties"])
    assert all(s.get("additionalProperties") is False for name, s in schemas.items()
               if name not in ("UploadForm", "PracticeRequest", "SeatAnswerRequest"))  # requests: extras ignored


@pytest.fixture
def league(tmp_path: Path) -> League:
    """A league's parts, not started (`conftest.unstarted_league`)."""
    return unstarted_league(tmp_path)


def test_the_application_serves_the_generated_schema(league: League):
    assert TestClient(make_app(league)).get("/openapi.json").json() == SCHEMA


def test_the_schemas_operations_are_the_applications_api_routes(league: League):
    """The API's routes, and the JSON POSTs of a seat in the browser (`/play/{id}/...`)."""
    app: Any = make_app(league)
    while not hasattr(app, "routes"):  # through the middleware to the Starlette application
        app = app.app
    served = {(method, shape(route.path)) for route in app.routes
              if isinstance(route, Route) and route.path.startswith(("/api/", "/play/"))
              for method in route.methods or () if method != "HEAD"
              and (route.path.startswith("/api/") or method == "POST")}
    assert served == {(op.method, shape(op.route)) for op in OPERATIONS}


def shape(route: str) -> str:
    """A route with its parameters' names left out (their convertors kept)."""
    return re.sub(r"\{\w+(:\w+)?\}", r"{\1}", route)


# ----- the check of every answer: shown to fail -----------------------------------------------

def test_a_documented_answer_passes():
    check_answer("/api/uploads/7", "GET", 200, msgspec.json.encode(UPLOAD), JSON)
    check_answer("/api/uploads/7", "GET", 404, b'{"error": "no upload 7", "status": 404}', JSON)
    check_answer("/api/nothing", "GET", 404, b'{"error": "not found", "status": 404}', JSON)
    check_answer("/games", "GET", 200, b"<html>", "text/html")  # a page: not the API's


@pytest.mark.parametrize(("path", "status", "body", "kind", "words"), [
    ("/api/uploads/7", 200, {"token": "secret"}, JSON, "unknown field `token`"),
    ("/api/uploads/7", 200, {"log": None}, JSON, "Expected `str`, got `null`"),
    ("/api/uploads/7", 200, {"status": "lost"}, JSON, "Invalid enum value 'lost'"),
    ("/api/uploads/7", 200, {"entrant": DROP}, JSON, "missing required field `entrant`"),
    ("/api/uploads/7", 418, {}, JSON, "does not list"),
    ("/api/uploads/7", 200, {}, "text/html", "not JSON"),
    ("/api/nothing", 200, {}, JSON, "lacks"),
])
def test_an_undocumented_answer_fails(path: str, status: int, body: dict[str, Any],
                                      kind: str, words: str):
    data = {**msgspec.to_builtins(UPLOAD), **body}
    data = {k: v for k, v in data.items() if v is not DROP}
    with pytest.raises(AssertionError, match=words):
        check_answer(path, "GET", status, msgspec.json.encode(data), kind)


def test_an_error_must_be_an_error():
    with pytest.raises(AssertionError, match="Error"):
        check_answer("/api/uploads/7", "GET", 404, b'{"error": "gone"}', JSON)
    with pytest.raises(AssertionError, match="Error"):
        check_answer("/api/nothing", "GET", 404, b'{"detail": "Not Found"}', JSON)


def test_a_test_client_checks_every_answer_of_the_api():
    """`schema_checked`: an application answering outside its schema fails the request."""
    async def app(scope: Any, receive: Any, send: Any) -> None:
        body = msgspec.json.encode({"error": "no", "status": 404, "trace": "/srv/x.py"})
        await send({"type": "http.response.start", "status": 404,
                    "headers": [(b"content-type", JSON.encode())]})
        await send({"type": "http.response.body", "body": body})

    client = TestClient(app)  # no lifespan: `app` answers HTTP only
    assert client.get("/api/uploads/1").status_code == 404  # unchecked: no complaint
    with pytest.raises(AssertionError, match="unknown field `trace`"):
        schema_checked(client).get("/api/uploads/1")


def test_find_operation_routes_as_the_application_does():
    assert find_operation("/api/games/a~b#1.0", "GET").path == "/api/games/{id}"
    assert find_operation("/api/uploads/12", "GET").path == "/api/uploads/{id}"
    assert find_operation("/api/uploads/ab", "GET") is None  # digits only: no route
    assert find_operation("/api/bots/x/rebuild", "POST").path == "/api/bots/{name}/{action}"
    assert find_operation("/api/bots/x", "POST") is None
    assert Error in {a.model for op in OPERATIONS for a in op.answers.values()}


def test_a_game_whose_record_cannot_be_read_is_answered_as_the_schema_says(league: League):
    with Store(league.config.storage) as store:
        for name in ("a", "b"):
            store.register_entrant(EntrantRow(f"{name}@1", name, "1", "1.0", "python", name,
                                              "config", False))
        store.add_synthetic_games([("a~b#0.0", "a~b#0", 0, 0, 1, "a@1", "b@1", 100, 0, 0, 1,
                                    "normal", 1.0, "records/gone.json.gz", "2026")])
    with TestClient(make_app(league)) as client:
        answer = schema_checked(client).get("/api/games/a~b%230.0")
    assert answer.status_code == 200 and answer.json()["record"] is None
