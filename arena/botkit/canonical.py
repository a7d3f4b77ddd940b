"""Why a valid message is not in canonical form (PROTOCOL.md 3): which key or value differs.

`differences(data, canonical)` reads the msgpack bytes a bot sent (already known to decode to
a valid message) with a small scanner that keeps each value's encoded width, and compares
them with the canonical form of the same message: fields left out, keys out of order, card
sets not ascending, values not in their shortest encoding. Each difference is one sentence
naming where it is, e.g. ``field 'action' left out (canonical form writes every field, here
nil)`` or ``action.cards: ['5t', '2j'] is not in card id order; ...``.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

import msgpack


@dataclass(frozen=True)
class _Node:
    """One value as encoded: its decoded form, its children, and how many bytes it took."""

    value: Any                      # scalars; for containers, None
    items: list[Any] | None         # arrays: child nodes; maps: (key, child node) pairs
    width: int                      # bytes of this value's header or whole scalar


def differences(data: bytes, canonical: dict[str, Any], limit: int = 3) -> list[str]:
    """Up to `limit` sentences saying where `data` departs from the bytes of `canonical`."""
    node, _ = _scan(memoryview(data), 0)
    found: list[str] = []
    _compare(node, canonical, "", found)
    return found[:limit] or ["the bytes differ from the canonical encoding"]


def _compare(node: _Node, canonical: Any, path: str, found: list[str]) -> None:
    if isinstance(canonical, dict):
        _compare_map(node, canonical, path, found)
    elif isinstance(canonical, list):
        _compare_array(node, canonical, path, found)
    else:
        shortest = len(msgpack.packb(canonical, use_bin_type=True))
        if node.width != shortest:
            found.append(f"{_at(path)}{canonical!r} written in {node.width} bytes; its shortest "
                         f"form takes {shortest}")


def _compare_map(node: _Node, canonical: dict[str, Any], path: str, found: list[str]) -> None:
    sent = dict(node.items or [])
    for key in canonical:
        if key not in sent:
            found.append(f"{_at(path)}field {key!r} left out (canonical form writes every field, "
                         f"here {_shown(canonical[key])})")
    order = [key for key, _ in node.items or [] if key in canonical]
    expected = [key for key in canonical if key in sent]
    if order != expected:
        found.append(f"{_at(path)}keys in the order {', '.join(order)}; canonical order is "
                     f"{', '.join(expected)}")
    _header_width(node, len(node.items or []), path, "map", found)
    for key in expected:
        _compare(sent[key], canonical[key], _join(path, key), found)


def _compare_array(node: _Node, canonical: list[Any], path: str, found: list[str]) -> None:
    items = node.items or []
    values = [item.value for item in items]
    if len(items) == len(canonical) and values != canonical and sorted(map(str, values)) == \
            sorted(map(str, canonical)):
        found.append(f"{_at(path)}{values} is not in card id order; canonical order is "
                     f"{canonical}")
        return
    _header_width(node, len(items), path, "array", found)
    for i, (item, value) in enumerate(zip(items, canonical, strict=False)):  # a length differs: said above
        _compare(item, value, f"{path}[{i}]", found)


def _at(path: str) -> str:
    """The prefix naming where a difference is: nothing for the message's own map."""
    return f"{path}: " if path else ""


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _shown(value: Any) -> str:
    """A value as PROTOCOL.md writes it: nil, true, false, or its JSON-like form."""
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return str(value).lower()
    return repr(value)


def _header_width(node: _Node, count: int, path: str, what: str, found: list[str]) -> None:
    shortest = 1 if count < 16 else 3 if count < 1 << 16 else 5
    if node.width != shortest:
        found.append(f"{_at(path)}{what} of {count} entries has a {node.width}-byte header; the "
                     f"shortest takes {shortest}")


# ----- the scanner --------------------------------------------------------------------------

_FIXED = {0xC0: None, 0xC2: False, 0xC3: True}
_UINT = {0xCC: ">B", 0xCD: ">H", 0xCE: ">I", 0xCF: ">Q"}
_INT = {0xD0: ">b", 0xD1: ">h", 0xD2: ">i", 0xD3: ">q"}
_STR = {0xD9: ">B", 0xDA: ">H", 0xDB: ">I"}
_CONTAINER = {0xDC: (">H", False), 0xDD: (">I", False), 0xDE: (">H", True), 0xDF: (">I", True)}


def _scan(data: memoryview, at: int) -> tuple[_Node, int]:
    """The value starting at `at` and the offset after it (valid msgpack is assumed)."""
    b = data[at]
    if b <= 0x7F or b >= 0xE0:
        return _Node(b if b <= 0x7F else b - 0x100, None, 1), at + 1
    if 0x80 <= b <= 0x9F:
        return _container(data, at + 1, b & 0x0F, 1, b <= 0x8F)
    if 0xA0 <= b <= 0xBF:
        return _string(data, at + 1, b & 0x1F, 1)
    if b in _FIXED:
        return _Node(_FIXED[b], None, 1), at + 1
    if b in _UINT or b in _INT:
        fmt = _UINT.get(b) or _INT[b]
        size = struct.calcsize(fmt)
        (value,) = struct.unpack_from(fmt, data, at + 1)
        return _Node(value, None, 1 + size), at + 1 + size
    if b in _STR:
        fmt = _STR[b]
        size = struct.calcsize(fmt)
        (length,) = struct.unpack_from(fmt, data, at + 1)
        return _string(data, at + 1 + size, length, 1 + size)
    if b in _CONTAINER:
        fmt, is_map = _CONTAINER[b]
        size = struct.calcsize(fmt)
        (count,) = struct.unpack_from(fmt, data, at + 1)
        return _container(data, at + 1 + size, count, 1 + size, is_map)
    raise ValueError(f"byte 0x{b:02x} at {at}: not a type a valid message holds")


def _string(data: memoryview, at: int, length: int, header: int) -> tuple[_Node, int]:
    text = bytes(data[at:at + length]).decode("utf-8")
    # a string's width is its whole encoding, so the comparison with the shortest form works
    return _Node(text, None, header + length), at + length


def _container(data: memoryview, at: int, count: int, header: int,
               is_map: bool) -> tuple[_Node, int]:
    items: list[Any] = []
    for _ in range(count):
        if is_map:
            key, at = _scan(data, at)
            value, at = _scan(data, at)
            items.append((key.value, value))
        else:
            item, at = _scan(data, at)
            items.append(item)
    return _Node(None, items, header), at
