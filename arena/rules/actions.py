"""Actions a seat can take, one type per kind of decision, and the decision it is asked.

Card sets are bitmasks (see `cards`). Actions are tuples, so compare them with
`Decision.allows`, which also checks the type: `Pass()` and `CallTichu(False)` are equal tuples.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import NamedTuple, Union

from arena.rules.cards import MAHJONG_BIT, cards_of
from arena.rules.combos import Combination


class DecisionKind(Enum):
    """The closed set of decisions the engine asks a seat for."""

    GRAND_TICHU = "grand_tichu"   # after the first 8 cards: call Grand Tichu or not
    EXCHANGE = "exchange"         # one card for each other seat (a Tichu call may come with it)
    TICHU = "tichu"               # after the exchange: call Tichu or not
    PLAY = "play"                 # a regular turn: lead, follow or pass
    BOMB = "bomb"                 # a bomb window: bomb out of turn or decline (Pass)
    DRAGON_GIFT = "dragon_gift"   # give the trick won with the Dragon to an opponent


class GrandTichu(NamedTuple):
    """Call Grand Tichu (True) or not (False)."""

    call: bool


class Exchange(NamedTuple):
    """The three cards given away: `give[i]` goes to seat ``(seat + 1 + i) % 4``.

    So give[0] goes to the right-hand opponent (next in play order), give[1] to the partner,
    give[2] to the left-hand opponent. `call_tichu` calls Tichu together with the choice.
    """

    give: tuple[int, int, int]
    call_tichu: bool = False


class CallTichu(NamedTuple):
    """Call Tichu (True) or not (False) in the window after the exchange."""

    call: bool


class Play(NamedTuple):
    """Play the card set `cards`.

    `phoenix_as` is the rank 2..14 the Phoenix stands for in a multi-card combination (0 for
    none, and for a Phoenix single). `wish` is the rank 2..14 wished when the play holds the
    Mah Jong (0: no wish). `call_tichu` calls Tichu just before the play.
    """

    cards: int
    phoenix_as: int = 0
    wish: int = 0
    call_tichu: bool = False


class Pass(NamedTuple):
    """Pass on a regular turn, or decline a bomb window."""

    call_tichu: bool = False


class GiveDragon(NamedTuple):
    """Give the trick won with the Dragon to seat `to`, an opponent."""

    to: int


Action = Union[GrandTichu, Exchange, CallTichu, Play, Pass, GiveDragon]
PASS = Pass()


class ExchangeOptions(Sequence):
    """Every Exchange of a 14-card hand, as a lazy sequence (14 * 13 * 12 = 2184 of them)."""

    def __init__(self, hand: int) -> None:
        self._cards = cards_of(hand)
        self._hand = hand

    def __len__(self) -> int:
        n = len(self._cards)
        return n * (n - 1) * (n - 2)

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        n = len(self._cards)
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        rest = list(self._cards)
        a = rest.pop(index // ((n - 1) * (n - 2)))
        index %= (n - 1) * (n - 2)
        b = rest.pop(index // (n - 2))
        c = rest[index % (n - 2)]
        return Exchange((a, b, c))

    def __iter__(self) -> Iterator[Exchange]:
        return (self[i] for i in range(len(self)))

    def __contains__(self, action: object) -> bool:
        if not isinstance(action, Exchange) or len(action.give) != 3:
            return False
        give = action.give
        return (len(set(give)) == 3
                and all(isinstance(c, int) and 0 <= c < 56 and self._hand >> c & 1 for c in give))


@dataclass(frozen=True)
class Decision:
    """What one seat must decide now, and every legal option for it.

    `options` is the complete list of legal actions with their free flags unset: any option
    may also be taken with ``call_tichu=True`` where `may_call_tichu`, and a Play holding the
    Mah Jong may carry any wish 2..14. For PLAY and BOMB decisions `combinations` maps each
    play's (cards, phoenix_as) to the combination it forms.
    """

    seat: int
    kind: DecisionKind
    options: Sequence[Action]
    may_call_tichu: bool = False
    must_fulfil_wish: bool = False
    combinations: dict[tuple[int, int], Combination] = field(default_factory=dict, repr=False)

    @property
    def can_pass(self) -> bool:
        return self.kind in (DecisionKind.PLAY, DecisionKind.BOMB) and bool(self.options) \
            and isinstance(self.options[0], Pass)

    def allows(self, action: Action) -> bool:
        """Whether `action` is legal for this decision (free flags included)."""
        kind = self.kind
        if getattr(action, "call_tichu", False) and not self.may_call_tichu:
            return False
        if kind in (DecisionKind.PLAY, DecisionKind.BOMB):
            if isinstance(action, Pass):
                return self.can_pass
            if not isinstance(action, Play) or (action.cards, action.phoenix_as) not in self.combinations:
                return False
            if action.wish:
                return bool(action.cards & MAHJONG_BIT) and 2 <= action.wish <= 14
            return True
        if kind is DecisionKind.EXCHANGE:
            return Exchange(tuple(action.give)) in self.options if isinstance(action, Exchange) else False
        expected = {DecisionKind.GRAND_TICHU: GrandTichu, DecisionKind.TICHU: CallTichu,
                    DecisionKind.DRAGON_GIFT: GiveDragon}[kind]
        return isinstance(action, expected) and action in self.options
