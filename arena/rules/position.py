"""Positions: a round in play with every hand known, to start a game from (`Game.from_position`).

A search bot plays a decision out on sampled deals: it fills the hands it cannot see with a
sample, keeps everything public as it is, and continues the round with the engine from there.
A `Position` is that state, and nothing more: the round's public facts (calls, who is out,
the wish, the table and the current trick, the cards each seat has gathered, whose turn it
is and who must still pass), the four hands, and the scores and target of the game.

`Game.position()` reads it off a game; `observed_position` builds it from what one seat
observes (its `Observation`, round events included) and four hands (the seat's own and
three others, true or sampled); `Game.from_position` starts a game there. Only the phases of
play have a position: a regular turn (PLAY), a bomb window (BOMB) and a Dragon gift
(DRAGON_GIFT).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from arena.rules.actions import DecisionKind
from arena.rules.cards import DOG_BIT
from arena.rules.combos import Combination
from arena.rules.observation import Observation

IN_PLAY = (DecisionKind.PLAY, DecisionKind.BOMB, DecisionKind.DRAGON_GIFT)
"""The phases a position can be in."""


class Position(NamedTuple):
    """A round in play, every hand known: what `Game.from_position` starts from.

    Card sets are bitmasks, per-seat tuples are indexed by seat. (A NamedTuple, as
    `Observation`: a search builds one per sampled deal.)
    """

    round_number: int
    scores: tuple[int, int]            # team totals before this round
    target: int
    hands: tuple[int, int, int, int]   # every seat's cards
    won: tuple[int, int, int, int]     # the cards each seat has gathered this round
    grand_tichu: tuple[bool, bool, bool, bool]
    tichu: tuple[bool, bool, bool, bool]
    out_order: tuple[int, ...]         # seats in the order they went out
    wish: int                          # the wished rank in force, 0 for none
    table: Combination | None          # the combination to beat, None on an empty table
    table_seat: int                    # who played it, -1 for none
    trick: int                         # the cards lying in the current trick
    phase: DecisionKind                # PLAY, BOMB or DRAGON_GIFT
    turn: int    # the seat on regular turn (in BOMB: the one whose turn follows the window);
    #              -1 in DRAGON_GIFT
    to_pass: int  # the seats that must still pass for the trick to end, as a bitmask
    #               (0 on an empty table and in DRAGON_GIFT; 0 in BOMB: gathered after it)
    to_act: int  # the seat asked now: on turn, first in the bomb window, or giving the Dragon


def observed_position(observation: Observation, hands: Sequence[int]) -> Position:
    """The position a seat observes, with `hands` (all four: its own and three others) filled
    in; ValueError outside the phases of play.

    The gathered cards come from the round's trick and Dog events, the seats still to pass
    and the turn after a bomb window from its plays and passes since the trick began.
    """
    phase = observation.phase
    if phase not in IN_PLAY:
        raise ValueError(f"no position in phase {phase}: only in {', '.join(p.value for p in IN_PLAY)}")
    won = [0, 0, 0, 0]
    last = -1  # the seat of the last play or pass of the current trick
    passed = 0  # the seats that passed since the last play
    for event in observation.round_events:
        kind = event.kind
        if kind == "trick":
            won[event.data["taker"]] |= event.data["cards"]
        elif kind == "dog":
            won[event.data["to"]] |= DOG_BIT
        elif kind == "play":
            last, passed = event.seat, 0
        elif kind == "pass":
            last = event.seat
            passed |= 1 << event.seat
    h0, h1, h2, h3 = hands
    active = (h0 > 0) | (h1 > 0) << 1 | (h2 > 0) << 2 | (h3 > 0) << 3
    table = observation.table
    to_act = observation.to_act[0]
    turn, to_pass = to_act, 0
    if phase is DecisionKind.DRAGON_GIFT:
        turn = -1
    elif table is not None:
        to_pass = active & ~(1 << observation.table_seat) & ~passed
        if phase is DecisionKind.BOMB:
            turn = next_seat(active, last)
    return Position(observation.round_number, observation.scores, observation.target,
                    (h0, h1, h2, h3), (won[0], won[1], won[2], won[3]), observation.grand_tichu,
                    observation.tichu, observation.out_order, observation.wish, table,
                    observation.table_seat, observation.trick, phase, turn, to_pass, to_act)


def next_seat(active: int, seat: int) -> int:
    """The next seat after `seat` in play order among the seats of `active` (a bitmask);
    `seat` itself when no other is active."""
    for k in (1, 2, 3):
        s = (seat + k) & 3
        if active >> s & 1:
            return s
    return seat
