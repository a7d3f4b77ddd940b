"""A deliberately broken bot for the referee's tests, written against PROTOCOL.md with raw
pyzmq and msgpack. It plays the first option until decision TICHU_TEST_FAULT_AT (default 5),
then misbehaves as TICHU_TEST_FAULT says:

exit_at_start, no_hello, wrong_token, wrong_version, crash, hang, garbage, truncated,
multi_frame, unknown_id, illegal, oversize, slow (replies after TICHU_TEST_DELAY seconds),
memory_hog, cpu_burn, fd_hog (to meet the resource limits).
"""

import os
import sys
import time

import msgpack
import zmq

fault = os.environ.get("TICHU_TEST_FAULT", "")
fault_at = int(os.environ.get("TICHU_TEST_FAULT_AT", "5"))
token = os.environ["TICHU_TOKEN"]

if fault == "exit_at_start":
    print("faulty bot: exiting at start", file=sys.stderr)
    sys.exit(3)

context = zmq.Context()
sock = context.socket(zmq.DEALER)
sock.setsockopt(zmq.LINGER, 500)
sock.connect(os.environ["TICHU_ENDPOINT"])


def send(message):
    sock.send(msgpack.packb(message))


if fault == "no_hello":
    time.sleep(60)
hello = {"type": "hello", "protocol": 1, "token": token, "name": "faulty", "version": "1"}
if fault == "wrong_token":
    hello["token"] = "not-" + token
if fault == "wrong_version":
    hello["protocol"] = 99
send(hello)

decisions = 0
while True:
    message = msgpack.unpackb(sock.recv())
    if message["type"] in ("end", "error", "reject"):
        break
    if message["type"] != "request":
        continue
    decisions += 1
    if message["kind"] == "exchange":
        reply = {"type": "reply", "id": message["id"],
                 "action": {"action": "exchange", "give": message["observation"]["hand"][:3]}}
    else:
        reply = {"type": "reply", "id": message["id"], "option": 0}
    if decisions == fault_at:
        if fault == "crash":
            print("faulty bot: crashing on purpose", file=sys.stderr)
            sys.exit(7)
        if fault == "hang":
            time.sleep(60)
        if fault == "memory_hog":
            hog = [bytearray(64 << 20) for _ in range(1024)]  # 64 GiB, far past any limit
        if fault == "cpu_burn":
            while True:
                pass
        if fault == "fd_hog":
            files = [open(os.devnull) for _ in range(100000)]
        if fault == "slow":
            time.sleep(float(os.environ.get("TICHU_TEST_DELAY", "0")))
        if fault == "garbage":
            sock.send(b"\xc1\xc1 this is not msgpack")
            continue
        if fault == "truncated":
            sock.send(msgpack.packb(reply)[:-2])
            continue
        if fault == "multi_frame":
            sock.send_multipart([msgpack.packb(reply), b"extra"])
            continue
        if fault == "unknown_id":
            reply["id"] = message["id"] + 1000
        if fault == "illegal" and message["kind"] in ("play", "bomb"):
            # A card this seat does not hold: any card not in its hand.
            hand = set(message["observation"]["hand"])
            other = next(c for c in ("2j", "2s", "2p", "2t", "3j") if c not in hand)
            reply = {"type": "reply", "id": message["id"],
                     "action": {"action": "play", "cards": [other]}}
        if fault == "oversize":
            sock.send(b"\x00" * (2 << 20))
            continue
    send(reply)
sock.close()
context.term()
