"""`arena sprt` for people: the estimate, the LLR's progress, the decision in words, and
progress lines while --play plays (real bot processes)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from arena.cli.main import main
from tests.tournament.conftest import copy_bot, write_config

pytestmark = pytest.mark.timeout(180)


def test_sprt_play_shows_progress_then_the_verdict(tmp_path):
    copy_bot("random", tmp_path / "random")
    copy_bot("heuristic", tmp_path / "heuristic")
    config = write_config(tmp_path, ["random", "heuristic"], games=2, target=200)
    result = CliRunner().invoke(main, ["sprt", "heuristic", "random", "--tournament",
                                       str(config), "--play", "--max-pairs", "3", "-j", "2",
                                       "--elo1", "400"])
    assert result.exit_code in (0, 3), result.output
    progress = [line for line in result.stderr.splitlines() if "games played" in line]
    assert progress, result.stderr
    assert progress[0].startswith("heuristic vs random: 0 games played")
    assert all("LLR" in line for line in progress)
    out = result.stdout
    for text in ("Elo difference", "LOS", "of the way to H1", "Decision"):
        assert text in out
    assert ("H1 accepted" in out or "H0 accepted" in out or "Not decided yet" in out)
