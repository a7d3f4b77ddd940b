"""`python -m arena.league.seat_bridge SOCKET --bomb-windows CHOICE`: the program of a
person's seat in the browser (`seats.py`), started by the referee as that seat's guest.

It speaks the protocol to the referee like any bot (the Python SDK's session) and relays
each message the referee sends the seat to the league's web server, one JSON line each on
the Unix socket `SOCKET` that the server listens on for this game; the server sends back, a
line each, the person's answer to the open request (`{"reply": {...}}`, checked already) or
`{"leave": sentence}`. A Unix socket, not files: both sides learn at once of a new line and of
the other's end (the server gone, the bridge gone), nothing is polled, and it lives in a
folder only the server's user may open. Leaving, or the socket closing, exits with
`LEFT_EXIT`: the referee records that the seat left the game (a forfeit).

A bomb window the person's choice does not put to them (`seat_view.BombWindows`) is
declined here; its events reach the page as an `events` message, so the page's view of the
game misses nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
from typing import Any

from arena import __version__
from arena.faults import LEFT_EXIT
from arena.presentation.seat_view import BombWindows, current_trick
from protocol.sdk import ENDPOINT_VAR, TOKEN_VAR, Bot, Session, _serve, pass_turn

Message = dict[str, Any]
CHOICES = ("ask", "every", "never")
"""The bomb-window choices (`arena.cli.human.player.BOMB_WINDOWS` says what each does)."""


class Relay:
    """The line-per-message connection to the web server."""

    def __init__(self, path: str) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.file = self.sock.makefile("rwb")

    def tell(self, message: Message) -> None:
        """Send one message the referee sent the seat; leave if the server is gone."""
        try:
            self.file.write(json.dumps({"message": message}).encode() + b"\n")
            self.file.flush()
        except OSError:
            raise SystemExit(LEFT_EXIT) from None

    def answer(self) -> Message:
        """The person's reply fields to the open request; leave on `leave` or the end of
        the connection."""
        try:
            line = self.file.readline()
        except OSError:
            line = b""
        data: Message = json.loads(line) if line.strip() else {}
        if not isinstance(data.get("reply"), dict):  # a leave, or the server gone
            print(f"seat bridge: {data.get('leave', 'the web server is gone')}",
                  file=sys.stderr)  # the record keeps it (its bot_output)
            raise SystemExit(LEFT_EXIT)
        reply: Message = data["reply"]
        return reply


class SeatBridge(Bot):
    """The seat: each message to the page, each answer from it."""

    name = "person"
    version = __version__

    def __init__(self, relay: Relay, bomb_windows: str) -> None:
        self.relay = relay
        self.bomb_windows = bomb_windows
        self.windows = BombWindows(bomb_windows)

    def on_welcome(self, welcome: Message) -> None:
        self.windows = BombWindows(self.bomb_windows)
        self.relay.tell(welcome)

    def decide(self, request: Message) -> Message:
        if request["kind"] == "bomb" and not self.windows.offers(
                request, self.events, current_trick(self.events)):
            if request["events"]:
                self.relay.tell({"type": "events", "events": request["events"]})
            return pass_turn()
        self.relay.tell(request)
        reply = self.relay.answer()
        return {"option": None, "action": reply["action"],
                "call_tichu": bool(reply.get("call_tichu")), "wish": reply.get("wish")}

    def on_end(self, end: Message) -> None:
        self.relay.tell(end)


class RelayedSession(Session):
    """The SDK's session, relaying an `events` message too (no hook of `Bot` sees one)."""

    def handle(self, message: Message) -> Message | None:
        bot = self.bot
        if message["type"] == "events" and isinstance(bot, SeatBridge):
            bot.relay.tell(message)
        return super().handle(message)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arena.league.seat_bridge",
                                     description=__doc__)
    parser.add_argument("socket", help="The web server's Unix socket for this game.")
    parser.add_argument("--bomb-windows", choices=CHOICES, default="ask")
    args = parser.parse_args(argv)
    endpoint, token = os.environ.get(ENDPOINT_VAR), os.environ.get(TOKEN_VAR)
    if not endpoint or token is None:
        print(f"seat bridge: set {ENDPOINT_VAR} and {TOKEN_VAR} (the referee does)",
              file=sys.stderr)
        return 2
    try:
        relay = Relay(args.socket)
    except OSError as exc:
        print(f"seat bridge: cannot reach the web server: {exc}", file=sys.stderr)
        return LEFT_EXIT
    return _serve(RelayedSession(SeatBridge(relay, args.bomb_windows), token), endpoint)


if __name__ == "__main__":
    sys.exit(main())
