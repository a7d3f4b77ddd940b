"""A seat game served to a browser without the league: the page of `play_views.play_page`
on a loopback HTTP server, its seat played by whoever posts answers, the three other seats
by the house's heuristic bot.

The game is real: `arena.referee.inprocess.play_local_game` plays the referee's part with
the referee's own wire maps and packing (as the golden transcript is made). The person's
seat is an SDK bot (`WebSeat`) that does what the league's bridge does: it hands the page
every message it is sent, except the bomb windows the person's choice does not put to them
(declined, their events sent on as an `events` message), and its decisions are the page's
posts. Those messages are the stream of ``/play/1/events`` (server-sent events, as the
contract of issue 50 says: a ``message`` event per protocol message with its index as
``id``, ``Last-Event-ID`` honoured, ``status`` events). The `record` hook shows the harness
the other seats' requests (which cards are hidden from the person) and the person's
replies. ``/play/1/answer`` checks a posted answer as the league's server must: the open
request's id (else 409), one of its options or an exchange of three held cards, the free
flags where allowed (else 400 with the rule, from the terminal seat's `answers.why_not`).
"""

from __future__ import annotations

import json
import mimetypes
import queue
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any

from arena.cli.human.answers import why_not
from arena.presentation.play_views import play_page
from arena.presentation.seat_view import current_trick
from arena.referee.inprocess import load_bot, play_local_game
from protocol.sdk import Bot, pass_turn
from tests.presentation.play_person import Windows

Message = dict[str, Any]
ROOT = Path(__file__).resolve().parents[2]
ASSETS = resources.files("arena.presentation") / "assets"
CSRF = "csrf-test-value"
WAIT = 120.0
"""A hang guard, not a claim: the longest the game waits for one answer, and a stream for
one message."""


class Refusal(Exception):
    """An answer the server refuses: its status and sentence."""

    def __init__(self, status: int, sentence: str) -> None:
        super().__init__(sentence)
        self.status = status


class WebSeat(Bot):
    """The person's seat, as the league's bridge plays it: each message it is sent goes to
    the page (`tell`), but a bomb window the person's choice does not put to them, which it
    declines, its events going on as an `events` message; each decision is the reply the
    harness puts on `answers`."""

    name = "you"
    version = "1.0"

    def __init__(self, game: SeatGame) -> None:
        self.game = game
        self.windows = Windows(game.bomb_windows)

    def on_welcome(self, welcome: Message) -> None:
        self.game.tell(welcome)

    def decide(self, request: Message) -> Message:
        if request["kind"] == "bomb" and not self.windows.offers(request, self.events):
            if request["events"]:
                self.game.tell({"type": "events", "events": request["events"]})
            return pass_turn()
        self.game.tell(request)
        reply = self.game.answers.get(timeout=WAIT)
        if reply is None:
            raise SystemExit("the person left")
        return reply

    def on_end(self, end: Message) -> None:
        self.game.tell(end)


@dataclass
class SeatGame:
    """One game in progress: what the person's seat was sent, what the others hold."""

    seat: int
    seed: int
    target: int
    bomb_windows: str = "ask"
    messages: list[Message] = field(default_factory=list)
    replies: list[Message] = field(default_factory=list)
    """Every reply the person's seat made, as the referee got it."""
    refusals: list[tuple[int, str]] = field(default_factory=list)
    posted: int = 0
    """The answers the page posted and the harness took."""
    hands: dict[int, tuple[int, list[str]]] = field(default_factory=dict)
    """Each other seat's hand in its latest request: (round, cards)."""
    state: str = "waiting"
    error: str = ""
    answers: queue.Queue[Message | None] = field(default_factory=queue.Queue)
    changed: threading.Condition = field(default_factory=threading.Condition)

    def tell(self, message: Message) -> None:
        """A message to the page."""
        with self.changed:
            self.messages.append(message)
            self.changed.notify_all()

    def record(self, seat: int, sender: str, message: Message, data: bytes) -> None:
        with self.changed:
            if sender == "referee" and seat != self.seat and message["type"] == "request":
                observation = message["observation"]
                self.hands[seat] = (observation["round"], list(observation["hand"]))
            elif sender == "bot" and seat == self.seat and message["type"] == "reply":
                self.replies.append(message)
            self.changed.notify_all()

    def play(self) -> None:
        bots = [WebSeat(self) if s == self.seat else
                load_bot(ROOT / "bots" / "heuristic")(self.seed * 4 + s) for s in range(4)]
        self.state = "playing"
        try:
            play_local_game(self.seed, bots, self.target, record=self.record, game_id="seat-1")
            self.state = "over"
        except (SystemExit, queue.Empty) as exc:
            self.state, self.error = "left", str(exc)
        except Exception as exc:  # noqa: BLE001 (the test reads it: a harness or referee fault)
            self.state, self.error = "failed", repr(exc)
        with self.changed:
            self.changed.notify_all()

    def after(self, sent: int) -> tuple[list[Message], str]:
        """The messages after the first `sent`, once there are any or the game is over
        (or WAIT passed), and the game's state."""
        with self.changed:
            self.changed.wait_for(lambda: len(self.messages) > sent
                                  or self.state not in ("waiting", "playing"), WAIT)
            return self.messages[sent:], self.state

    def open_request(self) -> Message | None:
        with self.changed:
            last = self.messages[-1] if self.messages else None
            return last if last is not None and last["type"] == "request" else None

    def this_round(self) -> list[Message]:
        """What the person's seat was sent of the current round: the message that began it
        from its `round_start` event on (the events before it ended the last round), and
        every message since."""
        with self.changed:
            starts = [k for k, m in enumerate(self.messages)
                      if any(e["kind"] == "round_start" for e in m.get("events", ()))]
            if not starts:
                return list(self.messages)
            first = dict(self.messages[starts[-1]])
            kinds = [e["kind"] for e in first["events"]]
            first["events"] = first["events"][kinds.index("round_start"):]
            return [first, *self.messages[starts[-1] + 1:]]

    def events(self) -> list[Message]:
        with self.changed:
            return [e for m in self.messages for e in m.get("events", ())]

    def hidden(self) -> set[str]:
        """The cards the person's seat may not know now: the other seats' hands this round,
        less the cards played since and those the person gave them."""
        with self.changed:
            requests = [m for m in self.messages if m["type"] == "request"]
            if not requests:
                return set()
            observation = requests[-1]["observation"]
            played = set(observation["played"])
            given = set((observation["exchange"] or {}).get("given", ()))
            cards = {c for r, hand in self.hands.values() if r == observation["round"]
                     for c in hand}
            return cards - played - given - set(observation["hand"])

    def answer(self, body: Any) -> None:
        """Check a posted answer and pass it to the seat; Refusal if it is refused."""
        request = self.open_request()
        if not isinstance(body, dict) or "request_id" not in body or "action" not in body:
            raise Refusal(400, "an answer is {request_id, action}")
        if request is None or body["request_id"] != request["id"]:
            raise Refusal(409, "that decision is not the open one")
        action = body["action"]
        call, wish = bool(body.get("call_tichu", False)), body.get("wish")
        rule = refusal(request, action, call, wish, self.events())
        if rule:
            self.refusals.append((request["id"], rule))
            raise Refusal(400, f"that play is not allowed: {rule}")
        self.posted += 1
        self.answers.put({"action": canonical(request, action), "call_tichu": call,
                          "wish": wish})


def canonical(request: Message, action: Message) -> Message:
    """The option an answer names (the referee's own map), else the action as posted."""
    for option in request["options"] or ():
        if same_action(option, action):
            return dict(option)
    return dict(action)


def same_action(option: Message, action: Message) -> bool:
    if option["action"] != action.get("action"):
        return False
    if option["action"] == "play":
        return (sorted(option["cards"]) == sorted(action.get("cards") or [])
                and option["phoenix_as"] == action.get("phoenix_as"))
    return all(action.get(k) == v for k, v in option.items())


def refusal(request: Message, action: Any, call: bool, wish: Any,
            events: Sequence[Message]) -> str:
    """Why an answer is not allowed, or "" (as the referee and the terminal seat judge)."""
    if not isinstance(action, dict):
        return "the action is not an action map"
    hand = request["observation"]["hand"]
    if call and not request["may_call_tichu"]:
        return "you may not call Tichu now"
    if wish is not None and "Mahjong" not in (action.get("cards") or ()):
        return "a wish goes only with a play of the Mah Jong"
    if request["kind"] == "exchange":
        give = action.get("give")
        if (action.get("action") != "exchange" or not isinstance(give, list)
                or len(set(give)) != 3 or len(give) != 3 or not set(give) <= set(hand)):
            return "give three different cards of your hand"
        return ""
    if any(same_action(o, action) for o in request["options"] or ()):
        return ""
    cards = action.get("cards")
    if action.get("action") == "play" and isinstance(cards, list) and cards:
        missing = [c for c in cards if c not in hand]
        if missing:
            return f"you do not hold {' '.join(map(str, missing))}"
        return why_not(cards, request, current_trick(events))
    return "it is not one of the choices of this decision"


def _handler(game: SeatGame, page: str, served: Served) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base's name)
            pass

        def do_GET(self) -> None:
            if self.path == "/play/1":
                self._send(200, "text/html; charset=utf-8", page.encode())
            elif self.path == "/play/1/events":
                self._stream()
            elif self.path.startswith("/assets/") and "/" not in self.path[8:]:
                asset = ASSETS / self.path[8:]
                kind = mimetypes.guess_type(self.path)[0] or "application/octet-stream"
                if asset.is_file():
                    self._send(200, kind, asset.read_bytes())
                else:
                    self._send(404, "text/plain", b"no such asset")
            else:
                self._send(404, "text/plain", b"not here")

        def do_POST(self) -> None:
            size = int(self.headers.get("Content-Length", "0"))
            data = self.rfile.read(min(size, 16384))
            if self.headers.get("X-CSRF-Token") != CSRF and self.path != "/play/1/leave":
                self._json(403, {"error": "the form is stale: reload the page", "status": 403})
            elif self.path == "/play/1/answer":
                try:
                    game.answer(json.loads(data or b"null"))
                    self._json(200, {"accepted": True})
                except (ValueError, Refusal) as exc:
                    status = exc.status if isinstance(exc, Refusal) else 400
                    self._json(status, {"error": str(exc), "status": status})
            elif self.path == "/play/1/leave":
                game.answers.put(None)
                self._json(200, {"left": True})
            else:
                self._send(404, "text/plain", b"not here")

        def _send(self, status: int, kind: str, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _json(self, status: int, data: Any) -> None:
            self._send(status, "application/json", json.dumps(data).encode())

        def _stream(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.close_connection = True
            start = int(self.headers.get("Last-Event-ID", "-1")) + 1
            if "Last-Event-ID" in self.headers:
                served.resumed.append(start)
            try:
                for chunk in stream(game, start, served.cut):
                    self.wfile.write(chunk.encode())
                    self.wfile.flush()
            except OSError:  # the page went away
                pass

    return Handler


def stream(game: SeatGame, start: int, cut: int = 0) -> Iterator[str]:
    """The server-sent events of the person's seat from message `start`, then its status;
    with `cut`, the stream ends after that many messages (the page comes back with its
    `Last-Event-ID`)."""
    yield "retry: 300\n\n" + _status(game)
    sent = start
    while True:
        fresh, state = game.after(sent)
        if cut and sent + len(fresh) - start > cut:
            fresh = fresh[:cut - (sent - start)]
        for message in fresh:
            yield f"event: message\nid: {sent}\ndata: {json.dumps(message)}\n\n"
            sent += 1
        if not fresh and state not in ("waiting", "playing"):
            yield _status(game)
            return
        if cut and sent - start >= cut:
            return
        if not fresh:
            return  # the hang guard: the page reconnects


def _status(game: SeatGame) -> str:
    texts = {"waiting": "Waiting for the bots.", "playing": "You are playing seat "
             f"{game.seat}.", "over": "The game is over.", "left": "You left the game.",
             "failed": "The game failed."}
    replay = "/replay/seat-1" if game.state in ("over", "left", "failed") else None
    data = {"state": game.state, "text": texts[game.state], "replay": replay}
    return f"event: status\ndata: {json.dumps(data)}\n\n"


class Served:
    """A seat game and its page on 127.0.0.1 (`url`); `close` stops both."""

    def __init__(self, seed: int, target: int, seat: int = 0, bomb_windows: str = "ask",
                 cut: int = 0) -> None:
        self.game = SeatGame(seat, seed, target, bomb_windows)
        self.cut = cut
        """Each stream ends after this many messages (0: never)."""
        self.resumed: list[int] = []
        """The first message of each stream asked with a `Last-Event-ID`."""
        names = ["you" if s == seat else "heuristic" for s in range(4)]
        page = play_page(1, "You and heuristic vs heuristic", "/play/1/events",
                         "/play/1/answer", "/play/1/leave", CSRF, seat, names, bomb_windows)
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self.game, page, self))
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_port}/play/1"
        self.threads = [threading.Thread(target=self.server.serve_forever, daemon=True),
                        threading.Thread(target=self.game.play, daemon=True)]
        for thread in self.threads:
            thread.start()

    def close(self) -> None:
        self.game.answers.put(None)
        self.server.shutdown()
        self.server.server_close()
        self.threads[1].join(WAIT)
