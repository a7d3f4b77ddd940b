"""The organizer's rebuild, against a real server: a bot's active version is taken in again
(its cached build discarded, built afresh in the sandbox, checked again), out of the table
meanwhile and back after, its games never cut short by its build going away; an author's
token cannot, an unknown bot is 404."""

from __future__ import annotations

from pathlib import Path

from tests.league.conftest import League, bot_copy, request, wait_for

STAMP = ('build = ["python", "-c", "import secrets; '
         "open('stamp', 'w').write(secrets.token_hex(16))\"]\n")
"""A build that writes 128 random bits: each build of the same bytes leaves another stamp."""


def stamp(intake: Path) -> str:
    """The stamp of the one bot built in `intake` (the house bots have no build)."""
    stamps = list((intake / "builds").glob("*/stamp"))
    assert len(stamps) == 1, stamps
    return stamps[0].read_text()


def test_the_organizer_rebuilds_a_version(league: League, tmp_path: Path):
    """(On the shared league, whose bot cache is its folder's `intake`.)"""
    token = league.invite("ivy")
    organizer = league.organizer()
    upload = league.upload(bot_copy(tmp_path / "ivy-bot", "ivy-bot", extra=STAMP), token)
    assert upload.returncode == 0, upload.stdout + upload.stderr
    wait_for("ivy-bot playing", lambda: league.standings().get("ivy-bot", {}).get("games"))
    first = stamp(league.folder / "intake")
    url = league.url + "/api/bots/ivy-bot/rebuild"

    status, body = request(url, b"", {"Authorization": f"Bearer {token}"}, "POST")
    assert status == 403 and "organizer" in body["error"]
    status, body = request(league.url + "/api/bots/nobody/rebuild", b"",
                           organizer, "POST")
    assert status == 404, body
    assert stamp(league.folder / "intake") == first  # refused: nothing rebuilt

    action = league.get("/openapi.json")["paths"]["/api/bots/{name}/{action}"]["post"]
    assert "rebuild" in action["parameters"][1]["schema"]["enum"]
    before = league.get("/api/bots/ivy-bot")["uploads"][-1]
    status, body = request(url, b"", organizer, "POST")
    assert status == 202 and body["upload"] == before["id"], body
    status, again = request(url, b"", organizer, "POST")
    assert status == 409 and "being taken in" in again["error"]
    after = wait_for("the rebuild done", lambda: (
        (u := league.get(body["url"]))["status"] in ("active", "failed")
        and u["updated"] > before["updated"] and u))
    assert after["status"] == "active", after
    assert stamp(league.folder / "intake") != first  # built afresh, not from the cache
    played = league.standings().get("ivy-bot", {}).get("games", 0)
    row = wait_for("ivy-bot playing again", lambda: (
        (r := league.standings().get("ivy-bot", {})).get("games", 0) > played and r))
    assert not row["failures"], row  # no game of it lost its build under it
