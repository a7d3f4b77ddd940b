"""The code passes the linter and the type checker that pyproject.toml configures (ruff:
pyflakes, bugbear, sorted imports, pyupgrade, simplify; mypy: strict for the rules, the
ratings and the protocol), so that a slip is found by a tool, not by a reader."""

from __future__ import annotations

import os
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


def mypy_cache() -> Path:
    """mypy's incremental cache, kept for the user ($XDG_CACHE_HOME/tichu-arena/mypy) rather
    than in the checkout, so that a fresh clone (CI's) starts from the last run's. mypy checks
    each module's cache entry against the source's hash, and its own version and options, so
    an entry from another checkout is used only where it still holds; it replaces a cache file
    by renaming a new one over it, so two runs at once do not mix their entries."""
    home = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return Path(home) / "tichu-arena" / "mypy"


# A first run (no cache yet) takes 12 to 30 s of CPU, and over two minutes on two busy cores;
# with the cache, under a second.
@pytest.mark.timeout(900)
def test_mypy_finds_nothing():
    mypy = Path(sys.executable).parent / "mypy"
    result = subprocess.run([str(mypy), "--config-file", "pyproject.toml", "--cache-dir",
                             str(mypy_cache())],
                            cwd=ROOT, capture_output=True, text=True, timeout=840)
    assert result.returncode == 0, result.stdout + result.stderr
