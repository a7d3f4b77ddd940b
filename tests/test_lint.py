"""The code passes the linter and the type checker that pyproject.toml configures (ruff:
pyflakes, bugbear, sorted imports, pyupgrade, simplify; mypy: strict for the rules, the
ratings and the protocol), so that a slip is found by a tool, not by a reader."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing():
    ruff = Path(sys.executable).parent / "ruff"
    result = subprocess.run([str(ruff), "check", "--no-cache", "--output-format", "concise",
                             "arena", "protocol", "tests", "bots", "scripts"],
                            cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


# A first run (no .mypy_cache in the checkout yet) takes half a minute of CPU, and more than
# two minutes on two busy cores; with the cache, seconds.
@pytest.mark.timeout(900)
def test_mypy_finds_nothing():
    mypy = Path(sys.executable).parent / "mypy"
    result = subprocess.run([str(mypy), "--config-file", "pyproject.toml"],
                            cwd=ROOT, capture_output=True, text=True, timeout=840)
    assert result.returncode == 0, result.stdout + result.stderr
