"""The code passes the linter that pyproject.toml configures (ruff: pyflakes, bugbear, sorted
imports, pyupgrade, simplify), so that a slip is found by a tool, not by a reader."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing():
    ruff = Path(sys.executable).parent / "ruff"
    result = subprocess.run([str(ruff), "check", "--no-cache", "--output-format", "concise",
                             "arena", "protocol", "tests", "bots", "scripts"],
                            cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
