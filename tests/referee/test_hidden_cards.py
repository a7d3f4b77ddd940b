"""No byte sent to a seat names a card that seat may not know yet.

Spy bots write every frame they receive. Replaying each seat's frames in order, the cards a
seat may know grow only by what it is told openly: its own deals, the cards it receives in
the exchange, and cards played. Every card an event names must be known once that event is taken in, and
every card named elsewhere in a frame must be known once all its events are.
"""

from __future__ import annotations

import struct

import msgpack
import pytest

from arena.referee.match import GameSpec, run_game
from arena.referee.record import Termination
from arena.rules.cards import card_name
from arena.sandbox import Isolation
from tests.pace import honest_time

pytestmark = pytest.mark.timeout(120)
CARD_NAMES = {card_name(c) for c in range(56)}


def frames_of(path) -> list[dict]:
    data = path.read_bytes()
    out, i = [], 0
    while i < len(data):
        (n,) = struct.unpack(">I", data[i:i + 4])
        out.append(msgpack.unpackb(data[i + 4:i + 4 + n]))
        i += 4 + n
    return out


def cards_named(value) -> set[str]:
    """Every string in a decoded message that is a card name."""
    if isinstance(value, str):
        return {value} & CARD_NAMES
    if isinstance(value, dict):
        return set().union(*(cards_named(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(cards_named(v) for v in value)) if value else set()
    return set()


def learn(known: set[str], event: dict) -> None:
    if event["kind"] == "deal":
        known.update(event["cards"])
    elif event["kind"] == "exchange":
        known.update(event["received"])
    elif event["kind"] in ("play", "trick"):
        known.update(event["cards"])


def test_no_message_to_a_seat_names_another_seats_hidden_card(spy_bot, tmp_path, monkeypatch):
    monkeypatch.setenv("TICHU_TEST_SPY_DIR", str(tmp_path))
    # unsandboxed: the spy writes the frames it receives to a folder of the test
    record = run_game(GameSpec("spy", 4, (spy_bot, spy_bot), target=300, time=honest_time()),
                      isolation=Isolation.NONE)
    assert record.termination is Termination.NORMAL
    logs = sorted(tmp_path.glob("*.frames"))
    assert len(logs) == 4
    checked = 0
    for log in logs:
        known: set[str] = set()
        rounds_seen = 0
        for message in frames_of(log):
            for event in message.get("events", []):  # a message may span two rounds
                if event["kind"] == "round_start":
                    known, rounds_seen = set(), rounds_seen + 1
                learn(known, event)
                leaked = cards_named(event) - known
                assert not leaked, f"{log.name}: event {event} names hidden cards {leaked}"
            rest = {k: v for k, v in message.items() if k != "events"}
            leaked = cards_named(rest) - known
            assert not leaked, f"{log.name}: {message['type']} names hidden cards {leaked}"
            checked += 1
        assert rounds_seen == record.rounds
    assert checked > 100
