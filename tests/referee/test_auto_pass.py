"""The `auto_pass` capability: a turn where passing is all a seat may do is passed unasked.

Spy bots write every frame they receive; one entrant says `auto_pass`, the other does not,
in the same game, so the rule is seen to apply per seat.
"""

from __future__ import annotations

import shutil

import pytest

from arena.referee.match import GameSpec, run_game
from arena.referee.record import Termination, resimulate
from arena.rules import Game
from arena.sandbox import Isolation
from tests.pace import honest_time
from tests.referee.conftest import HERE, entrant
from tests.referee.test_hidden_cards import frames_of

pytestmark = pytest.mark.timeout(120)


def _spy_saying(folder, capabilities: list[str]):
    shutil.copytree(HERE / "bots" / "spy", folder)
    command = ", ".join(f'"{c}"' for c in ["python", "bot.py", *capabilities])
    toml = (folder / "bot.toml").read_text().replace('command = ["python", "bot.py"]',
                                                       f"command = [{command}]")
    (folder / "bot.toml").write_text(toml.replace('name = "spy"', f'name = "spy{len(capabilities)}"'))
    return entrant(folder)


def _forced(request: dict) -> bool:
    return (request["kind"] == "play" and request["options"] == [{"action": "pass"}]
            and not request["may_call_tichu"])


def test_only_seats_that_say_auto_pass_are_not_asked_to_pass(tmp_path, monkeypatch):
    frames_dir = tmp_path / "frames"
    frames_dir.mkdir()
    monkeypatch.setenv("TICHU_TEST_SPY_DIR", str(frames_dir))
    auto = _spy_saying(tmp_path / "auto", ["auto_pass"])
    plain = _spy_saying(tmp_path / "plain", [])
    # unsandboxed: the spy writes the frames it receives to a folder of the test
    record = run_game(GameSpec("auto-pass", 5, (auto, plain), target=300, time=honest_time()),
                      isolation=Isolation.NONE)
    assert record.termination is Termination.NORMAL

    # The record: auto passes are marked, belong to team 0's seats, and were forced.
    autos = [d for d in record.decisions if d.get("auto")]
    assert autos and {d["seat"] % 2 for d in autos} == {0}
    assert all(d["action"] == {"action": "pass"} and d["latency_ms"] == 0 for d in autos)
    game = Game(record.seed, record.target)
    for d in record.decisions:
        decision = game.decision(d["seat"])
        if d.get("auto"):
            assert decision.only_pass
        game.apply(d["seat"], _action(d, decision))
    resimulate(record)  # the record, auto passes included, replays exactly

    # The wire: team 0's seats never got a forced request, team 1's did; ids increase.
    by_seat = {}
    for log in frames_dir.glob("*.frames"):
        messages = frames_of(log)
        seat = next(m["seat"] for m in messages if m["type"] == "welcome")
        by_seat[seat] = messages
    assert sorted(by_seat) == [0, 1, 2, 3]
    for seat, messages in by_seat.items():
        requests = [m for m in messages if m["type"] == "request"]
        ids = [r["id"] for r in requests]
        assert ids == sorted(set(ids))
        forced = [r for r in requests if _forced(r)]
        assert (not forced) if seat % 2 == 0 else forced
        # Every auto pass of this seat reaches it as its own pass event, in order.
        own_passes = [e for m in messages for e in m.get("events", ())
                      if e["kind"] == "pass" and e["seat"] == seat]
        asked_passes = [d for d in record.decisions if d["seat"] == seat
                        and d["action"] == {"action": "pass"} and d["kind"] == "play"]
        assert len(own_passes) == len(asked_passes)


def _action(d, decision):
    from arena.referee import wire
    return wire.action_from_reply({"option": None, "action": d["action"],
                                   "call_tichu": d["call_tichu"], "wish": d["wish"]}, decision)
