"""The human seat as the referee seats it: a `Guest` running `python -m arena.cli.human` on
the terminal `arena play` runs in, unsandboxed and without time limits."""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

import arena
from arena.referee.manifest import BotManifest
from arena.referee.match import Entrant, Guest, TimeControl
from arena.sandbox import NO_LIMITS

NAME = "human"
DECISION_SECONDS = 24 * 3600.0
"""A person's time per decision: no limit in practice (a wire deadline is at most 24 days)."""
HELLO_SECONDS = 30.0
"""At least this long for the person's program to start and say hello (a busy machine)."""


class NoTerminal(Exception):
    """`arena play` was not started from a terminal, so a person cannot play."""


def terminal_path() -> str:
    """The path of the terminal `arena play` reads from (its standard input); NoTerminal if
    its standard input is not a terminal."""
    try:
        if sys.stdin is not None and sys.stdin.isatty():
            return os.ttyname(sys.stdin.fileno())
    except (OSError, ValueError):  # closed, or no file descriptor (an embedding)
        pass
    raise NoTerminal("a human seat needs a terminal: the standard input of `arena play` is "
                     "not one")


def human_guest(seat: int, terminal: str, bomb_windows: str, hello: float) -> Guest:
    """The guest that lets the person at `terminal` play `seat` (`bomb_windows`: see
    `arena.cli.human.player.BOMB_WINDOWS`; `hello`: the game's hello time, a floor)."""
    folder = Path(arena.__file__).resolve().parent.parent  # where `arena` is imported from
    command = ("python", "-m", "arena.cli.human", "--terminal", terminal,
               "--bomb-windows", bomb_windows)
    manifest = BotManifest(folder, NAME, arena.__version__, "python", command,
                           limits=NO_LIMITS)
    time = TimeControl(hello=max(hello, HELLO_SECONDS), decision=DECISION_SECONDS,
                       bank=math.inf, grace=0.0)
    return Guest(seat, Entrant(manifest, arena.__version__, source=terminal), time,
                 person=True)
