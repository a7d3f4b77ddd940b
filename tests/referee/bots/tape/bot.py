"""A bot for the tests of `arena reproduce`, written against PROTOCOL.md with raw pyzmq and
msgpack. It writes every frame it receives to TICHU_TEST_TAPE_DIR, if set (one file per
token, each frame length-prefixed), and plays option `id * 7919 % len(options)` (varied and
deterministic: bombs, Dragon gifts, a Tichu call now and then), wishing a rank whenever it plays the Mah
Jong. Its arguments are the capabilities of its hello.

TICHU_TEST_TAPE_FAULT, at its TICHU_TEST_TAPE_AT-th request (1 first): crash (a line on
stderr, then exit 7), hang (never answers), illegal (plays a card it does not hold),
garbage (sends bytes that are not msgpack) or other (answers another option than usual, where there is one). Never in the games of
`arena check-bot` (their ids start with check-): a league takes the bot in.
TICHU_TEST_TAPE_FAULT=exit: exits with code 3 at its start, before its hello.
"""

import os
import struct
import sys
import time

import msgpack
import zmq

token = os.environ["TICHU_TOKEN"]
folder = os.environ.get("TICHU_TEST_TAPE_DIR")
log = open(os.path.join(folder, token + ".frames"), "ab") if folder else None
capabilities = sys.argv[1:]
fault = os.environ.get("TICHU_TEST_TAPE_FAULT", "")
fault_at = int(os.environ.get("TICHU_TEST_TAPE_AT", "0"))
if fault == "exit":
    print("tape: exiting at start", file=sys.stderr, flush=True)
    sys.exit(3)
context = zmq.Context()
sock = context.socket(zmq.DEALER)
sock.setsockopt(zmq.LINGER, 500)
sock.connect(os.environ["TICHU_ENDPOINT"])
sock.send(msgpack.packb({"type": "hello", "protocol": 1, "token": token, "name": "tape",
                         "version": "1", "capabilities": capabilities}))


def answer(message, other):
    if message["kind"] == "exchange":
        return {"type": "reply", "id": message["id"],
                "action": {"action": "exchange", "give": message["observation"]["hand"][:3]}}
    options = message["options"]
    choice = message["id"] * 7919 % len(options)
    if message["kind"] in ("grand_tichu", "tichu"):  # a call now and then: a game ends
        choice = int(message["id"] % 11 == 0 and message["observation"]["round"] % 2 == 1)
    if other and len(options) > 1:
        choice = (choice + 1) % len(options)
    reply = {"type": "reply", "id": message["id"], "option": choice}
    if "Mahjong" in options[choice].get("cards", []):
        reply["wish"] = "23456789TJQKA"[message["id"] % 13]
    return reply


requests = 0
while True:
    frame = sock.recv()
    if log is not None:
        log.write(struct.pack(">I", len(frame)) + frame)
        log.flush()
    message = msgpack.unpackb(frame)
    if message["type"] in ("end", "error", "reject"):
        break
    if message["type"] == "welcome" and message["settings"]["game"].startswith("check-"):
        fault = ""
    if message["type"] != "request":
        continue
    requests += 1
    print(f"tape: request {requests} (id {message['id']})", file=sys.stderr, flush=True)
    now = requests == fault_at
    if now and fault == "crash":
        print("tape: crashing on purpose", file=sys.stderr, flush=True)
        sys.exit(7)
    if now and fault == "hang":
        while True:
            time.sleep(3600)
    if now and fault == "garbage":
        sock.send(b"\xc1\xc1 not msgpack")
        continue
    reply = answer(message, now and fault == "other")
    if now and fault == "illegal":
        held = message["observation"]["hand"]
        other = next(c for c in ("2j", "2s", "2p", "2t", "3j") if c not in held)
        reply = {"type": "reply", "id": message["id"],
                 "action": {"action": "play", "cards": [other]}}
    sock.send(msgpack.packb(reply))
sock.close()
context.term()
