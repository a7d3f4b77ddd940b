"""A raw pyzmq peer for `arena bench transport`: answers each frame, with no protocol logic.

`bytes` mode sends back a fixed frame without reading the request: what two processes and
ZeroMQ cost by themselves. `msgpack` mode unpacks the request and packs a reply map, the
least any Python peer of a msgpack protocol does: the physical limit for a Python bot.
"""

from __future__ import annotations

import sys

import msgpack
import zmq

_REPLY = {"type": "reply", "id": 0, "option": 0, "action": None, "call_tichu": False,
          "wish": None}


def main() -> int:
    endpoint, mode = sys.argv[1], sys.argv[2]
    context = zmq.Context()
    sock = context.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(endpoint)
    fixed = msgpack.packb(_REPLY)
    sock.send(b"ready")
    while True:
        frame = sock.recv()
        if frame == b"stop":
            return 0
        if mode == "msgpack":
            request = msgpack.unpackb(frame)
            sock.send(msgpack.packb({**_REPLY, "id": request["id"]}))
        else:
            sock.send(fixed)


if __name__ == "__main__":
    sys.exit(main())
