"""RULES.md "Special cards" (Dog, Phoenix, Dragon) and "Bombs and the bomb window"."""

from __future__ import annotations

import pytest

from arena.rules import PASS, DecisionKind, Game, GiveDragon, IllegalAction, Play
from arena.rules.combos import ComboType
from tests.rules.helpers import (
    cards,
    deal,
    decline_window,
    events,
    lead_out,
    others_pass,
    pass_turn,
    play,
    start,
    table,
)

STRAIGHT_14 = "Mahjong 2j 3s 4p 5t 6j 7s 8p 9t Tj Js Qp Kt Aj"
STAIRS_14 = "2s 2p 3j 3p 4j 4s 5j 5s 6s 6p 7j 7p 8j 8s"


def rule_of(game: Game, seat: int, action) -> str:
    with pytest.raises(IllegalAction) as info:
        game.apply(seat, action)
    return info.value.rule


# ----- Dog -------------------------------------------------------------------------------------

def test_dog_passes_lead_to_partner():
    game = start(deal("Mahjong Dog", "9j 9s 9p 9t", "Phoenix", "Dragon"))
    play(game, 0, "Dog")
    [dog] = events(game, "dog")
    assert dog.data["to"] == 2
    assert game.phase is DecisionKind.PLAY and game.to_act() == (2,)
    assert table(game) is None


def test_no_bomb_on_the_dog():
    game = start(deal("Mahjong Dog", "9j 9s 9p 9t", "Phoenix", "Dragon"))
    play(game, 0, "Dog")
    assert game.phase is DecisionKind.PLAY, "no bomb window after the Dog"
    assert not any(e.kind == "play" and e.seat == 1 for e in game.events)


def test_dog_only_as_a_lead():
    game = start(deal("Mahjong 3j", "Dog", "Phoenix", "Dragon"))
    play(game, 0, "3j")
    assert rule_of(game, 1, Play(cards("Dog"))) == "dog-only-as-lead"
    assert not game.decision(1).allows(Play(cards("Dog")))


def test_dog_passes_lead_to_next_seat_after_partner_when_partner_is_out():
    game = start(deal(STRAIGHT_14, "2s", "Dog 3j", "Phoenix Dragon"))
    lead_out(game, 0, [STRAIGHT_14])
    play(game, 1, "2s")
    play(game, 2, "3j")
    pass_turn(game, 3)
    pass_turn(game, 1)
    play(game, 2, "Dog")
    assert events(game, "dog")[0].data["to"] == 1
    assert game.to_act() == (1,)


def test_dog_lead_can_return_to_the_dog_player_when_partner_and_next_seat_are_out():
    game = start(deal(STRAIGHT_14, STAIRS_14, "Dog", "Phoenix Dragon"))
    lead_out(game, 0, [STRAIGHT_14])
    lead_out(game, 1, [STAIRS_14])
    assert [e.seat for e in events(game, "out")] == [0, 1]
    play(game, 2, "Dog")
    assert events(game, "dog")[0].data["to"] == 2
    assert game.to_act() == (2,)


# ----- Phoenix ---------------------------------------------------------------------------------

def test_phoenix_single_played_on_an_ace_is_beaten_only_by_the_dragon_or_a_bomb():
    game = start(deal("Mahjong Aj", "Phoenix Kj", "Dragon", "Dog"))
    play(game, 0, "Aj")
    play(game, 1, "Phoenix")
    assert table(game).rank == 14.5
    others = [o for o in game.decision(2).options if isinstance(o, Play)]
    assert {o.cards for o in others} == {cards("Dragon")}


def test_phoenix_can_never_be_played_on_the_dragon_in_a_game():
    game = start(deal("Mahjong Dragon", "Phoenix", "Dog", ""))
    play(game, 0, "Dragon")
    assert not game.decision(1).allows(Play(cards("Phoenix")))
    assert rule_of(game, 1, Play(cards("Phoenix"))) == "phoenix-on-dragon"


def test_play_with_phoenix_states_its_rank_and_a_wrong_statement_is_rejected():
    game = start(deal("Mahjong 3j 3s", "Phoenix 7j Dog", "Dragon", ""))
    play(game, 0, "3j 3s")
    assert rule_of(game, 1, Play(cards("Phoenix 7j"), 8)) == "phoenix-rank-forms-nothing"
    assert rule_of(game, 1, Play(cards("Phoenix 7j"))) == "phoenix-rank-missing"
    game.apply(1, Play(cards("Phoenix 7j"), 7))
    assert (table(game).type, table(game).rank) == (ComboType.PAIR, 7)


# ----- Dragon ----------------------------------------------------------------------------------

def test_dragon_trick_given_to_a_chosen_opponent_and_winner_leads_next():
    game = start(deal("Mahjong Dragon Tj", "5s Phoenix", "Dog", ""))
    play(game, 0, "Tj")
    play(game, 1, "Phoenix")
    pass_turn(game, 2)
    pass_turn(game, 3)
    play(game, 0, "Dragon")
    others_pass(game)
    assert game.phase is DecisionKind.DRAGON_GIFT and game.to_act() == (0,)
    decision = game.decision(0)
    assert set(decision.options) == {GiveDragon(1), GiveDragon(3)}
    assert rule_of(game, 0, GiveDragon(2)) == "dragon-to-opponent"
    assert not decision.allows(GiveDragon(2)) and not decision.allows(GiveDragon(0))
    game.apply(0, GiveDragon(3))
    trick = events(game, "trick")[-1]
    assert (trick.seat, trick.data["taker"]) == (0, 3)
    assert trick.data["cards"] == cards("Tj Phoenix Dragon")
    assert game.observation(0).points_taken == (0, 0, 0, 10)
    assert game.to_act() == (0,) and table(game) is None


def test_dragon_trick_may_go_to_an_opponent_already_out():
    game = start(deal("Dragon 2s", STRAIGHT_14, "Phoenix 3j", "Dog"))
    lead_out(game, 1, [STRAIGHT_14])
    play(game, 2, "3j")
    pass_turn(game, 3)
    play(game, 0, "Dragon")
    others_pass(game)
    assert game.decision(0).allows(GiveDragon(1))
    game.apply(0, GiveDragon(1))
    assert events(game, "trick")[-1].data["taker"] == 1
    assert game.to_act() == (0,)


def test_bombed_dragon_trick_is_kept_by_the_bomber():
    game = start(deal("Mahjong Dragon", "9j 9s 9p 9t", "Phoenix", "Dog"))
    play(game, 0, "Dragon")
    assert game.phase is DecisionKind.BOMB and game.to_act() == (1,)
    game.apply(1, Play(cards("9j 9s 9p 9t")))
    others_pass(game)
    assert game.phase is DecisionKind.PLAY
    trick = events(game, "trick")[-1]
    assert (trick.seat, trick.data["taker"]) == (1, 1)
    assert game.to_act() == (1,)


# ----- bombs and the bomb window ---------------------------------------------------------------

def test_bomb_window_offered_in_play_order_from_seat_to_move():
    game = start(deal("Mahjong 3j 2j 2s 2p 2t", "Dog", "4j 4s 4p 4t", "5j 5s 5p 5t Phoenix Dragon"))
    play(game, 0, "3j")
    assert game.phase is DecisionKind.BOMB
    assert decline_window(game) == [2, 3, 0], "seat 1 (to move) holds no bomb"
    assert game.phase is DecisionKind.PLAY and game.to_act() == (1,)


def test_bomb_window_starts_with_the_seat_whose_turn_it_is():
    game = start(deal("Mahjong 3j 2j 2s 2p 2t", "Dog 8j 8s 8p 8t", "Phoenix", "Dragon 5j 5s 5p 5t"))
    play(game, 0, "3j")
    assert decline_window(game) == [1, 3, 0]


def test_bomb_window_only_offers_bombs_that_beat_the_table():
    game = start(deal("Mahjong 3j 2j 2s 2p 2t", "Dog", "Phoenix", "Dragon 5j 5s 5p 5t"))
    play(game, 0, "3j")
    assert decline_window(game) == [3, 0]
    pass_turn(game, 1)
    assert game.phase is DecisionKind.BOMB and game.to_act() == (3,)
    game.apply(3, Play(cards("5j 5s 5p 5t")))
    assert game.phase is DecisionKind.PLAY, "seat 0's 2222 cannot beat 5555: no window"
    assert game.to_act() == (0,)


def test_bomb_window_decision_takes_only_bombs():
    game = start(deal("Mahjong 3j", "Dog Aj", "Phoenix 4j 4s 4p 4t", "Dragon"))
    play(game, 0, "3j")
    assert game.to_act() == (2,)
    assert game.decision(2).kind is DecisionKind.BOMB
    assert rule_of(game, 2, Play(cards("Phoenix"))) == "bomb-window-takes-bombs"
    options = list(game.decision(2).options)
    assert options == [PASS, Play(cards("4j 4s 4p 4t"))]


def test_bomb_may_be_played_on_own_play():
    game = start(deal("Mahjong 3j 2j 2s 2p 2t", "Dog", "Phoenix", "Dragon"))
    play(game, 0, "3j")
    assert game.to_act() == (0,) and game.phase is DecisionKind.BOMB
    game.apply(0, Play(cards("2j 2s 2p 2t")))
    assert table(game).type is ComboType.FOUR_BOMB and game.to_act() == (1,)


def test_bomb_out_of_turn_continues_with_seat_after_the_bomber():
    game = start(deal("Mahjong 3j", "Dog", "Phoenix", "Dragon 5j 5s 5p 5t"))
    play(game, 0, "3j")
    game.apply(3, Play(cards("5j 5s 5p 5t")))
    play_event = events(game, "play")[-1]
    assert play_event.seat == 3 and play_event.data["out_of_turn"]
    assert game.phase is DecisionKind.PLAY and game.to_act() == (0,)


def test_bomb_window_before_the_trick_is_gathered_after_all_others_passed():
    game = start(deal("Mahjong 3j", "Dog", "Phoenix 4j 4s 4p 4t", "Dragon"))
    play(game, 0, "3j")
    assert decline_window(game) == [2]
    pass_turn(game, 1)
    assert decline_window(game) == [2]
    pass_turn(game, 2)
    assert decline_window(game) == [2]
    pass_turn(game, 3)
    assert game.phase is DecisionKind.BOMB and game.to_act() == (2,)
    assert not events(game, "trick")
    game.apply(2, Play(cards("4j 4s 4p 4t")))
    assert game.to_act() == (3,)
    others_pass(game)
    assert events(game, "trick")[-1].data["taker"] == 2


def test_no_bomb_window_on_an_empty_table_but_leader_may_lead_a_bomb():
    game = start(deal("Mahjong 4j 4s 4p 4t", "Dog 5j 5s 5p 5t", "Phoenix", "Dragon"))
    assert game.phase is DecisionKind.PLAY and game.to_act() == (0,)
    assert game.decision(0).allows(Play(cards("4j 4s 4p 4t")))
    play(game, 0, "4j 4s 4p 4t")
    assert decline_window(game) == [1]


def test_bomb_may_be_played_on_a_bomb_only_when_higher():
    game = start(deal("Mahjong 6j 6s 6p 6t", "Dog 5j 5s 5p 5t", "Phoenix 7j 7s 7p 7t",
                      "Dragon"))
    play(game, 0, "6j 6s 6p 6t")
    assert decline_window(game) == [2], "seat 1's 5555 cannot beat 6666"
    pass_turn(game, 1)
    assert game.to_act() == (2,) and game.phase is DecisionKind.BOMB
    assert rule_of(game, 2, Play(cards("6j 6s 6p 6t"))) == "card-not-held"
    game.apply(2, Play(cards("7j 7s 7p 7t")))
    assert game.phase is DecisionKind.PLAY and game.to_act() == (3,)


def test_each_seat_holding_a_bomb_is_offered_it_on_its_turn():
    # Seats 0 and 2 each hold a bomb; seat 3 leads the Mah Jong. A bomb may be played on any
    # table, so each is among its holder's options on its regular turn, even where no single
    # of its hand beats the table (seat 0 on seat 1's ace: only the Dragon and the Phoenix,
    # held by seats 2 and 3, would).
    game = start(deal("2j 2s 2p 2t", "Aj Dog", "3j 3s 3p 3t Dragon", "Mahjong Phoenix"))
    play(game, 3, "Mahjong")
    assert decline_window(game) == [0, 2]
    assert Play(cards("2j 2s 2p 2t")) in game.decision(0).options
    pass_turn(game, 0)
    decline_window(game)
    play(game, 1, "Aj")
    assert decline_window(game) == [2, 0]
    assert Play(cards("3j 3s 3p 3t")) in game.decision(2).options
    pass_turn(game, 2)
    decline_window(game)
    pass_turn(game, 3)
    decline_window(game)
    assert list(game.decision(0).options) == [PASS, Play(cards("2j 2s 2p 2t"))]
