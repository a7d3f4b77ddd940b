"""`arena report` on stores of synthetic games: mid-tournament, isolation levels, --watch."""

from __future__ import annotations

import gzip
import json
import signal
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from arena.cli.main import main
from arena.presentation.bench import fill_store
from arena.tournament.store import Store

pytestmark = pytest.mark.timeout(120)

KEYS = ["random@r1", "eager@e1", "late@l1"]


def report(*args: str) -> str:
    result = CliRunner().invoke(main, ["report", *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_a_tournament_in_progress_is_reported_with_what_is_missing(tmp_path):
    # The anchor is registered but has not played yet, and "late" has no games at all.
    store = tmp_path / "t.sqlite"
    fill_store(store, ["eager@e1", "other@o1", "random@r1", "late@l1"], 1,
               strong={"eager@e1"}, skip={"random@r1", "late@l1"}, anchor="random")
    out = tmp_path / "site"
    assert "2 games" in report(str(store), "-o", str(out))
    index = (out / "index.html").read_text()
    assert "Not anchored: the anchor random has no rated games yet" in index
    assert "No rated games yet: late, random" in index
    assert (out / "entrants" / "late@l1.html").is_file()
    assert "No rated games yet." in (out / "entrants" / "random@r1.html").read_text()
    assert index.count('href="./replay.html#') == 0  # games are listed on games.html
    games = (out / "games.html").read_text()
    assert games.count('href="./replay.html#') == 2
    with Store(store) as s:  # each listed by its place, the whole id in the link's title
        for game in s.games():
            assert f'title="{game.game_id}">#{game.pair_index}.{game.game_index}</a>' in games
    assert len(list((out / "games").glob("*.js"))) == 2


def test_the_isolation_level_is_read_from_the_records(tmp_path):
    store = tmp_path / "t.sqlite"
    fill_store(store, KEYS[:2], 1)
    with Store(store) as s:
        for k, game in enumerate(s.games()):
            path = s.record_path(game.record)
            data = json.loads(gzip.decompress(path.read_bytes()))
            data["isolation"] = {"level": "bwrap"} if k == 0 else "none"
            path.write_bytes(gzip.compress(json.dumps(data).encode()))
    out = tmp_path / "site"
    report(str(store), "-o", str(out))
    index = (out / "index.html").read_text()
    assert "bwrap (1 games); none (1 games)" in index


def wait_until(check, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.2)


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_watch_refreshes_the_report_as_games_arrive(tmp_path, stop):
    store = tmp_path / "t.sqlite"
    fill_store(store, KEYS, 1, skip={"late@l1"})
    out = tmp_path / "site"
    index = out / "index.html"
    proc = subprocess.Popen([sys.executable, "-m", "arena.cli", "report", str(store), "-o",
                             str(out), "--watch", "--interval", "0.5"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_until(lambda: index.is_file() and "2 stored" in index.read_text())
        assert 'http-equiv="refresh"' in index.read_text()
        fill_store(store, KEYS, 1)  # late's matchups arrive while the report is watched
        wait_until(lambda: "6 stored" in index.read_text())
        assert len(list((out / "games").glob("*.js"))) == 6
    finally:
        proc.send_signal(stop)
        stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr
    assert "Aborted" not in stderr
    assert "Watching" in stderr and "6 games" in stdout
    assert 'http-equiv="refresh"' not in index.read_text()  # the last build stops reloading


def test_report_of_a_missing_store_fails_clearly(tmp_path):
    result = CliRunner().invoke(main, ["report", str(tmp_path / "none.sqlite")])
    assert result.exit_code == 2 and "no tournament store" in result.output


def test_results_are_read_with_an_entrant_folder_gone(tmp_path):
    """A config naming a bot folder deleted since its games were played still gives its
    standings and report (reading results never opens a bot folder); playing refuses."""
    config = tmp_path / "t.toml"
    config.write_text('[tournament]\nentrants = ["bots/random", "bots/gone"]\n'
                      'storage = "t.sqlite"\n[ratings]\nanchor = "random"\n')
    games = fill_store(tmp_path / "t.sqlite", KEYS, 1)
    shown = CliRunner().invoke(main, ["standings", str(config)])
    assert shown.exit_code == 0, shown.output
    assert "eager" in shown.output and "late" in shown.output
    assert f"{games} games" in report(str(config), "-o", str(tmp_path / "site"))
    played = CliRunner().invoke(main, ["tournament", str(config)])
    assert played.exit_code == 2 and "not a bot folder (no such directory)" in played.output
