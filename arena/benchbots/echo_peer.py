"""A raw pyzmq peer for `arena bench transport`: answers each frame with a fixed reply frame.

No protocol, no decoding: it measures what two processes and ZeroMQ cost by themselves.
"""

from __future__ import annotations

import sys

import zmq


def main() -> int:
    endpoint, reply_size = sys.argv[1], int(sys.argv[2])
    context = zmq.Context()
    sock = context.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(endpoint)
    reply = b"r" * reply_size
    sock.send(b"ready")
    while True:
        frame = sock.recv()
        if frame == b"stop":
            return 0
        sock.send(reply)


if __name__ == "__main__":
    sys.exit(main())
