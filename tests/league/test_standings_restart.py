"""The standings across a restart, against a real server: the table the last run left is
served from the first answer of the next (marked as from before the restart), so the
leaderboard is never empty while the new server reads the stored games again; then its own
table replaces it."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import Any

from arena.league.standings import STALE_NOTE, load_snapshot
from tests.league.conftest import (
    ARENA,
    ROOT,
    WAIT,
    League,
    free_port,
    request,
    wait_for,
    write_config,
)

HOUSE = {"random", "heuristic"}


def test_a_restarted_server_serves_the_last_standings_at_once(tmp_path: Path):
    league = League(tmp_path, write_config(tmp_path), free_port())
    league.start()
    try:
        wait_for("both house bots rated", lambda: {
            name for name, row in league.standings().items() if row["rating"] is not None} >= HOUSE)
        assert not league.get("/api/standings")["stale"]
        assert league.stop() == 0

        kept = load_snapshot(tmp_path / "league.sqlite")  # the file the server will read
        assert kept is not None and kept.stale and {r["name"] for r in kept.rows} >= HOUSE
        assert STALE_NOTE in kept.notes and STALE_NOTE in kept.html

        first = first_answer(league)
        assert {row["name"] for row in first["standings"]} >= HOUSE, first
        assert first["version"] >= kept.version, (first, kept.version)
        if first["stale"]:  # (the usual case: this run's first table takes a while)
            assert first["notes"][0] == STALE_NOTE, first
        fresh = wait_for("this run's own table", lambda: (
            not (t := league.get("/api/standings"))["stale"] and t))
        assert fresh["version"] > kept.version and STALE_NOTE not in fresh["notes"], fresh
        assert {row["name"] for row in fresh["standings"]} >= HOUSE
        assert "standings-stale" not in league.get("/")
    finally:
        if league.process is not None:
            assert league.stop() == 0


def first_answer(league: League) -> dict[str, Any]:
    """Start the server and return the first table it answers with, asked for as soon as
    it listens (on another port if another process took its port meanwhile)."""
    for _ in range(5):
        size = len(league.log())
        with open(league.folder / "serve.log", "a") as log:
            league.process = subprocess.Popen(
                [*ARENA, "league", "serve", str(league.config), "--port", str(league.port),
                 "-j", "2"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=log, text=True,
                start_new_session=True)
        deadline = time.monotonic() + WAIT
        while league.process.poll() is None:
            assert time.monotonic() < deadline, league.log()
            try:
                status, body = request(league.url + "/api/standings")
            except OSError:  # not listening yet
                time.sleep(0.01)
                continue
            assert status == 200, (status, body)
            return dict(body)
        league.process = None
        assert "address already in use" in league.log()[size:], league.log()
        league.port = free_port()
    raise AssertionError(f"no free port in 5 tries: {league.log()}")
