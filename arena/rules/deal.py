"""The deal: the order of a round's shuffled deck, a pure function of the game's seed and the
round number (`deal_order`, which `Game` uses unless a test injects its own dealer)."""

from __future__ import annotations

import hashlib
import random


def deal_order(seed: int, round_number: int) -> list[int]:
    """The shuffled deck of a round: seat s gets cards [14s, 14s+8) first, then [14s+8, 14s+14).

    Pure and the same on every machine and Python version: a SHA-256 of the seed and round
    number seeds Python's Mersenne Twister (`random.Random`, whose `getrandbits` is the same
    everywhere), and the deck is shuffled as `random.shuffle` does (Python 3.11): from the
    last place down, a swap with an index drawn by rejection from `getrandbits`. It is
    written out here so that no change of the library can change a deal.
    """
    digest = hashlib.sha256(f"tichu-arena/deal/{seed}/{round_number}".encode()).digest()
    getrandbits = random.Random(int.from_bytes(digest[:16], "big")).getrandbits
    deck = list(range(56))
    for i, bits in _DRAWS:
        j = getrandbits(bits)
        while j > i:
            j = getrandbits(bits)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


_DRAWS = [(i, (i + 1).bit_length()) for i in range(55, 0, -1)]  # i, the bits to draw 0..i
