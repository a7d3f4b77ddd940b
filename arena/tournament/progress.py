"""Progress of long runs: games done, games per minute, ETA, live standings.

On a terminal it is one line redrawn in place after every game; elsewhere (logs, CI, pipes)
it prints one plain line per finished pair, so that a long run is seen to move.
"""

from __future__ import annotations

import shutil
import sys
import time
from typing import TextIO


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


class Progress:
    """Progress of `total` games; `enabled`: redraw a bar in place (None: if `stream` is a
    terminal); otherwise a line per finished pair."""

    def __init__(self, total: int, stream: TextIO | None = None,
                 enabled: bool | None = None, width: int = 24) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.total = total
        self.done = 0
        self.width = width
        self.started = time.monotonic()
        self.standings = ""
        self._shown = False

    def rate(self) -> float:
        """Games per minute so far."""
        elapsed = time.monotonic() - self.started
        return 60.0 * self.done / elapsed if elapsed > 0 else 0.0

    def line(self) -> str:
        filled = self.width * self.done // self.total if self.total else self.width
        text = f"[{'#' * filled}{'.' * (self.width - filled)}] {self._counts()}"
        return f"{text}  | {self.standings}" if self.standings else text

    def pair_line(self, pair: str) -> str:
        """The plain line printed off a terminal when a pair is complete."""
        text = f"{pair} done ({self._counts()})"
        return f"{text}  | {self.standings}" if self.standings else text

    def _counts(self) -> str:
        rate = self.rate()
        left = (self.total - self.done) / rate * 60.0 if rate > 0 else None
        eta = _clock(left) if left is not None else "?"
        return f"{self.done}/{self.total} games  {rate:.1f}/min  ETA {eta}"

    def advance(self, games: int = 1, standings: str | None = None,
                finished_pair: str | None = None) -> None:
        """Count `games` more; `finished_pair` names a pair they completed."""
        self.done += games
        if standings is not None:
            self.standings = standings
        if self.enabled:
            self.show()
        elif finished_pair is not None:
            self.stream.write(self.pair_line(finished_pair) + "\n")
            self.stream.flush()

    def show(self) -> None:
        if not self.enabled:
            return
        columns = shutil.get_terminal_size((100, 20)).columns
        self.stream.write("\r" + self.line()[:columns - 1].ljust(columns - 1))
        self.stream.flush()
        self._shown = True

    def close(self) -> None:
        """End the line so that what follows starts on a fresh one."""
        if self._shown:
            self.stream.write("\n")
            self.stream.flush()
            self._shown = False
