"""`arena play` and `arena replay` as a user runs them, Ctrl-C included."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from arena.cli.main import main
from arena.cli.output import HARNESS_FAILURE, NOT_NORMAL
from tests.pace import play_options
from tests.processes import bot_processes
from tests.referee.conftest import ROOT

pytestmark = pytest.mark.timeout(120)


def test_play_prints_rounds_final_score_winner_and_time_per_seat_and_replay_agrees(tmp_path):
    record = tmp_path / "game.json"
    runner = CliRunner()
    result = runner.invoke(main, ["play", str(ROOT / "bots" / "heuristic"),
                                  str(ROOT / "bots" / "random"), "--seed", "2", "--target", "400",
                                  "--record", str(record), *play_options()])
    assert result.exit_code == 0, result.output
    for text in ("round", "Final score", "Winner: team", "Time used: seat 0",
                 "passed by the referee: auto_pass)"):  # both SDK bots say auto_pass
        assert text in result.output
    replayed = runner.invoke(main, ["replay", str(record)])
    assert replayed.exit_code == 0, replayed.output
    assert "identical events, game finished" in replayed.output


def test_play_names_a_bad_bot_folder_and_exits_2(tmp_path):
    (tmp_path / "bot.toml").write_text('name = "x"\nversion = "1"\nlanguage = "py"\n')
    result = CliRunner().invoke(main, ["play", str(tmp_path), str(ROOT / "bots" / "random")])
    assert result.exit_code == 2
    assert "bot.toml: missing key 'command'" in result.output


def test_replay_rejects_a_tampered_record(tmp_path):
    record = tmp_path / "game.json"
    runner = CliRunner()
    runner.invoke(main, ["play", str(ROOT / "bots" / "random"), str(ROOT / "bots" / "random"),
                         "--target", "200", "--record", str(record), *play_options()])
    text = record.read_text()
    record.write_text(text.replace('"call":false', '"call":true', 1))
    result = runner.invoke(main, ["replay", str(record)])
    assert result.exit_code == 1
    assert "differs from the record" in result.output


def test_ctrl_c_stops_the_game_and_leaves_no_bot_process():
    # a game to a score it does not reach in a test's time: it is still on when Ctrl-C comes
    # (a game to 1000 between random bots can end within a second)
    proc = subprocess.Popen([sys.executable, "-m", "arena.cli.main", "play",
                             str(ROOT / "bots" / "random"), str(ROOT / "bots" / "random"),
                             "--target", "1000000"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    bots = ROOT / "bots" / "random"
    try:
        deadline = time.monotonic() + 90  # a bound against hangs: on a busy machine four
        while (started := len(bot_processes(bots, helpers=False))) < 4 \
                and time.monotonic() < deadline:
            time.sleep(0.05)  # sandboxed starts can take a while
        assert started == 4
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode != 0
    assert not bot_processes(ROOT / "bots" / "random")


def test_play_pinned_to_one_cpu_plays_the_same_game():
    runner = CliRunner()
    trivial = str(ROOT / "arena" / "cli" / "benchbots" / "trivial")  # deterministic: the first option
    outputs = [runner.invoke(main, ["play", trivial, trivial, "--seed", "5", "--target", "300",
                                    flag, *play_options()]) for flag in ("--pin", "--no-pin")]
    assert all(r.exit_code == 0 for r in outputs), [r.output for r in outputs]
    scores = [next(line for line in r.output.splitlines() if line.startswith("Final score"))
              .split(" in ")[0] for r in outputs]
    assert scores[0] == scores[1]


def _failing_bot(folder):
    """A bot whose command starts and exits at once with status 1, saying why on stderr
    (intake lets it in: `sh` is on PATH; the referee finds it dead before its hello)."""
    folder.mkdir()
    (folder / "bot.toml").write_text(
        'name = "failing"\nversion = "1"\nlanguage = "sh"\n'
        'command = ["sh", "-c", "echo cannot start: no libfoo >&2; exit 1"]\n')
    return str(folder)


def test_play_exits_0_only_for_a_game_played_to_its_end_and_3_for_a_forfeit(tmp_path):
    runner = CliRunner()
    trivial = str(ROOT / "arena" / "cli" / "benchbots" / "trivial")
    played = runner.invoke(main, ["play", trivial, trivial, "--seed", "5", "--target", "100",
                                  *play_options()])
    assert played.exit_code == 0, played.output
    assert "Termination: normal" in played.output and "exit status" not in played.output
    forfeit = runner.invoke(main, ["play", trivial, _failing_bot(tmp_path / "failing"),
                                   "--target", "100", *play_options()])
    assert forfeit.exit_code == NOT_NORMAL == 3, forfeit.output
    assert "Winner: team 0 (trivial) by forfeit" in forfeit.output
    assert ("exit status 3: the game did not end normally: failing (seat 1) forfeited by "
            "start_failure: the bot process exited with code 1 before saying hello; seat 1's "
            "output ends: 'cannot start: no libfoo'") in forfeit.output


def test_play_exits_3_for_a_game_void_because_both_teams_failed(tmp_path):
    failing = _failing_bot(tmp_path / "failing")
    result = CliRunner().invoke(main, ["play", failing, failing, "--target", "100",
                                       *play_options()])
    assert result.exit_code == NOT_NORMAL, result.output
    assert "No winner: start_failure" in result.output
    assert "exit status 3: the game did not end normally: void, seats of both teams failed" \
        in result.output


def test_play_exits_4_when_the_referee_itself_fails(monkeypatch):
    """A referee bug during the game voids it as a harness fault; a referee that cannot run
    the game at all (an ArenaError) gives no record: both are exit status 4, not a bot's."""
    from arena.errors import ArenaError
    from arena.referee import match

    trivial = str(ROOT / "arena" / "cli" / "benchbots" / "trivial")
    options = play_options()  # measured before the referee is broken

    def bug(self):
        raise RuntimeError("a referee bug")

    monkeypatch.setattr(match._GameRun, "_play", bug)
    void = CliRunner().invoke(main, ["play", trivial, trivial, "--target", "100", *options])
    assert void.exit_code == HARNESS_FAILURE == 4, void.output
    assert "No winner: harness_fault: RuntimeError: a referee bug" in void.output
    assert ("exit status 4: the game is void by a failure of the arena, not of a bot "
            "(harness_fault: RuntimeError: a referee bug)") in void.output

    def cannot_run(*args, **kwargs):
        raise ArenaError("no endpoint could be bound")

    monkeypatch.setattr(match, "run_game", cannot_run)
    failed = CliRunner().invoke(main, ["play", trivial, trivial, "--target", "100", *options])
    assert failed.exit_code == HARNESS_FAILURE, failed.output
    assert "cannot play: no endpoint could be bound" in failed.output
