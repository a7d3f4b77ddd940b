"""A slow, polite bot for the referee's tests: it says `multi_game`, thinks
TICHU_TEST_THINK seconds (default 0.3) over every decision, plays the first option, and says
on stderr when a game ended while it was thinking (its reply then arrives late, after the
`end`)."""

import os
import sys
import time

import msgpack
import zmq

think = float(os.environ.get("TICHU_TEST_THINK", "0.3"))
context = zmq.Context()
sock = context.socket(zmq.DEALER)
sock.setsockopt(zmq.LINGER, 500)
sock.connect(os.environ["TICHU_ENDPOINT"])
sock.send(msgpack.packb({"type": "hello", "protocol": 1, "token": os.environ["TICHU_TOKEN"],
                         "name": "thinker", "version": "1", "capabilities": ["multi_game"]}))
late = None  # the id of a reply sent after a message had come in meanwhile
while True:
    message = msgpack.unpackb(sock.recv())
    kind = message["type"]
    if kind == "end" and message["reason"] == "aborted" and late is not None:
        print(f"thinker: the game ended while I answered request {late}", file=sys.stderr,
              flush=True)
    if kind in ("error", "reject") or kind == "end" and not message["more_games"]:
        break
    late = None
    if kind != "request":
        continue
    time.sleep(think)
    if sock.poll(0):  # something came while it thought: the game is over, it answers anyway
        late = message["id"]
    if message["kind"] == "exchange":
        reply = {"type": "reply", "id": message["id"],
                 "action": {"action": "exchange", "give": message["observation"]["hand"][:3]}}
    else:
        reply = {"type": "reply", "id": message["id"], "option": 0}
    sock.send(msgpack.packb(reply))
sock.close()
context.term()
