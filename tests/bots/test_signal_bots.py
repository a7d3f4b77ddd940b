"""The bots of the mixed-partner demo: signal-a and signal-b are one program under two names
(the heuristic's play plus a private code), heuristic-twin is the heuristic under another
name; the signallers really signal: the suit of the card each passes its partner says
whether it calls Tichu, and a bot told so stops contesting the opponents' tricks."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from tests.bots.conftest import BOTS

pytestmark = pytest.mark.timeout(120)


def test_the_demo_bots_are_copies_of_the_heuristic_with_the_code_or_without():
    heuristic = (BOTS / "heuristic" / "bot.py").read_bytes()
    assert (BOTS / "heuristic-twin" / "bot.py").read_bytes() == heuristic
    for name in ("signal-a", "signal-b"):
        assert (BOTS / name / "heuristic.py").read_bytes() == heuristic
        assert f'name = "{name}"' in (BOTS / name / "bot.toml").read_text()
    assert (BOTS / "signal-a" / "bot.py").read_bytes() == \
        (BOTS / "signal-b" / "bot.py").read_bytes()


@pytest.fixture
def signal(monkeypatch: pytest.MonkeyPatch):
    """The signal bot's module, loaded as its process loads it (its folder on the path)."""
    folder = BOTS / "signal-a"
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.delitem(sys.modules, "heuristic", raising=False)
    spec = importlib.util.spec_from_file_location("signal_bot", folder / "bot.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def exchange_request(hand: list[str]) -> dict:
    observation = {"seat": 0, "hand": hand, "hand_counts": [14, 14, 14, 14], "out_order": [],
                   "table": None, "exchange": None, "tichu": [False] * 4,
                   "grand_tichu": [False] * 4, "trick_points": 0, "played": [],
                   "points_taken": [0] * 4, "trick": [], "wish": None, "scores": [0, 0],
                   "target": 1000, "round": 1}
    return {"kind": "exchange", "observation": observation, "options": None,
            "may_call_tichu": True}


def test_the_card_a_signaller_passes_its_partner_says_whether_it_calls(signal):
    weak = ["2j", "3s", "4p", "5t", "6j", "7s", "8p", "9t", "Tj", "Js", "Qp", "Kj", "Ks", "Dog"]
    reply = signal.make_bot(1).decide(exchange_request(weak))
    gift = reply["action"]["give"][1]
    assert not reply["call_tichu"] and not signal.speaks(gift) and gift[1] == "j"
    strong = ["Dragon", "Phoenix", "Aj", "As", "Ap", "At", "Kj", "Ks", "Qp", "Qt", "2j", "3s",
              "4p", "Mahjong"]
    reply = signal.make_bot(1).decide(exchange_request(strong))
    assert reply["call_tichu"] and signal.speaks(reply["action"]["give"][1])
    # the heuristic alone would pass the same cards but for the partner's
    heuristic = signal.HeuristicBot(1).decide(exchange_request(weak))
    assert heuristic["action"]["give"][0::2] == reply_give(signal, weak)[0::2]


def reply_give(signal, hand: list[str]) -> list[str]:
    return signal.make_bot(1).decide(exchange_request(hand))["action"]["give"]


def test_a_signaller_told_its_partner_calls_leaves_the_opponents_tricks_alone(signal):
    bot = signal.make_bot(1)
    observation = {"seat": 0, "hand": ["3j", "9s", "Kp"], "hand_counts": [3, 9, 8, 10],
                   "out_order": [], "table": {"seat": 1, "cards": ["5j"],
                                              "combination": "single", "phoenix_as": None},
                   "exchange": {"given": ["2s", "4j", "6t"], "received": ["7s", "8p", "Jt"]},
                   "tichu": [False] * 4, "grand_tichu": [False] * 4, "trick_points": 5,
                   "played": [], "points_taken": [0] * 4, "trick": ["5j"], "wish": None,
                   "scores": [0, 0], "target": 1000, "round": 1}
    options = [{"action": "pass"},
               {"action": "play", "cards": ["9s"], "combination": "single"},
               {"action": "play", "cards": ["Kp"], "combination": "single"}]
    request = {"kind": "play", "observation": observation, "options": options,
               "may_call_tichu": False}
    assert signal.speaks(observation["exchange"]["received"][1])  # the partner's 8 of Pagodas
    assert bot.decide(request)["option"] == 0  # support: pass
    observation["exchange"]["received"][1] = "8j"  # a Jade: play your own game
    assert bot.decide(request)["option"] == 1  # the heuristic beats the table cheaply
    observation["exchange"]["received"][1] = "8p"
    observation["hand_counts"][1] = 2  # the opponent is about to go out: stop it
    assert bot.decide(request)["option"] != 0


def test_a_signaller_plays_a_whole_game_through_the_referee_beside_another():
    from arena.referee.match import GameSpec, run_game
    from arena.referee.record import Termination
    from tests.bots.conftest import entrant
    from tests.pace import honest_time

    signal_a, signal_b = entrant(BOTS / "signal-a"), entrant(BOTS / "signal-b")
    heuristic, twin = entrant(BOTS / "heuristic"), entrant(BOTS / "heuristic-twin")
    record = run_game(GameSpec("demo", 3, (signal_a, heuristic), 300,
                               honest_time(hello=10.0, decision=3.0, bank=120.0),
                               partners=(signal_b, twin)))
    assert record.termination is Termination.NORMAL, record.fault
    assert [e.name for e in record.seat_entrants()] == ["signal-a", "heuristic", "signal-b",
                                                       "heuristic-twin"]


def test_every_demo_bot_has_a_readme_and_a_manifest():
    for name in ("signal-a", "signal-b", "heuristic-twin"):
        assert (BOTS / name / "README.md").is_file() and (BOTS / name / "bot.toml").is_file()
        assert Path(BOTS / name).name == name
