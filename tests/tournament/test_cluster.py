"""Tournaments on a real Dask cluster (a LocalCluster of worker processes): the same games and
results as a local run; a worker process killed mid-game and the coordinator killed mid-run
lose nothing and count nothing twice; an entrant the workers cannot build is reported as
such; the deal secret never travels; the local path never imports Dask."""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import main
from arena.intake import CACHE_VAR
from arena.referee.manifest import load_manifest
from arena.tournament.config import load_config
from arena.tournament.records import read_record
from arena.tournament.runner import isolations
from arena.tournament.store import Store
from tests.tournament.conftest import (
    ROOT,
    alive,
    children,
    copy_bot,
    game_rows,
    reap,
    start_cli,
    stored_games,
    wait_until,
    workers_of,
    write_config,
)

pytestmark = pytest.mark.timeout(240)


# The coordinator takes its bots in to a folder of its own (the config's [intake] folder), as
# on a machine of its own: what the workers do is then seen in theirs.
COORDINATOR = '[intake]\nfolder = "coordinator-cache"\n'


@pytest.fixture(autouse=True)
def _bot_cache_of_this_test(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Workers (they inherit the environment) take bots in under the test's folder."""
    cache = tmp_path / "cache"
    monkeypatch.setenv(CACHE_VAR, str(cache))
    return cache


def three_bots(folder: Path) -> list[str]:
    copy_bot("random", folder / "random")
    copy_bot("heuristic", folder / "heuristic")
    copy_bot("random", folder / "random-b", name="random-b")
    return ["random", "heuristic", "random-b"]


def invoke(*args: str):
    return CliRunner().invoke(main, ["tournament", *args, "--no-standings"])


def local_run_without_dask(config: Path) -> str:
    """A local `-j 1` run in a fresh interpreter; what it says, and whether Dask was loaded."""
    code = ("import sys\nfrom arena.cli.main import main\n"
            "try:\n    main(['tournament', sys.argv[1], '-j', '1', '--no-standings'])\n"
            "except SystemExit as exc:\n    assert not exc.code, exc.code\n"
            "print('dask loaded:', sorted(m for m in ('dask', 'distributed') "
            "if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", code, str(config)], cwd=ROOT,
                          capture_output=True, text=True, timeout=200)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_local_2_stores_the_schedule_with_the_results_of_a_local_run_which_imports_no_dask(
        tmp_path, _bot_cache_of_this_test):
    local, remote = tmp_path / "local", tmp_path / "remote"
    for folder in (local, remote):
        folder.mkdir()
        entrants = three_bots(folder)
    configs = [write_config(f, entrants, games=2, target=200, seed=7, extra=COORDINATOR)
               for f in (local, remote)]
    assert "dask loaded: []" in local_run_without_dask(configs[0])

    result = invoke(str(configs[1]), "--cluster", "local:2")
    assert result.exit_code == 0, result.output
    assert "6 games played" in result.output and "2 workers" in result.output
    assert "shipping 3 entrants to the cluster" in result.output
    rows = game_rows(remote / "t.sqlite")
    assert rows == game_rows(local / "t.sqlite") and len(rows) == 6
    for row in rows:  # records name the entrants' folders as the coordinator knows them
        record = read_record(remote / row[9])
        assert record.game_id == row[0] and tuple(record.scores) == (row[4], row[5])
        assert {e.folder for e in record.entrants} <= {str(remote / e) for e in entrants}
    shipped = list((_bot_cache_of_this_test / "snapshots").iterdir())  # the workers' intake
    assert sorted(load_manifest(p).name for p in shipped) == ["heuristic", "random", "random-b"]
    assert not list((remote / "t.sqlite.records").rglob("*.pending"))
    # the isolation the workers resolved is the store's, as a local run's is (standings header)
    levels = [isolations(Store(f / "t.sqlite", read_only=True)) for f in (remote, local)]
    assert levels[0] == levels[1] and len(levels[0]) == 1


def test_mixed_partners_on_a_cluster_store_what_a_local_run_does(tmp_path):
    local, remote = tmp_path / "local", tmp_path / "remote"
    configs = []
    for folder in (local, remote):
        folder.mkdir()
        entrants = three_bots(folder) + ["random-c"]
        copy_bot("random", folder / "random-c", name="random-c")
        config = write_config(folder, entrants, target=150, seed=7, extra=COORDINATOR)
        config.write_text(config.read_text().replace("games_per_matchup = 2\n",
                                                     'partners = "mixed"\ncycles = 1\n'))
        configs.append(config)
    assert invoke(str(configs[0]), "-j", "1").exit_code == 0
    result = invoke(str(configs[1]), "--cluster", "local:1")
    assert result.exit_code == 0, result.output
    assert "6 games played" in result.output
    rows = game_rows(remote / "t.sqlite")
    assert rows == game_rows(local / "t.sqlite") and len(rows) == 6
    for row in rows:  # every seat's entrant, named by its folder as the coordinator knows it
        record = read_record(remote / row[9])
        assert record.seats is not None and len({e.name for e in record.seats}) == 4
        assert {e.folder for e in record.seats} <= {str(remote / e) for e in entrants}


def worker_in_a_game(run: subprocess.Popen) -> int | None:
    """A Dask worker process of the run that is playing a game (it has bot processes)."""
    return next((w for w in workers_of(run.pid) if children(w)), None)


@pytest.mark.slow  # two 24-game tournaments, one killed twice: a soak test, `make test-slow`
@pytest.mark.timeout(600)  # a hang guard, not a bound: 100 s alone, 240+ s on a loaded machine
def test_a_killed_worker_and_a_killed_coordinator_lose_nothing_and_count_nothing_twice(
        tmp_path):
    reference, remote = tmp_path / "reference", tmp_path / "remote"
    for folder in (reference, remote):
        folder.mkdir()
        entrants = three_bots(folder)
    configs = [write_config(f, entrants, games=8, target=300, seed=11)
               for f in (reference, remote)]
    assert invoke(str(configs[0]), "-j", "2").exit_code == 0
    db = remote / "t.sqlite"
    run = start_cli("tournament", str(configs[1]), "--cluster", "local:2", "--no-standings")
    try:
        wait_until(lambda: stored_games(db) >= 1 and worker_in_a_game(run) is not None,
                   "a game stored and a worker playing", proc=run)
        victim = worker_in_a_game(run)
        referees = children(victim)  # the process playing the task's games, with its bots
        os.kill(victim, signal.SIGKILL)
        wait_until(lambda: not any(alive(r) for r in referees),
                   "the killed worker's games ending with it", limit=60)
        before = stored_games(db)
        wait_until(lambda: stored_games(db) > before, "a game stored after the kill", proc=run)
        workers = workers_of(run.pid)
        run.send_signal(signal.SIGKILL)
        run.communicate(timeout=60)
    finally:
        reap(run)
    stored = game_rows(db)
    assert 1 <= len(stored) < 24, "the coordinator was killed after the run ended"
    wait_until(lambda: not any(alive(w) for w in workers), "the workers ending with the run",
               limit=60)
    resumed = invoke(str(configs[1]), "--cluster", "local:2")
    assert resumed.exit_code == 0, resumed.output
    assert f"{24 - len(stored)} games played" in resumed.output
    rows = game_rows(db)
    assert set(stored) <= set(rows)
    assert rows == game_rows(reference / "t.sqlite")  # every game once, the same results
    assert standings(configs[1]) == standings(configs[0])


def standings(config: Path) -> str:
    """The standings table without its header (which names the config)."""
    out = CliRunner().invoke(main, ["standings", str(config)]).output
    return out[out.index("Rank"):]


def test_an_entrant_the_workers_cannot_build_is_reported_and_no_task_carries_the_secret(
        tmp_path, monkeypatch, _bot_cache_of_this_test):
    copy_bot("random", tmp_path / "random")
    copy_bot("heuristic", tmp_path / "heuristic")
    picky = copy_bot("random", tmp_path / "picky", name="picky")
    # a build that works on the coordinator only (as a toolchain missing on the workers would)
    (picky / "build.sh").write_text(f'case "$PWD" in {_bot_cache_of_this_test}/*) '
                                    'echo "no toolchain here" >&2; exit 3;; esac\n')
    manifest = picky / "bot.toml"
    manifest.write_text(manifest.read_text() + 'build = ["sh", "build.sh"]\n')
    config = write_config(tmp_path, ["random", "heuristic", "picky"], games=2, target=100,
                          extra=COORDINATOR)

    refused = invoke(str(config), "--cluster", "local:1")
    assert refused.exit_code == 1, refused.output
    assert "1 entrant(s) cannot be built, so the tournament does not start" in refused.output
    assert "picky (" in refused.output and "on the cluster worker" in refused.output
    assert "`sh build.sh` failed (exit code 3)" in refused.output
    assert "no toolchain here" in refused.output
    assert game_rows(tmp_path / "t.sqlite") == []

    sent: list[bytes] = []
    import distributed

    submit, scatter = distributed.Client.submit, distributed.Client.scatter
    monkeypatch.setattr(distributed.Client, "submit", lambda self, *a, **k: (
        sent.append(pickle.dumps((a, {n: v for n, v in k.items() if n != "workers"}))),
        submit(self, *a, **k))[1])
    monkeypatch.setattr(distributed.Client, "scatter", lambda self, data, **k: (
        sent.append(pickle.dumps(data)), scatter(self, data, **k))[1])
    played = invoke(str(config), "--cluster", "local:1", "--skip-unbuildable")
    assert played.exit_code == 0, played.output
    assert any(line.startswith("picky left out: on the cluster worker")
               for line in played.output.splitlines())
    rows = game_rows(tmp_path / "t.sqlite")
    assert len(rows) == 2 and not any("picky" in r[1] for r in rows)
    with Store(tmp_path / "t.sqlite") as store:
        secret = store.deal_secret()
    assert len(sent) >= 3 and not any(secret in s or secret.hex().encode() in s for s in sent)


def test_a_bad_cluster_address_or_a_missing_dask_is_a_clear_error(tmp_path, two_bots):
    config = write_config(tmp_path, ["random", "heuristic"],
                          extra='', name="ok.toml")
    bad = config.read_text().replace("concurrency = 2", 'concurrency = 2\ncluster = "local:0"')
    (tmp_path / "bad.toml").write_text(bad)
    with pytest.raises(Exception, match=r"bad.toml: key 'tournament.cluster': 'local:N' needs"):
        load_config(tmp_path / "bad.toml")
    assert load_config(config).cluster is None
    wrong = CliRunner().invoke(main, ["tournament", str(config), "--cluster", "nowhere"])
    assert wrong.exit_code == 2 and "'--cluster'" in wrong.output
    assert "such as 'tcp://HOST:8786'" in wrong.output
    code = ("import sys\nsys.modules['distributed'] = None  # as if not installed\n"
            "from arena.cli.main import main\n"
            "main(['tournament', sys.argv[1], '--cluster', 'local:1'])\n")
    done = subprocess.run([sys.executable, "-c", code, str(config)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stderr
    assert "install the cluster extra: pip install 'tichu-arena[cluster]'" in done.stderr
    assert "Traceback" not in done.stderr and game_rows(tmp_path / "t.sqlite") == []
