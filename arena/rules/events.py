"""Events: what happened in a game and who may see it, and one seat's view of a round's events.

`Game` logs each event as a flat tuple and builds the `Event`s only when they are read (most
self-play reads none); an observation's `RoundEvents` picks a seat's events of the round
from them, again only when read.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple, Protocol, SupportsIndex, overload

PUBLIC = -1


class Event(NamedTuple):
    """Something that happened. `visible_to` is a seat, or PUBLIC (-1) for every seat.

    `kind` is one of: round_start, deal, grand_tichu, tichu, exchange, play, pass, wish,
    wish_fulfilled, dog, trick, out, round_end, game_end. `seat` is the seat it is about
    (-1 for none); `data` holds the details, card sets as bitmasks.
    """

    kind: str
    seat: int
    visible_to: int
    data: dict[str, Any]


# The keys of each kind of event's `data`, in the order the game logs their values.
DATA_KEYS = {
    "round_start": ("round", "scores"), "deal": ("cards",), "grand_tichu": ("called",),
    "tichu": (), "exchange": ("received", "given"),
    "play": ("cards", "combination", "out_of_turn"), "pass": (), "wish": ("rank",),
    "wish_fulfilled": ("rank",), "dog": ("to",), "trick": ("taker", "cards", "points"),
    "out": ("place",),
    "round_end": ("card_points", "calls", "double_victory", "out_order", "scores"),
    "game_end": ("scores", "winner"),
}


class EventSource(Protocol):
    """What holds a game's events: every one so far, in order, in a list that only grows."""

    @property
    def events(self) -> list[Event]: ...


class RoundEvents(Sequence[Event]):
    """The events of one round that one seat may see, in order: those of `source.events`
    at positions [start, stop) that are public or visible to `seat`.

    Picked out once, when first read: an observation is built per request and its round
    events are seldom read. It compares, hashes, prints and pickles as the tuple of them.
    """

    __slots__ = ("_source", "_seat", "_start", "_stop", "_picked")

    def __init__(self, source: EventSource, seat: int, start: int, stop: int) -> None:
        self._source = source
        self._seat = seat
        self._start = start
        self._stop = stop
        self._picked: tuple[Event, ...] | None = None

    def _events(self) -> tuple[Event, ...]:
        picked = self._picked
        if picked is None:
            seat = self._seat
            picked = self._picked = tuple(
                e for e in self._source.events[self._start:self._stop]
                if e.visible_to == PUBLIC or e.visible_to == seat)
        return picked

    def __len__(self) -> int:
        return len(self._events())

    @overload
    def __getitem__(self, index: SupportsIndex) -> Event: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Event, ...]: ...
    def __getitem__(self, index: SupportsIndex | slice) -> Event | tuple[Event, ...]:
        return self._events()[index]

    def __iter__(self) -> Iterator[Event]:
        return iter(self._events())

    def __contains__(self, event: object) -> bool:
        return event in self._events()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RoundEvents):
            other = other._events()
        return self._events() == other if isinstance(other, tuple) else NotImplemented

    def __hash__(self) -> int:
        return hash(self._events())

    def __repr__(self) -> str:
        return repr(self._events())

    def __reduce__(self) -> tuple[type, tuple[tuple[Event, ...]]]:
        return tuple, (self._events(),)
