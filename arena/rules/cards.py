"""Cards: the 56-card deck as small integers, card sets as bitmasks, and the text encoding.

A card is an int 0..55. The 52 suited cards are ``(rank - 2) * 4 + suit`` for rank 2..14
(J=11, Q=12, K=13, A=14) and suit 0..3 (Jade, Sword, Pagoda, Star), so the four cards of one
rank share one 4-bit nibble of a card set. The specials are 52 Mah Jong, 53 Dog, 54 Phoenix
and 55 Dragon. A *card set* is an int bitmask with bit ``c`` set for card ``c``.

Text encoding (used in logs and on the wire): a suited card is its rank character
(``2``-``9``, ``T``, ``J``, ``Q``, ``K``, ``A``) followed by its suit letter (``j`` Jade,
``s`` Sword, ``p`` Pagoda, ``t`` Star), e.g. ``"Tj"``, ``"As"``; the specials are
``"Mahjong"``, ``"Dog"``, ``"Phoenix"`` and ``"Dragon"``.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import chain
from operator import getitem

SUITS = ("Jade", "Sword", "Pagoda", "Star")
SUIT_LETTERS = "jspt"
RANK_CHARS = "23456789TJQKA"

MAHJONG = 52
DOG = 53
PHOENIX = 54
DRAGON = 55

MAHJONG_BIT = 1 << MAHJONG
DOG_BIT = 1 << DOG
PHOENIX_BIT = 1 << PHOENIX
DRAGON_BIT = 1 << DRAGON
SUITED_MASK = (1 << 52) - 1
FULL_DECK = (1 << 56) - 1

MIN_RANK = 2
MAX_RANK = 14
MAHJONG_RANK = 1
DRAGON_RANK = 15

SPECIAL_NAMES = {MAHJONG: "Mahjong", DOG: "Dog", PHOENIX: "Phoenix", DRAGON: "Dragon"}


def card(rank: int, suit: int) -> int:
    """The card of a rank 2..14 and a suit 0..3."""
    return (rank - 2) * 4 + suit


def rank_mask(rank: int) -> int:
    """The card set of all four suited cards of a rank 2..14."""
    return 0xF << ((rank - 2) * 4)


def points_of(c: int) -> int:
    """Card points: 5 -> 5, 10 and K -> 10, Dragon 25, Phoenix -25, all else 0."""
    if c < 52:
        return _RANK_POINTS.get((c >> 2) + 2, 0)
    return {DRAGON: 25, PHOENIX: -25}.get(c, 0)


_RANK_POINTS = {5: 5, 10: 10, 13: 10}
_FIVES = rank_mask(5)
_TENS_AND_KINGS = rank_mask(10) | rank_mask(13)


def points(cards: int) -> int:
    """The card points in a card set."""
    total = 5 * (cards & _FIVES).bit_count() + 10 * (cards & _TENS_AND_KINGS).bit_count()
    if cards & DRAGON_BIT:
        total += 25
    if cards & PHOENIX_BIT:
        total -= 25
    return total


def cards_of(cards: int) -> list[int]:
    """The cards of a card set, ascending."""
    if 0 <= cards <= FULL_DECK:  # a table look-up per byte (see card_names)
        return list(chain.from_iterable(map(getitem, BYTE_CARDS, cards.to_bytes(7, "little"))))
    out = []
    while cards:
        low = cards & -cards
        out.append(low.bit_length() - 1)
        cards ^= low
    return out


_BITS = [tuple(bit for bit in range(8) if value >> bit & 1) for value in range(256)]
# The cards in each byte of a card set, by byte position (0..6) and byte value.
BYTE_CARDS = [[tuple(map((8 * position).__add__, bits)) for bits in _BITS]
              for position in range(7)]


def card_name(c: int) -> str:
    """The text encoding of one card, e.g. ``"Tj"`` or ``"Phoenix"``."""
    if c >= 52:
        return SPECIAL_NAMES[c]
    return RANK_CHARS[c >> 2] + SUIT_LETTERS[c & 3]


_NAMES = [card_name(c) for c in range(56)]
_BY_NAME = {name: c for c, name in enumerate(_NAMES)}


def parse_card(name: str) -> int:
    """The card a text encoding names; ValueError for anything else."""
    try:
        return _BY_NAME[name]
    except (KeyError, TypeError):
        raise ValueError(f"not a card: {name!r}") from None


# The names of the cards in each byte of a card set, by byte position and byte value.
_BYTE_NAMES = [[tuple(map(_NAMES.__getitem__, cards)) for cards in by_value]
               for by_value in BYTE_CARDS]


def card_names(cards: int) -> list[str]:
    """The names of a card set's cards, ascending by card id (a table lookup per byte)."""
    if 0 <= cards <= FULL_DECK:  # the look-ups in C (see cards_of)
        return list(chain.from_iterable(map(getitem, _BYTE_NAMES, cards.to_bytes(7, "little"))))
    out: list[str] = []
    for table in _BYTE_NAMES:
        if not cards:
            break
        out += table[cards & 0xFF]
        cards >>= 8
    return out


def format_cards(cards: int) -> str:
    """A card set as space-separated names, ascending, for logs."""
    return " ".join(card_names(cards))


def parse_cards(names: Iterable[str]) -> int:
    """The card set of card names; ValueError on an unknown or repeated card."""
    m = 0
    for name in names:
        bit = 1 << parse_card(name)
        if m & bit:
            raise ValueError(f"card listed twice: {name!r}")
        m |= bit
    return m
