"""Move generation against a brute-force oracle: every subset of a hand, classified.

The generator (`moves`) and the classifier (`combos.classify`) are two independent
implementations of the combination rules; here they must agree on random hands.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.rules import IllegalAction
from arena.rules.cards import PHOENIX_BIT, cards_of
from arena.rules.combos import DOG_T, beats, classify
from arena.rules.moves import follow_options, lead_options


def oracle(hand: int, table=None) -> set[tuple[int, int]]:
    """Every (cards, phoenix_as) of `hand` forming a combination that may be played on `table`."""
    cards = cards_of(hand)
    found = set()
    for bits in range(1, 1 << len(cards)):
        subset = sum(1 << cards[i] for i in range(len(cards)) if bits >> i & 1)
        ranks = [0] if not subset & PHOENIX_BIT or subset == PHOENIX_BIT else range(2, 15)
        for phoenix_as in ranks:
            try:
                combo = classify(subset, phoenix_as, table)
            except IllegalAction:
                continue
            if table is None or (combo.type is not DOG_T and beats(combo, table)):
                found.add((subset, phoenix_as))
    return found


def keys(combos) -> list[tuple[int, int]]:
    return [(c.cards, c.phoenix_as) for c in combos]


def _card_sets(pool: list[int], max_size: int) -> st.SearchStrategy[int]:
    return st.lists(st.sampled_from(pool), min_size=1, max_size=max_size, unique=True).map(
        lambda cs: sum(1 << c for c in cs))


# Any cards, or cards packed into a few ranks plus the specials, where straights, stairs,
# full houses and bombs (with and without the Phoenix) are common.
_DENSE = list(range(4 * 6)) + list(range(4 * 8, 4 * 13)) + [52, 53, 54, 55]
hands = st.one_of(_card_sets(list(range(56)), 9), _card_sets(_DENSE, 11))


@settings(max_examples=300, deadline=None)
@given(hands)
def test_lead_options_are_exactly_the_combinations_of_the_hand(hand: int) -> None:
    generated = keys(lead_options(hand))
    assert len(generated) == len(set(generated)), "no combination is generated twice"
    assert set(generated) == oracle(hand)


@settings(max_examples=300, deadline=None)
@given(hands, hands)
def test_follow_options_are_exactly_the_combinations_that_beat_the_table(hand: int,
                                                                        other: int) -> None:
    other &= ~hand
    leads = lead_options(other)
    if not leads:
        return
    table = random.Random(hand ^ other).choice(leads)
    generated = keys(follow_options(hand, table))
    assert len(generated) == len(set(generated))
    assert set(generated) == oracle(hand, table)


@pytest.mark.parametrize("seed", range(6))
def test_generated_leads_of_full_hands_classify_to_themselves(seed: int) -> None:
    hand = sum(1 << c for c in random.Random(seed).sample(range(56), 14))
    for combo in lead_options(hand):
        assert classify(combo.cards, combo.phoenix_as, None) == combo


full_hands = st.lists(st.integers(0, 55), min_size=14, max_size=14, unique=True).map(
    lambda cs: sum(1 << c for c in cs))


@settings(max_examples=200, deadline=None)
@given(full_hands, st.randoms(use_true_random=False))
def test_leads_of_a_smaller_hand_are_the_leads_of_the_larger_one_that_it_holds(
        hand: int, rng: random.Random) -> None:
    leads = lead_options(hand)
    smaller = hand
    for c in rng.sample(cards_of(hand), 13):
        smaller &= ~(1 << c)
        assert lead_options(smaller) == [x for x in leads if not x.cards & ~smaller]
