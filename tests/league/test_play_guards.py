"""The guards of a seat at the table in the browser (`/play`), each alone, through Starlette's
TestClient (no server process, no game played: a seat game is made by hand, or its launch is
stubbed): the token cookie (401, 403, the seat's author only), the CSRF check, the open
request (409), the legality check (400 with the rule), the daily quota and the cap on seat
games at once (429). test_play.py sends the same requests to a real server playing a game.
"""

from __future__ import annotations

import gc
import html
import json
import re
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from arena.league.accounts import Accounts
from arena.league.app import make_app
from arena.league.seats import SeatGame, SeatGames, SeatState, refusal
from arena.league.server import League
from tests.league.conftest import schema_checked
from tests.league.test_routes import new_league

pytestmark = pytest.mark.timeout(60)

CSRF = "c" * 43
REQUEST: dict[str, Any] = {
    "type": "request", "id": 7, "kind": "play", "deadline_ms": 600000,
    "may_call_tichu": False, "must_fulfil_wish": False,
    "observation": {"seat": 0, "hand": ["3j", "5p", "9s", "9t", "Mahjong"],
                    "table": {"seat": 1, "cards": ["8p", "8t"], "combination": "pair",
                              "phoenix_as": None}},
    "options": [{"action": "pass"},
                {"action": "play", "cards": ["9s", "9t"], "phoenix_as": None,
                 "combination": "pair"}],
    "events": [{"kind": "play", "seat": 1, "cards": ["8p", "8t"], "combination": "pair",
                "phoenix_as": None, "out_of_turn": False}]}
NINES = {"action": "play", "cards": ["9t", "9s"], "phoenix_as": None, "combination": None}


def token(league: League, author: str, organizer: bool = False) -> str:
    with Accounts(league.config.storage) as accounts:
        return accounts.invite(author, organizer)


def cookies(token: str | None = None, csrf: str | None = CSRF) -> dict[str, str]:
    parts = ([f"arena_token={token}"] if token else []) + \
        ([f"arena_csrf={csrf}"] if csrf else [])
    return {"Cookie": "; ".join(parts)} if parts else {}


@pytest.fixture
def seat(tmp_path: Path) -> Iterator[tuple[League, TestClient, SeatGame, socket.socket, str]]:
    """A league with alice's seat game 1 asked request 7; the bridge's end of its socket."""
    league = new_league(tmp_path)
    alice = token(league, "alice")
    game = SeatGame(1, "alice", "heuristic@x", "random@y", "ask", tmp_path / "1.sock", 600.0,
                    300.0)
    league.seats.games[1] = game
    bridge, server = socket.socketpair()
    game.connected(server)
    game.take({"type": "welcome", "seat": 0})
    game.take(REQUEST)
    with bridge, server:
        yield league, schema_checked(TestClient(make_app(league))), game, bridge, alice


def sent_line(bridge: socket.socket) -> dict[str, Any]:
    bridge.settimeout(5)
    line = b""
    while not line.endswith(b"\n"):
        line += bridge.recv(4096)
    data: dict[str, Any] = json.loads(line)
    return data


# ----- the legality check ------------------------------------------------------------------

def test_an_option_is_allowed_in_any_card_order_and_the_rest_refused_with_the_rule():
    assert refusal(REQUEST, NINES, False, None) is None  # control: an option, reordered
    assert refusal(REQUEST, {"action": "pass"}, False, None) is None
    rule = refusal(REQUEST, {"action": "play", "cards": ["3j"], "phoenix_as": None}, False,
                   None)
    assert rule is not None and rule.startswith("does-not-beat-table")
    rule = refusal(REQUEST, {"action": "play", "cards": ["Ap", "As"]}, False, None)
    assert rule is not None and rule.startswith("cards-not-in-hand")
    rule = refusal(REQUEST, NINES, True, None)
    assert rule is not None and rule.startswith("no-tichu-now")
    rule = refusal(REQUEST, NINES, False, "8")
    assert rule is not None and rule.startswith("wish-without-mahjong")
    assert refusal(REQUEST, "pass", False, None) is not None


def test_the_exchange_takes_three_different_cards_of_the_hand():
    exchange = {**REQUEST, "kind": "exchange", "options": None, "may_call_tichu": True}
    give = {"action": "exchange", "give": ["3j", "5p", "9s"]}
    assert refusal(exchange, give, True, None) is None  # control
    for wrong in (["3j", "3j", "5p"], ["3j", "5p"], ["3j", "5p", "Ap"], "3j 5p 9s"):
        assert refusal(exchange, {"action": "exchange", "give": wrong}, False, None) \
            .startswith("exchange-three-cards")


# ----- who may see and play the seat -------------------------------------------------------

@pytest.mark.parametrize("path, method", [("/play/1/events", "GET"),
                                          ("/play/1/answer", "POST"),
                                          ("/play/1/leave", "POST")])
def test_only_the_seats_author_reaches_its_stream_answers_and_leaving(seat, path, method):
    league, client, game, bridge, alice = seat
    body = {"request_id": 7, "action": NINES}
    for who, status in ((None, 401), ("bob", 403), ("olga", 403), ("forged", 403)):
        sent = None if who is None else "not-a-token" if who == "forged" else \
            token(league, who, organizer=who == "olga")
        response = client.request(method, path, json=body if method == "POST" else None,
                                  headers={**cookies(sent), "X-CSRF-Token": CSRF})
        assert response.status_code == status, (who, response.text)
        assert response.json()["status"] == status
        assert "9s" not in response.text and "Mahjong" not in response.text
    assert game.open_request is not None and game.leaving is None  # nothing reached it
    response = client.request(method, path, json=body if method == "POST" else None,
                              headers={**cookies(alice), "X-CSRF-Token": CSRF})
    assert response.status_code == 200, response.text  # control: its author


def test_the_stream_replays_every_message_from_the_first_or_after_last_event_id(seat):
    _, client, game, _, alice = seat
    text = client.get("/play/1/events", headers=cookies(alice)).text
    assert text.index("id: 0\nevent: message\n") < text.index("id: 1\nevent: message\n")
    assert '"type": "welcome"' in text and '"type": "request"' in text
    assert 'event: status\ndata: {"state": "playing"' in text
    again = client.get("/play/1/events", headers={**cookies(alice), "Last-Event-ID": "0"}).text
    assert "id: 0\n" not in again and "id: 1\nevent: message\n" in again
    assert game.pages == 0  # each stream counted while open, and no more


def test_an_answer_needs_the_csrf_token_of_its_cookie(seat):
    _, client, game, _, alice = seat
    body = {"request_id": 7, "action": NINES}
    for headers in ({}, {"X-CSRF-Token": "d" * 43}):
        response = client.post("/play/1/answer", json=body, headers={**cookies(alice),
                                                                    **headers})
        assert response.status_code == 403, response.text
    assert game.open_request is not None
    response = client.post("/play/1/answer", json={**body, "csrf": CSRF},
                           headers=cookies(alice))
    assert response.status_code == 200, response.text  # control: in the body


def test_an_answer_to_another_request_is_409_an_illegal_one_400_with_its_rule(seat):
    _, client, game, bridge, alice = seat
    headers = {**cookies(alice), "X-CSRF-Token": CSRF}
    response = client.post("/play/1/answer", json={"request_id": 6, "action": NINES},
                           headers=headers)
    assert response.status_code == 409 and "the open one is 7" in response.json()["error"]
    response = client.post("/play/1/answer", headers=headers, json={
        "request_id": 7, "action": {"action": "play", "cards": ["3j"], "phoenix_as": None}})
    assert response.status_code == 400
    assert response.json()["error"].startswith("that play is not allowed: does-not-beat-table")
    assert game.open_request is not None  # asked again
    response = client.post("/play/1/answer", json={"request_id": 7, "action": NINES},
                           headers=headers)
    assert response.json() == {"accepted": True}
    assert sent_line(bridge) == {"reply": {"action": NINES, "call_tichu": False, "wish": None}}
    response = client.post("/play/1/answer", json={"request_id": 7, "action": NINES},
                           headers=headers)
    assert response.status_code == 409  # answered once only


@pytest.mark.parametrize("form", ["urlencoded", "multipart"])
def test_leaving_tells_the_bridge(seat, form):
    _, client, game, bridge, alice = seat
    sent = {"data": {"csrf": CSRF}} if form == "urlencoded" else \
        {"files": {"csrf": (None, CSRF)}}  # the page's FormData
    response = client.post("/play/1/leave", headers=cookies(alice), **sent)
    assert response.json() == {"left": True}
    assert "leave" in sent_line(bridge)


def test_leaving_needs_the_csrf_token(seat):
    _, client, game, _, alice = seat
    response = client.post("/play/1/leave", data={"csrf": "d" * 43}, headers=cookies(alice))
    assert response.status_code == 403 and game.leaving is None


def test_a_seat_asked_with_no_page_open_too_long_is_left(seat):
    _, _, game, bridge, _ = seat
    game.watch()
    assert game.leaving is None  # control: within its time
    game.alone_since = game.asked_at = game.asked_at - game.reconnect_seconds
    game.watch()
    assert game.leaving is not None and "no page" in game.leaving
    assert "leave" in sent_line(bridge)


# ----- starting: the quota, the cap, the cookie --------------------------------------------

@pytest.fixture
def starting(tmp_path: Path, monkeypatch) -> tuple[League, TestClient, str, list[SeatGame]]:
    """A league whose seat games are recorded, but not played (their launch stubbed)."""
    launched: list[SeatGame] = []
    monkeypatch.setattr(SeatGames, "launch", lambda self, game: launched.append(game))
    league = new_league(tmp_path)
    client = TestClient(make_app(league), follow_redirects=False)
    return league, client, token(league, "alice"), launched


def start(client: TestClient, token: str | None, **fields: str) -> Any:
    form = {"csrf": CSRF, "opponent": "random", "partner": "heuristic",
            "bomb_windows": "never", **fields}
    if token:
        form["token"] = token
    return client.post("/play", data=form, headers=cookies())


def test_the_start_form_keeps_the_token_in_a_strict_httponly_cookie_never_a_url(starting):
    league, client, alice, launched = starting
    response = start(client, alice)
    assert response.status_code == 303, response.text
    assert response.headers["location"] == f"/play/{launched[0].practice}"
    assert alice not in response.headers["location"]
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"arena_token={alice};") and "HttpOnly" in cookie
    assert "SameSite=strict" in cookie and "Path=/play" in cookie
    assert launched[0].bomb_windows == "never" and launched[0].partner.startswith("heuristic@")
    response = client.post("/play", data={"csrf": CSRF, "opponent": "random",
                                          "partner": "heuristic"}, headers=cookies(alice))
    assert response.status_code == 303  # the cookie alone, the next time
    assert start(client, alice, csrf="e" * 43).status_code == 403  # a stale form
    assert start(client, None).status_code == 401


@pytest.mark.parametrize("fields, status", [
    ({"opponent": "nobody"}, 404), ({"partner": "random"}, 400),
    ({"partner": "", "own_partner": "bobs-bot"}, 404), ({"bomb_windows": "always"}, 400)])
def test_a_start_refused_records_nothing(starting, fields, status):
    league, client, alice, launched = starting
    response = start(client, alice, **fields)
    assert response.status_code == status and response.json()["status"] == status
    assert not launched


def test_the_seat_games_count_toward_the_daily_practice_quota(starting):
    league, client, alice, launched = starting
    per_day = league.config.practice_per_day
    for _ in range(per_day - 1):
        assert start(client, alice).status_code == 303
        launched[-1].state = SeatState.OVER  # over: out of the cap, still in the quota
    with Accounts(league.config.storage) as accounts:
        accounts.add_practice("alice", "heuristic@x", "random@y", per_day, 0.0)  # a bot's
    response = start(client, alice)
    assert response.status_code == 429 and "practice_per_day" in response.json()["error"]
    assert len(launched) == per_day - 1


def test_at_most_human_games_seat_games_at_once(starting):
    league, client, alice, launched = starting
    cap = league.config.human_games
    for _ in range(cap):
        assert start(client, token(league, "bob")).status_code == 303
    response = start(client, alice)
    assert response.status_code == 429 and "human_games" in response.json()["error"]
    launched[0].state = SeatState.LEFT  # one over: a place again
    assert start(client, alice).status_code == 303


def test_the_page_holds_the_seats_urls_and_no_card_of_the_game(seat):
    _, client, game, _, _ = seat
    response = client.get("/play/1")
    assert response.status_code == 200
    page = response.text
    for url in ("/play/1/events", "/play/1/answer", "/play/1/leave"):
        assert f'="{url}"' in page
    outside = page.split('<template id="card-faces">')[0]
    assert "data-card" not in outside and "9s" not in outside  # the open request's cards
    assert "arena_csrf=" in response.headers["set-cookie"]
    assert client.get("/play/2").status_code == 404


def test_a_seat_game_cut_by_a_stop_is_failed_at_the_next_start_not_played_again(tmp_path):
    league = new_league(tmp_path)
    with Accounts(league.config.storage) as accounts:
        seated = accounts.add_seat_game("alice", "heuristic@x", "random@y", 0, "ask", 5, 0.0)
        queued = accounts.add_practice("alice", "heuristic@x", "random@y", 5, 0.0)
    league.practice.start()
    league.practice.close()
    league.practice.thread.join(30)
    with Accounts(league.config.storage) as accounts:
        row = accounts.practice(seated)
        assert row is not None and row.status == "failed" and "stopped" in row.reason
        other = accounts.practice(queued)
        assert other is not None and other.status != "queued"  # control: a bot's is played


def test_a_rebuild_waits_for_the_seat_games_playing_its_build(starting):
    league, client, alice, launched = starting
    assert start(client, alice).status_code == 303
    assert launched[0].partner in league.seats.in_play()
    launched[0].state = SeatState.OVER
    assert league.seats.in_play() == set()


def test_a_seat_game_that_cannot_start_is_failed_and_holds_no_place(tmp_path: Path):
    """Its bridge's socket cannot be made (here: the sockets' folder is not there): the
    request gets a 500, the game is failed, and it holds no place of `human_games`."""
    league = new_league(tmp_path)
    assert not league.seats.folder.exists()  # made by `SeatGames.start`, not called here
    client = TestClient(make_app(league), follow_redirects=False, raise_server_exceptions=False)
    response = start(client, token(league, "alice"))
    assert response.status_code == 500, response.text
    (game,) = league.seats.games.values()
    assert game.finished and not league.seats.in_play()
    with Accounts(league.config.storage) as accounts:
        row = accounts.practice(game.practice)
        assert row is not None and row.status == "failed" and "could not start" in row.reason
    gc.collect()  # a socket left open would warn here (an error in this suite), not later


def form_defaults(page: str, form_id: str) -> dict[str, str]:
    """The fields a form sends as the page gives it: each select's selected (or first) option,
    each hidden or text input's value."""
    form = re.search(rf'<form[^>]*id="{form_id}".*?</form>', page, re.S)
    assert form is not None, page
    fields = {m[1]: html.unescape(m[2] or "") for m in re.finditer(
        r'<input type="(?:hidden|text)" name="([^"]+)"(?: value="([^"]*)")?', form[0])}
    for name, options in re.findall(r'<select name="([^"]+)">(.*?)</select>', form[0], re.S):
        chosen = re.search(r'<option value="([^"]*)" selected>', options) or \
            re.search(r'<option value="([^"]*)"', options)
        assert chosen is not None, options
        fields[name] = html.unescape(chosen[1])
    return fields


@pytest.mark.parametrize("bot", ["heuristic", "random"])
def test_a_bots_play_form_as_it_comes_starts_a_game(starting, bot):
    """The form's defaults never partner the page's bot against itself (a 400)."""
    league, client, alice, launched = starting
    page = client.get(f"/bots/{bot}", headers=cookies()).text
    fields = {**form_defaults(page, "play-form"), "csrf": CSRF, "token": alice}
    assert fields["opponent"] == bot and fields["partner"] != bot, fields
    response = client.post("/play", data=fields, headers=cookies())
    assert response.status_code == 303, response.text
    assert launched[-1].opponent.startswith(f"{bot}@")
