"""The shared encoding: every option of every request maps onto the discrete action space,
each legal action's steps make a legal reply of its shape, and a stated reply is explained
by steps that make it again (the export relies on it)."""

from __future__ import annotations

import random

import pytest

from tests.env.conftest import require_train

require_train()

import numpy as np  # noqa: E402

from arena.referee import wire  # noqa: E402
from arena.rules import DecisionKind, Game  # noqa: E402
from arena.rules.cards import MAHJONG_BIT  # noqa: E402
from protocol import features  # noqa: E402
from protocol.features import (  # noqa: E402
    CALL,
    CARD_BASE,
    N_ACTIONS,
    PASS,
    PLAY_BASE,
    WISH_NONE,
    IllegalStep,
    Steps,
    action_name,
    key_action,
)

pytestmark = pytest.mark.timeout(120)


def requests(seed: int, target: int = 400):
    """(game, decision, request) at every decision of a random game (one seat at a time)."""
    rng = random.Random(seed)
    game = Game(seed, target)
    while not game.over:
        seat = game.to_act()[0]
        decision = game.decision(seat)
        yield game, decision, wire.request_message(decision, game.observation(seat), [], 0, 0)
        options = decision.options
        action = options[rng.randrange(len(options))]
        if decision.kind in (DecisionKind.GRAND_TICHU, DecisionKind.TICHU):
            action = options[0]
        game.apply(seat, action)


def drive(request, actions):
    steps = Steps(request)
    for a in actions:
        steps.step(a)
    return steps


def test_the_action_space_is_fixed_and_every_action_has_its_own_name():
    assert features.N_ACTIONS == 737 and features.OBSERVATION_SIZE == 695
    names = [action_name(a) for a in range(N_ACTIONS)]
    assert len(set(names)) == N_ACTIONS
    assert features.OBSERVATION_LOW.shape == features.OBSERVATION_HIGH.shape == (695,)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_each_legal_action_makes_a_legal_reply_of_its_shape(seed):
    for _game, decision, request in requests(seed):
        steps = Steps(request)
        mask = steps.mask
        options = request["options"]
        if decision.kind.value in ("play", "bomb"):
            assert mask[PASS] == decision.can_pass
            assert {key_action(o) for o in options if o["action"] == "play"} == \
                set(np.flatnonzero(mask[PLAY_BASE:]) + PLAY_BASE)
        assert mask[CALL] == (decision.may_call_tichu or decision.kind.value in
                              ("grand_tichu", "tichu"))
        for action in np.flatnonzero(mask):
            if action == CALL and decision.kind.value not in ("grand_tichu", "tichu"):
                continue
            chosen = drive(request, [action])
            if decision.kind.value == "exchange":
                rest = np.flatnonzero(chosen.mask)
                chosen.step(rest[0])
                chosen.step(np.flatnonzero(chosen.mask)[0])
            elif not chosen.done:  # a Mah Jong play: the wish
                assert chosen.mask[WISH_NONE:CARD_BASE].all() and chosen.mask.sum() == 14
                chosen.step(WISH_NONE + 7)
            reply = chosen.reply()
            engine_action = wire.action_from_reply(reply, decision)
            assert decision.allows(engine_action), (action_name(action), reply)
            if action >= PLAY_BASE:
                assert key_action(options[reply["option"]]) == action
                holds_mahjong = bool(engine_action.cards & MAHJONG_BIT)
                assert holds_mahjong == (reply["wish"] is not None)


@pytest.mark.parametrize("seed", [4, 5])
def test_a_stated_reply_is_explained_by_steps_that_make_it_again(seed):
    rng = random.Random(seed)
    for _game, decision, request in requests(seed):
        steps = Steps(request)
        seat = request["observation"]["seat"]
        if decision.kind.value == "exchange":
            give = rng.sample(request["observation"]["hand"], 3)
            action, call, wish = {"action": "exchange", "give": give}, True, None
        else:
            option = request["options"][rng.randrange(len(request["options"]))]
            action = {k: v for k, v in option.items() if k != "combination"}
            call = decision.may_call_tichu and rng.random() < 0.5
            wish = "9" if "Mahjong" in option.get("cards", ()) else None
        taken = steps.explain(action, call, wish)
        reply = drive(request, taken).reply()
        assert reply["call_tichu"] == call and reply["wish"] == wish
        if decision.kind.value == "exchange":
            assert reply["action"]["give"] == give and taken[0] == CALL
        elif action["action"] == "play":
            made = request["options"][reply["option"]]
            assert key_action(made) == key_action(request["options"][steps.option_of(action)])
        else:
            assert reply["option"] == steps.option_of(action)
        assert seat == steps.seat


def test_a_play_that_is_not_an_option_is_not_explained():
    for _game, decision, request in requests(6):
        if decision.kind.value == "play" and request["observation"]["table"] is not None:
            steps = Steps(request)
            with pytest.raises(IllegalStep):
                steps.explain({"action": "play", "cards": ["Dog"], "phoenix_as": None}, False,
                              None)
            return
    pytest.fail("no follow decision in the game")


def test_the_encoding_reads_only_what_the_seat_was_sent():
    game, decision, request = next(r for r in requests(7) if r[1].kind.value == "play")
    base = Steps(request)
    noisy = dict(request, events=[{"kind": "pass", "seat": 1}] * 5, id=99, deadline_ms=5)
    assert np.array_equal(Steps(noisy).observation, base.observation)
    changed = dict(request, observation=dict(request["observation"], hand=[]))
    assert not np.array_equal(Steps(changed).observation, base.observation)


def test_the_canonical_play_keeps_a_four_of_a_kind_whole():
    # a straight to the 8 with the Phoenix: for the 4, 5, 6, 7 or 8; the four 7s are a bomb
    hand = ["4j", "5s", "6p", "7j", "7s", "7p", "7t", "8s", "Phoenix"]
    naturals = ["4j", "5s", "6p", "7j", "8s"]
    options = [{"action": "play", "cards": [c for c in naturals if c[0] != rank] + ["Phoenix"],
                "phoenix_as": rank, "combination": "straight"} for rank in "45678"]
    observation = {"seat": 0, "round": 1, "hand": hand, "hand_counts": [9, 14, 14, 14],
                   "grand_tichu": [False] * 4, "tichu": [False] * 4, "out_order": [],
                   "wish": None, "table": None, "trick": [], "trick_points": 0, "played": [],
                   "points_taken": [0] * 4, "exchange": None, "scores": [0, 0], "target": 1000}
    request = {"kind": "play", "may_call_tichu": False, "must_fulfil_wish": False,
               "observation": observation, "options": options}
    assert len({key_action(o) for o in options}) == 1  # one shape: straight x5 to 8, Phoenix
    reply = drive(request, [key_action(options[0])]).reply()
    assert options[reply["option"]]["phoenix_as"] == "7"  # no 7 of the bomb is played
    del options[3]
    reply = drive(request, [key_action(options[0])]).reply()
    assert options[reply["option"]]["phoenix_as"] == "8"  # then the lowest cards


def test_features_md_documents_every_position():
    import re

    from tests.env.conftest import ROOT

    text = (ROOT / "protocol" / "FEATURES.md").read_text()
    rows = re.findall(r"^\| (\d+) \| (\d+) \| `(\w+)` \|", text, re.M)
    documented = {name: (int(offset), int(size)) for offset, size, name in rows}
    expected = {name: (features.BIT[name], size) for name, size in features.BIT_FIELDS}
    expected |= {name: (features.N_BITS + features.NUM[name], size)
                 for name, size, *_ in features.NUM_FIELDS}
    assert documented == expected
    assert f"Observation: {features.OBSERVATION_SIZE} float32" in text
    assert f"{N_ACTIONS} discrete actions" in text


def test_the_old_module_name_still_serves_policy_bots_written_against_it():
    from protocol import encoding
    from protocol.encoding import CALL, Steps, encode

    assert encode is features.encode_observation and Steps is features.Steps
    assert CALL == features.CALL and encoding.OBSERVATION_SIZE == features.OBSERVATION_SIZE
    assert "encode" in dir(encoding) and "advance" in dir(encoding)
