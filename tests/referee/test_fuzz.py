"""Fuzzing what the referee does with a bot's bytes: decode, turn into an action, apply.

Whatever arrives, the only outcomes are a valid action or a documented error (ProtocolError,
which the referee reports as malformed_message / oversize_message, or IllegalAction, reported
as illegal_action); the game is never changed by a rejected reply.
"""

from __future__ import annotations

import random

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.referee import wire
from arena.referee.match import GameSpec, Match
from arena.referee.record import Termination
from arena.rules import Game, IllegalAction
from arena.rules.selfplay import random_player
from protocol import codec
from protocol.codec import ProtocolError
from protocol.schema import ERROR_CODES
from tests.pace import honest_time

CARDS = ["2j", "Ts", "As", "Kp", "Mahjong", "Dog", "Phoenix", "Dragon", "Zz", "", "2J"]
scalars = st.one_of(st.none(), st.booleans(), st.integers(-2**40, 2**40), st.floats(),
                    st.text(max_size=8), st.sampled_from(CARDS), st.binary(max_size=8))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=8), inner, max_size=5)),
    max_leaves=12)
actions = st.fixed_dictionaries({"action": st.sampled_from(
    ["play", "pass", "exchange", "grand_tichu", "tichu", "give_dragon", "bomb", 7])},
    optional={"cards": st.lists(st.sampled_from(CARDS), max_size=6), "call": values,
              "give": st.lists(st.sampled_from(CARDS), max_size=4), "to": values,
              "phoenix_as": st.sampled_from([None, "2", "A", "1", "Q", 5])})
replies = st.fixed_dictionaries({"type": st.sampled_from(["reply", "hello", "end", "x"]),
                                 "id": st.integers(-3, 3)},
                                optional={"option": st.one_of(st.integers(-2, 300), values),
                                          "action": st.one_of(actions, values),
                                          "call_tichu": values, "wish": values,
                                          "extra": values})


def game_at_some_decision(seed: int) -> Game:
    game = Game(seed)
    rng = random.Random(seed)
    player = random_player(rng)
    for _ in range(rng.randrange(0, 120)):
        seat = game.to_act()[0]
        game.apply(seat, player(game.decision(seat)))
    return game


def referee_takes(frame: bytes, game: Game) -> str:
    """What the referee makes of one frame from the seat to act: 'applied' or an error code."""
    seat = game.to_act()[0]
    decision = game.decision(seat)
    try:
        reply = codec.decode(frame, "bot")
        if reply["type"] != "reply":
            return "unexpected_message"
        game.apply(seat, wire.action_from_reply(reply, decision))
        return "applied"
    except ProtocolError as exc:
        return "oversize_message" if exc.code == "oversize" else "malformed_message"
    except IllegalAction:
        return "illegal_action"


def events_of(game: Game) -> list:
    return list(game.events)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300), st.integers(0, 50))
def test_arbitrary_bytes_get_a_documented_error(frame, seed):
    game = game_at_some_decision(seed)
    before = events_of(game)
    outcome = referee_takes(frame, game)
    assert outcome in ERROR_CODES
    assert events_of(game) == before


@settings(max_examples=300, deadline=None)
@given(replies, st.integers(0, 50))
def test_structured_garbage_is_applied_or_refused_with_a_documented_error(reply, seed):
    game = game_at_some_decision(seed)
    before = events_of(game)
    outcome = referee_takes(msgpack.packb(reply), game)
    assert outcome == "applied" or outcome in ERROR_CODES
    if outcome != "applied":
        assert events_of(game) == before


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 50), st.data())
def test_mutated_valid_replies_are_applied_or_refused_with_a_documented_error(seed, data):
    game = game_at_some_decision(seed)
    seat = game.to_act()[0]
    option = random_player(random.Random(seed))(game.decision(seat))
    valid = bytearray(codec.encode({"type": "reply", "id": 0, "option": None,
                                    "action": wire.action_map(option)}, "bot"))
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(valid) - 1))
        how = data.draw(st.sampled_from(["flip", "insert", "delete"]))
        if how == "flip":
            valid[i] ^= data.draw(st.integers(1, 255))
        elif how == "insert":
            valid.insert(i, data.draw(st.integers(0, 255)))
        elif len(valid) > 1:
            del valid[i]
    before = events_of(game)
    outcome = referee_takes(bytes(valid), game)
    assert outcome == "applied" or outcome in ERROR_CODES
    if outcome != "applied":
        assert events_of(game) == before


def test_an_oversize_frame_is_refused_before_decoding():
    game = game_at_some_decision(1)
    assert referee_takes(b"\x91" + b"\x00" * (codec.MAX_MESSAGE_BYTES + 1), game) == \
        "oversize_message"


@pytest.mark.timeout(300)
@settings(max_examples=12, deadline=None,
          # too_slow: each example plays a game through real sockets, and Hypothesis counts
          # that as drawing the input; on a busy machine 12 games take minutes.
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.one_of(st.binary(max_size=60), replies.map(msgpack.packb)))
def test_the_referee_survives_any_frame_in_place_of_a_reply(monkeypatch_frames, frame):
    """Through the real referee and sockets: the game ends normally or with a bot fault that
    carries a documented error, never with a harness fault."""
    record = monkeypatch_frames(frame)
    assert record.termination is not Termination.HARNESS_FAULT, record.fault
    if record.termination is not Termination.NORMAL:
        assert record.termination in (Termination.PROTOCOL_VIOLATION,
                                      Termination.ILLEGAL_ACTION)
        assert record.fault.seat in (1, 3) and record.winner == 0


@pytest.fixture
def monkeypatch_frames(faulty_bot, random_bot):
    """Plays a game where the faulty bot sends the frame: every example a game of one match,
    as a tournament plays a pair's games, so the random bots' processes (multi_game) are
    started once and go on from game to game whatever the frame did to the last one; the
    faulty bot's (single-game) start anew each game, with the frame in their environment.
    (A match of fresh processes for each of the 12 games cost 2 s more CPU.)"""
    with Match(random_bot, faulty_bot) as match:
        def play(frame: bytes):
            with pytest.MonkeyPatch.context() as patch:
                patch.setenv("TICHU_TEST_FAULT", "frame")
                patch.setenv("TICHU_TEST_FAULT_AT", "4")
                patch.setenv("TICHU_TEST_FRAME", frame.hex())
                return match.play(GameSpec("fuzz", 1, (random_bot, faulty_bot), target=100,
                                           time=honest_time(decision=1.0, grace=0.1)),
                                  last=False)
        yield play
