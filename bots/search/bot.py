"""The search bot: determinized Monte Carlo search over deals consistent with what its seat
has seen, played out by the rules engine (arena.rules) with a fast heuristic policy.

Every decision (Grand Tichu, the exchange, the Tichu window, plays, bomb windows, the wish,
the Dragon gift) samples the hidden hands, plays a few candidate actions out on each sample
and takes the best on average, within a budget of time taken from the request's deadline
(`searchbot.budget`) and lowered by `--budget-ms` (bot.toml's command). See README.md.

    python bot.py [--budget-ms MS]
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time
import traceback
from collections.abc import Sequence
from typing import Any

from searchbot import opening, search
from searchbot.budget import Clock, Deadline
from searchbot.knowledge import Knowledge, card_set, rank_text, rank_value

from arena.rules import GiveDragon, Play
from arena.rules.cards import card_name
from protocol.sdk import Bot, choose, exchange, run

Message = dict[str, Any]


class SearchBot(Bot):
    name = "search"
    version = "1.0.0"
    capabilities = ("bank",)  # the welcome announces the time bank (searchbot.budget)

    def __init__(self, seed: int | None = None, limit_ms: float | None = None) -> None:
        self.rng = random.Random(seed)
        self.clock = Clock(limit_ms)
        self.knowledge = Knowledge(0)
        self.playouts = 0
        self.thinking = 0.0

    def on_welcome(self, welcome: Message) -> None:
        self.clock.new_game(float(welcome["limits"]["decision_ms"]), self.bank_ms)
        self.knowledge = Knowledge(welcome["seat"])

    def on_event(self, event: Message) -> None:
        self.knowledge.observe(event)  # (events come in requests, `events` messages and `end`)

    def decide(self, request: Message) -> Message:
        start = time.perf_counter()
        knowledge = self.knowledge
        knowledge.take_observation(request["observation"])
        deadline = self.clock.deadline(request["deadline_ms"], knowledge.scores,
                                       knowledge.target)
        enabled = gc.isenabled()
        gc.disable()  # playouts make no reference cycles: no collection pauses mid-search
        try:
            return self._decide(request, deadline)
        except Exception:  # a bug of the search must not forfeit the game: say it, and play on
            traceback.print_exc(file=sys.stderr)
            return safe_reply(request)
        finally:
            if enabled:
                gc.enable()
            took = time.perf_counter() - start
            self.thinking += took
            self.clock.spent(1000.0 * took, 1000.0 * deadline.wall_s)

    def _decide(self, request: Message, deadline: Deadline) -> Message:
        kind = request["kind"]
        knowledge, rng = self.knowledge, self.rng
        if kind == "grand_tichu":
            return choose(int(opening.decide_grand_tichu(knowledge, rng, deadline)))
        if kind == "tichu":
            return choose(int(opening.decide_tichu(knowledge, rng, deadline)))
        if kind == "exchange":
            return exchange([card_name(c) for c in opening.decide_exchange(knowledge, rng,
                                                                           deadline)])
        choice = search.decide_play(knowledge, kind, rng, deadline)
        self.playouts += choice.playouts
        action = choice.action
        options = request["options"]
        if isinstance(action, GiveDragon):
            return choose(next(i for i, o in enumerate(options) if o["to"] == action.to))
        call = choice.call_tichu and request["may_call_tichu"]
        if not isinstance(action, Play):
            return choose(0, call_tichu=call)  # pass (or decline a bomb) comes first
        wish = rank_text(action.wish) if action.wish else None
        return choose(option_index(options, action.cards, action.phoenix_as), call_tichu=call,
                      wish=wish)


def safe_reply(request: Message) -> Message:
    """A legal reply that needs no search: the first three cards, or the first option (no
    call, a pass where allowed)."""
    if request["kind"] == "exchange":
        return exchange(request["observation"]["hand"][:3])
    return choose(0)


def option_index(options: Sequence[Message], cards: int, phoenix_as: int) -> int:
    """The index of the request's play option of `cards` with the Phoenix as `phoenix_as`."""
    for i, option in enumerate(options):
        if (option["action"] == "play" and rank_value(option.get("phoenix_as")) == phoenix_as
                and card_set(option["cards"]) == cards):
            return i
    raise ValueError("the chosen play is not among the request's options")


def make_bot(seed: int | None = None, limit_ms: float | None = None) -> SearchBot:
    return SearchBot(seed, limit_ms)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="The search bot.")
    parser.add_argument("--budget-ms", type=float, default=None,
                        help="think at most this long per decision (default: as the "
                             "referee's time control allows)")
    args = parser.parse_args(argv)
    return run(make_bot(limit_ms=args.budget_ms))


if __name__ == "__main__":
    sys.exit(main())
