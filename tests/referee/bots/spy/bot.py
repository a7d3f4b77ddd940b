"""A bot for the referee's tests that writes every frame it receives to TICHU_TEST_SPY_DIR
(one file per token, each frame length-prefixed) and plays option `id * 7919 % len(options)`
(varied play, deterministic). Its arguments are the capabilities it says at hello."""

import os
import struct
import sys

import msgpack
import zmq

token = os.environ["TICHU_TOKEN"]
log = open(os.path.join(os.environ["TICHU_TEST_SPY_DIR"], token + ".frames"), "ab")
context = zmq.Context()
sock = context.socket(zmq.DEALER)
sock.setsockopt(zmq.LINGER, 500)
sock.connect(os.environ["TICHU_ENDPOINT"])
sock.send(msgpack.packb({"type": "hello", "protocol": 1, "token": token, "name": "spy",
                         "version": "1", "capabilities": sys.argv[1:]}))
while True:
    frame = sock.recv()
    log.write(struct.pack(">I", len(frame)) + frame)
    log.flush()
    message = msgpack.unpackb(frame)
    if message["type"] in ("end", "error", "reject"):
        break
    if message["type"] == "request":
        if message["kind"] == "exchange":
            reply = {"type": "reply", "id": message["id"], "action": {
                "action": "exchange", "give": message["observation"]["hand"][:3]}}
        else:
            reply = {"type": "reply", "id": message["id"],
                     "option": message["id"] * 7919 % len(message["options"])}
        sock.send(msgpack.packb(reply))
sock.close()
context.term()
