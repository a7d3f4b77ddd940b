"""Combinations: their types, how they compare, and classifying a stated card set.

A `Combination` is one legal shape of cards: its type, its rank (the comparison key within
the type: the top rank of stairs and straights, the triple's rank of a full house, x.5 for
a Phoenix single), its number of cards, the card set, and the rank the Phoenix stands for
in a multi-card combination (0 where it stands for none).
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

from arena.rules.cards import (
    DOG_BIT,
    DRAGON_BIT,
    DRAGON_RANK,
    MAHJONG_BIT,
    MAX_RANK,
    MIN_RANK,
    PHOENIX_BIT,
    SUITED_MASK,
)
from arena.rules.errors import IllegalAction


class ComboType(IntEnum):
    """The closed set of combination types."""

    DOG = 0
    SINGLE = 1
    PAIR = 2
    STAIRS = 3
    TRIPLE = 4
    FULL_HOUSE = 5
    STRAIGHT = 6
    FOUR_BOMB = 7
    STRAIGHT_FLUSH = 8

    @property
    def is_bomb(self) -> bool:
        return self >= ComboType.FOUR_BOMB


DOG_T, SINGLE_T, PAIR_T, STAIRS_T, TRIPLE_T = (ComboType(i) for i in range(5))
FULL_HOUSE_T, STRAIGHT_T, FOUR_T, FLUSH_T = (ComboType(i) for i in range(5, 9))
PHOENIX_LEAD_RANK = 1.5


class Combination(NamedTuple):
    """One legal shape of cards; see the module docstring for the fields."""

    type: ComboType
    rank: float
    length: int
    cards: int
    phoenix_as: int = 0

    @property
    def is_bomb(self) -> bool:
        return self.type >= FOUR_T


def beats(combo: Combination, table: Combination | None) -> bool:
    """Whether `combo` may be played on `table` (None: an empty table, anything but nothing)."""
    if table is None:
        return True
    if table.type is DOG_T:
        return False
    if combo.type >= FOUR_T:
        if table.type < FOUR_T:
            return True
        return (combo.length, combo.rank) > (table.length, table.rank)
    return combo.type is table.type and combo.length == table.length and combo.rank > table.rank


def phoenix_single_rank(table: Combination | None) -> float:
    """The rank of a Phoenix single played on `table`: half above it, 1.5 when led."""
    if table is None:
        return PHOENIX_LEAD_RANK
    return table.rank + 0.5


def classify(cards: int, phoenix_as: int, table: Combination | None) -> Combination:
    """The combination a stated card set forms; IllegalAction if it forms none.

    `phoenix_as` is the rank (2..14) the Phoenix stands for in a multi-card combination and
    must be 0 otherwise. `table` matters only for a Phoenix single, whose rank depends on it.
    """
    n = cards.bit_count()
    if n == 0:
        raise IllegalAction("empty-play", "a play must contain at least one card")
    if n == 1:
        return _classify_single(cards, phoenix_as, table)
    if cards & (DOG_BIT | DRAGON_BIT):
        raise IllegalAction("special-card-alone", "the Dog and the Dragon are only played alone")
    counts = _rank_counts(cards, phoenix_as)
    return _classify_counts(cards, n, counts, phoenix_as)


def _classify_single(cards: int, phoenix_as: int, table: Combination | None) -> Combination:
    if phoenix_as:
        raise IllegalAction("phoenix-rank-stated-for-single",
                            "a Phoenix single takes its rank from the table; state no rank")
    if cards == DOG_BIT:
        return Combination(DOG_T, 0, 1, cards)
    if cards == PHOENIX_BIT:
        if table is not None and table.cards == DRAGON_BIT:
            raise IllegalAction("phoenix-on-dragon", "the Phoenix can never be played on the Dragon")
        return Combination(SINGLE_T, phoenix_single_rank(table), 1, cards)
    if cards == DRAGON_BIT:
        return Combination(SINGLE_T, DRAGON_RANK, 1, cards)
    if cards == MAHJONG_BIT:
        return Combination(SINGLE_T, 1, 1, cards)
    return Combination(SINGLE_T, (cards.bit_length() - 1 >> 2) + 2, 1, cards)


def _rank_counts(cards: int, phoenix_as: int) -> dict[int, int]:
    """Cards per rank, the Mah Jong as rank 1 and the Phoenix as its stated rank."""
    counts: dict[int, int] = {}
    suited = cards & SUITED_MASK
    for r in range(MIN_RANK, MAX_RANK + 1):
        k = (suited >> ((r - 2) * 4) & 0xF).bit_count()
        if k:
            counts[r] = k
    if cards & MAHJONG_BIT:
        counts[1] = 1
    if cards & PHOENIX_BIT:
        if not MIN_RANK <= phoenix_as <= MAX_RANK:
            raise IllegalAction("phoenix-rank-missing",
                                "a Phoenix in a combination must state a rank from 2 to 14")
        counts[phoenix_as] = counts.get(phoenix_as, 0) + 1
    elif phoenix_as:
        raise IllegalAction("phoenix-rank-without-phoenix", "a rank for the Phoenix was stated, "
                            "but the play holds no Phoenix")
    return counts


def _classify_counts(cards: int, n: int, counts: dict[int, int], phoenix_as: int) -> Combination:
    ranks = sorted(counts)
    shape = sorted(counts.values())
    has_phoenix = bool(cards & PHOENIX_BIT)
    top = ranks[-1]
    consecutive = ranks[-1] - ranks[0] == len(ranks) - 1
    if len(ranks) == 1 and n in (2, 3):
        return Combination(PAIR_T if n == 2 else TRIPLE_T, top, n, cards, phoenix_as)
    if len(ranks) == 1 and n == 4 and not has_phoenix:
        return Combination(FOUR_T, top, 4, cards)
    if shape == [2, 3]:
        triple = next(r for r in ranks if counts[r] == 3)
        return Combination(FULL_HOUSE_T, triple, 5, cards, phoenix_as)
    if consecutive and len(ranks) >= 2 and all(k == 2 for k in shape) and 1 not in counts:
        return Combination(STAIRS_T, top, n, cards, phoenix_as)
    if consecutive and n >= 5 and all(k == 1 for k in shape):
        if not has_phoenix and not cards & MAHJONG_BIT and _one_suit(cards):
            return Combination(FLUSH_T, top, n, cards)
        return Combination(STRAIGHT_T, top, n, cards, phoenix_as)
    rule = "phoenix-rank-forms-nothing" if has_phoenix else "not-a-combination"
    raise IllegalAction(rule, "these cards form no combination"
                        + (f" with the Phoenix as {phoenix_as}" if has_phoenix else ""))


def _one_suit(cards: int) -> bool:
    return any(cards & ~_SUIT_MASKS[suit] == 0 for suit in range(4))


_SUIT_MASKS = [sum(1 << (r * 4 + s) for r in range(13)) for s in range(4)]
