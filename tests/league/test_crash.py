"""kill -9 of the whole league (server, workers, bots) during games and just after an upload
was acknowledged, then the same command again: the acknowledged upload is taken in and
plays, every finished game is stored once with its record, the games go on. kill -9 of the
server alone during an upload's sandboxed build or check-bot game: no process of it is left."""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
from pathlib import Path

import pytest

from arena.league.reaper import mark_of, marked
from tests.league.conftest import (
    ROOT,
    League,
    bot_copy,
    database,
    free_port,
    wait_for,
    write_config,
)
from tests.processes import processes_running, processes_with


def counts(folder: Path) -> tuple[int, list[tuple[str, int]], list[str]]:
    with database(folder / "league.sqlite") as db:
        stored = db.execute("SELECT count(*) FROM games").fetchone()[0]
        pairs = db.execute("SELECT pair_id, count(*) FROM games GROUP BY pair_id").fetchall()
        records = [r[0] for r in db.execute("SELECT record FROM games")]
    return stored, pairs, records


@pytest.mark.slow
def test_kill_9_mid_games_and_mid_upload_loses_and_doubles_nothing(tmp_path: Path):
    league = League(tmp_path, write_config(tmp_path, games_per_minute=None), free_port(),
                    jobs=2)  # games at once, back to back: a kill -9 lands in some
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
    assert all(linked_or_pending(tmp_path / r) for r in records)
    league.start()  # and once more: the half-stored pairs of the last kill are completed
    try:
        wait_for("more games", lambda: league.get("/api/standings")["games"] > after)
    finally:
        assert league.stop() == 0
    final, pairs, records = counts(tmp_path)
    assert all(n <= 2 for _, n in pairs) and len(set(records)) == final
    assert all((tmp_path / r).is_file() for r in records)  # each pending one linked at start


def linked_or_pending(path: Path) -> bool:
    """A stored game's record file in place, or still under the name of its own it was
    written with (`arena.tournament.records.pending_record`) if the kill fell between its
    row's commit and its rename: the next start links it (`sweep_pending`)."""
    return path.is_file() or any(path.parent.glob(f"{path.name}.*.pending"))


def _status(pid: int) -> dict[str, str]:
    fields = Path(f"/proc/{pid}/status").read_text().splitlines()
    return dict(line.split(":\t", 1) for line in fields if ":\t" in line)


def sandbox_set_up(pid: int) -> bool:
    """Whether the sandbox of `pid`, a process it runs, has finished setting itself up: its
    init (bubblewrap's process 1 of the sandbox's pid namespace, the nearest ancestor that is
    process 1 of its own) sits waiting on its children. bubblewrap asks the kernel for its
    --die-with-parent signal in that init only after it started the command (bubblewrap 0.8,
    `do_init`), and a kill -9 of the server before that leaves the init and the command
    running for good (seen 1 time in 10 under load); so does one while bubblewrap sets up
    the sandbox, its init then waiting for good on the launcher that was killed. The test
    waits those moments out: README, "Run a league", says what they leave."""
    try:
        while pid > 1:
            status = _status(pid)
            if status["NSpid"].split()[-1] == "1":
                return Path(f"/proc/{pid}/wchan").read_text() == "do_wait"
            pid = int(status["PPid"])
    except (OSError, KeyError):  # it ended meanwhile: the caller looks again
        return False
    return True  # not sandboxed


@pytest.mark.parametrize("stage", ["building", "checking"])
def test_kill_9_during_intake_leaves_no_process_of_it(tmp_path: Path, stage: str):
    """The server killed (SIGKILL, itself alone, as the OOM killer would) while an upload's
    sandboxed build, or its check-bot game, runs a process of the bot's (a `sleep` with a
    number of its own): that process dies with the server (bubblewrap's --die-with-parent,
    the kernel ending its pid namespace), nothing of the intake is left running."""
    marker = str(secrets.randbelow(10**9) + 10**9)
    if stage == "building":
        bot = bot_copy(tmp_path / "kim-bot", "kim-bot", extra=f'build = ["sleep", "{marker}"]\n')
    else:
        body = (ROOT / "bots" / "random" / "bot.py").read_text().replace(
            "import sys\n", f"import subprocess\nimport sys\nsubprocess.Popen(['sleep', "
            f"'{marker}'])\n", 1)
        bot = bot_copy(tmp_path / "kim-bot", "kim-bot", body)
    # one house bot: no league game is played, the upload's intake is all that runs
    league = League(tmp_path, write_config(tmp_path, house=("random",)), free_port())
    league.start()
    try:
        result = league.upload(bot, league.invite("kim"), "--no-follow")
        assert result.returncode == 0, result.stderr
        upload = int(result.stdout.split()[1])
        wait_for(f"the upload {stage}", lambda: league.get(f"/api/uploads/{upload}")["status"]
                 == stage)
        alive = wait_for("the bot's process, its sandbox set up", lambda: (
            (found := processes_running("sleep", marker))
            and all(map(sandbox_set_up, found)) and found))
        assert league.process is not None
        os.kill(league.process.pid, signal.SIGKILL)
        league.process.wait(60)
        league.process = None
        wait_for("no process of the intake left", lambda: not processes_with(marker), 60)
    finally:
        if league.process is not None:
            league.stop(signal.SIGKILL)
        for pid in processes_with(marker):  # (a failure leaves none behind either)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    assert alive


def test_what_an_unsandboxed_build_left_at_kill_9_ends_at_the_next_start(tmp_path: Path):
    """Without a sandbox (--allow-unsandboxed) a build's own child outlives a kill -9 of the
    server (only the build's first program dies with it); the same command again ends it
    (`arena.league.reaper`) and says so."""
    marker = str(secrets.randbelow(10**9) + 10**9)
    bot = bot_copy(tmp_path / "kim-bot", "kim-bot",
                   extra=f'build = ["sh", "-c", "sleep {marker} & sleep 600"]\n')
    league = League(tmp_path, write_config(tmp_path, isolation="none", house=("random",)),
                    free_port(), options=("--allow-unsandboxed",))  # (no league game)
    league.start()
    try:
        result = league.upload(bot, league.invite("kim"), "--no-follow")
        assert result.returncode == 0, result.stderr
        left = wait_for("the build's child", lambda: processes_with(marker))
        league.stop(signal.SIGKILL)
        assert all(Path(f"/proc/{pid}").exists() for pid in left)  # it outlived the server
        league.start()
        wait_for("the leftover ended", lambda: not any(Path(f"/proc/{pid}").exists()
                                                       for pid in left), 60)
        assert "ended" in league.log() and "left running" in league.log()
    finally:
        if league.process is not None:
            league.stop(signal.SIGKILL)
        for pid in marked(mark_of(tmp_path / "league.sqlite")):  # the last server's too
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
