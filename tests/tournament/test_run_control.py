"""Runs under stress, with real processes and real signals: one run per store, a worker
stopped or killed alone, Ctrl-C reaching every process of the run, the run's process killed
while its workers cannot finish cleaning up."""

from __future__ import annotations

import os
import signal
import time

import pytest
from click.testing import CliRunner

from arena.cli.main import main
from arena.tournament.records import read_record
from tests.processes import bot_processes, snapshot_of
from tests.tournament.conftest import (
    alive,
    children,
    copy_bot,
    game_rows,
    hostile_bot,
    kill_all,
    reap,
    start_cli,
    stored_games,
    wait_until,
    workers_of,
    write_config,
)

pytestmark = pytest.mark.timeout(300)


def assert_records_agree(folder, count: int) -> None:
    rows = game_rows(folder / "t.sqlite")
    assert len(rows) == count
    for row in rows:
        record = read_record(folder / row[9])
        assert record.game_id == row[0] and tuple(record.scores) == (row[4], row[5])
    assert not list((folder / "t.sqlite.records").rglob("*.pending"))


def test_one_run_per_store_a_second_run_and_sprt_play_are_refused(tmp_path):
    gated = hostile_bot(tmp_path / "gated", "gate")
    copy_bot("random", tmp_path / "random")
    config = write_config(tmp_path, ["gated", "random"], games=2, target=100, hello=600.0)
    gate = snapshot_of(gated) / "gate"  # the bot runs from intake's snapshot of its folder
    runs = [start_cli("tournament", str(config), "-j", "1", "--no-standings")
            for _ in range(2)]
    try:
        # the first to hold the store waits at the gate; the other must give up at once
        wait_until(lambda: any(r.poll() is not None for r in runs), "a run refused")
        loser = next(r for r in runs if r.poll() is not None)
        out, err = loser.communicate()
        assert loser.returncode == 1, (out, err)
        assert "t.sqlite: in use by pid" in err and "One run per store" in err
        assert "Traceback" not in err
        sprt = CliRunner().invoke(main, ["sprt", "gated", "random", "--tournament", str(config),
                                         "--play", "--max-pairs", "1"])
        assert sprt.exit_code == 1 and "in use by pid" in sprt.output, sprt.output
        gate.touch()
        winner = next(r for r in runs if r is not loser)
        out, err = winner.communicate(timeout=240)
        assert winner.returncode == 0, (out, err)
    finally:
        if gate.parent.is_dir():
            gate.touch()
        reap(*runs)
    assert_records_agree(tmp_path, 2)
    assert not (tmp_path / "t.sqlite.lock").exists()  # a run leaves no lock file behind


def test_workers_stopped_or_killed_alone_end_the_run_clearly_and_it_resumes(tmp_path,
                                                                           two_bots):
    config = write_config(tmp_path, ["random", "heuristic"], games=8, target=300)
    run = start_cli("tournament", str(config), "-j", "2", "--no-standings")
    try:
        # both workers playing (bots started: a worker still starting up has no SIGTERM
        # handler yet, and dies of the signal as any process would)
        wait_until(lambda: stored_games(tmp_path / "t.sqlite") >= 1
                   and len(workers := workers_of(run.pid)) == 2
                   and all(children(w) for w in workers), "a game stored, two workers playing",
                   proc=run)
        first, second = workers_of(run.pid)
        os.kill(first, signal.SIGTERM)
        os.kill(second, signal.SIGKILL)
        out, err = run.communicate(timeout=240)
    finally:
        reap(run)
    assert run.returncode == 1, (out, err)
    assert "was stopped by a SIGTERM that this run did not send" in err, err
    assert "was killed by SIGKILL" in err and "were not played (pair" in err, err
    assert "run the same command again to resume" in err and "Traceback" not in err
    resumed = CliRunner().invoke(main, ["tournament", str(config), "-j", "1",
                                        "--no-standings"])
    assert resumed.exit_code == 0, resumed.output
    assert_records_agree(tmp_path, 8)


def test_ctrl_c_to_the_whole_process_group_as_workers_start_prints_no_traceback(tmp_path,
                                                                               two_bots):
    config = write_config(tmp_path, ["random", "heuristic"], games=8, target=300)
    run = start_cli("tournament", str(config), "-j", "2", session=True)
    try:
        wait_until(lambda: workers_of(run.pid), "a worker started", proc=run)
        # Ctrl-C pressed again and again, as a shell sends it: to the parent and its workers,
        # some of which are still starting
        for _ in range(40):
            if run.poll() is not None:
                break
            os.killpg(run.pid, signal.SIGINT)
            time.sleep(0.05)
        out, err = run.communicate(timeout=120)
    finally:
        reap(run)
    assert run.returncode == 130, (out, err)
    assert "run the same command again to resume" in err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert not bot_processes(two_bots[0]) and not bot_processes(two_bots[1])


def test_workers_die_with_a_killed_run_even_when_their_clean_up_hangs(tmp_path):
    # each copy of the sticky bot leaves a child in a session of its own holding its output
    # open: stopping the bot then waits for that child (arena.referee.process), so the worker
    # is stuck in its clean-up when its run is killed; it must go anyway
    sticky = hostile_bot(tmp_path / "sticky", "detached")
    other = copy_bot("random", tmp_path / "random")
    config = write_config(tmp_path, ["random", "sticky"], games=2, target=100, hello=600.0)
    run = start_cli("tournament", str(config), "-j", "1", "--no-standings")
    workers: list[int] = []
    try:
        wait_until(lambda: len(bot_processes(sticky)) >= 4 and workers_of(run.pid),
                   "the sticky bots and their children started", proc=run)
        workers = workers_of(run.pid)
        run.kill()
        run.communicate()
        wait_until(lambda: not any(alive(w) for w in workers), "the orphaned worker gone")
    finally:
        kill_all(workers + bot_processes(sticky) + bot_processes(other))
        reap(run)
