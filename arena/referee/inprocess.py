"""In-process games between Python SDK bots, fed the exact wire maps of the protocol.

No sockets and no processes: each seat is a `protocol.sdk.Session` around a `Bot`, and this
module plays the referee's part of the session flow (hello, welcome, requests with their
events, end) with the messages `arena.referee.wire` builds. With `wire_bytes=True` every message is
also encoded and decoded by the codec, and `record` sees the exact bytes (the golden
transcript is made this way). Used to measure one bot against another without the referee:

    python -m arena.referee.inprocess bots/heuristic bots/random --games 200
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.referee import packing, wire
from arena.referee.packing import EventFeed
from arena.rules import PASS, Game
from protocol import codec
from protocol.sdk import Bot, Session

BotFactory = Callable[[int], Bot]  # a seed -> a fresh bot for one seat of one game
Recorder = Callable[[int, str, dict[str, Any], bytes], None]  # seat, sender, message, bytes
DEADLINE_MS = 1000


def load_bot(folder: str | Path) -> BotFactory:
    """The `make_bot(seed)` of a Python bot folder's `bot.py`, the folder on `sys.path` (as
    when the bot runs as `python bot.py`: its own modules beside bot.py import)."""
    path = Path(folder).resolve() / "bot.py"
    if str(path.parent) not in sys.path:
        sys.path.append(str(path.parent))
    spec = importlib.util.spec_from_file_location(f"_arena_bot_{path.parent.name}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.make_bot


class Meter:
    """CPU seconds of an in-process game (this thread's), split by side: `bots` (each seat's
    session: reading the request as the SDK does over the wire, deciding, packing its
    reply), `engine` (the rules: decisions, observations, applying actions) and the rest,
    `referee`: events, packing requests, decoding and checking replies, as `Match` does.

    Net of the clock's own cost: reading this thread's CPU clock is a syscall (microseconds
    on a virtual machine), and each asked decision reads it four times. Each stretch of
    time measured holds about one read, so one read's cost (`clock_cost`, measured when the
    meter is made) is taken off per stretch: one each from the engine and the bots, two
    from the referee, whose work comes in two stretches (before and after the bot's)."""

    def __init__(self) -> None:
        self.asked = 0
        self.total = self.bots = self.engine = 0.0
        self.clock_cost = _clock_cost()

    @property
    def referee(self) -> float:
        return self.total - self.bots - self.engine


def _clock_cost(reads: int = 2000) -> float:
    """Seconds of this thread's CPU that one `time.thread_time()` takes."""
    clock = time.thread_time
    start = clock()
    for _ in range(reads):
        clock()
    return (clock() - start) / (reads + 1)


class _Link:
    """Carries messages between the harness and one seat's session, optionally as bytes."""

    def __init__(self, seat: int, session: Session, wire_bytes: bool,
                 record: Recorder | None, meter: Meter | None) -> None:
        self.seat = seat
        self.session = session
        self.wire_bytes = wire_bytes or record is not None or meter is not None
        self.record = record
        self.meter = meter

    def carry(self, message: dict[str, Any], sender: str) -> dict[str, Any]:
        if not self.wire_bytes:
            return message
        data = codec.encode(message, sender)
        decoded = codec.decode(data, sender)
        if self.record is not None:
            self.record(self.seat, sender, decoded, data)
        return decoded

    def to_bot(self, message: dict[str, Any]) -> dict[str, Any] | None:
        reply = self.session.handle(self.carry(message, "referee"))
        return None if reply is None else self.carry(reply, "bot")

    def ask(self, data: bytes) -> dict[str, Any]:
        """A request packed by the referee's path (`packing.request_bytes`) to the bot; its
        reply, decoded and validated as the referee decodes a bot's."""
        meter = self.meter
        if meter is not None:  # the bot reads it as the SDK does over the wire (unvalidated)
            start = time.thread_time()
            answer = self.session.handle(codec.unpack(data))
            assert answer is not None  # a session answers every request (or raises)
            packed = codec.pack(answer)
            meter.bots += time.thread_time() - start
            return codec.decode(packed, "bot")
        request = codec.decode(data, "referee")  # also proves the packed bytes a valid request
        if self.record is not None:
            self.record(self.seat, "referee", request, data)
        reply = self.session.handle(request)
        assert reply is not None  # a session answers every request (or raises)
        return self.carry(reply, "bot")


def play_local_game(seed: int, bots: Sequence[Bot], target: int = 1000,
                    wire_bytes: bool = False, record: Recorder | None = None,
                    game_id: str = "local", meter: Meter | None = None) -> Game:
    """Play one game to `target` with one bot per seat; the finished game.

    With `wire_bytes` (or `record`, or `meter`), requests are the bytes the referee sends
    (`arena.referee.packing`) and replies are decoded as the referee decodes them; `meter`
    measures the CPU time of each side.

    A bot's illegal or malformed reply raises (IllegalAction, ProtocolError): in-process,
    that is a bug to see, not a forfeit to record.
    """
    links = [_Link(s, Session(bot, f"token-{s}"), wire_bytes, record, meter)
             for s, bot in enumerate(bots)]
    capabilities = [_handshake(link, seed, target, bots, game_id) for link in links]
    with_options = ["no_options" not in c for c in capabilities]
    clock = time.thread_time if meter is not None else _no_clock
    game = Game(seed, target)
    feed = EventFeed(game)
    as_bytes = links[0].wire_bytes
    request_id = asked = 0
    engine = 0.0
    start = mark = clock()  # the engine's time runs from `mark` (passes made for seats too)
    while not game.over:  # one seat at a time, as the referee asks
        seat = game.to_act()[0]
        decision = game.decision(seat)
        request_id += 1
        if decision.only_pass and "auto_pass" in capabilities[seat]:
            game.apply(seat, PASS)  # as the referee does: no request, but a request id
            continue
        asked += 1
        observation = game.observation(seat)
        engine += clock() - mark
        reply: dict[str, Any] | None
        if as_bytes:
            reply = links[seat].ask(packing.request_bytes(
                decision, observation, feed.unsent_bytes(seat), request_id - 1, DEADLINE_MS,
                with_options[seat]))
        else:
            reply = links[seat].to_bot(wire.request_message(
                decision, observation, feed.unsent(seat), request_id - 1, DEADLINE_MS,
                with_options[seat]))
        assert reply is not None  # a session answers every request (or raises)
        action = wire.action_from_reply(reply, decision, with_options[seat])
        mark = clock()
        game.apply(seat, action)
    if meter is not None:  # the decisions only: hellos, welcomes and ends are once a game
        end = clock()
        cost = meter.clock_cost  # per asked decision: 4 reads, 1 engine, 1 bots, 2 referee
        meter.total += end - start - 4 * cost * asked
        meter.engine += engine + end - mark - cost * asked
        meter.bots -= cost * asked
        meter.asked += asked
    for link in links:
        link.to_bot(wire.end_message(game.scores, game.winner, feed.unsent(link.seat)))
    return game


def _no_clock() -> float:
    return 0.0


def _handshake(link: _Link, seed: int, target: int, bots: Sequence[Bot],
               game_id: str) -> list[str]:
    """Hello and welcome; the capabilities the bot said. `bank` is not honoured: this
    harness keeps no clock (every `deadline_ms` is DEADLINE_MS), so there is no bank to
    announce, and the bot hears what a referee that does not know the capability says."""
    hello = link.carry(link.session.hello(), "bot")
    with_options = "no_options" not in hello["capabilities"]
    bot_seed = (wire.seat_seed(seed, game_id, link.seat) if "seed" in hello["capabilities"]
                else None)
    link.to_bot(wire.welcome_message(link.seat, game_id, target, [b.name for b in bots],
                                     10000, DEADLINE_MS, codec.MAX_MESSAGE_BYTES, with_options,
                                     bot_seed))
    return hello["capabilities"]


@dataclass(frozen=True)
class MatchResult:
    """How bot A fared against bot B over `games` games (pairs with the same deals)."""

    games: int
    wins_a: int
    points_a: int
    points_b: int

    @property
    def win_rate(self) -> float:
        return self.wins_a / self.games if self.games else 0.0


def measure(bot_a: BotFactory, bot_b: BotFactory, pairs: int, seed: int = 0,
            target: int = 1000) -> MatchResult:
    """Play `pairs` pairs of games: each deal once with A at seats 0+2, once at seats 1+3."""
    wins = points_a = points_b = 0
    for k in range(pairs):
        game_seed = seed + k
        for a_team in (0, 1):
            bots = [(bot_a if s % 2 == a_team else bot_b)(game_seed * 4 + s) for s in range(4)]
            game = play_local_game(game_seed, bots, target)
            wins += game.winner == a_team
            points_a += game.scores[a_team]
            points_b += game.scores[1 - a_team]
    return MatchResult(2 * pairs, wins, points_a, points_b)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arena.referee.inprocess",
                                     description="Measure bot A against bot B in-process.")
    parser.add_argument("bot_a")
    parser.add_argument("bot_b")
    parser.add_argument("--games", type=int, default=200, help="games (rounded up to pairs)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    result = measure(load_bot(args.bot_a), load_bot(args.bot_b), (args.games + 1) // 2,
                     args.seed)
    print(f"{args.bot_a} vs {args.bot_b}: {result.wins_a}/{result.games} games won "
          f"({100 * result.win_rate:.1f}%), points {result.points_a}:{result.points_b}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
