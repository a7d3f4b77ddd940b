"""The referee's packed requests (`arena.referee.packing`) are byte for byte the map path's:
`codec.pack(wire.request_message(...))`, which `codec.encode` (full validation) agrees with."""

from __future__ import annotations

import random

import msgpack
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.referee import packing, wire
from arena.rules import DecisionKind, Exchange, Game, Pass, Play
from arena.rules.cards import MAHJONG_BIT
from protocol import codec


def _action(game: Game, seat: int, rng: random.Random):
    """A random legal action, Tichu calls and wishes included now and then (so that every
    field of an observation takes several values), bounded so that games end."""
    decision = game.decision(seat)
    calls = game.round_number <= 2  # calls early only: random callers sink both scores
    if decision.kind is DecisionKind.EXCHANGE:
        hand = [c for c in range(56) if game.hands[seat] >> c & 1]
        return Exchange(tuple(rng.sample(hand, 3)), calls and decision.may_call_tichu
                        and rng.random() < 0.1)
    options = wire.ordered_options(decision)
    if decision.kind in (DecisionKind.GRAND_TICHU, DecisionKind.TICHU):
        return options[1 if calls and len(options) > 1 and rng.random() < 0.1 else 0]
    action = options[rng.randrange(len(options))]
    call = calls and decision.may_call_tichu and rng.random() < 0.1
    if isinstance(action, Play):
        wish = rng.choice([0, 0, 7, 14]) if action.cards & MAHJONG_BIT else 0
        return Play(action.cards, action.phoenix_as, wish, call)
    if isinstance(action, Pass):
        return Pass(call)
    return action


def _requests_agree(seed: int, target: int) -> int:
    rng = random.Random(seed)
    game = Game(seed, target)
    feed = packing.EventFeed(game)
    maps = packing.EventFeed(game)
    checked = 0
    while not game.over:
        seat = game.to_act()[0]
        decision = game.decision(seat)
        obs = game.observation(seat)
        packed_events, event_maps = feed.unsent_bytes(seat), maps.unsent(seat)
        assert packed_events == [codec.pack(m) for m in event_maps]
        for with_options in (True, False):
            request_id, deadline = rng.choice([(checked, 1000), (2**31 - 1, 0), (70000, 300)])
            message = wire.request_message(decision, obs, event_maps, request_id, deadline,
                                           with_options)
            data = packing.request_bytes(decision, obs, packed_events, request_id, deadline,
                                         with_options)
            assert data == codec.pack(message) == codec.encode(message, "referee")
        game.apply(seat, _action(game, seat, rng))
        checked += 1
    assert feed.all() == maps.all() == [wire.event_map(e) for e in game.events]
    return checked


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from([200, 500]))
def test_packed_requests_are_the_bytes_of_the_map_path(seed, target):
    assert _requests_agree(seed, target) > 50


def test_card_sets_pack_as_their_wire_lists():
    rng = random.Random(5)
    for cards in [0, 1, (1 << 56) - 1, 1 << 55, 0xFF00, *[rng.getrandbits(56) for _ in range(300)]]:
        assert packing.cards_bytes(cards) == codec.pack(wire.cards_text(cards))


def test_each_seat_is_handed_every_event_it_may_see_once_in_order():
    rng = random.Random(11)
    game = Game(11, 300)
    feed = packing.EventFeed(game)
    handed: list[list[dict]] = [[], [], [], []]
    while not game.over:
        seat = game.to_act()[0]
        handed[seat] += feed.unsent(seat) if rng.random() < 0.5 else [
            msgpack.unpackb(b) for b in feed.unsent_bytes(seat)]
        game.apply(seat, _action(game, seat, rng))
    for seat in range(4):
        handed[seat] += feed.unsent(seat)
        assert handed[seat] == [wire.event_map(e) for e in game.events if wire.visible(seat, e)]
        assert feed.unsent(seat) == []
