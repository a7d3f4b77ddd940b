"""arena.referee.wire: requests built from the engine, replies turned back into engine actions."""

from __future__ import annotations

import random

import pytest

from arena.referee import wire
from arena.rules import DecisionKind, Game, IllegalAction, Pass, Play
from arena.rules.cards import parse_card
from protocol.codec import decode, encode, validate


def _reply(**fields):
    return validate({"type": "reply", "id": 0, **fields}, "bot")


def _play_to(game: Game, kind: DecisionKind, rng: random.Random) -> int:
    """Advance `game` with random legal actions until some seat faces `kind`; that seat."""
    while not game.over:
        for seat in game.to_act():
            decision = game.decision(seat)
            if decision.kind is kind:
                return seat
            options = decision.options
            index = 0 if decision.kind in (DecisionKind.GRAND_TICHU, DecisionKind.TICHU) \
                else rng.randrange(len(options))
            game.apply(seat, options[index])
    raise AssertionError(f"no {kind} decision in this game")


def test_every_request_of_a_game_is_valid_and_each_option_is_legal():
    game, rng = Game(11), random.Random(11)
    sent = [0] * 4
    while not game.over:
        for seat in game.to_act():
            decision = game.decision(seat)
            events = wire.events_for(seat, game.events[sent[seat]:])
            sent[seat] = len(game.events)
            request = decode(encode(wire.request_message(
                decision, game.observation(seat), events, 0, 1000), "referee"), "referee")
            assert request["observation"]["hand"] == wire.cards_text(game.hands[seat])
            if request["options"] is None:
                hand = request["observation"]["hand"]
                reply = _reply(action={"action": "exchange", "give": rng.sample(hand, 3)})
            else:
                assert len(request["options"]) == len(decision.options)
                k = 0 if decision.kind in (DecisionKind.GRAND_TICHU, DecisionKind.TICHU) \
                    else rng.randrange(len(request["options"]))
                reply = _reply(option=k)
            action = wire.action_from_reply(reply, decision)
            assert decision.allows(action)
            game.apply(seat, action)


def test_events_never_show_another_seats_cards():
    game, rng = Game(5), random.Random(5)
    _play_to(game, DecisionKind.PLAY, rng)
    for seat in range(4):
        for event in wire.events_for(seat, game.events):
            if event["kind"] in ("deal", "exchange"):
                assert event["seat"] == seat


def test_exchange_event_and_observation_name_received_cards_by_giver():
    game, rng = Game(5), random.Random(5)
    _play_to(game, DecisionKind.EXCHANGE, rng)
    hands = list(game.hands)
    gives = {}
    for seat in range(4):
        cards = [c for c in range(56) if hands[seat] >> c & 1][:3]
        gives[seat] = cards
        game.apply(seat, wire.action_from_reply(_reply(action={
            "action": "exchange", "give": [wire.cards_text(1 << c)[0] for c in cards]}),
            game.decision(seat)))
    seat = 0
    obs = wire.observation_map(game.observation(seat))
    for k in (1, 2, 3):
        giver = (seat + k) % 4
        # the giver's give[i] goes to giver+1+i, so seat gets give[(seat - giver - 1) % 4]
        expected = gives[giver][(seat - giver - 1) % 4]
        assert parse_card(obs["exchange"]["received"][k - 1]) == expected


def test_option_index_out_of_range_is_illegal():
    game = Game(1)
    with pytest.raises(IllegalAction) as info:
        wire.action_from_reply(_reply(option=2), game.decision(0))
    assert info.value.rule == "option-out-of-range"


def test_option_for_exchange_is_refused():
    game, rng = Game(1), random.Random(1)
    seat = _play_to(game, DecisionKind.EXCHANGE, rng)
    with pytest.raises(IllegalAction) as info:
        wire.action_from_reply(_reply(option=0), game.decision(seat))
    assert info.value.rule == "no-options"


def test_option_without_option_lists_is_refused():
    game = Game(1)
    with pytest.raises(IllegalAction) as info:
        wire.action_from_reply(_reply(option=0), game.decision(0), options_sent=False)
    assert info.value.rule == "no-options"


def test_action_of_the_wrong_kind_is_illegal():
    game = Game(1)
    with pytest.raises(IllegalAction) as info:
        wire.action_from_reply(_reply(action={"action": "pass"}), game.decision(0))
    assert info.value.rule == "wrong-decision"


def test_tichu_flag_where_not_offered_is_illegal():
    game = Game(1)
    with pytest.raises(IllegalAction) as info:
        wire.action_from_reply(_reply(option=0, call_tichu=True), game.decision(0))
    assert info.value.rule == "tichu-not-allowed"


def test_wish_outside_a_play_is_illegal():
    game = Game(1)
    with pytest.raises(IllegalAction) as info:
        wire.action_from_reply(_reply(option=0, wish="7"), game.decision(0))
    assert info.value.rule == "wish-not-allowed"


def test_explicit_play_equals_the_option_it_restates():
    game, rng = Game(2), random.Random(2)
    seat = _play_to(game, DecisionKind.PLAY, rng)
    decision = game.decision(seat)
    options = wire.option_maps(decision)
    for k, option in enumerate(options):
        by_index = wire.action_from_reply(_reply(option=k), decision)
        stated = wire.action_from_reply(_reply(action=option), decision)
        assert by_index == stated
        assert type(by_index) is type(stated)


def test_option_carries_free_flags():
    game, rng = Game(2), random.Random(2)
    seat = _play_to(game, DecisionKind.PLAY, rng)
    decision = game.decision(seat)
    k = next(i for i, o in enumerate(decision.options) if isinstance(o, Play))
    action = wire.action_from_reply(_reply(option=k, call_tichu=True, wish="9"), decision)
    assert isinstance(action, Play) and action.call_tichu and action.wish == 9
    if decision.can_pass:
        assert wire.action_from_reply(_reply(option=0, call_tichu=True), decision) == Pass(True)


def test_ranks_and_cards_convert_both_ways():
    assert wire.rank_text(10) == "T" and wire.rank_value("T") == 10
    assert wire.rank_text(0) is None and wire.rank_value(None) == 0
    mask = wire.cards_mask(["Dragon", "2j", "As"])
    assert wire.cards_text(mask) == ["2j", "As", "Dragon"]
