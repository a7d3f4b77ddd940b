"""The random bot: a uniformly random legal option at every decision. Frozen: the rating anchor."""

import random
import sys

from protocol.sdk import FunctionBot, choose, exchange, run


def make_bot(seed=None):
    rng = random.Random(seed)

    def decide(request):
        if request["kind"] == "exchange":
            return exchange(rng.sample(request["observation"]["hand"], 3))
        if request["kind"] in ("grand_tichu", "tichu"):
            return choose(0)  # never call: random calls only sink both teams' scores
        return choose(rng.randrange(len(request["options"])))

    return FunctionBot(decide, name="random", version="1.0.0")


if __name__ == "__main__":
    sys.exit(run(make_bot()))
