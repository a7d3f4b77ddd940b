"""Every `arena bench` subcommand but `engine` (tests/cli/test_bench_engine.py) runs and
prints its figures: transport (its three measurements in both placements), sandbox, intake,
coordinator, game-cost, env, report and league."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import main
from arena.referee.placement import usable_cpus
from tests.requirements import need_programs

pytestmark = pytest.mark.timeout(180)


@pytest.mark.slow  # a benchmark: over 180 s at load 35 (make test-slow)
@pytest.mark.timeout(900)  # a hang guard
def test_bench_transport_prints_a_b_and_c_for_each_placement():
    result = CliRunner().invoke(main, ["bench", "transport", "-n", "1", "--round-trips", "50"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "CPUs shared" in out
    assert ("one CPU (pinned)" in out) == bool(usable_cpus())
    columns = 2 if usable_cpus() else 1
    assert len(re.findall(r"\d+ us \(p90 \d+\)", out)) == 3 * columns  # (a), (a) bytes, (b)
    assert len(re.findall(r"= \d+\.\d\dx \(a\)", out)) == columns
    assert len(re.findall(r"\d+\.\d\d \(1 games\)", out)) == columns
    asked = [int(a) for a in re.findall(r"\d+ \((\d+)\)\s", out + " ")]
    assert len(asked) == columns and all(a > 100 for a in asked)


def test_bench_transport_refuses_zero_games():
    result = CliRunner().invoke(main, ["bench", "transport", "-n", "0"])
    assert result.exit_code == 2 and "--games" in result.output


def test_raw_round_trips_send_exactly_the_requests_the_trivial_bot_gets():
    from arena.cli.bench import _trivial_requests
    from arena.referee.match import GameSpec, run_game
    from protocol.codec import unpack
    from tests.referee.conftest import ROOT, entrant

    trivial = entrant(ROOT / "arena" / "cli" / "benchbots" / "trivial")
    record = run_game(GameSpec("bench-check", 3, (trivial, trivial), target=300))
    asked = [d for d in record.decisions if not d.get("auto")]
    requests = [unpack(r) for r in _trivial_requests(range(3, 4), 300)]
    assert len(requests) == len(asked) > 100
    assert [r["kind"] for r in requests] == [d["kind"] for d in asked]
    assert [r["observation"]["seat"] for r in requests] == [d["seat"] for d in asked]


def test_the_referee_work_counted_under_callgrind_replays_every_asked_decision():
    """`arena bench transport --instructions` counts the replay of `referee_work`: it must
    pack a request and read a reply for each decision the referee asks in those games."""
    from arena.cli.bench import _trivial_requests
    from arena.cli.benchwork import referee_work

    asked = len(_trivial_requests(range(5, 6), 300))
    assert referee_work(1, 5, True, 300) == referee_work(1, 5, False, 300) == asked > 100


@pytest.mark.slow  # valgrind runs the referee at 50x: a benchmark, in `make test-slow`
@pytest.mark.timeout(900)  # a hang guard: about 140 s alone, over 180 s on a loaded machine
def test_the_referee_instructions_are_counted_net_of_the_recorded_games():
    from arena.cli.bench import count_referee_instructions

    need_programs("valgrind", what="valgrind (callgrind counts the instructions)")
    figures = count_referee_instructions(1, 5, target=100)
    # the games recorded (millions of instructions) are subtracted: a decision's packing and
    # reading take thousands
    assert figures.asked > 20 and 5e3 < figures.instructions / figures.asked < 2e6
    assert re.match(r"Referee instructions per asked decision: \d+\.\d k", figures.line())


@pytest.mark.timeout(120)
def test_bench_sandbox_prints_start_up_and_game_time_at_both_levels():
    from tests.sandbox.conftest import need_sandbox

    need_sandbox()
    result = CliRunner().invoke(main, ["bench", "sandbox", "-n", "1"])
    assert result.exit_code == 0, result.output
    assert "start four trivial bot processes, to their hellos" in result.output
    assert re.search(r"a game to 1000, four random Python bots\s+[\d.]+ s\s+[\d.]+ s",
                     result.output), result.output


@pytest.mark.timeout(300)
def test_bench_intake_prints_the_ratio_of_intake_and_a_sandboxed_build_to_a_plain_one(
        tmp_path):
    from tests.sandbox.conftest import need_sandbox
    from tests.tournament.conftest import copy_bot

    need_sandbox()
    bot = copy_bot("random", tmp_path / "built")
    manifest = bot / "bot.toml"
    manifest.write_text(manifest.read_text() + 'build = ["sh", "-c", "echo x > made"]\n')
    result = CliRunner().invoke(main, ["bench", "intake", str(bot), "-n", "1"])
    assert result.exit_code == 0, result.output
    row = next(line for line in result.output.splitlines() if line.startswith("random "))
    assert re.search(r"(\d+\.\d+x\s+){1}\d+\.\d+x$", row), row


@pytest.mark.timeout(240)
def test_bench_coordinator_prints_each_league_and_how_each_step_grows():
    result = CliRunner().invoke(main, ["bench", "coordinator", "--entrants", "2,3",
                                       "--pairs", "1", "--bootstrap", "0"])
    assert result.exit_code == 0, result.output
    rows = [line.split() for line in result.output.splitlines()
            if re.match(r"\s*[23]\s+\d+\s", line)]
    assert [(row[0], row[1]) for row in rows] == [("2", "2"), ("3", "6")]
    assert re.search(r"Growth with the games stored \(log-log slope; 1 is linear\): "
                     r"[a-z -]+ -?\d+\.\d\d", result.output), result.output
    assert "The writer's ceiling: " in result.output


def test_bench_coordinator_refuses_a_league_of_one():
    result = CliRunner().invoke(main, ["bench", "coordinator", "--entrants", "1,20"])
    assert result.exit_code == 2 and "at least 2 entrants" in result.output


@pytest.mark.timeout(600)
def test_bench_game_cost_prints_each_language_s_share_at_each_target():
    """Two of the languages (the cheapest to start: all four played 24 games here, 34 s of
    CPU, most of it starting JVMs; test_vocabulary checks the default is every language)."""
    need_programs("cc", "make", what="the bundled C bot")
    result = CliRunner().invoke(main, ["bench", "game-cost", "--target", "100", "--target",
                                       "50", "--pairs", "1", "--language", "python",
                                       "--language", "c"])
    assert result.exit_code == 0, result.output
    assert re.match(r"load average: \d+\.\d\d \d+\.\d\d \d+\.\d\d", result.output)
    rows = {line.split()[0]: line.split() for line in result.output.splitlines()
            if re.match(r"(python|c|node|java) ", line)}
    assert sorted(rows) == ["c", "python"], result.output
    for cells in rows.values():  # s/game and s/round at 100, then at 50, then the ratio
        assert all(re.fullmatch(r"\d+\.\d+", cell) for cell in cells[2:7]), cells
    assert "s/game 50 / 100" in result.output
    for target in (100, 50):
        assert re.search(rf"target {target}: 2 games, \d+\.\d rounds per game; load average "
                         rf"\d+\.\d at the start, \d+\.\d at the end", result.output)
    assert re.search(r"python, c together: .* a part that does not grow with the target",
                     result.output), result.output


def test_bench_game_cost_needs_two_languages():
    result = CliRunner().invoke(main, ["bench", "game-cost", "--language", "java"])
    assert result.exit_code == 2 and "two languages" in result.output
    result = CliRunner().invoke(main, ["bench", "game-cost", "--language", "cobol"])
    assert result.exit_code == 2 and "cobol" in result.output


def test_bench_env_prints_steps_per_second_and_the_overhead():
    from tests.env.conftest import require_train

    require_train()
    result = CliRunner().invoke(main, ["bench", "env", "-n", "1"])
    assert result.exit_code == 0, result.output
    assert "steps/s" in result.output and "x the engine's time per decision" in result.output


@pytest.mark.timeout(240)
def test_bench_report_of_a_synthetic_tournament_prints_its_size_and_both_builds():
    # 4 games played by the engine, their records reused for the other 86 (the default, 300,
    # played 90 games: 5 s of CPU, and over 240 s at a load of 30)
    result = CliRunner().invoke(main, ["bench", "report", "--games", "20", "--distinct", "4"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "(4 distinct engine games at most)" in out
    stored = int(re.search(r"synthetic store: (\d+) games in \d+ s", out)[1])
    assert stored == 90  # 45 matchups of one duplicate pair: the nearest to 20 games
    first = re.search(r"first build: (\d+) games, (\d+) files, \d+\.\d MB, \d+\.\d s", out)
    assert first and int(first[1]) == stored and int(first[2]) > stored, out
    assert re.search(r"rebuild, nothing new: \d+\.\d s \(0 records read\)", out), out
    site = Path(re.search(r"report: (\S+index\.html)", out)[1])
    assert site.is_file()
    shutil.rmtree(site.parent.parent)


def test_bench_report_of_a_store_given_builds_that_store(tmp_path):
    from arena.presentation.bench import fill_store

    store = tmp_path / "given.sqlite"
    fill_store(store, ["a@1", "b@1", "c@1"], 1, durable=False)
    result = CliRunner().invoke(main, ["bench", "report", str(store)])
    assert result.exit_code == 0, result.output
    assert "synthetic store" not in result.output
    assert re.search(r"first build: 6 games, ", result.output), result.output
    shutil.rmtree(Path(re.search(r"report: (\S+index\.html)", result.output)[1]).parent.parent)


@pytest.mark.slow  # a benchmark: a tournament, then a league served for 3 windows of 1 s
# (the least --seconds takes; each window is 2 CPUs busy: with 3 s, the test took 22 s of CPU)
@pytest.mark.timeout(600)  # a hang guard
def test_bench_league_prints_both_rates_and_the_standings_latency():
    result = CliRunner().invoke(main, ["bench", "league", "--games", "4", "--seconds", "1",
                                       "--clients", "20", "--target", "100"])
    # 20 clients: more than a league lets one address hold by default (16), all on 127.0.0.1
    assert result.exit_code == 0, result.output
    assert re.search(r"tournament: 4 games in \d+\.\d s \(\d+\.\d\d games/s\)",
                     result.output)
    assert re.search(r"league: +\d+ games in \d+\.\d s \(\d+\.\d\d games/s, "
                     r"\d+\.\d\dx the tournament\)", result.output)
    assert re.search(r"20 concurrent clients while games run:\n"
                     r" +each on a connection kept open: \d+ requests, p50 \d+\.\d ms, "
                     r"p99 \d+\.\d ms\n"
                     r" +a new connection per request: +\d+ requests, p50 \d+\.\d ms, "
                     r"p99 \d+\.\d ms", result.output)
