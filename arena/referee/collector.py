"""The cyclic garbage collector of a referee process, set for refereeing at its first match.

Live, the collector took ~5 us of a referee's ~110 us per asked decision (issue 18): its
full collections walked the ~29 k objects of start-up (modules, the packing caches), which
never die, and the young objects a game leaves (its record's decisions, the events' wire
maps) mostly survive, so a collection every 700 allocations visited each of them in the
young generation and again in the middle one. `settle` collects what start-up left (no
garbage is kept) and freezes the rest, so that no collection walks it again, and raises the
young threshold, so that a game's objects are visited about once.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 10_000  # allocations between young collections (Python's default: 700)
_settled = False


def settle() -> None:
    """Set this process's collector for refereeing, once (later calls do nothing).

    Memory stays bounded: at most `YOUNG_THRESHOLD` more container objects wait for a
    collection, and what is frozen was alive at the first match (collected just before)."""
    global _settled
    if _settled:
        return
    _settled = True
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, *gc.get_threshold()[1:])
