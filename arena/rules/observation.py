"""Observations: everything one seat may know of a game, and nothing else.

`Game.observation(seat)` builds one per request; `observed_position` (`position.py`) reads
one to start a search from. It has a module of its own because `game.py` imports
`position.py`: the position reads it from here without importing the game.
"""

from __future__ import annotations

from typing import NamedTuple

from arena.rules.actions import DecisionKind
from arena.rules.combos import Combination
from arena.rules.events import RoundEvents


class Observation(NamedTuple):
    """Everything one seat may know, and nothing else.

    Card sets are bitmasks; per-seat tuples are indexed by seat; team tuples by team.
    (A NamedTuple rather than a frozen dataclass: the referee builds one per request, and
    a tuple is built several times faster; it is just as immutable.) `round_events` picks
    the seat's events out of the game's when first read (see `RoundEvents`).
    """

    seat: int
    round_number: int
    phase: DecisionKind | None  # None once the game is over
    to_act: tuple[int, ...]     # seats whose decision is awaited now
    hand: int
    hand_counts: tuple[int, int, int, int]
    grand_tichu: tuple[bool, bool, bool, bool]
    tichu: tuple[bool, bool, bool, bool]
    out_order: tuple[int, ...]  # seats in the order they went out this round
    wish: int                   # the wished rank in force, 0 for none
    table: Combination | None   # the combination to beat, None on an empty table
    table_seat: int             # who played it, -1 for none
    trick: int                  # the cards lying in the current trick
    trick_points: int           # card points lying in the current trick
    played: int                 # every card played this round so far
    exchange_given: tuple[int, ...]     # this seat's cards given to seat+1, +2, +3 (or empty)
    exchange_received: tuple[int, ...]  # cards received from seat+1, +2, +3 (or empty)
    points_taken: tuple[int, int, int, int]  # card points in each seat's gathered tricks
    scores: tuple[int, int]     # team totals so far (they change at each round end)
    target: int
    round_events: RoundEvents  # this round's events that this seat may see, in order
