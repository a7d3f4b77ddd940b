"""Real requests for the tests of the human seat: the wire requests of engine self-play
games, exactly as the referee would send them, each with the trick its seat has seen."""

from __future__ import annotations

import functools
import random

from arena.presentation.seat_view import current_trick
from arena.referee import wire
from arena.rules import Game
from protocol import codec

Request = dict


@functools.cache
def requests() -> list[tuple[Request, list[dict]]]:
    """Every request of some self-play games between random players (who call nothing and
    wish at random), as the wire carries it, with the events of the trick it comes in."""
    rng = random.Random(5)
    found = []
    for seed in range(5):
        game = Game(seed, 300)
        tricks: list[list[dict]] = [[], [], [], []]
        seen = 0
        while not game.over:
            new, seen = game.events[seen:], len(game.events)
            for s in range(4):  # the trick so far, as each seat has seen it
                tricks[s] = current_trick(tricks[s] + wire.events_for(s, new))
            seat = game.to_act()[0]
            decision = game.decision(seat)
            message = wire.request_message(decision, game.observation(seat), [], 1, 1000)
            request = codec.decode(codec.encode(message, "referee"), "referee")
            found.append((request, tricks[seat]))
            game.apply(seat, wire.action_from_reply(_random_reply(request, rng), decision))
    return found


def _random_reply(request: Request, rng: random.Random) -> dict:
    if request["kind"] == "exchange":
        give = rng.sample(request["observation"]["hand"], 3)
        return {"option": None, "action": {"action": "exchange", "give": give},
                "call_tichu": False, "wish": None}
    index = 0 if request["kind"] in ("grand_tichu", "tichu") else \
        rng.randrange(len(request["options"]))
    mahjong = "Mahjong" in request["options"][index].get("cards", ())
    return {"option": index, "action": None, "call_tichu": False,
            "wish": rng.choice("23456789TJQKA") if mahjong else None}
