"""Building entrants: a bot that cannot be built (its C or Java does not compile) stops a run
naming every such bot, or is left out when asked, saying why and what to install; a build
that rewrites a file of its folder keeps the bot's version; `arena play` says it builds and
shows a failed build's output as text."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import main
from arena.intake import CACHE_VAR
from arena.tournament.config import load_config
from tests.pace import play_options
from tests.tournament.conftest import ROOT, game_rows, write_config

pytestmark = pytest.mark.timeout(180)


def bundled(name: str, dest: Path) -> Path:
    """A copy of a bundled bot without anything built."""
    shutil.copytree(ROOT / "bots" / name, dest,
                    ignore=shutil.ignore_patterns("__pycache__", "build", "node_modules"))
    return dest


def test_unbuildable_entrants_stop_the_run_all_named_or_are_left_out_when_asked(
        tmp_path, two_bots):
    c_bot = bundled("c-random", tmp_path / "c-random")  # each with a source that cannot
    (c_bot / "decide.c").write_text("#error this C does not compile\n")  # compile
    java = bundled("java-random", tmp_path / "java-random")
    for source in java.rglob("*.java"):
        source.write_text("this Java does not compile\n")
    config = write_config(tmp_path, ["random", "c-random", "heuristic", "java-random"],
                          games=2, target=100)
    refused = CliRunner().invoke(main, ["tournament", str(config)])
    assert refused.exit_code == 1, refused.output
    out = refused.output
    assert "2 entrant(s) cannot be built, so the tournament does not start" in out
    assert "c-random (" in out and "`make --silent` failed (exit code 2)" in out
    assert "install a C compiler" in out and "this C does not compile" in out  # as text
    assert "java-random (" in out and "`sh build.sh` failed" in out and "install a JDK" in out
    assert "--skip-unbuildable" in out and "\\n" not in out
    assert game_rows(tmp_path / "t.sqlite") == []

    played = CliRunner().invoke(main, ["tournament", str(config), "--skip-unbuildable"])
    assert played.exit_code == 0, played.output
    lines = played.output.splitlines()
    assert any(line.startswith("c-random left out: its build `make --silent` failed")
               and "install a C compiler" in line for line in lines)
    assert any(line.startswith("java-random left out:") and "install a JDK" in line
               for line in lines)
    rows = game_rows(tmp_path / "t.sqlite")
    assert len(rows) == 2 and all("c-random" not in r[1] and "java-" not in r[1] for r in rows)
    standings = CliRunner().invoke(main, ["standings", str(config)]).output
    assert "Left out of the last run: c-random (its build `make --silent` failed" in standings
    assert "Left out of the last run: java-random" in standings


def test_the_demo_leaves_out_what_cannot_be_built():
    assert load_config(ROOT / "tournaments" / "demo.toml").skip_unbuildable


def test_a_build_that_rewrites_a_file_of_its_folder_keeps_the_version(tmp_path, two_bots):
    stamped = two_bots[0] / "bot.toml"
    stamped.write_text(stamped.read_text() + 'build = ["sh", "-c", "date +%s%N > stamp.lock"]\n')
    config = write_config(tmp_path, ["random", "heuristic"], games=2, target=100)
    for _ in range(2):
        result = CliRunner().invoke(main, ["tournament", str(config), "--no-standings"])
        assert result.exit_code == 0, result.output
    assert "0 games played" in result.output
    with sqlite3.connect(tmp_path / "t.sqlite") as db:
        versions = db.execute("SELECT version, retired FROM entrants WHERE name = 'random'")
        assert len(versions.fetchall()) == 1
    (two_bots[0] / "bot.py").write_text((two_bots[0] / "bot.py").read_text() + "\n")
    changed = CliRunner().invoke(main, ["tournament", str(config), "--no-standings"])
    assert "2 games played" in changed.output  # an edit of its code is a new version


def test_arena_play_says_it_builds_and_shows_a_failed_build_as_text(tmp_path, two_bots,
                                                                   monkeypatch):
    monkeypatch.setenv(CACHE_VAR, str(tmp_path / "cache"))  # nothing built before
    manifest = two_bots[0] / "bot.toml"
    text = manifest.read_text()
    manifest.write_text(text + 'build = ["sh", "-c", "echo compiling; echo oops: no such '
                               'header >&2; exit 3"]\n')
    failed = CliRunner().invoke(main, ["play", str(two_bots[0]), str(two_bots[1])])
    assert failed.exit_code == 1
    assert "building random (sh -c echo compiling;" in failed.output
    assert "failed (exit code 3)\n      compiling\n      oops: no such header\n" in failed.output
    manifest.write_text(text + 'build = ["sh", "-c", "echo built"]\n')
    played = CliRunner().invoke(main, ["play", str(two_bots[0]), str(two_bots[1]),
                                       "--target", "50", *play_options()])
    assert played.exit_code == 0, played.output
    lines = played.output.splitlines()
    assert lines[0].startswith("isolation: ")  # the level, and which guarantees hold
    assert lines[1].startswith("building random (sh -c echo built) at isolation ")
