"""The trivial bot of `arena bench transport`: always the first option, the first three cards."""

import sys

from protocol.sdk import FunctionBot, choose, exchange, run


def decide(request):
    if request["kind"] == "exchange":
        return exchange(request["observation"]["hand"][:3])
    return choose(0)


def make_bot(seed=None):
    """The bot (it has no randomness: `seed` is for `arena.referee.inprocess.load_bot`)."""
    return FunctionBot(decide, name="trivial", version="1")


if __name__ == "__main__":
    sys.exit(run(make_bot()))
