"""RULES.md "Seats, teams, deck", "A round", "Calls" and "Trick flow and going out"."""

from __future__ import annotations

import pytest

from arena.rules import (
    PASS,
    CallTichu,
    DecisionKind,
    Exchange,
    Game,
    GrandTichu,
    IllegalAction,
    Pass,
    Play,
    team_of,
)
from arena.rules.cards import FULL_DECK, card, parse_card, points, points_of
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

QUIET = deal("Mahjong Dog Phoenix Dragon 3j 9j", "5s 7j", "4s 6j Aj", "2s 8j Kj")


def rule_of(game: Game, seat: int, action) -> str:
    with pytest.raises(IllegalAction) as info:
        game.apply(seat, action)
    return info.value.rule


# ----- seats, teams, deck ----------------------------------------------------------------------

def test_partners_sit_opposite_team_0_is_seats_0_and_2():
    assert [team_of(s) for s in range(4)] == [0, 1, 0, 1]


def test_deck_has_56_cards_four_suits_of_2_to_ace_and_four_specials():
    game = Game(7)
    for s in range(4):
        game.apply(s, GrandTichu(False))
    hands = [game.observation(s).hand for s in range(4)]
    assert all(h.bit_count() == 14 for h in hands)
    assert hands[0] | hands[1] | hands[2] | hands[3] == FULL_DECK
    assert cards("Mahjong Dog Phoenix Dragon") & FULL_DECK == cards("Mahjong Dog Phoenix Dragon")


def test_card_points_five_ten_king_dragon_phoenix_and_deck_totals_100():
    assert points(cards("5j")) == 5 and points(cards("Tj")) == 10 and points(cards("Kt")) == 10
    assert points(cards("Dragon")) == 25 and points(cards("Phoenix")) == -25
    assert points(cards("Mahjong Dog 2j 9s Qp At")) == 0
    assert sum(points_of(c) for c in range(56)) == 100
    assert points(FULL_DECK) == 100


RANKS = {r: n for n, r in enumerate("23456789TJQKA", start=2)}


def test_each_card_is_worth_its_points_alone():
    # Card by card, named through the card names (a shift of one rank, or the Dragon and the
    # Phoenix worth nothing, would keep the deck's total at 100).
    worth = {"5": 5, "T": 10, "K": 10}
    for rank in "23456789TJQKA":
        for suit in "jspt":
            c = parse_card(rank + suit)
            assert c == card(RANKS[rank], "jspt".index(suit))
            assert points_of(c) == worth.get(rank, 0), rank + suit
    for name, value in (("Mahjong", 0), ("Dog", 0), ("Phoenix", -25), ("Dragon", 25)):
        assert points_of(parse_card(name)) == value, name


def test_turn_passes_in_play_order():
    game = start(QUIET)
    play(game, 0, "Mahjong")
    for seat in (1, 2, 3):
        assert game.to_act() == (seat,)
        pass_turn(game, seat)
    assert game.to_act() == (0,)


def test_acting_out_of_turn_is_rejected():
    game = start(QUIET)
    assert rule_of(game, 1, PASS) == "not-your-turn"
    with pytest.raises(IllegalAction) as info:
        game.decision(2)
    assert info.value.rule == "not-your-turn"


# ----- a round: deal, Grand Tichu, exchange -----------------------------------------------------

def test_deal_8_cards_then_the_remaining_6():
    d = QUIET
    game = Game(0, dealer=d.dealer())
    for s in range(4):
        assert game.observation(s).hand == sum(1 << c for c in d.deck[14 * s:14 * s + 8])
        game.apply(s, GrandTichu(False))
    for s in range(4):
        assert game.observation(s).hand == sum(1 << c for c in d.deck[14 * s:14 * s + 14])


def test_deal_is_seeded_and_reproducible():
    assert Game(11).observation(0).hand == Game(11).observation(0).hand
    assert [Game(11).observation(s).hand for s in range(4)] != [
        Game(12).observation(s).hand for s in range(4)]


def test_grand_tichu_decisions_are_simultaneous():
    game = Game(3)
    assert game.to_act() == (0, 1, 2, 3)
    assert game.decision(0).kind is DecisionKind.GRAND_TICHU
    game.apply(0, GrandTichu(True))
    game.apply(1, GrandTichu(False))
    game.apply(2, GrandTichu(True))
    obs = game.observation(3)
    assert obs.grand_tichu == (False,) * 4
    assert not [e for e in obs.round_events if e.kind == "grand_tichu"]
    assert all(e.kind != "grand_tichu" for e in game.events), "no choice is public before all chose"
    assert game.observation(3).hand.bit_count() == 8
    game.apply(3, GrandTichu(False))
    assert game.observation(3).grand_tichu == (True, False, True, False)


def test_grand_tichu_is_decided_only_once():
    game = Game(3)
    game.apply(0, GrandTichu(False))
    assert rule_of(game, 0, GrandTichu(True)) == "not-your-turn"


def test_exchange_is_simultaneous_and_atomic():
    d = QUIET
    game = Game(0, dealer=d.dealer())
    for s in range(4):
        game.apply(s, GrandTichu(False))
    before = [game.observation(s).hand for s in range(4)]
    for s in range(3):
        game.apply(s, d.exchanges[s])
        assert [game.observation(t).hand for t in range(4)] == before
        assert not events(game, "exchange")
    game.apply(3, d.exchanges[3])
    assert [game.observation(s).hand for s in range(4)] == d.hands


def test_exchange_gives_one_card_to_each_other_seat():
    d = QUIET
    game = Game(0, dealer=d.dealer())
    for s in range(4):
        game.apply(s, GrandTichu(False))
    for s in range(4):
        game.apply(s, d.exchanges[s])
    for s in range(4):
        [event] = [e for e in game.observation(s).round_events if e.kind == "exchange"]
        assert event.visible_to == s
        for i, c in enumerate(d.exchanges[s].give):
            receiver = (s + 1 + i) % 4
            assert game.observation(receiver).hand >> c & 1
            assert not game.observation(s).hand >> c & 1
        for giver in range(4):
            if giver != s:
                assert event.data["received"][giver] == d.exchanges[giver].give[(s - giver - 1) % 4]


def test_exchange_must_give_three_distinct_held_cards():
    d = QUIET
    game = Game(0, dealer=d.dealer())
    for s in range(4):
        game.apply(s, GrandTichu(False))
    give = d.exchanges[0].give
    not_held = next(c for c in range(56) if not game.observation(0).hand >> c & 1)
    assert rule_of(game, 0, Exchange((give[0], give[0], give[1]))) == "exchange-distinct-cards"
    assert rule_of(game, 0, Exchange((give[0], give[1], not_held))) == "card-not-held"
    assert rule_of(game, 0, Exchange((give[0], give[1]))) == "exchange-three-cards"
    assert rule_of(game, 0, GrandTichu(True)) == "wrong-decision"
    assert not game.decision(0).allows(Exchange((give[0], give[1], not_held)))


def test_mahjong_holder_leads_the_first_trick():
    for holder in range(4):
        named = ["", "", "", ""]
        named[holder] = "Mahjong"
        named[(holder + 1) % 4] = "Dog Phoenix Dragon"
        game = start(deal(*named))
        assert game.to_act() == (holder,)
        assert game.decision(holder).kind is DecisionKind.PLAY


def test_first_lead_need_not_contain_the_mahjong():
    game = start(QUIET)
    play(game, 0, "9j")
    assert table(game).cards == cards("9j")


def test_leader_must_play():
    game = start(QUIET)
    assert not game.decision(0).allows(PASS)
    assert rule_of(game, 0, PASS) == "leader-must-play"


# ----- calls -----------------------------------------------------------------------------------

def test_tichu_offered_with_the_exchange_decision():
    d = QUIET
    game = Game(0, dealer=d.dealer())
    assert not game.decision(0).may_call_tichu, "not with the Grand Tichu decision (8 cards)"
    for s in range(4):
        game.apply(s, GrandTichu(False))
    assert all(game.decision(s).may_call_tichu for s in range(4))
    game.apply(1, d.exchanges[1]._replace(call_tichu=True))
    for s in (0, 2, 3):
        game.apply(s, d.exchanges[s])
    assert game.observation(0).tichu == (False, True, False, False)


def test_tichu_offered_in_the_window_after_the_exchange():
    d = QUIET
    game = Game(0, dealer=d.dealer())
    for s in range(4):
        game.apply(s, GrandTichu(s == 3))
    for s in range(4):
        game.apply(s, d.exchanges[s]._replace(call_tichu=s == 1))
    assert game.phase is DecisionKind.TICHU
    assert game.to_act() == (0, 2), "only seats with no call yet are asked"
    assert game.decision(0).allows(CallTichu(True))
    game.apply(0, CallTichu(True))
    assert game.observation(2).tichu == (False, True, False, False), "simultaneous window"
    game.apply(2, CallTichu(False))
    assert game.observation(2).tichu == (True, True, False, False)
    assert game.phase is DecisionKind.PLAY


def test_tichu_offered_with_every_play_pass_and_bomb_decision_until_first_card():
    d = deal("Mahjong Dog Phoenix Dragon 3j", "5s 7j", "4s 6j Aj", "9j 9s 9p 9t")
    game = start(d)
    assert game.decision(0).may_call_tichu
    play(game, 0, "3j")
    assert game.phase is DecisionKind.BOMB and game.to_act() == (3,)
    assert game.decision(3).may_call_tichu, "with the bomb-window decision"
    decline_window(game)
    assert game.decision(1).may_call_tichu
    game.apply(1, Pass(call_tichu=True))
    assert game.observation(0).tichu == (False, True, False, False)
    decline_window(game)
    play(game, 2, "Aj", call_tichu=True)
    assert game.observation(0).tichu == (False, True, True, False)
    decline_window(game)
    pass_turn(game, 3)
    decline_window(game)
    assert not game.decision(0).may_call_tichu, "seat 0 has played a card"
    assert rule_of(game, 0, Pass(call_tichu=True)) == "tichu-not-allowed"


def test_player_who_has_only_passed_may_still_call_tichu():
    game = start(QUIET)
    play(game, 0, "9j")
    pass_turn(game, 1)
    pass_turn(game, 2)
    pass_turn(game, 3)
    play(game, 0, "3j")
    assert game.decision(1).may_call_tichu
    game.apply(1, Play(cards("7j"), call_tichu=True))
    assert game.observation(3).tichu[1]


def test_tichu_not_offered_after_a_grand_tichu_call():
    d = QUIET
    game = Game(0, dealer=d.dealer())
    for s in range(4):
        game.apply(s, GrandTichu(s == 0))
    assert not game.decision(0).may_call_tichu
    assert rule_of(game, 0, d.exchanges[0]._replace(call_tichu=True)) == "tichu-not-allowed"
    for s in range(4):
        game.apply(s, d.exchanges[s])
    assert 0 not in game.to_act()
    for s in game.to_act():
        game.apply(s, CallTichu(False))
    assert not game.decision(0).may_call_tichu
    assert rule_of(game, 0, Play(cards("Mahjong"), call_tichu=True)) == "tichu-not-allowed"


def test_tichu_not_offered_twice():
    game = start(QUIET, tichu=(1,))
    play(game, 0, "3j")
    assert not game.decision(1).may_call_tichu


def test_dog_lead_ends_the_tichu_offer_for_its_player():
    game = start(QUIET)
    play(game, 0, "Dog")
    assert game.decision(2).may_call_tichu
    play(game, 2, "4s")
    pass_turn(game, 3)
    assert not game.decision(0).may_call_tichu, "leading the Dog is playing a card"


def test_both_partners_may_call_tichu():
    game = start(QUIET, tichu_with_exchange=(0,), tichu=(2,))
    assert game.observation(1).tichu == (True, False, True, False)


def test_no_tichu_offer_with_the_dragon_gift_decision():
    game = start(QUIET)
    play(game, 0, "Dragon")
    others_pass(game)
    assert game.phase is DecisionKind.DRAGON_GIFT
    assert not game.decision(0).may_call_tichu


# ----- trick flow and going out ----------------------------------------------------------------

def test_seat_that_passed_may_play_again_in_the_same_trick():
    game = start(QUIET)
    play(game, 0, "3j")
    pass_turn(game, 1)
    play(game, 2, "4s")
    pass_turn(game, 3)
    pass_turn(game, 0)
    play(game, 1, "7j")
    assert table(game).cards == cards("7j")


def test_trick_ends_when_every_other_seat_holding_cards_passed_in_a_row():
    game = start(QUIET)
    play(game, 0, "3j")
    pass_turn(game, 1)
    play(game, 2, "4s")
    pass_turn(game, 3)
    pass_turn(game, 0)
    assert table(game) is not None, "seat 1 has not passed since the last play"
    pass_turn(game, 1)
    [trick] = events(game, "trick")
    assert (trick.seat, trick.data["taker"], trick.data["cards"]) == (2, 2, cards("3j 4s"))
    assert game.to_act() == (2,) and table(game) is None, "the winner leads the next trick"


def test_follow_must_be_same_type_and_size_and_higher():
    game = start(QUIET)
    play(game, 0, "9j")
    assert rule_of(game, 1, Play(cards("7j"))) == "does-not-beat-table"
    assert rule_of(game, 1, Play(cards("Dragon"))) == "card-not-held"


def test_player_out_who_wins_the_trick_gathers_it_and_lead_goes_to_next_seat_with_cards():
    game = start(deal("Mahjong 2j 3s 4p 5t 6j 7s 8p 9t Tj Js Qp Kt Aj", "Dog", "Phoenix", "Dragon"))
    play(game, 0, "Mahjong 2j 3s 4p 5t 6j 7s 8p 9t Tj Js Qp Kt Aj")
    assert events(game, "out")[0].seat == 0
    for seat in (1, 2, 3):
        pass_turn(game, seat)
    [trick] = events(game, "trick")
    assert trick.data["taker"] == 0
    assert game.observation(0).points_taken[0] == 25
    assert game.to_act() == (1,)


def test_out_seats_are_skipped_next_seat_is_the_next_holding_cards():
    game = start(deal("Mahjong 2j 3s 4p 5t 6j 7s 8p 9t Tj Js Qp Kt Aj", "Dog", "Phoenix", "Dragon"))
    lead_out(game, 0, ["Mahjong 2j 3s 4p 5t 6j 7s 8p 9t Tj Js Qp Kt Aj"])
    options = [o for o in game.decision(1).options if isinstance(o, Play) and o.cards != cards("Dog")]
    game.apply(1, options[0])
    assert game.to_act() == (2,)
    pass_turn(game, 2)
    pass_turn(game, 3)
    assert game.to_act() == (1,), "seat 0 is out and skipped; seat 1 gathered"
