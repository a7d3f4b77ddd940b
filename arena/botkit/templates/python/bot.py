"""__NAME__: a Tichu Arena bot. Change decide() to play better (see protocol/PROTOCOL.md)."""

import random
import sys

from protocol.sdk import choose, exchange, run


def decide(request):
    """The reply to one request: any three cards to exchange, a random option otherwise."""
    if request["kind"] == "exchange":
        return exchange(random.sample(request["observation"]["hand"], 3))
    if request["kind"] in ("grand_tichu", "tichu"):
        return choose(0)  # option 0: no call
    return choose(random.randrange(len(request["options"])))


if __name__ == "__main__":
    sys.exit(run(decide, name="__NAME__", version="0.1.0"))
