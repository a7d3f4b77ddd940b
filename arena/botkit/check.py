"""`arena check-bot`: a scripted referee that drives a bot through every part of the protocol.

The checker takes the bot in as a tournament does (`arena.intake`: a snapshot of its folder,
built in the sandbox; the `build` item), then plays *probe games*: each is a fresh game (a `welcome`)
dealt with a rigged deck (`Game(..., dealer=...)`) and advanced by a scripted policy until
the probed seat has the decision to check (a Grand Tichu call, the exchange, the Tichu
window, a lead holding the Mahjong, a follow, a wish in force, a bomb window, a Dragon
gift). The bot gets that one request, carrying every event of the game its seat may see
(its own earlier decisions in that game were made by the checker, as the events show); its
reply is validated and applied by the rules engine, and the game ends with `end`
(`aborted`). A bot that said `multi_game` plays all probe games in one process; the others
are started anew for each. Then come the `end` of a finished game (the bot must exit 0),
`reject` and `error` (the bot should exit) and a few short games against the random bot
(or another opponent) through the real referee. Each check becomes a `CheckItem`: pass or
fail and, on failure, what was expected, what arrived and where PROTOCOL.md describes it; a
check the harness could not make (the opponent or the referee failed, not the bot) is an
error, named as such, never a failure of the bot.

Every process of the bot, in the probe games as in the closing games, runs at the isolation
level a tournament game would use (`arena.sandbox.resolve("auto")` unless a level is given)
and under its manifest's limits; a sandboxed one is reached through the listener handed out
of its sandbox, as the referee reaches it (`Match.connect`), and nothing may connect to the
checker's own endpoint. The report names the level.

The time limits are a tournament's defaults (a decision 5 s, plus 0.2 s of grace) where they
are the bot's to meet, and generous where only a broken bot needs them (the start, the exit):
a correct bot must pass on a busy machine, where a JVM may take seconds to start and any
process may stall for a second; a bot that never answers fails all the same.
"""

from __future__ import annotations

import functools
import os
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.botkit.canonical import differences
from arena.botkit.checklist import CheckItem, CheckReport, Status
from arena.botkit.scaffold import RANDOM_BOT
from arena.errors import ConfigError
from arena.intake import (
    IntakeFailed,
    IntakePolicy,
    IntakeStage,
    ReadyBot,
    build_label,
    ready,
    take_bot,
)
from arena.referee import wire
from arena.referee.manifest import BotManifest, toml_list
from arena.referee.match import Entrant, GameSpec, Match, TimeControl
from arena.referee.process import BotProcess
from arena.referee.record import GameRecord, Termination
from arena.referee.transport import STRANGER, Incoming, RefereeSocket
from arena.rules import Decision, DecisionKind, Exchange, Game, IllegalAction, Pass, Play
from arena.rules.cards import parse_card
from arena.sandbox import Isolation, describe, resolve
from protocol import codec
from protocol.codec import ProtocolError
from protocol.sdk import ENDPOINT_VAR, TOKEN_VAR

HELLO_SECONDS = 30.0    # from the start of a process (its sandbox's set-up included) to its
                        # hello: three times a tournament's default, since the closing games
                        # start four processes at once (two JVMs for a Java bot) on a machine
                        # that may be busy; a bot that never says hello fails all the same
DECISION_SECONDS = 5.0  # deadline_ms of every request: a tournament's default (a reply has to
GRACE = 0.2             # be later than deadline_ms plus this grace to fail)
GAME_BANK = 120.0       # each seat's time bank in a closing game (to 300: a third of a game)
EXIT_SECONDS = 1.0      # PROTOCOL.md section 4: exit within one second after the last `end`
EXIT_WAIT = 10.0        # how long the checker waits for an exit (after `end`, `reject` or
                        # `error`): late (a busy machine) is a warning, still running after
                        # this a failure
NOT_THE_BOT = "docs/reference/exit-statuses.md (check-bot's exit status 4)"
"""Where an ERROR item points: the harness failed, so PROTOCOL.md has nothing to say."""
_FAULT_SECTIONS = {
    Termination.START_FAILURE: "PROTOCOL.md 1 start-up, 9.3 who forfeits",
    Termination.HANDSHAKE_FAILURE: "PROTOCOL.md 5.1 hello, 9.3 who forfeits",
    Termination.TIMEOUT: "PROTOCOL.md 9.4 time",
}
"""Where PROTOCOL.md explains a fault of the bot under test in a game (else section 9)."""


class _Fail(Exception):
    """A failed check: expected, got, PROTOCOL.md section."""

    def __init__(self, expected: str, got: str, section: str, warning: bool = False,
                 harness: bool = False, output: str = "") -> None:
        super().__init__(got)
        self.expected, self.got, self.section = expected, got, section
        self.output = output  # the end of a process's output (a build's, a bot's), as written
        self.warning = warning  # a SHOULD not met: reported as WARN, not FAIL
        self.harness = harness  # not the bot's failure: reported as ERROR, not FAIL


# ----- the scripted referee's end of one bot process ---------------------------------------

class _Session:
    """One bot process, started at the checker's isolation level under the manifest's limits,
    and its connection to the checker's ROUTER socket: through the listener handed out of its
    sandbox (sandboxed), or to the socket's endpoint (level none)."""

    def __init__(self, socket: RefereeSocket, manifest: BotManifest, label: str,
                 isolation: Isolation) -> None:
        self.socket = socket
        self.manifest = manifest
        self.token = secrets.token_hex(8)
        env = dict(os.environ)
        env[ENDPOINT_VAR] = socket.endpoint  # a sandbox's hand-off sets its own, inside
        env[TOKEN_VAR] = self.token
        self.process = BotProcess(manifest.argv(), manifest.folder, env, label,
                                  limits=manifest.limits, isolation=isolation)
        self.started = 0.0  # when its process started (monotonic): its hello is due from then
        self.adopted: str | None = None  # the listener adopted from its sandbox, to release
        self.identity: bytes | None = None
        self.hello: dict[str, Any] = {}
        self.hello_bytes = b""
        self.games = 0

    @property
    def multi_game(self) -> bool:
        return "multi_game" in self.hello.get("capabilities", [])

    @property
    def seeded(self) -> bool:
        return "seed" in self.hello.get("capabilities", [])

    @property
    def bank_ms(self) -> int | None:
        """`limits.bank_ms` of its welcomes, only if it said `bank`: a closing game's bank,
        which a probe game (one request) cannot spend."""
        if "bank" not in self.hello.get("capabilities", []):
            return None
        return wire.bank_limit_ms(GAME_BANK)

    @property
    def with_options(self) -> bool:
        return "no_options" not in self.hello.get("capabilities", [])

    def start(self) -> None:
        """Start the process and take its hello; _Fail saying what is wrong with it."""
        try:
            self.process.start()
        except OSError as exc:
            raise _Fail("the command of bot.toml starts a process",
                        f"cannot start {' '.join(self.manifest.argv())}: {exc}",
                        "PROTOCOL.md 1 start-up") from None
        self.started = time.monotonic()
        if self.process.isolation is Isolation.SANDBOX:
            self._connect()
        identity, data = self.receive(HELLO_SECONDS, f"a hello within limits.hello_ms "
                                      f"({HELLO_SECONDS:g} s)", "PROTOCOL.md 4 session flow, "
                                      "5.1 hello", since=self.started)
        hello = _decode(data, "PROTOCOL.md 5.1 hello")
        if hello["type"] != "hello":
            raise _Fail("a hello first", f"a {hello['type']} message", "PROTOCOL.md 4 session flow")
        if hello["protocol"] != 1:
            raise _Fail("protocol: 1", f"protocol: {hello['protocol']}", "PROTOCOL.md 5.1 hello")
        if hello["token"] != self.token:
            raise _Fail(f"token: the value of {TOKEN_VAR} ({self.token!r})",
                        f"token: {hello['token']!r}", "PROTOCOL.md 1 start-up, 5.1 hello")
        self.identity, self.hello, self.hello_bytes = identity, hello, data

    def _connect(self) -> None:
        """Adopt the listener the sandbox hands out before any code of the bot runs (the
        only way into its network namespace; TICHU_ENDPOINT, set inside, points to it), as
        the referee does (`Match.connect`): its connections are this session's."""
        listener = self.process.listener(self.started + HELLO_SECONDS - time.monotonic())
        if listener is None:
            self.process.stop(grace=0.0)
            raise _Fail("the sandbox starts the bot (see `arena doctor`)", "the sandbox "
                        f"ended before the bot started ({self.process.exit_reason()})",
                        "PROTOCOL.md 1 start-up", output=_output(self.process))
        self.adopted = self.socket.adopt(listener, self)

    def send(self, message: dict[str, Any]) -> None:
        if self.identity is not None:
            self.socket.send(self.identity, codec.pack(message))

    def receive(self, timeout: float, expected: str, section: str,
                since: float | None = None) -> tuple[bytes, bytes]:
        """The next single-frame message, within `timeout` s of `since` (default: now);
        _Fail if none arrives, the bot exits, or it is not one frame."""
        deadline = (time.monotonic() if since is None else since) + timeout
        while True:
            left = deadline - time.monotonic()
            incoming = self.socket.receive(min(max(left, 0.0), 0.05))
            if incoming is not None and self._mine(incoming):
                if incoming.refused is not None:
                    raise _Fail("one message of at most 16 KiB", incoming.refused,
                                "PROTOCOL.md 2 transport and framing, 9 limits")
                if len(incoming.frames) != 1:
                    raise _Fail("one frame per message", f"{len(incoming.frames)} frames",
                                "PROTOCOL.md 2 transport and framing")
                return incoming.identity, incoming.frames[0]
            code = self.process.exit_code()
            if code is not None:
                over = self.process.limit_exceeded  # of its manifest's limits
                raise _Fail(expected, (f"the bot was stopped: {over}" if over else
                                       f"the bot exited with code {code}"),
                            section, output=_output(self.process))
            if left <= 0:
                raise _Fail(expected, f"nothing within {timeout:g} s", section,
                            output=_output(self.process))

    def _mine(self, incoming: Incoming) -> bool:
        """Whether a message is this session's: not a new connection's event (what comes on
        it will say), nor from another session's listener or, after the hello, from another
        connection (a process of an earlier probe, already stopped)."""
        if incoming.connected or (incoming.owner is not None and incoming.owner is not self):
            return False
        return self.identity is None or incoming.identity == self.identity

    def wait_exit(self, seconds: float) -> int | None:
        return self.process.wait(seconds)

    def stop(self) -> None:
        """Stop the process (all of its sandbox) and drop its connection; idempotent."""
        self.process.stop(grace=0.5)
        if self.adopted is not None:
            self.socket.release(self.adopted)  # once: its descriptor may be reused after
            self.adopted = None
        if self.identity is not None:
            self.socket.disconnect(self.identity)


def _decode(data: bytes, section: str) -> dict[str, Any]:
    try:
        return codec.decode(data, "bot")
    except ProtocolError as exc:
        raise _Fail("a valid bot message (hello or reply)", f"{exc} (bytes {data[:60].hex()}"
                    f"{'...' if len(data) > 60 else ''})",
                    f"{section}; PROTOCOL.md 3 encoding") from None


def _output(process: BotProcess) -> str:
    """The end of a bot process's output, as it wrote it (check-bot shows it line by line)."""
    return _last_lines(process.output_tail())


def _last_lines(output: str, lines: int = 20, chars: int = 2000) -> str:
    """The last `lines` lines of `output` (at most `chars` characters), blank ends removed."""
    return "\n".join(output.strip()[-chars:].splitlines()[-lines:])


# ----- rigged deals and the scripted play that reaches each situation -----------------------

def _cards(*names: str) -> list[int]:
    return [parse_card(n) for n in names]


def _dealer(hands: dict[int, list[int]]) -> Callable[[int, int], list[int]]:
    """A dealer giving each listed seat its cards (up to 14) and spreading the rest so that
    no other seat holds a bomb: the four cards of a rank go to four different seats, and a
    suit's consecutive ranks to different seats."""
    given = {c for cards in hands.values() for c in cards}
    seats = {s: list(hands.get(s, [])) for s in range(4)}
    for c in range(56):
        if c in given:
            continue
        want = (c + c // 4) % 4
        seat = next(s for s in ((want + k) % 4 for k in range(4)) if len(seats[s]) < 14)
        seats[seat].append(c)
    deck = [0] * 56
    for s in range(4):
        deck[14 * s:14 * s + 14] = seats[s]
    return lambda seed, round_number: list(deck)


Policy = Callable[[Game, int, Decision], Any]
Stop = Callable[[Game, int, Decision], bool]


def _keep_policy(keep: set[int], lead: Callable[[int, Decision], Any] | None = None) -> Policy:
    """Never call; give away the lowest cards not in `keep`; pass where allowed (declining
    every bomb window), else play the first option; `lead(seat, decision)` may override."""
    def policy(game: Game, seat: int, decision: Decision) -> Any:
        kind = decision.kind
        if kind in (DecisionKind.GRAND_TICHU, DecisionKind.TICHU, DecisionKind.DRAGON_GIFT):
            return decision.options[0]
        if kind is DecisionKind.EXCHANGE:
            hand = [c for c in range(56) if game.hands[seat] >> c & 1 and c not in keep]
            return Exchange((hand[0], hand[1], hand[2]))
        chosen = lead(seat, decision) if lead else None
        if chosen is not None:
            return chosen
        return Pass() if decision.can_pass else decision.options[0]
    return policy


def _drive(dealer: Callable[[int, int], list[int]], policy: Policy, stop: Stop) -> tuple[Game, int]:
    """Advance a new game with `policy` until some seat's decision satisfies `stop`."""
    game = Game(7, 1000, dealer=dealer)
    for _ in range(500):
        for seat in game.to_act():
            if stop(game, seat, game.decision(seat)):
                return game, seat
        seat = game.to_act()[0]
        game.apply(seat, policy(game, seat, game.decision(seat)))
    raise RuntimeError("the scripted situation was never reached")  # a checker bug


def _is(kind: DecisionKind, seat: int, extra: Callable[[Game, Decision], bool] | None = None) -> Stop:
    return lambda game, s, d: s == seat and d.kind is kind and (extra is None or extra(game, d))


MAHJONG, DOG, PHOENIX, DRAGON = 52, 53, 54, 55


def _play_single(card: int) -> Callable[[int, Decision], Any]:
    def lead(seat: int, decision: Decision) -> Any:
        for option in decision.options:
            if isinstance(option, Play) and option.cards == 1 << card:
                return option._replace(wish=13) if card == MAHJONG else option
        return None
    return lead


@dataclass(frozen=True)
class _Probe:
    """One situation: the checklist item, what it checks, where, and how to reach it."""

    name: str
    summary: str
    section: str
    build: Callable[[], tuple[Game, int]]
    events_first: bool = False  # send half the events in an `events` message first


def _probes() -> list[_Probe]:
    plain = _keep_policy(set())
    nines = _cards("9j", "9s", "9p", "9t")
    kings = _cards("Kj", "Ks")
    return [
        _Probe("grand_tichu", "Grand Tichu decision after the first 8 cards",
               "PROTOCOL.md 6 (grand_tichu)",
               lambda: _drive(_dealer({}), plain, _is(DecisionKind.GRAND_TICHU, 2))),
        _Probe("exchange", "exchange: no options, three distinct hand cards stated",
               "PROTOCOL.md 6 (exchange)",
               lambda: _drive(_dealer({}), plain, _is(DecisionKind.EXCHANGE, 3))),
        _Probe("tichu", "Tichu window after the exchange", "PROTOCOL.md 6 (tichu)",
               lambda: _drive(_dealer({}), plain, _is(DecisionKind.TICHU, 1))),
        _Probe("play_lead", "lead holding the Mahjong and the Phoenix (a wish may come with "
               "a Mahjong play)", "PROTOCOL.md 5.5 reply, 6 (play)",
               lambda: _drive(_dealer({1: _cards("Mahjong", "Phoenix", "Dog")}),
                              _keep_policy({MAHJONG, PHOENIX, DOG}),
                              _is(DecisionKind.PLAY, 1, lambda g, d: g.table is None))),
        _Probe("play_follow", "follow or pass, after an `events` message (no reply to it)",
               "PROTOCOL.md 5.6 events, 6 (play)",
               lambda: _drive(_dealer({}), plain,
                              _is(DecisionKind.PLAY, 2, lambda g, d: d.can_pass)),
               events_first=True),
        _Probe("wish", "a wish is in force and can be fulfilled (must_fulfil_wish)",
               "PROTOCOL.md 5.4 request (must_fulfil_wish), 6 (play)",
               lambda: _drive(_dealer({2: [MAHJONG], 3: kings}),
                              _keep_policy({MAHJONG, *kings}, _play_single(MAHJONG)),
                              _is(DecisionKind.PLAY, 3, lambda g, d: d.must_fulfil_wish))),
        _Probe("bomb", "bomb window: play a bomb out of turn or decline",
               "PROTOCOL.md 6 (bomb)",
               lambda: _drive(_dealer({2: nines}), _keep_policy(set(nines)),
                              _is(DecisionKind.BOMB, 2))),
        _Probe("dragon_gift", "give the trick won with the Dragon to an opponent",
               "PROTOCOL.md 6 (dragon_gift)",
               lambda: _drive(_dealer({0: _cards("Mahjong", "Dragon")}),
                              _keep_policy({MAHJONG, DRAGON}, _play_single(DRAGON)),
                              _is(DecisionKind.DRAGON_GIFT, 0))),
    ]


# ----- the checks ---------------------------------------------------------------------------

class _Checker:
    """Runs the checks of one bot folder, collecting the report."""

    # set as `run` begins
    taken: ReadyBot  # the bot as intake takes it
    manifest: BotManifest  # its manifest (the built snapshot's, once built)
    socket: RefereeSocket

    def __init__(self, folder: Path, games: int, target: int,
                 isolation: Isolation | None = None, build_network: bool = False,
                 opponent: Path = RANDOM_BOT) -> None:
        self.folder = folder
        self.games = games
        self.target = target
        self.opponent = opponent
        self.isolation = resolve("auto") if isolation is None else isolation
        self.policy = IntakePolicy(self.isolation, build_network=build_network)
        self.report = CheckReport(folder, isolation=self.isolation,
                                  isolation_summary=describe(self.isolation))
        self.session: _Session | None = None
        self.sessions: list[_Session] = []
        self.next_id = 0
        self.label = 0
        self.sent: list[tuple[str, bytes, dict[str, Any]]] = []  # (which, bytes, canonical form)

    def run(self, build: bool) -> CheckReport:
        try:  # the bot runs from intake's snapshot of its folder, as in a tournament
            self.taken = take_bot(self.folder, self.policy, build=False)
        except IntakeFailed as exc:  # not a bot folder intake takes: the CLI exits 2
            raise ConfigError(exc.failure.reason) from None
        self.manifest = self.taken.manifest
        self._show_command()
        for key in self.manifest.split_keys:
            self._split_warning(key)
        # sandboxed bots reach the checker only through the listeners of their sandboxes
        sandboxed = self.isolation is Isolation.SANDBOX
        self.socket = RefereeSocket(codec.MAX_BOT_MESSAGE_BYTES,
                                    classify=(lambda sock: STRANGER) if sandboxed else None)
        try:
            if not build:
                self._skip("build", "not run (--no-build)")
            built = not build or self._check("build", "the build step of bot.toml",
                                             "PROTOCOL.md 1 start-up", self._build)
            self._show_command()  # the built copy's: a bot's own environment is known now
            if built and self._hello():
                self._all_probes()
                self._canonical()
                self._finish()
                self._check("reject", "after `reject` the bot exits", "PROTOCOL.md 4, 5.3",
                            self._reject, warn=True)
                self._check("error", "after `error` the bot exits", "PROTOCOL.md 4, 5.8",
                            self._error, warn=True)
                if self.games:
                    against = ("the random bot" if self.opponent == RANDOM_BOT
                               else f"the opponent {self.opponent.name}")
                    self._check("games", f"{self.games} game(s) to {self.target} against "
                                f"{against}, through the referee", "PROTOCOL.md 4 session flow",
                                self._games)
                else:
                    self._skip("games", "no games asked for (--games 0)")
        finally:
            for session in self.sessions:
                session.stop()
            self.socket.close()
        return self.report

    def _add(self, name: str, status: Status, summary: str, expected: str = "", got: str = "",
             section: str = "", output: str = "") -> None:
        self.report.items.append(CheckItem(name, status, summary, expected, got, section,
                                           output))

    def _check(self, name: str, summary: str, section: str, body: Callable[[], str | None],
               warn: bool = False) -> bool:
        try:
            note = body()
        except _Fail as fail:
            status = (Status.ERROR if fail.harness else
                      Status.WARN if warn or fail.warning else Status.FAIL)
            self._add(name, status, summary, fail.expected, fail.got, fail.section or section,
                      fail.output)
            return False
        self._add(name, Status.PASS, summary + (f" ({note})" if note else ""))
        return True

    def _skip(self, name: str, why: str) -> None:
        self._add(name, Status.SKIP, why)

    # ----- bot.toml, build and hello ---------------------------------------------------------

    def _show_command(self) -> None:
        """The command as bot.toml gives it, and the argument list that runs."""
        self.report.command = self.taken.manifest.command
        self.report.argv = tuple(self.manifest.argv())

    def _split_warning(self, key: str) -> None:
        """A WARN item for a command or build that bot.toml gave as one string: split like a
        shell line, run without a shell (`load_manifest` refused one a shell would read
        otherwise), so it works; a list says so without the reader knowing the rules."""
        words = self.manifest.command if key == "command" else self.manifest.build
        self._add(key if key == "command" else "build-command", Status.WARN,
                  f"bot.toml's {key} is a list (preferred: it says exactly what runs)",
                  f"a list: {key} = {toml_list(words)}",
                  f"a string, split like a shell line (quotes group words, a backslash "
                  f"escapes) into {toml_list(words)}, run without a shell",
                  'docs/reference/manifest.md')

    def _build(self) -> str:
        """Intake's build of the snapshot, in the sandbox at the checker's level (once per
        version: a build an earlier intake made is reused)."""
        command = build_label(self.manifest)  # the snapshot's: before `python` means .venv's
        start = time.monotonic()
        try:
            taken = ready(self.taken.snapshot, self.folder, self.policy)
        except IntakeFailed as exc:
            failure = exc.failure
            raise _Fail(f"{command} exits 0" if failure.stage is IntakeStage.BUILD else
                        "a command that starts", failure.reason,
                        "PROTOCOL.md 1 start-up (build)",
                        output=_last_lines(failure.output)) from None
        self.manifest = taken.manifest
        if not command:
            return "no build step"
        if taken.build is None:
            return f"{command}, built before"
        return f"{command}, {time.monotonic() - start:.1f} s at isolation {self.isolation.value}"

    def _new_session(self) -> _Session:
        self.label += 1
        session = _Session(self.socket, self.manifest, f"{self.manifest.name}#{self.label}",
                           self.isolation)
        self.sessions.append(session)
        session.start()
        return session

    def _hello(self) -> bool:
        def body() -> str:
            self.session = self._new_session()
            caps = ", ".join(self.session.hello["capabilities"]) or "none"
            return f"protocol 1, capabilities: {caps}"
        ok = self._check("hello", "a valid hello with the token, first", "PROTOCOL.md 5.1 hello",
                         body)
        if ok:
            assert self.session is not None  # (the one `body` started)
            self.sent.append(("the hello", self.session.hello_bytes, self.session.hello))
        return ok

    def _canonical(self) -> None:
        """One item for the encoding of every message the bot sent: the hello and each reply
        to a probe (a SHOULD: a warning naming the first message, key and value that differ)."""
        odd = [(what, data, message) for what, data, message in self.sent
               if codec.encode(message, "bot") != data]
        summary = f"messages encoded canonically (a SHOULD): the hello and {len(self.sent) - 1} " \
                  "replies"
        after_hello = [i.name for i in self.report.items].index("hello") + 1
        if not odd:
            self.report.items.insert(after_hello, CheckItem("canonical", Status.PASS, summary))
            return
        what, data, message = odd[0]
        others = f" ({len(odd) - 1} more messages are not canonical either)" if len(odd) > 1 else ""
        self.report.items.insert(after_hello, CheckItem(
            "canonical", Status.WARN, summary, "every message in canonical form: all fields "
            "present, keys in PROTOCOL.md's order, card sets ascending, each value in its "
            "shortest msgpack form", f"{what}: " + "; ".join(differences(data, message)) + others,
            "PROTOCOL.md 3 encoding (canonical form), 10 golden vectors"))

    # ----- probe games ------------------------------------------------------------------------

    def _all_probes(self) -> None:
        probes = _probes()
        assert self.session is not None  # (the one that said hello)
        multi = self.session.multi_game
        self.continued = 0          # games played after an `end` with more_games: true
        self.multi_broken = ""      # how the bot failed to continue, if it did
        for i, probe in enumerate(probes):
            last = i == len(probes) - 1
            ok = self._check(probe.name, probe.summary, probe.section,
                             functools.partial(self._probe, probe, last))
            if not ok and self.session is not None:
                self.session.stop()
                self.session = None
        if not multi:
            self._skip("multi_game", "the bot did not say multi_game: a new process each game")
        elif self.multi_broken:
            self._add("multi_game", Status.FAIL, "after `end` with more_games: true, the next "
                      "`welcome` is played in the same process", "the process keeps its socket "
                      "and waits for the next welcome", self.multi_broken,
                      "PROTOCOL.md 5.1 (multi_game), 5.7 end")
        else:
            self._add("multi_game", Status.PASS, "after `end` with more_games: true, the next "
                      f"`welcome` is played in the same process ({self.continued} times)")

    def _probe(self, probe: _Probe, last: bool) -> str:
        session = self.session
        if session is None or session.process.exit_code() is not None:
            session = self.session = self._new_session()
        try:
            return self._probe_game(session, probe, last)
        except _Fail as fail:
            code = session.process.exit_code()
            if session.games < 2 or code is None or self.multi_broken:
                raise
            # it left after an `end` with more_games: true: that is the multi_game item's
            # failure; this situation gets a fresh process
            self.multi_broken = (f"the process exited with code {code} instead of playing "
                                 f"game {session.games} of its session ({fail.got})")
            session.stop()
            self.session = self._new_session()
            return self._probe_game(self.session, probe, last)

    def _probe_game(self, session: _Session, probe: _Probe, last: bool) -> str:
        game, seat = probe.build()
        session.games += 1
        if session.games > 1:
            self.continued += 1
        names = [self.manifest.name if s % 2 == seat % 2 else "check-bot" for s in range(4)]
        game_id = f"check-{probe.name}"
        seed = wire.seat_seed(game.seed, game_id, seat) if session.seeded else None
        session.send(wire.welcome_message(seat, game_id, game.target, names,
                                          int(HELLO_SECONDS * 1000), int(DECISION_SECONDS * 1000),
                                          codec.MAX_MESSAGE_BYTES, session.with_options, seed,
                                          session.bank_ms))
        events = wire.events_for(seat, game.events)
        if probe.events_first:
            # the request follows at once: a bot reads its messages in order, so an answer to
            # the `events` would come before the reply, however slowly the machine runs
            half = len(events) // 2
            session.send({"type": "events", "events": events[:half]})
            events = events[half:]
        note = self._ask(session, game, seat, events, probe.name, probe.events_first)
        self._end_probe_game(session, last)
        return note

    def _ask(self, session: _Session, game: Game, seat: int, events: list[dict],
             probe: str, after_events: bool = False) -> str:
        """Send the request of `seat`'s decision and check the reply; `after_events`: an
        `events` message went just before, and the first message back must be the reply."""
        decision = game.decision(seat)
        request_id = self.next_id
        self.next_id += 3  # ids increase, not necessarily consecutively
        session.send(wire.request_message(decision, game.observation(seat), events, request_id,
                                          int(DECISION_SECONDS * 1000), session.with_options))
        sent = time.monotonic()
        _, data = session.receive(DECISION_SECONDS + GRACE, f"a reply to request {request_id} "
                                  f"within deadline_ms ({int(DECISION_SECONDS * 1000)})",
                                  "PROTOCOL.md 5.5 reply, 9 limits")
        latency = time.monotonic() - sent
        if after_events and _other_than_reply(data, request_id):
            raise _Fail("no message in answer to `events`", f"a message: {data[:60].hex()}",
                        "PROTOCOL.md 2 (the bot only ever answers a request), 5.6 events")
        reply = _decode(data, "PROTOCOL.md 5.5 reply")
        self.sent.append((f"the reply to the {probe} request (id {request_id})", data, reply))
        if reply["type"] != "reply" or reply["id"] != request_id:
            got = (f"a reply to request {reply['id']}" if reply["type"] == "reply"
                   else f"a {reply['type']} message")
            raise _Fail(f"a reply with id {request_id}", got, "PROTOCOL.md 5.5 reply (id)")
        try:
            action = wire.action_from_reply(reply, decision, session.with_options)
            game.apply(seat, action)
        except IllegalAction as exc:
            shown = {k: reply[k] for k in ("option", "action", "call_tichu", "wish")}
            observation = game.observation(seat)
            raise _Fail(_legal_text(decision, observation),
                        f"{shown}: {_illegal_text(exc, reply, observation)}",
                        "PROTOCOL.md 5.5 reply, 6 decisions and actions") from None
        return f"{_describe(reply, decision)}, {latency * 1000:.0f} ms"

    def _end_probe_game(self, session: _Session, last: bool) -> None:
        more = session.multi_game and not last and not self.multi_broken
        if more:
            session.send(wire.end_message(None, None, [], "aborted", more_games=True))
            return
        if not last:  # a single-game bot: this session is over; the next probe starts anew
            session.send(wire.end_message(None, None, [], "aborted"))
            session.wait_exit(EXIT_SECONDS)
            session.stop()
            self.session = None

    # ----- end, reject, error ------------------------------------------------------------------

    def _finish(self) -> None:
        session = self.session
        if session is None:
            self._skip("end", "not reached: the last probe failed")
            return

        def body() -> str:
            final = [{"kind": "game_end", "scores": [1000, 200], "winner": 0}]
            session.send(wire.end_message([1000, 200], 0, final))
            start = time.monotonic()
            code = session.wait_exit(EXIT_WAIT)
            took = time.monotonic() - start
            if code is None:
                raise _Fail(f"exit with status 0 within {EXIT_SECONDS:g} s",
                            f"still running after {EXIT_WAIT:g} s", "PROTOCOL.md 4, 5.7 end",
                            output=_output(session.process))
            if code != 0:
                raise _Fail("exit status 0", f"exit status {code}", "PROTOCOL.md 4, 5.7 end",
                            output=_output(session.process))
            if took > EXIT_SECONDS:
                raise _Fail(f"exit within {EXIT_SECONDS:g} s (a SHOULD)", f"exited 0 after "
                            f"{took:.1f} s", "PROTOCOL.md 4, 5.7 end", warning=True)
            return f"exited 0 after {took * 1000:.0f} ms"
        self._check("end", "after `end` with more_games: false the bot exits 0",
                    "PROTOCOL.md 4, 5.7 end", body)
        session.stop()
        self.session = None

    def _exits_after(self, message: dict[str, Any], what: str, section: str,
                     greet: bool) -> str:
        session = self._new_session()
        if greet:
            session.send(wire.welcome_message(0, "check-error", 1000, ["a", "b", "c", "d"],
                                              int(HELLO_SECONDS * 1000),
                                              int(DECISION_SECONDS * 1000),
                                              codec.MAX_MESSAGE_BYTES, True,
                                              bank_ms=session.bank_ms))
        session.send(message)
        code = session.wait_exit(EXIT_WAIT)
        session.stop()
        if code is None:
            raise _Fail(f"exit after {what} (any status)", f"still running after {EXIT_WAIT:g} s",
                        section)
        return f"exit status {code}"

    def _reject(self) -> str:
        return self._exits_after({"type": "reject", "reason": "unsupported_version",
                                  "message": "check-bot: a rejected hello",
                                  "protocols": [1]}, "reject", "PROTOCOL.md 4, 5.3", False)

    def _error(self) -> str:
        return self._exits_after(wire.error_message("timeout", "check-bot: an error"), "error",
                                 "PROTOCOL.md 4, 5.8", True)

    # ----- real games ------------------------------------------------------------------------

    def _games(self) -> str:
        under_test = Entrant(self.manifest, self.taken.version, source=str(self.folder))
        try:
            other = take_bot(self.opponent, self.policy)
        except IntakeFailed as exc:
            raise _Fail("the opponent taken in and built", f"the other bot, the opponent "
                        f"{exc.failure.name} ({self.opponent}), was refused, not the bot under "
                        f"test: {exc.failure.reason}", NOT_THE_BOT, harness=True,
                        output=_last_lines(exc.failure.output)) from None
        opponent = Entrant(other.manifest, other.version, source=str(self.opponent))
        time_control = TimeControl(hello=HELLO_SECONDS, decision=DECISION_SECONDS,
                                   bank=GAME_BANK, grace=GRACE)
        rounds = 0
        with Match(under_test, opponent, isolation=self.isolation) as match:
            for g in range(self.games):
                spec = GameSpec(f"check-game-{g + 1}", 1000 + g, (under_test, opponent),
                                self.target, time_control)
                record = match.play(spec, last=g == self.games - 1)
                if record.termination is not Termination.NORMAL:
                    raise _game_fault(record, f"game {g + 1} (seed {spec.seed})",
                                      other.manifest.name)
                rounds += record.rounds
        return f"{rounds} rounds"


def _game_fault(record: GameRecord, game: str, opponent: str) -> _Fail:
    """The games item's verdict on a game that did not end normally: a failure if the bot
    under test (seats 0 and 2) failed, an error (the harness's) if only the opponent (seats 1
    and 3) or the referee did; with the output of the seats that failed."""
    fault = record.fault
    what = f"{game}: {record.termination.value}"
    message = fault.message if fault else ""
    expected = "games played out with no fault"
    if not record.termination.is_bot_fault:
        return _Fail(expected, f"{what}, a failure of the referee, not of a bot: {message}",
                     NOT_THE_BOT, harness=True)
    if fault is None or fault.seat is None:  # seats of both teams failed together: void
        seats = sorted({f["seat"] for f in fault.details.get("faults", [])} if fault else ())
        return _Fail(expected, f"{what} by the bot under test and the opponent {opponent} "
                     f"together (the game is void): {message}", "PROTOCOL.md 9.3 who forfeits",
                     output="\n".join(_tail(record, s) for s in seats if _tail(record, s)))
    if fault.seat % 2:
        return _Fail(expected, f"{what} by the other bot, the opponent {opponent} (seat "
                     f"{fault.seat}), not the bot under test: {message}", NOT_THE_BOT,
                     harness=True, output=_tail(record, fault.seat))
    return _Fail(expected, f"{what} by the bot under test (seat {fault.seat}): {message}",
                 _FAULT_SECTIONS.get(record.termination, "PROTOCOL.md 9 errors"),
                 output=_tail(record, fault.seat))


def _other_than_reply(data: bytes, request_id: int) -> bool:
    """Whether a bot's message is a valid message other than a reply to `request_id` (one
    that cannot be decoded is left to the check of the reply, which names what is wrong)."""
    try:
        message = codec.decode(data, "bot")
    except ProtocolError:
        return False
    return message["type"] != "reply" or message["id"] != request_id


def _tail(record: GameRecord, seat: int) -> str:
    """The end of a seat's output in a game, headed by the seat ("" if it wrote nothing)."""
    output = _last_lines(record.bot_output[seat] or "")
    return f"seat {seat}:\n{output}" if output else ""


def _illegal_text(exc: IllegalAction, reply: dict[str, Any], observation: Any) -> str:
    """The broken rule and why, in card names and rank characters (the engine's own message
    speaks of card ids and rank numbers for some rules)."""
    hand = wire.cards_text(observation.hand)
    action = reply["action"] or {}
    stated = action.get("give") or action.get("cards") or []
    missing = [c for c in stated if c not in hand]
    if exc.rule == "card-not-held" and missing:
        return (f"card-not-held: {' '.join(missing)} {'is' if len(missing) == 1 else 'are'} "
                f"not in the hand ({' '.join(hand)})")
    if exc.rule == "must-fulfil-wish":
        rank = wire.rank_text(observation.wish)
        return (f"must-fulfil-wish: the wish for the rank {rank} is in force and this hand can "
                f"play a {rank}, so it must play one (see the options), not pass or play "
                "without it")
    return f"{exc.rule}: {exc.message}"


def _legal_text(decision: Decision, observation: Any) -> str:
    kind = decision.kind
    if kind is DecisionKind.EXCHANGE:
        hand = " ".join(wire.cards_text(observation.hand))
        return f"an explicit exchange action giving three distinct cards of the hand ({hand})"
    extra = ("; passing is not allowed (must_fulfil_wish)" if decision.must_fulfil_wish
             else "")
    return f"a legal {kind.value} decision: an option index or a legal action{extra}"


def _describe(reply: dict[str, Any], decision: Decision) -> str:
    if reply["option"] is not None:
        text = f"option {reply['option']} of {len(decision.options)}"
    else:
        action = reply["action"]
        text = action["action"] + (f" {' '.join(action['cards'])}" if "cards" in action else "")
        if "give" in action:
            text += f" {' '.join(action['give'])}"
    if reply["wish"]:
        text += f", wish {reply['wish']}"
    return text + (", calls Tichu" if reply["call_tichu"] else "")


def check_bot(folder: str | Path, games: int = 2, target: int = 300, build: bool = True,
              isolation: Isolation | None = None, build_network: bool = False,
              opponent: str | Path = RANDOM_BOT) -> CheckReport:
    """Run every check on the bot in `folder` (a folder or an archive of one, taken in by
    intake as a tournament takes it: its snapshot is what runs, and is built at
    `isolation`), every process of it at `isolation` (None: the level a tournament game
    would use, `resolve("auto")`); `build_network`: whether a build that asks for the
    network gets it; `opponent`: the bot folder the closing games are played against (the
    random bot). ConfigError if intake refuses the folder or its bot.toml is wrong."""
    return _Checker(Path(folder).absolute(), games, target, isolation, build_network,
                    Path(opponent).absolute()).run(build)


__all__ = ["CheckItem", "CheckReport", "Status", "check_bot"]
