"""The web layer's guards, tested alone with Starlette's TestClient (no server process).

Each guard is tried past its limit and at it: bodies counted as they are read (chunked or
not, multipart included), ids and numbers out of range, deep JSON, odd types, and an error no
handler expected. Every error is JSON with a sentence. tests/league/test_hostile_http.py sends
the same attacks to a real server.
"""

from __future__ import annotations

import asyncio
import io
import json
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from arena.league.accounts import Accounts
from arena.league.app import make_app
from arena.league.guards import (
    MAX_ID,
    MULTIPART_SLACK,
    SMALL_BODY,
    BodyLimit,
    BodyTooLarge,
    bounded_int,
    json_body,
)
from arena.league.server import League
from tests.league.conftest import bot_copy, schema_checked, unstarted_league

HUGE = "1" * 30
"""A 30-digit number: past SQLite's integers."""


@pytest.fixture
def league(tmp_path: Path) -> League:
    """A league's parts, not started (`conftest.unstarted_league`)."""
    return unstarted_league(tmp_path)


@pytest.fixture
def client(league: League) -> Iterator[TestClient]:
    with TestClient(make_app(league), raise_server_exceptions=False) as client:
        yield schema_checked(client)  # every answer of the API checked against its schema


def token_of(league: League, author: str, organizer: bool = False) -> dict[str, str]:
    with Accounts(league.config.storage) as accounts:
        return {"Authorization": f"Bearer {accounts.invite(author, organizer)}"}


def assert_json_error(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, (response.status_code, response.text)
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert body["status"] == status and body["error"].strip(), body
    return dict(body)


# ----- the body meter, alone -------------------------------------------------------------------

def run_metered(limit: int, chunks: list[bytes]) -> tuple[int, int, bool]:
    """An application reading every chunk of a body behind `BodyLimit(limit)`: the bytes it
    got, the messages the client had to hand over, and whether BodyTooLarge stopped it."""
    given = 0
    got = 0

    async def receive() -> dict[str, Any]:
        nonlocal given
        given += 1
        more = given < len(chunks)
        return {"type": "http.request", "body": chunks[given - 1], "more_body": more}

    async def app(scope: Any, receive_: Any, send: Any) -> None:
        nonlocal got
        while True:
            message = await receive_()
            got += len(message["body"])
            if not message["more_body"]:
                return

    async def send(message: Any) -> None:
        pass

    scope = {"type": "http", "method": "POST", "path": "/api/practice", "headers": []}
    try:
        asyncio.run(BodyLimit(app, lambda method, path: limit)(scope, receive, send))
    except BodyTooLarge:
        return got, given, True
    return got, given, False


def test_the_meter_stops_reading_one_chunk_past_the_limit() -> None:
    got, given, stopped = run_metered(4096, [b"x" * 1024] * 1000)
    assert stopped and given == 5 and got == 4096  # the fifth chunk is refused, not kept


def test_the_meter_lets_a_body_at_the_limit_through() -> None:
    assert run_metered(4096, [b"x" * 1024] * 4) == (4096, 4, False)
    assert run_metered(4096, [b"x" * 1024] * 4 + [b"x"])[2]  # one byte past: refused


# ----- bodies through the application ---------------------------------------------------------

def chunked(total: int, size: int = 1024) -> Iterator[bytes]:
    """A body sent chunked (no Content-Length): `total` bytes of JSON-ish filler."""
    sent = 0
    while sent < total:
        yield b" " * min(size, total - sent)
        sent += size


def test_a_chunked_practice_request_is_refused_at_4_kb(client: TestClient, league: League
                                                       ) -> None:
    headers = token_of(league, "ann")
    refused = client.post("/api/practice", content=chunked(8 * 2**20), headers=headers)
    assert_json_error(refused, 413)
    # the control: a chunked body at the limit is read, and answered on its content
    body = json.dumps({"bot": "ann-bot", "opponent": "random"}).encode()
    at_limit = body + b" " * (SMALL_BODY - len(body))
    answer = client.post("/api/practice", content=iter([at_limit]), headers=headers)
    assert answer.status_code == 404 and "ann-bot" in answer.json()["error"]


def multipart(fields: dict[str, Any]) -> tuple[bytes, str]:
    boundary = "arena-test-boundary"
    parts = []
    for key, value in fields.items():
        if isinstance(value, tuple):
            filename, data = value
            head = (f'Content-Disposition: form-data; name="{key}"; filename="{filename}"\r\n'
                    "Content-Type: application/octet-stream\r\n\r\n").encode()
        else:
            head, data = f'Content-Disposition: form-data; name="{key}"\r\n\r\n'.encode(), \
                value.encode()
        parts.append(b"--" + boundary.encode() + b"\r\n" + head + data + b"\r\n")
    return b"".join(parts) + b"--" + boundary.encode() + b"--\r\n", \
        f"multipart/form-data; boundary={boundary}"


def archive_of(folder: Path, padding: int = 0) -> bytes:
    """A .tar of `folder`, with a file of `padding` random-looking bytes added."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as tar:
        tar.add(folder, arcname=".")
        if padding:
            info = tarfile.TarInfo("padding.bin")
            info.size = padding
            tar.addfile(info, io.BytesIO(bytes(k % 251 for k in range(padding))))
    return out.getvalue()


def lying_upload(league: League, body: bytes, kind: str, declared: int,
                 headers: dict[str, str]) -> tuple[int, dict[str, Any], int]:
    """POST /api/bots straight to the application with a Content-Length of `declared`
    whatever `body` holds (as a broken proxy might pass on), in 64 KB messages: the status,
    the JSON answer, and the bytes the application took."""
    app = make_app(league)
    taken = 0
    chunks = [body[k:k + 65536] for k in range(0, len(body), 65536)] or [b""]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        nonlocal taken
        if taken >= len(chunks):
            return {"type": "http.disconnect"}
        taken += 1
        return {"type": "http.request", "body": chunks[taken - 1],
                "more_body": taken < len(chunks)}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    raw = [(k.lower().encode(), v.encode()) for k, v in
           {**headers, "content-type": kind, "content-length": str(declared)}.items()]
    scope = {"type": "http", "method": "POST", "path": "/api/bots", "raw_path": b"/api/bots",
             "query_string": b"", "headers": raw, "scheme": "http", "server": ("t", 80),
             "client": ("127.0.0.1", 1), "http_version": "1.1", "root_path": ""}
    asyncio.run(app(scope, receive, send))
    start = next(m for m in sent if m["type"] == "http.response.start")
    body_sent = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], json.loads(body_sent), sum(len(c) for c in chunks[:taken])


def test_an_upload_past_the_limit_is_refused_while_read_whatever_its_length_says(
        league: League, tmp_path: Path) -> None:
    limit = league.config.upload_bytes
    folder = bot_copy(tmp_path / "big", "big-bot")
    body, kind = multipart({"name": "big-bot",
                            "archive": ("big.tar", archive_of(folder, 3 * limit))})
    status, answer, taken = lying_upload(league, body, kind, 1000, token_of(league, "bea"))
    assert status == 413 and answer["status"] == 413, answer
    assert taken <= limit + MULTIPART_SLACK + 65536  # read to the limit, not to the end
    kept = list(league.config.uploads.glob("*")) if league.config.uploads.exists() else []
    assert kept == []  # no archive, no temporary file left behind


def test_an_archive_one_byte_past_the_limit_is_refused_by_the_store(
        league: League, tmp_path: Path) -> None:
    """Inside the body's slack, the archive's own size check refuses it (413)."""
    limit = league.config.upload_bytes
    folder = bot_copy(tmp_path / "edge", "edge-bot")
    base = len(archive_of(folder))
    over = archive_of(folder, limit - base + 1024)  # the tar rounds up to 512-byte blocks
    assert limit < len(over) < limit + MULTIPART_SLACK // 2
    body, kind = multipart({"name": "edge-bot", "archive": ("edge.tar", over)})
    status, answer, _ = lying_upload(league, body, kind, len(body), token_of(league, "eve"))
    assert status == 413 and "limit" in answer["error"], answer
    at_limit = archive_of(folder, limit - base - 10 * 1024)
    assert len(at_limit) <= limit
    body, kind = multipart({"name": "edge-bot", "archive": ("edge.tar", at_limit)})
    status, answer, _ = lying_upload(league, body, kind, len(body), token_of(league, "eve"))
    assert status == 202, answer


def test_an_upload_whose_length_says_too_much_is_refused_before_it_is_kept(
        league: League, tmp_path: Path) -> None:
    limit = league.config.upload_bytes
    body, kind = multipart({"name": "x-bot", "archive": ("x.tar", b"\0" * 1024)})
    status, answer, _ = lying_upload(league, body, kind, limit + MULTIPART_SLACK + 1,
                                     token_of(league, "max"))
    assert status == 413 and answer["status"] == 413, answer


# ----- numbers, JSON and odd types ---------------------------------------------------------

@pytest.mark.parametrize("path", [
    f"/api/games?after={HUGE}", "/api/games?after=-1", "/api/games?limit=abc",
    f"/api/games?limit={HUGE}", f"/api/uploads/{HUGE}", f"/api/practice/{HUGE}",
    f"/practice/{HUGE}/events", f"/practice/{HUGE}/replay.js"])
def test_numbers_out_of_range_are_400_with_a_sentence(client: TestClient, path: str) -> None:
    body = assert_json_error(client.get(path), 400)
    assert "whole number" in body["error"]


def test_the_largest_id_is_in_range_and_simply_not_found(client: TestClient) -> None:
    assert_json_error(client.get(f"/api/uploads/{MAX_ID}"), 404)
    assert_json_error(client.get(f"/api/uploads/{MAX_ID + 1}"), 400)


@pytest.mark.parametrize("body", [
    b"[" * 2000 + b"]" * 2000, b'{"bot": ' + b"[" * 1000 + b"]" * 1000 + b"}",
    b"[]", b"42", b'"bot"', b"null", b'{"bot": 5, "opponent": "random"}',
    b'{"bot": "a", "opponent": ["random"]}', b'{"bot": "a", "opponent": "b", "version": 1}',
    b"\xff\xfe", b"{not json"])
def test_bad_practice_bodies_are_400_with_a_sentence(client: TestClient, league: League,
                                                     body: bytes) -> None:
    assert_json_error(client.post("/api/practice", content=body,
                                  headers=token_of(league, "ned")), 400)


def test_json_depth_counts_brackets_outside_strings_only() -> None:
    assert json_body(b'{"a": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\\"["}') == {
        "a": "[" * 40 + '"['}
    with pytest.raises(Exception, match="nests more than"):
        json_body(b"[" * 33 + b"]" * 33)
    assert json_body(b"[" * 32 + b"]" * 32) is not None


def test_bounded_int_at_its_edges() -> None:
    assert bounded_int("n", "0") == 0 and bounded_int("n", str(MAX_ID)) == MAX_ID
    for bad in ("", "-1", str(MAX_ID + 1), HUGE, "1e3", "١٢", " 1"):
        with pytest.raises(Exception, match="whole number"):
            bounded_int("n", bad)


def test_an_error_no_handler_expected_is_a_json_500_without_paths(
        client: TestClient, league: League) -> None:
    league.config.storage.write_bytes(b"this is not a database" * 100)
    body = assert_json_error(client.get("/api/games"), 500)
    assert "/" not in body["error"].replace("/api", "")
    page = client.get("/games")
    assert page.status_code == 500 and "<h1>500</h1>" in page.text
    assert str(league.config.storage.parent) not in page.text


def test_every_error_carries_the_security_headers(client: TestClient) -> None:
    response = client.get(f"/api/uploads/{HUGE}")
    assert response.headers["x-content-type-options"] == "nosniff"


def test_a_rebuild_of_an_upload_id_past_the_range_is_400(client: TestClient, league: League
                                                        ) -> None:
    organizer = token_of(league, "olga", organizer=True)
    body = assert_json_error(client.post(f"/api/bots/x/rebuild?upload={HUGE}",
                                         headers=organizer), 400)
    assert "?upload=" in body["error"]
    assert_json_error(client.post(f"/api/bots/x/rebuild?upload={MAX_ID}", headers=organizer),
                      404)
