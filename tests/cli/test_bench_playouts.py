"""`arena bench playouts` prints the search bot's playouts per second, and the engine's with
random players from the same positions."""

from __future__ import annotations

import re

from click.testing import CliRunner

from arena.cli.main import main


def test_bench_playouts_prints_playouts_per_second_of_each_policy():
    result = CliRunner().invoke(main, ["bench", "playouts", "-n", "1", "--repeat", "1"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    for line, label in zip(lines, ("rollout policy", "random players"), strict=False):
        found = re.match(rf"playouts per CPU second, {label}: +(\d+) +\((\d+\.\d) decisions per playout, "
                         r"(\d+\.\d) us per decision\)", line)
        assert found, result.output
        assert int(found[1]) > 0 and float(found[2]) >= 1.0
    assert re.match(r"positions: \d+ \(from random self-play\); Game.from_position: \d+\.\d us",
                    lines[2])


def test_bench_playouts_refuses_a_folder_that_is_not_the_search_bot(tmp_path):
    result = CliRunner().invoke(main, ["bench", "playouts", "--bot", str(tmp_path)])
    assert result.exit_code == 2
    assert "not the search bot's folder" in result.output
