"""The documentation site builds strictly (a broken link, a missing page or any warning
fails it), and its generated pages hold what the code has: every command, every route of
the API, the included files."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs.exits import commands
from tests.docs.pages import ROOT
from tests.requirements import need_module

DOCS_EXTRA = "pip install -e '.[docs]' (`make test` does) installs it"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built as `make docs` builds it, into a folder of its own."""
    need_module("mkdocs", DOCS_EXTRA)
    need_module("material", DOCS_EXTRA)
    out = tmp_path_factory.mktemp("site")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f",
                             "docs/mkdocs.yml", "-d", str(out)], cwd=ROOT, capture_output=True,
                            text=True, timeout=240,
                            env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert result.returncode == 0, result.stderr[-5000:]
    assert "WARNING" not in result.stderr, result.stderr[-5000:]
    return out


def page(site: Path, name: str) -> str:
    return (site / name / "index.html").read_text()


def test_the_site_builds_strictly(site: Path):
    assert (site / "index.html").is_file()
    assert (site / "tutorial" / "index.html").is_file()


def test_the_cli_reference_has_every_command(site: Path):
    text = page(site, "reference/cli")
    for name in commands():
        assert name in text, name


def test_the_api_reference_has_every_route_of_the_schema(site: Path):
    from arena.league.openapi import SCHEMA

    text = page(site, "reference/api")
    for path in SCHEMA["paths"]:
        assert f"<code>{path}</code>" in text, path
    for model in SCHEMA["components"]["schemas"]:
        assert f">{model}<" in text, model


def test_the_included_files_are_in_their_pages(site: Path):
    assert "The Tichu Arena bot protocol, version 1" in page(site, "reference/protocol")
    assert "the rule book of Tichu Arena" in page(site, "reference/rules")
    templates = page(site, "reference/templates")
    for folder in sorted((ROOT / "arena" / "botkit" / "templates").iterdir()):
        assert f"arena/botkit/templates/{folder.name}/" not in templates  # included, not named
    assert "def" in templates and "decide" in templates
