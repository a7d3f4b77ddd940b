"""A deliberately broken bot for the check-bot tests: correct except for one fault, named by
its argument (see FAULTS). Raw pyzmq and the codec, so that any byte can be got wrong."""

import os
import random
import sys
import time

import msgpack
import zmq

from protocol import codec

FAULTS = ("exit_at_start", "bad_token", "noncanonical", "grand_tichu_wrong_action",
          "tichu_unknown_field", "exchange_option", "exchange_not_held", "lead_too_slow",
          "reply_to_events", "pass_on_wish", "bomb_out_of_range", "dragon_to_partner",
          "no_multi_game", "no_exit", "exit_1", "crash_in_game", "noncanonical_reply",
          "ansi_field")
ANSI_FIELD = "\x1b]0;pwned\x07\x1b[2J\n  PASS  forged"  # retitles, clears, forges a line


def reply(request, fault):
    kind, rid = request["kind"], request["id"]
    base = {"type": "reply", "id": rid, "option": 0, "action": None, "call_tichu": False,
            "wish": None}
    if kind == "grand_tichu" and fault == "grand_tichu_wrong_action":
        return base | {"option": None, "action": {"action": "tichu", "call": False}}
    if kind == "tichu" and fault == "tichu_unknown_field":
        return base | {"colour": "red"}
    if kind == "tichu" and fault == "ansi_field":
        print(ANSI_FIELD, file=sys.stderr, flush=True)
        return base | {ANSI_FIELD: 1}
    if kind == "exchange":
        hand = request["observation"]["hand"]
        give = hand[:3]
        if fault == "exchange_option":
            return base
        if fault == "exchange_not_held":
            give = [c for c in ("2j", "3j", "4j", "5j") if c not in hand][:3]
        return base | {"option": None, "action": {"action": "exchange", "give": give}}
    if kind == "play" and request["observation"]["table"] is None and fault == "lead_too_slow":
        time.sleep(3 * request["deadline_ms"] / 1000)  # far past deadline_ms plus any grace
    if kind == "play" and request["must_fulfil_wish"] and fault == "pass_on_wish":
        return base | {"option": None, "action": {"action": "pass"}}
    if kind == "bomb" and fault == "bomb_out_of_range":
        return base | {"option": len(request["options"])}
    if kind == "dragon_gift" and fault == "dragon_to_partner":
        seat = request["observation"]["seat"]
        return base | {"option": None, "action": {"action": "give_dragon", "to": (seat + 2) % 4}}
    if kind == "play":
        return base | {"option": random.randrange(len(request["options"]))}
    return base


def main(fault):
    if fault == "exit_at_start":
        print("broken bot: giving up at once")
        return 3
    socket = zmq.Context.instance().socket(zmq.DEALER)
    socket.setsockopt(zmq.LINGER, 1000)
    socket.connect(os.environ["TICHU_ENDPOINT"])
    token = "not-the-token" if fault == "bad_token" else os.environ["TICHU_TOKEN"]
    hello = {"type": "hello", "protocol": 1, "token": token, "name": "broken",
             "version": fault, "capabilities": ["multi_game"]}
    if fault == "noncanonical":
        socket.send(msgpack.packb(dict(reversed(list(hello.items())))))
    else:
        socket.send(codec.pack(hello))
    last_id, answered = 0, 0
    while True:
        message = codec.unpack(socket.recv())
        kind = message["type"]
        if kind == "request":
            answered += 1
            if fault == "crash_in_game" and answered > 20:
                print("Traceback (most recent call last):\n  File \"bot.py\", line 7\n"
                      "AssertionError: crash on purpose \x1b[31m(in red)\x1b[0m",
                      file=sys.stderr, flush=True)
                return 4
            last_id = message["id"]
            answer = reply(message, fault)
            if fault == "noncanonical_reply":  # valid, but id before type and defaults left out
                socket.send(msgpack.packb({"id": answer["id"], "type": "reply", **{
                    k: v for k, v in answer.items() if k not in ("id", "type") and v is not None
                    and v is not False}}))
            else:
                socket.send(codec.pack(answer))
        elif kind == "events" and fault == "reply_to_events":
            socket.send(codec.pack({"type": "reply", "id": last_id, "option": 0}))
        elif kind == "end" and (not message["more_games"] or fault == "no_multi_game"):
            if fault == "no_exit":
                while True:  # past any wait for an exit
                    time.sleep(3600)
            return 1 if fault == "exit_1" else 0
        elif kind in ("reject", "error"):
            return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
