"""The options objects the engine hands out: a forced pass's, an exchange's (issue 18's fast paths)."""

from __future__ import annotations

import itertools
import pickle
import random

import pytest

from arena.rules import (
    PASS,
    CallTichu,
    Decision,
    DecisionKind,
    Exchange,
    Game,
    GiveDragon,
    GrandTichu,
    IllegalAction,
    Pass,
    Play,
    classify,
)
from arena.rules.actions import PlayOptions
from arena.rules.cards import cards_of
from tests.rules.helpers import cards, deal, start, table


def _first_forced_pass(seed: int) -> tuple[Game, int]:
    """A game (played by seeded random choices) at a decision whose only option is a pass."""
    rng = random.Random(seed)
    game = Game(seed)
    while game.phase is not None:
        for seat in game.to_act():
            decision = game.decision(seat)
            if decision.only_pass:
                return game, seat
            if decision.kind in (DecisionKind.GRAND_TICHU, DecisionKind.TICHU):
                game.apply(seat, decision.options[0])
            else:
                game.apply(seat, rng.choice(decision.options))
    raise AssertionError("no forced pass in a whole game")


def test_a_forced_pass_offers_exactly_pass_and_still_reads_as_play_options():
    game, seat = _first_forced_pass(3)
    decision = game.decision(seat)
    options = decision.options
    assert isinstance(options, PlayOptions) and list(options) == [PASS] and len(options) == 1
    assert options.can_pass and not options.combinations and decision.can_pass
    assert decision.allows(PASS) and not decision.allows(CallTichu(False))  # equal tuples
    assert not decision.allows(Play(game.hands[seat] & -game.hands[seat]))
    assert pickle.loads(pickle.dumps(decision)) == decision


def test_an_exchange_as_the_options_give_it_or_rebuilt_is_the_same_move():
    games = [Game(11), Game(11)]
    for game in games:
        for seat in range(4):
            game.apply(seat, GrandTichu(False))
    options = [games[0].decision(s).options for s in range(4)]
    picks = [options[s][37 * s + 5] for s in range(4)]
    for s in range(4):
        games[0].apply(s, picks[s])  # the very objects the options handed out
        games[1].apply(s, Exchange(list(picks[s].give)))  # rebuilt: checked rule by rule
    assert games[0].hands == games[1].hands and games[0].phase is games[1].phase
    assert games[0].observation(0) == games[1].observation(0)


def _exchange_decision(seed: int = 5):
    game = Game(seed)
    for seat in range(4):
        game.apply(seat, GrandTichu(False))
    return game, game.decision(0)


def test_the_exchange_options_are_every_ordered_three_cards_of_the_hand():
    # The rule book: give one card to each other seat, three different cards of the hand.
    game, decision = _exchange_decision()
    hand = cards_of(game.hands[0])
    options = decision.options
    expected = {Exchange(give) for give in itertools.permutations(hand, 3)}
    assert len(options) == 14 * 13 * 12 == len(expected)
    assert set(options) == expected and len(list(options)) == len(options)
    assert options[2:5] == [options[2], options[3], options[4]]
    assert options[::1000] == [options[0], options[1000], options[2000]]
    assert options[-1] == options[len(options) - 1] and options[True] == options[1]
    for index in (len(options), -len(options) - 1):
        with pytest.raises(IndexError):
            options[index]
    with pytest.raises(TypeError):
        options["1"]


def test_an_exchange_must_give_three_different_cards_of_the_hand():
    game, decision = _exchange_decision()
    hand = cards_of(game.hands[0])
    elsewhere = cards_of(game.hands[1])
    a, b, c, d = hand[:4]
    assert decision.allows(Exchange((a, b, c))) and decision.allows(Exchange((c, b, a), True))
    assert Exchange((hand[-1], b, c)) in decision.options  # the highest card too
    for give in ((a, a, b), (a, b, elsewhere[0]), (elsewhere[0], a, b), (a, b), (a, b, c, d),
                 (a, b, 56), (a, b, -1), (a, b, float(c)), (a, b, str(c))):
        assert not decision.allows(Exchange(give)), give
        assert Exchange(give) not in decision.options, give
    assert (a, b, c) not in decision.options  # a tuple, not an Exchange
    assert not decision.allows(Play(1 << a)) and not decision.allows(PASS)


def test_seat_0_may_give_card_0():
    # A hand that holds card 0 (the Jade 2) gives it like any other card.
    for seed in range(50):
        game, decision = _exchange_decision(seed)
        if game.hands[0] & 1:
            break
    else:
        raise AssertionError("no seed deals card 0 to seat 0 in 50")
    others = cards_of(game.hands[0])[1:3]
    assert decision.allows(Exchange((0, *others)))


def test_a_play_decision_refuses_other_kinds_of_action_and_an_unallowed_tichu_call():
    two = cards("2j")
    options = PlayOptions([classify(two, 0, None)], can_pass=True)
    may_call = Decision(0, DecisionKind.PLAY, options, may_call_tichu=True)
    may_not = may_call._replace(may_call_tichu=False)
    for decision in (may_call, may_not):
        assert decision.allows(Play(two)) and decision.allows(PASS)
        for other in (GiveDragon(1), GrandTichu(False), CallTichu(False), Exchange((0, 1, 2)),
                      Play(cards("3j"))):
            assert not decision.allows(other), other
    assert may_call.allows(Play(two, call_tichu=True)) and may_call.allows(Pass(True))
    assert not may_not.allows(Play(two, call_tichu=True)) and not may_not.allows(Pass(True))


def test_a_wish_is_a_rank_from_2_to_14_made_with_the_mahjong():
    mahjong, two = cards("Mahjong"), cards("2j")
    options = PlayOptions([classify(mahjong, 0, None), classify(two, 0, None)], can_pass=False)
    decision = Decision(0, DecisionKind.PLAY, options)
    for wish in (0, 2, 7, 14):
        assert decision.allows(Play(mahjong, wish=wish)), wish
    for wish in (1, 15, -2):
        assert not decision.allows(Play(mahjong, wish=wish)), wish
    assert decision.allows(Play(two)) and not decision.allows(Play(two, wish=5))


def test_play_options_index_like_a_sequence():
    options = PlayOptions([classify(cards("2j"), 0, None), classify(cards("3j"), 0, None)],
                          can_pass=True)
    assert list(options) == [PASS, Play(cards("2j")), Play(cards("3j"))]
    assert options[-1] == options[2] == Play(cards("3j")) and options[-3] == PASS
    assert options[False] == PASS and options[True] == Play(cards("2j"))
    assert options[1:] == [Play(cards("2j")), Play(cards("3j"))]
    for index in (3, -4):
        with pytest.raises(IndexError):
            options[index]
    with pytest.raises(TypeError):
        options["1"]


def _take(game: Game, seat: int, play: Play) -> Play:
    """Index `seat`'s option `play` as a player picking it does (the last option indexed is
    the one the engine's fast path trusts), and return the object handed out."""
    options = game.decision(seat).options
    index = list(options).index(play)
    taken = options[index]
    assert taken == play
    return taken


def test_a_play_applied_right_after_taking_an_option_is_checked_unless_it_is_that_option():
    # Seat 0 leads, holding the Mah Jong, the 7 and the 8 (RULES.md: a wish is a rank 2..14
    # made with the Mah Jong; cards must be whole card sets held by the seat).
    d = deal("Mahjong 7j 8j Dog", "Phoenix", "Dragon", "")
    mahjong, seven, eight, ace = cards("Mahjong"), cards("7j"), cards("8j"), cards("Aj")
    refused = [
        (Play(mahjong), Play(float(mahjong)), "not-a-card-set"),     # the same cards, a float
        (Play(mahjong), Play(mahjong, 0.0), "not-a-rank"),          # phoenix_as a float
        (Play(mahjong), Play(mahjong, wish=15), "wish-rank"),       # a wish out of 2..14
        (Play(mahjong), Play(mahjong, wish=1), "wish-rank"),
        (Play(mahjong), Play(mahjong, wish=5.0), "not-a-rank"),     # a wish not an int
        (Play(seven), Play(seven, wish=5), "wish-without-mahjong"),  # a wish without it
        (Play(seven), Play(ace), "card-not-held"),                  # other cards, not held
    ]
    for option, action, rule in refused:
        game = start(d)
        _take(game, 0, option)
        with pytest.raises(IllegalAction) as info:
            game.apply(0, action)
        assert info.value.rule == rule, (action, info.value.rule)
        assert game.observation(0).hand == d.hands[0] and table(game) is None
    # Other cards the seat holds, right after taking the 7: the 8 is played, not the 7.
    game = start(d)
    _take(game, 0, Play(seven))
    game.apply(0, Play(eight))
    assert table(game).cards == eight and game.observation(0).hand == d.hands[0] & ~eight
    # The option itself, and with a wish 2..14 when it holds the Mah Jong, is played.
    for wish in (0, 2, 14):
        game = start(d)
        _take(game, 0, Play(mahjong))
        game.apply(0, Play(mahjong, wish=wish))
        assert table(game).cards == mahjong and game.wish == wish


def test_the_option_taken_is_applied_as_the_very_combination_handed_out():
    # PlayOptions' promise (the engine's fast path): the option indexed last, applied as it is
    # or with a valid wish, is played as its own combination object, not checked again.
    d = deal("Mahjong 7j 8j Dog", "Phoenix", "Dragon", "")
    for option, action in ((Play(cards("7j")), Play(cards("7j"))),
                           (Play(cards("Mahjong")), Play(cards("Mahjong"), wish=2)),
                           (Play(cards("Mahjong")), Play(cards("Mahjong"), wish=14))):
        game = start(d)
        options = game.decision(0).options
        _take(game, 0, option)
        game.apply(0, action)
        assert game.table is options.taken_combination, action
