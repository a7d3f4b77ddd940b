"""The referee: complete games between bot processes, from a spec to a record.

A `Match` keeps the four bot processes of a matchup (two copies of each entrant, or with mixed
partners one process for each of four entrants) and the socket they connect to; it plays one
game at a time (`Match.play`), seating each entrant's copies opposite each other (or each
entrant at the seat the spec gives it), asking each decision of the rules engine of the seat concerned,
checking every reply, and recording everything. Processes that said `multi_game` at hello
are reused for the next game; the others, and any that crashed or misbehaved, are started
anew. Whatever a bot does (crash, hang, garbage, lies) becomes a recorded `Fault` and a
forfeit of its entrant, never an exception of the referee. `run_game` plays one game.
A game may seat a `Guest` in place of one copy: the organizer's own program (a person at
the terminal), unsandboxed, under a time control of its own; nothing else changes.

Who forfeits is PROTOCOL.md section 9.3; this is how the referee tells. Each new connection
is traced to the process that opened it (`arena.referee.peers`): one from no seat's process
is closed unread, one from a seat's process speaks for that seat only, whatever token it
presents. A process proves its seat once, with the token of its hello; its later messages
are attributed by the connection's routing identity, which the transport chooses. A game
void because seats of both teams failed together has `Fault.seat` None and each seat's fault
in `details`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import logging
import os
import secrets
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from arena.errors import ArenaError
from arena.faults import LEFT_EXIT
from arena.referee import collector, packing, peers, wire
from arena.referee.manifest import BotManifest
from arena.referee.process import BotProcess
from arena.referee.record import EntrantInfo, Fault, GameRecord, GuestInfo, Termination
from arena.referee.transport import STRANGER, Incoming, RefereeSocket
from arena.rules import PASS, Decision, Game, IllegalAction
from arena.sandbox import Isolation, resolve
from protocol import codec
from protocol.codec import ProtocolError
from protocol.schema import MAX_MESSAGE_CHARS, clip
from protocol.sdk import ENDPOINT_VAR, TOKEN_VAR

logger = logging.getLogger(__name__)
LIVE_SECONDS = 0.5
"""How often a game's spectators' file (`GameSpec.live`) is rewritten, at most."""

MAX_CONNECTIONS = 8  # a bot process may open this many connections to the referee, no more
_POLL = 0.05  # seconds between checks that the bots are still alive while waiting
_CHECK_EVERY = 0.25  # seconds between those checks while messages keep coming
_BYTES_SHOWN = 200  # of an offending message, in the record
_OUTPUT_SHOWN = 2000  # characters of a process's last output, in the record of its end
_EXIT_WAIT = 1.0  # seconds a bot gets to exit by itself after its session is over
_DRAIN = 256  # messages taken, at most, from what has arrived before a hello deadline is judged


@dataclass(frozen=True)
class TimeControl:
    """Time limits, in seconds, measured at the referee.

    `hello`: from the seat's process start to its valid hello. `decision`: per request.
    `bank`: the total a seat may spend over one game. `grace`: a margin past each decision's
    limit for the transport, granted only within the bank (once the bank is spent, a late
    reply is a timeout). A seat is charged from sending its request to receiving its reply,
    a decision that timed out included.
    """

    hello: float = 10.0
    decision: float = 5.0
    bank: float = 300.0
    grace: float = 0.2


@dataclass(frozen=True)
class Entrant:
    """A bot version taking part: its manifest and the version it is recorded under."""

    manifest: BotManifest
    """Its manifest; its folder is the one it runs from (intake's built copy)."""
    version: str
    source: str = ""
    """The folder its author keeps it in (records name it); "": its manifest's folder."""
    snapshot: Path | None = None
    """Intake's snapshot it was built from (shipped to other machines), if intake took it."""

    @property
    def name(self) -> str:
        return self.manifest.name

    def info(self) -> EntrantInfo:
        return EntrantInfo(self.manifest.name, self.version,
                           self.source or str(self.manifest.folder))


@dataclass(frozen=True)
class Guest:
    """A program of the organizer's own that plays one seat in place of its team's entrant:
    a person at the terminal (`arena play human`). It is the organizer's, not a contestant's:
    it runs unsandboxed and without resource limits (it needs the organizer's terminal),
    under a time control of its own. It speaks the protocol like any seat, and its
    connections are traced to its process like any unsandboxed seat's; the other seats are
    confined, timed and trusted exactly as in a game without a guest."""

    seat: int
    entrant: Entrant
    """Its program (the manifest's command, run in the manifest's folder) and its name."""
    time: TimeControl
    person: bool = False
    """A person plays it at the terminal: a Ctrl-C of the game is that person leaving it
    (`Termination.LEFT`, the game recorded), not the game stopped unrecorded."""


@dataclass(frozen=True)
class GameSpec:
    """One game to referee. Team 0 (seats 0 and 2) is `entrants[0]`, team 1 `entrants[1]`,
    but for the seat a `guest` plays, if any; with mixed partners, `partners` are the entrants
    of seats 2 and 3."""

    game_id: str
    seed: int
    entrants: tuple[Entrant, Entrant]
    """The entrants of seats 0 and 1 (each also of the seat opposite, without `partners`)."""
    target: int = 1000
    time: TimeControl = field(default_factory=TimeControl)
    guest: Guest | None = None
    partners: tuple[Entrant, Entrant] | None = None
    """Mixed partners: the entrants of seats 2 and 3, others than those of seats 0 and 1."""
    live: str | None = None
    """A file for spectators (a league's live page): the game's public events so far, as
    JSON, rewritten about every `LIVE_SECONDS` while it runs and removed when it ends. No
    private event (a deal, an exchange) is ever written to it."""

    def __post_init__(self) -> None:
        if self.guest is not None and self.partners is not None:
            raise ValueError("a guest plays only in a game of fixed partners")

    def seat_entrants(self) -> tuple[Entrant, Entrant, Entrant, Entrant]:
        """The entrant of each seat, 0 to 3 (a guest's seat still names its team's entrant)."""
        a, b = self.entrants
        c, d = self.partners or self.entrants
        return (a, b, c, d)

    def entrant_at(self, seat: int) -> Entrant:
        """Who plays `seat`: the guest at its seat, else the seat's entrant."""
        guest = self.guest
        return guest.entrant if guest is not None and guest.seat == seat else \
            self.seat_entrants()[seat]

    def time_of(self, seat: int) -> TimeControl:
        """The time control of `seat`: the guest's own at its seat, else the game's."""
        guest = self.guest
        return guest.time if guest is not None and guest.seat == seat else self.time


class _BotFault(Exception):
    """Internal: a seat broke the protocol or the rules; becomes the game's Fault."""

    def __init__(self, kind: Termination, seat: int, message: str, error_code: str | None = None,
                 rule: str | None = None, request_id: int | None = None, **details: Any) -> None:
        super().__init__(message)
        self.kind, self.seat, self.message = kind, seat, clip(message, MAX_MESSAGE_CHARS)
        self.error_code, self.rule, self.request_id = error_code, rule, request_id
        self.details = details


class _BothTeams(Exception):
    """Internal: seats of both teams failed together; the game is void."""

    def __init__(self, faults: list[_BotFault]) -> None:
        super().__init__("seats of both teams failed")
        self.faults = sorted(faults, key=lambda f: f.seat)


class _Void(Exception):
    """Internal: something no seat can be charged with happened; the game is void."""


class _Refused(Exception):
    """Internal: a hello from a connection no seat can be named for was rejected."""


@dataclass(eq=False)  # a connection is itself: compared and hashed by identity
class _Conn:
    """One bot process and its connection: an entrant's copy, seated anew each game."""

    entrant: Entrant
    label: str
    isolation: Isolation
    guest: bool = False  # the organizer's own program (`Guest`): unsandboxed
    token: str = ""
    process: BotProcess | None = None
    started_at: float = 0.0  # when its process started (monotonic): its hello is due from then
    identity: bytes | None = None  # of the connection it said hello on
    links: set[bytes] = field(default_factory=set)  # every connection its process opened
    with_options: bool = True
    multi_game: bool = False
    auto_pass: bool = False  # pass for it, unasked, where passing is all it may do
    seeded: bool = False     # said `seed`: its welcome carries the seat's seed
    banked: bool = False     # said `bank`: its welcome carries its time bank (limits.bank_ms)
    greeted: bool = False  # has had a welcome in its current session
    ended: bool = False    # its session is over: stop it before the next game
    abandoned: int | None = None  # the request its last game left open: a late reply is ignored
    endpoint: str | None = None  # the listener adopted from its sandbox
    output: str = ""  # the output tail of its last process, once stopped


@dataclass
class _Pending:
    """The request sent and not yet answered (one at a time)."""

    seat: int
    request_id: int
    decision: Decision
    limit: float  # seconds given in deadline_ms
    sent_at: float = 0.0
    deadline: float = 0.0  # past it, the seat has timed out (grace included, bank permitting)


def _new_token() -> str:
    return secrets.token_hex(16)


class Match:
    """The bot processes of one matchup, playing consecutive games; a context manager.

    Two copies of `first` and of `second`; or, with `partners` (mixed partners: two more
    entrants), one process for each of the four, which may play any seat."""

    def __init__(self, first: Entrant, second: Entrant, transport: str = "tcp",
                 isolation: Isolation | None = None, guest: Guest | None = None,
                 partners: tuple[Entrant, Entrant] | None = None) -> None:
        collector.settle()
        self.isolation = level = resolve("auto") if isolation is None else isolation
        self.guest = guest
        self.socket = RefereeSocket(codec.MAX_BOT_MESSAGE_BYTES, transport,
                                    classify=self._classify)
        if partners is not None:
            if guest is not None:
                raise ValueError("a guest plays only in a game of fixed partners")
            self.conns = [_Conn(e, f"{e.name}#1", level) for e in (first, second, *partners)]
        else:
            copies = [2, 2]
            if guest is not None:  # it takes the place of one copy of its team's entrant
                copies[guest.seat & 1] = 1
            self.conns = [_Conn(e, f"{e.name}#{copy}", level)
                          for e, n in zip((first, second), copies, strict=True)
                          for copy in range(1, n + 1)]
        if guest is not None:
            self.conns.append(_Conn(guest.entrant, f"{guest.entrant.name}@{guest.seat}",
                                    Isolation.NONE, guest=True))
        self.by_identity: dict[bytes, _Conn] = {}  # connections that said hello
        self.next_request_id = 0
        self.owners_known = True  # False once a connection could not be traced to its process

    def __enter__(self) -> Match:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def play(self, spec: GameSpec, last: bool = True) -> GameRecord:
        """Referee one game; `last` says no other game of this match follows it."""
        return _GameRun(self, spec, last).run()

    def greet(self, spec: GameSpec) -> None:
        """Start the four processes of `spec` (or reuse running ones) and take their hellos,
        without playing: what `arena bench sandbox` times. A fault raises as in a game."""
        _GameRun(self, spec, last=False)._prepare()

    def close(self) -> None:
        """Stop every bot process (politely ended sessions get a moment to exit) and the socket."""
        for conn in self.conns:
            self.stop(conn, wait=_EXIT_WAIT if conn.ended else 0.0)
        self.socket.close()

    # ----- processes and connections --------------------------------------------------------

    def seat_conns(self, spec: GameSpec) -> list[_Conn]:
        """The connection taking each seat: each entrant's two copies sit opposite (the
        guest, if any, in place of one; with mixed partners, each entrant's process takes
        that entrant's seat)."""
        if spec.guest != self.guest:
            raise ValueError(f"game {spec.game_id} does not have this match's guest")
        if spec.partners is not None:
            return self._mixed_seats(spec)
        guest = spec.guest
        room = [2, 2]
        if guest is not None:
            room[guest.seat & 1] = 1
        pools: list[list[_Conn]] = [[], []]
        for conn in self.conns:
            if conn.guest:
                continue
            team = next((t for t in (0, 1) if spec.entrants[t] == conn.entrant
                         and len(pools[t]) < room[t]), None)
            if team is None:
                raise ValueError(f"game {spec.game_id} is not between this match's entrants")
            pools[team].append(conn)
        if guest is None:
            return [pools[0][0], pools[1][0], pools[0][1], pools[1][1]]
        copies = [iter(pools[0]), iter(pools[1])]
        return [self.conns[-1] if seat == guest.seat else next(copies[seat & 1])
                for seat in range(4)]

    def _mixed_seats(self, spec: GameSpec) -> list[_Conn]:
        """With mixed partners: the process of each seat's entrant."""
        by_entrant = {conn.entrant: conn for conn in self.conns}
        seats = [by_entrant.get(entrant) for entrant in spec.seat_entrants()]
        if len(by_entrant) != 4 or None in seats or len(set(map(id, seats))) != 4:
            raise ValueError(f"game {spec.game_id} is not between this match's entrants")
        return seats  # type: ignore[return-value]  # no None: checked

    def start(self, conn: _Conn, seat: int) -> None:
        """Start a seat's process, confined at the match's isolation level (a sandboxed one
        is then `connect`ed)."""
        conn.token = _new_token()
        conn.identity, conn.greeted, conn.ended, conn.abandoned = None, False, False, None
        conn.output = ""
        conn.links = set()
        env = dict(os.environ)
        env[ENDPOINT_VAR] = self.socket.endpoint
        env[TOKEN_VAR] = conn.token
        manifest = conn.entrant.manifest
        conn.process = BotProcess(manifest.argv(), manifest.folder, env, conn.label,
                                  limits=manifest.limits, isolation=conn.isolation)
        try:
            conn.process.start()
        except OSError as exc:
            conn.process = None
            raise _cannot_start(seat, manifest.argv(), exc) from None
        conn.started_at = time.monotonic()

    def connect(self, conn: _Conn, seat: int, timeout: float) -> None:
        """Adopt the listener a sandboxed process hands out (the only way into its network
        namespace; TICHU_ENDPOINT, set inside, points to it): its connections are that seat's.
        It is handed out before any code of the bot runs, so if none comes the harness
        failed, not the bot: ArenaError (the game is void)."""
        process = conn.process
        assert process is not None  # (started by `start`)
        listener = process.listener(max(0.0, timeout))
        if listener is None:
            process.stop(grace=0.0)
            raise ArenaError(f"the sandbox of seat {seat} ended before its bot started "
                             f"({process.exit_reason()}): "
                             f"{process.output_tail()[-500:]}")
        conn.endpoint = self.socket.adopt(listener, conn)

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
        for identity in conn.links | ({conn.identity} if conn.identity else set()):
            self.socket.disconnect(identity)
        conn.identity, conn.greeted, conn.ended, conn.abandoned = None, False, False, None
        conn.links = set()

    def _classify(self, sock: socket.socket) -> Any:
        """The process of this match that opened a new connection, STRANGER if none did, or
        None if this machine cannot tell (the token alone then decides). Only unsandboxed
        processes are looked for: a sandboxed bot reaches the referee only through its own
        listener (so under a sandbox, only a guest's connection can be a seat's here)."""
        roots = {c.process.pid: c for c in self.conns
                 if c.isolation is Isolation.NONE and c.process is not None
                 and c.process.pid is not None}
        if not roots:
            return STRANGER
        try:
            owner = peers.connection_owner(sock, roots)
        except OSError:  # gone already (reset before it could be looked at): close it
            return STRANGER
        except peers.OwnerUnknown as exc:
            if self.owners_known:
                logger.warning("cannot tell which process opened a connection (%s): "
                               "a seat's token alone proves it", exc)
                self.owners_known = False
            return None
        return STRANGER if owner is None else owner

    def reject(self, identity: bytes, reason: str, message: str) -> None:
        logger.info("rejected a hello: %s: %s", reason, message)
        self.socket.send(identity, codec.pack(
            {"type": "reject", "reason": reason, "message": clip(message, MAX_MESSAGE_CHARS),
             "protocols": list(codec.SUPPORTED_VERSIONS)}))

    def send(self, conn: _Conn, message: dict[str, Any]) -> None:
        if conn.identity is None:
            return
        data = codec.pack(message)
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug("%s: << %s", conn.label, _brief(message))
        if not self.socket.send(conn.identity, data):
            logger.debug("%s: disconnected, message dropped", conn.label)

    def send_packed(self, conn: _Conn, data: bytes, kind: str, request_id: int) -> None:
        """Send a message packed already (`arena.referee.packing`), held to the same size
        cap as every other."""
        if conn.identity is None:
            return
        codec.bounded(data)
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug("%s: << %r", conn.label, {"type": kind, "id": request_id,
                                                   "bytes": len(data)})
        if not self.socket.send(conn.identity, data):
            logger.debug("%s: disconnected, message dropped", conn.label)


class _GameRun:
    """One game of a match: the handshakes, the decision loop and the record."""

    def __init__(self, match: Match, spec: GameSpec, last: bool) -> None:
        self.match = match
        self.spec = spec
        self.last = last
        self.seats = match.seat_conns(spec)
        self.seat_of = {conn: seat for seat, conn in enumerate(self.seats)}
        self.game = Game(spec.seed, spec.target)
        self.record = GameRecord(spec.game_id, spec.seed, spec.target,
                                 (spec.entrants[0].info(), spec.entrants[1].info()),
                                 isolation=match.isolation.value, guest=_guest_info(spec.guest),
                                 seats=None if spec.partners is None else
                                 tuple(e.info() for e in spec.seat_entrants()),
                                 time_control=dataclasses.asdict(spec.time))
        self.events = packing.EventFeed(self.game)  # each event converted once, for all seats
        self.pending: _Pending | None = None
        self.playing = False  # the welcomes are sent
        self.checked = 0.0  # when the processes were last checked (_check_alive)

    def run(self) -> GameRecord:
        start = time.monotonic()
        try:
            self._prepare()
            self._welcome()
            self._play()
            self._finish_normally()
        except _BotFault as fault:
            self._forfeit(fault)
        except _BothTeams as both:
            self._void_both(both.faults)
        except _Void as void:
            self._abort(Termination.HARNESS_FAULT, str(void))
        except KeyboardInterrupt:
            guest = self.spec.guest
            if guest is None or not guest.person:
                self._abort(Termination.INTERRUPTED, "interrupted by the user")
                raise
            self._forfeit(_BotFault(Termination.LEFT, guest.seat,
                                    "left the game (forfeit): pressed Ctrl-C"))
        except Exception as exc:  # a referee bug must not leave processes or lose the game
            logger.exception("harness fault in game %s", self.spec.game_id)
            self._abort(Termination.HARNESS_FAULT, f"{type(exc).__name__}: {exc}")
        finally:
            self._collect_output()
            self.record.seconds = round(time.monotonic() - start, 3)
            if self.spec.live is not None:
                with contextlib.suppress(OSError):
                    os.unlink(self.spec.live)
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

    # ----- the start: processes and hellos ---------------------------------------------------

    def _prepare(self) -> None:
        """Have all four processes running and greeted. Every seat gets its full hello time,
        counted from its own start, even when another has failed already; then the faults
        are judged together (`_judge`)."""
        failed: dict[int, _BotFault] = {}
        self._start_processes(failed)
        hello = [self.spec.time_of(seat).hello for seat in range(4)]
        while waiting := self._waiting(failed):
            now = time.monotonic()
            late = [s for s in waiting if now >= self.seats[s].started_at + hello[s]]
            if late:
                self._drain(failed)  # what has arrived counts, however busy the referee was
                for seat in late:
                    if self.seats[seat].identity is None and seat not in failed:
                        failed[seat] = _no_hello(seat, hello[seat])
                continue
            due = min(self.seats[s].started_at + hello[s] for s in waiting)
            incoming = self.match.socket.receive(max(0.0, min(due - now, _POLL)))
            if incoming is not None:
                self._take_at_start(incoming, failed)
        if failed:
            self._judge(list(failed.values()))

    def _start_processes(self, failed: dict[int, _BotFault]) -> None:
        """Start a process for every seat that has none running (an ended session's process
        is stopped first); a seat whose process cannot start goes into `failed`."""
        match = self.match
        for seat, conn in enumerate(self.seats):
            if conn.ended or (conn.process is not None and conn.process.exit_code() is not None):
                match.stop(conn, wait=_EXIT_WAIT if conn.ended else 0.0)
            if conn.process is None:
                try:
                    match.start(conn, seat)
                except _BotFault as fault:
                    failed[seat] = fault
        for seat, conn in enumerate(self.seats):  # once all are starting: they start in parallel
            if (conn.process is not None and conn.endpoint is None
                    and conn.isolation is Isolation.SANDBOX):
                hello = self.spec.time_of(seat).hello
                match.connect(conn, seat, conn.started_at + hello - time.monotonic())

    def _waiting(self, failed: dict[int, _BotFault]) -> list[int]:
        """The seats whose hello is still awaited; one whose process has exited meanwhile
        goes into `failed` instead."""
        waiting = []
        for seat, conn in enumerate(self.seats):
            if conn.identity is not None or seat in failed:
                continue
            process = conn.process
            assert process is not None  # (a seat whose start failed is in `failed`)
            code = process.exit_code()
            if code is None:
                waiting.append(seat)
                continue
            failed[seat] = _ended_before_hello(seat, process, code)
        return waiting

    def _drain(self, failed: dict[int, _BotFault]) -> None:
        for _ in range(_DRAIN):
            incoming = self.match.socket.receive(0.0)
            if incoming is None:
                return
            self._take_at_start(incoming, failed)

    def _take_at_start(self, incoming: Incoming, failed: dict[int, _BotFault]) -> None:
        try:
            self._take(incoming, time.monotonic())
        except _BotFault as fault:
            if fault.seat not in failed:
                failed[fault.seat] = fault
                self._stop_offender(fault)

    def _judge(self, faults: list[_BotFault]) -> None:
        """Raise the fault that ends the game: the lowest failed seat's when only one team
        failed, _BothTeams when both did."""
        if len({f.seat & 1 for f in faults}) == 2:
            raise _BothTeams(faults)
        raise min(faults, key=lambda f: f.seat)

    def _welcome(self) -> None:
        spec = self.spec
        names = [spec.entrant_at(s).name for s in range(4)]  # mixed partners: the partner's
        for seat, conn in enumerate(self.seats):
            seed = wire.seat_seed(spec.seed, spec.game_id, seat) if conn.seeded else None
            limits = spec.time_of(seat)
            bank = wire.bank_limit_ms(limits.bank) if conn.banked else None
            self.match.send(conn, wire.welcome_message(
                seat, spec.game_id, spec.target, names, _ms(limits.hello),
                _ms(limits.decision), codec.MAX_MESSAGE_BYTES, conn.with_options, seed, bank))
            conn.greeted = True
        self.playing = True

    # ----- what arrives ----------------------------------------------------------------------

    def _take(self, incoming: Incoming, received: float) -> bool:
        """Handle one thing from the transport; True if it was the reply awaited.

        _BotFault names the seat whose process sent it; what comes from no seat is refused
        and closed. Any failure while handling a seat's bytes is that seat's fault."""
        match = self.match
        identity = incoming.identity
        bound = match.by_identity.get(identity)
        owner = bound if bound is not None else (
            incoming.owner if isinstance(incoming.owner, _Conn) else None)
        seat = self.seat_of[owner] if owner is not None else None  # all four are seated
        if incoming.connected:
            if owner is not None:
                owner.links.add(identity)
                if len(owner.links) > MAX_CONNECTIONS:
                    raise _BotFault(Termination.PROTOCOL_VIOLATION, self.seat_of[owner],
                                    f"opened more than {MAX_CONNECTIONS} connections to the "
                                    "referee",
                                    "unexpected_message")
            return False
        if incoming.refused is not None:
            if seat is None:
                match.socket.disconnect(identity)
                return False
            oversize = incoming.refused.startswith("oversize")
            raise _BotFault(Termination.PROTOCOL_VIOLATION, seat, incoming.refused,
                            "oversize_message" if oversize else "malformed_message",
                            protocol_error="oversize" if oversize else "transport")
        try:
            if bound is not None:
                return self._from_seat(self.seat_of[bound], incoming.frames, received)
            self._hello(identity, owner, incoming.frames)
            return False
        except _Refused:
            return False
        except (_BotFault, _Void):
            raise
        except Exception as exc:
            if seat is None:
                logger.exception("while handling a connection's message")
                match.socket.disconnect(identity)
                return False
            logger.exception("while handling a message from seat %d", seat)
            raise _BotFault(Termination.PROTOCOL_VIOLATION, seat, f"its message could not be "
                            f"handled: {type(exc).__name__}: {exc}", "malformed_message",
                            data=_shown(incoming.frames)) from None

    def _hello(self, identity: bytes, owner: _Conn | None, frames: list[bytes]) -> None:
        """The first message on a connection: a hello that binds it to its seat, or the fault
        of the process that opened it (or, from a process nobody can name, a rejection)."""
        seat = self.seat_of[owner] if owner is not None else None
        try:
            hello = _decode(frames)
        except ProtocolError as exc:
            self._refuse(identity, seat, "malformed_hello", str(exc),
                         functools.partial(_violation, exc=exc, frames=frames))
        kind = hello["type"]
        if kind != "hello":
            where = ("on a second connection" if owner is not None and owner.identity
                     else "before its hello")
            self._refuse(identity, seat, "malformed_hello", f"the first message must be hello, "
                         f"not {kind}", functools.partial(_not_hello, kind=kind, where=where,
                                                          frames=frames))
        claimed = next((c for c in self.seats if c.token == hello["token"]), None)
        if owner is None:  # nobody can tell which process opened this connection: the token
            owner = self._claimed(identity, claimed)
            seat = self.seat_of[owner]
        elif claimed is not owner and claimed is not None:
            self._refuse(identity, seat, "unknown_token", "this token is another seat's",
                         functools.partial(_impostor, token_of=self.seat_of[claimed]))
        elif owner.identity is not None:
            self._refuse(identity, seat, "unknown_token", "this process said hello already",
                         _second_hello)
        elif claimed is None:
            self._refuse(identity, seat, "unknown_token", "this token belongs to no seat",
                         _wrong_token)
        version = hello["protocol"]
        if version not in codec.SUPPORTED_VERSIONS:
            self._refuse(identity, seat, "unsupported_version", f"protocol {version} "
                         "is not supported", functools.partial(_unsupported, version=version))
        owner.identity = identity
        owner.with_options = "no_options" not in hello["capabilities"]
        owner.multi_game = "multi_game" in hello["capabilities"]
        owner.auto_pass = "auto_pass" in hello["capabilities"]
        owner.seeded = "seed" in hello["capabilities"]
        owner.banked = "bank" in hello["capabilities"]
        self.match.by_identity[identity] = owner
        logger.debug("%s: hello from %s %s", owner.label, hello["name"], hello["version"])

    def _claimed(self, identity: bytes, claimed: _Conn | None) -> _Conn:
        """The seat a hello's token names, when only the token can tell: _Refused if none,
        _Void if that seat has said hello already (its token leaked)."""
        if claimed is None:
            self._refuse(identity, None, "unknown_token", "this token belongs to no seat", None)
        if claimed.identity is not None:
            self.match.reject(identity, "unknown_token", "this token was presented already")
            raise _Void(f"the token of seat {self.seat_of[claimed]} was presented on two "
                        "connections: it leaked, and which one is the seat's own process "
                        "cannot be told on this machine")
        return claimed

    def _refuse(self, identity: bytes, seat: int | None, reason: str, message: str,
                fault: Callable[[int], _BotFault] | None) -> NoReturn:
        """Send `reject`; then raise the fault of the seat whose process sent the hello
        (`fault(seat)`), or, when no seat can be named, close the connection and raise
        _Refused."""
        self.match.reject(identity, reason, message)
        if seat is not None and fault is not None:
            raise fault(seat)
        self.match.socket.disconnect(identity)
        raise _Refused()

    def _from_seat(self, seat: int, frames: list[bytes], received: float) -> bool:
        """A message on a seat's hello connection: the reply awaited (True), a late reply
        its previous game left open (ignored), or its fault."""
        conn = self.seats[seat]
        try:
            message = _decode(frames)
        except ProtocolError as exc:
            raise _violation(seat, exc, frames) from None
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug("%s: >> %s", conn.label, _brief(message))
        kind = message["type"]
        if kind == "reply" and conn.abandoned is not None and message["id"] == conn.abandoned:
            conn.abandoned = None  # its earlier game ended while it was thinking
            return False
        if not self.playing:
            raise _BotFault(Termination.PROTOCOL_VIOLATION, seat, f"a {kind} message before "
                            "the welcome", "unexpected_message", data=_shown(frames))
        return self._reply(seat, message, frames, received)

    # ----- the game --------------------------------------------------------------------------

    def _play(self) -> None:
        """Ask one seat at a time, the simultaneous phases included (each seat's clock then
        runs only while it alone thinks, whatever the CPUs; no seat learns another's choice
        before all have chosen, as the engine reveals a phase's choices together)."""
        game = self.game
        live = self.spec.live
        shown = 0.0
        while game.phase is not None:  # not game.over, without a property call per turn
            if live is not None and time.monotonic() >= shown:
                self._show(live)
                shown = time.monotonic() + LIVE_SECONDS
            seat = game.to_act()[0]
            decision = game.decision(seat)
            if decision.only_pass and self.seats[seat].auto_pass:
                self._pass_for(seat, decision)
            else:
                self._ask(seat, decision)
                self._await_reply()

    def _show(self, live: str) -> None:
        """Rewrite the spectators' file: the public events so far (atomically)."""
        events = [e for e in self.events.recorded() if e["visible_to"] == packing.PUBLIC]
        temporary = f"{live}.tmp"
        try:
            with open(temporary, "w") as out:
                json.dump(events, out, separators=(",", ":"))
            os.replace(temporary, live)
        except OSError as exc:  # a spectator's view is not worth a game
            logger.warning("game %s: live view not written: %s", self.spec.game_id, exc)

    def _pass_for(self, seat: int, decision: Decision) -> None:
        """Pass for a seat that said `auto_pass` and may do nothing else: no request is sent,
        the seat learns of its pass from the event; the decision still takes a request id."""
        request_id = self.match.next_request_id
        self.match.next_request_id += 1
        self.game.apply(seat, PASS)
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug("%s: passes automatically (request id %d)", self.seats[seat].label,
                         request_id)
        # kind._value_, not .value: an Enum's .value is a Python-level property, and this
        # is read on every decision
        self.record.decisions.append({
            "seat": seat, "id": request_id, "kind": decision.kind._value_,
            "action": {"action": "pass"},
            "call_tichu": False, "wish": None, "latency_ms": 0.0, "auto": True})

    def _ask(self, seat: int, decision: Decision) -> None:
        game = self.game
        conn = self.seats[seat]
        time_control = self.spec.time_of(seat)
        left = time_control.bank - self.record.time_used[seat]
        limit = max(0.0, min(time_control.decision, left))
        request_id = self.match.next_request_id
        self.match.next_request_id += 1
        data = packing.request_bytes(decision, game.observation(seat),
                                     self.events.unsent_bytes(seat), request_id, _ms(limit),
                                     conn.with_options)
        pending = self.pending = _Pending(seat, request_id, decision, limit)
        self.match.send_packed(conn, data, "request", request_id)
        # then straight to the receive: the clock is running
        pending.sent_at = sent_at = time.monotonic()
        # grace is a margin on the decision's limit, never past the bank
        pending.deadline = sent_at + max(0.0, min(limit + time_control.grace, left))

    def _await_reply(self) -> None:
        """Wait for the reply to the pending request (or a fault) and apply it to the game."""
        pending = self.pending
        assert pending is not None
        while True:
            now = time.monotonic()
            wait = pending.deadline - now
            if wait < 0:
                self.record.time_used[pending.seat] += now - pending.sent_at
                raise _timed_out(pending, now - pending.sent_at, self.spec.time_of(pending.seat),
                                 replied=False)
            incoming = self.match.socket.receive(min(wait + 0.001, _POLL))
            received = time.monotonic()
            if incoming is None or received - self.checked > _CHECK_EVERY:
                self.checked = received  # has a bot died, or gone over a limit? (asked in
                self._check_alive()      # silence, and now and then while replies flow)
            if incoming is None:
                continue
            if self._take(incoming, received):
                return

    def _reply(self, seat: int, reply: dict[str, Any], frames: list[bytes],
               received: float) -> bool:
        """Check and apply the reply of `seat` to its open request."""
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
        if received > pending.deadline:
            raise _timed_out(pending, latency, self.spec.time_of(seat), replied=True)
        self.pending = None
        try:
            action = wire.action_from_reply(reply, pending.decision, self.seats[seat].with_options)
            self.game.apply(seat, action)
        except IllegalAction as exc:
            raise _BotFault(Termination.ILLEGAL_ACTION, seat, str(exc), "illegal_action",
                            rule=exc.rule, request_id=pending.request_id,
                            action=_reply_text(reply), rule_broken=exc.rule) from None
        self.record.decisions.append({
            "seat": seat, "id": pending.request_id, "kind": pending.decision.kind._value_,
            "action": wire.action_map(action), "call_tichu": reply["call_tichu"],
            "wish": reply["wish"], "latency_ms": round(latency * 1000, 3)})
        return True

    def _check_alive(self) -> None:
        dead = []
        for seat, conn in enumerate(self.seats):
            process = conn.process
            code = process.exit_code() if process is not None else None
            if process is not None and code is not None:
                left = conn.guest and code == LEFT_EXIT  # its person left: no crash
                dead.append(_left(seat, process, code) if left else
                            _crashed(seat, process, code))
        if dead:
            self._judge(dead)

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

    def _stop_offender(self, fault: _BotFault) -> None:
        """Tell the offending seat why (if it can be told) and stop its process."""
        offender = self.seats[fault.seat]
        if fault.error_code and offender.identity is not None:
            self.match.send(offender, wire.error_message(
                fault.error_code, fault.message, fault.rule, fault.request_id))
            self.match.stop(offender, wait=0.2)
        else:
            self.match.stop(offender)

    def _forfeit(self, fault: _BotFault) -> None:
        """The offending entrant loses; tell it why, tell the others the game is aborted."""
        record = self.record
        record.termination = fault.kind
        record.fault = Fault(fault.kind, fault.seat, fault.message, self.game.round_number,
                             len(record.decisions), fault.details)
        record.winner = 1 - (fault.seat & 1)
        logger.info("game %s: seat %d forfeits: %s: %s", self.spec.game_id, fault.seat,
                    fault.kind.value, fault.message)
        self._stop_offender(fault)
        self._end_others()
        self._close_record()

    def _void_both(self, faults: list[_BotFault]) -> None:
        """Seats of both teams failed together: no winner, no forfeit, every fault told."""
        record = self.record
        first = faults[0]
        record.termination = first.kind
        record.fault = Fault(first.kind, None, "seats of both teams failed: " + "; ".join(
            f"seat {f.seat}: {f.kind.value}: {f.message}" for f in faults),
            self.game.round_number, len(record.decisions),
            {"faults": [{"seat": f.seat, "kind": f.kind.value, "message": f.message,
                         **f.details} for f in faults]})
        record.winner = None
        logger.info("game %s is void: %s", self.spec.game_id, record.fault.message)
        for fault in faults:
            self._stop_offender(fault)
        self._end_others()
        self._close_record()

    def _abort(self, kind: Termination, message: str) -> None:
        self.record.termination = kind
        self.record.fault = Fault(kind, None, message, self.game.round_number,
                                  len(self.record.decisions))
        self.record.winner = None
        self._end_others()
        self._close_record()

    def _end_others(self) -> None:
        """End the session of every process still running (the offenders are stopped)."""
        for seat, conn in enumerate(self.seats):
            if conn.process is None:
                continue
            if not self.playing:  # no welcome for this game: nothing to end
                if not conn.greeted or self.last:  # a new process, or no game to wait for
                    self.match.stop(conn)
                continue  # a reused process waits for the next game's welcome
            more = conn.multi_game and not self.last
            pending = self.pending
            if more and pending is not None and pending.seat == seat:
                conn.abandoned = pending.request_id  # its reply may still be on its way
            self.match.send(conn, wire.end_message(None, None, self._unsent(seat), "aborted",
                                                   more_games=more))
            conn.ended = not more

    def _unsent(self, seat: int) -> list[dict[str, Any]]:
        """The wire events `seat` may see that it has not been sent yet."""
        return self.events.unsent(seat)

    def _close_record(self) -> None:
        game = self.game
        record = self.record
        record.scores = (game.scores[0], game.scores[1])
        # from the wire maps, not game.events: the referee builds no engine Event
        record.events = self.events.recorded()
        record.round_scores = [tuple(m["scores"]) for m in record.events
                               if m["kind"] == "round_end"]
        record.rounds = len(record.round_scores)


def run_game(spec: GameSpec, transport: str = "tcp",
             isolation: Isolation | None = None) -> GameRecord:
    """Referee one game with fresh processes (sandboxed where the machine allows, unless
    `isolation` says otherwise; a guest's seat never is); the record says how it ended."""
    with Match(spec.entrants[0], spec.entrants[1], transport, isolation, spec.guest,
               spec.partners) as match:
        return match.play(spec)


def _guest_info(guest: Guest | None) -> GuestInfo | None:
    if guest is None:
        return None
    return GuestInfo(guest.seat, guest.entrant.name, guest.entrant.version)


def build_bot(manifest: BotManifest, timeout: float = 600.0) -> None:
    """Run a bot's build command once in its folder (CalledProcessError or OSError if it fails)."""
    if manifest.build:
        subprocess.run(manifest.build_argv(), cwd=manifest.folder, check=True, timeout=timeout,
                       stdin=subprocess.DEVNULL, capture_output=True)


# ----- verdicts: each fault with the seat's process, its time or its hello, defined once ----


def _cannot_start(seat: int, argv: list[str], exc: OSError) -> _BotFault:
    """START_FAILURE: the seat's process could not be started."""
    return _BotFault(Termination.START_FAILURE, seat, f"cannot start {' '.join(argv)}: {exc}")


def _ended_before_hello(seat: int, process: BotProcess, code: int) -> _BotFault:
    """START_FAILURE: the seat's process ended before it said hello."""
    return _process_ended(Termination.START_FAILURE, seat, process, code,
                          f"{process.exit_reason()} before saying hello")


def _crashed(seat: int, process: BotProcess, code: int) -> _BotFault:
    """CRASH: the seat's process ended during the game."""
    return _process_ended(Termination.CRASH, seat, process, code, process.exit_reason())


def _left(seat: int, process: BotProcess, code: int) -> _BotFault:
    """LEFT: the person at a guest's seat left the game (its program exited with
    LEFT_EXIT: they typed quit, or their input ended)."""
    return _process_ended(Termination.LEFT, seat, process, code, "left the game (forfeit)")


def _process_ended(kind: Termination, seat: int, process: BotProcess, code: int,
                   message: str) -> _BotFault:
    """A process that ended, with its exit code, the end of its output and the limit it went
    over, if it did."""
    process.read_to_end()
    return _BotFault(kind, seat, message, exit_code=code,
                     output=process.output_tail()[-_OUTPUT_SHOWN:], **_limit(process))


def _limit(process: BotProcess) -> dict[str, Any]:
    """The `limit` detail of a fault: the limit the process went over, if it did."""
    return {"limit": process.limit_exceeded} if process.limit_exceeded else {}


def _no_hello(seat: int, hello: float) -> _BotFault:
    """HANDSHAKE_FAILURE: no valid hello within `hello` seconds of the process's start."""
    return _BotFault(Termination.HANDSHAKE_FAILURE, seat, f"no valid hello within {hello:g} s "
                     "of its start", "timeout")


def _timed_out(pending: _Pending, elapsed: float, time_control: TimeControl,
               replied: bool) -> _BotFault:
    """TIMEOUT: no reply to the pending request by its deadline (`replied`: one came after
    it, `elapsed` seconds after the request), with the overrun past the decision's limit."""
    allowed = pending.deadline - pending.sent_at
    what = (f"reply after {elapsed:.3f} s, past its deadline of {allowed:.3f} s" if replied
            else f"no reply within {allowed:.3f} s")
    limits = (f"limit {time_control.decision:g} s + {time_control.grace:g} s grace, within "
              f"a time bank of {time_control.bank:g} s")
    return _BotFault(Termination.TIMEOUT, pending.seat, f"{what} ({limits})", "timeout",
                     request_id=pending.request_id, overrun=round(elapsed - pending.limit, 3))


def _violation(seat: int, exc: ProtocolError, frames: list[bytes]) -> _BotFault:
    """PROTOCOL_VIOLATION: a message the codec refused (malformed or oversize)."""
    code = "oversize_message" if exc.code == "oversize" else "malformed_message"
    return _BotFault(Termination.PROTOCOL_VIOLATION, seat, str(exc), code,
                     data=_shown(frames), protocol_error=exc.code)


# The refusals of a hello: each builds the fault of the seat whose process sent it (`_refuse`).


def _not_hello(seat: int, kind: str, where: str, frames: list[bytes]) -> _BotFault:
    return _BotFault(Termination.PROTOCOL_VIOLATION, seat, f"a {kind} message {where}",
                     "unexpected_message", data=_shown(frames))


def _impostor(seat: int, token_of: int) -> _BotFault:
    return _BotFault(Termination.PROTOCOL_VIOLATION, seat, f"said hello with the token of "
                     f"seat {token_of}: an impostor's hello", "unexpected_message")


def _second_hello(seat: int) -> _BotFault:
    return _BotFault(Termination.PROTOCOL_VIOLATION, seat, "a second hello, on another "
                     "connection", "unexpected_message")


def _wrong_token(seat: int) -> _BotFault:
    return _BotFault(Termination.HANDSHAKE_FAILURE, seat, "said hello with a wrong token")


def _unsupported(seat: int, version: Any) -> _BotFault:
    return _BotFault(Termination.HANDSHAKE_FAILURE, seat,
                     f"unsupported protocol version {version}")


# ----- small helpers -----------------------------------------------------------------------


def _decode(frames: list[bytes]) -> dict[str, Any]:
    """The bot message in a transport message; ProtocolError if it is not exactly one."""
    if len(frames) != 1:
        raise ProtocolError("wrong_type", "", f"{len(frames)} frames; a message is one")
    return codec.decode(frames[0], "bot")


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
