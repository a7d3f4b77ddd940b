"""Regenerate the golden vectors of `protocol/vectors/` (see PROTOCOL.md, section 10).

    .venv/bin/python -m arena.referee.vectors

The vectors are the referee's own output (the in-process harness plays the transcript), so
their generator lives with the referee: `protocol/` imports nothing of `arena`.

Deterministic: the same code gives the same files, byte for byte. The tests check that the
committed files still match what the codec and `arena.referee.wire` produce.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import msgpack

from arena.referee import wire
from arena.referee.inprocess import load_bot, play_local_game
from arena.rules import Game
from protocol import codec

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "protocol" / "vectors"
BOTS = ROOT / "bots"
TRANSCRIPT_SEED = 7
TRANSCRIPT_TARGET = 400
KIND_SEEDS = range(1, 40)


def transcript_bots() -> list[Any]:
    """Heuristic at seats 0 and 2, random at 1 and 3, seeded by seat."""
    heuristic, random_ = load_bot(BOTS / "heuristic"), load_bot(BOTS / "random")
    return [(heuristic if s % 2 == 0 else random_)(s) for s in range(4)]


def play_transcript(bots: list[Any]) -> list[tuple[int, str, dict[str, Any], bytes]]:
    """The messages of the transcript game, in order: (seat, sender, message, bytes)."""
    lines: list[tuple[int, str, dict[str, Any], bytes]] = []
    play_local_game(TRANSCRIPT_SEED, bots, TRANSCRIPT_TARGET,
                    record=lambda seat, sender, m, data: lines.append((seat, sender, m, data)),
                    game_id="transcript")
    return lines


def write_transcript(lines: list[tuple[int, str, dict[str, Any], bytes]]) -> None:
    with open(VECTORS / "transcript.jsonl", "w", encoding="utf-8") as out:
        for seat, sender, message, _ in lines:
            out.write(json.dumps({"seat": seat, "from": sender, "message": message},
                                 separators=(",", ":")) + "\n")
    with open(VECTORS / "transcript.bin", "wb") as out:
        for *_, data in lines:
            out.write(struct.pack(">I", len(data)) + data)


def smallest_requests() -> dict[str, dict[str, Any]]:
    """For each decision kind, the smallest request met in some recorded games."""
    best: dict[str, tuple[int, dict[str, Any]]] = {}

    def keep(seat: int, sender: str, message: dict[str, Any], data: bytes) -> None:
        if message["type"] == "request":
            kind = message["kind"]
            if kind not in best or len(data) < best[kind][0]:
                best[kind] = (len(data), message)

    for seed in KIND_SEEDS:
        play_local_game(seed, transcript_bots(), 300, record=keep)
        if len(best) == 6:
            break
    return {kind: best[kind][1] for kind in sorted(best)}


def no_options_request() -> dict[str, Any]:
    game = Game(3)
    decision = game.decision(0)
    return wire.request_message(decision, game.observation(0), wire.events_for(0, game.events),
                                0, 1000, with_options=False)


def valid_messages() -> list[tuple[str, str, dict[str, Any]]]:
    out: list[tuple[str, str, dict[str, Any]]] = [
        ("hello", "bot", {"type": "hello", "protocol": 1, "token": "3f9c2a1e07b4d5c6",
                          "name": "random", "version": "1.0.0", "capabilities": []}),
        ("hello_no_options", "bot", {"type": "hello", "protocol": 1, "token": "t0k3n",
                                     "name": "my-bot", "version": "0.1",
                                     "capabilities": ["no_options"]}),
        ("hello_multi_game_auto_pass", "bot", {"type": "hello", "protocol": 1,
                                               "token": "t0k3n", "name": "my-bot",
                                               "version": "0.2",
                                               "capabilities": ["multi_game", "auto_pass"]}),
        ("hello_seed", "bot", {"type": "hello", "protocol": 1, "token": "t0k3n",
                               "name": "my-bot", "version": "0.3",
                               "capabilities": ["multi_game", "auto_pass", "seed"]}),
        ("hello_bank", "bot", {"type": "hello", "protocol": 1, "token": "t0k3n",
                               "name": "my-bot", "version": "0.4",
                               "capabilities": ["bank"]}),
        ("welcome", "referee", wire.welcome_message(
            2, "g-000017", 1000, ["heuristic", "random", "heuristic", "random"],
            10000, 1000, codec.MAX_MESSAGE_BYTES, True)),
        ("welcome_seed", "referee", wire.welcome_message(
            2, "g-000017", 1000, ["heuristic", "random", "heuristic", "random"],
            10000, 1000, codec.MAX_MESSAGE_BYTES, True, wire.seat_seed(17, "g-000017", 2))),
        ("welcome_bank", "referee", wire.welcome_message(
            2, "g-000017", 1000, ["heuristic", "random", "heuristic", "random"],
            10000, 1000, codec.MAX_MESSAGE_BYTES, True, bank_ms=wire.bank_limit_ms(300.0))),
        ("reject", "referee", {"type": "reject", "reason": "unsupported_version",
                               "message": "protocol 2 is not supported; this referee speaks 1",
                               "protocols": [1]}),
    ]
    for kind, request in smallest_requests().items():
        out.append((f"request_{kind}", "referee", request))
    out.append(("request_no_options", "referee", no_options_request()))
    out += [
        ("reply_option", "bot", {"type": "reply", "id": 41, "option": 1}),
        ("reply_option_call_tichu", "bot", {"type": "reply", "id": 43, "option": 0,
                                            "call_tichu": True}),
        ("reply_play_wish", "bot", {"type": "reply", "id": 42, "action": {
            "action": "play", "cards": ["Mahjong", "2s", "3p", "4j", "5t"]},
            "call_tichu": True, "wish": "8"}),
        ("reply_play_phoenix", "bot", {"type": "reply", "id": 44, "action": {
            "action": "play", "cards": ["Qj", "Phoenix"], "phoenix_as": "Q"}}),
        ("reply_pass", "bot", {"type": "reply", "id": 45, "action": {"action": "pass"}}),
        ("reply_exchange", "bot", {"type": "reply", "id": 3, "action": {
            "action": "exchange", "give": ["2s", "Ks", "3p"]}, "call_tichu": False}),
        ("reply_grand_tichu", "bot", {"type": "reply", "id": 0, "action": {
            "action": "grand_tichu", "call": False}}),
        ("reply_tichu", "bot", {"type": "reply", "id": 7, "action": {
            "action": "tichu", "call": True}}),
        ("reply_give_dragon", "bot", {"type": "reply", "id": 88, "action": {
            "action": "give_dragon", "to": 3}}),
        ("events", "referee", {"type": "events", "events": [
            {"kind": "pass", "seat": 3},
            {"kind": "trick", "seat": 1, "taker": 1, "cards": ["8p", "8t", "Kj", "Kp"],
             "points": 20}]}),
        ("end_game_over", "referee", wire.end_message([1020, 680], 0, [
            {"kind": "round_end", "card_points": [70, 30], "calls": [0, 0],
             "double_victory": False, "out_order": [0, 3, 2], "scores": [1020, 680]},
            {"kind": "game_end", "scores": [1020, 680], "winner": 0}])),
        ("end_aborted", "referee", wire.end_message(None, None, [], reason="aborted")),
        ("end_more_games", "referee", wire.end_message([1000, 420], 0, [], more_games=True)),
        ("error_illegal_action", "referee", wire.error_message(
            "illegal_action", "does-not-beat-table: a play must be the same type and size as "
            "the table and higher, or a bomb that beats it", "does-not-beat-table", 57)),
        ("error_timeout", "referee", wire.error_message(
            "timeout", "no reply within 1000 ms", None, 12)),
        ("error_malformed", "referee", wire.error_message(
            "malformed_message", "missing_field at reply.id: reply message needs field 'id'")),
    ]
    return out


def _pack(value: Any) -> str:
    return msgpack.packb(value, use_bin_type=True).hex()


def malformed_frames() -> list[tuple[str, str, str, str]]:
    """(name, sender, hex, code) for frames a validating decoder must reject."""
    reply = {"type": "reply", "id": 5, "option": 0}

    def r(**changes: Any) -> str:
        return _pack({**reply, **changes})

    def without(message: dict[str, Any], key: str) -> str:
        return _pack({k: v for k, v in message.items() if k != key})

    hello = valid_messages()[0][2]
    welcome_bank = next(m for name, _, m in valid_messages() if name == "welcome_bank")
    request = smallest_requests()["play"]
    bad_event = {**request, "events": [{"kind": "teleport", "seat": 1}]}
    bad_option = {**request, "options": [{"action": "give_dragon", "to": 1}]}
    return [
        ("not_msgpack_reserved_byte", "bot", "c1", "not_msgpack"),
        ("truncated_map", "bot", _pack(reply)[:-2], "not_msgpack"),
        ("trailing_bytes", "bot", _pack(reply) + "00", "not_msgpack"),
        ("array_not_map", "bot", _pack([1, 2, 3]), "wrong_type"),
        ("integer_map_key", "bot", _pack({1: "reply"}), "wrong_type"),
        ("duplicate_key", "bot", "83a474797065a57265706c79a2696405a2696406", "duplicate_field"),
        ("missing_type", "bot", _pack({"id": 5, "option": 0}), "missing_field"),
        ("unknown_type", "bot", _pack({"type": "shout"}), "unknown_type"),
        ("welcome_seed_negative", "referee", _pack({**next(
            m for name, _, m in valid_messages() if name == "welcome_seed"), "seed": -1}),
         "bad_value"),
        ("welcome_bank_negative", "referee", _pack({**welcome_bank, "limits": {
            **welcome_bank["limits"], "bank_ms": -1}}), "bad_value"),
        ("welcome_bank_string", "referee", _pack({**welcome_bank, "limits": {
            **welcome_bank["limits"], "bank_ms": "300000"}}), "wrong_type"),
        ("bot_sends_welcome", "bot", _pack(next(m for name, _, m in valid_messages()
                                                 if name == "welcome")), "unknown_type"),
        ("hello_missing_token", "bot", without(hello, "token"), "missing_field"),
        ("hello_protocol_string", "bot", _pack({**hello, "protocol": "1"}), "wrong_type"),
        ("hello_empty_name", "bot", _pack({**hello, "name": ""}), "bad_value"),
        ("hello_token_binary", "bot", _pack({**hello, "token": b"\x01\x02"}), "wrong_type"),
        ("reply_missing_id", "bot", without(reply, "id"), "missing_field"),
        ("reply_negative_id", "bot", r(id=-1), "bad_value"),
        ("reply_id_float", "bot", r(id=5.0), "wrong_type"),
        ("reply_unknown_field", "bot", r(colour="red"), "unknown_field"),
        ("reply_call_tichu_int", "bot", r(call_tichu=1), "wrong_type"),
        ("reply_bad_wish", "bot", r(wish="1"), "bad_value"),
        ("reply_option_and_action", "bot", r(action={"action": "pass"}), "bad_value"),
        ("reply_neither", "bot", without(reply, "option"), "bad_value"),
        ("reply_unknown_action", "bot", _pack({"type": "reply", "id": 5,
                                               "action": {"action": "fold"}}), "unknown_kind"),
        ("reply_bad_card", "bot", _pack({"type": "reply", "id": 5, "action": {
            "action": "play", "cards": ["2j", "Zz"]}}), "bad_value"),
        ("reply_card_twice", "bot", _pack({"type": "reply", "id": 5, "action": {
            "action": "play", "cards": ["2j", "2j"]}}), "bad_value"),
        ("reply_lowercase_special", "bot", _pack({"type": "reply", "id": 5, "action": {
            "action": "play", "cards": ["dragon"]}}), "bad_value"),
        ("reply_exchange_two_cards", "bot", _pack({"type": "reply", "id": 5, "action": {
            "action": "exchange", "give": ["2j", "3j"]}}), "bad_value"),
        ("reply_give_dragon_seat_4", "bot", _pack({"type": "reply", "id": 5, "action": {
            "action": "give_dragon", "to": 4}}), "bad_value"),
        ("request_unknown_kind", "referee", _pack({**request, "kind": "auction"}),
         "unknown_kind"),
        ("request_unknown_event", "referee", _pack(bad_event), "unknown_kind"),
        ("request_option_of_wrong_kind", "referee", _pack(bad_option), "bad_value"),
        ("request_missing_observation", "referee", without(request, "observation"),
         "missing_field"),
    ]


def write_json(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, indent=1) + "\n", encoding="utf-8")


def main() -> None:
    messages = [{"name": name, "sender": sender, "message": codec.validate(m, sender),
                 "hex": codec.encode(m, sender).hex()} for name, sender, m in valid_messages()]
    write_json(VECTORS / "messages.json", messages)
    write_json(VECTORS / "malformed.json", [{"name": n, "sender": s, "hex": h, "code": c}
                                         for n, s, h, c in malformed_frames()])
    write_transcript(play_transcript(transcript_bots()))


if __name__ == "__main__":
    main()
