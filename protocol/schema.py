"""The message schemas of PROTOCOL.md, as small composable checks.

A check is a function ``(value, path) -> canonical value`` that raises `ProtocolError` naming
the fault and its path. Records list their fields in wire order; a field with a default may
be omitted by the sender and is filled in. Unknown fields are rejected: new fields come with
a new protocol version.
"""

from __future__ import annotations

import reprlib

TYPE_CHECKING = False  # typing's, without importing typing: see protocol/__init__.py
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, TypeVar

    _T = TypeVar("_T")
    Check = Callable[[Any, str], _T]  # a check whose canonical value is a _T
    Field = tuple[str, Check[Any], Any]  # name, check, default (REQUIRED if none)

REQUIRED = object()
ABSENT = object()  # the default of a field sent only on request: omitted, not filled in
INT32 = (1 << 31) - 1

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")
# PROTOCOL.md 3: a card's id is its index here ((rank - 2) * 4 + suit, then the four specials);
# the wire sends names, and card sets go out ascending by id.
CARD_NAMES = tuple(rank + suit for rank in RANKS for suit in "jspt") + (
    "Mahjong", "Dog", "Phoenix", "Dragon")
_CARD_IDS = {name: i for i, name in enumerate(CARD_NAMES)}
DECISION_KINDS = ("grand_tichu", "exchange", "tichu", "play", "bomb", "dragon_gift")
COMBINATIONS = ("dog", "single", "pair", "stairs", "triple", "full_house", "straight",
                "four_bomb", "straight_flush")
ERROR_CODES = ("timeout", "illegal_action", "malformed_message", "unexpected_message",
               "oversize_message")
REJECT_REASONS = ("unknown_token", "unsupported_version", "malformed_hello")
END_REASONS = ("game_over", "aborted")


MAX_MESSAGE_CHARS = 1000  # of error.message and reject.message (PROTOCOL.md 9)
MAX_PATH_CHARS = 200      # of a ProtocolError's path
MAX_DETAIL_CHARS = 600    # of a ProtocolError's detail: with the path, within error.message


def clip(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, saying how much was cut."""
    if len(text) <= limit:
        return text
    note = f"... [{len(text)} characters]"
    return text[:max(0, limit - len(note))] + note


_SHOWN = reprlib.Repr()
_SHOWN.maxstring = _SHOWN.maxother = 40
_SHOWN.maxlevel = 2
_SHOWN.maxlist = _SHOWN.maxtuple = _SHOWN.maxdict = _SHOWN.maxset = 4


def shown(value: Any) -> str:
    """A short repr of a value from a peer, for error messages: never long, never recursing
    deep, whatever the value."""
    return clip(_SHOWN.repr(value), 60)


class ProtocolError(ValueError):
    """A malformed message. `code` is the kind of fault, `path` where it is, `detail` why.

    Codes: not_msgpack, oversize, wrong_type, missing_field, unknown_field, duplicate_field,
    unknown_type, unknown_kind, bad_value. Path and detail are cut to a bounded length, since
    both may quote the peer.
    """

    def __init__(self, code: str, path: str, detail: str) -> None:
        path, detail = clip(path, MAX_PATH_CHARS), clip(detail, MAX_DETAIL_CHARS)
        super().__init__(f"{code} at {path or '<message>'}: {detail}")
        self.code = code
        self.path = path
        self.detail = detail


def _type_name(value: Any) -> str:
    return {bool: "boolean", int: "integer", float: "float", str: "string", bytes: "binary",
            list: "array", dict: "map", type(None): "nil"}.get(type(value), type(value).__name__)


def _wrong(value: Any, path: str, expected: str) -> ProtocolError:
    return ProtocolError("wrong_type", path, f"expected {expected}, got {_type_name(value)}")


# ----- scalars ------------------------------------------------------------------------------

def integer(lo: int = -INT32, hi: int = INT32) -> Check[int]:
    def check(value: Any, path: str) -> int:
        if type(value) is not int:
            raise _wrong(value, path, "integer")
        if not lo <= value <= hi:
            raise ProtocolError("bad_value", path, f"{value} is outside {lo}..{hi}")
        return value
    return check


def boolean(value: Any, path: str) -> bool:
    if type(value) is not bool:
        raise _wrong(value, path, "boolean")
    return value


def string(max_len: int = 256, min_len: int = 0) -> Check[str]:
    def check(value: Any, path: str) -> str:
        if type(value) is not str:
            raise _wrong(value, path, "string")
        if not min_len <= len(value) <= max_len:
            raise ProtocolError("bad_value", path, f"length {len(value)} is outside "
                                f"{min_len}..{max_len}")
        return value
    return check


def one_of(choices: Sequence[str], code: str = "bad_value") -> Check[str]:
    def check(value: Any, path: str) -> str:
        if type(value) is not str:
            raise _wrong(value, path, "string")
        if value not in choices:
            raise ProtocolError(code, path, f"{shown(value)} is not one of {', '.join(choices)}")
        return value
    return check


def nullable(inner: Check[_T]) -> Check[_T | None]:
    def check(value: Any, path: str) -> _T | None:
        return None if value is None else inner(value, path)
    return check


SEAT = integer(0, 3)
TEAM = integer(0, 1)
ID = integer(0, INT32)
SCORE = integer()
RANK = one_of(RANKS)
COMBINATION = one_of(COMBINATIONS)


def card(value: Any, path: str) -> str:
    if type(value) is not str:
        raise _wrong(value, path, "string")
    if value not in _CARD_IDS:
        raise ProtocolError("bad_value", path, f"{shown(value)} is not a card name")
    return value


# ----- composites ---------------------------------------------------------------------------

def array(inner: Check[_T], min_len: int = 0, max_len: int = 4096) -> Check[list[_T]]:
    def check(value: Any, path: str) -> list[_T]:
        if type(value) is not list:
            raise _wrong(value, path, "array")
        if not min_len <= len(value) <= max_len:
            raise ProtocolError("bad_value", path, f"{len(value)} items, expected "
                                f"{min_len}..{max_len}")
        return [inner(item, f"{path}[{i}]") for i, item in enumerate(value)]
    return check


def cards(min_len: int = 0, max_len: int = 56) -> Check[list[str]]:
    """A card set: distinct card names, any order on input, ascending by card id on output."""
    items = array(card, min_len, max_len)

    def check(value: Any, path: str) -> list[str]:
        names = items(value, path)
        ids = [_CARD_IDS[n] for n in names]
        if len(set(ids)) != len(ids):
            raise ProtocolError("bad_value", path, "a card is listed twice")
        return [CARD_NAMES[c] for c in sorted(ids)]
    return check


def distinct_cards(n: int) -> Check[list[str]]:
    """An ordered list of `n` distinct cards (order kept: position means recipient)."""
    items = array(card, n, n)

    def check(value: Any, path: str) -> list[str]:
        names = items(value, path)
        if len(set(names)) != n:
            raise ProtocolError("bad_value", path, "the cards must be distinct")
        return names
    return check


def record(name: str, fields: Sequence[Field]) -> Check[dict[str, Any]]:
    """A map with exactly these fields, returned with its keys in this order.

    A field whose default is ABSENT stays out of the canonical form when it is not sent
    (`welcome.seed` and `welcome.limits.bank_ms`, sent only to a bot that asked for them:
    older bots never see the keys).
    """
    known = {f[0] for f in fields}

    def check(value: Any, path: str) -> dict[str, Any]:
        if type(value) is not dict:
            raise _wrong(value, path or name, "map")
        for key in value:
            if key not in known:
                raise ProtocolError("unknown_field", _join(path or name, clip(str(key), 40)),
                                    f"{name} has no field {shown(key)}")
        out = {}
        for key, inner, default in fields:
            where = _join(path or name, key)
            if key in value:
                out[key] = inner(value[key], where)
            elif default is REQUIRED:
                raise ProtocolError("missing_field", where, f"{name} needs field {key!r}")
            elif default is ABSENT:
                continue
            else:
                out[key] = default() if callable(default) else default
        return out
    return check


def tagged(tag: str, variants: dict[str, Check[dict[str, Any]]], code: str = "unknown_kind"
           ) -> Check[dict[str, Any]]:
    """A map whose `tag` field picks the record that checks it."""
    pick = one_of(tuple(variants), code)

    def check(value: Any, path: str) -> dict[str, Any]:
        if type(value) is not dict:
            raise _wrong(value, path, "map")
        if tag not in value:
            raise ProtocolError("missing_field", _join(path, tag), f"a map needs field {tag!r}")
        return variants[pick(value[tag], _join(path, tag))](value, path)
    return check


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def pair_of(inner: Check[_T]) -> Check[list[_T]]:
    return array(inner, 2, 2)


def four_of(inner: Check[_T]) -> Check[list[_T]]:
    return array(inner, 4, 4)


def _with_tag(tag: str, value: str, name: str, fields: Sequence[Field]
              ) -> Check[dict[str, Any]]:
    return record(name, [(tag, one_of((value,)), REQUIRED), *fields])


# ----- actions (options and explicit replies) -----------------------------------------------

def _action(value: str, fields: Sequence[Field]) -> Check[dict[str, Any]]:
    return _with_tag("action", value, f"{value} action", fields)


ACTIONS: dict[str, Check[dict[str, Any]]] = {
    "grand_tichu": _action("grand_tichu", [("call", boolean, REQUIRED)]),
    "exchange": _action("exchange", [("give", distinct_cards(3), REQUIRED)]),
    "tichu": _action("tichu", [("call", boolean, REQUIRED)]),
    "pass": _action("pass", []),
    "play": _action("play", [("cards", cards(1, 14), REQUIRED),
                             ("phoenix_as", nullable(RANK), None),
                             ("combination", nullable(COMBINATION), None)]),
    "give_dragon": _action("give_dragon", [("to", SEAT, REQUIRED)]),
}
ACTION = tagged("action", ACTIONS)
KIND_ACTIONS = {"grand_tichu": ("grand_tichu",), "exchange": ("exchange",),
                "tichu": ("tichu",), "play": ("pass", "play"), "bomb": ("pass", "play"),
                "dragon_gift": ("give_dragon",)}

# ----- events -------------------------------------------------------------------------------


def _event(kind: str, fields: Sequence[Field]) -> Check[dict[str, Any]]:
    return _with_tag("kind", kind, f"{kind} event", fields)


_S: Field = ("seat", SEAT, REQUIRED)
EVENTS: dict[str, Check[dict[str, Any]]] = {
    "round_start": _event("round_start", [("round", integer(1), REQUIRED),
                                          ("scores", pair_of(SCORE), REQUIRED)]),
    "deal": _event("deal", [_S, ("cards", cards(1, 14), REQUIRED)]),
    "grand_tichu": _event("grand_tichu", [_S, ("call", boolean, REQUIRED)]),
    "tichu": _event("tichu", [_S]),
    "exchange": _event("exchange", [_S, ("given", distinct_cards(3), REQUIRED),
                                    ("received", distinct_cards(3), REQUIRED)]),
    "play": _event("play", [_S, ("cards", cards(1, 14), REQUIRED),
                            ("combination", COMBINATION, REQUIRED),
                            ("phoenix_as", nullable(RANK), REQUIRED),
                            ("out_of_turn", boolean, REQUIRED)]),
    "pass": _event("pass", [_S]),
    "wish": _event("wish", [_S, ("rank", RANK, REQUIRED)]),
    "wish_fulfilled": _event("wish_fulfilled", [_S, ("rank", RANK, REQUIRED)]),
    "dog": _event("dog", [_S, ("to", SEAT, REQUIRED)]),
    "trick": _event("trick", [_S, ("taker", SEAT, REQUIRED), ("cards", cards(1, 56), REQUIRED),
                              ("points", integer(-25, 125), REQUIRED)]),
    "out": _event("out", [_S, ("place", integer(1, 4), REQUIRED)]),
    "round_end": _event("round_end", [("card_points", pair_of(SCORE), REQUIRED),
                                      ("calls", pair_of(SCORE), REQUIRED),
                                      ("double_victory", boolean, REQUIRED),
                                      ("out_order", array(SEAT, 0, 4), REQUIRED),
                                      ("scores", pair_of(SCORE), REQUIRED)]),
    "game_end": _event("game_end", [("scores", pair_of(SCORE), REQUIRED),
                                    ("winner", TEAM, REQUIRED)]),
}
EVENT = tagged("kind", EVENTS)
EVENT_LIST = array(EVENT, 0, 10000)

# ----- observation --------------------------------------------------------------------------

TABLE = record("table", [("seat", SEAT, REQUIRED), ("cards", cards(1, 14), REQUIRED),
                         ("combination", COMBINATION, REQUIRED),
                         ("phoenix_as", nullable(RANK), REQUIRED)])
EXCHANGE_SEEN = record("exchange", [("given", distinct_cards(3), REQUIRED),
                                    ("received", distinct_cards(3), REQUIRED)])
OBSERVATION = record("observation", [
    ("seat", SEAT, REQUIRED),
    ("round", integer(1), REQUIRED),
    ("hand", cards(0, 14), REQUIRED),
    ("hand_counts", four_of(integer(0, 14)), REQUIRED),
    ("grand_tichu", four_of(boolean), REQUIRED),
    ("tichu", four_of(boolean), REQUIRED),
    ("out_order", array(SEAT, 0, 4), REQUIRED),
    ("wish", nullable(RANK), REQUIRED),
    ("table", nullable(TABLE), REQUIRED),
    ("trick", cards(), REQUIRED),
    ("trick_points", integer(-25, 125), REQUIRED),
    ("played", cards(), REQUIRED),
    ("points_taken", four_of(integer(-25, 125)), REQUIRED),
    ("exchange", nullable(EXCHANGE_SEEN), REQUIRED),
    ("scores", pair_of(SCORE), REQUIRED),
    ("target", integer(1), REQUIRED),
])

# ----- messages -----------------------------------------------------------------------------


def _message(kind: str, fields: Sequence[Field]) -> Check[dict[str, Any]]:
    return _with_tag("type", kind, f"{kind} message", fields)


def _request_check(value: Any, path: str) -> dict[str, Any]:
    out = _REQUEST_RECORD(value, path)
    if out["options"] is not None:
        allowed = KIND_ACTIONS[out["kind"]]
        for i, option in enumerate(out["options"]):
            if option["action"] not in allowed:
                raise ProtocolError("bad_value", f"request.options[{i}].action",
                                    f"a {out['kind']} request cannot offer {shown(option['action'])}")
    return out


_REPLY_KEYS = frozenset({"type", "id", "option", "action", "call_tichu", "wish"})
_RANK_SET = frozenset(RANKS)


def option_reply(value: dict[str, Any]) -> dict[str, Any] | None:
    """The canonical form of a valid reply that chooses an option, or None for anything else
    (which the full check then accepts or rejects with its precise error). The common reply,
    checked in a few operations instead of one check call per field."""
    get = value.get
    request_id, option, call, wish = get("id"), get("option"), get("call_tichu", False), \
        get("wish")
    if (type(request_id) is int and type(option) is int and 0 <= request_id <= INT32
            and 0 <= option <= INT32 and get("action") is None and type(call) is bool
            and (wish is None or type(wish) is str and wish in _RANK_SET)
            and _REPLY_KEYS.issuperset(value)):
        return {"type": "reply", "id": request_id, "option": option, "action": None,
                "call_tichu": call, "wish": wish}
    return None


def _reply_check(value: Any, path: str) -> dict[str, Any]:
    fast = option_reply(value) if type(value) is dict else None
    if fast is not None:
        return fast
    out = _REPLY_RECORD(value, path)
    if (out["option"] is None) == (out["action"] is None):
        raise ProtocolError("bad_value", "reply", "a reply holds exactly one of 'option' "
                            "and 'action'")
    return out


_REQUEST_RECORD = _message("request", [
    ("id", ID, REQUIRED),
    ("kind", one_of(DECISION_KINDS, "unknown_kind"), REQUIRED),
    ("deadline_ms", integer(0), REQUIRED),
    ("may_call_tichu", boolean, REQUIRED),
    ("must_fulfil_wish", boolean, REQUIRED),
    ("observation", OBSERVATION, REQUIRED),
    ("options", nullable(array(ACTION, 0, 100000)), REQUIRED),
    ("events", EVENT_LIST, REQUIRED),
])
_REPLY_RECORD = _message("reply", [
    ("id", ID, REQUIRED),
    ("option", nullable(integer(0)), None),
    ("action", nullable(ACTION), None),
    ("call_tichu", boolean, False),
    ("wish", nullable(RANK), None),
])

MESSAGES: dict[str, Check[dict[str, Any]]] = {
    "hello": _message("hello", [
        ("protocol", integer(0), REQUIRED),
        ("token", string(256), REQUIRED),
        ("name", string(64, 1), REQUIRED),
        ("version", string(64), REQUIRED),
        ("capabilities", array(string(64), 0, 32), list),
    ]),
    "reply": _reply_check,
    "welcome": _message("welcome", [
        ("protocol", integer(0), REQUIRED),
        ("seat", SEAT, REQUIRED),
        ("options", boolean, REQUIRED),
        ("settings", record("settings", [("game", string(256), REQUIRED),
                                         ("target", integer(1), REQUIRED),
                                         ("names", four_of(string(64)), REQUIRED)]), REQUIRED),
        ("limits", record("limits", [("hello_ms", integer(0), REQUIRED),
                                     ("decision_ms", integer(0), REQUIRED),
                                     ("max_message_bytes", integer(1), REQUIRED),
                                     # only after the `bank` capability
                                     ("bank_ms", integer(0), ABSENT)]), REQUIRED),
        ("seed", integer(0, INT32), ABSENT),  # only after the `seed` capability
    ]),
    "reject": _message("reject", [
        ("reason", one_of(REJECT_REASONS), REQUIRED),
        ("message", string(MAX_MESSAGE_CHARS), REQUIRED),
        ("protocols", array(integer(0), 0, 16), REQUIRED),
    ]),
    "request": _request_check,
    "events": _message("events", [("events", EVENT_LIST, REQUIRED)]),
    "end": _message("end", [
        ("reason", one_of(END_REASONS), REQUIRED),
        ("scores", nullable(pair_of(SCORE)), REQUIRED),
        ("winner", nullable(TEAM), REQUIRED),
        ("events", EVENT_LIST, REQUIRED),
        ("more_games", boolean, False),
    ]),
    "error": _message("error", [
        ("code", one_of(ERROR_CODES), REQUIRED),
        ("message", string(MAX_MESSAGE_CHARS), REQUIRED),
        ("rule", nullable(string(64)), REQUIRED),
        ("id", nullable(ID), REQUIRED),
    ]),
}
BOT_MESSAGES = frozenset({"hello", "reply"})
REFEREE_MESSAGES = frozenset(MESSAGES) - BOT_MESSAGES


def check_message(value: Any, types: frozenset[str]) -> dict[str, Any]:
    """The canonical form of a message whose type is one of `types`; ProtocolError if not."""
    if type(value) is not dict:
        raise _wrong(value, "", "map")
    if "type" not in value:
        raise ProtocolError("missing_field", "type", "a message needs field 'type'")
    kind = value["type"]
    if type(kind) is not str:
        raise _wrong(kind, "type", "string")
    if kind not in types:
        raise ProtocolError("unknown_type", "type", f"{shown(kind)} is not a message type "
                            f"this side may send ({', '.join(sorted(types))})")
    return MESSAGES[kind](value, kind)
