"""A person at a seat in the browser, end to end against a real server: a Python client in
the page's place starts a game from a bot's form, reads the seat's event stream and answers
each request with its first legal option, to the end of a game (to 100 here); then leaves
another, comes back to one after closing its stream, and meets the guards (the token, the
cap on seat games at once, the daily quota). Every byte the seat's stream sent is kept, and
no card of another seat's hand is in it before that card was played: the check, run on the
whole record (every seat's deal), finds them (its control).
"""

from __future__ import annotations

import http.client
import json
import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from arena.rules.cards import RANK_CHARS, SUIT_LETTERS
from tests.league.conftest import WAIT, League, check_answer, served, wait_for

pytestmark = pytest.mark.timeout(900)

CARDS = frozenset([r + s for r in RANK_CHARS[:13] for s in SUIT_LETTERS] +
                  ["Mahjong", "Dog", "Phoenix", "Dragon"])
EXTRA = """practice_per_day = 4
human_games = 1
human_reconnect_seconds = 300
"""


def cards_in(value: Any) -> list[str]:
    """Every card name anywhere in a JSON value."""
    if isinstance(value, str):
        return [value] if value in CARDS else []
    if isinstance(value, dict):
        return [c for v in value.values() for c in cards_in(v)]
    if isinstance(value, list):
        return [c for v in value for c in cards_in(v)]
    return []


def hidden_cards_seen(messages: list[dict[str, Any]], seat: int) -> list[str]:
    """The cards in `messages` (what `seat` was sent, in order) that `seat` could not see
    when they came: neither dealt to it, nor given or received by it, nor played by then
    (what it may see starts again at each round)."""
    visible: set[str] = set()
    seen: list[str] = []
    for message in messages:
        for event in message.get("events") or ():
            if event["kind"] == "round_start":
                visible = set()
            elif event["kind"] == "deal" and event["seat"] == seat:
                visible |= set(event["cards"])
            elif event["kind"] == "exchange" and event["seat"] == seat:
                visible |= set(event["given"]) | set(event["received"])
            elif event["kind"] == "play":
                visible |= set(event["cards"])
            seen += [c for c in cards_in(event) if c not in visible]
        rest = {k: v for k, v in message.items() if k != "events"}
        seen += [c for c in cards_in(rest) if c not in visible]
    return seen


@dataclass
class Person:
    """The page's part: its cookies, its stream, its answers."""

    league: League
    token: str
    csrf: str = ""
    raw: bytearray = field(default_factory=bytearray)
    latencies: list[float] = field(default_factory=list)

    def connection(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.league.port, timeout=WAIT)

    def cookie(self, token: str | None = "") -> str:
        token = self.token if token == "" else token
        return f"arena_csrf={self.csrf}" + (f"; arena_token={token}" if token else "")

    def start(self, opponent: str = "random", partner: str = "heuristic",
              bomb_windows: str = "ask") -> tuple[int, Any]:
        """POST /play from the opponent's page: (status, the game's id or the error)."""
        conn = self.connection()
        conn.request("GET", f"/bots/{opponent}")
        page = conn.getresponse()
        self.csrf = page.headers["set-cookie"].split(";")[0].partition("=")[2]
        self.raw += page.read()
        body = urllib.parse.urlencode({"csrf": self.csrf, "token": self.token,
                                       "opponent": opponent, "partner": partner,
                                       "bomb_windows": bomb_windows})
        conn.request("POST", "/play", body, {
            "Cookie": self.cookie(None), "Content-Type": "application/x-www-form-urlencoded"})
        response = conn.getresponse()
        data = response.read()
        conn.close()
        if response.status != 303:
            return response.status, json.loads(data)
        assert self.token in response.headers["set-cookie"]
        return 303, int(response.headers["location"].rsplit("/", 1)[1])

    def post(self, path: str, body: dict[str, Any], token: str | None = "",
             csrf: str | None = None) -> tuple[int, Any]:
        """POST `body` as JSON with the cookies, and the CSRF header (`csrf`: another)."""
        conn = self.connection()
        conn.request("POST", path, json.dumps(body), {
            "Cookie": self.cookie(token), "Content-Type": "application/json",
            "X-CSRF-Token": self.csrf if csrf is None else csrf})
        response = conn.getresponse()
        data = response.read()
        conn.close()
        check_answer(path, "POST", response.status, data,
                     response.headers["content-type"])
        return response.status, json.loads(data)

    def events(self, practice: int, last: int | None = None, token: str | None = ""
               ) -> Iterator[tuple[str, dict[str, Any]]]:
        """The seat's events (type, data) as they come, every byte kept in `raw`."""
        conn = self.connection()
        headers = {"Cookie": self.cookie(token)}
        if last is not None:
            headers["Last-Event-ID"] = str(last)
        conn.request("GET", f"/play/{practice}/events", headers=headers)
        response = conn.getresponse()
        if response.status != 200:
            refused = {"status": response.status, **json.loads(response.read())}
            conn.close()
            yield "refused", refused
            return
        kind, data = "", ""
        try:
            while line := response.readline():
                self.raw += line
                text = line.decode().rstrip("\n")
                if text.startswith("event: "):
                    kind = text[7:]
                elif text.startswith("data: "):
                    data = text[6:]
                elif not text and kind:
                    yield kind, json.loads(data)
                    kind = ""
        finally:
            conn.close()

    def play(self, practice: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Play the game to its end, each request's first legal option: the messages the
        seat was sent, and the last status."""
        messages: list[dict[str, Any]] = []
        answered = 0.0
        for kind, data in self.events(practice):
            if kind == "status" and data["state"] in ("over", "left", "failed"):
                return messages, data
            if kind != "message":
                continue
            messages.append(data)
            if data["type"] == "request":
                if answered:
                    self.latencies.append(time.monotonic() - answered)
                status, said = self.post(f"/play/{practice}/answer",
                                         {"request_id": data["id"], "action": first(data)})
                assert status == 200, said
                answered = time.monotonic()
        raise AssertionError("the stream ended before the game")


def first(request: dict[str, Any]) -> dict[str, Any]:
    if request["kind"] == "exchange":
        return {"action": "exchange", "give": request["observation"]["hand"][:3]}
    option: dict[str, Any] = request["options"][0]
    return option


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Iterator[League]:
    with served(tmp_path_factory.mktemp("play"), EXTRA) as shared:
        yield shared


@pytest.fixture(scope="module")
def alice(league: League) -> Person:
    return Person(league, league.invite("alice"))


def test_a_person_plays_a_whole_game_which_is_kept_replayable_and_shows_no_hidden_card(
        league: League, alice: Person, tmp_path: Path):
    status, practice = alice.start()
    assert status == 303, practice
    messages, last = alice.play(practice)
    assert last["state"] == "over", last
    assert last["replay"] == f"/practice/{practice}/replay"
    kinds = [m["type"] for m in messages]
    assert kinds[0] == "welcome" and kinds[-1] == "end" and messages[-1]["reason"] == "game_over"
    raw = bytes(alice.raw)
    assert raw.index(b'"type": "end"') < raw.index(b'"state": "over"')
    found = league.get(f"/api/practice/{practice}", alice.token)
    assert found["status"] == "done"
    record = found["game"]["record"]
    assert record["guest"]["seat"] == 0 and record["guest"]["name"] == "alice"
    assert record["termination"] == "normal" and max(record["scores"]) >= 100
    assert [e["name"] for e in record["entrants"]] == ["heuristic", "random"]
    for path in (f"/practice/{practice}/replay", f"/practice/{practice}/replay.js"):
        assert league.get(path)
    # no hidden card in any byte the seat was sent; the check finds them in the record
    stream = [json.loads(line[6:]) for line in raw.split(b"\n")
              if line.startswith(b"data: {\"type\"")]
    assert stream == messages and hidden_cards_seen(stream, 0) == []
    assert len(hidden_cards_seen([{"events": record["events"]}], 0)) > 100  # control
    dealt = [e for e in record["events"] if e["kind"] == "deal" and e["seat"] != 0]
    assert dealt and hidden_cards_seen(stream[:1] + [{"events": dealt[:1]}], 0)  # control
    latency = sorted(alice.latencies)
    print(f"answer to next request: median {latency[len(latency) // 2] * 1000:.0f} ms, "
          f"max {latency[-1] * 1000:.0f} ms over {len(latency)} requests")


def test_a_partner_after_the_opponent_in_key_order_plays_too(league: League):
    """The person's team is the second of its matchup (random sorts after heuristic), so the
    game is the second of its pair: its bots start in that order (the first seat game of a
    trial league failed: 'not between this match's entrants')."""
    carol = Person(league, league.invite("carol"))
    status, practice = carol.start(opponent="heuristic", partner="random")
    assert status == 303, practice
    messages, last = carol.play(practice)
    assert last["state"] == "over", last
    record = league.get(f"/api/practice/{practice}", carol.token)["game"]["record"]
    assert record["termination"] == "normal" and record["guest"]["seat"] == 0
    assert record["game_id"].endswith(".1"), record["game_id"]  # the pair's second game
    assert [e["name"] for e in record["entrants"]] == ["random", "heuristic"]


def test_only_the_seats_author_reaches_it_and_one_seat_game_at_once(league: League,
                                                                    alice: Person):
    status, practice = alice.start(bomb_windows="never")
    assert status == 303, practice
    bob = Person(league, league.invite("bob"))
    status, said = bob.start()  # human_games = 1: the cap, whoever asks
    assert status == 429 and "human_games" in said["error"], said
    bob.csrf = alice.csrf
    for token, code in ((None, 401), (bob.token, 403)):
        kind, data = next(alice.events(practice, token=token))
        assert (kind, data["status"]) == ("refused", code)
        for path in ("answer", "leave"):
            status, said = alice.post(f"/play/{practice}/{path}",
                                      {"request_id": 0, "action": {}}, token)
            assert status == code, said
    # a closed page comes back: the stream starts again at the first message
    stream = alice.events(practice)
    welcome = next(data for kind, data in stream if kind == "message")
    stream.close()
    again = alice.events(practice)
    assert next(d for k, d in again if k == "message") == welcome
    assert welcome["type"] == "welcome"
    request = next(data for kind, data in again if kind == "message"
                   and data["type"] == "request")
    again.close()
    status, said = alice.post(f"/play/{practice}/answer",
                              {"request_id": request["id"], "action": {"action": "tichu"}})
    assert status == 400 and said["error"].startswith("that play is not allowed: "), said
    status, said = alice.post(f"/play/{practice}/answer", {
        "request_id": request["id"], "action": request["options"][0]}, csrf="forged" * 7)
    assert status == 403, said  # another site's post: refused, the request still open
    status, said = alice.post(f"/play/{practice}/answer",
                              {"request_id": request["id"] + 1, "action": {}})
    assert status == 409 and f"the open one is {request['id']}" in said["error"], said
    status, said = alice.post(f"/play/{practice}/leave", {})
    assert (status, said) == (200, {"left": True})
    last = [data for kind, data in alice.events(practice, last=0) if kind == "status"][-1]
    assert last["state"] == "left" and "chose to leave" in last["text"], last
    record = league.get(f"/api/practice/{practice}", alice.token)["game"]["record"]
    assert record["termination"] == "left" and record["fault"]["seat"] == 0
    assert "left the game" in record["fault"]["message"]
    assert record["winner"] == 1


def test_seat_games_count_toward_the_daily_practice_quota(league: League, alice: Person):
    status, practice = alice.start()  # alice's third today: one left
    assert status == 303, practice
    assert alice.post(f"/play/{practice}/leave", {})[0] == 200
    wait_for("the game left", lambda: [d for k, d in alice.events(practice, last=10 ** 6)
                                       if k == "status"][-1]["state"] == "left")
    status, practice = alice.start()
    assert status == 303, practice
    assert alice.post(f"/play/{practice}/leave", {})[0] == 200
    wait_for("the game left", lambda: [d for k, d in alice.events(practice, last=10 ** 6)
                                       if k == "status"][-1]["state"] == "left")
    status, said = alice.start()
    assert status == 429 and "practice_per_day" in said["error"], said


def test_a_seat_asked_with_no_page_open_is_left(tmp_path: Path):
    """A person who never opens the game's page (or closed it) is taken to have left once
    `human_reconnect_seconds` passed while asked: the game ends as left."""
    with served(tmp_path, EXTRA.replace("human_reconnect_seconds = 300",
                                        "human_reconnect_seconds = 1")) as league:
        carol = Person(league, league.invite("carol"))
        status, practice = carol.start()
        assert status == 303, practice
        found = wait_for("the game left", lambda: (data := league.get(
            f"/api/practice/{practice}", carol.token))["status"] == "done" and data)
        record = found["game"]["record"]
        assert record["termination"] == "left" and record["fault"]["seat"] == 0
        last = [d for k, d in carol.events(practice) if k == "status"][-1]
        assert last["state"] == "left" and "no page" in last["text"], last
