"""Legal combination generation: every combination a hand can lead, follow with, or bomb with.

Hands are card sets (see `cards`). The four cards of a rank sit in one nibble, so choosing a
pair or a triple of a rank is a table look-up on that nibble, shifted into place. Every
function returns a list of `Combination`; each distinct (cards, Phoenix rank) appears once.
"""

from __future__ import annotations

from itertools import chain, combinations
from operator import getitem as _getitem

from arena.rules.cards import (
    BYTE_CARDS,
    DOG_BIT,
    DRAGON_BIT,
    DRAGON_RANK,
    FULL_DECK,
    MAHJONG_BIT,
    PHOENIX_BIT,
    SUITED_MASK,
)
from arena.rules.combos import (
    DOG_T,
    FLUSH_T,
    FOUR_T,
    FULL_HOUSE_T,
    PAIR_T,
    SINGLE_T,
    STAIRS_T,
    STRAIGHT_T,
    TRIPLE_T,
    Combination,
    ComboType,
    phoenix_single_rank,
)


def _subsets(nibble: int, size: int) -> list[int]:
    bits = [1 << i for i in range(4) if nibble >> i & 1]
    return [sum(c) for c in combinations(bits, size)]


# For each nibble value (the suits of one rank in a hand): its sub-nibbles of 1 and 2 cards.
_SINGLES = [_subsets(n, 1) for n in range(16)]
_PAIRS = [_subsets(n, 2) for n in range(16)]
_RANKS = range(2, 15)


def nibbles(hand: int) -> list[int]:
    """The suit nibble of each rank, indexed by rank (entries 0 and 1 are 0)."""
    # Byte by byte (two ranks each) through a table: every operation on a 56-bit int costs
    # about as much as a dozen on small ints.
    d = (hand & SUITED_MASK).to_bytes(7, "little")
    t = _LOW_HIGH
    return [0, 0, *t[d[0]], *t[d[1]], *t[d[2]], *t[d[3]], *t[d[4]], *t[d[5]], d[6]]


_chain = chain.from_iterable
_LOW_HIGH = [(byte & 0xF, byte >> 4) for byte in range(256)]


def lead_options(hand: int) -> list[Combination]:
    """Every combination `hand` can lead (bombs included, as ordinary leads).

    The order depends on the combinations only, never on the rest of the hand: the leads of
    a hand holding fewer cards are exactly those of this list that use only its cards, in
    this order (the engine filters a seat's list as it plays instead of generating anew).
    """
    nib = nibbles(hand)
    phoenix = bool(hand & PHOENIX_BIT)
    out = singles(hand, None)
    if hand & DOG_BIT:
        out.append(_DOG)
    twos = pairs(nib, phoenix, 0)
    threes = triples(nib, phoenix, 0)
    out += twos
    out += threes
    if threes and twos:
        out += _full_houses(threes, twos)
    for n_pairs in range(2, 8):
        found = stairs(nib, phoenix, n_pairs, 0)
        if not found:
            break
        out += found
    out += straights(nib, phoenix, bool(hand & MAHJONG_BIT), 0, 0)
    out += bombs(hand, None)
    return out


def follow_options(hand: int, table: Combination) -> list[Combination]:
    """Every combination of `hand` that beats `table` (bombs included, last)."""
    if table.type is DOG_T:
        return []
    return follows_in_kind(hand, table) + bombs(hand, table)


def follows_in_kind(hand: int, table: Combination) -> list[Combination]:
    """The combinations of `hand` of the type and size of `table` that beat it (no bombs;
    none on a bomb or the Dog)."""
    t = table.type
    if t is SINGLE_T:
        return singles(hand, table)
    if t is DOG_T or t >= FOUR_T:
        return []
    nib = nibbles(hand)
    phoenix = bool(hand & PHOENIX_BIT)
    rank = table.rank
    if t is PAIR_T:
        return pairs(nib, phoenix, rank)
    if t is TRIPLE_T:
        return triples(nib, phoenix, rank)
    if t is FULL_HOUSE_T:
        return full_houses(nib, phoenix, rank)
    if t is STAIRS_T:
        return stairs(nib, phoenix, table.length // 2, rank)
    return straights(nib, phoenix, bool(hand & MAHJONG_BIT), table.length, rank)


def singles(hand: int, table: Combination | None) -> list[Combination]:
    """Singles beating `table` (a single) or, with None, every single to lead."""
    specials = hand >> 52  # bits: Mah Jong 1, Dog 2, Phoenix 4, Dragon 8
    if table is None:
        above: float = 0
        out = [_MAHJONG_SINGLE] if specials & 1 else []
    else:
        above = table.rank
        out = []
    mask, first, tables = _ABOVE[above]
    suited = hand & mask
    if suited:  # the suited cards ranked above, a table look-up per byte (two ranks)
        out += _chain(map(_getitem, tables, suited.to_bytes(7, "little")[first:]))
    if above < DRAGON_RANK:
        if specials & 4:
            out.append(_PHOENIX_SINGLE_OVER.get(above)
                       or Combination(SINGLE_T, phoenix_single_rank(table), 1, PHOENIX_BIT))
        if specials & 8:
            out.append(_DRAGON_SINGLE)
    return out


def pairs(nib: list[int], phoenix: bool, above: float) -> list[Combination]:
    """Pairs ranked above `above`, natural and Phoenix-completed."""
    return _of_a_kind(nib, phoenix, above, _PAIR, _PHOENIX_PAIR)


def triples(nib: list[int], phoenix: bool, above: float) -> list[Combination]:
    """Triples ranked above `above`, natural and Phoenix-completed."""
    return _of_a_kind(nib, phoenix, above, _TRIPLE, _PHOENIX_TRIPLE)


def _of_a_kind(nib: list[int], phoenix: bool, above: float,
               natural: list[list[list[Combination]]], completed: list[list[list[Combination]]]
               ) -> list[Combination]:
    out: list[Combination] = []
    for r in range(int(above) + 1 if above >= 2 else 2, 15):
        n = nib[r]
        if n:
            out += natural[r][n]
            if phoenix:
                out += completed[r][n]
    return out


def _kind_table(combo_type: ComboType, size: int, with_phoenix: bool) -> list[list[list[Combination]]]:
    """Per rank and suit nibble: the combinations of `size` cards of that rank (constants)."""
    natural = size - 1 if with_phoenix else size
    extra = PHOENIX_BIT if with_phoenix else 0
    table: list[list[list[Combination]]] = [[] for _ in range(2)]
    for r in _RANKS:
        shift = (r - 2) * 4
        table.append([[Combination(combo_type, r, size, sub << shift | extra, r if extra else 0)
                       for sub in _subsets(n, natural)] for n in range(16)])
    return table


_SINGLE = [Combination(SINGLE_T, (c >> 2) + 2, 1, 1 << c) for c in range(52)]
_DOG = Combination(DOG_T, 0, 1, DOG_BIT)
_MAHJONG_SINGLE = Combination(SINGLE_T, 1, 1, MAHJONG_BIT)
_DRAGON_SINGLE = Combination(SINGLE_T, DRAGON_RANK, 1, DRAGON_BIT)
# Per byte position of a suited card set and byte value: the singles of its cards.
# (The last byte of a suited card set is below 16: it holds rank 14 and no special.)
_BYTE_SINGLES = [[tuple(map(_SINGLE.__getitem__, cards))
                  for cards in (by_value if k < 6 else by_value[:16])]
                 for k, by_value in enumerate(BYTE_CARDS)]
# The Phoenix single led (over 0) or played over a single of each whole rank (constants;
# looked up by the table's rank, x.5 over a Phoenix single, which finds none).
_PHOENIX_SINGLE_OVER: dict[float, Combination] = {r: Combination(SINGLE_T, phoenix_single_rank(
    Combination(SINGLE_T, r, 1, 0) if r else None), 1, PHOENIX_BIT) for r in range(15)}
_SUITED_FROM = [SUITED_MASK & ~((1 << (max(r, 2) - 2) * 4) - 1) for r in range(17)]


def _above(rank: float) -> tuple[int, int, list[list[tuple[Combination, ...]]]]:
    """For singles over `rank`: the suited cards ranked above, the first byte of a card set
    holding one, and the byte tables from there on."""
    lowest = int(rank) + 1 if rank >= 2 else 2
    first = min(lowest - 2 >> 1, 7)
    return _SUITED_FROM[min(lowest, 16)], first, _BYTE_SINGLES[first:]


# Every rank a single can have: 0 (none, a lead), the Mah Jong's 1, 2..14 and the Dragon's
# 15, and each plus one half (the Phoenix over them).
_ABOVE = {r / 2: _above(r / 2) for r in range(0, 32)}
# Per rank of a single on the table: the cards that beat it as singles.
SINGLE_BEATERS = {rank: mask | (PHOENIX_BIT | DRAGON_BIT if rank < DRAGON_RANK else 0)
                  for rank, (mask, _, _) in _ABOVE.items()}
_PAIR = _kind_table(PAIR_T, 2, False)
_PHOENIX_PAIR = _kind_table(PAIR_T, 2, True)
_TRIPLE = _kind_table(TRIPLE_T, 3, False)
_PHOENIX_TRIPLE = _kind_table(TRIPLE_T, 3, True)


def constant_combinations() -> list[Combination]:
    """The combinations this module builds once and hands out again and again (every
    single, pair and triple, the Dog), as opposed to those built per hand."""
    out = [*_SINGLE, _MAHJONG_SINGLE, _DRAGON_SINGLE, _DOG, *_PHOENIX_SINGLE_OVER.values()]
    for table in (_PAIR, _PHOENIX_PAIR, _TRIPLE, _PHOENIX_TRIPLE):
        for by_nibble in table:
            for combos in by_nibble:
                out += combos
    return out


def full_houses(nib: list[int], phoenix: bool, above: float) -> list[Combination]:
    """Full houses whose triple ranks above `above`; the Phoenix completes at most one part."""
    threes = triples(nib, phoenix, above)
    if not threes:
        return []
    return _full_houses(threes, pairs(nib, phoenix, 0))


def _full_houses(threes: list[Combination], twos: list[Combination]) -> list[Combination]:
    """Every full house of one of `threes` and one of `twos` (ranks apart, the Phoenix in
    at most one), by triple then pair."""
    out = []
    for _, t_rank, _, t_cards, t_as in threes:
        out += [_new(Combination, (FULL_HOUSE_T, t_rank, 5, t_cards | p_cards, t_as or p_as))
                for _, p_rank, _, p_cards, p_as in twos
                if p_rank != t_rank and not (t_as and p_as)]
    return out


# Combination(...) without the named tuple's __new__, a Python function: half the cost, for
# the combinations built by the thousand (full houses, stairs, straights).
_new = tuple.__new__


def stairs(nib: list[int], phoenix: bool, n_pairs: int, above: float) -> list[Combination]:
    """Stairs of exactly `n_pairs` consecutive pairs whose top pair ranks above `above`."""
    out = []
    size = 2 * n_pairs
    for top in _runs(bytes(nib).translate(_PAIRABLE), n_pairs, phoenix,
                     max(int(above) + 1, n_pairs + 1)):
        low = top - n_pairs + 1
        # Partial stairs as ints: the cards, and the Phoenix's rank from bit 56 (see
        # _PHOENIX_AS); each rank adds its pairs, then (Phoenix unused) a card and the Phoenix.
        partial = [0]
        for r in range(low, top + 1):
            n = nib[r]
            natural = _PAIR_CARDS[r][n]
            completed = _PHOENIX_PAIR_CARDS[r][n] if phoenix else ()
            grown: list[int] = []
            append = grown.append
            for c in partial:
                for m in natural:
                    append(c | m)
                if completed and not c & PHOENIX_BIT:
                    for m in completed:
                        append(c | m)
            partial = grown
            if not partial:
                break
        for c in partial:
            out.append(_new(Combination, (STAIRS_T, top, size, c & FULL_DECK, c >> 56)))
    return out


def _runs(held: bytes, n: int, phoenix: bool, lowest_top: int) -> list[int]:
    """The top ranks, from `lowest_top` up, of the runs of `n` consecutive ranks of which
    `held` (by rank: 0 no card, 1 one, 2 enough) gives enough of each, or with the Phoenix
    every rank and enough of all but one; searched in C, a run at a time."""
    if phoenix:
        present, run = held.translate(_AT_LEAST_ONE), b"\1" * n
    else:
        present, run = held, b"\2" * n
    tops = []
    i = present.find(run, lowest_top - n + 1)
    while i >= 0:
        if not phoenix or held.count(1, i, i + n) <= 1:
            tops.append(i + n - 1)
        i = present.find(run, i + 1)
    return tops


def straights(nib: list[int], phoenix: bool, mahjong: bool, length: int,
              above: float) -> list[Combination]:
    """Plain straights (never flushes) of `length` cards (0: any length >= 5) topping above `above`.

    The Mah Jong may start a straight as rank 1; the Phoenix may stand for any one rank 2..14.
    """
    out = []
    shortest = length or 5
    # By rank: 2 where the hand holds it (the Mah Jong as 1), 1 where the Phoenix could
    # stand for it: a start needs `shortest` ranks of 2, or of 2 but one 1 with the Phoenix.
    held = bytes(nib).translate(_STRAIGHT_HELD)
    held = (b"\0\2" if mahjong else b"\0\0") + held[2:]
    lowest = max(1, int(above) - shortest + 2)
    for top in _runs(held, shortest, phoenix, lowest + shortest - 1):
        start = top - shortest + 1
        # Partial straights as ints: the cards, the Phoenix's rank from bit 56, and from bit
        # 60 the suits that some natural card is not of (all four but for a one-suit run,
        # a bomb: see _STRAIGHT_CARDS); each rank adds its cards, then (unused) the Phoenix.
        partial = [MAHJONG_BIT | _MIXED] if start == 1 else [0]
        for r in range(start if start > 1 else 2, 15):
            natural = _STRAIGHT_CARDS[r][nib[r]]
            grown: list[int] = []
            append = grown.append
            if phoenix:
                as_r = _PHOENIX_AS[r]
                for c in partial:
                    for m in natural:
                        append(c | m)
                    if not c & PHOENIX_BIT:
                        append(c | as_r)
            else:
                for c in partial:
                    for m in natural:
                        append(c | m)
            partial = grown
            if not partial:
                break
            size = r - start + 1
            if size >= 5 and r > above and (length == 0 or size == length):
                for c in partial:  # (a loop: a comprehension is a function call in 3.11)
                    if c >= _MIXED:
                        out.append(_new(Combination,
                                        (STRAIGHT_T, r, size, c & FULL_DECK, c >> 56 & 0xF)))
            if length and size >= length:
                break
    return out


# bytes.translate tables: a rank's nibble -> 2 if it holds two cards or more, 1 if one
# (0 for none); 0 -> 0 and anything else -> 1.
_PAIRABLE = bytes(min(n.bit_count(), 2) for n in range(16)) + bytes(240)
_AT_LEAST_ONE = bytes([0] + [1] * 255)
_STRAIGHT_HELD = bytes([1] + [2] * 255)
_PHOENIX_AS = [PHOENIX_BIT | r << 56 | 0xF << 60 for r in range(15)]  # the Phoenix as rank r
_MIXED = 0xF << 60  # a partial straight that is not of one suit
_PAIR_CARDS = [[[p << 4 * (r - 2) for p in _PAIRS[n]] for n in range(16)] if r >= 2 else []
               for r in range(15)]
_PHOENIX_PAIR_CARDS = [[[b << 4 * (r - 2) | _PHOENIX_AS[r] & ~_MIXED for b in _SINGLES[n]]
                        for n in range(16)] if r >= 2 else [] for r in range(15)]
_STRAIGHT_CARDS = [[[b << 4 * (r - 2) | (0xF ^ b) << 60 for b in _SINGLES[n]]
                    for n in range(16)] if r >= 2 else [] for r in range(15)]


def bombs(hand: int, table: Combination | None) -> list[Combination]:
    """Bombs of the hand that beat `table` (None: every bomb)."""
    suited = hand & SUITED_MASK
    fours = suited & suited >> 1 & suited >> 2 & suited >> 3 & _NIBBLE_LOW
    runs = suited & suited >> 4 & suited >> 8 & suited >> 12 & suited >> 16
    if not fours and not runs:  # the common case: no bomb at all
        return []
    out = []
    while fours:
        low = fours & -fours
        r = (low.bit_length() - 1 >> 2) + 2
        out.append(Combination(FOUR_T, r, 4, 0xF << ((r - 2) * 4)))
        fours ^= low
    if runs:
        out += straight_flushes(nibbles(hand))
    if table is None or table.type < FOUR_T:
        return out
    key = (table.length, table.rank)
    return [b for b in out if (b.length, b.rank) > key]


_NIBBLE_LOW = sum(1 << (4 * r) for r in range(13))


def straight_flushes(nib: list[int]) -> list[Combination]:
    """Every straight flush (5+ consecutive ranks of one suit) in the hand."""
    out = []
    for suit in range(4):
        bit = 1 << suit
        run_start = 0
        for r in range(2, 16):
            if r < 15 and nib[r] & bit:
                if not run_start:
                    run_start = r
                continue
            if run_start and r - run_start >= 5:
                for lo in range(run_start, r - 4):
                    for hi in range(lo + 4, r):
                        cards = sum(bit << ((k - 2) * 4) for k in range(lo, hi + 1))
                        out.append(Combination(FLUSH_T, hi, hi - lo + 1, cards))
            run_start = 0
    return out
