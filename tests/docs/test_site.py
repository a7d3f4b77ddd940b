"""The documentation site builds strictly (a broken link, a missing page or any warning
fails it), and its generated pages hold what the code has: every command, every route of
the API, the included files."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.docs.exits import commands
from tests.docs.pages import ROOT
from tests.requirements import need_module

DOCS_EXTRA = "pip install -e '.[docs]' (`make test` does) installs it"


def build(out: Path) -> None:
    """The site, built as `make docs` builds it, into `out`."""
    need_module("mkdocs", DOCS_EXTRA)
    need_module("material", DOCS_EXTRA)
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f",
                             "docs/mkdocs.yml", "-d", str(out)], cwd=ROOT, capture_output=True,
                            text=True, timeout=240,
                            env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert result.returncode == 0, result.stderr[-5000:]
    assert "WARNING" not in result.stderr, result.stderr[-5000:]


def page(site: Path, name: str) -> str:
    return (site / name / "index.html").read_text()


def test_the_site_builds_strictly_and_holds_what_the_code_has(tmp_path: Path):
    """One test, so that the suite builds the site once (pytest-xdist would build it on each
    worker that ran a test of a shared fixture)."""
    from arena.league.openapi import SCHEMA

    build(tmp_path)
    assert (tmp_path / "tutorial" / "index.html").is_file()

    cli = page(tmp_path, "reference/cli")
    assert [name for name in commands() if name not in cli] == []

    api = page(tmp_path, "reference/api")
    assert [path for path in SCHEMA["paths"] if f"<code>{path}</code>" not in api] == []
    assert [m for m in SCHEMA["components"]["schemas"] if f">{m}<" not in api] == []

    assert "The Tichu Arena bot protocol, version 1" in page(tmp_path, "reference/protocol")
    assert "the rule book of Tichu Arena" in page(tmp_path, "reference/rules")
    templates = page(tmp_path, "reference/templates")
    assert "--8&lt;--" not in templates and "decide" in templates
