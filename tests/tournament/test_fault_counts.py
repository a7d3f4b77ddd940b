"""Failures are counted against every entrant whose bot failed, voided games included."""

from __future__ import annotations

import json

from click.testing import CliRunner

from arena.cli.main import main
from arena.tournament.store import Store
from tests.tournament.conftest import copy_bot, write_config


def _dud(folder, name: str):
    """A bot that exits before its hello."""
    folder.mkdir()
    (folder / "bot.py").write_text("import sys\nsys.exit(3)\n")
    (folder / "bot.toml").write_text(f'name = "{name}"\nversion = "1"\nlanguage = "python"\n'
                                     'command = ["python", "bot.py"]\n')


def test_a_game_where_both_teams_fail_is_void_and_counted_against_both(tmp_path):
    copy_bot("random", tmp_path / "random")
    _dud(tmp_path / "dud", "dud")
    _dud(tmp_path / "flop", "flop")
    config = write_config(tmp_path, ["random", "dud", "flop"], games=2, target=100)
    result = CliRunner().invoke(main, ["tournament", str(config), "-j", "1", "--no-standings"])
    assert result.exit_code == 0, result.output

    standings = CliRunner().invoke(main, ["standings", str(config), "--format", "json"])
    assert standings.exit_code == 0, standings.output
    rows = {r["name"]: r for r in json.loads(standings.output)["standings"]["standings"]}
    for name in ("dud", "flop"):
        # two games forfeited to random, two void against each other
        assert rows[name]["forfeits"]["start_failure"] == 2, rows[name]
        assert (rows[name]["void_games"], rows[name]["harness_voided"]) == (2, 0)
    with Store(tmp_path / "t.sqlite", create=False) as store:
        failures = {key.split("@")[0]: kinds for key, kinds in store.failures().items()}
    assert failures == {"dud": {"start_failure": 4}, "flop": {"start_failure": 4}}

    terminal = CliRunner().invoke(main, ["standings", str(config)]).output
    columns = next(line for line in terminal.splitlines() if line.split()[:1] == ["Rank"])
    assert "Void" in columns and "Harness faults" not in columns  # no harness fault here
