"""`arena bench engine` prints rounds/s first, and instructions per round under callgrind."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from arena.cli.main import main
from tests.requirements import need_programs


def test_bench_engine_prints_rounds_per_second_first():
    result = CliRunner().invoke(main, ["bench", "engine", "-n", "1"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert re.match(r"rounds/s: +\d+ +\(\d+\.\d rounds per game\)", lines[0])
    assert re.match(r"decisions/s: +\d+ +\(\d+ per round\)", lines[1])
    assert re.match(r"games/s: +\d+\.\d +\(1 games in", lines[2])


@pytest.mark.slow  # valgrind runs the engine at 50x: a benchmark, in `make test-slow`
@pytest.mark.timeout(900)  # a hang guard, not a bound: valgrind's pace follows the load
def test_compare_instructions_counts_the_games_net_of_start_up():
    need_programs("valgrind", what="valgrind (callgrind counts the instructions)")
    result = CliRunner().invoke(main, ["bench", "engine", "--compare-instructions", "-n", "1"])
    assert result.exit_code == 0, result.output
    per_round = re.search(r"instructions per round: +(\d+\.\d\d) M +\(1 games, (\d+) rounds",
                          result.output)
    per_decision = re.search(r"instructions per decision: +(\d+\.\d) k", result.output)
    assert per_round and per_decision, result.output
    # A round takes millions of instructions, a decision thousands: the start-up (hundreds of
    # millions) is subtracted, and the games are counted.
    assert 0.5 < float(per_round[1]) < 100 and int(per_round[2]) > 1
    assert 1 < float(per_decision[1]) < 1000


def test_compare_instructions_without_valgrind_says_what_to_install(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    result = CliRunner().invoke(main, ["bench", "engine", "--compare-instructions"])
    assert result.exit_code == 1
    assert "valgrind is not installed" in result.output
