"""`arena new-bot`: each language's template passes check-bot as created."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from arena.botkit.check import check_bot
from arena.cli.main import main
from arena.referee.manifest import load_manifest
from arena.botkit.scaffold import LANGUAGES
from tests.bots.conftest import need
from tests.processes import bot_processes as processes_in


@pytest.mark.timeout(120)
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_new_bot_passes_check_bot_as_created(language: str, tmp_path) -> None:
    need(language)
    result = CliRunner().invoke(main, ["new-bot", f"my-{language}-bot", "--lang", language,
                                       "--dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    folder = tmp_path / f"my-{language}-bot"
    assert load_manifest(folder).name == f"my-{language}-bot"
    report = check_bot(folder, games=1, target=200)
    assert report.ok, "\n".join(report.lines())
    assert not processes_in(folder)


@pytest.mark.timeout(30)
def test_new_bot_refuses_an_existing_folder_and_a_bad_name(tmp_path) -> None:
    runner = CliRunner()
    assert runner.invoke(main, ["new-bot", "x", "--dir", str(tmp_path)]).exit_code == 0
    again = runner.invoke(main, ["new-bot", "x", "--dir", str(tmp_path)])
    bad = runner.invoke(main, ["new-bot", "no/slash", "--dir", str(tmp_path)])
    assert again.exit_code == 2 and "already exists" in again.output
    assert bad.exit_code == 2 and "bot name" in bad.output
