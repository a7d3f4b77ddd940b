"""The bot-fault kinds: the one list of the ways a bot loses a game by its own fault.

Three stages need this list and no two of them may import each other for it. The referee
records a kind as a game's termination (`arena.referee.record.Termination` is this list plus
the endings no bot is charged with). The store counts each kind per entrant. The ratings and
the tables count the forfeits of each kind (`arena.ratings` never imports the referee). So it
lives here, at the top of `arena` beside `arena.errors`: every stage above the rules engine may
import it, and it imports nothing. It is not in `protocol/`, because no bot is ever sent these
kinds: its `error` message carries a `code` (PROTOCOL.md 9), which is a different set. The
kinds belong to the records and the standings, and those are the harness's.
"""

from __future__ import annotations

import enum


class ForfeitKind(enum.StrEnum):
    """Why a team forfeited a game (closed set), in the order the tables show the kinds."""

    TIMEOUT = "timeout"
    """No reply within the decision limit or the time bank."""
    CRASH = "crash"
    """The bot process ended during the game."""
    PROTOCOL_VIOLATION = "protocol_violation"
    """A malformed, oversize or unexpected message."""
    ILLEGAL_ACTION = "illegal_action"
    """A well-formed reply that breaks a rule."""
    START_FAILURE = "start_failure"
    """The bot could not start, or exited before its hello."""
    HANDSHAKE_FAILURE = "handshake_failure"
    """No valid hello in time, or a hello that was rejected."""
    LEFT = "left"
    """The person playing a seat left the game (`arena play human`: quit, end of input or
    Ctrl-C). Only a guest's seat can leave; a bot that ends is a crash."""


LEFT_EXIT = 17
"""The exit status by which a guest's program says that its person left the game (`LEFT`):
neither a Python error's (1) nor a signal's, so that a crash still reads as one."""
