"""`arena bench transport` runs its three measurements in both placements and prints them."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.placement import usable_cpus

pytestmark = pytest.mark.timeout(180)


def test_bench_transport_prints_a_b_and_c_for_each_placement():
    result = CliRunner().invoke(main, ["bench", "transport", "-n", "1", "--round-trips", "50"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "CPUs shared" in out
    assert ("one CPU (pinned)" in out) == bool(usable_cpus())
    columns = 2 if usable_cpus() else 1
    assert len(re.findall(r"\d+ us \(p90 \d+\)", out)) == 3 * columns  # (a), (a) bytes, (b)
    assert len(re.findall(r"= \d+\.\d\dx \(a\)", out)) == columns
    assert len(re.findall(r"\d+\.\d\d \(1 games\)", out)) == columns
    asked = [int(a) for a in re.findall(r"\d+ \((\d+)\)\s", out + " ")]
    assert len(asked) == columns and all(a > 100 for a in asked)


def test_bench_transport_refuses_zero_games():
    result = CliRunner().invoke(main, ["bench", "transport", "-n", "0"])
    assert result.exit_code == 2 and "--games" in result.output
