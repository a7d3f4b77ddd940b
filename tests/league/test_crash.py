"""kill -9 of the whole league (server, workers, bots) during games and just after an upload
was acknowledged, then the same command again: the acknowledged upload is taken in and
plays, every finished game is stored once with its record, the games go on."""

from __future__ import annotations

import signal
import sqlite3
from pathlib import Path

import pytest

from tests.league.conftest import League, bot_copy, free_port, wait_for, write_config


def counts(folder: Path) -> tuple[int, list[tuple[str, int]], list[str]]:
    with sqlite3.connect(folder / "league.sqlite") as db:
        stored = db.execute("SELECT count(*) FROM games").fetchone()[0]
        pairs = db.execute("SELECT pair_id, count(*) FROM games GROUP BY pair_id").fetchall()
        records = [r[0] for r in db.execute("SELECT record FROM games")]
    return stored, pairs, records


@pytest.mark.slow
def test_kill_9_mid_games_and_mid_upload_loses_and_doubles_nothing(tmp_path: Path):
    league = League(tmp_path, write_config(tmp_path), free_port())
    league.start()
    try:
        token = league.invite("alice")
        wait_for("some games", lambda: league.get("/api/standings")["games"] >= 6)
        result = league.upload(bot_copy(tmp_path / "alice-bot", "alice-bot"), token,
                               "--no-follow")
        assert result.returncode == 0, result.stderr
        upload = int(result.stdout.split()[1])
        league.stop(signal.SIGKILL)  # acknowledged, not yet taken in (or mid-intake)
        before, pairs, records = counts(tmp_path)
        assert before >= 6 and all(n <= 2 for _, n in pairs)

        league.start()
        status = wait_for("the upload taken in after the restart", lambda: (
            (s := league.get(f"/api/uploads/{upload}")["status"]) in ("active", "failed")
            and s))
        assert status == "active", league.get(f"/api/uploads/{upload}")
        wait_for("alice-bot playing", lambda: league.standings().get("alice-bot", {})
                 .get("games"))
        league.stop(signal.SIGKILL)
        after, pairs, records = counts(tmp_path)
    finally:
        if league.process is not None:
            league.stop(signal.SIGKILL)
    assert after > before
    assert all(n <= 2 for _, n in pairs)
    assert len(records) == len(set(records)) == after
    assert all((tmp_path / r).is_file() for r in records)
    league.start()  # and once more: the half-stored pairs of the last kill are completed
    try:
        wait_for("more games", lambda: league.get("/api/standings")["games"] > after)
    finally:
        assert league.stop() == 0
    final, pairs, records = counts(tmp_path)
    assert all(n <= 2 for _, n in pairs) and len(set(records)) == final
