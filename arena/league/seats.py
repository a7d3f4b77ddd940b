"""Seat games: practice games with a person at a seat, played in the browser (`/play`).

A seat game is a practice game (`practice.py`: recorded in `league_practice`, counted toward
`league.practice_per_day`, played by the tournament's worker into the practice store,
replayable at `/practice/{id}/replay`), with the author at seat 0, a bot of their choice at
seat 2 (one of their own, or a house bot) and the chosen opponent at seats 1 and 3. At most
`league.human_games` are played at once (429 beyond); each on a thread of its own, since a
person takes minutes where a bot takes milliseconds.

The person's seat is a `Guest` running `python -m arena.league.seat_bridge` (see there),
which relays each message the referee sends the seat over a Unix socket in
`<storage>.seats/` to this process; `SeatGame` keeps them all, in order, for the page's
event stream (a page that comes back reads them again from the first), and sends the
person's answers back, checked first against the open request (`refusal`). The person has
`league.human_decision_seconds` for each decision; a seat asked a decision with no page
open for `league.human_reconnect_seconds`, or past its time, is left: the game ends as
`Termination.LEFT`, the person's team forfeiting, as when they leave on purpose.
"""

from __future__ import annotations

import contextlib
import enum
import json
import logging
import math
import os
import shutil
import socket
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import arena
from arena.league.accounts import Accounts, PracticeStatus
from arena.league.practice import DAY, Practice, PracticeRefused
from arena.referee.manifest import BotManifest
from arena.referee.match import Entrant, Guest, TimeControl
from arena.sandbox import NO_LIMITS
from arena.tournament.store import Store

logger = logging.getLogger(__name__)

Message = dict[str, Any]
SEAT = 0
"""The person's seat: team 0, with their partner's bot at seat 2."""
MARGIN_SECONDS = 30.0
"""The referee's limit for the person's decision is this much past the league's own, so that
a decision out of time is the seat left (`Termination.LEFT`), never a timeout."""
HELLO_SECONDS = 30.0
"""At least this long for the bridge to start and say hello (a busy machine)."""
WATCH_SECONDS = 0.5
"""How often a seat's limits are looked at."""


class SeatState(enum.StrEnum):
    """Where a seat game is, as its page is told (the `status` event's `state`)."""

    WAITING = "waiting"
    """Started; the referee has not welcomed the person's seat yet."""
    PLAYING = "playing"
    OVER = "over"
    """Played to its end (or forfeited by a bot), and stored."""
    LEFT = "left"
    """The person left (or their time ran out): their team forfeits; stored."""
    FAILED = "failed"
    """The league could not play it to a stored record."""

    @property
    def final(self) -> bool:
        """Whether the game is over, one way or another (its stream ends)."""
        return self in (SeatState.OVER, SeatState.LEFT, SeatState.FAILED)


RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")


def refusal(request: Message, action: Any, call_tichu: Any, wish: Any) -> str | None:
    """Why the answer (`action`, a protocol action map, and the free flags) to `request` is
    not allowed: a rule's name and a sentence; None if it is allowed (one of the request's
    options, or for the exchange, three different cards of the hand)."""
    if not isinstance(action, dict) or not isinstance(call_tichu, bool):
        return "not-an-answer: an answer is an action map and a call_tichu flag"
    if call_tichu and not request["may_call_tichu"]:
        return "no-tichu-now: Tichu is called before your first card, and only once"
    if wish is not None:
        if wish not in RANKS:
            return "wish-not-a-rank: a wish is a rank, 2 to A"
        if action.get("action") != "play" or "Mahjong" not in (action.get("cards") or ()):
            return "wish-without-mahjong: a wish comes only with a play of the Mahjong"
    if request["kind"] == "exchange":
        give = action.get("give")
        hand = request["observation"]["hand"]
        if action.get("action") != "exchange" or not isinstance(give, list) or \
                len(give) != 3 or len(set(map(str, give))) != 3 or \
                any(card not in hand for card in give):
            return "exchange-three-cards: give three different cards of your hand"
        return None
    options = {_option_key(o) for o in request["options"] or ()}
    return None if _option_key(action) in options else _play_rule(request, action)


def _option_key(action: Message) -> tuple[Any, ...]:
    """An action as a comparable value (a card set in any order; `combination` ignored)."""
    cards = action.get("cards")
    return (action.get("action"), action.get("call"), action.get("to"),
            tuple(sorted(map(str, cards))) if isinstance(cards, list) else None,
            action.get("phoenix_as"))


def _play_rule(request: Message, action: Message) -> str:
    """The rule an action not among the options breaks, as well as it can be told."""
    kind, obs = request["kind"], request["observation"]
    if kind != "play":
        return f"not-an-option: that is not one of the choices of this {kind} decision"
    if action.get("action") == "pass":
        if request["must_fulfil_wish"]:
            return "must-fulfil-wish: the wished rank is in your hand and can be played"
        return "leader-cannot-pass: you lead this trick, so you must play"
    cards = action.get("cards")
    if not isinstance(cards, list) or any(c not in obs["hand"] for c in cards):
        return "cards-not-in-hand: play only cards of your hand"
    if request["must_fulfil_wish"]:
        return "must-fulfil-wish: a play must hold the wished rank while you can play it"
    if obs["table"] is not None:
        return ("does-not-beat-table: a play must be the same type and size as the table and "
                "higher, or a bomb that beats it")
    return "not-a-combination: those cards make no combination (or not with that Phoenix)"


@dataclass
class SeatGame:
    """One seat game: what its seat was sent, its open request, its page's connections."""

    practice: int
    author: str
    partner: str
    opponent: str
    bomb_windows: str
    socket_path: Path
    decision_seconds: float
    reconnect_seconds: float
    messages: list[Message] = field(default_factory=list)
    state: SeatState = SeatState.WAITING
    text: str = "The game is starting: the bots are being started."
    replay: str | None = None
    open_request: Message | None = None
    asked_at: float = 0.0
    pages: int = 0
    alone_since: float = field(default_factory=time.monotonic)
    leaving: str | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    changed: int = 0
    """Counts changes of the state, for a stream to see one."""
    _conn: socket.socket | None = None

    @property
    def finished(self) -> bool:
        return self.state.final

    def status(self) -> Message:
        """The page's `status` event's data."""
        return {"state": self.state.value, "text": self.text, "replay": self.replay}

    def read(self, start: int) -> tuple[list[Message], Message, int]:
        """The messages from index `start`, the status, and the count of changes."""
        with self.lock:
            return self.messages[start:], self.status(), self.changed

    def page_opened(self) -> None:
        with self.lock:
            self.pages += 1

    def page_closed(self) -> None:
        with self.lock:
            self.pages -= 1
            if self.pages == 0:
                self.alone_since = time.monotonic()

    def answer(self, request_id: Any, action: Any, call_tichu: Any = False,
               wish: Any = None) -> tuple[int, str]:
        """Send the person's answer to request `request_id`: 200, or 409 (not the open
        request) or 400 (not allowed: the rule) with a sentence."""
        with self.lock:
            request = self.open_request
            if request is None or type(request_id) is not int or request["id"] != request_id:
                open_one = "none is open" if request is None else f"the open one is " \
                                                                  f"{request['id']}"
                return 409, f"request {request_id} is not open ({open_one}): read the " \
                            "game's events again"
            rule = refusal(request, action, call_tichu, wish)
            if rule is not None:
                return 400, f"that play is not allowed: {rule}"
            self.open_request = None
            self._send({"reply": {"action": action, "call_tichu": call_tichu,
                                  "wish": wish}})
        return 200, "accepted"

    def leave(self, reason: str) -> None:
        """The person leaves (or is taken to have left): the game ends as `LEFT`."""
        with self.lock:
            if self.leaving is None and not self.finished:
                self.leaving = reason
                self._send({"leave": reason})

    def _send(self, line: Message) -> None:
        """A line to the bridge (called holding the lock); a bridge gone is no error."""
        if self._conn is not None:
            with contextlib.suppress(OSError):
                self._conn.sendall(json.dumps(line).encode() + b"\n")

    def connected(self, conn: socket.socket) -> None:
        """The bridge connected: a leave said before it reaches it now."""
        with self.lock:
            self._conn = conn
            if self.leaving is not None:
                self._send({"leave": self.leaving})

    def take(self, message: Message) -> None:
        """A message the referee sent the seat, relayed by the bridge."""
        with self.lock:
            self.messages.append(message)
            if message["type"] == "request":
                self.open_request, self.asked_at = message, time.monotonic()
            elif message["type"] == "welcome" and self.state is SeatState.WAITING:
                self.state, self.text = SeatState.PLAYING, "The game is on."
                self.changed += 1
            elif message["type"] == "end":
                self.open_request = None

    def watch(self) -> None:
        """Leave the seat if its decision is out of time, or no page was open for too long
        while it is asked."""
        with self.lock:
            asked, now = self.open_request is not None, time.monotonic()
            late = asked and now - self.asked_at >= self.decision_seconds
            alone = asked and self.pages == 0 and \
                now - max(self.alone_since, self.asked_at) >= self.reconnect_seconds
        if late:
            self.leave("left the game (forfeit): no answer within the time for a decision")
        elif alone:
            self.leave("left the game (forfeit): no page of the game was open while asked")

    def ended(self, state: SeatState, text: str, replay: str | None) -> None:
        with self.lock:
            self.state, self.text, self.replay = state, text, replay
            self.open_request = None
            self.changed += 1


class SeatGames:
    """The seat games of a league server: started, looked up, played on threads."""

    def __init__(self, practice: Practice) -> None:
        self.practice = practice
        self.config = practice.config
        self.folder = self.config.storage.with_name(self.config.storage.name + ".seats")
        self.games: dict[int, SeatGame] = {}
        self.lock = threading.Lock()

    def start(self) -> None:
        """A folder of its own for the bridges' sockets, that only this user may open."""
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder.mkdir(mode=0o700, parents=True)

    def close(self) -> None:
        """The server stops: every seat game still on is left."""
        for game in list(self.games.values()):
            game.leave("left the game (forfeit): the server stopped")

    def get(self, practice: int) -> SeatGame | None:
        return self.games.get(practice)

    def in_play(self) -> set[str]:
        """The entrant keys of the seat games being played (their builds are in use)."""
        with self.lock:
            return {k for g in self.games.values() if not g.finished
                    for k in (g.partner, g.opponent)}

    def begin(self, author: str, partner: str, opponent: str, bomb_windows: str) -> SeatGame:
        """Start a seat game of `author` with the entrants `partner` and `opponent` (keys,
        checked by the caller); PracticeRefused 429 past `human_games` at once or past the
        author's practice games a day."""
        config = self.config
        with self.lock:
            if sum(not g.finished for g in self.games.values()) >= config.human_games:
                raise PracticeRefused(429, f"{config.human_games} games with a person at a "
                                           "seat are being played on this server already "
                                           "(league.human_games): try again later")
            with Accounts(config.storage) as accounts:
                practice = accounts.add_seat_game(author, partner, opponent, SEAT,
                                                  bomb_windows, config.practice_per_day,
                                                  time.time() - DAY)
            if practice is None:
                raise PracticeRefused(429, f"{config.practice_per_day} practice games in the "
                                           "last 24 hours already (league.practice_per_day):"
                                           " try again later")
            game = SeatGame(practice, author, partner, opponent, bomb_windows,
                            self.folder / f"{practice}.sock", config.human_decision_seconds,
                            config.human_reconnect_seconds)
            self.games[practice] = game
        try:
            self.launch(game)
        except OSError as exc:  # no socket for its bridge: the game is not played
            self._not_launched(game, exc)
            raise
        return game

    def _not_launched(self, game: SeatGame, exc: OSError) -> None:
        """A seat game whose bridge could not be listened for: failed, and no longer one of
        the games in play (so it holds no place of `human_games`)."""
        logger.error("seat game %s could not start: %s", game.practice, exc)
        with Accounts(self.config.storage) as accounts:
            accounts.set_practice(game.practice, PracticeStatus.FAILED,
                                  reason=f"the league could not start it: {exc}")
        game.ended(SeatState.FAILED, "The league could not start the game.", None)

    def launch(self, game: SeatGame) -> None:
        """Listen for the game's bridge, and play the game, each on a thread of its own."""
        practice = game.practice
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(str(game.socket_path))
            listener.listen(1)
        except OSError:
            listener.close()
            raise
        done = threading.Event()
        threading.Thread(target=self._relay, args=(game, listener, done),
                         name=f"arena-seat-{practice}-relay", daemon=True).start()
        threading.Thread(target=self._play, args=(game, done),
                         name=f"arena-seat-{practice}", daemon=True).start()

    def guest(self, game: SeatGame) -> Guest:
        """The person's seat as the referee seats it: the bridge, unsandboxed (it is the
        league's own program, and reaches the server's socket), under the person's time."""
        folder = Path(arena.__file__).resolve().parent.parent  # where `arena` is imported from
        command = ("python", "-m", "arena.league.seat_bridge", str(game.socket_path),
                   "--bomb-windows", game.bomb_windows)
        manifest = BotManifest(folder, game.author, arena.__version__, "python", command,
                               limits=NO_LIMITS)
        hello = self.config.tournament.time.hello
        time_control = TimeControl(hello=max(hello, HELLO_SECONDS),
                                   decision=game.decision_seconds + MARGIN_SECONDS,
                                   bank=math.inf, grace=0.0)
        return Guest(SEAT, Entrant(manifest, arena.__version__, source="the browser"),
                     time_control, person=True)

    def _play(self, game: SeatGame, done: threading.Event) -> None:
        """Play the game to its stored record, then say how it ended."""
        try:
            with Accounts(self.config.storage) as accounts:
                row = accounts.practice(game.practice)
                assert row is not None
                game_id = self.practice.play_row(accounts, row, self.guest(game))
            game.ended(*self._outcome(game, game_id))
        except Exception as exc:  # the harness failed, not the bots nor the person: say so
            logger.exception("seat game %s could not be played", game.practice)
            with Accounts(self.config.storage) as accounts:
                accounts.set_practice(game.practice, PracticeStatus.FAILED,
                                      reason=f"the league failed to play it: {exc}")
            game.ended(SeatState.FAILED, "The league failed to play the game.", None)
        finally:
            done.set()
            with contextlib.suppress(OSError):
                os.unlink(game.socket_path)

    def _outcome(self, game: SeatGame, game_id: str) -> tuple[SeatState, str, str | None]:
        """How the stored game `game_id` ended, as its page says it."""
        with Store(self.practice.storage, read_only=True) as store:
            found = store.games_page(0, 1, game_id=game_id)
        if not found:
            return SeatState.FAILED, "The game was not finished.", None
        stored = found[0][1]
        replay = f"/practice/{game.practice}/replay"
        ours, theirs = stored.scores[SEAT & 1], stored.scores[1 - (SEAT & 1)]
        if stored.termination == "left":
            why = (game.leaving or "").removeprefix("left the game (forfeit): ")
            return SeatState.LEFT, "You left the game: your team forfeits it" + (
                f" ({why})." if why else "."), replay
        if stored.termination != "normal":
            won = "your team wins" if stored.winner == SEAT & 1 else "your team loses"
            return SeatState.OVER, f"The game ended early ({stored.termination}): {won} " \
                                   "by forfeit.", replay
        won = "Your team wins" if stored.winner == SEAT & 1 else "Your team loses"
        return SeatState.OVER, f"The game is over. {won}, {ours} to {theirs}.", replay

    def _relay(self, game: SeatGame, listener: socket.socket, done: threading.Event) -> None:
        """Take the bridge's connection and each message it relays; watch the seat's time."""
        listener.settimeout(WATCH_SECONDS)
        conn = None
        with listener:
            while conn is None and not done.is_set():
                with contextlib.suppress(TimeoutError):
                    conn, _ = listener.accept()
                game.watch()
        if conn is None:
            return
        game.connected(conn)
        conn.settimeout(WATCH_SECONDS)
        buffer = b""
        with conn:
            while not done.is_set():
                try:
                    chunk = conn.recv(1 << 16)
                except TimeoutError:
                    game.watch()
                    continue
                except OSError:
                    break
                if not chunk:
                    break
                *lines, buffer = (buffer + chunk).split(b"\n")
                for line in lines:
                    game.take(json.loads(line)["message"])
                game.watch()
