"""Progress: a bar with games done, games per minute, ETA and standings on a terminal; a
plain line per finished pair elsewhere."""

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


def test_a_line_per_finished_pair_when_not_on_a_terminal():
    stream = io.StringIO()  # isatty() is False
    progress = Progress(4, stream=stream)
    progress.started -= 60.0
    progress.advance(1, "b +120  a +0")
    assert stream.getvalue() == ""  # half a pair: nothing yet
    progress.advance(1, finished_pair="a vs b: pair 1 of 2")
    progress.close()
    assert stream.getvalue() == ("a vs b: pair 1 of 2 done (2/4 games  2.0/min  ETA 1:00)  "
                                 "| b +120  a +0\n")
