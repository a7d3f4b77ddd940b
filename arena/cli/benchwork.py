"""The referee's work that `arena bench transport --instructions` counts under callgrind
(`referee_work`), in a module of its own that imports only what that work runs: valgrind runs
the interpreter's start-up and imports at its own pace too (about 35 times slower), and
importing `arena.cli.bench` (zmq, tabulate, the whole referee) cost three times the work."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.referee import packing, wire
from arena.referee.inprocess import load_bot
from arena.referee.packing import EventFeed
from arena.rules import PASS, Decision, Game, Observation
from protocol import codec
from protocol.sdk import Session

TRIVIAL = Path(__file__).parent / "benchbots" / "trivial"
"""The trivial bench bot: a legal reply at once, the cheapest bot to play against."""


class _Replayed:
    """A finished game's log of events, handed out as it stood at each decision (an
    EventFeed reads only `log`)."""

    def __init__(self) -> None:
        self.log: list[tuple[Any, ...]] = []


def referee_work(games: int, seed: int = 0, replay: bool = True, target: int = 1000) -> int:
    """Play `games` in-process games to `target` between trivial bots through the map path
    (`wire.request_message`: the packing caches stay cold; a seat that may only pass is not
    asked, as the SDK's bots say `auto_pass`), keeping each asked decision and
    the bot's packed reply; then, if `replay`, redo the referee's part of each alone, as
    `Match` does it: the seat's events handed, the request packed and held to the size cap,
    the reply decoded and read as an action. The number of asked decisions."""
    make_bot = load_bot(TRIVIAL)
    recorded = []
    for k in range(games):
        sessions = [Session(make_bot(s), f"token-{s}") for s in range(4)]
        for seat, session in enumerate(sessions):
            session.hello()
            session.handle(wire.welcome_message(seat, "bench", target, ["trivial"] * 4, 1000,
                                                1000, codec.MAX_MESSAGE_BYTES, True))
        game = Game(seed + k, target)
        asked: list[tuple[int, Decision, Observation, int, bytes]] = []
        while not game.over:
            seat = game.to_act()[0]
            decision = game.decision(seat)
            if decision.only_pass:  # the bot said auto_pass: not asked (see Match)
                game.apply(seat, PASS)
                continue
            observation = game.observation(seat)
            request = wire.request_message(decision, observation, [], len(asked), 1000)
            answer = sessions[seat].handle(request)
            assert answer is not None  # a session answers every request (or raises)
            reply = codec.pack(answer)
            asked.append((seat, decision, observation, len(game.log), reply))
            game.apply(seat, wire.action_from_reply(codec.decode(reply, "bot"), decision))
        recorded.append((game.log, asked))
    # the recording (the map path) filled wire.play_map's cache, which the live referee never
    # reads: emptied, so that the replay packs each play first seen as `Match` does
    wire.play_map.cache_clear()
    count = 0
    for log, asked in recorded if replay else ():
        replayed = _Replayed()
        feed = EventFeed(replayed)
        for request_id, (seat, decision, observation, known, reply) in enumerate(asked):
            replayed.log += log[len(replayed.log):known]
            codec.bounded(packing.request_bytes(decision, observation, feed.unsent_bytes(seat),
                                                request_id, 1000))
            wire.action_from_reply(codec.decode(reply, "bot"), decision)
            count += 1
    return count if replay else sum(len(asked) for _, asked in recorded)
