"""The referee: complete games between bot processes, from a spec to a record.

A `Match` keeps the four bot processes of a matchup (two copies of each entrant) and the
ROUTER socket they connect to; it plays one game at a time (`Match.play`), seating each
entrant's copies opposite each other, asking each decision of the rules engine of the seat
concerned, checking every reply, and recording everything. Processes that said `multi_game`
at hello are reused for the next game; the others, and any that crashed or misbehaved, are
started anew. Whatever a bot does (crash, hang, garbage, lies) becomes a recorded `Fault`
and a forfeit of its entrant, never an exception of the referee. `run_game` plays one game.

A seat cannot act for another: each process proves its seat once, with the secret token of
its hello, and is then bound to the ZeroMQ routing identity of its connection. The ROUTER
gives each connection an identity no peer can choose (peer-chosen identities may not start
with a zero byte, and a second connection claiming a bound identity is refused), so every
later message is attributed to the seat that said hello, and a reply must answer that
seat's open request id.
"""

from __future__ import annotations

import logging
import os
import secrets
import subprocess
import time
from dataclasses import dataclass, field
from typing import Any

from arena.errors import ArenaError
from arena.referee import wire
from arena.referee.process import BotProcess
from arena.rules import IllegalAction
from arena.referee.manifest import BotManifest
from arena.referee.record import EntrantInfo, Fault, GameRecord, Termination
from arena.rules import PASS, PUBLIC, Decision, Game
from arena.referee.transport import RefereeSocket
from arena.sandbox import Isolation, resolve
from protocol import codec
from protocol.codec import ProtocolError

logger = logging.getLogger(__name__)

ENDPOINT_VAR = "TICHU_ENDPOINT"
TOKEN_VAR = "TICHU_TOKEN"
_POLL = 0.05  # seconds between checks that the bots are still alive while waiting
_CHECK_EVERY = 0.25  # seconds between those checks while messages keep coming
_BYTES_SHOWN = 200  # of an offending message, in the record
_EXIT_WAIT = 1.0  # seconds a bot gets to exit by itself after its session is over


@dataclass(frozen=True)
class TimeControl:
    """Time limits, in seconds, measured at the referee.

    `hello`: from process start to a valid hello. `decision`: per request. `bank`: the total
    a seat may spend over one game. `grace`: a margin allowed past each limit for the
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


class _BotFault(Exception):
    """Internal: a seat broke the protocol or the rules; becomes the game's Fault."""

    def __init__(self, kind: Termination, seat: int, message: str, error_code: str | None = None,
                 rule: str | None = None, request_id: int | None = None, **details: Any) -> None:
        super().__init__(message)
        self.kind, self.seat, self.message = kind, seat, message
        self.error_code, self.rule, self.request_id = error_code, rule, request_id
        self.details = details


@dataclass(eq=False)  # a connection is itself: compared and hashed by identity
class _Conn:
    """One bot process and its connection: an entrant's copy, seated anew each game."""

    entrant: Entrant
    label: str
    token: str = ""
    process: BotProcess | None = None
    identity: bytes | None = None
    with_options: bool = True
    multi_game: bool = False
    auto_pass: bool = False  # pass for it, unasked, where passing is all it may do
    greeted: bool = False  # has had a welcome in its current session
    ended: bool = False    # its session is over: stop it before the next game
    endpoint: str | None = None  # the listener adopted from its sandbox
    output: str = ""  # the output tail of its last process, once stopped


@dataclass
class _Pending:
    """The request sent and not yet answered (one at a time)."""

    seat: int
    request_id: int
    decision: Decision
    limit: float  # seconds allowed for this reply, grace excluded
    sent_at: float = 0.0
    deadline: float = 0.0  # sent_at + limit + grace: past it, the seat has timed out


class Match:
    """The bot processes of one matchup, playing consecutive games; a context manager."""

    def __init__(self, first: Entrant, second: Entrant, transport: str = "tcp",
                 isolation: Isolation | None = None) -> None:
        self.isolation = resolve("auto") if isolation is None else isolation
        self.socket = RefereeSocket(codec.MAX_MESSAGE_BYTES, transport)
        self.conns = [_Conn(e, f"{e.name}#{copy}") for e in (first, second) for copy in (1, 2)]
        self.by_identity: dict[bytes, _Conn] = {}
        self.next_request_id = 0
        self.rejected: list[str] = []  # hellos turned away while preparing this game

    def __enter__(self) -> Match:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def play(self, spec: GameSpec, last: bool = True) -> GameRecord:
        """Referee one game; `last` says no other game of this match follows it."""
        return _GameRun(self, spec, last).run()

    def close(self) -> None:
        """Stop every bot process (politely ended sessions get a moment to exit) and the socket."""
        for conn in self.conns:
            self.stop(conn, wait=_EXIT_WAIT if conn.ended else 0.0)
        self.socket.close()

    # ----- processes and handshakes ---------------------------------------------------------

    def seat_conns(self, spec: GameSpec) -> list[_Conn]:
        """The connection taking each seat: each entrant's two copies sit opposite."""
        pools: list[list[_Conn]] = [[], []]
        for conn in self.conns:
            team = next((t for t in (0, 1) if spec.entrants[t] == conn.entrant
                         and len(pools[t]) < 2), None)
            if team is None:
                raise ValueError(f"game {spec.game_id} is not between this match's entrants")
            pools[team].append(conn)
        return [pools[0][0], pools[1][0], pools[0][1], pools[1][1]]

    def prepare(self, seats: list[_Conn], time_control: TimeControl) -> None:
        """Have all four processes running and greeted; _BotFault naming the seat if not."""
        for seat, conn in enumerate(seats):
            if conn.ended or (conn.process is not None and conn.process.exit_code() is not None):
                self.stop(conn, wait=_EXIT_WAIT if conn.ended else 0.0)
            if conn.process is None:
                self.start(conn, seat)
        deadline = time.monotonic() + time_control.hello
        for seat, conn in enumerate(seats):  # once all are starting: they start in parallel
            if conn.endpoint is None and self.isolation is Isolation.SANDBOX:
                self.connect(conn, seat, deadline - time.monotonic())
        self.rejected: list[str] = []
        while any(c.identity is None for c in seats):
            for seat, conn in enumerate(seats):
                code = conn.process.exit_code()
                if conn.identity is None and code is not None:
                    output = conn.process.output_tail()[-2000:]
                    if self.rejected:  # it said hello, was turned away, and left
                        raise _BotFault(Termination.HANDSHAKE_FAILURE, seat, f"the bot exited "
                                        f"(code {code}) after a rejected hello: "
                                        f"{self.rejected[-1]}", exit_code=code, output=output)
                    raise _BotFault(Termination.START_FAILURE, seat,
                                    f"{conn.process.exit_reason()} before saying hello",
                                    exit_code=code, output=output,
                                    **_limit(conn.process))
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                seat = next(s for s, c in enumerate(seats) if c.identity is None)
                raise _BotFault(Termination.HANDSHAKE_FAILURE, seat, f"no valid hello within "
                                f"{time_control.hello:g} s")
            incoming = self.socket.receive(min(remaining, _POLL))
            if incoming is not None:
                self._hello(incoming.identity, incoming.frames, seats)

    def start(self, conn: _Conn, seat: int) -> None:
        """Start a seat's process, confined at the match's isolation level (a sandboxed one
        is then `connect`ed)."""
        conn.token = secrets.token_hex(16)
        conn.identity, conn.greeted, conn.ended, conn.output = None, False, False, ""
        env = dict(os.environ)
        env[ENDPOINT_VAR] = self.socket.endpoint
        env[TOKEN_VAR] = conn.token
        manifest = conn.entrant.manifest
        conn.process = BotProcess(manifest.argv(), manifest.folder, env, conn.label,
                                  limits=manifest.limits, isolation=self.isolation)
        try:
            conn.process.start()
        except OSError as exc:
            conn.process = None
            raise _BotFault(Termination.START_FAILURE, seat, f"cannot start "
                            f"{' '.join(manifest.argv())}: {exc}") from None

    def connect(self, conn: _Conn, seat: int, timeout: float) -> None:
        """Adopt the listener a sandboxed process hands out (the only way into its network
        namespace; TICHU_ENDPOINT, set inside, points to it). It is handed out before any
        code of the bot runs, so if none comes the harness failed, not the bot: ArenaError
        (the game is void)."""
        listener = conn.process.listener(max(0.0, timeout))
        if listener is None:
            conn.process.stop(grace=0.0)
            raise ArenaError(f"the sandbox of seat {seat} ended before its bot started "
                             f"({conn.process.exit_reason()}): "
                             f"{conn.process.output_tail()[-500:]}")
        conn.endpoint = self.socket.adopt(listener)

    def stop(self, conn: _Conn, wait: float = 0.0) -> None:
        if conn.process is not None:
            if wait:
                conn.process.wait(wait)
            conn.process.stop(grace=0.5)
            conn.output = conn.process.output_tail()
            conn.process = None
        if conn.endpoint is not None:
            self.socket.release(conn.endpoint)
            conn.endpoint = None
        if conn.identity is not None:
            self.by_identity.pop(conn.identity, None)
        conn.identity, conn.greeted, conn.ended = None, False, False

    def _hello(self, identity: bytes, frames: list[bytes], seats: list[_Conn]) -> None:
        known = self.by_identity.get(identity)
        try:
            if len(frames) != 1:
                raise ProtocolError("wrong_type", "", f"{len(frames)} frames; a message is one")
            hello = codec.decode(frames[0], "bot")
        except ProtocolError as exc:
            if known is not None:
                raise _violation(seats.index(known), exc, frames) from None
            self._reject(identity, "malformed_hello", str(exc))
            return
        if known is not None:
            if known in seats:
                raise _BotFault(Termination.PROTOCOL_VIOLATION, seats.index(known),
                                f"{hello['type']} sent before the welcome", "unexpected_message",
                                data=_shown(frames))
            return  # a late message from a process no longer playing: ignore it
        if hello["type"] != "hello":
            self._reject(identity, "malformed_hello", f"the first message must be hello, "
                         f"not {hello['type']}")
            return
        conn = next((c for c in seats if c.token == hello["token"]), None)
        if conn is None or conn.identity is not None:
            self._reject(identity, "unknown_token", "this token belongs to no seat waiting "
                         "for a hello")
            return
        if hello["protocol"] not in codec.SUPPORTED_VERSIONS:
            self._reject(identity, "unsupported_version", f"protocol {hello['protocol']} is "
                         "not supported")
            raise _BotFault(Termination.HANDSHAKE_FAILURE, seats.index(conn), f"unsupported "
                            f"protocol version {hello['protocol']}")
        conn.identity = identity
        conn.with_options = "no_options" not in hello["capabilities"]
        conn.multi_game = "multi_game" in hello["capabilities"]
        conn.auto_pass = "auto_pass" in hello["capabilities"]
        self.by_identity[identity] = conn
        logger.debug("%s: hello from %s %s", conn.label, hello["name"], hello["version"])

    def _reject(self, identity: bytes, reason: str, message: str) -> None:
        logger.info("rejected a hello: %s: %s", reason, message)
        self.rejected.append(f"{reason}: {message}")
        self.socket.send(identity, codec.pack(
            {"type": "reject", "reason": reason, "message": message,
             "protocols": list(codec.SUPPORTED_VERSIONS)}))

    def send(self, conn: _Conn, message: dict[str, Any]) -> None:
        if conn.identity is None:
            return
        data = codec.pack(message)
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug("%s: << %s", conn.label, _brief(message))
        if not self.socket.send(conn.identity, data):
            logger.debug("%s: disconnected, message dropped", conn.label)


class _GameRun:
    """One game of a match: the decision loop and the record."""

    def __init__(self, match: Match, spec: GameSpec, last: bool) -> None:
        self.match = match
        self.spec = spec
        self.last = last
        self.seats = match.seat_conns(spec)
        self.seat_of = {conn: seat for seat, conn in enumerate(self.seats)}
        self.game = Game(spec.seed, spec.target)
        self.record = GameRecord(spec.game_id, spec.seed, spec.target,
                                 (spec.entrants[0].info(), spec.entrants[1].info()),
                                 isolation=match.isolation.value)
        self.first_request_id = match.next_request_id
        self.sent_events = [0] * 4
        self.wire_events: list[dict[str, Any]] = []  # game.events in wire form, so far
        self.pending: _Pending | None = None
        self.checked = 0.0  # when the processes were last checked (_check_alive)

    def run(self) -> GameRecord:
        start = time.monotonic()
        try:
            self.match.prepare(self.seats, self.spec.time)
            self._welcome()
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
            self._collect_output()
            self.record.seconds = round(time.monotonic() - start, 3)
        return self.record

    def _collect_output(self) -> None:
        """Each seat's output, all of it: a process whose session is over gets its moment to
        write its last words and exit (it would get it before the next game anyway)."""
        for seat, conn in enumerate(self.seats):
            if conn.process is not None and conn.ended:
                self.match.stop(conn, wait=_EXIT_WAIT)
            if conn.process is not None:
                self.record.bot_output[seat] = conn.process.output_tail()
            else:
                self.record.bot_output[seat] = conn.output

    def _welcome(self) -> None:
        spec = self.spec
        names = [spec.entrants[s & 1].name for s in range(4)]
        for seat, conn in enumerate(self.seats):
            self.match.send(conn, wire.welcome_message(
                seat, spec.game_id, spec.target, names, _ms(spec.time.hello),
                _ms(spec.time.decision), codec.MAX_MESSAGE_BYTES, conn.with_options))
            conn.greeted = True

    def _play(self) -> None:
        """Ask one seat at a time, the simultaneous phases included (each seat's clock then
        runs only while it alone thinks, whatever the CPUs; no seat learns another's choice
        before all have chosen, as the engine reveals a phase's choices together)."""
        game = self.game
        while not game.over:
            seat = game.to_act()[0]
            decision = game.decision(seat)
            if decision.only_pass and self.seats[seat].auto_pass:
                self._pass_for(seat, decision)
            else:
                self._ask(seat, decision)
                self._await_reply()

    def _pass_for(self, seat: int, decision: Decision) -> None:
        """Pass for a seat that said `auto_pass` and may do nothing else: no request is sent,
        the seat learns of its pass from the event; the decision still takes a request id."""
        request_id = self.match.next_request_id
        self.match.next_request_id += 1
        self.game.apply(seat, PASS)
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug("%s: passes automatically (request id %d)", self.seats[seat].label,
                         request_id)
        self.record.decisions.append({
            "seat": seat, "id": request_id, "kind": decision.kind.value,
            "action": {"action": "pass"},
            "call_tichu": False, "wish": None, "latency_ms": 0.0, "auto": True})

    def _ask(self, seat: int, decision: Decision) -> None:
        game = self.game
        conn = self.seats[seat]
        time_control = self.spec.time
        left = time_control.bank - self.record.time_used[seat]
        limit = max(0.0, min(time_control.decision, left))
        request_id = self.match.next_request_id
        self.match.next_request_id += 1
        message = wire.request_message(decision, game.observation(seat), self._unsent(seat),
                                       request_id, _ms(limit), conn.with_options)
        pending = self.pending = _Pending(seat, request_id, decision, limit)
        self.match.send(conn, message)  # then straight to the receive: the clock is running
        pending.sent_at = sent_at = time.monotonic()
        pending.deadline = sent_at + limit + time_control.grace

    def _await_reply(self) -> None:
        """Wait for the reply to the pending request (or a fault) and apply it to the game."""
        pending = self.pending
        assert pending is not None
        while True:
            now = time.monotonic()
            wait = pending.deadline - now
            if wait < 0:
                grace = self.spec.time.grace
                raise _BotFault(Termination.TIMEOUT, pending.seat, f"no reply within "
                                f"{pending.limit:.3f} s (+{grace:g} s grace)", "timeout",
                                request_id=pending.request_id,
                                overrun=round(now - pending.sent_at - pending.limit, 3))
            incoming = self.match.socket.receive(min(wait + 0.001, _POLL))
            received = time.monotonic()
            if incoming is None or received - self.checked > _CHECK_EVERY:
                self.checked = received  # has a bot died, or gone over a limit? (asked in
                self._check_alive()      # silence, and now and then while replies flow)
            if incoming is None:
                continue
            seat = self.seat_of.get(self.match.by_identity.get(incoming.identity))
            if seat is None:
                continue  # not a bot of this game (a rejected hello's socket): ignore it
            if self._reply(seat, incoming.frames, received):
                return

    def _reply(self, seat: int, frames: list[bytes], received: float) -> bool:
        """Check and apply one message from `seat`; False if it was a stale reply to ignore."""
        try:
            if len(frames) != 1:
                raise ProtocolError("wrong_type", "", f"{len(frames)} frames; a message is one")
            reply = codec.decode(frames[0], "bot")
        except ProtocolError as exc:
            raise _violation(seat, exc, frames) from None
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug("%s: >> %s", self.seats[seat].label, _brief(reply))
        if reply["type"] == "reply" and reply["id"] < self.first_request_id:
            return False  # answers a request of an earlier, aborted game of this match
        pending = self.pending if self.pending is not None and self.pending.seat == seat else None
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
        self.pending = None
        try:
            action = wire.action_from_reply(reply, pending.decision, self.seats[seat].with_options)
            self.game.apply(seat, action)
        except IllegalAction as exc:
            raise _BotFault(Termination.ILLEGAL_ACTION, seat, str(exc), "illegal_action",
                            rule=exc.rule, request_id=pending.request_id,
                            action=_reply_text(reply), rule_broken=exc.rule) from None
        self.record.decisions.append({
            "seat": seat, "id": pending.request_id, "kind": pending.decision.kind.value,
            "action": wire.action_map(action), "call_tichu": reply["call_tichu"],
            "wish": reply["wish"], "latency_ms": round(latency * 1000, 3)})
        return True

    def _check_alive(self) -> None:
        for seat, conn in enumerate(self.seats):
            code = conn.process.exit_code() if conn.process is not None else None
            if code is not None:
                raise _BotFault(Termination.CRASH, seat, conn.process.exit_reason(),
                                exit_code=code, output=conn.process.output_tail()[-2000:],
                                **_limit(conn.process))

    # ----- the end ---------------------------------------------------------------------------

    def _finish_normally(self) -> None:
        game = self.game
        for seat, conn in enumerate(self.seats):
            more = conn.multi_game and not self.last
            self.match.send(conn, wire.end_message(game.scores, game.winner, self._unsent(seat),
                                                   more_games=more))
            conn.ended = not more
        self.record.winner = game.winner
        self._close_record()

    def _forfeit(self, fault: _BotFault) -> None:
        """The offending entrant loses; tell it why, tell the others the game is aborted."""
        record = self.record
        record.termination = fault.kind
        record.fault = Fault(fault.kind, fault.seat, fault.message, self.game.round_number,
                             len(record.decisions), fault.details)
        record.winner = 1 - (fault.seat & 1)
        logger.info("game %s: seat %d forfeits: %s: %s", self.spec.game_id, fault.seat,
                    fault.kind.value, fault.message)
        offender = self.seats[fault.seat]
        if fault.error_code:
            self.match.send(offender, wire.error_message(fault.error_code, fault.message,
                                                         fault.rule, fault.request_id))
        self.match.stop(offender, wait=0.2 if fault.error_code else 0.0)
        self._end_others(exclude=offender)
        self._close_record()

    def _abort(self, kind: Termination, message: str) -> None:
        self.record.termination = kind
        self.record.fault = Fault(kind, None, message, self.game.round_number,
                                  len(self.record.decisions))
        self.record.winner = None
        self._end_others(exclude=None)
        self._close_record()

    def _end_others(self, exclude: _Conn | None) -> None:
        for seat, conn in enumerate(self.seats):
            if conn is exclude or conn.process is None:
                continue
            if not conn.greeted:  # greeted in no game yet: nothing to end, start it anew
                self.match.stop(conn)
                continue
            more = conn.multi_game and not self.last
            self.match.send(conn, wire.end_message(None, None, self._unsent(seat), "aborted",
                                                   more_games=more))
            conn.ended = not more

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
        record.round_scores = [tuple(e.data["scores"]) for e in game.events
                               if e.kind == "round_end"]
        record.rounds = len(record.round_scores)
        self._unsent(0)  # converts every event
        record.events = [m | {"visible_to": e.visible_to}
                         for m, e in zip(self.wire_events, game.events)]


def run_game(spec: GameSpec, transport: str = "tcp",
             isolation: Isolation | None = None) -> GameRecord:
    """Referee one game with fresh processes (sandboxed where the machine allows, unless
    `isolation` says otherwise); the record says how it ended."""
    with Match(spec.entrants[0], spec.entrants[1], transport, isolation) as match:
        return match.play(spec)


def build_bot(manifest: BotManifest, timeout: float = 600.0) -> None:
    """Run a bot's build command once in its folder (CalledProcessError or OSError if it fails)."""
    if manifest.build:
        subprocess.run(manifest.build_argv(), cwd=manifest.folder, check=True, timeout=timeout,
                       stdin=subprocess.DEVNULL, capture_output=True)


def _limit(process: BotProcess) -> dict[str, str]:
    """The `limit` detail of a fault: the limit the process went over, if it did."""
    return {"limit": process.limit_exceeded} if process.limit_exceeded else {}


def _violation(seat: int, exc: ProtocolError, frames: list[bytes]) -> _BotFault:
    code = "oversize_message" if exc.code == "oversize" else "malformed_message"
    return _BotFault(Termination.PROTOCOL_VIOLATION, seat, str(exc), code,
                     data=_shown(frames), protocol_error=exc.code)


def _brief(message: dict[str, Any]) -> str:
    """A message for the DEBUG log, without its bulky observation and option list."""
    return repr({k: (f"<{len(v)} {k}>" if isinstance(v, list) and k in ("options", "events")
                     else "<...>" if k == "observation" else v) for k, v in message.items()})


def _ms(seconds: float) -> int:
    return max(0, int(seconds * 1000))


def _shown(frames: list[bytes]) -> str:
    data = b"".join(frames)
    return data[:_BYTES_SHOWN].hex() + ("..." if len(data) > _BYTES_SHOWN else "")


def _reply_text(reply: dict[str, Any]) -> dict[str, Any]:
    return {k: reply[k] for k in ("option", "action", "call_tichu", "wish")}
