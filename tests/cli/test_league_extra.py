"""`arena league serve` without the league extra says so in one line (issue 48, item 6)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def serve_without(module: str) -> subprocess.CompletedProcess[str]:
    """`arena league serve` in a process where `module` cannot be imported."""
    script = (f"import sys; sys.modules[{module!r}] = None\n"
              "from arena.cli.main import main\n"
              "main(['league', 'serve', 'tournaments/league.toml'])\n")
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)


def test_serve_without_uvicorn_names_the_extra_in_one_line() -> None:
    result = serve_without("uvicorn")
    assert result.returncode == 1, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "uvicorn, of the league extra: make league" in lines[0]
    assert "Traceback" not in result.stderr


def test_serve_names_each_missing_module_of_the_extra() -> None:
    result = serve_without("msgspec")
    assert result.returncode == 1 and "needs msgspec, of the league extra" in result.stderr
