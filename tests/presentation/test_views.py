"""The shared views (`views`, `table_view`) as plain functions: cards, the public table of a
game in progress, the leaderboard, every bot-controlled string escaped."""

from __future__ import annotations

import re

import pytest

from arena.presentation.bench import play_record
from arena.presentation.replay import build_replay
from arena.presentation.table_view import (
    ALL_CARDS,
    card_html,
    public_table,
    table_html,
    viewer_templates,
)
from arena.presentation.views import (
    LeaderboardRow,
    leaderboard,
    live_fragment,
    live_game,
    page,
    replay_viewer,
)
from arena.referee.record import GameRecord
from tests.presentation.payloads import IMG, SCRIPT

LABELS = ["north-south", "east-west", "north-south", "east-west"]


def shown_cards(html: str) -> list[str]:
    return re.findall(r'data-card="([^"]+)"', html)


def test_the_deck_is_56_cards_sorted_as_a_hand():
    assert len(ALL_CARDS) == len(set(ALL_CARDS)) == 56
    assert ALL_CARDS[:3] == ("Dog", "Mahjong", "2j") and ALL_CARDS[-2:] == ("Phoenix", "Dragon")
    assert shown_cards(viewer_templates()).count("Ap") == 1


@pytest.mark.parametrize(("card", "css", "label"), [
    ("7j", "suit-j", "7 of Jade"), ("Ts", "suit-s", "10 of Sword"),
    ("Qp", "suit-p", "Q of Pagoda"), ("At", "suit-t", "A of Star"),
    ("Mahjong", "sp-mahjong", "Mah Jong"), ("Dog", "sp-dog", "Dog"),
    ("Phoenix", "sp-phoenix", "Phoenix"), ("Dragon", "sp-dragon", "Dragon")])
def test_a_card_carries_its_suit_or_special_face_and_its_name(card, css, label):
    html = card_html(card)
    assert f'class="card {css}"' in html or f'class="card special {css}"' in html
    assert f'aria-label="{label}"' in html and f'data-card="{card}"' in html
    symbol = css.replace("suit-", "#suit-") if css.startswith("suit") else f"#{css}"
    assert f'href="{symbol}"' in html


def test_an_unknown_card_shows_as_escaped_text():
    html = card_html(IMG)
    assert "<img" not in html and "&lt;img" in html


def every_prefix(record: GameRecord, step: int = 7):
    for k in range(0, len(record.events) + 1, step):
        yield record.events[:k]


def test_the_public_table_shows_no_hand_only_the_trick_and_counts():
    record = play_record("public", 11, ["a@1", "b@1"], set(), target=300)
    for events in every_prefix(record):
        state = public_table(events, LABELS)
        assert all(seat.hand is None for seat in state.seats)
        html = table_html(state)
        played = [c for play in state.trick for c in play.cards]
        assert sorted(shown_cards(html)) == sorted(played)  # no card but the trick's
        assert html.count('class="card back"') == sum(s.cards_left for s in state.seats)


def test_the_public_table_counts_cards_and_points_as_the_full_replay_does():
    """Cross-checked with `replay.build_replay` (every hand, a fold of its own)."""
    record = play_record("counts", 5, ["a@1", "b@1"], set(), target=300)
    replay = build_replay(GameRecord.from_json(record.to_json()))
    starts = [k for k, e in enumerate(record.events) if e["kind"] == "round_start"]
    ends = starts[1:] + [len(record.events)]
    for round_, start, end in zip(replay.rounds, starts, ends, strict=True):
        first_play = next(k for k in range(start, end) if record.events[k]["kind"] == "play")
        before = public_table(record.events[:first_play], LABELS)
        assert [s.cards_left for s in before.seats] == [
            len(round_.hand_after_exchange(s) or ()) for s in range(4)]
        last = end - 1 if record.events[end - 1]["kind"] != "game_end" else end - 2
        after = public_table(record.events[:last], LABELS)  # before the round's end
        taken = [0] * 4
        for trick in round_.tricks:
            if trick.taker is not None:
                taken[trick.taker] += trick.points
        assert [s.points for s in after.seats] == taken
        played = [0] * 4
        for trick in round_.tricks:
            for step in trick.steps:
                played[step.seat] += len(step.cards)
        assert [s.cards_left for s in after.seats] == [14 - n for n in played]


def test_the_public_table_reads_no_private_event():
    record = play_record("private", 3, ["a@1", "b@1"], set(), target=300)
    public = [e for e in record.events if e["visible_to"] == -1]
    assert table_html(public_table(record.events, LABELS)) == table_html(
        public_table(public, LABELS))


def test_the_calls_the_wish_and_the_places_show():
    events = [{"kind": "round_start", "round": 2, "scores": [100, 50], "visible_to": -1},
              *({"kind": "grand_tichu", "seat": s, "call": s == 1, "visible_to": -1}
                for s in range(4)),
              {"kind": "tichu", "seat": 2, "visible_to": -1},
              {"kind": "play", "seat": 0, "cards": ["Mahjong"], "combination": "single",
               "phoenix_as": None, "out_of_turn": False, "visible_to": -1},
              {"kind": "wish", "seat": 0, "rank": "9", "visible_to": -1}]
    state = public_table(events, LABELS)
    assert (state.round, state.trick_number, state.scores, state.wish) == (2, 1, (100, 50), "9")
    assert [s.cards_left for s in state.seats] == [13, 14, 14, 14]
    assert state.seats[1].grand_tichu and state.seats[2].tichu and not state.seats[0].tichu
    html = table_html(state)
    assert 'data-slot="wish">wish: <b data-slot="wish-rank">9</b>' in html
    assert re.search(r'id="seat-1".*?data-slot="grand">Grand Tichu', html)


def test_every_view_escapes_what_bots_and_authors_wrote():
    row = LeaderboardRow(1, False, SCRIPT, IMG, IMG, 10.0, "10.0", 5.0, "5.0", 2, 1, .5, 3.0,
                         0, author=SCRIPT, order=IMG)
    labels = [IMG, SCRIPT, IMG, SCRIPT]
    record = play_record("hostile", 2, ["a@1", "b@1"], set(), target=300)
    views = [leaderboard([row], extras=("author", "order")),
             live_fragment(record.events[:40], labels),
             live_game(SCRIPT, public_table(record.events[:40], labels), IMG, IMG),
             replay_viewer(IMG, SCRIPT, IMG),
             page(SCRIPT, "", assets=IMG, nav=[(IMG, SCRIPT)])]
    for html in views:
        assert "<img" not in html and "<script>window" not in html
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in views[0]


def test_the_leaderboard_shows_the_columns_asked_for():
    row = LeaderboardRow(None, False, "x", "x.html", "1", None, "", None, "", 0, 0, None, None,
                         0, author="ann", order="settled")
    plain = leaderboard([row])
    assert "Author" not in plain and "K-Elo" not in plain and "Order vs next" not in plain
    league = leaderboard([row], extras=("author", "order"))
    assert "<th" in league and "ann" in league and "settled" in league
    assert league.index("Author") < league.index("Version")
    with pytest.raises(ValueError, match="no leaderboard column"):
        leaderboard([row], extras=("rating",))


def test_a_build_log_keeps_its_lines_in_a_box_and_shows_escapes_as_text():
    """A failed upload's log (issue 48): its lines stay lines, in a box that wraps and
    scrolls (`pre.output`); markup and terminal escapes show as text."""
    from arena.presentation.league_views import bot_uploads

    log = "make: *** [bot] Error 1\n\tgcc: <b>bad</b>\n\x1b[31mred\x1b[0m"
    html = bot_uploads([{"id": 3, "status": "failed", "stage": "build", "reason": "exit 2",
                         "log": log, "command": ""}])
    box = re.search(r'<pre class="output">(.*?)</pre>', html, re.S)
    assert box is not None, html
    assert box.group(1).split("\n") == [
        "make: *** [bot] Error 1", "\tgcc: &lt;b&gt;bad&lt;/b&gt;", "\\x1b[31mred\\x1b[0m"]


def test_a_version_without_a_rating_says_so_and_its_forfeits_read_as_words():
    """Issue 48: no `rating () over 0 games`, no `failures {"crash": 74}`."""
    from arena.presentation.league_views import bot_versions

    unrated = {"version": "1.0", "hash": "0123456789abcdef", "active": True, "retired": False,
               "standing": {"rating_text": "", "interval_text": "", "games": 0},
               "failures": {"crash": 74, "start_failure": 2}}
    html = bot_versions([unrated, {**unrated, "standing": None, "failures": {}}])
    assert html.count("no rating yet") == 2 and "rating (" not in html
    assert "games forfeited: crash 74, start failure 2" in html and "{" not in html
    rated = {**unrated, "standing": {"rating_text": "+12.0", "interval_text": "±30.1",
                                     "games": 40}, "failures": {}}
    assert "rating +12.0 (±30.1) over 40 games" in bot_versions([rated])
