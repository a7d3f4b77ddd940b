"""Property-based self-play: invariants over thousands of random games (RULES.md as a whole).

Random players call Tichu and Grand Tichu now and then and wish with most Mah Jong plays, so
every rule is exercised. Small targets keep each game to a few rounds.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.rules import (
    PUBLIC,
    CallTichu,
    DecisionKind,
    Game,
    GrandTichu,
    Play,
    team_of,
)
from arena.rules.cards import FULL_DECK, MAHJONG_BIT

seeds = st.integers(0, 2**32 - 1)
targets = st.integers(1, 300)


def choose(rng: random.Random, decision):
    kind = decision.kind
    if kind is DecisionKind.GRAND_TICHU:
        return GrandTichu(rng.random() < 0.05)
    if kind is DecisionKind.TICHU:
        return CallTichu(rng.random() < 0.1)
    action = decision.options[rng.randrange(len(decision.options))]
    if decision.may_call_tichu and rng.random() < 0.03:
        action = action._replace(call_tichu=True)
    if isinstance(action, Play) and action.cards & MAHJONG_BIT and rng.random() < 0.7:
        action = action._replace(wish=rng.randint(2, 14))
    return action


def play_out(seed: int, target: int, check=None, max_actions: int = 20000) -> Game:
    """A random game played to its end; `check(game, seat, decision, action)` before each."""
    rng = random.Random(seed)
    game = Game(seed, target)
    for _ in range(max_actions):
        if game.over:
            return game
        seat = game.to_act()[rng.randrange(len(game.to_act()))]
        decision = game.decision(seat)
        action = choose(rng, decision)
        if check:
            check(game, seat, decision, action)
        game.apply(seat, action)
    raise AssertionError("game did not end")


def state_cards(game: Game) -> list[int]:
    return list(game.hands) + list(game.won) + [game.trick]


@settings(max_examples=400, deadline=None, derandomize=True)
@given(seeds, targets)
def test_all_56_cards_always_accounted_for(seed, target):
    def check(game, seat, decision, action):
        parts = state_cards(game)
        union = 0
        for p in parts:
            assert not union & p, "a card is in two places"
            union |= p
        assert union == FULL_DECK or game.phase is DecisionKind.GRAND_TICHU

    play_out(seed, target, check)


@settings(max_examples=600, deadline=None, derandomize=True)
@given(seeds, targets)
def test_each_round_scores_100_card_points_or_200_to_0_and_calls_on_top(seed, target):
    game = play_out(seed, target)
    previous = (0, 0)
    calls_by_round = _calls_by_round(game)
    for end, calls in zip([e for e in game.events if e.kind == "round_end"], calls_by_round, strict=True):
        points = end.data["card_points"]
        if end.data["double_victory"]:
            first = end.data["out_order"][0]
            assert len(end.data["out_order"]) == 2
            assert team_of(end.data["out_order"][1]) == team_of(first)
            assert points[team_of(first)] == 200 and points[1 - team_of(first)] == 0
        else:
            assert sum(points) == 100 and len(end.data["out_order"]) == 3
        first = end.data["out_order"][0]
        expected = [0, 0]
        for s, (grand, tichu) in calls.items():
            bonus = 200 if grand else 100 if tichu else 0
            expected[team_of(s)] += bonus if s == first else -bonus
        assert end.data["calls"] == tuple(expected)
        scores = end.data["scores"]
        assert scores == tuple(previous[t] + points[t] + expected[t] for t in (0, 1))
        previous = scores
    assert tuple(game.scores) == previous


def _calls_by_round(game: Game) -> list[dict[int, tuple[bool, bool]]]:
    rounds = []
    for e in game.events:
        if e.kind == "round_start":
            rounds.append({s: (False, False) for s in range(4)})
        elif e.kind == "grand_tichu" and e.data["called"]:
            rounds[-1][e.seat] = (True, False)
        elif e.kind == "tichu":
            assert not rounds[-1][e.seat][0], "no Tichu after a Grand Tichu"
            assert not rounds[-1][e.seat][1], "no second Tichu"
            rounds[-1][e.seat] = (False, True)
    return rounds


@settings(max_examples=400, deadline=None, derandomize=True)
@given(seeds, targets)
def test_game_ends_exactly_when_a_team_reaches_target_with_more_points(seed, target):
    game = play_out(seed, target)
    ends = [e for e in game.events if e.kind == "round_end"]
    for end in ends[:-1]:
        a, b = end.data["scores"]
        assert max(a, b) < target or a == b, "the game should have ended here"
    a, b = ends[-1].data["scores"]
    assert max(a, b) >= target and a != b
    assert game.winner == (0 if a > b else 1)
    assert game.events[-1].kind == "game_end"


@settings(max_examples=400, deadline=None, derandomize=True)
@given(seeds, targets)
def test_every_action_taken_is_allowed_by_its_decision(seed, target):
    def check(game, seat, decision, action):
        assert decision.seat == seat and seat in game.to_act()
        assert decision.kind is game.phase
        assert decision.allows(action)
        if decision.kind in (DecisionKind.PLAY, DecisionKind.BOMB):
            assert decision.may_call_tichu == (
                not _has_played(game, seat) and not _has_called(game, seat))

    play_out(seed, target, check)


def _round_events(game: Game):
    start = max(i for i, e in enumerate(game.events) if e.kind == "round_start")
    return game.events[start:]


def _has_played(game: Game, seat: int) -> bool:
    return any(e.kind == "play" and e.seat == seat for e in _round_events(game))


def _has_called(game: Game, seat: int) -> bool:
    return any((e.kind == "tichu" and e.seat == seat)
               or (e.kind == "grand_tichu" and e.seat == seat and e.data["called"])
               for e in _round_events(game))


def _card_sets(value):
    """Every card set (int) in an event's data (combinations included)."""
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield value
    elif isinstance(value, tuple) and hasattr(value, "cards"):
        yield value.cards
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from _card_sets(v)


CARD_KEYS = {"cards", "received", "given", "combination"}


@settings(max_examples=300, deadline=None, derandomize=True)
@given(seeds, targets)
def test_no_observation_contains_another_seats_hidden_card(seed, target):
    rng = random.Random(seed ^ 0x5EED)

    def check(game, seat, decision, action):
        if rng.random() > 0.15:
            return
        public = 0
        for e in _round_events(game):
            if e.kind == "play":
                public |= e.data["cards"]
        for s in range(4):
            obs = game.observation(s)
            assert obs.hand == game.hands[s]
            known = public | obs.hand
            for e in obs.round_events:
                assert e.visible_to in (PUBLIC, s)
                if e.visible_to == s and e.kind in ("deal", "exchange"):
                    for key in CARD_KEYS & e.data.keys():
                        for c in _card_sets(e.data[key]):
                            known |= c
            for e in obs.round_events:
                for key in CARD_KEYS & e.data.keys():
                    for c in _card_sets(e.data[key]):
                        assert c & ~known == 0, (e, s)
            assert obs.hand_counts == tuple(h.bit_count() for h in game.hands)

    play_out(seed, target, check)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(seeds, targets)
def test_replay_from_seed_and_actions_reproduces_events_and_scores(seed, target):
    game = play_out(seed, target)
    again = Game.replay(seed, game.actions, target)
    assert again.events == game.events
    assert again.scores == game.scores and again.winner == game.winner and again.over


def test_random_players_exercise_calls_wishes_bombs_dogs_and_dragons():
    seen = set()
    for seed in range(40):
        game = play_out(seed, 300)
        for e in game.events:
            seen.add(e.kind)
            if e.kind == "trick" and e.data["cards"] >> 55 & 1 and e.data["taker"] != e.seat:
                seen.add("dragon_given")
            if e.kind == "play" and e.data["out_of_turn"]:
                seen.add("out_of_turn_bomb")
            if e.kind == "round_end" and e.data["double_victory"]:
                seen.add("double_victory")
    assert {"tichu", "wish", "wish_fulfilled", "dog", "out_of_turn_bomb",
            "double_victory", "dragon_given"} <= seen
    assert any(e.kind == "grand_tichu" and e.data["called"]
               for seed in range(40) for e in play_out(seed, 300).events)
