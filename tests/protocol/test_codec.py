"""The codec: round trips, canonical form, and a precise error for every malformed message."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.codec import MAX_MESSAGE_BYTES, ProtocolError, decode, encode, validate

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors"
MESSAGES = json.loads((VECTORS / "messages.json").read_text())
MALFORMED = json.loads((VECTORS / "malformed.json").read_text())


def _ids(items):
    return [item["name"] for item in items]


@pytest.mark.parametrize("vector", MESSAGES, ids=_ids(MESSAGES))
def test_golden_message_decodes_to_its_value(vector):
    assert decode(bytes.fromhex(vector["hex"]), vector["sender"]) == vector["message"]


@pytest.mark.parametrize("vector", MESSAGES, ids=_ids(MESSAGES))
def test_golden_message_encodes_to_its_exact_bytes(vector):
    assert encode(vector["message"], vector["sender"]).hex() == vector["hex"]


@pytest.mark.parametrize("vector", MESSAGES, ids=_ids(MESSAGES))
def test_round_trip_is_identity(vector):
    message = vector["message"]
    assert decode(encode(message)) == message


def test_every_message_type_has_a_golden_vector():
    types = {v["message"]["type"] for v in MESSAGES}
    assert types == {"hello", "welcome", "reject", "request", "reply", "events", "end", "error"}
    kinds = {v["message"]["kind"] for v in MESSAGES if v["message"]["type"] == "request"}
    assert kinds == {"grand_tichu", "exchange", "tichu", "play", "bomb", "dragon_gift"}


@pytest.mark.parametrize("vector", MALFORMED, ids=_ids(MALFORMED))
def test_malformed_frame_is_rejected_with_its_code(vector):
    with pytest.raises(ProtocolError) as info:
        decode(bytes.fromhex(vector["hex"]), vector["sender"])
    assert info.value.code == vector["code"]


def test_error_names_the_path_of_the_fault():
    with pytest.raises(ProtocolError) as info:
        validate({"type": "reply", "id": 1, "action": {"action": "play", "cards": ["2j", "Zz"]}})
    assert info.value.path == "reply.action.cards[1]"
    assert str(info.value) == "bad_value at reply.action.cards[1]: 'Zz' is not a card name"


def test_missing_field_is_named():
    with pytest.raises(ProtocolError, match=r"missing_field at hello.token"):
        validate({"type": "hello", "protocol": 1, "name": "x", "version": "1"})


def test_oversize_frame_is_rejected_before_unpacking():
    with pytest.raises(ProtocolError) as info:
        decode(b"\x00" * (MAX_MESSAGE_BYTES + 1), "bot")
    assert info.value.code == "oversize"


def test_oversize_message_is_refused_by_encode():
    request = next(v["message"] for v in MESSAGES if v["name"] == "request_play")
    cards = ["2j", "3j", "4j", "5j", "6j", "7s", "8s", "9s", "Ts", "Js", "Qp", "Kp", "Ap"]
    option = {"action": "play", "cards": cards, "phoenix_as": None, "combination": "straight"}
    with pytest.raises(ProtocolError) as info:
        encode({**request, "options": [option] * 20000})
    assert info.value.code == "oversize"


def test_message_at_the_limit_is_accepted():
    base = encode({"type": "error", "code": "timeout", "message": "", "rule": None, "id": None})
    assert len(base) < MAX_MESSAGE_BYTES
    assert decode(base, "referee")["code"] == "timeout"


def test_sender_restricts_message_types():
    hello = {"type": "hello", "protocol": 1, "token": "t", "name": "n", "version": "1"}
    encode(hello, "bot")
    with pytest.raises(ProtocolError) as info:
        encode(hello, "referee")
    assert info.value.code == "unknown_type"


def test_canonical_form_fills_defaults_orders_keys_and_sorts_cards():
    reply = {"action": {"cards": ["Dragon", "2j"], "action": "play"}, "id": 3, "type": "reply"}
    canonical = validate(reply, "bot")
    assert list(canonical) == ["type", "id", "option", "action", "call_tichu", "wish"]
    assert canonical["action"] == {"action": "play", "cards": ["2j", "Dragon"],
                                   "phoenix_as": None, "combination": None}
    assert encode(reply) == encode(canonical)


def test_key_order_on_input_does_not_matter():
    a = msgpack.packb({"type": "reply", "id": 1, "option": 2})
    b = msgpack.packb({"option": 2, "id": 1, "type": "reply"})
    assert decode(a, "bot") == decode(b, "bot")


def test_exchange_give_keeps_its_order():
    reply = validate({"type": "reply", "id": 1,
                      "action": {"action": "exchange", "give": ["Dragon", "2j", "5s"]}})
    assert reply["action"]["give"] == ["Dragon", "2j", "5s"]


def test_booleans_are_not_integers():
    with pytest.raises(ProtocolError) as info:
        validate({"type": "reply", "id": True, "option": 0})
    assert info.value.code == "wrong_type"


def test_not_bytes_is_rejected():
    with pytest.raises(ProtocolError):
        decode("a string", "bot")  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_arbitrary_bytes_raise_only_protocol_error(data):
    with contextlib.suppress(ProtocolError):
        decode(data, "bot")


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=20))
def test_arbitrary_values_raise_only_protocol_error(value):
    with contextlib.suppress(ProtocolError):
        validate({"type": "reply", "id": 1, "action": value})


# ----- the fast path for option replies must agree with the full decoder ---------------------

def _full_reply_decode(data: bytes):
    """The reference: every map through the duplicate-key hook, every field through its check."""
    from protocol import codec, schema
    try:
        value = msgpack.unpackb(data, raw=False, strict_map_key=False,
                                object_pairs_hook=codec._unique_keys)
        if type(value) is not dict or value.get("type") != "reply":
            return "not a reply"
        out = schema._REPLY_RECORD(value, "reply")
        if (out["option"] is None) == (out["action"] is None):
            return "bad_value"
        return out
    except ProtocolError as exc:
        return exc.code
    except Exception:
        return "not_msgpack"


_scalar = (st.none() | st.booleans() | st.integers(-3, 3) | st.integers(2**31 - 2, 2**31 + 1)
           | st.sampled_from(["reply", "2", "A", "Z", "", "request"]))
_any = _scalar | st.lists(_scalar, max_size=2) | st.dictionaries(st.just("action"), _scalar)
_VALID = {"type": st.just("reply"), "id": st.integers(0, 2**31 - 1),
          "option": st.integers(0, 2**31 - 1), "action": st.none(),
          "call_tichu": st.booleans(), "wish": st.none() | st.sampled_from(list("23456789TJQKA"))}


@st.composite
def _reply_like(draw):
    """A valid option reply with some fields dropped, replaced by any value, or added."""
    out = {}
    for key, valid in _VALID.items():
        how = draw(st.sampled_from(["valid"] * 4 + ["drop", "any"]))
        if how != "drop":
            out[key] = draw(valid if how == "valid" else _any)
    if draw(st.booleans()) and draw(st.booleans()):
        out["extra"] = draw(_any)
    return out


# 1000 random reply-like maps a run (3000 took 8 s of CPU, a tenth of tests/protocol): each
# run draws new ones (not derandomized), and the boundaries of every field are checked
# one by one below.
@settings(max_examples=1000, deadline=None)
@given(_reply_like(), st.booleans())
def test_option_reply_fast_path_agrees_with_the_full_decoder(value, duplicate_id):
    data = msgpack.packb(value)
    if duplicate_id and 0 < len(value) < 15:  # the same key twice in one fixmap
        data = bytes([data[0] + 1]) + data[1:] + msgpack.packb("id") + msgpack.packb(5)
    expected = _full_reply_decode(data)
    try:
        got = decode(data, "bot")
    except ProtocolError as exc:
        got = exc.code
    if isinstance(expected, dict):
        assert got == expected and list(got) == list(expected)
    elif expected != "not a reply":
        assert got == expected


def test_option_reply_with_a_repeated_key_is_refused():
    frame = bytes([0x87]) + b"".join(msgpack.packb(x) for x in (
        "type", "reply", "id", 5, "option", 0, "action", None, "call_tichu", False,
        "wish", None, "id", 6))
    with pytest.raises(ProtocolError) as info:
        decode(frame, "bot")
    assert info.value.code == "duplicate_field"


@pytest.mark.parametrize("field, value", [
    ("id", -1), ("id", 0), ("id", 2**31 - 1), ("id", 2**31), ("id", True), ("id", "5"),
    ("option", -1), ("option", 0), ("option", 2**31 - 1), ("option", 2**31), ("option", False),
    ("call_tichu", 0), ("call_tichu", True), ("call_tichu", None), ("wish", "A"),
    ("wish", "1"), ("wish", ["A"]), ("action", {"action": "pass"}), ("extra", 1),
])
def test_option_reply_boundaries_agree_with_the_full_decoder(field, value):
    reply = {"type": "reply", "id": 5, "option": 0, "action": None, "call_tichu": False,
             "wish": None, field: value}
    data = msgpack.packb(reply)
    try:
        got = decode(data, "bot")
    except ProtocolError as exc:
        got = exc.code
    assert got == _full_reply_decode(data)


_WIDTHS = {"fixint": lambda n: bytes((n,)), "uint8": lambda n: b"\xcc" + n.to_bytes(1, "big"),
           "uint16": lambda n: b"\xcd" + n.to_bytes(2, "big"),
           "uint32": lambda n: b"\xce" + n.to_bytes(4, "big")}


_FITS = {"fixint": 127, "uint8": 255, "uint16": 2**16 - 1, "uint32": 2**32 - 1}


@pytest.mark.parametrize("width, value", [
    (width, value) for width in _WIDTHS
    for value in (0, 5, 127, 255, 2**16 - 1, 2**31 - 1, 2**31, 2**32 - 1) if value <= _FITS[width]])
def test_canonical_option_replies_agree_with_the_full_decoder(width, value):
    """An option reply in the SDK's layout, its ints in any width, reads as the full decoder
    reads it (the range checks included)."""
    for call, wish in ((b"\xc2", b"\xc0"), (b"\xc3", b"\xa1T")):
        for id_bytes, option_bytes in ((_WIDTHS[width](value), b"\x00"),
                                       (b"\x05", _WIDTHS[width](value))):
            data = (b"\x86\xa4type\xa5reply\xa2id" + id_bytes + b"\xa6option" + option_bytes
                    + b"\xa6action\xc0\xaacall_tichu" + call + b"\xa4wish" + wish)
            try:
                got = decode(data, "bot")
            except ProtocolError as exc:
                got = exc.code
            expected = _full_reply_decode(data)
            assert got == expected
            assert not isinstance(got, dict) or list(got) == list(expected)


def test_packb_gives_msgpack_bytes_also_after_a_value_it_could_not_pack():
    """The thread's Packer is shared by every call: a failed call leaves nothing behind."""
    from protocol.codec import packb
    value = {"kind": "play", "seat": 2, "cards": ["R5", "G5"], "wish": None, "n": 70000}
    with pytest.raises(TypeError):
        packb({"a": [1, 2, object()]})
    assert packb(value) == msgpack.packb(value, use_bin_type=True)


def test_welcome_limits_carry_bank_ms_only_when_sent_and_last():
    """`limits.bank_ms` (the `bank` capability) is optional with no default: a welcome
    without it keeps its old canonical form, byte for byte; sent, it goes last in `limits`,
    within 0..2**31-1."""
    old = {"type": "welcome", "protocol": 1, "seat": 0, "options": True,
           "settings": {"game": "g", "target": 1000, "names": ["a", "b", "a", "b"]},
           "limits": {"hello_ms": 10000, "decision_ms": 5000, "max_message_bytes": 1 << 20}}
    assert encode(old) == msgpack.packb(old) and "bank_ms" not in validate(old)["limits"]
    banked = {**old, "limits": {"bank_ms": 300000, **old["limits"]}}  # any order on input
    assert list(validate(banked)["limits"]) == ["hello_ms", "decision_ms",
                                                "max_message_bytes", "bank_ms"]
    assert decode(encode(banked))["limits"]["bank_ms"] == 300000
    for value, code in ((2**31, "bad_value"), (-1, "bad_value"), (None, "wrong_type"),
                        (3.5, "wrong_type")):
        with pytest.raises(ProtocolError) as info:
            validate({**old, "limits": {**old["limits"], "bank_ms": value}})
        assert (info.value.code, info.value.path) == (code, "welcome.limits.bank_ms")
