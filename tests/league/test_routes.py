"""Every route of the league's application and each status it answers, through Starlette's
TestClient (no server process), over `make_app` only: each guard tested alone.

A table (`CASES`) sends each route the requests that do not change the league (a league
seeded once for this file: uploads, a stored game, practice games); the tests after it send
those that do, each to a league of its own. Size limits are tried at the limit and one byte
past. Every error is JSON with a sentence on the API, the event streams, the scripts and any
method but GET; a page's is an HTML page. The end-to-end tests (test_league, test_practice,
test_floods, ...) send the same requests to a real server.
"""

from __future__ import annotations

import contextlib
import gc
import html
import io
import json
import re
import tarfile
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from starlette.testclient import TestClient

from arena.league.accounts import Accounts, PracticeStatus, UploadStatus
from arena.league.app import make_app
from arena.league.guards import MULTIPART_SLACK, SMALL_BODY
from arena.league.practice import practice_storage
from arena.league.server import League
from arena.presentation.bench import play_record
from arena.tournament.records import write_record
from arena.tournament.runner import register_entrants
from arena.tournament.schedule import round_robin
from arena.tournament.store import EntrantRow, GameRow, Store
from tests.league.conftest import bot_copy, schema_checked, unstarted_league
from tests.league.test_guards import archive_of, multipart

Response = Any
"""What TestClient answers (httpx's response: Starlette picks httpx or httpx2)."""

PER_HOUR = 4
"""The test league's `uploads_per_hour`."""
PER_DAY = 3
"""The test league's `practice_per_day`."""
PENDING = 2
"""Uploads of one author being taken in at once (the application's own cap)."""
HUGE = "1" * 30
"""A 30-digit id: past SQLite's integers."""
BOB_KEY = "bob-bot@0123456789abcdef"
"""bob-bot's version made active (no intake runs here)."""

pytestmark = pytest.mark.timeout(60)


# ----- leagues, tokens and uploads ---------------------------------------------------------

def new_league(folder: Path) -> League:
    """A league not started, its house bots registered and active (not built)."""
    league = unstarted_league(folder, PER_HOUR, f"practice_per_day = {PER_DAY}\n")
    with Store(league.config.storage) as store:
        house, failures = register_entrants(league.config.tournament, store, build=False)
    assert not failures, failures
    league.entrants.update(house)
    league.stopping.set()  # an event stream sends its first news, then ends
    return league


def invite(league: League, author: str, organizer: bool = False) -> dict[str, str]:
    """The `Authorization` header of a new token for `author`."""
    with Accounts(league.config.storage) as accounts:
        return {"Authorization": f"Bearer {accounts.invite(author, organizer)}"}


def revoked(league: League, author: str) -> dict[str, str]:
    header = invite(league, author)
    with Accounts(league.config.storage) as accounts:
        accounts.revoke(author)
    return header


BAD = {"Authorization": "Bearer not-a-token-anyone-was-given"}


def bot_archive(folder: Path, name: str) -> bytes:
    """A .tar of a copy of the random bot named `name`."""
    return archive_of(bot_copy(folder / name, name))


def sized(archive: bytes, size: int) -> bytes:
    """`archive` padded with zeros to `size` bytes (a tar reader stops at its end blocks)."""
    assert len(archive) <= size
    return archive + b"\0" * (size - len(archive))


def upload_body(name: str, archive: bytes, filename: str = "bot.tar",
                total: int | None = None) -> tuple[bytes, str]:
    """A multipart upload (name, archive), padded by a field of its own to `total` bytes."""
    body, kind = multipart({"name": name, "archive": (filename, archive)})
    if total is None:
        return body, kind
    padded, kind = multipart({"name": name, "archive": (filename, archive), "pad": ""})
    padded, kind = multipart({"name": name, "archive": (filename, archive),
                              "pad": "x" * (total - len(padded))})
    assert len(padded) == total
    return padded, kind


def post_upload(client: TestClient, headers: dict[str, str], name: str, archive: bytes,
                filename: str = "bot.tar", declared: int | None = None) -> Response:
    """POST /api/bots; `declared`: the Content-Length sent, whatever the body holds."""
    body, kind = upload_body(name, archive, filename)
    length = {} if declared is None else {"content-length": str(declared)}
    return client.post("/api/bots", content=body,
                       headers={**headers, "content-type": kind, **length})


def set_upload(league: League, upload: int, status: UploadStatus,
               entrant: str | None = None) -> None:
    with Accounts(league.config.storage) as accounts:
        accounts.set_status(upload, status, entrant=entrant)


def store_game(storage: Path, teams: list[str]) -> str:
    """A short engine game between `teams` (entrant keys, registered if they are not)
    stored in the store at `storage`, its record written beside it; its id."""
    game = round_robin(teams, 1, 1)[0]
    record = play_record(game.game_id, game.seed, game.teams, set(), target=200)
    relative = f"{storage.name}.records/{game.record_name}.json.gz"
    write_record(record, storage.parent / relative)
    with Store(storage) as store:
        known = {e.key for e in store.entrants()}
        for key in set(teams) - known:
            name, _, version = key.partition("@")
            store.register_entrant(EntrantRow(key, name, version, "1", "python",
                                              f"uploads/{name}", "submit", False))
        assert store.add_game(GameRow.from_record(game, record, relative))
    return game.game_id


# ----- errors -----------------------------------------------------------------------------

def json_error(response: Response, status: int, routing: bool = False) -> str:
    """The sentence of a JSON error of `status` (asserted); `routing`: a refusal of
    Starlette's routing, which says its status's bare phrase only
    (`test_a_refusal_by_routing_says_what_to_do`)."""
    assert response.status_code == status, (response.status_code, response.text[:300])
    assert response.headers["content-type"].startswith("application/json"), response.headers
    body = response.json()
    assert body["status"] == status, body
    said_sentence(str(body["error"]), status, routing)
    return str(body["error"])


def page_error(response: Response, status: int, routing: bool = False) -> None:
    """An HTML error page of `status` (asserted), its sentence below the status."""
    assert response.status_code == status, (response.status_code, response.text[:300])
    assert response.headers["content-type"].startswith("text/html"), response.headers
    said = re.search(f"<h1>{status}</h1><p>(.*?)</p>", response.text)
    assert said is not None, response.text[:300]
    said_sentence(html.unescape(said.group(1)), status, routing)


def said_sentence(said: str, status: int, routing: bool) -> None:
    assert "Traceback" not in said and "/tmp/" not in said, said
    if not routing:
        assert said != HTTPStatus(status).phrase and len(said.split()) >= 3, said


def answers_json(method: str, path: str) -> bool:
    """Whether an error at `path` is JSON (else an HTML page)."""
    bare = path.split("?")[0]
    return bare.startswith("/api/") or bare.endswith(("/events", ".js", ".json")) or \
        method != "GET"


# ----- the league seeded once for the table ------------------------------------------------

@dataclass
class Seeded:
    league: League
    client: TestClient
    tokens: dict[str, dict[str, str]]
    ids: dict[str, str]
    """What the table's paths name: upload and practice ids, a stored game, a live one."""


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Seeded]:
    """ann's upload of ann-bot (received), bob's bob-bot (active), a stored league game
    (random against heuristic), one live, bob's practice games: one done and stored, one
    queued."""
    folder = tmp_path_factory.mktemp("routes")
    league = new_league(folder)
    tokens = {"ann": invite(league, "ann"), "bob": invite(league, "bob"),
              "olga": invite(league, "olga", organizer=True), "rex": revoked(league, "rex"),
              "bad": BAD, "none": {}}
    house = sorted(league.entrants)
    with TestClient(make_app(league), raise_server_exceptions=False) as raw:
        client = schema_checked(raw)  # every answer checked against the schema
        ann = post_upload(client, tokens["ann"], "ann-bot", bot_archive(folder, "ann-bot"))
        bob = post_upload(client, tokens["bob"], "bob-bot", bot_archive(folder, "bob-bot"))
        assert ann.status_code == bob.status_code == 202, (ann.text, bob.text)
        set_upload(league, bob.json()["id"], UploadStatus.ACTIVE, BOB_KEY)
        game = store_game(league.config.storage, house)
        live = round_robin(house, 1, 1)[1].game_id
        (league.live / f"{live}.json").write_text("[]")
        practice = [client.post("/api/practice", json={"bot": "bob-bot", "opponent": o},
                                headers=tokens["bob"]) for o in ("random", "heuristic")]
        assert [p.status_code for p in practice] == [202, 202], [p.text for p in practice]
        done = practice[0].json()
        played = store_game(practice_storage(league.config), [done["entrant"],
                                                              done["opponent"]])
        with Accounts(league.config.storage) as accounts:
            accounts.set_practice(done["id"], PracticeStatus.DONE, played)
        ids = {"A": str(ann.json()["id"]), "B": str(bob.json()["id"]),
               "P": str(done["id"]), "Q": str(practice[1].json()["id"]),
               "GAME": quote(game, safe=""), "LIVE": quote(live, safe=""), "HUGE": HUGE}
        yield Seeded(league, client, tokens, ids)


@dataclass(frozen=True)
class Case:
    route: str
    """The route's path as the application declares it."""
    method: str
    path: str
    """With {A} {B} (upload ids), {P} (a practice game done) {Q} (queued), {GAME} (a stored
    game), {LIVE} (a game in progress), {HUGE} (an id past range)."""
    who: str
    """Whose token is sent: ann, bob (authors), olga (the organizer), rex (revoked), bad
    (no one's), none."""
    status: int
    body: Any = None
    """JSON to send."""
    kind: str = "application/json"
    """The content type of a success."""
    routed: bool = True
    """Whether the path is the route's (else no route takes it: a 404 of the routing)."""

    def __str__(self) -> str:
        return f"{self.method} {self.path} {self.who} {self.status}"


ADMIN = "/api/bots/{name}/{action}"
PRACTICE_ID = "/api/practice/{practice:id}"
SEAT = "/api/games/{game_id:path}/seats/{seat:int}/messages"
PRACTICE_SEAT = "/api/practice/{practice:id}/seats/{seat:int}/messages"
HTML, JS, EVENTS = "text/html", "text/javascript", "text/event-stream"

CASES = [
    Case("/openapi.json", "GET", "/openapi.json", "none", 200),
    Case("/openapi.json", "POST", "/openapi.json", "none", 405),
    Case("/api/standings", "GET", "/api/standings", "none", 200),
    Case("/api/standings", "HEAD", "/api/standings", "none", 200),
    Case("/api/standings", "POST", "/api/standings", "none", 405),
    Case("/api/bots", "GET", "/api/bots", "ann", 405),
    Case("/api/bots/{name}", "GET", "/api/bots/ann-bot", "none", 200),
    Case("/api/bots/{name}", "GET", "/api/bots/ann-bot", "ann", 200),
    Case("/api/bots/{name}", "GET", "/api/bots/random", "olga", 200),
    Case("/api/bots/{name}", "GET", "/api/bots/ann-bot", "bad", 403),
    Case("/api/bots/{name}", "GET", "/api/bots/ann-bot", "rex", 403),
    Case("/api/bots/{name}", "GET", "/api/bots/nobody", "none", 404),
    Case("/api/bots/{name}", "POST", "/api/bots/ann-bot", "ann", 405),
    Case(ADMIN, "GET", "/api/bots/ann-bot/disable", "olga", 405),
    Case(ADMIN, "POST", "/api/bots/ann-bot/disable", "none", 401),
    Case(ADMIN, "POST", "/api/bots/ann-bot/disable", "bad", 403),
    Case(ADMIN, "POST", "/api/bots/ann-bot/disable", "rex", 403),
    Case(ADMIN, "POST", "/api/bots/ann-bot/disable", "ann", 403),
    Case(ADMIN, "POST", "/api/bots/ann-bot/rebuild", "ann", 403),
    Case(ADMIN, "POST", "/api/bots/ann-bot/explode", "olga", 404),
    Case(ADMIN, "POST", "/api/bots/nobody/disable", "olga", 404),
    Case(ADMIN, "POST", "/api/bots/random/enable", "olga", 404),
    Case(ADMIN, "POST", "/api/bots/random/rebuild", "olga", 404),
    Case(ADMIN, "POST", "/api/bots/ann-bot/rebuild?upload={A}&version=x", "olga", 400),
    Case(ADMIN, "POST", "/api/bots/ann-bot/rebuild?upload=abc", "olga", 400),
    Case(ADMIN, "POST", "/api/bots/ann-bot/rebuild?upload={HUGE}", "olga", 400),
    Case(ADMIN, "POST", "/api/bots/ann-bot/rebuild?version=", "olga", 400),
    Case(ADMIN, "POST", "/api/bots/ann-bot/rebuild?upload={B}", "olga", 404),
    Case(ADMIN, "POST", "/api/bots/ann-bot/rebuild?version=nope", "olga", 404),
    Case(ADMIN, "POST", "/api/bots/ann-bot/rebuild", "olga", 409),
    Case(ADMIN, "POST", "/api/bots/ann-bot/rebuild?upload={A}", "olga", 409),
    Case("/api/practice", "GET", "/api/practice", "bob", 405),
    Case("/api/practice", "POST", "/api/practice", "none", 401, {"bot": "bob-bot"}),
    Case("/api/practice", "POST", "/api/practice", "bad", 403, {"bot": "bob-bot"}),
    Case("/api/practice", "POST", "/api/practice", "rex", 403, {"bot": "bob-bot"}),
    Case("/api/practice", "POST", "/api/practice", "bob", 400, {"bot": "bob-bot"}),
    Case("/api/practice", "POST", "/api/practice", "bob", 400, ["bob-bot", "random"]),
    Case("/api/practice", "POST", "/api/practice", "ann", 403,
         {"bot": "bob-bot", "opponent": "random"}),
    Case("/api/practice", "POST", "/api/practice", "bob", 404,
         {"bot": "nobody", "opponent": "random"}),
    Case("/api/practice", "POST", "/api/practice", "bob", 404,
         {"bot": "bob-bot", "opponent": "nobody"}),
    Case("/api/practice", "POST", "/api/practice", "bob", 404,
         {"bot": "bob-bot", "opponent": "random", "version": "nope"}),
    Case(PRACTICE_SEAT, "GET", "/api/practice/{P}/seats/0/messages", "bob", 200),
    Case(PRACTICE_SEAT, "GET", "/api/practice/{P}/seats/2/messages", "olga", 200),
    Case(PRACTICE_SEAT, "GET", "/api/practice/{P}/seats/0/messages", "none", 401),
    Case(PRACTICE_SEAT, "GET", "/api/practice/{P}/seats/0/messages", "ann", 403),
    Case(PRACTICE_SEAT, "GET", "/api/practice/{P}/seats/1/messages", "bob", 403),
    Case(PRACTICE_SEAT, "GET", "/api/practice/{Q}/seats/0/messages", "bob", 404),
    Case(PRACTICE_SEAT, "GET", "/api/practice/{HUGE}/seats/0/messages", "bob", 400),
    Case(PRACTICE_ID, "GET", "/api/practice/{P}", "none", 200),
    Case(PRACTICE_ID, "GET", "/api/practice/{P}", "bob", 200),
    Case(PRACTICE_ID, "GET", "/api/practice/{Q}", "ann", 200),
    Case(PRACTICE_ID, "GET", "/api/practice/{HUGE}", "none", 400),
    Case(PRACTICE_ID, "GET", "/api/practice/{P}", "bad", 403),
    Case(PRACTICE_ID, "GET", "/api/practice/999", "none", 404),
    Case(PRACTICE_ID, "POST", "/api/practice/{P}", "bob", 405),
    Case("/api/uploads/{upload:id}", "GET", "/api/uploads/{A}", "none", 200),
    Case("/api/uploads/{upload:id}", "GET", "/api/uploads/{A}", "ann", 200),
    Case("/api/uploads/{upload:id}", "GET", "/api/uploads/{HUGE}", "none", 400),
    Case("/api/uploads/{upload:id}", "GET", "/api/uploads/{A}", "rex", 403),
    Case("/api/uploads/{upload:id}", "GET", "/api/uploads/999", "none", 404),
    Case("/api/uploads/{upload:id}", "GET", "/api/uploads/abc", "none", 404, routed=False),
    Case("/api/uploads/{upload:id}", "POST", "/api/uploads/{A}", "ann", 405),
    Case("/api/games", "GET", "/api/games", "none", 200),
    Case("/api/games", "GET", "/api/games?bot=random&limit=200", "none", 200),
    Case("/api/games", "GET", "/api/games?limit=0", "none", 400),
    Case("/api/games", "GET", "/api/games?limit=201", "none", 400),
    Case("/api/games", "GET", "/api/games?after=-1", "none", 400),
    Case("/api/games", "POST", "/api/games", "none", 405),
    Case("/api/games/{game_id:path}", "GET", "/api/games/{GAME}", "none", 200),
    Case("/api/games/{game_id:path}", "GET", "/api/games/{GAME}", "olga", 200),
    Case("/api/games/{game_id:path}", "GET", "/api/games/{GAME}", "bad", 403),
    Case("/api/games/{game_id:path}", "GET", "/api/games/nothing-such", "none", 404),
    Case("/api/games/{game_id:path}", "POST", "/api/games/{GAME}", "none", 405),
    Case(SEAT, "GET", "/api/games/{GAME}/seats/1/messages", "olga", 200),
    Case(SEAT, "GET", "/api/games/{GAME}/seats/1/messages", "none", 401),
    Case(SEAT, "GET", "/api/games/{GAME}/seats/1/messages", "bad", 403),
    Case(SEAT, "GET", "/api/games/{GAME}/seats/1/messages", "rex", 403),
    Case(SEAT, "GET", "/api/games/{GAME}/seats/1/messages", "ann", 403),  # a house bot's seat
    Case(SEAT, "GET", "/api/games/{GAME}/seats/7/messages", "olga", 404),
    Case(SEAT, "GET", "/api/games/nothing-such/seats/0/messages", "olga", 404),
    Case(SEAT, "POST", "/api/games/{GAME}/seats/1/messages", "olga", 405),
    Case("(no route)", "GET", "/api/nothing", "none", 404, routed=False),
    Case("/", "GET", "/", "none", 200, kind=HTML),
    Case("/", "POST", "/", "none", 405),
    Case("/events", "GET", "/events", "none", 200, kind=EVENTS),
    Case("/events", "POST", "/events", "none", 405),
    Case("/games", "GET", "/games", "none", 200, kind=HTML),
    Case("/games", "GET", "/games?bot=random", "none", 200, kind=HTML),
    Case("/games", "POST", "/games", "none", 405),
    Case("/games/{game_id:path}", "GET", "/games/{GAME}", "none", 200, kind=HTML),
    Case("/games/{game_id:path}", "GET", "/games/nothing-such", "none", 404),
    Case("/games/{game_id:path}", "POST", "/games/{GAME}", "bob", 403),  # no CSRF field
    Case("/games/{game_id:path}", "DELETE", "/games/{GAME}", "none", 405),
    Case("/replays/{game_id:path}", "GET", "/replays/{GAME}.js", "none", 200, kind=JS),
    Case("/replays/{game_id:path}", "GET", "/replays/nothing-such.js", "none", 404),
    Case("/live", "GET", "/live", "none", 200, kind=HTML),
    Case("/live", "POST", "/live", "none", 405),
    Case("/live/{game_id}", "GET", "/live/{LIVE}", "none", 200, kind=HTML),
    Case("/live/{game_id}", "GET", "/live/{GAME}", "none", 200, kind=HTML),  # its replay
    Case("/live/{game_id}", "GET", "/live/nothing-such", "none", 404),
    Case("/live/{game_id}", "GET", "/live/.hidden", "none", 404),
    Case("/live/{game_id}/events", "GET", "/live/{LIVE}/events", "none", 200, kind=EVENTS),
    Case("/live/{game_id}/events", "GET", "/live/{GAME}/events", "none", 200, kind=EVENTS),
    Case("/live/{game_id}/events", "POST", "/live/{LIVE}/events", "none", 405),
    Case("/bots/{name}", "GET", "/bots/ann-bot", "none", 200, kind=HTML),
    Case("/bots/{name}", "GET", "/bots/random", "none", 200, kind=HTML),
    Case("/bots/{name}", "GET", "/bots/nobody", "none", 404),
    Case("/bots/{name}", "PUT", "/bots/ann-bot", "none", 405),
    Case("/practice", "GET", "/practice", "none", 405),
    Case("/practice/{practice:id}", "GET", "/practice/{P}", "none", 200, kind=HTML),
    Case("/practice/{practice:id}", "GET", "/practice/{Q}", "none", 200, kind=HTML),
    Case("/practice/{practice:id}", "GET", "/practice/999", "none", 404),
    Case("/practice/{practice:id}", "GET", "/practice/{HUGE}", "none", 400),
    Case("/practice/{practice:id}/events", "GET", "/practice/{Q}/events", "none", 200,
         kind=EVENTS),
    Case("/practice/{practice:id}/events", "GET", "/practice/{HUGE}/events", "none", 400),
    Case("/practice/{practice:id}/replay", "GET", "/practice/{P}/replay", "none", 200,
         kind=HTML),
    Case("/practice/{practice:id}/replay", "GET", "/practice/{Q}/replay", "none", 404),
    Case("/practice/{practice:id}/replay.js", "GET", "/practice/{P}/replay.js", "none", 200,
         kind=JS),
    Case("/practice/{practice:id}/replay.js", "GET", "/practice/{Q}/replay.js", "none", 404),
    Case("/upload", "GET", "/upload", "none", 200, kind=HTML),
    Case("/upload", "PUT", "/upload", "none", 405),
    Case("/assets/league.js", "GET", "/assets/league.js", "none", 200, kind=JS),
    Case("/assets/league.js", "POST", "/assets/league.js", "none", 405),
    Case("/assets", "GET", "/assets/report.css", "none", 200, kind="text/css"),
    Case("/assets", "GET", "/assets/nothing.css", "none", 404, routed=False),
    Case("(no route)", "GET", "/nothing", "none", 404, routed=False),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_each_route_answers_each_status_in_its_form(seeded: Seeded, case: Case) -> None:
    path = case.path.format(**seeded.ids)
    extra = {} if case.body is None else {"json": case.body}
    response = seeded.client.request(case.method, path, headers=seeded.tokens[case.who],
                                     **extra)
    assert response.headers["x-frame-options"] == "DENY"  # on every answer
    if case.status >= 400:
        routing = case.status == 405 or not case.routed
        if answers_json(case.method, path):
            json_error(response, case.status, routing)
        else:
            page_error(response, case.status, routing)
        return
    assert response.status_code == case.status, (response.status_code, response.text[:300])
    assert response.headers["content-type"].startswith(case.kind), response.headers
    if case.method == "HEAD":
        assert response.content == b""


@pytest.mark.parametrize("method, path", [
    ("GET", "/api/nothing"), ("GET", "/api/uploads/abc"), ("POST", "/api/standings"),
    ("GET", "/nothing"), ("GET", "/practice")])
def test_a_refusal_by_routing_says_what_to_do(seeded: Seeded, method: str, path: str
                                              ) -> None:
    response = seeded.client.request(method, path)
    if answers_json(method, path):
        json_error(response, response.status_code)
    else:
        page_error(response, response.status_code)


PLAY_PAGE = "/play/{practice:id}"
PLAY_EVENTS = "/play/{practice:id}/events"
PLAY_ANSWER = "/play/{practice:id}/answer"
PLAY_LEAVE = "/play/{practice:id}/leave"
ROUTES = {
    "/openapi.json", "/api/standings", "/api/bots", "/api/bots/{name}", ADMIN,
    "/api/practice", PRACTICE_ID, PRACTICE_SEAT, "/api/uploads/{upload:id}", "/api/games",
    SEAT, "/api/games/{game_id:path}", "/", "/events", "/games", "/games/{game_id:path}",
    "/replays/{game_id:path}", "/live", "/live/{game_id}/events", "/live/{game_id}",
    "/bots/{name}", "/practice", "/practice/{practice:id}", "/practice/{practice:id}/events",
    "/practice/{practice:id}/replay", "/practice/{practice:id}/replay.js", "/upload",
    "/assets/league.js", "/assets", "/play", PLAY_PAGE, PLAY_EVENTS, PLAY_ANSWER, PLAY_LEAVE}
"""The route table of `arena/league/app.py`, copied: a route added there is added here."""


def test_every_route_and_every_path_of_the_schema_is_tried_and_refused(seeded: Seeded
                                                                       ) -> None:
    """Each route has a success and a refusal in the table or a test of its own below; each
    path of /openapi.json is a route."""
    schema = seeded.client.get("/openapi.json").json()
    routed = {"/api/practice/{id}": PRACTICE_ID, "/api/uploads/{id}": "/api/uploads/{upload:id}",
              "/api/games/{id}": "/api/games/{game_id:path}",
              "/api/games/{id}/seats/{seat}/messages": SEAT,
              "/api/practice/{id}/seats/{seat}/messages": PRACTICE_SEAT,
              "/play/{id}/answer": PLAY_ANSWER, "/play/{id}/leave": PLAY_LEAVE}
    as_routed = {routed.get(p, p) for p in schema["paths"]} | {"/openapi.json"}
    assert as_routed <= ROUTES, as_routed - ROUTES
    below = {"/api/bots", ADMIN, "/api/practice", "/practice",  # successes: tests of their own
             "/play", PLAY_PAGE, PLAY_EVENTS, PLAY_ANSWER, PLAY_LEAVE}  # test_play_guards, test_play
    tried = {c.route for c in CASES} | below
    assert tried >= ROUTES, ROUTES - tried
    for route in ROUTES - below:
        statuses = {c.status for c in CASES if c.route == route}
        assert min(statuses) < 300 and max(statuses) >= 400, (route, statuses)


# ----- the JSON of each success ------------------------------------------------------------

def get(seeded: Seeded, path: str, who: str = "none") -> Any:
    response = seeded.client.get(path.format(**seeded.ids), headers=seeded.tokens[who])
    assert response.status_code == 200, response.text
    return response.json()


def test_the_standings_and_the_schema_have_their_shape(seeded: Seeded) -> None:
    table = get(seeded, "/api/standings")
    assert {"games", "version", "notes", "standings"} <= set(table), table
    assert isinstance(table["standings"], list)
    assert get(seeded, "/openapi.json")["openapi"].startswith("3.")


def test_a_bot_has_its_shape_and_a_house_bot_is_the_houses(seeded: Seeded) -> None:
    ann = get(seeded, "/api/bots/ann-bot")
    assert set(ann) == {"name", "author", "versions", "uploads", "opponents", "failures"}, ann
    assert (ann["name"], ann["author"], ann["versions"]) == ("ann-bot", "ann", [])
    assert [u["status"] for u in ann["uploads"]] == [UploadStatus.RECEIVED]
    house = get(seeded, "/api/bots/random")
    assert house["author"] == "house" and house["uploads"] == [] and house["failures"] == []
    (version,) = house["versions"]
    assert {"key", "version", "hash", "language", "active", "retired", "failures",
            "standing", "history"} <= set(version) and version["active"]
    (opponent,) = house["opponents"]  # the one stored game, against heuristic
    assert opponent["opponent"] == "heuristic" and opponent["games"] == 1
    assert opponent["wins"] in (0, 1)


def test_an_upload_has_its_shape(seeded: Seeded) -> None:
    upload = get(seeded, "/api/uploads/{A}")
    assert set(upload) == {"id", "author", "name", "status", "stage", "reason", "log",
                           "command", "entrant", "created", "updated"}, upload
    assert (upload["id"], upload["author"], upload["status"]) == (
        int(seeded.ids["A"]), "ann", UploadStatus.RECEIVED)


def test_games_have_their_shape_and_a_page_its_cursor(seeded: Seeded) -> None:
    page = get(seeded, "/api/games")
    (game,) = page["games"]
    assert page["next"] is None
    assert {"id", "cursor", "pair", "teams", "scores", "winner", "rounds", "termination",
            "url", "replay"} <= set(game), game
    assert get(seeded, "/api/games?limit=1")["next"] == game["cursor"]
    assert get(seeded, f"/api/games?after={game['cursor']}")["games"] == []
    assert get(seeded, "/api/games?bot=ann-bot")["games"] == []
    one = get(seeded, game["url"])
    assert one["id"] == game["id"] and one["record"]["events"], one.keys()


def test_each_event_stream_sends_its_news_then_ends(seeded: Seeded) -> None:
    """(The league stops here: a stream sends its first news and ends.) The streams' caps,
    429 and 503, are tried alone in test_limits."""
    assert seeded.client.get("/events").text.startswith("event: standings\n")
    for path in ("/live/{LIVE}/events", "/practice/{Q}/events",  # in play, or waiting
                 "/live/{GAME}/events", "/practice/{P}/events"):  # over: its last tricks
        text = seeded.client.get(path.format(**seeded.ids)).text
        assert text.startswith("event: table\ndata: <div"), (path, text)
    for path in ("/practice/999/events",):
        text = seeded.client.get(path.format(**seeded.ids)).text
        assert text == "event: end\ndata: over\n\n", (path, text)


def test_a_practice_game_has_its_shape_and_once_done_its_game(seeded: Seeded) -> None:
    queued = get(seeded, "/api/practice/{Q}")
    assert {"id", "author", "entrant", "opponent", "status", "game_id", "reason", "url",
            "page", "replay"} <= set(queued) and "game" not in queued, queued
    assert (queued["status"], queued["author"]) == (PracticeStatus.QUEUED, "bob")
    done = get(seeded, "/api/practice/{P}", "bob")
    assert done["status"] == PracticeStatus.DONE
    assert done["game"]["id"] == done["game_id"] and done["game"]["record"]["events"]


# ----- uploads: POST /api/bots --------------------------------------------------------------

@pytest.fixture
def league(tmp_path: Path) -> League:
    return new_league(tmp_path)


@pytest.fixture
def client(league: League) -> Iterator[TestClient]:
    with TestClient(make_app(league), raise_server_exceptions=False) as raw:
        client = schema_checked(raw)  # every answer checked against the schema
        yield client


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A .tar of a copy of the random bot named up-bot."""
    return bot_archive(tmp_path_factory.mktemp("archive"), "up-bot")


def kept(league: League) -> list[str]:
    """The files in the uploads folder."""
    folder = league.config.uploads
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_an_upload_is_202_recorded_as_received(client: TestClient, league: League,
                                               archive: bytes) -> None:
    answer = post_upload(client, invite(league, "uma"), "up-bot", archive)
    assert answer.status_code == 202, answer.text
    body = answer.json()
    assert body == {"id": body["id"], "name": "up-bot", "status": UploadStatus.RECEIVED,
                    "url": f"/api/uploads/{body['id']}", "page": "/bots/up-bot"}
    assert client.get(body["url"]).json()["status"] == UploadStatus.RECEIVED
    assert len(kept(league)) == 1


def symlinked(folder: Path) -> bytes:
    """A .tar of the bot with a link out of it: intake's snapshot refuses it."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as tar:
        tar.add(folder, arcname=".")
        link = tarfile.TarInfo("escape")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tar.addfile(link)
    return out.getvalue()


@pytest.mark.parametrize("name, filename, what", [
    ("../up-bot", "bot.tar", "bad name"), ("", "bot.tar", "empty name"),
    ("up bot", "bot.tar", "space in the name"), ("up-bot", "bot.txt", "not an archive"),
    ("up-bot", "bot.tar", "a link out")])
def test_a_malformed_upload_is_400(client: TestClient, league: League, archive: bytes,
                                   tmp_path: Path, name: str, filename: str, what: str
                                   ) -> None:
    data = symlinked(bot_copy(tmp_path / "b", "up-bot")) if what == "a link out" else archive
    json_error(post_upload(client, invite(league, "uma"), name, data, filename), 400)
    assert kept(league) == []


def test_an_upload_that_is_not_a_form_is_400(client: TestClient, league: League) -> None:
    headers = invite(league, "uma")
    json_error(client.post("/api/bots", json={"name": "up-bot"}, headers=headers), 400)
    body, kind = multipart({"name": "up-bot"})  # no archive
    json_error(client.post("/api/bots", content=body, headers={**headers,
                                                               "content-type": kind}), 400)


@pytest.mark.parametrize("who, status", [("none", 401), ("bad", 403), ("rex", 403)])
def test_an_upload_without_a_valid_token_is_refused(client: TestClient, league: League,
                                                    archive: bytes, who: str, status: int
                                                    ) -> None:
    headers = {"none": {}, "bad": BAD, "rex": revoked(league, "rex")}[who]
    json_error(post_upload(client, headers, "up-bot", archive), status)
    assert kept(league) == []


def test_another_authors_bot_name_and_a_house_bots_are_409(client: TestClient, league: League,
                                                          archive: bytes) -> None:
    assert post_upload(client, invite(league, "uma"), "up-bot", archive).status_code == 202
    vic = invite(league, "vic")
    assert "another author" in json_error(post_upload(client, vic, "up-bot", archive), 409)
    assert "house bot" in json_error(post_upload(client, vic, "random", archive), 409)
    assert len(kept(league)) == 1


def test_an_upload_without_a_length_is_411(client: TestClient, league: League,
                                           archive: bytes) -> None:
    body, kind = upload_body("up-bot", archive)
    chunked = client.post("/api/bots", content=iter([body]),
                          headers={**invite(league, "uma"), "content-type": kind})
    assert "Content-Length" in json_error(chunked, 411)
    assert kept(league) == []


def limit_of(league: League) -> int:
    """The largest upload body: the archive limit and the form's other fields."""
    return league.config.upload_bytes + MULTIPART_SLACK


def test_an_upload_body_at_the_limit_is_taken_and_one_byte_past_is_413(
        client: TestClient, league: League, archive: bytes) -> None:
    headers = invite(league, "uma")
    whole = sized(archive, league.config.upload_bytes)
    for total, status in ((limit_of(league), 202), (limit_of(league) + 1, 413)):
        body, kind = upload_body("up-bot", whole, total=total)
        answer = client.post("/api/bots", content=body,
                             headers={**headers, "content-type": kind})
        assert answer.status_code == status, (total, answer.text)
    assert "league.upload_megabytes" in answer.json()["error"]
    assert len(kept(league)) == 1


def test_a_length_one_byte_past_the_limit_is_413_before_the_body_is_read(
        client: TestClient, league: League, archive: bytes) -> None:
    """The refusal is the Content-Length's: the (small, valid) body is never looked at."""
    headers = invite(league, "uma")
    past = post_upload(client, headers, "up-bot", archive, declared=limit_of(league) + 1)
    assert "league.upload_megabytes" in json_error(past, 413)
    assert kept(league) == []
    body, _ = upload_body("up-bot", archive)
    at = post_upload(client, headers, "up-bot", archive, declared=len(body))
    assert at.status_code == 202, at.text  # the control: the same body, its true length


def test_a_body_read_past_the_limit_is_413_whatever_its_length_says(
        client: TestClient, league: League, archive: bytes) -> None:
    """The body meter alone: a Content-Length that says little, a body at the limit (taken)
    and one byte past (refused while read)."""
    headers = invite(league, "uma")
    whole = sized(archive, league.config.upload_bytes)
    for total, status in ((limit_of(league), 202), (limit_of(league) + 1, 413)):
        body, kind = upload_body("up-bot", whole, total=total)
        answer = client.post("/api/bots", content=body, headers={
            **headers, "content-type": kind, "content-length": "1000"})
        assert answer.status_code == status, (total, answer.text)
    assert "bytes at most" in json_error(answer, 413)
    assert len(kept(league)) == 1


def test_an_archive_at_the_limit_is_taken_and_one_byte_past_is_413(
        client: TestClient, league: League, archive: bytes) -> None:
    """The archive's own check: inside the body's limit, one byte more than the league takes."""
    headers = invite(league, "uma")
    limit = league.config.upload_bytes
    past = post_upload(client, headers, "up-bot", sized(archive, limit + 1))
    assert "league.upload_megabytes" in json_error(past, 413)
    assert kept(league) == []  # no archive, no temporary file
    at = post_upload(client, headers, "up-bot", sized(archive, limit))
    assert at.status_code == 202, at.text


def fail_uploads(league: League) -> None:
    """Every upload recorded so far ends its intake (failed): none is being taken in."""
    with Accounts(league.config.storage) as accounts:
        for upload in accounts.uploads():
            accounts.set_status(upload.id, UploadStatus.FAILED)


def test_uploads_past_the_hourly_quota_are_429(client: TestClient, league: League,
                                               archive: bytes) -> None:
    headers = invite(league, "uma")
    for _ in range(PER_HOUR):
        assert post_upload(client, headers, "up-bot", archive).status_code == 202
        fail_uploads(league)
    assert "in the last hour" in json_error(post_upload(client, headers, "up-bot", archive),
                                            429)
    assert len(kept(league)) == PER_HOUR
    other = post_upload(client, invite(league, "vic"), "vic-bot", archive)
    assert other.status_code == 202, other.text  # the control: another author's hour


def test_uploads_refused_at_intake_count_toward_the_hourly_quota(
        client: TestClient, league: League, archive: bytes) -> None:
    """An archive too large, a length too large and a file that is no archive each count."""
    headers = invite(league, "uma")
    limit = league.config.upload_bytes
    assert post_upload(client, headers, "up-bot", sized(archive, limit + 1)).status_code == 413
    too_long = post_upload(client, headers, "up-bot", archive, declared=limit_of(league) + 1)
    assert too_long.status_code == 413
    assert post_upload(client, headers, "up-bot", archive, "bot.txt").status_code == 400
    assert post_upload(client, headers, "up-bot", archive).status_code == 202  # the fourth
    fail_uploads(league)
    json_error(post_upload(client, headers, "up-bot", archive), 429)


def test_uploads_past_those_being_taken_in_are_429(client: TestClient, league: League,
                                                   archive: bytes) -> None:
    headers = invite(league, "uma")
    for _ in range(PENDING):  # recorded, never taken in here: they stay 'received'
        assert post_upload(client, headers, "up-bot", archive).status_code == 202
    assert "still being taken in" in json_error(
        post_upload(client, headers, "up-bot", archive), 429)
    fail_uploads(league)  # the control: once they are taken in, the next one passes
    assert post_upload(client, headers, "up-bot", archive).status_code == 202


# ----- an organizer's actions --------------------------------------------------------------

def test_an_organizer_disables_enables_and_rebuilds_an_uploaded_bot(
        client: TestClient, league: League, archive: bytes) -> None:
    upload = post_upload(client, invite(league, "uma"), "up-bot", archive).json()["id"]
    olga = invite(league, "olga", organizer=True)
    for action, disabled in (("disable", True), ("enable", False)):
        done = client.post(f"/api/bots/up-bot/{action}", headers=olga)
        assert done.status_code == 200 and done.json() == {"name": "up-bot",
                                                           "disabled": disabled}, done.text
    json_error(client.post("/api/bots/up-bot/rebuild", headers=olga), 409)  # being taken in
    fail_uploads(league)
    rebuilt = client.post(f"/api/bots/up-bot/rebuild?upload={upload}", headers=olga)
    assert rebuilt.status_code == 202 and rebuilt.json() == {
        "name": "up-bot", "upload": upload, "status": UploadStatus.RECEIVED,
        "url": f"/api/uploads/{upload}"}, rebuilt.text
    json_error(client.post("/api/bots/up-bot/rebuild", headers=olga), 409)  # again: busy


# ----- practice games: POST /api/practice --------------------------------------------------

def active_bot(client: TestClient, league: League, author: str, archive: bytes
               ) -> dict[str, str]:
    """`author`'s token, their upload of up-bot made active (no intake runs here)."""
    headers = invite(league, author)
    upload = post_upload(client, headers, "up-bot", archive)
    assert upload.status_code == 202, upload.text
    set_upload(league, upload.json()["id"], UploadStatus.ACTIVE, "up-bot@00112233aabbccdd")
    return headers


ASK = {"bot": "up-bot", "opponent": "random"}


def test_a_practice_game_is_202_and_past_the_daily_limit_429(
        client: TestClient, league: League, archive: bytes) -> None:
    headers = active_bot(client, league, "uma", archive)
    for _ in range(PER_DAY):
        granted = client.post("/api/practice", json=ASK, headers=headers)
        assert granted.status_code == 202, granted.text
    body = granted.json()
    assert body["status"] == PracticeStatus.QUEUED and body["entrant"].startswith("up-bot@")
    assert (body["url"], body["page"], body["replay"]) == (
        f"/api/practice/{body['id']}", f"/practice/{body['id']}",
        f"/practice/{body['id']}/replay")
    assert "practice_per_day" in json_error(
        client.post("/api/practice", json=ASK, headers=headers), 429)


def test_practice_of_a_bot_the_organizer_disabled_is_403(
        client: TestClient, league: League, archive: bytes) -> None:
    headers = active_bot(client, league, "uma", archive)
    olga = invite(league, "olga", organizer=True)
    assert client.post("/api/bots/up-bot/disable", headers=olga).status_code == 200
    assert "took" in json_error(client.post("/api/practice", json=ASK, headers=headers), 403)
    assert client.post("/api/bots/up-bot/enable", headers=olga).status_code == 200
    assert client.post("/api/practice", json=ASK, headers=headers).status_code == 202


def padded_ask(size: int) -> bytes:
    """A valid practice request, padded with spaces to `size` bytes."""
    body = json.dumps(ASK).encode()
    return body + b" " * (size - len(body))


def test_a_practice_length_one_byte_past_4_kb_is_413_before_the_body_is_read(
        client: TestClient, league: League, archive: bytes) -> None:
    headers = {**active_bot(client, league, "uma", archive), "content-type": "application/json"}
    small = json.dumps(ASK).encode()
    past = client.post("/api/practice", content=small, headers={
        **headers, "content-length": str(SMALL_BODY + 1)})
    assert "small JSON object" in json_error(past, 413)
    at = client.post("/api/practice", content=padded_ask(SMALL_BODY), headers=headers)
    assert at.status_code == 202, at.text  # the control: a valid body at the limit
    again = client.post("/api/practice", content=padded_ask(SMALL_BODY + 1), headers=headers)
    json_error(again, 413)


def test_a_chunked_practice_body_is_read_to_4_kb_and_refused_one_byte_past(
        client: TestClient, league: League, archive: bytes) -> None:
    """The body meter alone (no Content-Length to check)."""
    headers = active_bot(client, league, "uma", archive)
    at = client.post("/api/practice", content=iter([padded_ask(SMALL_BODY)]), headers=headers)
    assert at.status_code == 202, at.text
    past = client.post("/api/practice", content=iter([padded_ask(SMALL_BODY + 1)]),
                       headers=headers)
    assert "bytes at most" in json_error(past, 413)


# ----- the forms: /upload, /bots/{name}, /practice --------------------------------------------

def csrf_of(client: TestClient, page: str) -> str:
    """The CSRF value a page set (in its cookie, kept by the client, and in its forms)."""
    response = client.get(page)
    assert response.status_code == 200, response.text
    value = client.cookies.get("arena_csrf")
    assert value and f'name="csrf" value="{value}"' in response.text
    return str(value)


def form_upload(client: TestClient, csrf: str, token: str | None, archive: bytes,
                declared: int | None = None, chunked: bool = False) -> Response:
    fields: dict[str, Any] = {"csrf": csrf, "name": "up-bot", "archive": ("bot.tar", archive)}
    if token is not None:
        fields["token"] = token
    body, kind = multipart(fields)
    length = {} if declared is None else {"content-length": str(declared)}
    return client.post("/upload", content=iter([body]) if chunked else body,
                       headers={"content-type": kind, **length})


def token_in(header: dict[str, str]) -> str:
    return header["Authorization"].removeprefix("Bearer ")


def test_the_upload_form_takes_a_bot_and_refuses_one_without_a_length_or_too_long(
        client: TestClient, league: League, archive: bytes) -> None:
    token = token_in(invite(league, "uma"))
    csrf = csrf_of(client, "/upload")
    json_error(form_upload(client, csrf, token, archive, chunked=True), 411)
    json_error(form_upload(client, csrf, token, archive, declared=limit_of(league) + 1), 413)
    assert kept(league) == []
    taken = form_upload(client, csrf, token, archive)
    assert taken.status_code == 200 and "Upload 1 received" in taken.text, taken.text
    assert len(kept(league)) == 1


@contextlib.contextmanager
def files_left_open() -> Iterator[list[str]]:
    """The files the block's requests left open (each a ResourceWarning once collected)."""
    left: list[str] = []
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", ResourceWarning)
        yield left
        gc.collect()
    left += [str(w.message) for w in seen if issubclass(w.category, ResourceWarning)]


@pytest.mark.parametrize("sent", ["another value", None])
def test_a_stale_upload_form_is_403(client: TestClient, league: League, archive: bytes,
                                    sent: str | None) -> None:
    token = token_in(invite(league, "uma"))
    csrf = csrf_of(client, "/upload")
    if sent is None:
        client.cookies.clear()  # a form sent from another site carries no cookie
    with files_left_open():  # (test_a_refused_upload_form_leaves_no_file_open)
        json_error(form_upload(client, sent or csrf, token, archive), 403)
    assert kept(league) == []


@pytest.mark.parametrize("token, status", [(None, 401), ("not-a-token", 403)])
def test_the_upload_form_without_a_valid_token_is_401_or_403(
        client: TestClient, league: League, archive: bytes, token: str | None, status: int
        ) -> None:
    csrf = csrf_of(client, "/upload")
    with files_left_open():
        json_error(form_upload(client, csrf, token, archive), status)


def test_a_refused_upload_form_leaves_no_file_open(client: TestClient, league: League,
                                                   archive: bytes) -> None:
    token = token_in(invite(league, "uma"))
    with files_left_open() as left:
        json_error(form_upload(client, "stale", token, archive), 403)
    assert left == []


def bot_form(client: TestClient, path: str, fields: dict[str, str]) -> Response:
    return client.post(path, data=fields, follow_redirects=False)


def test_the_sign_in_form_shows_an_author_their_bot_and_refuses_a_stale_form(
        client: TestClient, league: League, archive: bytes) -> None:
    token = token_in(active_bot(client, league, "uma", archive))
    csrf = csrf_of(client, "/bots/up-bot")
    signed = bot_form(client, "/bots/up-bot", {"csrf": csrf, "token": token})
    assert signed.status_code == 200 and "sign-in-form" not in signed.text, signed.text
    json_error(bot_form(client, "/bots/up-bot", {"csrf": "stale", "token": token}), 403)
    json_error(bot_form(client, "/bots/up-bot", {"csrf": csrf}), 401)
    json_error(bot_form(client, "/bots/up-bot", {"csrf": csrf, "token": "nope"}), 403)
    json_error(bot_form(client, "/bots/nobody", {"csrf": csrf, "token": token}), 404)
    big = client.post("/bots/up-bot", content=iter([b"csrf=" + b"x" * SMALL_BODY]),
                      headers={"content-type": "application/x-www-form-urlencoded"})
    json_error(big, 413)


def test_the_practice_form_asks_for_a_game_and_refuses_a_stale_form(
        client: TestClient, league: League, archive: bytes) -> None:
    token = token_in(active_bot(client, league, "uma", archive))
    csrf = csrf_of(client, "/bots/up-bot")
    ask = {"csrf": csrf, "token": token, **ASK}
    json_error(bot_form(client, "/practice", {**ask, "csrf": "stale"}), 403)
    json_error(bot_form(client, "/practice", {**ask, "token": ""}), 401)
    json_error(bot_form(client, "/practice", {**ask, "bot": "random"}), 404)
    vic = token_in(invite(league, "vic"))
    json_error(bot_form(client, "/practice", {**ask, "token": vic}), 403)  # not vic's bot
    granted = bot_form(client, "/practice", ask)
    assert granted.status_code == 303, granted.text
    assert granted.headers["location"].startswith("/practice/")
    assert client.get(granted.headers["location"]).status_code == 200
