"""Real tournaments end to end: real bot processes, a real SQLite file; resume after SIGKILL
and Ctrl-C without losing or double-counting a game; submit adds an entrant."""

from __future__ import annotations

import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import main
from arena.tournament.records import read_record
from tests.processes import bot_processes
from tests.tournament.conftest import ROOT, copy_bot, game_rows, write_config

pytestmark = pytest.mark.timeout(120)


def run(config: Path, *args: str):
    result = CliRunner().invoke(main, ["tournament", str(config), *args])
    return result


def assert_complete(config: Path, games: int) -> list[tuple]:
    """Every scheduled game stored once, each pair on one seed with seats swapped, and every
    record file matching its row."""
    rows = game_rows(config.parent / "t.sqlite")
    assert len(rows) == games and len({r[0] for r in rows}) == games
    pairs: dict[str, list[tuple]] = {}
    for row in rows:
        pairs.setdefault(row[1], []).append(row)
        record = read_record(config.parent / row[9])
        assert record.game_id == row[0] and tuple(record.scores) == (row[4], row[5])
        assert (record.entrants[0].name, record.entrants[1].name) == (
            row[2].split("@")[0], row[3].split("@")[0])
    for first, second in pairs.values():
        assert (first[2], first[3]) == (second[3], second[2])
        assert read_record(config.parent / first[9]).seed == read_record(
            config.parent / second[9]).seed
    return rows


def no_bots_left(*folders: Path, wait: float = 10.0) -> bool:
    deadline = time.monotonic() + wait
    while any(bot_processes(f) for f in folders):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def test_a_small_tournament_runs_stores_and_ranks_then_resumes_with_nothing_to_do(
        tmp_path, two_bots):
    config = write_config(tmp_path, ["random", "heuristic"], games=4, target=200)
    result = run(config, "-j", "1")  # one worker: its bots play both pairs (half the CPU of two)
    assert result.exit_code == 0, result.output
    assert "4 games played" in result.output and "0 scheduled games missing" in result.output
    assert "Rank" in result.output and "heuristic" in result.output
    # not a terminal: a line per finished pair
    assert len(re.findall(r"^heuristic vs random: pair [12] of 2 done \(\d/4 games", result.output,
                          re.MULTILINE)) == 2
    rows = assert_complete(config, 4)
    assert all(r[8] == "normal" for r in rows)
    with sqlite3.connect(tmp_path / "t.sqlite") as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        versions = dict(db.execute("SELECT name, version FROM entrants"))
    assert len(versions["random"]) == 16  # the folder's content hash
    assert (tmp_path / "t.sqlite.records" / ".gitignore").is_file()
    again = run(config)
    assert again.exit_code == 0 and "0 games played" in again.output
    assert game_rows(tmp_path / "t.sqlite") == rows
    assert no_bots_left(*two_bots, wait=2.0)


def test_submit_adds_an_entrant_and_the_next_run_plays_only_its_matchups(tmp_path, two_bots):
    config = write_config(tmp_path, ["random", "heuristic"], games=2, target=200)
    assert run(config, "-j", "1").exit_code == 0
    before = game_rows(tmp_path / "t.sqlite")
    newcomer = copy_bot("random", tmp_path / "newcomer", name="newcomer")
    result = CliRunner().invoke(main, ["submit", str(newcomer), "--tournament", str(config)])
    assert result.exit_code == 0, result.output
    assert "newcomer version" in result.output and "added" in result.output
    again = CliRunner().invoke(main, ["submit", str(newcomer), "--tournament", str(config)])
    assert "already entered" in again.output
    result = run(config, "-j", "1")
    assert result.exit_code == 0, result.output
    assert "4 games played" in result.output  # two new matchups of one pair each
    rows = assert_complete(config, 6)
    assert set(before) <= set(rows)
    assert sum("newcomer@" in r[1] for r in rows) == 4
    assert "newcomer" in result.output  # in the standings


def test_a_new_version_of_a_bot_is_a_new_entrant_and_the_old_one_is_kept(tmp_path, two_bots):
    config = write_config(tmp_path, ["random", "heuristic"], games=2, target=200)
    assert run(config, "-j", "1").exit_code == 0
    (two_bots[1] / "README.md").write_text("changed\n")
    result = run(config, "-j", "1")
    assert result.exit_code == 0 and "2 games played" in result.output
    assert "heuristic: the folder changed since version " in result.output
    assert "plays its matchups anew" in result.output
    assert "its bot.toml still says version 1.0.0" in result.output
    assert "(retired)" not in result.output  # one row per bot: its current version
    def rows(output: str) -> list[str]:
        return [line for line in output.splitlines()
                if re.match(r"\s*=?\d+\s+heuristic\s+1\.0\.0 [0-9a-f]{8}", line)]

    versions = CliRunner().invoke(main, ["standings", str(config), "--all-versions"])
    assert len(rows(versions.output)) == 2 and "(retired)" in versions.output
    current = CliRunner().invoke(main, ["standings", str(config)])
    assert len(rows(current.output)) == 1 and "(retired)" not in current.output


def test_submit_refuses_a_name_taken_by_another_folder(tmp_path, two_bots):
    config = write_config(tmp_path, ["random", "heuristic"])
    clash = copy_bot("random", tmp_path / "clash")
    result = CliRunner().invoke(main, ["submit", str(clash), "--tournament", str(config)])
    assert result.exit_code == 2 and "'random' is also the name" in result.output
    with sqlite3.connect(tmp_path / "t.sqlite") as db:
        assert db.execute("SELECT count(*) FROM submissions").fetchone()[0] == 0


def _start(config: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "arena.cli.main", "tournament", str(config),
                             "-j", "2"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _wait_for_games(db: Path, count: int, proc: subprocess.Popen, limit: float = 60.0) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        if db.exists():
            try:
                with sqlite3.connect(db, timeout=5) as conn:
                    if conn.execute("SELECT count(*) FROM games").fetchone()[0] >= count:
                        return
            except sqlite3.OperationalError:
                pass
        time.sleep(0.05)
    raise AssertionError("the tournament stored too few games in time")


def test_sigkill_in_the_middle_then_resume_keeps_every_game_once(tmp_path, two_bots):
    config = write_config(tmp_path, ["random", "heuristic"], games=8, target=200)
    db = tmp_path / "t.sqlite"
    proc = _start(config)
    _wait_for_games(db, 3, proc)
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    assert no_bots_left(*two_bots), "bot processes outlived the killed runner"
    stored = game_rows(db)
    assert 3 <= len(stored) < 8
    # a record file has its final name only once its game is committed
    finals = {str(p.relative_to(tmp_path)) for p in (tmp_path / "t.sqlite.records").rglob("*.gz")}
    assert finals <= {row[9] for row in stored}
    result = run(config, "-j", "1")  # the resume's worker count is not what is tested
    assert result.exit_code == 0, result.output
    assert f"{8 - len(stored)} games played" in result.output
    rows = assert_complete(config, 8)
    assert set(stored) <= set(rows)  # finished games intact, not replayed
    assert not list((tmp_path / "t.sqlite.records").rglob("*.pending"))


def test_ctrl_c_stops_cleanly_says_how_to_resume_and_resume_completes(tmp_path, two_bots):
    config = write_config(tmp_path, ["random", "heuristic"], games=8, target=200)
    db = tmp_path / "t.sqlite"
    proc = _start(config)
    _wait_for_games(db, 2, proc)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, (out, err)
    assert "run the same command again to resume" in err
    assert "Traceback" not in err
    assert no_bots_left(*two_bots, wait=2.0)
    stored = game_rows(db)
    played = re.search(r"interrupted: (\d+) games played in this run, (\d+) stored", err)
    assert played and int(played[1]) == int(played[2]) == len(stored), err
    result = run(config, "-j", "1")
    assert result.exit_code == 0, result.output
    rows = assert_complete(config, 8)
    assert set(stored) <= set(rows)


def test_sprt_can_play_pairs_into_the_store(tmp_path, two_bots):
    config = write_config(tmp_path, ["random", "heuristic"], games=2, target=200)
    result = CliRunner().invoke(main, ["sprt", "heuristic", "random", "--tournament",
                                       str(config), "--play", "--max-pairs", "3", "-j", "1",
                                       "--elo1", "400", "--format", "json"])
    assert result.exit_code in (0, 3), result.output
    rows = game_rows(tmp_path / "t.sqlite")
    assert 2 <= len(rows) <= 6 and len(rows) % 2 == 0
    assert all(int(r[1].split("#")[1]) >= 1 for r in rows)  # past the round robin's pair 0
    assert run(config, "-j", "1").exit_code == 0
    assert_complete(config, len(rows) + 2)


def test_a_submitted_bot_is_withdrawn_and_brought_back(tmp_path, two_bots):
    config = write_config(tmp_path, ["random", "heuristic"], games=2, target=200)
    newcomer = copy_bot("random", tmp_path / "newcomer", name="newcomer")
    assert CliRunner().invoke(main, ["submit", str(newcomer), "--tournament",
                                     str(config)]).exit_code == 0
    assert run(config, "-j", "1").exit_code == 0
    cli = CliRunner()
    listed = cli.invoke(main, ["withdraw", "heuristic", "--tournament", str(config)])
    assert listed.exit_code == 2 and "remove its folder from the list" in listed.output
    out = cli.invoke(main, ["withdraw", "newcomer", "--tournament", str(config)])
    assert out.exit_code == 0 and "newcomer withdrawn" in out.output, out.output
    assert "newcomer" not in cli.invoke(main, ["standings", str(config)]).output
    again = run(config, "-j", "1")
    assert "0 games played" in again.output and "newcomer" not in again.output
    stored = len(game_rows(tmp_path / "t.sqlite"))
    assert stored == 6  # its games are kept
    back = cli.invoke(main, ["withdraw", "newcomer", "--tournament", str(config), "--undo"])
    assert back.exit_code == 0 and "newcomer is back" in back.output
    assert "newcomer" in cli.invoke(main, ["standings", str(config)]).output
    assert "0 games played" in run(config, "-j", "1").output  # nothing was missing
