"""Positions (`arena/rules/position.py`): a round read off a game, rebuilt from one seat's
observation and the hands, and a game started from it that plays on exactly as the original.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.rules import DecisionKind, Game, Play
from arena.rules.cards import DRAGON_BIT
from arena.rules.position import IN_PLAY, next_seat, observed_position
from tests.rules.helpers import cards, deal, others_pass, start
from tests.rules.test_selfplay_properties import choose, play_out

seeds = st.integers(0, 2**32 - 1)
targets = st.integers(1, 400)


@settings(max_examples=80, deadline=None, derandomize=True)
@given(seeds, targets)
def test_every_seat_observes_the_position_given_the_hands(seed, target):
    def check(game, seat, decision, action):
        if game.phase not in IN_PLAY:
            return
        truth = game.position()
        for s in range(4):  # each seat's view, with the true hands filled in
            assert observed_position(game.observation(s), game.hands) == truth

    play_out(seed, target, check)


def test_every_seat_observes_the_position_in_a_dozen_rounds():
    """The property above on twelve fixed one-round games (target 1), fast enough for the
    mutation runs, which leave the property out; the rounds meet every phase of play, a
    bomb window on a table, a Dog played and seats still to pass."""
    met = set()

    def check(game, seat, decision, action):
        if game.phase not in IN_PLAY:
            return
        truth = game.position()
        met.add(game.phase)
        met.update(e.kind for e in game.observation(0).round_events if e.kind == "dog")
        if truth.to_pass:
            met.add("to pass")
        for s in range(4):
            assert observed_position(game.observation(s), game.hands) == truth

    for seed in range(12):
        play_out(seed, 1, check)
    assert met == {*IN_PLAY, "dog", "to pass"}


def test_positions_are_met_in_each_phase_of_play():
    phases = set()

    def check(game, seat, decision, action):
        phases.add(game.phase)

    for seed in range(40):
        play_out(seed, 300, check)
    assert set(IN_PLAY) <= phases


def _decision_summary(game: Game, seat: int) -> tuple:
    decision = game.decision(seat)
    return (decision.seat, decision.kind, decision.may_call_tichu, decision.must_fulfil_wish,
            sorted(map(tuple, decision.options)) if decision.kind is not DecisionKind.EXCHANGE
            else len(decision.options))


@settings(max_examples=100, deadline=None, derandomize=True)
@given(seeds, targets, st.floats(0.0, 1.0))
def test_a_game_from_a_position_plays_on_exactly_as_the_original(seed, target, cut):
    """Cut a random game at an in-play decision, start a game from the position there, and
    apply the original's remaining actions: every decision, position and score matches, to
    the end of the game (later rounds dealt from the same seed)."""
    original = play_out(seed, target)
    replay = Game(seed, target)
    cuts = []
    for k, (seat, action) in enumerate(original.actions):
        if replay.phase in IN_PLAY:
            cuts.append(k)
        replay.apply(seat, action)
    if not cuts:
        return
    at = cuts[min(int(cut * len(cuts)), len(cuts) - 1)]
    game = Game.replay(seed, original.actions[:at], target)
    rebuilt = Game.from_position(game.position(), seed=seed)
    assert rebuilt.position() == game.position()
    for seat, action in original.actions[at:]:
        assert rebuilt.to_act() == game.to_act()
        assert _decision_summary(rebuilt, seat) == _decision_summary(game, seat)
        if game.phase in IN_PLAY:
            assert rebuilt.position() == game.position()
        game.apply(seat, action)
        rebuilt.apply(seat, action)
        assert rebuilt.scores == game.scores and rebuilt.round_number == game.round_number
    assert rebuilt.over and rebuilt.winner == original.winner


@settings(max_examples=100, deadline=None, derandomize=True)
@given(seeds)
def test_a_sampled_position_plays_to_the_round_end_with_100_points(seed):
    """A position whose hidden hands are dealt anew (the counts kept) is a legal round."""
    rng = random.Random(seed)
    game = Game(seed, 10_000)
    for _ in range(rng.randrange(20, 120)):
        if game.phase in IN_PLAY and rng.random() < 0.1:
            break
        seat = game.to_act()[rng.randrange(len(game.to_act()))]
        game.apply(seat, choose(rng, game.decision(seat)))
    if game.phase not in IN_PLAY:
        return
    position = game.position()
    asked = position.to_act
    hidden = [c for s in range(4) if s != asked for c in range(56) if position.hands[s] >> c & 1]
    rng.shuffle(hidden)
    hands = list(position.hands)
    for s in range(4):
        if s != asked:
            n = hands[s].bit_count()
            hands[s] = sum(1 << c for c in hidden[:n])
            hidden = hidden[n:]
    position = position._replace(hands=tuple(hands))
    if position.phase is DecisionKind.BOMB:  # the window is the asked seat's own bomb
        position = position._replace(phase=DecisionKind.PLAY, to_act=position.turn)
    sampled = Game.from_position(position)
    scores = sampled.scores.copy()
    while sampled.round_number == position.round_number and not sampled.over:
        seat = sampled.to_act()[0]
        sampled.apply(seat, choose(rng, sampled.decision(seat)))
    end = next(e for e in sampled.events if e.kind == "round_end")
    assert sum(end.data["card_points"]) in (100, 200)
    assert end.data["scores"] == tuple(scores[t] + end.data["card_points"][t] + end.data["calls"][t]
                                       for t in (0, 1))


def test_from_position_refuses_a_card_missing_or_held_twice():
    game = start(deal("Mahjong 3j", "Dragon", "Phoenix", "Dog"))
    position = game.position()
    h0, h1, h2, h3 = position.hands
    with pytest.raises(ValueError, match="56 cards"):
        Game.from_position(position._replace(hands=(h0 & (h0 - 1), h1, h2, h3)))
    with pytest.raises(ValueError, match="56 cards"):
        Game.from_position(position._replace(hands=(h0 | h1, h1, h2, h3)))


def test_from_position_refuses_a_seat_that_cannot_be_asked():
    game = start(deal("Mahjong 3j", "Dragon", "Phoenix", "Dog"))
    position = game.position()
    assert position.phase is DecisionKind.PLAY and position.to_act == 0
    with pytest.raises(ValueError, match="cannot be asked"):
        Game.from_position(position._replace(to_act=1))
    with pytest.raises(ValueError, match="cannot be asked"):
        Game.from_position(position._replace(phase=DecisionKind.BOMB))


def test_a_bomb_window_position_asks_the_bomb_and_plays_on():
    game = start(deal("Mahjong Kj", "Dragon", "9j 9s 9p 9t Phoenix", "Dog"))
    game.apply(0, Play(cards("Kj")))
    assert game.phase is DecisionKind.BOMB and game.to_act() == (2,)
    position = game.position()
    assert position.turn == 1 and position.to_pass == 0b1110
    rebuilt = Game.from_position(position)
    assert list(rebuilt.decision(2).options) == list(game.decision(2).options)
    for g in (game, rebuilt):
        g.apply(2, Play(cards("9j 9s 9p 9t")))
    assert rebuilt.position() == game.position()
    with pytest.raises(ValueError, match="no bomb"):
        Game.from_position(position._replace(to_act=3))


def test_a_dragon_gift_position_gives_the_trick_and_the_lead_goes_on():
    game = start(deal("Mahjong 3j 4j", "Dragon 5s", "Phoenix", "Dog"))
    game.apply(0, Play(cards("3j")))
    game.apply(1, Play(DRAGON_BIT))
    others_pass(game)
    assert game.phase is DecisionKind.DRAGON_GIFT
    position = game.position()
    assert position.to_act == 1 and position.turn == -1 and position.to_pass == 0
    rebuilt = Game.from_position(position)
    assert rebuilt.decision(1).options == game.decision(1).options
    with pytest.raises(ValueError, match="gives it"):
        Game.from_position(position._replace(to_act=2))


def test_no_position_outside_the_phases_of_play():
    game = Game(1)
    with pytest.raises(ValueError, match="no position"):
        game.position()
    with pytest.raises(ValueError, match="no position"):
        observed_position(game.observation(0), game.hands)


@pytest.mark.parametrize("active, seat, expected", [
    (0b1111, 0, 1), (0b1111, 3, 0),   # play order 0, 1, 2, 3, 0
    (0b1101, 0, 2), (0b1001, 0, 3),   # seats out of the round are skipped
    (0b0101, 2, 0), (0b0011, 1, 0),   # round the table
    (0b0001, 0, 0), (0b0000, 2, 2),   # nobody else: the seat itself
])
def test_the_next_seat_is_the_next_one_still_in_play(active, seat, expected):
    assert next_seat(active, seat) == expected
