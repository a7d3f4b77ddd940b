"""Deals consistent with what a seat knows: the hidden hands filled in at random.

Every sample gives each other seat exactly as many cards as it holds, the cards it is known
to hold (`Knowledge.held`) and none it cannot hold (`Knowledge.void`), out of the cards this
seat has not seen. It is weighted by the calls: a seat that called Tichu or Grand Tichu
draws the strong cards (Dragon, Phoenix, Aces, Kings) more often than the others.

The cards are dealt one at a time to a seat drawn in proportion to its free places (times
its weight for the card), which is uniform over the consistent deals when no weight applies;
the cards with a restriction go first, so a deal can only fail on constraints that no deal
meets, and then the restriction is dropped (it came from a wrong inference).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from arena.rules.cards import DRAGON, PHOENIX, cards_of, rank_mask

STRONG = (1 << DRAGON) | (1 << PHOENIX) | rank_mask(14) | rank_mask(13)
"""The cards a caller is likelier to hold."""
CALLER_WEIGHT = 2.5
"""How much likelier a Tichu caller is to hold each strong card (Grand Tichu: 1.5 times
that, since the call was made on 8 cards alone)."""


def sample_hands(rng: random.Random, seat: int, hand: int, counts: Sequence[int],
                 unseen: int, held: Sequence[int], void: Sequence[int],
                 callers: Sequence[float] = (1.0, 1.0, 1.0, 1.0)) -> tuple[int, int, int, int]:
    """A deal of `unseen` to the other seats: `counts[s]` cards each, `held[s]` among them
    and nothing of `void[s]`; `seat` keeps `hand`. `callers[s]` weighs seat s's chance of
    drawing each strong card (1.0: no weight)."""
    others = [s for s in range(4) if s != seat]
    hands = [0, 0, 0, 0]
    hands[seat] = hand
    need = [0, 0, 0, 0]
    free = unseen
    for s in others:
        known = held[s] & unseen
        hands[s] = known
        free &= ~known
        need[s] = counts[s] - known.bit_count()
    if sum(need) != free.bit_count() or min(need) < 0:
        raise ValueError("the hand counts do not fit the cards unseen")
    restricted = 0
    for s in others:
        restricted |= void[s]
    restricted &= free
    weighted = STRONG & free & ~restricted if max(callers) > 1.0 else 0
    for _ in range(8):
        dealt = _deal_each(rng, others, hands, need, free, restricted, weighted, void, callers)
        if dealt is not None:
            return dealt
    return _deal_each(rng, others, hands, need, free, restricted | weighted, 0,  # type: ignore[return-value]  # no void: never None
                      (0, 0, 0, 0), callers)


def _deal_each(rng: random.Random, others: list[int], hands: list[int], need: list[int],
               free: int, one_by_one: int, weighted: int, void: Sequence[int],
               callers: Sequence[float]) -> tuple[int, int, int, int] | None:
    """Deal the cards of `one_by_one` (restricted: first) and `weighted` one at a time, the
    rest shuffled into the places left; None if a card found no seat that may hold it."""
    hands = list(hands)
    need = list(need)
    first = cards_of(one_by_one)
    rng.shuffle(first)
    strong = cards_of(weighted)
    rng.shuffle(strong)
    random_ = rng.random
    for card in first + strong:
        bit = 1 << card
        weight = [0.0, 0.0, 0.0, 0.0]
        total = 0.0
        for s in others:
            if need[s] and not void[s] & bit:
                w = need[s] * (callers[s] if weighted & bit else 1.0)
                weight[s] = w
                total += w
        if not total:
            return None
        x = random_() * total
        chosen = -1
        for s in others:
            if weight[s]:
                chosen = s  # (the last seat with a weight, should rounding carry x past it)
                x -= weight[s]
                if x < 0:
                    break
        hands[chosen] |= bit
        need[chosen] -= 1
    rest = cards_of(free & ~one_by_one & ~weighted)
    rng.shuffle(rest)
    k = 0
    for s in others:
        n = need[s]
        for card in rest[k:k + n]:
            hands[s] |= 1 << card
        k += n
    return hands[0], hands[1], hands[2], hands[3]


def caller_weights(grand_tichu: Sequence[bool], tichu: Sequence[bool]) -> tuple[float, ...]:
    """Each seat's weight on the strong cards for its calls (see `sample_hands`)."""
    return tuple(CALLER_WEIGHT * 1.5 if g else CALLER_WEIGHT if t else 1.0
                 for g, t in zip(grand_tichu, tichu, strict=True))
