"""What the human seat shows: a seat's view of the game as text, from real wire maps (the
protocol's golden transcript, and requests of self-play games)."""

from __future__ import annotations

import json
import re

from arena.presentation.seat_view import (
    Seats,
    current_trick,
    event_lines,
    hand_text,
    option_lines,
    sorted_cards,
    state_lines,
)
from tests.cli.selfplay import requests
from tests.referee.conftest import ROOT

TRANSCRIPT = ROOT / "protocol" / "vectors" / "transcript.jsonl"


def seat_events(seat: int) -> list[dict]:
    """Every event the golden transcript's `seat` received, in order."""
    events = []
    for line in TRANSCRIPT.read_text().splitlines():
        entry = json.loads(line)
        if entry["seat"] == seat and entry["from"] == "referee":
            events += entry["message"].get("events", [])
    return events


def test_a_hand_is_sorted_by_strength_with_each_rank_together():
    hand = ["Dragon", "Ks", "2t", "Phoenix", "Dog", "2j", "Mahjong", "Tp", "As"]
    assert sorted_cards(hand) == ["Dog", "Mahjong", "2j", "2t", "Tp", "Ks", "As", "Phoenix",
                                  "Dragon"]
    assert hand_text(hand) == "Dog   Mahjong   2j 2t   Tp   Ks   As   Phoenix   Dragon"


def test_options_are_numbered_from_one_each_once_in_the_order_of_the_request():
    checked = 0
    for request, _ in requests():
        options = request["options"]
        if not options:
            continue
        text = "\n".join(option_lines(request["kind"], options, Seats(0, ["a", "b", "c", "d"])))
        numbers = [int(n) for n in re.findall(r"(\d+)\) ", text)]
        assert sorted(numbers) == list(range(1, len(options) + 1)), text
        for number, option in enumerate(options, 1):
            if option["action"] == "play":
                shown = re.search(rf"(?<!\d){number}\) (.+?)(?:   |$)", text, re.M)[1]
                assert [c.split("=")[0] for c in shown.split()] == \
                    sorted_cards(option["cards"]), (shown, option)
        checked += 1
    assert checked > 1000


def test_every_event_a_person_needs_is_told_in_a_line():
    events = seat_events(0)
    seats = Seats(0, ["heuristic", "random", "heuristic", "random"])
    lines = event_lines(events, seats)
    shown = {"play", "pass", "trick", "out", "round_start", "round_end", "game_end", "tichu",
             "wish", "dog", "exchange", "wish_fulfilled"}
    assert len(lines) == sum(1 for e in events if e["kind"] in shown
                             or e["kind"] == "grand_tichu" and e["call"])
    assert "== Round 1 begins (score 0:0) ==" in lines
    assert any(re.fullmatch(r"seat 3 won the trick with the Dragon and gives it to seat 2 "
                            r"\(partner\) \(\d+ points\)", line) for line in lines)
    assert any(line.startswith("the Dog hands the lead to") for line in lines)
    assert any(line.startswith("seat 0 (you) plays") for line in lines)
    assert lines[-1].startswith("== Game over: team")


def test_the_current_trick_holds_the_events_since_the_last_one_was_gathered():
    events = seat_events(1)
    ends = [i for i, e in enumerate(events) if e["kind"] in ("trick", "dog", "round_start",
                                                              "round_end")]
    cut = ends[5] + 3  # a trick under way
    trick = current_trick(events[:cut])
    assert trick == [e for e in events[ends[5] + 1:cut]
                     if e["kind"] in ("play", "pass", "wish", "wish_fulfilled", "out", "tichu")]
    assert trick and trick[0]["kind"] == "play"  # a trick opens with its lead
    assert current_trick(events[:ends[5] + 1]) == []


def test_the_state_shows_cards_left_points_calls_the_wish_and_what_to_beat():
    request, trick = next((r, t) for r, t in requests() if r["observation"]["wish"]
                          and r["observation"]["table"] is not None and r["kind"] == "play")
    obs = request["observation"]
    seats = Seats(obs["seat"], ["one", "two", "three", "four"])
    lines = state_lines("play", obs, trick, seats)
    text = "\n".join(lines)
    for seat in range(4):
        row = next(line for line in lines if re.match(rf"  {seat}    ", line))
        assert row.split()[-2:] == [str(obs["hand_counts"][seat]),
                                    str(obs["points_taken"][seat])] or "out" in row
    assert f"Wish in force: {obs['wish']}" in text
    assert f"To beat: {' '.join(sorted_cards(obs['table']['cards']))}" in text
    assert f"Your hand ({len(obs['hand'])}):  {hand_text(obs['hand'])}" in text
    assert "Trick so far" in text


def test_names_are_escaped_for_the_terminal():
    seats = Seats(0, ["me", "\x1b[2Jevil", "p", "q"])
    assert "\x1b" not in seats.player(1)
    assert seats.player(1) == "\\x1b[2Jevil, opponent"
