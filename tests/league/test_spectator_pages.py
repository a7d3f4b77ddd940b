"""What a spectator sees, fast (no server process, no browser): the views of the games and
live lists, a game's end and a replay's fault; the live stream's end played from the stored
game; and, through Starlette's TestClient over `make_app`, a finished game's live link (a
redirect), the replay page's title and last event, and the guard on a failed bot's output
(the replay's form: CSRF, then its author's or the organizer's token). The same pages in
Chromium against a real server: test_spectators."""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import gzip
import html
import json
import re
from collections.abc import AsyncGenerator, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from starlette.testclient import TestClient

from arena.league.app import make_app
from arena.league.server import League
from arena.league.web import events as streams
from arena.presentation import league_views as views
from arena.presentation.bench import play_record
from arena.presentation.failures import SeatFailure, reproduce_command
from arena.presentation.views import GameListRow
from arena.referee.record import Fault, GameRecord, Termination
from arena.rules import PUBLIC
from arena.tournament.records import write_record
from arena.tournament.schedule import round_robin
from arena.tournament.store import EntrantRow, GameRow, Store
from tests.league.test_routes import (
    bot_archive,
    csrf_of,
    invite,
    json_error,
    new_league,
    post_upload,
    store_game,
    token_in,
)

pytestmark = pytest.mark.timeout(60)

NOW = datetime(2026, 12, 4, 14, 30, 0, tzinfo=UTC)
MARK = "ann-traceback-51c2"
"""The crashed bot's stderr: its author's and the organizer's to see, no one else's."""
HOSTILE = "<img src=x onerror=window.__pwned=1>"


# ----- the views ----------------------------------------------------------------------------

def test_a_short_time_is_minutes_ago_within_the_hour_then_a_clock_time():
    assert views.short_time("2026-12-04T14:29:40+0000", NOW) == "just now"
    assert views.short_time("2026-12-04T14:27:00+0000", NOW) == "3 min ago"
    assert views.short_time("2026-12-04T11:02:00+0000", NOW) == "11:02"
    assert views.short_time("2026-12-03T11:02:00+0000", NOW) == "Dec 3 11:02"
    assert views.short_time("yesterday", NOW) == "yesterday"  # not a stamp: as it is


def test_a_title_names_both_teams_and_the_game():
    assert views.game_title(("a 1.0 1234abcd", "b 2.0 5678abcd"), "3.1") == \
        "a 1.0 1234abcd vs b 2.0 5678abcd, game 3.1"
    assert views.score_text((450, -50)) == "450 – -50"


def row(**changes: Any) -> GameListRow:
    base = GameListRow("a@1~b@2#3.1", "/games/a%401~b%402%233.1", 3, 1,
                       ("a 1.0 11111111", "b 2.0 22222222"), (450, 550), "b", 4, "normal",
                       "", 12.5, "2026-12-04T14:27:00+0000")
    return dataclasses.replace(base, **changes)


def test_the_games_list_names_the_teams_with_a_one_line_score_and_a_short_time():
    listing = views.games_list([row(), row(termination="crash", winner="a",
                                           fault="seat 1: the bot process exited")], NOW)
    assert listing.count("<tr>") == 3  # its header and two games
    assert ('a 1.0 11111111 <span class="vs">vs</span> b 2.0 22222222</a>'
            '<span class="place">game 3.1, 4 rounds</span>') in listing
    assert '<span class="score">450 – 550</span>' in listing
    assert ">b wins<" in listing and ">a wins: crash by seat 1: the bot process exited<" in \
        listing
    assert '<time datetime="2026-12-04T14:27:00+0000" title="2026-12-04T14:27:00+0000">3 min ' \
           "ago</time>" in listing
    assert "#3.1" not in re.sub(r'(href|title)="[^"]*"', "", listing)  # no bare "#3.1"


def test_the_views_escape_what_bots_name():
    listing = views.games_list([row(teams=(HOSTILE, "b"), winner=HOSTILE)], NOW)
    over = views.live_over((HOSTILE, "b"), (0, 100), 0, [], "/games/x")
    live = views.live_list_page([views.LiveRow("x", "/live/x", (HOSTILE, "b"), "0.0", 1,
                                               (0, 0))])
    for text in (listing, over, live):
        assert HOSTILE not in text and html.escape(HOSTILE) in text


def failure(output: str = f"Traceback\n{MARK}") -> SeatFailure:
    return SeatFailure("g", 1, "crash", "the bot process exited with code 1", 2, 44, output,
                       "b@2")


def test_a_game_over_says_the_final_score_the_winner_or_the_fault_and_links_the_replay():
    over = views.live_over(("a 1.0", "b 2.0"), (450, 550), 1, [], "/games/a%23b")
    assert html.unescape(re.sub("<[^>]+>", "", over)) == (
        "The game is over: a 1.0 450 – 550 b 2.0; b 2.0 wins. Open the replay, with every "
        "hand.")
    assert 'id="live-replay" href="/games/a%23b"' in over and "\n" not in over
    faulted = views.live_over(("a", "b"), (0, 0), 0, [failure()], "/games/x")
    assert "Seat 1 (b) forfeited: crash in round 2, decision 44." in faulted
    assert MARK not in faulted and "exited" not in faulted  # public facts only


def test_a_fault_event_shows_its_output_only_where_the_viewer_may_see_it():
    public = views.fault_event([failure()], [False], ["a 1.0", "b 2.0"], "c5rf", "/games/g")
    assert "Seat 1 (b 2.0) forfeits: crash in round 2, decision 44." in public
    assert MARK not in public and "exited" not in public
    assert 'id="output-form"' in public and 'value="c5rf"' in public
    author = views.fault_event([failure(f"{HOSTILE}\n{MARK}")], [True], ["a", "b"], "c",
                               "/games/g", ["arena reproduce g --seat 1 my-bot"])
    assert MARK in author and "exited with code 1" in author and "output-form" not in author
    assert HOSTILE not in author and html.escape(HOSTILE) in author
    assert "<code>arena reproduce g --seat 1 my-bot</code>" in author
    assert views.fault_event([], [], ["a", "b"], "c", "/games/g") == ""


# ----- the stream's end ---------------------------------------------------------------------

def public_events(target: int = 200) -> tuple[GameRecord, list[dict[str, Any]]]:
    """A finished engine game's record and its public events."""
    game = round_robin(["a@1", "b@2"], 1, 1)[0]
    record = play_record(game.game_id, game.seed, game.teams, set(), target=target)
    return record, [e for e in record.events if e["visible_to"] == PUBLIC]


def test_the_last_steps_are_each_trick_round_and_game_end_after_what_was_shown():
    _, events = public_events()
    steps = streams.last_steps(events, 0)
    kinds = {events[k]["kind"] for k in steps}
    assert kinds <= {"trick", "dog", "round_end", "game_end"} and steps[-1] == len(events) - 1
    assert len(steps) == min(streams.LAST_STEPS, len(
        [e for e in events if e["kind"] in kinds]))
    shown = len(events) - 3
    assert all(k >= shown for k in streams.last_steps(events, shown))
    assert streams.last_steps(events, len(events)) == []
    cut = events[:40]  # a game stopped mid-trick (a fault): its last event is drawn too
    assert streams.last_steps(cut, 30)[-1] == 39


def ticks(gen: AsyncGenerator[str, None]) -> list[str]:
    async def drain() -> list[str]:
        return [t async for t in gen]
    return asyncio.run(drain())


def test_a_stream_plays_the_stored_end_then_says_the_score_and_winner(monkeypatch):
    game, events = public_events()
    stored = type("Stored", (), {"game_id": game.game_id, "scores": game.scores,
                                 "winner": game.winner})()  # what over_ticks reads of it
    calls = []

    def finished() -> Any:  # stored at the third look
        calls.append(1)
        return (stored, events, []) if len(calls) >= 3 else None

    got = ticks(streams.over_ticks(finished, len(events) - 8, ["A", "B", "A", "B"], "/g/x"))
    assert got[:2] == ["", ""]  # waited for the store
    tables = [t for t in got if t.startswith("event: table\n")]
    assert tables and len(tables) == len(streams.last_steps(events, len(events) - 8))
    final = f"{game.scores[0]} : {game.scores[1]}"
    assert f'data-slot="scores">{final}</b>' in tables[-1]
    assert f"The game is over: {final}; {'AB'[game.winner]} wins." in tables[-1]
    assert any(re.search(r"Round \d+ ends: the score is -?\d+ : -?\d+\.", t) for t in tables)
    assert got[-1].startswith("event: end\ndata: ") and got[-1].endswith("\n\n")
    assert f"{game.scores[0]} – {game.scores[1]}" in got[-1]
    assert f"{'AB'[game.winner]} wins." in got[-1] and 'href="/g/x"' in got[-1]
    assert all(t.count("\n") == 3 for t in tables)  # each one data line


def test_a_stream_whose_game_is_never_stored_ends_anyway():
    assert ticks(streams.over_ticks(lambda: None, 0, ["A"] * 4, "/g/x", 0.0)) == [
        "event: end\ndata: over\n\n"]


# ----- the pages: TestClient over make_app --------------------------------------------------

def store_crash(storage: Path, teams: list[str], message: str) -> tuple[str, int]:
    """A game that teams[1]'s bot lost by a crash in round 2, stored; its id and the seat
    that crashed."""
    game = round_robin(teams, 1, 1)[0]
    seat = game.teams.index(teams[1])
    record = play_record(game.game_id, game.seed, game.teams, set(), target=500)
    output = ["", "", "", ""]
    output[seat] = f"Traceback (most recent call last):\n{MARK}"
    record = dataclasses.replace(
        record, events=record.events[:60], termination=Termination.CRASH,
        fault=Fault(Termination.CRASH, seat, message, 2, 44, {"exit_code": 1}),
        bot_output=output, winner=1 - seat)
    relative = f"{storage.name}.records/{game.record_name}.json.gz"
    write_record(record, storage.parent / relative)
    with Store(storage) as store:
        known = {e.key for e in store.entrants()}
        for key in set(teams) - known:
            name, _, version = key.partition("@")
            store.register_entrant(EntrantRow(key, name, version, "1", "python",
                                              f"uploads/{name}", "submit", False))
        assert store.add_game(GameRow.from_record(game, record, relative))
    return game.game_id, seat


@dataclasses.dataclass
class Served:
    league: League
    client: TestClient
    crashed: str
    seat: int
    """The seat whose bot (ann's) crashed."""
    normal: str
    tokens: dict[str, str]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """ann's bot (received) lost a stored game by a crash; a normal game stored too."""
    folder = tmp_path_factory.mktemp("spectator-pages")
    league = new_league(folder)
    tokens = {who: token_in(invite(league, who, who == "olga")) for who in ("ann", "bob",
                                                                           "olga")}
    house = sorted(league.entrants)
    with TestClient(make_app(league), raise_server_exceptions=False) as client:
        sent = post_upload(client, {"Authorization": f"Bearer {tokens['ann']}"}, "ann-bot",
                           bot_archive(folder, "ann-bot"))
        assert sent.status_code == 202, sent.text
        crashed, seat = store_crash(league.config.storage,
                                    [house[0], "ann-bot@0123456789abcdef"],
                                    f"the bot process exited with code 1 in {folder}/intake")
        normal = store_game(league.config.storage, house)
        yield Served(league, client, crashed, seat, normal, tokens)


def test_a_finished_games_live_link_redirects_to_its_replay(served: Served):
    answer = served.client.get(f"/live/{quote(served.normal, safe='')}",
                               follow_redirects=False)
    assert answer.status_code == 303
    assert answer.headers["location"] == f"/games/{quote(served.normal, safe='')}"


def test_an_unknown_games_live_link_is_a_404_page_with_a_real_link(served: Served):
    answer = served.client.get(f"/live/{quote('x@1~y@2#3.1', safe='')}")
    assert answer.status_code == 404 and answer.headers["content-type"].startswith("text/html")
    assert '<a id="replay-link" href="/games/x%401~y%402%233.1">' in answer.text
    assert "/games/x@1~y@2#3.1" not in answer.text  # no unlinked path with a bare "#"


def test_a_replay_page_is_titled_with_its_teams_and_ends_with_its_fault(served: Served):
    page = served.client.get(f"/games/{quote(served.crashed, safe='')}").text
    title = re.search(r"<title>(.*?)</title>", page)
    assert title and re.fullmatch(r"(ann-bot 1 01234567|heuristic \S+ [0-9a-f]{8}) vs "
                                  r"(ann-bot 1 01234567|heuristic \S+ [0-9a-f]{8}), game 0\.0",
                                  html.unescape(title.group(1))), title
    assert "ann-bot 1 01234567" in title.group(1)
    assert f'data-fixed="">{title.group(1)}</h1>' in page and 'data-start="dealt"' in page
    assert (f"Seat {served.seat} (ann-bot 1 01234567) forfeits: crash in round 2, "
            "decision 44.") in page


def replay_data(client: TestClient, game_id: str) -> dict[str, Any]:
    script = client.get(f"/replays/{quote(game_id, safe='')}.js").text
    packed = re.fullmatch(r'tichuReplay\.add\("[^"]*", "([^"]*)"\);\n', script)
    assert packed, script[:200]
    return dict(json.loads(gzip.decompress(base64.b64decode(packed.group(1)))))


def test_the_replay_data_has_the_faults_public_facts_and_no_server_path(served: Served):
    data = replay_data(served.client, served.crashed)
    assert data["failures"] == [{"seat": served.seat, "kind": "crash", "round": 2,
                                 "decision": 44}]
    folder = str(served.league.config.storage.parent)
    record = served.client.get(f"/api/games/{quote(served.crashed, safe='')}",
                               headers={"Authorization": f"Bearer {served.tokens['olga']}"})
    assert MARK in record.text  # (control: the record holds the output and the path)
    assert folder not in json.dumps(data) and "<league>/intake" in data["fault"]["message"]
    assert MARK not in json.dumps(data)


def signed(served: Served, token: str | None, csrf: str | None = None) -> Any:
    path = f"/games/{quote(served.crashed, safe='')}"
    fields = {"csrf": csrf if csrf is not None else csrf_of(served.client, path)}
    if token is not None:
        fields["token"] = token
    return served.client.post(path, data=fields, follow_redirects=False)


def test_a_failed_bots_output_is_shown_to_its_author_and_the_organizer_only(served: Served):
    """The attack: read ann's stderr from the public page, or as another author (bob). The
    control: ann and the organizer, through the same form, do see it."""
    public = served.client.get(f"/games/{quote(served.crashed, safe='')}").text
    assert MARK not in public and 'id="output-form"' in public
    bob = signed(served, served.tokens["bob"])
    assert bob.status_code == 200 and MARK not in bob.text
    assert "arena reproduce" not in public and "arena reproduce" not in bob.text
    for who in ("ann", "olga"):
        shown = signed(served, served.tokens[who])
        assert shown.status_code == 200 and MARK in shown.text, who
        command = reproduce_command(served.crashed, served.seat, "http://testserver")
        assert f"<code>{html.escape(command)}</code>" in shown.text, who
        assert 'id="output-form"' not in shown.text
        assert str(served.league.config.storage.parent) not in shown.text


def test_the_replays_output_form_refuses_a_stale_form_and_a_bad_token(served: Served):
    ann = served.tokens["ann"]
    json_error(signed(served, ann, "stale"), 403)
    json_error(signed(served, None), 401)
    json_error(signed(served, "not-a-token"), 403)
    csrf = csrf_of(served.client, "/games/" + quote(served.crashed, safe=""))
    json_error(served.client.post("/games/nothing-such", data={"csrf": csrf, "token": ann}),
               404)
