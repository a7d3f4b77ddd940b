"""The random bot: a uniformly random legal option at every decision. Frozen: the rating anchor.

Its randomness comes from the seat's seed of each game (`welcome.seed`, through the SDK's
`rng`), so `arena play --seed S` gives the same game every time.
"""

import random
import sys

from protocol.sdk import Bot, choose, exchange, run


class RandomBot(Bot):
    name = "random"
    version = "1.0.0"

    def __init__(self, seed=None):
        self.rng = random.Random(seed)  # until a welcome brings the game's seat seed

    def decide(self, request):
        rng = self.rng
        if request["kind"] == "exchange":
            return exchange(rng.sample(request["observation"]["hand"], 3))
        if request["kind"] in ("grand_tichu", "tichu"):
            return choose(0)  # never call: random calls only sink both teams' scores
        return choose(rng.randrange(len(request["options"])))


def make_bot(seed=None):
    return RandomBot(seed)


if __name__ == "__main__":
    sys.exit(run(make_bot()))
