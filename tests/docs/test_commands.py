"""Every `arena` command in the docs' shell blocks is one the CLI takes: its command exists
and its options are known (click parses them, then `--help` stops it before it runs).
The tutorial's commands are run whole, by tests/docs/test_tutorial.py."""

from __future__ import annotations

import shlex

import pytest
from click.testing import CliRunner

from arena.cli.main import main
from tests.docs.pages import PAGES, ROOT, blocks, commands

PREFIX = ".venv/bin/arena "
LINES = [(page, line) for page in PAGES for kind, text in blocks(page) if kind == "sh"
         for line in commands(text) if line.startswith(PREFIX)]


def test_the_docs_show_arena_commands():
    assert len(LINES) >= 20


@pytest.mark.parametrize(("page", "line"), LINES,
                         ids=[f"{p.relative_to(ROOT)}:{line}" for p, line in LINES])
def test_the_cli_takes_the_command(page, line: str):
    args = shlex.split(line.removeprefix(PREFIX))
    result = CliRunner().invoke(main, [*args, "--help"])
    assert result.exit_code == 0, f"{page.relative_to(ROOT)}: {line}\n{result.output}"


def test_an_unknown_command_or_option_is_refused():
    for args in (["play", "a", "b", "--no-such-option"], ["no-such-command"]):
        assert CliRunner().invoke(main, [*args, "--help"]).exit_code == 2, args
