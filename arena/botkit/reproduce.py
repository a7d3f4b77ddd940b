"""`arena reproduce`: replay to a bot, on its author's machine, what its seat was sent in a
game it failed, and say whether it fails again.

The bot runs as `arena check-bot` runs it: its manifest's command, at the isolation level
a tournament game would use, under its limits, reached over the same transport. It gets the
seat's messages (`arena.referee.seatstream`) in order, fitted to the capabilities of its
hello. Each reply is compared with the recorded one; a divergence is named once per
decision, and the replay goes on with the recorded history (the game went as recorded).
At the failing decision the failure's kind is looked for again: a crash (the process
exits), a timeout (no reply within the time the seat had then), an illegal action, a
protocol violation. The bot's output is handed to `show` as it comes.
"""

from __future__ import annotations

import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from arena.referee.manifest import BotManifest
from arena.referee.process import BotProcess
from arena.referee.record import Termination
from arena.referee.seatstream import (
    SeatMessage,
    SeatStream,
    describe,
    fitted,
    illegal,
    reply_action,
)
from arena.referee.transport import STRANGER, RefereeSocket
from arena.sandbox import Isolation
from protocol import codec
from protocol.codec import ProtocolError
from protocol.sdk import ENDPOINT_VAR, TOKEN_VAR

_POLL = 0.05  # seconds between looks at the process while waiting for a message
_EXIT_SECONDS = 1.0  # PROTOCOL.md 4: a bot exits within a second of its last `end`


class Outcome(Enum):
    """How a reproduction ended (closed set)."""

    REPRODUCED = "reproduced"  # the bot failed again as it did in the game
    FAILED_OTHERWISE = "failed_otherwise"  # the bot failed again, but not as in the game
    PASSED = "passed"  # the bot now gets past the point where it failed (or never failed)

    @property
    def still_fails(self) -> bool:
        return self is not Outcome.PASSED


@dataclass(frozen=True)
class Verdict:
    """The outcome, and the sentence that says it."""

    outcome: Outcome
    sentence: str
    divergences: int = 0


class _Failed(Exception):
    """The bot failed at a request (or before its hello): its kind, and what it did."""

    def __init__(self, kind: Termination, what: str) -> None:
        super().__init__(what)
        self.kind, self.what = kind, what


@dataclass
class _Reply:
    """A valid reply, and the milliseconds it took."""

    message: dict[str, Any]
    ms: float


class _Bot:
    """The author's bot process and its one connection, as the referee has it."""

    def __init__(self, manifest: BotManifest, isolation: Isolation,
                 show: Callable[[str], None]) -> None:
        self.socket = RefereeSocket(codec.MAX_BOT_MESSAGE_BYTES, classify=(
            lambda sock: STRANGER) if isolation is Isolation.SANDBOX else None)
        self.token = secrets.token_hex(16)
        env = dict(os.environ)
        env[ENDPOINT_VAR] = self.socket.endpoint
        env[TOKEN_VAR] = self.token
        self.show = show
        self.pending = ""  # output not shown yet: a line is shown whole
        self.lock = threading.Lock()
        self.process = BotProcess(manifest.argv(), manifest.folder, env, manifest.name,
                                  limits=manifest.limits, isolation=isolation,
                                  on_output=self._output)
        self.identity: bytes | None = None
        self.adopted: str | None = None

    def _output(self, chunk: bytes) -> None:
        with self.lock:
            self.pending += chunk.decode("utf-8", "replace")

    def flush(self, everything: bool = False) -> None:
        """Show the bot's output so far, line by line (`everything`: the last, unended one
        too)."""
        with self.lock:
            text, _, self.pending = self.pending.rpartition("\n") if not everything else \
                (self.pending, "", "")
        for line in text.splitlines():
            self.show(line)

    def start(self, hello_seconds: float) -> list[str]:
        """Start the bot and take its hello; its capabilities. _Failed if it says none."""
        try:
            self.process.start()
        except OSError as exc:
            raise _Failed(Termination.START_FAILURE, f"cannot start: {exc}") from None
        started = time.monotonic()
        if self.process.isolation is Isolation.SANDBOX:
            listener = self.process.listener(hello_seconds)
            if listener is None:
                raise _Failed(Termination.START_FAILURE, "did not start: its sandbox ended")
            self.adopted = self.socket.adopt(listener, self)
        try:
            got = self.receive(started + hello_seconds, Termination.HANDSHAKE_FAILURE,
                               f"said no hello within {hello_seconds * 1000:.0f} ms")
        except _Failed as failed:  # an exit before the hello is a start failure (9.3)
            if failed.kind is Termination.CRASH:
                raise _Failed(Termination.START_FAILURE, f"{failed.what} before saying "
                              "hello") from None
            raise
        if got.message["type"] != "hello" or got.message["token"] != self.token:
            raise _Failed(Termination.HANDSHAKE_FAILURE, "sent a first message that is not "
                          "a valid hello")
        return list(got.message["capabilities"])

    def receive(self, deadline: float, late: Termination, what: str) -> _Reply:
        """The bot's next message by `deadline` (monotonic); _Failed if it exits first,
        sends what the protocol refuses, or nothing comes (`late`, `what`)."""
        since = time.monotonic()
        while True:
            self.flush()
            incoming = self.socket.receive(max(0.0, min(deadline - time.monotonic(), _POLL)))
            if incoming is not None and incoming.owner is STRANGER:  # not from its sandbox
                self.socket.disconnect(incoming.identity)
            elif incoming is not None and not incoming.connected:
                if self.identity is not None and incoming.identity != self.identity:
                    raise _Failed(Termination.PROTOCOL_VIOLATION, "sent a message on a "
                                  "second connection")
                self.identity = incoming.identity
                return _Reply(self._decode(incoming.frames, incoming.refused),
                              (time.monotonic() - since) * 1000)
            code = self.process.exit_code()
            if code is not None:
                self.process.read_to_end()
                self.flush(everything=True)
                over = self.process.limit_exceeded
                raise _Failed(Termination.CRASH, f"was stopped: {over}" if over else
                              f"exited with code {code}")
            if time.monotonic() >= deadline:
                raise _Failed(late, what)

    @staticmethod
    def _decode(frames: list[bytes], refused: str | None) -> dict[str, Any]:
        if refused is not None or len(frames) != 1:
            raise _Failed(Termination.PROTOCOL_VIOLATION, f"sent what the protocol refuses: "
                          f"{refused or f'{len(frames)} frames'}")
        try:
            return codec.decode(frames[0], "bot")
        except ProtocolError as exc:
            raise _Failed(Termination.PROTOCOL_VIOLATION, f"sent a message the protocol "
                          f"refuses: {exc}") from None

    def send(self, message: dict[str, Any]) -> None:
        if self.identity is not None:
            self.socket.send(self.identity, codec.pack(message))

    def stop(self) -> None:
        self.process.stop(grace=0.5)
        self.flush(everything=True)
        if self.adopted is not None:
            self.socket.release(self.adopted)
        self.socket.close()


class _Replay:
    """One reproduction: the stream sent to the bot, its replies judged."""

    def __init__(self, stream: SeatStream, bot: _Bot, say: Callable[[str], None]) -> None:
        self.stream = stream
        self.bot = bot
        self.say = say
        self.divergences = 0
        self.started = False  # it said hello
        self.kind = Termination(stream.fault["kind"]) if stream.fault else None

    def run(self) -> Verdict:
        control = self.stream.time_control
        try:
            capabilities = self.bot.start(control["hello"])
        except _Failed as failed:
            return self._failed_at(None, failed)
        self.started = True
        if not self.stream.messages:
            return self._passed("your bot said hello this time; in the game it failed before "
                                "its welcome")
        for item in self.stream.messages:
            message = dict(item.message)
            self.bot.send(fitted(message, capabilities))
            if message["type"] != "request":
                continue
            try:
                reply = self._ask(item)
                self._check(item, reply)  # an illegal answer forfeits, here as in a game
            except _Failed as failed:
                return self._failed_at(item, failed)
            if item.decision == self.stream.failing:
                return self._answered_at_failing(item, reply)
            self._compare(item, reply)
        return self._after_the_last()

    def _ask(self, item: SeatMessage) -> _Reply:
        """The bot's reply to the request `item`, checked as the referee checks one."""
        allowed = (item.allowed_ms or 0) / 1000
        got = self.bot.receive(time.monotonic() + allowed, Termination.TIMEOUT,
                               f"took longer than {item.allowed_ms} ms")
        reply = got.message
        if reply["type"] != "reply" or reply["id"] != item.message["id"]:
            raise _Failed(Termination.PROTOCOL_VIOLATION, f"sent a {reply['type']} "
                          f"message (id {reply.get('id')}) in answer to request "
                          f"{item.message['id']}")
        return got

    @staticmethod
    def _check(item: SeatMessage, reply: _Reply) -> None:
        """_Failed (an illegal action) unless the reply is a legal answer to `item`."""
        wrong = illegal(item.message, reply.message)
        if wrong is not None:
            now = reply_action(item.message, reply.message)
            answer = describe(now) if now else f"option {reply.message.get('option')}"
            raise _Failed(Termination.ILLEGAL_ACTION, f"answered {answer}: {wrong}")

    def _compare(self, item: SeatMessage, reply: _Reply) -> None:
        """Name a divergence from the recorded reply; the first says the replay goes on."""
        now = reply_action(item.message, reply.message)
        recorded = item.reply or {}
        if now is None or now == {k: recorded.get(k) for k in now}:
            return
        self.say(f"decision {item.decision}: your bot now answers {describe(now)}, it "
                 f"answered {describe(recorded)} in the game")
        if not self.divergences:
            self.say("the replay goes on as the game went (the recorded answers are what "
                     "the next messages tell)")
        self.divergences += 1

    def _answered_at_failing(self, item: SeatMessage, reply: _Reply) -> Verdict:
        """The bot answered the request it failed at in the game, legally: say how."""
        now = reply_action(item.message, reply.message)
        answer = describe(now) if now is not None else f"option {reply.message.get('option')}"
        where = f"decision {item.decision}"
        if self.kind is Termination.TIMEOUT:
            return self._passed(f"{where}: your bot answered in {reply.ms:.0f} ms this time "
                                f"({answer}; it had {item.allowed_ms} ms)")
        return self._passed(f"{where}: your bot answers {answer}, a legal action, this time")

    def _after_the_last(self) -> Verdict:
        """Every message sent: a bot that failed while another seat was asked may exit now."""
        if self.kind is None:
            return self._passed("your bot answered every request of the game")
        if self.stream.failing is None:
            try:
                self.bot.receive(time.monotonic() + self.stream.time_control["decision"],
                                 Termination.TIMEOUT, "")
            except _Failed as failed:
                if failed.kind is Termination.CRASH:
                    return self._failed_at(None, failed)
        return self._passed("your bot got past the point where it failed in the game")

    def _passed(self, sentence: str) -> Verdict:
        in_game = f" (in the game: {self.kind.value})" if self.kind else ""
        return Verdict(Outcome.PASSED, f"not reproduced: {sentence}{in_game}", self.divergences)

    def _failed_at(self, item: SeatMessage | None, failed: _Failed) -> Verdict:
        """The bot failed: as in the game (at its failing decision, of its kind), or not."""
        at = item.decision if item is not None else None
        where = f"decision {at}" if at is not None else \
            "after its last request" if self.started else "at its start"
        same_place = at == self.stream.failing
        if same_place and failed.kind is self.kind:
            what = failed.what + (" again" if failed.kind is Termination.TIMEOUT else "")
            return Verdict(Outcome.REPRODUCED, f"reproduced: {where}: {failed.kind.value}: "
                           f"your bot {what}", self.divergences)
        in_game = (f"; in the game it failed at decision {self.stream.failing} by "
                   f"{self.kind.value}" if self.kind else "; in the game it did not fail")
        return Verdict(Outcome.FAILED_OTHERWISE, f"your bot still fails, otherwise: {where}: "
                       f"{failed.kind.value}: it {failed.what}{in_game}", self.divergences)


def reproduce(stream: SeatStream, manifest: BotManifest, isolation: Isolation,
              say: Callable[[str], None], show: Callable[[str], None]) -> Verdict:
    """Replay `stream` to the bot of `manifest` (run at `isolation`); `say` gets each
    divergence, `show` each line of the bot's output as it comes."""
    bot = _Bot(manifest, isolation, show)
    try:
        return _Replay(stream, bot, say).run()
    finally:
        bot.stop()
