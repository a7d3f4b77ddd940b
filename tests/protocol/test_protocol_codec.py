"""The codec: round trips, canonical form, and a precise error for every malformed message."""

from __future__ import annotations

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
    try:
        decode(data, "bot")
    except ProtocolError:
        pass


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=20))
def test_arbitrary_values_raise_only_protocol_error(value):
    try:
        validate({"type": "reply", "id": 1, "action": value})
    except ProtocolError:
        pass
