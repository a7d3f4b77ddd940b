"""The referee: one complete game between bot processes, from a spec to a record.

It starts four bot processes (two copies of each entrant, partners opposite), greets them
over the protocol, asks each decision of the rules engine of the seat concerned, checks every
reply, and stops every process at the end. Whatever a bot does (crash, hang, garbage, lies)
becomes a recorded `Fault` and a forfeit of its entrant, never an exception of the referee.
"""

from __future__ import annotations

import logging
import os
import secrets
import subprocess
import time
from dataclasses import dataclass, field
from typing import Any

from arena import wire
from arena.botproc import BotProcess
from arena.errors import IllegalAction
from arena.manifest import BotManifest
from arena.record import EntrantInfo, Fault, GameRecord, Termination
from arena.rules import PUBLIC, Decision, Game
from arena.transport import RefereeSocket
from protocol import codec
from protocol.codec import ProtocolError

logger = logging.getLogger(__name__)

ENDPOINT_VAR = "TICHU_ENDPOINT"
TOKEN_VAR = "TICHU_TOKEN"
_POLL = 0.05  # seconds between checks that the bots are still alive while waiting
_BYTES_SHOWN = 200  # of an offending message, in the record


@dataclass(frozen=True)
class TimeControl:
    """Time limits, in seconds, measured at the referee.

    `hello`: from process start to a valid hello. `decision`: per request. `bank`: the total
    a seat may spend over the whole game. `grace`: a margin allowed past each limit for the
    transport. A seat is charged only from sending its request to receiving its reply.
    """

    hello: float = 10.0
    decision: float = 5.0
    bank: float = 300.0
    grace: float = 0.2


@dataclass(frozen=True)
class Entrant:
    """A bot version taking part: its manifest and the version it is recorded under."""

    manifest: BotManifest
    version: str

    @property
    def name(self) -> str:
        return self.manifest.name

    def info(self) -> EntrantInfo:
        return EntrantInfo(self.manifest.name, self.version, str(self.manifest.folder))


@dataclass(frozen=True)
class GameSpec:
    """One game to referee. Team 0 (seats 0 and 2) is `entrants[0]`, team 1 `entrants[1]`."""

    game_id: str
    seed: int
    entrants: tuple[Entrant, Entrant]
    target: int = 1000
    time: TimeControl = field(default_factory=TimeControl)
    transport: str = "tcp"


class _BotFault(Exception):
    """Internal: a seat broke the protocol or the rules; becomes the game's Fault."""

    def __init__(self, kind: Termination, seat: int, message: str, error_code: str | None,
                 rule: str | None = None, request_id: int | None = None, **details: Any) -> None:
        super().__init__(message)
        self.kind, self.seat, self.message = kind, seat, message
        self.error_code, self.rule, self.request_id = error_code, rule, request_id
        self.details = details


@dataclass
class _Pending:
    """A request sent and not yet answered."""

    request_id: int
    decision: Decision
    sent_at: float
    limit: float  # seconds allowed for this reply, grace excluded


class Referee:
    """Referees one game; use `run_game(spec)`."""

    def __init__(self, spec: GameSpec) -> None:
        self.spec = spec
        self.record = GameRecord(spec.game_id, spec.seed, spec.target,
                                 (spec.entrants[0].info(), spec.entrants[1].info()))
        self.game = Game(spec.seed, spec.target)
        self.tokens = [secrets.token_hex(16) for _ in range(4)]
        self.socket = RefereeSocket(codec.MAX_MESSAGE_BYTES, spec.transport)
        self.bots: list[BotProcess | None] = [None] * 4
        self.identities: dict[bytes, int] = {}
        self.seat_identity: list[bytes | None] = [None] * 4
        self.with_options = [True] * 4
        self.sent_events = [0] * 4
        self.wire_events: list[dict[str, Any]] = []  # game.events in wire form, so far
        self.pending: dict[int, _Pending] = {}
        self.next_request_id = 0

    # ----- the game ------------------------------------------------------------------------

    def run(self) -> GameRecord:
        start = time.monotonic()
        try:
            self._start_bots()
            self._handshake()
            self._play()
            self._finish_normally()
        except _BotFault as fault:
            self._forfeit(fault)
        except KeyboardInterrupt:
            self._abort(Termination.INTERRUPTED, "interrupted by the user")
            raise
        except Exception as exc:  # a referee bug must not leave processes or lose the game
            logger.exception("harness fault in game %s", self.spec.game_id)
            self._abort(Termination.HARNESS_FAULT, f"{type(exc).__name__}: {exc}")
        finally:
            self._stop_bots()
            self.socket.close()
            self.record.seconds = round(time.monotonic() - start, 3)
        return self.record

    def _start_bots(self) -> None:
        for seat in range(4):
            entrant = self.spec.entrants[seat & 1]
            env = dict(os.environ)
            env[ENDPOINT_VAR] = self.socket.endpoint
            env[TOKEN_VAR] = self.tokens[seat]
            bot = BotProcess(entrant.manifest.argv(), entrant.manifest.folder, env,
                             f"seat{seat}:{entrant.name}")
            try:
                bot.start()
            except OSError as exc:
                raise _BotFault(Termination.START_FAILURE, seat, f"cannot start "
                                f"{' '.join(bot.argv)}: {exc}", None) from None
            self.bots[seat] = bot

    def _handshake(self) -> None:
        deadline = time.monotonic() + self.spec.time.hello
        while None in self.seat_identity:
            self._check_alive(before_hello=True)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                seat = self.seat_identity.index(None)
                raise _BotFault(Termination.HANDSHAKE_FAILURE, seat, f"no valid hello within "
                                f"{self.spec.time.hello:g} s", None)
            incoming = self.socket.receive(min(remaining, _POLL))
            if incoming is not None:
                self._hello(incoming.identity, incoming.frames)
        names = [self.spec.entrants[s & 1].name for s in range(4)]
        for seat in range(4):
            self._send(seat, wire.welcome_message(
                seat, self.spec.game_id, self.spec.target, names,
                _ms(self.spec.time.hello), _ms(self.spec.time.decision),
                codec.MAX_MESSAGE_BYTES, self.with_options[seat]))

    def _hello(self, identity: bytes, frames: list[bytes]) -> None:
        seat = self.identities.get(identity)
        try:
            if len(frames) != 1:
                raise ProtocolError("wrong_type", "", f"{len(frames)} frames; a message is one")
            hello = codec.decode(frames[0], "bot")
        except ProtocolError as exc:
            if seat is not None:
                raise self._violation(seat, exc, frames) from None
            self._reject(identity, "malformed_hello", str(exc))
            return
        if seat is not None:  # a second message before welcome
            raise _BotFault(Termination.PROTOCOL_VIOLATION, seat, f"{hello['type']} sent before "
                            "the welcome", "unexpected_message", data=_shown(frames))
        if hello["type"] != "hello":
            self._reject(identity, "malformed_hello", f"the first message must be hello, "
                         f"not {hello['type']}")
            return
        if hello["token"] not in self.tokens:
            self._reject(identity, "unknown_token", "this token belongs to no seat of the game")
            return
        seat = self.tokens.index(hello["token"])
        if self.seat_identity[seat] is not None:
            self._reject(identity, "unknown_token", "this seat has already said hello")
            return
        if hello["protocol"] not in codec.SUPPORTED_VERSIONS:
            self._reject(identity, "unsupported_version", f"protocol {hello['protocol']} is not "
                         "supported")
            raise _BotFault(Termination.HANDSHAKE_FAILURE, seat, f"unsupported protocol version "
                            f"{hello['protocol']}", None)
        self.identities[identity] = seat
        self.seat_identity[seat] = identity
        self.with_options[seat] = "no_options" not in hello["capabilities"]
        logger.debug("seat %d: hello from %s %s", seat, hello["name"], hello["version"])

    def _reject(self, identity: bytes, reason: str, message: str) -> None:
        logger.info("rejected a hello: %s: %s", reason, message)
        self.socket.send(identity, codec.encode(
            {"type": "reject", "reason": reason, "message": message,
             "protocols": list(codec.SUPPORTED_VERSIONS)}, "referee"))

    def _play(self) -> None:
        game = self.game
        while not game.over:
            for seat in game.to_act():
                if seat not in self.pending:
                    self._ask(seat)
            self._await_reply()

    def _ask(self, seat: int) -> None:
        game = self.game
        decision = game.decision(seat)
        time_control = self.spec.time
        left = time_control.bank - self.record.time_used[seat]
        limit = max(0.0, min(time_control.decision, left))
        events = self._unsent(seat)
        request_id = self.next_request_id
        self.next_request_id += 1
        message = wire.request_message(decision, game.observation(seat), events, request_id,
                                       _ms(limit), self.with_options[seat])
        self._send(seat, message)
        self.pending[seat] = _Pending(request_id, decision, time.monotonic(), limit)

    def _await_reply(self) -> None:
        """Wait for one reply (or a fault): apply it to the game."""
        grace = self.spec.time.grace
        while True:
            now = time.monotonic()
            for seat, p in self.pending.items():
                overrun = now - p.sent_at - p.limit
                if overrun > grace:
                    raise _BotFault(Termination.TIMEOUT, seat, f"no reply within "
                                    f"{p.limit:.3f} s (+{grace:g} s grace)", "timeout",
                                    request_id=p.request_id, overrun=round(overrun, 3))
            self._check_alive()
            wait = min(p.sent_at + p.limit + grace for p in self.pending.values()) - now
            incoming = self.socket.receive(max(0.0, min(wait + 0.001, _POLL)))
            if incoming is None:
                continue
            seat = self.identities.get(incoming.identity)
            if seat is None:
                continue  # not one of our bots (a rejected hello's socket): ignore it
            self._reply(seat, incoming.frames, time.monotonic())
            return

    def _reply(self, seat: int, frames: list[bytes], received: float) -> None:
        try:
            if len(frames) != 1:
                raise ProtocolError("wrong_type", "", f"{len(frames)} frames; a message is one")
            reply = codec.decode(frames[0], "bot")
        except ProtocolError as exc:
            raise self._violation(seat, exc, frames) from None
        pending = self.pending.get(seat)
        if reply["type"] != "reply" or pending is None or reply["id"] != pending.request_id:
            what = (f"a {reply['type']} message" if reply["type"] != "reply"
                    else f"a reply to request {reply['id']}")
            raise _BotFault(Termination.PROTOCOL_VIOLATION, seat, f"{what} while "
                            + (f"request {pending.request_id} awaits its reply" if pending
                               else "no request is open"), "unexpected_message",
                            data=_shown(frames))
        latency = received - pending.sent_at
        self.record.time_used[seat] += latency
        if latency > pending.limit + self.spec.time.grace:
            raise _BotFault(Termination.TIMEOUT, seat, f"reply after {latency:.3f} s, limit "
                            f"{pending.limit:.3f} s", "timeout", request_id=pending.request_id,
                            overrun=round(latency - pending.limit, 3))
        del self.pending[seat]
        try:
            action = wire.action_from_reply(reply, pending.decision, self.with_options[seat])
            self.game.apply(seat, action)
        except IllegalAction as exc:
            raise _BotFault(Termination.ILLEGAL_ACTION, seat, str(exc), "illegal_action",
                            rule=exc.rule, request_id=pending.request_id,
                            action=_action_text(reply)) from None
        self.record.decisions.append(_decision_entry(seat, pending, reply, latency, self.game))

    # ----- faults and the end ------------------------------------------------------------------

    def _check_alive(self, before_hello: bool = False) -> None:
        for seat, bot in enumerate(self.bots):
            if bot is None:
                continue
            code = bot.exit_code()
            if code is not None:
                kind = (Termination.START_FAILURE if before_hello and
                        self.seat_identity[seat] is None else Termination.CRASH)
                raise _BotFault(kind, seat, f"the bot process exited with code {code}", None,
                                exit_code=code, output=bot.output_tail()[-2000:])

    def _violation(self, seat: int, exc: ProtocolError, frames: list[bytes]) -> _BotFault:
        code = "oversize_message" if exc.code == "oversize" else "malformed_message"
        return _BotFault(Termination.PROTOCOL_VIOLATION, seat, str(exc), code,
                         data=_shown(frames), protocol_error=exc.code)

    def _send(self, seat: int, message: dict[str, Any]) -> None:
        identity = self.seat_identity[seat]
        if identity is None:
            return
        if not self.socket.send(identity, codec.pack(message)):  # wire.py builds canonical maps
            logger.debug("seat %d: disconnected, message dropped", seat)

    def _forfeit(self, fault: _BotFault) -> None:
        """The offending entrant loses; tell it why, tell the others the game is aborted."""
        game = self.game
        record = self.record
        record.termination = fault.kind
        record.fault = Fault(fault.kind, fault.seat, fault.message, game.round_number,
                             len(record.decisions), fault.details)
        record.winner = 1 - (fault.seat & 1)
        logger.info("game %s: seat %d forfeits: %s: %s", self.spec.game_id, fault.seat,
                    fault.kind.value, fault.message)
        for seat in range(4):
            if seat == fault.seat and fault.error_code:
                self._send(seat, wire.error_message(fault.error_code, fault.message, fault.rule,
                                                    fault.request_id))
            elif seat != fault.seat:
                self._send(seat, wire.end_message(None, None, self._unsent(seat), "aborted"))
        self._close_record()

    def _abort(self, kind: Termination, message: str) -> None:
        self.record.termination = kind
        self.record.fault = Fault(kind, None, message, self.game.round_number,
                                  len(self.record.decisions))
        self.record.winner = None
        for seat in range(4):
            self._send(seat, wire.end_message(None, None, self._unsent(seat), "aborted"))
        self._close_record()

    def _finish_normally(self) -> None:
        game = self.game
        for seat in range(4):
            self._send(seat, wire.end_message(game.scores, game.winner, self._unsent(seat)))
        self.record.winner = game.winner
        self._close_record()

    def _unsent(self, seat: int) -> list[dict[str, Any]]:
        """The wire events `seat` may see that it has not been sent yet (each event is
        converted once, whichever seats see it)."""
        events = self.game.events
        converted = self.wire_events
        for event in events[len(converted):]:
            converted.append(wire.event_map(event))
        start = self.sent_events[seat]
        self.sent_events[seat] = len(events)
        return [converted[i] for i in range(start, len(events))
                if events[i].visible_to == PUBLIC or events[i].visible_to == seat]

    def _close_record(self) -> None:
        game = self.game
        record = self.record
        record.scores = (game.scores[0], game.scores[1])
        record.rounds = sum(1 for e in game.events if e.kind == "round_end")
        record.round_scores = [tuple(e.data["scores"]) for e in game.events
                               if e.kind == "round_end"]
        self._unsent(0)  # converts every event
        record.events = [m | {"visible_to": e.visible_to}
                         for m, e in zip(self.wire_events, game.events)]

    def _stop_bots(self) -> None:
        """Give the bots a moment to exit after end/error, then stop what is left."""
        deadline = time.monotonic() + 1.0
        for seat, bot in enumerate(self.bots):
            if bot is None:
                continue
            bot.wait(max(0.0, deadline - time.monotonic()))
            bot.stop(grace=0.5)
            self.record.bot_output[seat] = bot.output_tail()


def run_game(spec: GameSpec) -> GameRecord:
    """Referee one game; the record says how it ended. Never raises for a bot's behaviour."""
    return Referee(spec).run()


def build_bot(manifest: BotManifest, timeout: float = 600.0) -> None:
    """Run a bot's build command once in its folder; ArenaError-free: CalledProcessError/OSError."""
    if manifest.build:
        subprocess.run(manifest.build_argv(), cwd=manifest.folder, check=True, timeout=timeout,
                       stdin=subprocess.DEVNULL, capture_output=True)


def _ms(seconds: float) -> int:
    return max(0, int(seconds * 1000))


def _shown(frames: list[bytes]) -> str:
    data = b"".join(frames)
    return data[:_BYTES_SHOWN].hex() + ("..." if len(data) > _BYTES_SHOWN else "")


def _action_text(reply: dict[str, Any]) -> dict[str, Any]:
    return {k: reply[k] for k in ("option", "action", "call_tichu", "wish")}


def _decision_entry(seat: int, pending: _Pending, reply: dict[str, Any], latency: float,
                    game: Game) -> dict[str, Any]:
    """The record of one applied decision: the action in explicit wire form."""
    seat_action = game.actions[-1][1]
    return {"seat": seat, "id": pending.request_id, "kind": pending.decision.kind.value,
            "action": wire.action_map(seat_action), "call_tichu": reply["call_tichu"],
            "wish": reply["wish"], "latency_ms": round(latency * 1000, 3)}
