"""The Python bot SDK: write `decide(request) -> reply`, the SDK does the rest.

```python
import random
from protocol.sdk import choose, exchange, run

def decide(request):
    if request["kind"] == "exchange":
        return exchange(random.sample(request["observation"]["hand"], 3))
    return choose(random.randrange(len(request["options"])))

run(decide, name="tiny", version="1.0.0")
```

Requests, events and replies are the plain dicts of PROTOCOL.md. A bot is either such a
function or a `Bot` subclass (hooks for welcome, events and end).

Reproducible bots: the SDK asks for the `seed` capability, and at each game's `welcome` it
sets `bot.seed` to the seat's seed and `bot.rng` to a `random.Random` seeded with it; a
function bot also gets the `random` module seeded with it. A bot that draws its randomness
from there plays the same game again under `arena play --seed S` (PROTOCOL.md 5.2).

Time: a bot that lists `bank` in its `capabilities` is told its time bank for the game:
the SDK sets `bot.bank_ms` from each welcome's `limits.bank_ms` (None from a referee that
does not announce it; PROTOCOL.md 5.1, 9.4). Each request's `deadline_ms` is the limit to meet.

`Session` is the protocol state machine with no transport (message in, message out: the
in-process harness `arena.referee.inprocess` drives it directly); `run` connects it to the
referee over ZeroMQ.
"""

from __future__ import annotations

import os
import random
import sys

from protocol.codec import (
    MAX_MESSAGE_BYTES,
    PROTOCOL_VERSION,
    ProtocolError,
    decode,
    pack,
    unpack,
    validate,
)

TYPE_CHECKING = False  # typing's, without importing typing: see protocol/__init__.py
if TYPE_CHECKING:
    import logging
    from collections.abc import Callable, Sequence
    from typing import Any


def _logger() -> logging.Logger:
    """The SDK's logger, `logging` imported only when it is needed: with what it imports it
    took 13 ms of a Python bot's 45 ms start (`perf stat -r 60 python -c "import
    protocol.sdk, protocol.zmtp"`, then with `logging` added), paid at every game's start."""
    import logging

    return logging.getLogger(__name__)


def _debugging() -> bool:
    """Whether the SDK's debug lines are on: never unless something imported `logging` (the
    bot, to set it up), for until then no level is set below the default, WARNING."""
    logging = sys.modules.get("logging")
    return logging is not None and logging.getLogger(__name__).isEnabledFor(logging.DEBUG)


Message = dict[str, "Any"]
"""A protocol message as the SDK hands it to a bot (`Any` named as a string: no `typing` at
run time)."""
ENDPOINT_VAR = "TICHU_ENDPOINT"
TOKEN_VAR = "TICHU_TOKEN"
TRANSPORT_VAR = "TICHU_SDK_TRANSPORT"  # "pyzmq": connect through libzmq, not protocol.zmtp
STRICT_VAR = "TICHU_STRICT"  # "1": validate every referee message in full (for bot authors' tests)


# ----- reply builders -----------------------------------------------------------------------

def choose(option: int, call_tichu: bool = False, wish: str | None = None) -> Message:
    """A reply choosing `options[option]` of the request."""
    return {"option": option, "call_tichu": call_tichu, "wish": wish}


def act(action: Message, call_tichu: bool = False, wish: str | None = None) -> Message:
    """A reply stating an action map explicitly."""
    return {"action": action, "call_tichu": call_tichu, "wish": wish}


def play(cards: Sequence[str], phoenix_as: str | None = None, call_tichu: bool = False,
         wish: str | None = None) -> Message:
    """A reply playing `cards` (the Phoenix standing for `phoenix_as` in a combination)."""
    return act({"action": "play", "cards": list(cards), "phoenix_as": phoenix_as}, call_tichu,
               wish)


def pass_turn(call_tichu: bool = False) -> Message:
    """A reply passing (or declining a bomb window)."""
    return act({"action": "pass"}, call_tichu)


def exchange(give: Sequence[str], call_tichu: bool = False) -> Message:
    """A reply giving give[0] to seat+1, give[1] to the partner, give[2] to seat+3."""
    return act({"action": "exchange", "give": list(give)}, call_tichu)


def grand_tichu(call: bool) -> Message:
    return act({"action": "grand_tichu", "call": call})


def tichu(call: bool) -> Message:
    return act({"action": "tichu", "call": call})


def give_dragon(to: int) -> Message:
    return act({"action": "give_dragon", "to": to})


# ----- bots ---------------------------------------------------------------------------------

class Bot:
    """A bot: override `decide`; the hooks are optional.

    The session sets `seat`, `welcome` (the welcome message), `seed` and `rng` (this game's
    seat seed, and a `random.Random` seeded with it: draw from it to be reproducible),
    `bank_ms` (this game's time bank, for a bot that asks for `bank`) and `events` (every
    event this seat has received, in order) before calling the hooks.
    """

    name = "bot"
    version = "0.0.0"
    capabilities: tuple[str, ...] = ()

    seat: int = -1
    welcome: Message | None = None
    seed: int | None = None  # None: the referee sent no seed (then `rng` is seeded at random)
    bank_ms: int | None = None  # None: not asked for (`bank`), or the referee did not say
    rng: random.Random
    events: list[Message]

    def decide(self, request: Message) -> Message:
        """The reply to a request (use `choose`, `play`, ...): id and type are added."""
        raise NotImplementedError

    def on_welcome(self, welcome: Message) -> None:
        """Called at the start of each game (a session may play several: `multi_game`)."""

    def on_event(self, event: Message) -> None:
        """Called for each event, in order, before the request that carries it is decided."""

    def on_end(self, end: Message) -> None:
        """Called at the end of each game, after its final events."""


class FunctionBot(Bot):
    """A bot made of a single `decide(request) -> reply` function."""

    def __init__(self, decide: Callable[[Message], Message], name: str = "bot",
                 version: str = "0.0.0", capabilities: Sequence[str] = ()) -> None:
        self._decide = decide
        self.name = name
        self.version = version
        self.capabilities = tuple(capabilities)

    def decide(self, request: Message) -> Message:
        return self._decide(request)

    def on_welcome(self, welcome: Message) -> None:
        """A function has no `self.rng`: seed the `random` module it may draw from."""
        if self.seed is not None:
            random.seed(self.seed)


class Stopped(Exception):
    """The referee ended the session with `reject` or `error`; `message` is that message."""

    def __init__(self, message: Message) -> None:
        super().__init__(f"{message['type']}: {message.get('message', '')}")
        self.message = message


class Session:
    """One bot's side of the protocol, without transport: feed it referee messages.

    `hello()` is the first message to send; `handle(message)` takes each validated referee
    message and returns the reply to send (or None); `done` turns true at `end`.
    `handle` raises `Stopped` on `reject` and `error`, and ProtocolError if the bot's reply
    is malformed or a message comes out of order.
    """

    def __init__(self, bot: Bot, token: str) -> None:
        self.bot = bot
        self.token = token
        self.done = False
        self.result: Message | None = None
        bot.events = []
        # on_event is called only if the bot defines it: most bots do not, and a request
        # carries several events
        self._on_event = bot.on_event if type(bot).on_event is not Bot.on_event else None

    def hello(self) -> Message:
        return validate({"type": "hello", "protocol": PROTOCOL_VERSION, "token": self.token,
                         "name": self.bot.name, "version": self.bot.version,
                         "capabilities": _with_sdk_capabilities(self.bot.capabilities)}, "bot")

    def handle(self, message: Message) -> Message | None:
        kind = message["type"]
        if kind == "request" and self.bot.welcome is not None:  # the common case, first
            self._events(message.get("events", ()))
            reply = {"type": "reply", "id": message["id"], **self.bot.decide(message)}
            return validate(reply, "bot")  # an option reply takes the codec's fast path
        if kind in ("reject", "error"):
            self.done = True
            raise Stopped(message)
        if kind == "welcome":
            bot = self.bot
            bot.events = []
            bot.seat = message["seat"]
            bot.welcome = message
            bot.seed = message.get("seed")
            bot.bank_ms = message["limits"].get("bank_ms")
            if bot.seed is not None or not hasattr(bot, "rng"):
                bot.rng = random.Random(bot.seed)
            bot.on_welcome(message)
            return None
        if self.bot.welcome is None:
            raise ProtocolError("unexpected", "type", f"{kind!r} before welcome")
        self._events(message.get("events", ()))
        if kind == "request":
            reply = {"type": "reply", "id": message["id"], **self.bot.decide(message)}
            return validate(reply, "bot")
        if kind == "end":
            self.result = message
            self.bot.on_end(message)
            if message.get("more_games"):
                self.bot.welcome = None  # the next game's welcome comes next
            else:
                self.done = True
        return None

    def _events(self, events: Sequence[Message]) -> None:
        if self._on_event is None:
            self.bot.events.extend(events)
            return
        for event in events:
            self.bot.events.append(event)
            self._on_event(event)


SDK_CAPABILITIES = ("multi_game", "auto_pass", "seed")


def _with_sdk_capabilities(capabilities: Sequence[str]) -> list[str]:
    """The bot's own capabilities and those the SDK always asks for: `multi_game` (it plays
    any number of games in one session), `auto_pass` (a turn on which passing is all a
    seat may do is not asked: nothing is left to decide, and the pass event tells of it) and
    `seed` (each game's welcome carries the seat's seed: `Bot.seed`, `Bot.rng`)."""
    return list(capabilities) + [c for c in SDK_CAPABILITIES if c not in capabilities]


# ----- running over ZeroMQ ------------------------------------------------------------------

def run(bot: Bot | Callable[[Message], Message], endpoint: str | None = None,
        token: str | None = None, name: str = "bot", version: str = "0.0.0",
        capabilities: Sequence[str] = ()) -> int:
    """Play one session against the referee; the exit status (0 after `end`).

    `endpoint` and `token` default to the TICHU_ENDPOINT and TICHU_TOKEN environment
    variables. A function is wrapped in a `FunctionBot` with `name`, `version`, `capabilities`.
    """
    if not isinstance(bot, Bot):
        bot = FunctionBot(bot, name, version, capabilities)
    endpoint = endpoint or os.environ.get(ENDPOINT_VAR)
    token = token if token is not None else os.environ.get(TOKEN_VAR)
    if not endpoint or token is None:
        print(f"{bot.name}: set {ENDPOINT_VAR} and {TOKEN_VAR} (the referee does)",
              file=sys.stderr)
        return 2
    strict = os.environ.get(STRICT_VAR, "") not in ("", "0")
    return _serve(Session(bot, token), endpoint, strict)


def _serve(session: Session, endpoint: str, strict: bool = False) -> int:
    """Serve one session; `strict` validates every referee message in full (slower).

    The connection is the SDK's own ZMTP DEALER (`protocol.zmtp`: no I/O thread, a syscall
    per message); TICHU_SDK_TRANSPORT=pyzmq uses a libzmq DEALER instead (the same wire)."""
    label = session.bot.name
    try:
        if os.environ.get(TRANSPORT_VAR, "") == "pyzmq":
            sock: Any = _Pyzmq(endpoint)
        else:
            from protocol.zmtp import Dealer

            sock = Dealer(endpoint, MAX_MESSAGE_BYTES)
    except (OSError, ValueError) as exc:
        print(f"{label}: cannot connect to the referee at {endpoint}: {exc}", file=sys.stderr)
        return 1
    parent = os.getppid()
    debug = _debugging()
    read = (lambda frame: decode(frame, "referee")) if strict else unpack
    try:
        _send(sock, session.hello(), label, debug)
        while not session.done:
            frame = sock.recv(1.0)
            if frame is None:
                if os.getppid() != parent:  # the referee is gone: nobody will talk to us
                    _logger().warning("%s: parent process gone, exiting", label)
                    return 1
                continue
            if debug:
                _logger().debug("%s: << %r", label, frame[:300])
            reply = session.handle(read(frame))
            if reply is not None:
                _send(sock, reply, label, debug)
        return 0
    except Stopped as stop:
        print(f"{label}: stopped by the referee: {stop}", file=sys.stderr)
        return 1
    except ConnectionError as exc:
        print(f"{label}: connection to the referee lost: {exc}", file=sys.stderr)
        return 1
    finally:
        sock.close()


class _Pyzmq:
    """A libzmq DEALER (pyzmq) with the interface of `protocol.zmtp.Dealer`."""

    def __init__(self, endpoint: str) -> None:
        import zmq

        self.zmq = zmq
        self.context = zmq.Context()
        self.sock = self.context.socket(zmq.DEALER)
        self.sock.setsockopt(zmq.LINGER, 1000)
        self.sock.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)
        self.sock.connect(endpoint)
        self.timeout_ms: int | None = None

    def send(self, data: bytes) -> None:
        self.sock.send(data)

    def recv(self, timeout: float) -> bytes | None:
        if int(timeout * 1000) != self.timeout_ms:
            self.timeout_ms = int(timeout * 1000)
            self.sock.setsockopt(self.zmq.RCVTIMEO, self.timeout_ms)
        try:
            return self.sock.recv()
        except self.zmq.Again:
            return None

    def close(self) -> None:
        self.sock.close()
        self.context.term()


def _send(sock: Any, message: Message, label: str, debug: bool) -> None:
    data = pack(message)  # hello and replies come out of Session already validated
    if debug:
        _logger().debug("%s: >> %r", label, data[:300])
    sock.send(data)
