"""The organizer's rebuild of a named upload, against a real server: an earlier upload of a
bot, named by its id or its version, is taken in again and becomes the active version (the
one before retires); an upload the bot does not have is 404 and a malformed one 400, nothing
rebuilt. (On the shared league, whose bot cache is its folder's `intake`.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.league.conftest import League, bot_copy, request, wait_for


def uploads(league: League, name: str) -> dict[int, dict[str, Any]]:
    return {u["id"]: u for u in league.get(f"/api/bots/{name}")["uploads"]}


def test_the_organizer_rebuilds_an_earlier_upload(league: League, tmp_path: Path):
    token = league.invite("iris")
    organizer = league.organizer()
    for k in (1, 2):  # two versions: the second retires the first
        done = league.upload(bot_copy(tmp_path / f"v{k}", "iris-bot", extra=f"# v{k}\n"),
                             token)
        assert done.returncode == 0, done.stdout + done.stderr
    first, second = sorted(uploads(league, "iris-bot").values(), key=lambda u: u["id"])
    assert (first["status"], second["status"]) == ("retired", "active"), (first, second)
    url = league.url + "/api/bots/iris-bot/rebuild"

    for query, status, words in (
            (f"?upload={second['id'] + 100}", 404, f"no upload {second['id'] + 100}"),
            ("?version=iris-bot@0000", 404, "no version 'iris-bot@0000'"),
            ("?upload=first", 400, "a number"),
            (f"?upload={first['id']}&version={first['entrant']}", 400, "not both"),
            ("?version=", 400, "empty")):
        code, body = request(url + query, b"", organizer, "POST")
        assert code == status and words in body["error"], (query, code, body)
    assert uploads(league, "iris-bot") == {first["id"]: first, second["id"]: second}
    action = league.get("/openapi.json")["paths"]["/api/bots/{name}/{action}"]["post"]
    assert {"upload", "version"} <= {p["name"] for p in action["parameters"]}

    # the earlier upload, by its id: it passes and is the active version again
    rebuilt = rebuild(league, url + f"?upload={first['id']}", organizer, first)
    assert rebuilt["status"] == "active", rebuilt
    assert uploads(league, "iris-bot")[second["id"]]["status"] == "retired"
    wait_for("the first version in the table", lambda: league.standings().get(
        "iris-bot", {}).get("key") == first["entrant"])
    # the later one back, by its version's hash
    hash_ = second["entrant"].split("@", 1)[1]
    again = rebuild(league, url + f"?version={hash_}", organizer, second)
    assert again["status"] == "active", again
    assert uploads(league, "iris-bot")[first["id"]]["status"] == "retired"
    wait_for("the second version in the table", lambda: league.standings().get(
        "iris-bot", {}).get("key") == second["entrant"])


def rebuild(league: League, url: str, headers: dict[str, str], before: dict[str, Any]
            ) -> dict[str, Any]:
    """POST the rebuild of `before` (an upload), then its upload once taken in again."""
    status, body = request(url, b"", headers, "POST")
    assert status == 202 and body["upload"] == before["id"], body
    return wait_for("the rebuild done", lambda: (
        (u := league.get(body["url"]))["status"] in ("active", "failed")
        and u["updated"] > before["updated"] and u))
