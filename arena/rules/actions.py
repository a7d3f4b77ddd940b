"""Actions a seat can take, one type per kind of decision, and the decision it is asked.

Card sets are bitmasks (see `cards`). Actions are tuples, so compare them with
`Decision.allows`, which also checks the type: `Pass()` and `CallTichu(False)` are equal tuples.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator, Sequence
from enum import Enum
from typing import NamedTuple, SupportsIndex, TypeVar, cast, overload

from arena.rules import moves
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


Action = GrandTichu | Exchange | CallTichu | Play | Pass | GiveDragon
PASS = Pass()


class ExchangeOptions(Sequence[Exchange]):
    """Every Exchange of a 14-card hand, as a lazy sequence (14 * 13 * 12 = 2184 of them).

    `taken` is the Exchange indexing handed out last: the game applies that very object
    without checking it again.
    """

    __slots__ = ("_cards", "_hand", "_len", "taken")

    def __init__(self, hand: int) -> None:
        cards = self._cards = cards_of(hand)
        self._hand = hand
        n = len(cards)
        self._len = n * (n - 1) * (n - 2)
        self.taken: Exchange | None = None

    def __len__(self) -> int:
        return self._len

    @overload
    def __getitem__(self, index: SupportsIndex) -> Exchange: ...
    @overload
    def __getitem__(self, index: slice) -> list[Exchange]: ...
    def __getitem__(self, index: SupportsIndex | slice) -> Exchange | list[Exchange]:
        if index.__class__ is not int:
            if isinstance(index, slice):
                return _sliced(self, index)
            index = int(operator.index(index))  # a bool, an int subclass; TypeError for the rest
        if index < 0:
            index += self._len
        if not 0 <= index < self._len:
            raise IndexError(index)
        rest = self._cards.copy()
        n = len(rest)
        a, index = divmod(index, (n - 1) * (n - 2))
        b, c = divmod(index, n - 2)
        a = rest.pop(a)
        b = rest.pop(b)
        taken = self.taken = _new(Exchange, ((a, b, rest[c]), False))
        return taken

    def __iter__(self) -> Iterator[Exchange]:
        return (self[i] for i in range(self._len))

    def __contains__(self, action: object) -> bool:
        if not isinstance(action, Exchange) or len(action.give) != 3:
            return False
        give = action.give
        return (len(set(give)) == 3
                and all(isinstance(c, int) and 0 <= c < 56 and self._hand >> c & 1 for c in give))


class PlayOptions(Sequence[Action]):
    """The options of a PLAY or BOMB decision: Pass first (where allowed), then one Play per
    legal combination, built on demand (a random player looks at one of hundreds).

    `taken` is the Play indexing handed out last, `taken_combination` its combination: the
    game applies that very object without checking it again.
    """

    __slots__ = ("combinations", "can_pass", "_len", "_keys", "taken", "taken_combination")
    _keys: set[tuple[int, int]]  # (cards, phoenix_as) of each option: see __contains__

    def __init__(self, combinations: list[Combination], can_pass: bool) -> None:
        self.combinations = combinations
        self.can_pass = can_pass
        self._len = len(combinations) + can_pass  # (a player may ask for it more than once)
        self.taken: Play | None = None
        self.taken_combination: Combination | None = None

    def __len__(self) -> int:
        return self._len

    @overload
    def __getitem__(self, index: SupportsIndex) -> Action: ...
    @overload
    def __getitem__(self, index: slice) -> list[Action]: ...
    def __getitem__(self, index: SupportsIndex | slice) -> Action | list[Action]:
        if index.__class__ is int and index >= 0:  # the usual case first
            if self.can_pass:
                if not index:
                    return PASS
                index -= 1
            c = self.taken_combination = self.combinations[index]
            play = self.taken = _PLAY_OF.get(id(c)) or _new(Play, (c.cards, c.phoenix_as, 0, False))
            return play
        if isinstance(index, slice):
            return _sliced(self, index)
        index = operator.index(index)  # a bool, an int subclass; TypeError for the rest
        if index < 0:
            index += self._len
            if index < 0:
                raise IndexError(index)
        return self[int(index)]

    def __iter__(self) -> Iterator[Action]:
        if self.can_pass:
            yield PASS
        for c in self.combinations:
            yield Play(c.cards, c.phoenix_as)

    def __contains__(self, action: object) -> bool:
        if isinstance(action, Pass):
            return self.can_pass
        if not isinstance(action, Play):
            return False
        try:
            keys = self._keys
        except AttributeError:  # built on the first look-up only
            keys = self._keys = {(c.cards, c.phoenix_as) for c in self.combinations}
        return (action.cards, action.phoenix_as) in keys

    def combination_of(self, play: Play) -> Combination | None:
        """The combination `play` forms if it is the option these options handed out last
        (its free flags aside) and its wish is valid (0, or a rank 2..14 with the Mah Jong
        played); None otherwise, and for any field that is not exactly an int: the engine
        then checks the play rule by rule (cheaper than indexing every option once)."""
        cards, phoenix_as, wish = play.cards, play.phoenix_as, play.wish
        if type(cards) is not int or type(phoenix_as) is not int:
            return None
        if wish and not (type(wish) is int and 2 <= wish <= 14 and cards & MAHJONG_BIT):
            return None
        last = self.taken_combination
        if last is not None and last.cards == cards and last.phoenix_as == phoenix_as:
            return last
        return None


class OnlyPass(tuple[Pass]):
    """The options of a PLAY decision whose one legal action is to pass: ``(PASS,)``, a
    `PlayOptions` with no combination (registered as one).

    A plain tuple, so that a player's `len` and indexing (`random.choice`) run in C: a third
    of all decisions are these forced passes. The engine builds one per seat, once.
    """

    __slots__ = ()
    combinations: list[Combination] = []  # (read only, as everywhere in the options)
    can_pass = True
    taken = None
    taken_combination = None

    def __new__(cls) -> OnlyPass:
        return tuple.__new__(cls, (PASS,))

    def __reduce__(self) -> tuple[type[OnlyPass], tuple[()]]:
        return OnlyPass, ()

    def __contains__(self, action: object) -> bool:
        return isinstance(action, Pass)

    def combination_of(self, play: Play) -> None:
        return None


PlayOptions.register(OnlyPass)


_T = TypeVar("_T")


def _sliced(options: Sequence[_T], index: slice) -> list[_T]:
    """`options[index]` for a slice, as a list. (Apart from the `__getitem__`s: a
    comprehension reading `self` would make it a cell, built on every call.)"""
    return [options[i] for i in range(*index.indices(len(options)))]


_new = tuple.__new__  # a named tuple built without its __new__, a Python function
# The Play of each combination that moves builds once (by the combination's id: hashing a
# Combination would call its enum's Python-level __hash__), so that most options taken
# build no object.
_PLAY_OF = {id(c): Play(c.cards, c.phoenix_as) for c in moves.constant_combinations()}


class Decision(NamedTuple):
    """What one seat must decide now, and every legal option for it.

    `options` is the complete list of legal actions with their free flags unset: any option
    may also be taken with ``call_tichu=True`` where `may_call_tichu`, and a Play holding the
    Mah Jong may carry any wish 2..14 (or 0, no wish). For PLAY and BOMB decisions the options
    are a `PlayOptions`, whose `combinations` give the combination each play forms.
    `must_fulfil_wish` says that every option holds a natural card of the wished rank.
    (A NamedTuple rather than a frozen dataclass: the engine builds one per decision, and a
    tuple is built several times faster; it is just as immutable.)
    """

    seat: int
    kind: DecisionKind
    options: Sequence[Action]
    may_call_tichu: bool = False
    must_fulfil_wish: bool = False

    @property
    def can_pass(self) -> bool:
        return isinstance(self.options, PlayOptions) and self.options.can_pass

    @property
    def only_pass(self) -> bool:
        """Passing is the only legal action and there is no free flag to set (no Tichu call
        allowed): nothing is left to decide."""
        options = self.options
        if type(options) is OnlyPass:  # (a third of all decisions) without the ABC's
            return not self.may_call_tichu  # Python-level isinstance: the referee asks
        return (type(options) is not tuple and isinstance(options, PlayOptions)  # each turn
                and options.can_pass and not options.combinations and not self.may_call_tichu)

    def allows(self, action: Action) -> bool:
        """Whether `action` is legal for this decision (free flags included)."""
        if getattr(action, "call_tichu", False) and not self.may_call_tichu:
            return False
        if isinstance(self.options, PlayOptions):
            if action not in self.options:
                return False
            if isinstance(action, Play) and action.wish:
                return bool(action.cards & MAHJONG_BIT) and 2 <= action.wish <= 14
            return True
        if self.kind is DecisionKind.EXCHANGE:
            # (a decoded action may give a list, of any length: the options hold tuples)
            return (isinstance(action, Exchange)
                    and Exchange(cast("tuple[int, int, int]", tuple(action.give))) in self.options)
        expected = {DecisionKind.GRAND_TICHU: GrandTichu, DecisionKind.TICHU: CallTichu,
                    DecisionKind.DRAGON_GIFT: GiveDragon}[self.kind]
        return isinstance(action, expected) and action in self.options
