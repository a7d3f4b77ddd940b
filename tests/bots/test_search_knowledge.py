"""The search bot's knowledge and sampling (bots/search/searchbot): what a seat reads from
the protocol's requests is the true round, and every sampled deal is one the seat cannot
rule out."""

from __future__ import annotations

import random
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.referee import wire
from arena.referee.packing import EventFeed
from arena.rules import Game
from arena.rules.position import IN_PLAY
from tests.bots.conftest import BOTS
from tests.rules.test_selfplay_properties import choose

if str(BOTS / "search") not in sys.path:
    sys.path.append(str(BOTS / "search"))

from searchbot.knowledge import Knowledge  # noqa: E402  (bots/search on the path above)
from searchbot.sampling import caller_weights, sample_hands  # noqa: E402  (likewise)

seeds = st.integers(0, 2**32 - 1)


def _requests(seed: int, target: int, visit) -> None:
    """A random game (calls and wishes now and then); `visit(game, seat, request)` at each
    decision, with the request the referee would send the seat (its events included)."""
    rng = random.Random(seed)
    game = Game(seed, target)
    feed = EventFeed(game)
    request_id = 0
    while not game.over:
        seat = game.to_act()[rng.randrange(len(game.to_act()))]
        decision = game.decision(seat)
        request_id += 1
        request = wire.request_message(decision, game.observation(seat), feed.unsent(seat),
                                       request_id, 1000)
        visit(game, seat, request)
        game.apply(seat, choose(rng, decision))


@settings(max_examples=60, deadline=None, derandomize=True)
@given(seeds, st.integers(1, 600))
def test_a_seat_knows_the_true_position_and_never_rules_out_the_truth(seed, target):
    knowledge = [Knowledge(s) for s in range(4)]

    def visit(game: Game, seat: int, request: dict) -> None:
        known = knowledge[seat]
        known.read(request)
        for s in range(4):
            assert known.held[s] & ~game.hands[s] == 0, "a card held that is not"
            assert known.void[s] & game.hands[s] == 0, "a card ruled out that is held"
        assert known.hand == game.hands[seat]
        if game.phase in IN_PLAY:
            assert known.position(request["kind"], game.hands) == game.position()

    _requests(seed, target, visit)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(seeds, st.integers(1, 600), st.floats(0.05, 0.95), st.integers(0, 2**16))
def test_samples_never_deal_a_card_a_seat_cannot_hold_and_keep_hand_sizes(seed, target, cut,
                                                                          sampling_seed):
    """At a random decision of a random game, every sample gives each seat its number of
    cards, the seat asked its own hand, each other seat the cards it is known to hold and
    none it cannot hold, out of the cards the seat asked has not seen."""
    knowledge = [Knowledge(s) for s in range(4)]
    visits = [0]
    rng = random.Random(sampling_seed)

    def visit(game: Game, seat: int, request: dict) -> None:
        known = knowledge[seat]
        known.read(request)
        visits[0] += 1
        if game.phase not in IN_PLAY or rng.random() > cut:
            return
        unseen = known.unseen()
        weights = caller_weights(known.grand_tichu, known.tichu)
        for _ in range(5):
            hands = sample_hands(rng, seat, known.hand, known.counts, unseen, known.held,
                                 known.void, weights)
            assert hands[seat] == known.hand
            assert [h.bit_count() for h in hands] == [h.bit_count() for h in game.hands]
            dealt = 0
            for s in range(4):
                assert not dealt & hands[s], "a card dealt twice"
                dealt |= hands[s]
                if s != seat:
                    assert hands[s] & ~unseen == 0, "a card dealt that the seat has seen"
                    assert known.held[s] & ~hands[s] == 0, "a known card not dealt to its seat"
                    assert known.void[s] & hands[s] == 0, "a card dealt to a seat that cannot hold it"
            assert dealt == unseen | known.hand

    _requests(seed, target, visit)
    assert visits[0]


def test_a_wish_not_fulfilled_rules_the_rank_out():
    """Seat 1 passes on the Mah Jong while an 8 is wished: it holds no 8, and no sample
    deals it one."""
    knowledge = Knowledge(0)
    knowledge.start_round(1, (0, 0))
    for event in ({"kind": "play", "seat": 0, "cards": ["Mahjong"], "combination": "single",
                   "phoenix_as": None, "out_of_turn": False},
                  {"kind": "wish", "seat": 0, "rank": "8"}, {"kind": "pass", "seat": 1},
                  {"kind": "play", "seat": 2, "cards": ["3j"], "combination": "single",
                   "phoenix_as": None, "out_of_turn": False}):
        knowledge.observe(event)
    eights = sum(1 << c for c in range(24, 28))
    assert knowledge.void[1] == eights and knowledge.void[2] == eights
    assert knowledge.void[3] == 0
    rng = random.Random(3)
    hand = 1 << 0  # seat 0 holds the 2j; the Mah Jong, the 3j and 12 others are played
    unseen = ((1 << 56) - 1) & ~hand & ~(1 << 52) & ~(1 << 4) & ~sum(1 << c for c in range(36, 48))
    for _ in range(200):
        hands = sample_hands(rng, 0, hand, (1, 14, 13, 14), unseen, knowledge.held,
                             knowledge.void)
        assert hands[3] & eights == eights
