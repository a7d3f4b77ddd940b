"""The progress bar: games done, games per minute, ETA and standings; silent off a terminal."""

from __future__ import annotations

import io

import pytest

from arena.tournament.progress import Progress

pytestmark = pytest.mark.timeout(10)


def test_the_line_shows_done_rate_eta_and_standings():
    progress = Progress(10, stream=io.StringIO(), enabled=True, width=10)
    progress.started -= 60.0  # one minute ago
    progress.advance(3, "b +120  a +0")
    line = progress.line()
    assert line.startswith("[###.......] 3/10 games")
    assert "3.0/min" in line and "ETA 2:20" in line and line.endswith("| b +120  a +0")
    assert progress.stream.getvalue().startswith("\r[###")
    progress.close()
    assert progress.stream.getvalue().endswith("\n")


def test_quiet_when_not_on_a_terminal():
    stream = io.StringIO()  # isatty() is False
    progress = Progress(5, stream=stream)
    progress.advance(1)
    progress.close()
    assert stream.getvalue() == ""
