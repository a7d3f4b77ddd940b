"""GET /api/games/{id}/seats/{seat}/messages: one seat's messages of a stored game, for
`arena reproduce`, only to the author of that seat's bot or the organizer.

The guard alone through Starlette's TestClient (no server), then end to end: a league
plays an uploaded bot that crashes at its 9th request (or hangs at its 5th), and its
author's `arena reproduce ID --server --token` makes it fail again on their machine. Neither answer
holds a card the seat was not shown: checked against the hands the record deals, with a
control showing that the check sees another seat's cards.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from arena.cli.main import main
from arena.league.app import make_app
from arena.tournament.records import record_json
from arena.tournament.store import Store
from tests.league.conftest import League, request, schema_checked, served, wait_for
from tests.league.test_routes import bot_archive, invite, new_league, post_upload, store_game
from tests.referee.conftest import HERE

pytestmark = pytest.mark.timeout(300)
TAPE = HERE.parent / "referee" / "bots" / "tape"


def seen_by(events: list[dict[str, Any]], seat: int) -> set[str]:
    """The cards `seat` was dealt or given in the exchange, from a record's events."""
    cards: set[str] = set()
    for e in events:
        if e.get("visible_to") == seat and e["kind"] == "deal":
            cards.update(e["cards"])
        elif e.get("visible_to") == seat and e["kind"] == "exchange":
            cards.update(e["received"])
    return cards


def foreign(answer: dict[str, Any], events: list[dict[str, Any]], seat: int) -> set[str]:
    """The cards of a hand, deal or exchange in `answer`'s messages that `seat` never held."""
    own = seen_by(events, seat)
    named: set[str] = set()
    for item in answer["messages"]:
        message = item["message"]
        if message["type"] == "request":
            named.update(message["observation"]["hand"])
        for e in message.get("events") or []:
            if e["kind"] == "deal":
                named.update(e["cards"])
            elif e["kind"] == "exchange":
                named.update(e["given"] + e["received"])
    return named - own


# ----- the guard alone -------------------------------------------------------------------------

def test_only_the_seats_author_and_the_organizer_get_its_messages(tmp_path: Path) -> None:
    league = new_league(tmp_path)
    ann, bob, olga = invite(league, "ann"), invite(league, "bob"), invite(league, "olga", True)
    house = sorted(league.entrants)
    with TestClient(make_app(league), raise_server_exceptions=False) as raw:
        client = schema_checked(raw)
        assert post_upload(client, ann, "ann-bot", bot_archive(tmp_path, "ann-bot")
                           ).status_code == 202  # ann owns the name ann-bot
        game = store_game(league.config.storage, ["ann-bot@0123456789abcdef", house[0]])
        url = f"/api/games/{quote(game, safe='')}/seats/{{}}/messages"

        def get(seat: int, who: dict[str, str]) -> tuple[int, Any]:
            response = client.get(url.format(seat), headers=who)
            return response.status_code, response.json()

        status, mine = get(0, ann)  # seats 0 and 2 are ann-bot's
        assert status == 200, mine
        assert mine["seat"] == 0 and mine["name"] == "ann-bot" and mine["messages"]
        assert get(2, ann)[0] == 200 and get(0, olga)[0] == 200 and get(1, olga)[0] == 200
        for seat, who, refused in ((1, ann, 403), (0, bob, 403), (0, {}, 401)):
            status, body = get(seat, who)
            assert (status, body["status"]) == (refused, refused), body
            assert set(body) == {"error", "status"}  # nothing of the seat's messages
        with Store(league.config.storage) as store:
            found = store.games_page(0, 1, None, game, False)[0][1]
            events = record_json(store.record_path(found.record))["events"]
    assert not foreign(mine, events, 0)
    assert foreign(mine, events, 1)  # the control: the check sees another seat's cards


# ----- end to end ------------------------------------------------------------------------------

def tape_copy(folder: Path) -> Path:
    shutil.copytree(TAPE, folder)
    toml = folder / "bot.toml"
    toml.write_text(toml.read_text().replace('name = "tape"', 'name = "tape-bot"'))
    return folder


@pytest.mark.parametrize("fault, at, kind, said", [
    ("crash", 9, "crash", "crash: your bot exited with code 7"),
    ("hang", 5, "timeout", "timeout: your bot took longer than {allowed} ms again")])
def test_an_author_reproduces_a_league_failure_on_their_machine(
        tmp_path: Path, monkeypatch, fault: str, at: int, kind: str, said: str) -> None:
    monkeypatch.setenv("TICHU_TEST_TAPE_FAULT", fault)  # the league's bots read it too
    monkeypatch.setenv("TICHU_TEST_TAPE_AT", str(at))
    bot = tape_copy(tmp_path / "tape-bot")
    (tmp_path / "league").mkdir()
    with served(tmp_path / "league") as league:
        tia, pry = league.invite("tia"), league.invite("pry")
        uploaded = league.upload(bot, tia)
        assert uploaded.returncode == 0, uploaded.stdout + uploaded.stderr
        game = wait_for(f"a {kind} of tape-bot", lambda: next(
            (g for g in league.get("/api/games?bot=tape-bot")["games"]
             if g["termination"] == kind), None))
        seat = game["fault_seat"]
        url = f"{game['url']}/seats/{seat}/messages"
        status, mine = request(league.url + url, headers={"Authorization": f"Bearer {tia}"})
        assert status == 200, mine
        assert mine["failing"] == mine["fault"]["decision"] and mine["fault"]["kind"] == kind
        for token, refused in ((pry, 403), (None, 401)):
            headers = {} if token is None else {"Authorization": f"Bearer {token}"}
            status, body = request(league.url + url, headers=headers)
            assert (status, body["status"]) == (refused, refused), body
        events = league.get(game["url"], tia)["record"]["events"]
        assert not foreign(mine, events, seat)
        assert foreign(mine, events, (seat + 1) % 4)  # the control: the check would see it
        again = reproduce(game["id"], bot, league, tia)
        assert again.exit_code == 1, again.output
        allowed = mine["messages"][-1]["allowed_ms"]
        assert f"reproduced: decision {mine['failing']}: " + said.format(allowed=allowed) \
            in again.output
        assert re.search(rf"^\| tape: request {at} \(id ", again.output, re.MULTILINE)
        monkeypatch.setenv("TICHU_TEST_TAPE_FAULT", "")
        fixed = reproduce(game["id"], bot, league, tia)
        assert fixed.exit_code == 0, fixed.output
        refused = reproduce(game["id"], bot, league, pry)
        assert refused.exit_code == 4 and "403" in refused.output, refused.output
        if kind == "crash":  # and a practice game's, the same way
            monkeypatch.setenv("TICHU_TEST_TAPE_FAULT", fault)
            practice_crash(league, tia, bot)


def practice_crash(league: League, token: str, bot: Path) -> None:
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    status, asked = request(f"{league.url}/api/practice", json.dumps(
        {"bot": "tape-bot", "opponent": "random"}).encode(), headers)
    assert status == 202, asked
    wait_for("the practice game", lambda: league.get(asked["url"])["status"] == "done")
    done = league.get(asked["url"])
    seat = str(done["game"]["fault_seat"])
    for game, *seated in ((f"practice/{asked['id']}",), (done["game_id"], "--seat", seat)):
        again = reproduce(game, bot, league, token, *seated)  # its game's id is found too
        assert again.exit_code == 1, again.output
        assert "reproduced: decision " in again.output and ": crash: " in again.output


def reproduce(game_id: str, bot: Path, league: League, token: str, *extra: str):
    return CliRunner().invoke(main, ["reproduce", game_id, str(bot), "--server", league.url,
                                     "--token", token, *extra])
