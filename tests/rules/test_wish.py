"""RULES.md "The wish" (and the Mah Jong's wish in "Special cards")."""

from __future__ import annotations

import pytest

from arena.rules import PASS, DecisionKind, Game, IllegalAction, Play
from tests.rules.helpers import (
    cards,
    deal,
    decline_window,
    events,
    others_pass,
    pass_turn,
    play,
    start,
)


def rule_of(game: Game, seat: int, action) -> str:
    with pytest.raises(IllegalAction) as info:
        game.apply(seat, action)
    return info.value.rule


def wish_of(game: Game) -> int:
    return game.observation(1).wish


def plays(decision) -> list[Play]:
    return [o for o in decision.options if isinstance(o, Play)]


def test_mahjong_may_name_a_wish_or_none():
    game = start(deal("Mahjong Dog", "Phoenix", "Dragon", ""))
    assert game.decision(0).allows(Play(cards("Mahjong"), wish=9))
    assert game.decision(0).allows(Play(cards("Mahjong")))
    play(game, 0, "Mahjong")
    assert wish_of(game) == 0 and not events(game, "wish")


def test_wish_names_one_rank_from_2_to_ace():
    game = start(deal("Mahjong Dog", "Phoenix", "Dragon", ""))
    assert rule_of(game, 0, Play(cards("Mahjong"), wish=1)) == "wish-rank"
    assert rule_of(game, 0, Play(cards("Mahjong"), wish=15)) == "wish-rank"
    assert not game.decision(0).allows(Play(cards("Mahjong"), wish=15))
    play(game, 0, "Mahjong", wish=14)
    assert wish_of(game) == 14


def test_only_a_play_holding_the_mahjong_may_wish():
    game = start(deal("Mahjong Dog 7j", "Phoenix", "Dragon", ""))
    assert rule_of(game, 0, Play(cards("7j"), wish=9)) == "wish-without-mahjong"
    assert not game.decision(0).allows(Play(cards("7j"), wish=9))


WISH_9 = deal("Mahjong 9s 9p 9t 2j", "Aj 3j Dog", "Dragon", "9j Phoenix")


def test_wish_persists_across_tricks_until_a_natural_card_of_the_rank_is_played():
    game = start(WISH_9)
    play(game, 0, "Mahjong", wish=9)
    assert wish_of(game) == 9 and events(game, "wish")[0].data["rank"] == 9
    assert not game.decision(1).must_fulfil_wish, "seat 1 holds no 9"
    play(game, 1, "Aj")
    pass_turn(game, 2)
    pass_turn(game, 3)
    pass_turn(game, 0)
    assert events(game, "trick") and wish_of(game) == 9, "the wish outlives the trick"
    play(game, 1, "3j")
    pass_turn(game, 2)
    decision = game.decision(3)
    assert decision.must_fulfil_wish and not decision.can_pass
    assert all(o.cards & cards("9j") for o in plays(decision))
    play(game, 3, "9j")
    assert wish_of(game) == 0
    assert events(game, "wish_fulfilled")[0].seat == 3


def test_wish_forces_a_follow_with_the_wished_rank_and_forbids_passing():
    game = start(WISH_9)
    play(game, 0, "Mahjong", wish=9)
    play(game, 1, "Aj")
    pass_turn(game, 2)
    pass_turn(game, 3)
    pass_turn(game, 0)
    play(game, 1, "3j")
    pass_turn(game, 2)
    assert rule_of(game, 3, PASS) == "must-fulfil-wish"
    assert rule_of(game, 3, Play(cards("Phoenix"))) == "must-fulfil-wish"


def test_player_who_cannot_play_the_wished_rank_legally_is_not_bound():
    game = start(WISH_9)
    play(game, 0, "Mahjong", wish=9)
    play(game, 1, "Aj")
    pass_turn(game, 2)
    assert not game.decision(3).must_fulfil_wish, "9j cannot beat the Ace"
    pass_turn(game, 3)


def test_phoenix_never_counts_as_the_wished_rank():
    game = start(WISH_9)
    play(game, 0, "Mahjong", wish=9)
    play(game, 1, "Aj")
    pass_turn(game, 2)
    decision = game.decision(3)
    assert decision.allows(Play(cards("Phoenix"))), "the Phoenix could beat the Ace"
    assert not decision.must_fulfil_wish and decision.can_pass
    game.apply(3, Play(cards("Phoenix")))
    assert wish_of(game) == 9


# Seat 1 holds the 9j and the Phoenix but no straight with a 9 (named in full), so a Mah Jong
# straight wishing 9 cannot be answered by it.
SEAT_1 = "9j Phoenix 2s 2p 3j 3p 4j 4s Aj As At 6j 6s 6p"
STRAIGHT = "Mahjong 2j 3s 4p 5t"


def test_wish_binding_leads_no_dog_lead_when_holding_the_wished_rank():
    game = start(deal(STRAIGHT + " 9s 9p 9t Dog", SEAT_1, "Dragon", ""))
    play(game, 0, STRAIGHT, wish=9)
    assert not game.decision(1).must_fulfil_wish
    others_pass(game)
    decision = game.decision(0)
    assert decision.must_fulfil_wish
    assert plays(decision) and all(o.cards & cards("9s 9p 9t") for o in plays(decision))
    assert rule_of(game, 0, Play(cards("Dog"))) == "must-fulfil-wish"
    assert rule_of(game, 0, PASS) == "must-fulfil-wish"
    play(game, 0, "9s")
    assert wish_of(game) == 0


def test_wish_forces_a_bomb():
    seat1 = "9j 9s 9p 9t 2s 2p 3j 3p Aj As At Kj Ks Dog"
    game = start(deal(STRAIGHT, seat1, "Dragon Phoenix", ""))
    play(game, 0, STRAIGHT, wish=9)
    assert game.phase is DecisionKind.BOMB and game.to_act() == (1,)
    assert not game.decision(1).must_fulfil_wish, "declining the window is allowed"
    decline_window(game)
    decision = game.decision(1)
    assert decision.kind is DecisionKind.PLAY and decision.must_fulfil_wish
    assert plays(decision) == [Play(cards("9j 9s 9p 9t"))]
    assert rule_of(game, 1, PASS) == "must-fulfil-wish"
    play(game, 1, "9j 9s 9p 9t")
    assert wish_of(game) == 0, "a bomb holding the wished rank fulfils the wish"


def test_wish_forces_a_phoenix_completed_pair():
    seat2 = "9s 9p 9t Dog Dragon 2t 3t 7j 7s Qj Qs Kp Kt Jj"
    game = start(deal(STRAIGHT + " 8j 8s", SEAT_1, seat2, ""))
    play(game, 0, STRAIGHT, wish=9)
    assert not game.decision(1).must_fulfil_wish, "no straight of seat 1 holds a 9"
    others_pass(game)
    play(game, 0, "8j 8s")
    decision = game.decision(1)
    assert decision.must_fulfil_wish
    assert plays(decision) == [Play(cards("9j Phoenix"), 9)]
    assert rule_of(game, 1, Play(cards("Aj As"))) == "must-fulfil-wish"
    assert rule_of(game, 1, Play(cards("Aj Phoenix"), 14)) == "must-fulfil-wish"
    assert rule_of(game, 1, PASS) == "must-fulfil-wish"
    game.apply(1, Play(cards("9j Phoenix"), 9))
    assert wish_of(game) == 0


def test_out_of_turn_bomb_need_not_fulfil_the_wish():
    game = start(deal("Mahjong 9s 9p 9t", "Dog", "9j 4j 4s 4p 4t", "Phoenix Dragon"))
    play(game, 0, "Mahjong", wish=9)
    assert game.phase is DecisionKind.BOMB and game.to_act() == (2,)
    decision = game.decision(2)
    assert not decision.must_fulfil_wish
    assert decision.allows(Play(cards("4j 4s 4p 4t")))
    game.apply(2, Play(cards("4j 4s 4p 4t")))
    assert wish_of(game) == 9
    assert game.to_act() == (3,)
