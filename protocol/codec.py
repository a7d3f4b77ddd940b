"""The wire codec: encode, decode and validate protocol messages. Pure functions, no sockets.

A message is a plain dict, exactly the msgpack map of PROTOCOL.md (string keys, card names as
strings, ranks as one character). `validate` checks one against its schema and returns its
*canonical form*: every field present (an omitted optional field gets its default), keys in
the order PROTOCOL.md lists them, card sets ascending by card id. `encode` packs the
canonical form, so equal messages give equal bytes; `decode` unpacks and validates.

Every malformed message raises `ProtocolError`, whose `code` names the kind of fault and
whose `path` locates it (``"request.observation.hand[3]"``).
"""

from __future__ import annotations

import functools
from _thread import _local as thread_local  # threading.local, without importing threading

import msgpack

from protocol.schema import (
    BOT_MESSAGES,
    INT32,
    MESSAGES,
    RANKS,
    REFEREE_MESSAGES,
    ProtocolError,
    check_message,
    option_reply,
    shown,
)

PROTOCOL_VERSION = 1
SUPPORTED_VERSIONS = (1,)
MAX_MESSAGE_BYTES = 1 << 20  # 1 MiB: the largest message the referee sends
MAX_BOT_MESSAGE_BYTES = 16 << 10  # 16 KiB: the largest message a bot may send
# Decoder limits on a bot's message, far above what a valid one holds (PROTOCOL.md 9): a
# declared length past them is refused at its header, before anything is built.
MAX_BOT_ITEMS = 256   # items of one array
MAX_BOT_FIELDS = 64   # entries of one map

TYPE_CHECKING = False  # typing's, without importing typing: see protocol/__init__.py
if TYPE_CHECKING:
    import re
    from typing import Any, TypedDict

    class _Limits(TypedDict, total=False):
        """Decoder limits, as msgpack.unpackb takes them (an absent one is msgpack's
        default)."""

        max_array_len: int
        max_map_len: int
        max_str_len: int
        max_bin_len: int
        max_ext_len: int


_BOT_LIMITS: _Limits = {"max_array_len": MAX_BOT_ITEMS,
               "max_map_len": MAX_BOT_FIELDS, "max_str_len": MAX_BOT_MESSAGE_BYTES,
               "max_bin_len": MAX_BOT_MESSAGE_BYTES, "max_ext_len": MAX_BOT_MESSAGE_BYTES}

__all__ = [
    "PROTOCOL_VERSION", "SUPPORTED_VERSIONS", "MAX_MESSAGE_BYTES", "MAX_BOT_MESSAGE_BYTES",
    "ProtocolError",
    "validate", "encode", "decode", "pack", "bounded", "unpack", "MESSAGES", "BOT_MESSAGES",
    "REFEREE_MESSAGES",
]


def validate(message: Any, sender: str | None = None) -> dict[str, Any]:
    """The canonical form of `message`; ProtocolError if it is not a valid message.

    `sender` ("bot" or "referee") restricts the message types accepted to those that side
    may send; None accepts every type.
    """
    return check_message(message, _types_of(sender))


def encode(message: dict[str, Any], sender: str | None = None) -> bytes:
    """The msgpack bytes of a message's canonical form; ProtocolError if invalid or oversize."""
    data = packb(validate(message, sender))
    if len(data) > MAX_MESSAGE_BYTES:
        raise ProtocolError("oversize", "", f"{len(data)} bytes, more than the maximum "
                            f"{MAX_MESSAGE_BYTES}")
    return data


def decode(data: bytes, sender: str | None = None) -> dict[str, Any]:
    """The canonical form of the message in one frame; ProtocolError if malformed or oversize.

    A bot's message (`sender="bot"`) is held to the bot limits: at most
    MAX_BOT_MESSAGE_BYTES, arrays of at most MAX_BOT_ITEMS and maps of at most
    MAX_BOT_FIELDS entries (code `oversize`), so that decoding one costs little whatever it
    holds; nesting deeper than msgpack's own limit (1024) is `oversize` too.
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ProtocolError("wrong_type", "", "a frame must be bytes")
    limit = MAX_BOT_MESSAGE_BYTES if sender == "bot" else MAX_MESSAGE_BYTES
    if len(data) > limit:
        raise ProtocolError("oversize", "", f"{len(data)} bytes, more than the maximum {limit}")
    limits: _Limits = _BOT_LIMITS if sender == "bot" else {}
    if sender != "referee":
        fast = _canonical_option_reply(data)
        if fast is not None:
            return fast
        fast = _option_reply_frame(data, limits)
        if fast is not None:
            return fast
    try:
        value = msgpack.unpackb(data, raw=False, strict_map_key=False, use_list=True,
                                object_pairs_hook=_unique_keys, **limits)
    except ProtocolError:
        raise
    except msgpack.StackError:
        raise ProtocolError("oversize", "", "nested deeper than the decoder allows") from None
    except ValueError as exc:
        if "exceeds max_" in str(exc):
            raise ProtocolError("oversize", "", f"a string, array or map longer than a "
                                f"message may hold ({exc})") from None
        raise ProtocolError("not_msgpack", "", f"not one valid msgpack value: {exc}") from None
    except Exception as exc:  # msgpack raises many types for bad input: all mean the same
        raise ProtocolError("not_msgpack", "", f"not one valid msgpack value: {exc}") from None
    return validate(value, sender)


def pack(message: dict[str, Any]) -> bytes:
    """The msgpack bytes of a message already in canonical form, without validating it.

    For trusted producers only (the referee's own `arena.referee.wire` builds canonical maps; a test
    checks that `pack` and `encode` agree on them). Oversize still raises ProtocolError.
    """
    return bounded(packb(message))


class _Packer(thread_local):
    """This thread's msgpack Packer: `msgpack.packb` creates one per call, which costs as much
    as packing a small message does, and a Packer is not safe to share across threads."""

    def __init__(self) -> None:
        self.pack = msgpack.Packer(use_bin_type=True).pack  # autoreset: each call its bytes


_PACKER = _Packer()


def packb(value: Any) -> bytes:
    """`msgpack.packb(value, use_bin_type=True)`, the same bytes, packed by this thread's
    Packer (it resets itself after each value, and after a value it could not pack)."""
    return _PACKER.pack(value)


def bounded(data: bytes) -> bytes:
    """`data`, the packed bytes of a message; ProtocolError if it is over MAX_MESSAGE_BYTES
    (the cap every message sent to a bot is held to, however it was packed)."""
    if len(data) > MAX_MESSAGE_BYTES:
        raise ProtocolError("oversize", "", f"{len(data)} bytes, more than the maximum "
                            f"{MAX_MESSAGE_BYTES}")
    return data


def unpack(data: bytes) -> dict[str, Any]:
    """The map in one frame from a trusted sender, checked only for shape (a map with a type).

    Bots may use it on the referee's messages to save the cost of full validation; anything
    from an untrusted peer goes through `decode`.
    """
    if len(data) > MAX_MESSAGE_BYTES:
        raise ProtocolError("oversize", "", f"{len(data)} bytes, more than the maximum "
                            f"{MAX_MESSAGE_BYTES}")
    try:
        value = msgpack.unpackb(data, raw=False)
    except Exception as exc:
        raise ProtocolError("not_msgpack", "", f"not one valid msgpack value: {exc}") from None
    if type(value) is not dict or type(value.get("type")) is not str:
        raise ProtocolError("wrong_type", "", "a message is a map with a string 'type'")
    return value


# An option reply laid out as `validate` returns it and the SDK packs it: the keys in
# canonical order, the id and the option as msgpack unsigned ints (any width), no action, a
# bool call and a wish that is none or one rank character. Bytes matching it in full hold
# exactly one message, which holds no repeated key and no value to check beyond the ints'
# range.
# (Compiled at the referee's first reply: a bot decodes none, and `re` was a sixth of a
# Python bot's imports.)
@functools.cache
def _canonical_reply() -> re.Pattern[bytes]:
    import re

    return re.compile(
        rb"\x86\xa4type\xa5reply\xa2id"
        rb"([\x00-\x7f]|\xcc.|\xcd..|\xce....)\xa6option([\x00-\x7f]|\xcc.|\xcd..|\xce....)"
        rb"\xa6action\xc0\xaacall_tichu([\xc2\xc3])\xa4wish(\xc0|\xa1[23456789TJQKA])",
        re.DOTALL)


_RANK_OF = {bytes((0xA1, ord(rank))): rank for rank in RANKS}


def _canonical_option_reply(data: bytes | bytearray | memoryview) -> dict[str, Any] | None:
    """The canonical form of a frame holding an option reply in canonical layout
    (`_canonical_reply`), read off its bytes by one match; None for any other frame."""
    match = _canonical_reply().fullmatch(data)
    if match is None:
        return None
    id_bytes, option_bytes, call, wish = match.groups()
    # a positive fixint is its byte; a uint 8, 16 or 32 the bytes after its marker
    request_id = id_bytes[0] if len(id_bytes) == 1 else int.from_bytes(id_bytes[1:], "big")
    option = (option_bytes[0] if len(option_bytes) == 1
              else int.from_bytes(option_bytes[1:], "big"))
    if request_id > INT32 or option > INT32:
        return None
    return {"type": "reply", "id": request_id, "option": option, "action": None,
            "call_tichu": call == b"\xc3", "wish": _RANK_OF.get(wish)}


def _option_reply_frame(data: bytes | bytearray | memoryview,
                        limits: _Limits) -> dict[str, Any] | None:
    """The canonical form of a frame holding a valid reply that chooses an option, decoded
    without a Python call per map; None for any other frame (the full path then decodes it
    or names its fault). A fixmap whose entry count equals the decoded dict's size, with only
    scalar values, cannot hide a repeated key."""
    if not data or not 0x80 <= data[0] <= 0x8F:
        return None
    try:
        value = msgpack.unpackb(data, raw=False, **limits)
    except Exception:
        return None
    if type(value) is not dict or len(value) != data[0] & 0x0F or value.get("type") != "reply":
        return None
    return option_reply(value)


def _unique_keys(pairs: list[tuple[Any, Any]]) -> dict[Any, Any]:
    out: dict[Any, Any] = {}
    for key, value in pairs:
        if not isinstance(key, str):
            raise ProtocolError("wrong_type", "", f"map key {shown(key)} is not a string")
        if key in out:
            raise ProtocolError("duplicate_field", key, f"field {shown(key)} appears twice in "
                                "one map")
        out[key] = value
    return out


def _types_of(sender: str | None) -> frozenset[str]:
    if sender is None:
        return frozenset(MESSAGES)
    if sender == "bot":
        return BOT_MESSAGES
    if sender == "referee":
        return REFEREE_MESSAGES
    raise ValueError(f"sender must be 'bot', 'referee' or None, not {sender!r}")
