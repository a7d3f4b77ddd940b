"""The tutorial (docs/tutorial.md) works as written: every command of its shell blocks runs,
in order, and exits 0.

The commands run in a folder of their own that looks like the project folder to them (its
`.venv` and `bots` are links to this checkout's). A TOML block whose first line is a comment
naming a file (`# my-cup.toml`) is saved as that file where it stands in the page. The
league is a real server started as tests/league does; the page's placeholders for it, the
address `https://league.example` and the token `TOKEN`, are replaced by its own.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.docs.pages import DOCS, ROOT, blocks, commands
from tests.league.conftest import served

TUTORIAL = DOCS / "tutorial.md"
PLACEHOLDER_URL = "https://league.example"
PLACEHOLDER_TOKEN = "TOKEN"


def test_the_page_has_the_steps_the_issue_asks_for():
    run = " ".join(" ".join(commands(text)) for kind, text in blocks(TUTORIAL) if kind == "sh")
    for command in ("new-bot", "check-bot", "play", "tournament", "upload"):
        assert f"arena {command} " in run, command


def test_every_command_of_the_tutorial_runs(tmp_path: Path):
    here = tmp_path / "project"
    here.mkdir()
    (here / ".venv").symlink_to(Path(sys.executable).parents[1])  # the tests' environment
    (here / "bots").symlink_to(ROOT / "bots")
    env = {**os.environ}
    (tmp_path / "league").mkdir()
    with served(tmp_path / "league") as league:
        token = league.invite("tutorial-author")
        for kind, text in blocks(TUTORIAL):
            first = text.splitlines()[0] if text else ""
            if kind == "toml" and re.fullmatch(r"# [\w.-]+\.toml", first):
                (here / first[2:]).write_text(text)
                continue
            if kind != "sh":
                continue
            for command in commands(text):
                command = command.replace(PLACEHOLDER_URL, league.url)
                if command.startswith("export "):
                    for pair in command.removeprefix("export ").split():
                        name, _, value = pair.partition("=")
                        env[name] = token if value == PLACEHOLDER_TOKEN else value
                    continue
                result = subprocess.run(["bash", "-c", command], cwd=here, env=env,
                                        capture_output=True, text=True, timeout=180)
                assert result.returncode == 0, (command, result.stdout[-3000:],
                                                result.stderr[-3000:])
