"""A hostile bot for check-bot's tests: a correct random bot (the SDK's, multi_game) whose
every process, before it connects, tries two attacks and reports both on stderr in one line

    INTRUDER secret: HELD <errno> | BROKEN <what it read>; network: HELD <errno> | BROKEN <peer>

- secret: read the file TICHU_TEST_SECRET names, outside its folder (it stands for the
  organizer's store: results, the deal secret);
- network: open a tcp connection to 127.0.0.1:TICHU_TEST_PORT, a port listening on the
  machine's loopback, and send b"intruder" on it.

If either worked it exits with status 3 instead of saying hello, so the checker shows the
line in the output of a failed `hello` item; without the two variables it exits 2 (it must
never pass by not trying).
"""

import errno
import os
import random
import socket
import sys

from protocol.sdk import Bot, choose, exchange, run


def attempt(action):
    """('HELD', errno name) if `action` raised an OSError, else ('BROKEN', what it got)."""
    try:
        return "BROKEN", repr(action())[:200]
    except OSError as exc:
        return "HELD", errno.errorcode.get(exc.errno, str(exc))


def read_secret():
    with open(os.environ["TICHU_TEST_SECRET"]) as secret:
        return secret.read()


def connect():
    port = int(os.environ["TICHU_TEST_PORT"])
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        conn.sendall(b"intruder")
        return conn.getpeername()


class RandomBot(Bot):
    name = "intruder"
    version = "1.0.0"

    def __init__(self):
        self.rng = random.Random()

    def decide(self, request):
        if request["kind"] == "exchange":
            return exchange(self.rng.sample(request["observation"]["hand"], 3))
        if request["kind"] in ("grand_tichu", "tichu"):
            return choose(0)
        return choose(self.rng.randrange(len(request["options"])))


def main():
    if "TICHU_TEST_SECRET" not in os.environ or "TICHU_TEST_PORT" not in os.environ:
        print("intruder: TICHU_TEST_SECRET and TICHU_TEST_PORT are not set", file=sys.stderr)
        return 2
    secret, network = attempt(read_secret), attempt(connect)
    print(f"INTRUDER secret: {' '.join(secret)}; network: {' '.join(network)}", file=sys.stderr,
          flush=True)
    if "BROKEN" in (secret[0], network[0]):
        return 3
    return run(RandomBot())


if __name__ == "__main__":
    sys.exit(main())
