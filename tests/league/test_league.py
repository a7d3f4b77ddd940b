"""The league end to end, against one real server process: authors invited, bots uploaded
(a folder, an archive, one failing its build, one failing check-bot), games in the
standings, a second version retiring the first, and every refusal with its status code and
nothing changed. The tests of this module share a server (`league`: one per test process,
with the other modules of this folder), in any order: each uploads what it needs unless it is
there already (`active`)."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from urllib.parse import quote

import pytest

from arena.rules.events import PUBLIC
from tests.intake import member, tar_of, tar_with
from tests.intake.conftest import tar_bomb
from tests.league.conftest import (
    GAMES_PER_MINUTE,
    League,
    arena,
    bot_copy,
    database,
    multipart,
    request,
    served,
    wait_for,
    write_config,
)

PAYLOAD = "<script>alert('pwned')</script>"


def uploads(league: League) -> int:
    with database(league.folder / "league.sqlite") as db:
        return int(db.execute("SELECT count(*) FROM league_uploads").fetchone()[0])


@pytest.fixture(scope="module")
def tokens(league: League) -> dict[str, str]:
    return {author: league.invite(author) for author in ("alice", "bob", "carol")}


def active(league: League, tokens: dict[str, str], author: str, name: str,
           tmp_path: Path) -> dict:
    """The standing of `author`'s bot `name` (a copy of the random bot), uploaded first if
    it is not in the table yet."""
    if name not in league.standings():
        result = league.upload(bot_copy(tmp_path / name, name), tokens[author])
        assert result.returncode == 0, result.stdout + result.stderr
    return wait_for(f"{name} in the table", lambda: league.standings().get(name))


def test_the_house_bots_play_and_the_standings_show_them(league: League):
    table = wait_for("games of both house bots", lambda: (
        (s := league.standings()) and all(s.get(n, {}).get("games") for n in
                                          ("random", "heuristic")) and s))
    row = table["heuristic"]
    assert row["author"] == "house" and row["version"] and row["rating"] is not None
    assert {"interval", "failures", "order_vs_next", "games"} <= set(row)


def test_the_league_starts_at_most_its_games_a_minute(league: League):
    """The test leagues' `games_per_minute` (a game every 2 s; unpaced, these short games
    came five a second): over a few seconds, no more games are stored than the cap lets
    start, and the two batches booked when the count began (the one in play and the next:
    two games each at `-j 1`, `batch_pairs = 1`)."""
    def stored() -> int:
        with database(league.folder / "league.sqlite") as db:
            return int(db.execute("SELECT count(*) FROM games").fetchone()[0])

    wait_for("a stored game", stored)
    first, start = stored(), time.monotonic()
    time.sleep(6.0)
    games, seconds = stored() - first, time.monotonic() - start
    assert games <= seconds * GAMES_PER_MINUTE / 60 + 4, (games, seconds)


def test_tokens_are_stored_only_as_hashes(league: League, tokens: dict[str, str]):
    assert all(len(t) >= 43 for t in tokens.values())  # 256 bits in base64
    stored = b"".join(p.read_bytes() for p in league.folder.glob("league.sqlite*")
                      if p.is_file())
    for token in tokens.values():
        assert token.encode() not in stored
    assert token.encode() not in league.log().encode()


def test_an_uploaded_folder_is_built_checked_and_plays(league: League, tokens, tmp_path):
    bot = bot_copy(tmp_path / "alice-bot", "alice-bot")
    result = league.upload(bot, tokens["alice"])
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("upload ")
    assert "active" in result.stdout
    row = wait_for("alice-bot in the table with games",
                   lambda: league.standings().get("alice-bot", {}).get("games"))
    assert row
    # (its first games may be against another test's bot: the league is shared)
    opponents = wait_for("alice-bot's games against a house bot", lambda: (
        (o := {o["opponent"]: o for o in league.get("/api/bots/alice-bot")["opponents"]})
        and {"random", "heuristic"} & set(o) and o))
    assert all(0 <= o["wins"] <= o["games"] for o in opponents.values())
    assert 'id="opponents-table"' in league.get("/bots/alice-bot")
    history = wait_for("two points of the heuristic's rating history", lambda: (
        h := next(v for v in league.get("/api/bots/heuristic")["versions"]
                  if v["active"])["history"]) and len(h) >= 2 and h)
    assert [p["games"] for p in history] == sorted(p["games"] for p in history)
    assert "Rating over time" in league.get("/bots/heuristic")
    assert league.standings()["alice-bot"]["author"] == "alice"


def test_an_uploaded_archive_is_taken_too(league: League, tokens, tmp_path):
    bot = bot_copy(tmp_path / "bob-bot", "bob-bot")
    archive = tar_of(bot, tmp_path / "bob-bot.tar.gz")
    result = league.upload(archive, tokens["bob"], "--name", "bob-bot")
    assert result.returncode == 0, result.stdout + result.stderr
    wait_for("bob-bot in the table", lambda: "bob-bot" in league.standings())


def test_a_failing_build_is_explained_and_escaped(league: League, tokens, tmp_path):
    bot = bot_copy(tmp_path / "broken", "carol-broken",
                   extra='build = ["sh", "-c", "echo \\"' + PAYLOAD.replace("'", "") +
                   '\\"; exit 3"]\n')
    result = league.upload(bot, tokens["carol"])
    assert result.returncode == 1, result.stdout + result.stderr
    assert "failed" in result.stdout
    assert f"reproduce it: arena check-bot --games 1 --target 100 {bot}" in result.stdout, \
        result.stdout  # the author's own folder, never the server's file
    data = league.get("/api/bots/carol-broken", tokens["carol"])
    failed = data["uploads"][-1]
    assert failed["status"] == "failed" and failed["stage"] == "build"
    assert failed["command"].startswith("arena check-bot ")
    page = league.signed_in("carol-broken", tokens["carol"])
    assert "<script>alert" not in page and "&lt;script&gt;alert" in page
    assert "carol-broken" not in league.standings()


def test_a_bot_failing_check_bot_is_refused_with_the_step(league: League, tokens, tmp_path):
    bot = bot_copy(tmp_path / "mute", "carol-mute", body="import sys\nsys.exit(0)\n")
    result = league.upload(bot, tokens["carol"])
    assert result.returncode == 1, result.stdout + result.stderr
    failed = league.get("/api/bots/carol-mute")["uploads"][-1]
    assert failed["status"] == "failed" and failed["stage"].startswith("check-bot")
    assert "carol-mute" not in league.standings()


def test_a_second_version_retires_the_first(league: League, tokens, tmp_path):
    first = active(league, tokens, "alice", "alice-bot", tmp_path)["key"]
    wait_for("a game of the first version", lambda: league.standings()["alice-bot"]["games"])
    bot = bot_copy(tmp_path / "two" / "alice-bot", "alice-bot")
    (bot / "bot.py").write_text((bot / "bot.py").read_text() + f"\n# {tmp_path.name}\n")
    result = league.upload(bot, tokens["alice"])
    assert result.returncode == 0, result.stdout + result.stderr
    second = wait_for("the new version in the table", lambda: (
        (key := league.standings().get("alice-bot", {}).get("key")) != first and key))
    versions = {v["key"]: v for v in league.get("/api/bots/alice-bot")["versions"]}
    assert versions[first]["retired"] and not versions[first]["active"]
    assert versions[second]["active"]
    statuses = [u["status"] for u in league.get("/api/bots/alice-bot")["uploads"]]
    assert statuses[-2:] == ["retired", "active"]
    # the games of the others against the first version leave their rows: a note says so
    said = re.compile(r"(\d+) games? against retired versions (is|are) not counted")
    note = wait_for("the note on games against retired versions", lambda: next(
        (n for n in league.get("/api/standings")["notes"] if said.search(n)), None))
    assert int(said.search(note)[1]) >= 1, note
    assert said.search(league.get("/")), "the leaderboard page shows the note"


def _post(league: League, fields, token: str | None):
    body, kind = multipart(fields)
    headers = {"Content-Type": kind}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    return request(league.url + "/api/bots", body, headers, "POST")


def test_refusals_get_their_status_and_change_nothing(league: League, tokens, tmp_path):
    active(league, tokens, "alice", "alice-bot", tmp_path)
    good = tar_of(bot_copy(tmp_path / "dave-bot", "dave-bot"), tmp_path / "dave.tar.gz")
    escaping = tar_with(tmp_path / "escape.tar.gz", (member("../evil"), b"x"))
    bomb = tar_bomb(tmp_path / "bomb.tar.gz", "zeros", 50 * 1000 * 1000)
    big = tmp_path / "big.tar"
    big.write_bytes(b"\0" * (2 * 2**20))
    before = uploads(league)
    cases = [
        (None, "dave-bot", good, 401),
        ("not-a-token", "dave-bot", good, 403),
        (tokens["bob"], "alice-bot", good, 409),
        (tokens["bob"], "random", good, 409),  # a house bot's name
        (tokens["bob"], "bob-bot", escaping, 400),
        (tokens["bob"], "bob-bot", bomb, 400),
        (tokens["bob"], "bob-bot", big, 413),
    ]
    for token, name, archive, status in cases:
        got, body = _post(league, {"name": name, "archive": (archive.name,
                                                             archive.read_bytes())}, token)
        assert got == status, (name, archive.name, got, body)
        assert body["error"] and body["status"] == status
    assert uploads(league) == before
    assert "dave-bot" not in league.standings()
    assert league.get("/api/bots/alice-bot")["uploads"][-1]["author"] == "alice"


def test_a_revoked_token_no_longer_uploads(league: League, tmp_path):
    token = league.invite("rita")
    result = arena("league", "revoke", league.config, "rita")
    assert result.returncode == 0, result.stderr
    archive = tar_of(bot_copy(tmp_path / "r", "rita-late"), tmp_path / "r.tar.gz")
    status, _ = _post(league, {"name": "rita-late", "archive": ("r.tar.gz",
                                                                 archive.read_bytes())}, token)
    assert status == 403
    assert "rita-late" not in str(league.get("/api/standings"))


def test_the_organizer_disables_and_enables_a_bot(league: League, tokens, tmp_path):
    active(league, tokens, "bob", "bob-bot", tmp_path)
    organizer = league.organizer()
    url = league.url + "/api/bots/bob-bot/"
    status, body = request(url + "disable", b"", {"Authorization": f"Bearer {tokens['bob']}"},
                           "POST")
    assert status == 403 and "organizer" in body["error"]
    status, body = request(url + "disable", b"", organizer, "POST")
    assert status == 200, body
    wait_for("bob-bot out of the table", lambda: "bob-bot" not in league.standings())
    status, _ = request(url + "enable", b"", organizer, "POST")
    assert status == 200
    wait_for("bob-bot back", lambda: "bob-bot" in league.standings())


def test_the_api_pages_and_schema(league: League):
    wait_for("three games", lambda: league.get("/api/standings")["games"] >= 3)
    schema = league.get("/openapi.json")
    assert {"/api/standings", "/api/bots", "/api/bots/{name}", "/api/games",
            "/api/games/{id}"} <= set(schema["paths"])
    page = league.get("/api/games?limit=2")
    assert len(page["games"]) == 2 and page["next"] is not None
    following = league.get(f"/api/games?limit=2&after={page['next']}")
    assert {g["id"] for g in page["games"]}.isdisjoint(g["id"] for g in following["games"])
    only = league.get("/api/games?bot=heuristic&limit=5")["games"]
    assert all(any(t.startswith("heuristic@") for t in g["teams"]) for g in only)
    one = league.get(page["games"][0]["url"])
    assert one["record"]["events"]
    assert request(league.url + "/api/games?limit=x")[0] == 400
    listing = league.get("/games")
    assert 'id="games-table"' in listing and 'href="/games/' in listing
    status, body = request(league.url + "/api/bots/nobody")
    assert status == 404 and "no bot named" in body["error"]
    status, html = request(league.url + page["games"][0]["replay"])
    assert status == 200 and 'id="replay"' in html
    status, script = request(league.url + html.split('data-script="')[1].split('"')[0]
                             .replace("&amp;", "&"))
    assert status == 200 and script.startswith("tichuReplay.add(")


def test_a_second_server_on_the_same_store_is_refused(league: League):
    result = arena("league", "serve", league.config, "--port", "1")
    assert result.returncode != 0
    assert "in use by" in result.stderr and "arena league serve" in result.stderr


def test_no_sandbox_no_league_unless_the_organizer_says_so(tmp_path: Path):
    config = write_config(tmp_path, isolation="none")
    result = arena("league", "serve", config, "--port", "1")
    assert result.returncode != 0
    assert "--allow-unsandboxed" in result.stderr
    assert not (tmp_path / "league.sqlite").exists()


@pytest.mark.parametrize("path", ["/", "/api/standings"])  # (the second answered first)
def test_security_headers(league: League, path: str):
    import urllib.request

    with urllib.request.urlopen(league.url + path) as response:
        headers = response.headers
    assert "script-src 'self'" in headers["content-security-policy"]
    assert headers["x-frame-options"] == "DENY"
    assert headers["x-content-type-options"] == "nosniff"


def test_the_standings_answer_their_table_to_get_and_head_and_405_to_a_post(league: League):
    import urllib.request

    table = league.get("/api/standings")
    assert set(table) == {"games", "version", "standings", "notes", "stale"}
    head = urllib.request.Request(league.url + "/api/standings", method="HEAD")
    with urllib.request.urlopen(head) as response:
        assert response.status == 200 and response.read() == b""
        assert response.headers["content-type"] == "application/json"
        assert int(response.headers["content-length"]) > 0
    assert request(league.url + "/api/standings", b"", method="POST")[0] == 405


def test_the_upload_form_refuses_a_cross_site_post(league: League, tokens, tmp_path):
    archive = tar_of(bot_copy(tmp_path / "e", "erin-bot"), tmp_path / "e.tar.gz")
    body, kind = multipart({"csrf": "guessed", "token": tokens["bob"], "name": "erin-bot",
                            "archive": ("e.tar.gz", archive.read_bytes())})
    status, answer = request(league.url + "/upload", body, {"Content-Type": kind}, "POST")
    assert status == 403 and "another site" in answer["error"]
    assert "erin-bot" not in str(league.get("/api/standings"))


def test_stopping_cleanly_stores_every_game_once(league: League):
    wait_for("a game", lambda: league.get("/api/standings")["games"])
    try:
        assert league.stop() == 0
    finally:
        league.start()  # for the tests after this one
    with database(league.folder / "league.sqlite") as db:
        pairs = db.execute("SELECT pair_id, count(*) FROM games GROUP BY pair_id").fetchall()
        stored = db.execute("SELECT count(*) FROM games").fetchone()[0]
    assert all(n <= 2 for _, n in pairs)
    records = [p for p in (league.folder / "league.sqlite.records").rglob("*") if p.is_file()
               and not p.name.startswith(".")]
    assert len([p for p in records if ".pending" not in p.name]) >= stored


def _live_game(league: League) -> tuple[str, list]:
    """A game in progress and its spectators' file, read while it is there."""
    for path in (league.folder / "league.sqlite.live").glob("*.json"):
        try:
            return path.name.removesuffix(".json"), json.loads(path.read_text())
        except (OSError, ValueError):  # it ended (or is being rewritten) meanwhile
            continue
    return None  # type: ignore[return-value]


def test_a_game_in_progress_shows_only_public_events(league: League):
    seen = []
    for _ in range(5):
        game_id, events = wait_for("a game in progress", lambda: _live_game(league), 60)
        assert events and all(e["visible_to"] == PUBLIC for e in events)
        assert not {"deal", "exchange"} & {e["kind"] for e in events if "kind" in e}
        status, page = request(f"{league.url}/live/{quote(game_id, safe='')}")
        if status == 200:
            seen.append(page)
            break
    assert seen, "no game was still in progress when its page was asked for"
    assert 'id="live-table"' in seen[0] and "no hand is shown" in seen[0]
    status, stream = request(f"{league.url}/live/{quote('a~b#0.0', safe='')}/events")
    assert status == 200 and "event: end" in stream


def test_too_many_uploads_in_an_hour_get_429(tmp_path: Path):
    with served(tmp_path, uploads_per_hour=1, house=("random",)) as league:  # (no games)
        token = league.invite("gina")
        archive = tar_of(bot_copy(tmp_path / "g", "gina-bot"), tmp_path / "g.tar.gz")
        fields = {"name": "gina-bot", "archive": ("g.tar.gz", archive.read_bytes())}
        assert _post(league, fields, token)[0] == 202
        status, body = _post(league, fields, token)
        assert status == 429 and "uploads_per_hour" in body["error"]
        assert uploads(league) == 1
