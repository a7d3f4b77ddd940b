"""`arena league serve --cluster ADDRESS`: the league's games played on a real Dask cluster (a
scheduler and a worker, each a process of its own, as an organizer starts them), stored by
the server as its own: the worker builds the bots in its own cache, the server starts no
game worker of its own, and every game is stored once with its record."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.intake import CACHE_VAR
from tests.league.conftest import ROOT, League, database, free_port, wait_for, write_config
from tests.requirements import need_module
from tests.tournament.conftest import children, reap

pytestmark = [pytest.mark.slow, pytest.mark.timeout(400)]


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A Dask scheduler and one worker (one thread), each a process; their address and the
    worker's bot cache (it takes the bots in there, as on a machine of its own)."""
    need_module("distributed")
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    cache = tmp_path / "worker-cache"
    env = {**os.environ, CACHE_VAR: str(cache)}
    dask = [sys.executable, "-m", "dask"]
    scheduler = subprocess.Popen([*dask, "scheduler", "--host", "127.0.0.1", "--port",
                                  str(port), "--no-dashboard"], cwd=ROOT, env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    worker = subprocess.Popen([*dask, "worker", address, "--nworkers", "1", "--nthreads",
                               "1", "--no-dashboard"], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield address, cache
    finally:
        reap(worker, scheduler)


def test_a_league_served_with_cluster_plays_and_stores_its_games_on_the_dask_workers(
        tmp_path: Path, cluster: tuple[str, Path], monkeypatch: pytest.MonkeyPatch):
    address, worker_cache = cluster
    monkeypatch.setenv(CACHE_VAR, str(tmp_path / "server-cache"))  # the server's own
    league = League(tmp_path, write_config(tmp_path), free_port(),
                    options=("--cluster", address))
    league.start()
    try:
        wait_for("games played on the cluster",
                 lambda: league.get("/api/standings")["games"] >= 6)
        assert league.process is not None
        # the games were played over there: the server runs its standings process, and no
        # game worker (those of a local league are multiprocessing's)
        for child in children(league.process.pid):
            with open(f"/proc/{child}/cmdline", "rb") as cmdline:
                assert b"spawn_main" not in cmdline.read()
        rows = {r["name"]: r for r in league.get("/api/standings")["standings"]}
        assert rows["random"]["games"] > 0 and rows["heuristic"]["games"] > 0
    finally:
        code = league.stop()
    assert code == 0, league.log()
    assert f"on the cluster at {address}" in league.log()
    assert any((worker_cache / "snapshots").iterdir()), "the worker took no bot in"
    with database(tmp_path / "league.sqlite") as db:
        stored = db.execute("SELECT count(*) FROM games").fetchone()[0]
        pairs = db.execute("SELECT pair_id, count(*) FROM games GROUP BY pair_id").fetchall()
        records = [r[0] for r in db.execute("SELECT record FROM games")]
    assert stored >= 6 and all(n <= 2 for _, n in pairs)
    assert len(set(records)) == stored and all((tmp_path / r).is_file() for r in records)
