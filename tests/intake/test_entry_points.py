"""Every way in goes through intake: `arena play` and `check-bot` take archives as folders,
and a folder intake refuses is refused by `play`, `check-bot`, `submit` and `tournament`
alike, with the path inside the bot named, nothing left in the cache and the folder as it
was."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import main
from arena.intake import CACHE_VAR
from tests.intake import fingerprint, tar_of, zip_of
from tests.tournament.conftest import copy_bot, game_rows, write_config

pytestmark = pytest.mark.timeout(180)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache of this test's own, to see what intake left in it."""
    folder = tmp_path / "cache"
    monkeypatch.setenv(CACHE_VAR, str(folder))
    return folder


def escaping(folder: Path) -> Path:
    """A copy of the random bot with a link to a secret outside its folder."""
    bot = copy_bot("random", folder, name="linked")
    secret = folder.parent / "store.sqlite"
    secret.write_text("the deal secret")
    (bot / "notes.txt").symlink_to(secret)
    return bot


def left_in(cache: Path) -> list[str]:
    """What intake left in its folders (snapshots and builds, scratch included)."""
    return sorted(p.name for where in ("snapshots", "builds") if (cache / where).is_dir()
                  for p in (cache / where).iterdir())


def test_arena_play_takes_a_tar_gz_and_a_zip_of_a_bot_as_its_folder(tmp_path, cache):
    bot = copy_bot("random", tmp_path / "random")
    packed = tar_of(bot, tmp_path / "random.tar.gz")
    other = zip_of(copy_bot("heuristic", tmp_path / "heuristic"), tmp_path / "heuristic.zip")
    result = CliRunner().invoke(main, ["play", str(packed), str(other), "--target", "100"])
    assert result.exit_code == 0, result.output
    assert "Final score" in result.output
    assert len(left_in(cache)) == 2  # one snapshot each, nothing to build


def test_check_bot_takes_an_archive(tmp_path, cache):
    packed = tar_of(copy_bot("random", tmp_path / "random"), tmp_path / "random.tgz")
    result = CliRunner().invoke(main, ["check-bot", str(packed), "--games", "0"])
    assert result.exit_code == 0, result.output
    assert "PASS  build" in result.output and "FAIL" not in result.output


@pytest.mark.parametrize("command", ["play", "check-bot", "submit"])
def test_a_folder_intake_refuses_is_a_usage_error_naming_the_path(tmp_path, cache, command):
    bot = escaping(tmp_path / "bot")
    before = fingerprint(bot)
    args = {"play": ["play", str(bot), str(copy_bot("random", tmp_path / "random"))],
            "check-bot": ["check-bot", str(bot)],
            "submit": ["submit", str(bot), "--tournament",
                       str(write_config(tmp_path, ["random"]))]}[command]
    result = CliRunner().invoke(main, args)
    assert result.exit_code in (1, 2), result.output
    assert f"{bot}/notes.txt" in result.output and "leaves the folder" in result.output
    assert "Traceback" not in result.output
    assert fingerprint(bot) == before
    assert not any(name.startswith(".") for name in left_in(cache))  # no scratch left


def test_a_tournament_refuses_a_bot_intake_refuses_or_leaves_it_out(tmp_path, cache):
    copy_bot("random", tmp_path / "random")
    copy_bot("heuristic", tmp_path / "heuristic")
    fifo = copy_bot("random", tmp_path / "piped", name="piped")
    os.mkfifo(fifo / "pipe")
    config = write_config(tmp_path, ["random", "heuristic", "piped"], games=2, target=100)
    refused = CliRunner().invoke(main, ["tournament", str(config)])
    assert refused.exit_code == 1, refused.output
    assert "1 entrant(s) cannot be built" in refused.output
    assert f"{fifo}/pipe: is a FIFO" in refused.output
    assert game_rows(tmp_path / "t.sqlite") == []
    played = CliRunner().invoke(main, ["tournament", str(config), "--skip-unbuildable",
                                       "--no-standings"])
    assert played.exit_code == 0, played.output
    assert any(line.startswith("piped left out:") and "is a FIFO" in line
               for line in played.output.splitlines()), played.output
    assert len(game_rows(tmp_path / "t.sqlite")) == 2


def test_a_run_plays_the_snapshot_not_the_folder_as_it_changes(tmp_path, cache):
    """The bot runs from intake's copy: its author's folder is only read at intake."""
    bot = copy_bot("random", tmp_path / "random")
    copy_bot("heuristic", tmp_path / "heuristic")
    config = write_config(tmp_path, ["random", "heuristic"], games=2, target=100)
    result = CliRunner().invoke(main, ["tournament", str(config), "--no-standings"])
    assert result.exit_code == 0, result.output
    records = list((tmp_path / "t.sqlite.records").rglob("*.json.gz"))
    assert records and not (bot / "__pycache__").exists() and not (bot / "build").exists()
    shutil.rmtree(bot)  # the results never need the folder again
    standings = CliRunner().invoke(main, ["standings", str(tmp_path / "t.sqlite")])
    assert standings.exit_code == 0, standings.output
