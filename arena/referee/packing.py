"""The referee's requests packed from precomputed pieces: the bytes of
`protocol.codec.pack(wire.request_message(...))`, without building the maps each time.

A request is mostly things that recur: card sets, option maps (the same combinations come
back all game), events (each one goes to up to four seats), the same keys. Each piece is
packed once and cached, and a request is the concatenation of its pieces behind the map
headers msgpack itself would write. The result is byte for byte what the map path gives
(tests/referee/test_packing.py holds it on random games), so the wire does not change:
`wire` stays the one definition of every message, this module only a faster way to its
bytes. `EventFeed` converts each engine event to its wire map and its bytes once, for every
seat that may see it.

Caches are keyed by values of one type each (a card set, a tuple of ints, a combination),
never by mixed values: msgpack tells True from 1, a dict key does not.
"""

from __future__ import annotations

import operator
from functools import lru_cache
from typing import Any, Protocol

import msgpack

from arena.referee import wire
from arena.rules import (
    PUBLIC,
    Combination,
    ComboType,
    Decision,
    DecisionKind,
    Observation,
)
from arena.rules.actions import PlayOptions
from protocol import codec

Message = dict[str, Any]
_packb = codec.packb  # this thread's Packer: one made per call costs as much as the packing
_NIL, _TRUE, _FALSE = b"\xc0", b"\xc3", b"\xc2"
_SMALL_INTS = [_packb(n) for n in range(1024)]  # seats, points, small ids


def _int(n: int) -> bytes:
    """An int packed: small ones looked up, those up to 65535 as msgpack's uint 16 (request
    ids pass 1023 early in a match), any other value by msgpack."""
    if type(n) is int and 0 <= n < 65536:
        return _SMALL_INTS[n] if n < 1024 else b"\xcd" + n.to_bytes(2, "big")
    return _packb(n)


def _bool(b: bool) -> bytes:
    return _TRUE if b is True else _FALSE if b is False else _packb(b)


def _key(name: str) -> bytes:
    return _packb(name)


def _array_header(n: int) -> bytes:
    return msgpack.Packer().pack_array_header(n)


_ARRAY_HEADERS = [_array_header(n) for n in range(256)]


# Per byte of a card set (by position and value): the names of its cards, packed.
_BYTE_CARDS = [[b"".join(map(_packb, wire.cards_text(value << 8 * position)))
                for value in range(256)] for position in range(7)]


@lru_cache(maxsize=wire.WORKING_SET)
def cards_bytes(cards: int) -> bytes:
    """A card set's wire list (`wire.cards_text`), packed: a table lookup per byte, in C, and
    cached (a hand comes back in each request of its seat until it plays, the trick and the
    cards played in the request of every seat until the next play: four in five recur)."""
    return _ARRAY_HEADERS[cards.bit_count()] + b"".join(
        map(operator.getitem, _BYTE_CARDS, cards.to_bytes(7, "little")))


@lru_cache(maxsize=1 << 12)
def _ints_bytes(values: tuple[int, ...]) -> bytes:
    return _packb(values)  # only ever tuples of ints (see the module docstring)


def _keys(*names: str) -> list[bytes]:
    return [_key(name) for name in names]


_OBSERVATION_KEYS = _keys("seat", "round", "hand", "hand_counts", "grand_tichu", "tichu",
                          "out_order", "wish", "table", "trick", "trick_points", "played",
                          "points_taken", "exchange", "scores", "target")
(_K_SEAT, _K_ROUND, _K_HAND, _K_HAND_COUNTS, _K_GRAND, _K_TICHU, _K_OUT, _K_WISH, _K_TABLE,
 _K_TRICK, _K_TRICK_POINTS, _K_PLAYED, _K_POINTS_TAKEN, _K_EXCHANGE, _K_SCORES,
 _K_TARGET) = _OBSERVATION_KEYS
_OBSERVATION_HEAD = msgpack.Packer().pack_map_header(len(_OBSERVATION_KEYS)) + _K_SEAT


def observation_bytes(obs: Observation) -> bytes:
    """`wire.observation_map(obs)`, packed: the fields in runs that change together, each
    run cached (the seat and round; the calls and who is out; the wish and table; the trick,
    its points and the cards played; the exchange, scores and target change once a round
    at most), and card sets cached by value."""
    # unpacked in one step, in `Observation`'s field order: reading sixteen fields by name
    # (a descriptor call each) cost a fifth of this function
    (seat, round_number, _, _, hand, hand_counts, grand_tichu, tichu, out_order, wish, table,
     table_seat, trick, trick_points, played, given, received, points_taken, scores, target,
     _) = obs
    return b"".join((
        _head_bytes(seat, round_number), cards_bytes(hand),
        _K_HAND_COUNTS, _ints_bytes(hand_counts), _calls_bytes(grand_tichu, tichu, out_order),
        _table_bytes(wish, table, table_seat), _trick_bytes(trick, trick_points, played),
        _K_POINTS_TAKEN, _ints_bytes(points_taken),
        _tail_bytes(given, received, scores, target)))


@lru_cache(maxsize=256)
def _head_bytes(seat: int, round_number: int) -> bytes:
    return b"".join((_OBSERVATION_HEAD, _int(seat), _K_ROUND, _int(round_number), _K_HAND))


@lru_cache(maxsize=1 << 10)
def _calls_bytes(grand_tichu: tuple[bool, ...], tichu: tuple[bool, ...],
                 out_order: tuple[int, ...]) -> bytes:
    # the calls only ever tuples of bools, who is out of ints: no int can take a bool's
    # place in this cache
    return b"".join((_K_GRAND, _packb(grand_tichu), _K_TICHU, _packb(tichu), _K_OUT,
                     _ints_bytes(out_order)))


@lru_cache(maxsize=1 << 10)
def _trick_bytes(trick: int, trick_points: int, played: int) -> bytes:
    return b"".join((cards_bytes(trick), _K_TRICK_POINTS, _int(trick_points), _K_PLAYED,
                     cards_bytes(played)))


# By wish, table and seat (the table's combination a tuple of numbers, its type an IntEnum:
# hashed in C).
@lru_cache(maxsize=1 << 12)
def _table_bytes(wish: int, table: Combination | None, seat: int) -> bytes:
    packed = _NIL if table is None else _packb({
        "seat": seat, "cards": wire.cards_text(table.cards),
        "combination": wire.combination_name(table),
        "phoenix_as": wire.rank_text(table.phoenix_as)})
    return b"".join((_K_WISH, _packb(wire.rank_text(wish)), _K_TABLE, packed, _K_TRICK))


@lru_cache(maxsize=1 << 10)
def _tail_bytes(given: tuple[int, ...], received: tuple[int, ...], scores: tuple[int, ...],
                target: int) -> bytes:
    exchange = _NIL if not given else _packb({
        "given": [wire.card_name(c) for c in given],
        "received": [wire.card_name(c) for c in received]})
    return b"".join((_K_EXCHANGE, exchange, _K_SCORES, _ints_bytes(scores), _K_TARGET,
                     _int(target)))


_K_CARDS, _K_POINTS, _K_OUT_OF_TURN = _keys("cards", "points", "out_of_turn")
# By seat: a pass event whole; the start of a play event (to its cards) and of a trick
# event (to its taker). The maps' keys in `wire.entry_map`'s order.
_PASS_EVENTS = [_packb({"kind": "pass", "seat": seat}) for seat in range(4)]
_PLAY_EVENT_HEADS = [msgpack.Packer().pack_map_header(6) + b"".join(
    (_key("kind"), _packb("play"), _key("seat"), _int(seat), _K_CARDS)) for seat in range(4)]
_TRICK_EVENT_HEADS = [msgpack.Packer().pack_map_header(5) + b"".join(
    (_key("kind"), _packb("trick"), _key("seat"), _int(seat), _key("taker")))
    for seat in range(4)]
# A play's combination (by type: an IntEnum, hashed in C) and Phoenix rank (by rank), key
# and value, in play events and play options alike.
_COMBINATION_NAMES = {t: _key("combination") + _packb(wire.combination_name(
    Combination(t, 0, 0, 0))) for t in ComboType}
_PHOENIX_AS = [_key("phoenix_as") + _packb(wire.rank_text(rank)) for rank in range(15)]


_PASS_BYTES = _packb(wire.PASS_OPTION)


def options_bytes(decision: Decision) -> bytes:
    """`wire.option_maps(decision)`, packed (the plays looked up without a Python-level
    call per option, but for a play not seen lately)."""
    options = decision.options
    if type(options) is not PlayOptions and not isinstance(options, PlayOptions):
        return _packb(wire.option_maps(decision))
    ordered = wire.play_order(options)
    count = len(ordered) + options.can_pass
    return b"".join((_ARRAY_HEADERS[count] if count < 256 else _array_header(count),
                     _PASS_BYTES if options.can_pass else b"",
                     b"".join(map(_PLAYS.__getitem__, ordered))))


class _Plays(dict[Combination, bytes]):
    """Each play option packed, by its combination (a tuple of numbers, its type an IntEnum:
    hashed in C), packed on first sight; a few games' worth (`wire.WORKING_SET`)."""

    def __missing__(self, combo: Combination) -> bytes:
        if len(self) >= wire.WORKING_SET:
            self.clear()
        packed = self[combo] = b"".join((
            _PLAY_OPTION_HEAD, cards_bytes(combo.cards), _PHOENIX_AS[combo.phoenix_as],
            _COMBINATION_NAMES[combo.type]))  # (`wire.play_map`'s keys, in its order)
        return packed


_PLAYS = _Plays()
_PLAY_OPTION_HEAD = (msgpack.Packer().pack_map_header(4) + _key("action") + _packb("play")
                     + _key("cards"))


_REQUEST_HEAD = (msgpack.Packer().pack_map_header(9) + _key("type") + _packb("request")
                 + _key("id"))
_K_KIND, _K_DEADLINE, _K_MAY_CALL, _K_MUST_FULFIL, _K_OBSERVATION, _K_OPTIONS, _K_EVENTS = \
    _keys("kind", "deadline_ms", "may_call_tichu", "must_fulfil_wish", "observation",
          "options", "events")
# by `_value_`: hashing an Enum member is a Python-level call
_KINDS = {kind._value_: _packb(kind.value) for kind in DecisionKind}


def request_bytes(decision: Decision, obs: Observation, events: list[bytes], request_id: int,
                  deadline_ms: int, with_options: bool = True) -> bytes:
    """`codec.pack(wire.request_message(decision, obs, maps, ...))` where `events` holds the
    packed maps (`EventFeed.unsent_bytes`). Not checked against the message size cap: the
    caller sends it through the same check as every message (`codec.bounded`)."""
    n = len(events)
    return b"".join((
        _REQUEST_HEAD, _int(request_id), _K_KIND, _KINDS[decision.kind._value_],
        _K_DEADLINE, _int(deadline_ms), _K_MAY_CALL, _bool(decision.may_call_tichu),
        _K_MUST_FULFIL, _bool(decision.must_fulfil_wish),
        _K_OBSERVATION, observation_bytes(obs),
        _K_OPTIONS, options_bytes(decision) if with_options else _NIL,
        _K_EVENTS, _ARRAY_HEADERS[n] if n < 256 else _array_header(n), *events))


def entry_bytes(entry: tuple[Any, ...]) -> bytes:
    """`codec.packb(wire.entry_map(entry))` for one entry of `Game.log`: passes, plays and
    tricks (nine events in ten) joined from packed pieces, no map built; the rest packed
    from their map."""
    kind = entry[0]
    if kind == "pass":
        return _PASS_EVENTS[entry[1]]
    if kind == "play":
        combo = entry[4]
        return b"".join((_PLAY_EVENT_HEADS[entry[1]], cards_bytes(entry[3]),
                         _COMBINATION_NAMES[combo.type], _PHOENIX_AS[combo.phoenix_as],
                         _K_OUT_OF_TURN, _bool(entry[5])))
    if kind == "trick":
        return b"".join((_TRICK_EVENT_HEADS[entry[1]], _int(entry[3]), _K_CARDS,
                         cards_bytes(entry[4]), _K_POINTS, _int(entry[5])))
    return _packb(wire.entry_map(entry))


class EventLog(Protocol):
    """What an EventFeed reads of a game: its `log` (`Game.log`), a list that only grows."""

    @property
    def log(self) -> list[tuple[Any, ...]]: ...


class EventFeed:
    """A game's events in wire form, each packed once whichever seats see it; hands each
    seat the events it may see and has not been handed yet.

    It reads the game's `log` (its events as flat tuples), not its `events`: no `Event` is
    built for it. A seat is handed the events from where its last handing stopped: a slice
    of the list when all of them are public (nearly always: only deals and exchanges are
    private), else those it may see among them. The events' wire maps are built only when
    asked for (`unsent`, `all`, `recorded`): a request carries the packed events, so the
    live referee builds the maps for its end messages and the game's record, after the
    last decision, not while a bot waits for its request."""

    def __init__(self, game: EventLog) -> None:
        self.log = game.log  # (the game's own list: it grows as the game goes on)
        self.packed: list[bytes] = []  # the log so far, packed (`entry_bytes`)
        self.maps: list[Message] = []  # the wire maps of its first entries (see `_mapped`)
        self.private: list[int] = []  # the indices of the events only one seat may see
        self.handed: list[int] = [0, 0, 0, 0]  # per seat: the events before it are handed

    def _convert(self) -> None:
        """Pack the game's new events."""
        log = self.log
        packed = self.packed
        if len(packed) == len(log):
            return
        private = self.private
        for i in range(len(packed), len(log)):
            entry = log[i]
            packed.append(entry_bytes(entry))
            if entry[2] != PUBLIC:  # (its visible_to)
                private.append(i)

    def _mapped(self) -> list[Message]:
        """The wire maps of every event so far (the new ones built now)."""
        self._convert()
        maps = self.maps
        maps += map(wire.entry_map, self.log[len(maps):len(self.packed)])
        return maps

    def _hand(self, seat: int, items: list[Any]) -> list[Any]:
        """Of `items` (the maps or the packed events of every event so far), those `seat`
        may see and has not been handed (now handed)."""
        start = self.handed[seat]
        end = self.handed[seat] = len(items)
        private = self.private
        if not private or private[-1] < start:  # public events only since the last handing
            return items[start:end]
        log = self.log
        return [items[i] for i in range(start, end) if log[i][2] in (PUBLIC, seat)]

    def unsent(self, seat: int) -> list[Message]:
        """The wire maps of the events `seat` may see that it has not been handed yet."""
        return self._hand(seat, self._mapped())

    def unsent_bytes(self, seat: int) -> list[bytes]:
        """`unsent(seat)`, each map packed."""
        self._convert()
        return self._hand(seat, self.packed)

    def all(self) -> list[Message]:
        """Every event of the game so far in wire form (nobody is handed anything)."""
        return self._mapped()

    def recorded(self) -> list[Message]:
        """Every event of the game so far in wire form with its `visible_to`, as a game
        record holds them."""
        return [m | {"visible_to": entry[2]} for m, entry in zip(self._mapped(), self.log, strict=True)]
