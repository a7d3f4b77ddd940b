"""`arena tournament CONFIG --plan`: what the next run would play, how long, how sure; on
synthetic stores whose games took known seconds (no bot is started), and once beside a real
run, whose games and entrant keys must be what the plan said."""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import main
from arena.intake import folder_version
from arena.ratings.planning import expected_half_width
from arena.referee.manifest import load_manifest
from arena.referee.record import Termination
from arena.tournament.config import available_cores, load_config
from arena.tournament.plan import (
    FIXED_PART,
    LANGUAGE_SECONDS,
    LANGUAGE_TARGET,
    OTHER_LANGUAGE_SECONDS,
    Source,
    StoreRows,
    TournamentPlan,
    build_plan,
    duration,
    fit_costs,
    language_seconds,
    plan_tournament,
)
from arena.tournament.schedule import entrant_key, round_robin
from arena.tournament.store import EntrantRow, GameRow, Store
from tests.tournament.conftest import copy_bot, write_config

SECONDS = {"a": 1.0, "b": 2.0, "c": 3.0, "d": 4.0}
"""Each synthetic entrant's share of a game's seconds."""


def bots(folder: Path, names: list[str]) -> list[Path]:
    """Copies of the random bot under these names (python; never started here)."""
    return [copy_bot("random", folder / name, name=name) for name in names]


def key_of(folder: Path) -> str:
    manifest = load_manifest(folder)
    return entrant_key(manifest.name, folder_version(folder))


def store_games(config: Path, folders: list[Path], pairs: int,
                wanted: Callable[[set[str], int], bool] = lambda names, pair: True) -> int:
    """Register the bots' current versions and store the games of their round robin (those
    `wanted` says, by the matchup's names and the pair's index), each taking the sum of its
    entrants' `SECONDS`: rows only, as a run stores them, without records or bots."""
    cfg = load_config(config, bots=False)
    keys = {}
    with Store(cfg.storage) as store:
        for folder in folders:
            manifest = load_manifest(folder)
            key = key_of(folder)
            keys[key] = manifest.name
            store.register_entrant(EntrantRow(key, manifest.name, key.split("@")[1], "1.0",
                                              manifest.language, str(manifest.folder),
                                              "config", False))
        stored = 0
        for game in round_robin(keys, pairs, 0):
            names = [keys[k] for k in game.matchup]
            if not wanted(set(names), game.pair_index):
                continue
            winner = game.pair_index % 2
            store.add_game(GameRow(game, (1000, 500) if winner == 0 else (500, 1000), winner,
                                   8, Termination.NORMAL, None, None,
                                   sum(SECONDS[n] for n in names), f"r/{game.game_id}"))
            stored += 1
    return stored


def plan_json(config: Path, *args: str) -> dict:
    result = CliRunner().invoke(main, ["tournament", str(config), "--plan", "--format", "json",
                                       *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def said(output: str) -> str:
    """The plan's text with its lines joined (a long line goes on, indented, on the next)."""
    return " ".join(output.split())


def by_name(plan: dict) -> dict[str, dict]:
    return {e["name"]: e for e in plan["entrants"]}


def test_a_fresh_config_is_planned_without_a_store_a_build_or_a_snapshot(tmp_path):
    bots(tmp_path, ["a", "b", "c"])
    broken = copy_bot("random", tmp_path / "d", name="d")
    manifest = broken / "bot.toml"
    manifest.write_text(manifest.read_text().replace('language = "python"',
                                                     'language = "python"\nbuild = ["false"]'))
    config = write_config(tmp_path, ["a", "b", "c", "d"], games=10,
                          extra='[intake]\nfolder = "cache"\n')
    result = CliRunner().invoke(main, ["tournament", str(config), "--plan"])
    assert result.exit_code == 0, result.output
    text = said(result.output)
    assert "nothing is played" in text
    assert "Matchups: 6 (4 entrants: n(n-1)/2): 0 complete, 0 begun, 6 not started." in text
    assert "60 scheduled, 0 stored, 60 to play." in text
    assert text.count("no games yet, 30 to play") == 4
    python = language_seconds("python", 200)
    assert f"in seconds per game to 200: python {python:.2f} (default)." in text
    assert "Workers: 2 (the config's concurrency; " in text
    assert f"about ±{expected_half_width(4, 10, anchored=False):.0f} Elo" in text
    assert "against the anchor random" not in text  # no bot named random: mean-centred
    assert "own matchups: 3 x 10 = 30 games" in text and "A new bot plays 4 x 10 = 40." in text
    assert not (tmp_path / "t.sqlite").exists()
    assert not (tmp_path / "cache").exists()  # no snapshot taken, nothing built
    assert not (tmp_path / "t.sqlite.records").exists()


def test_the_time_comes_from_the_stored_games_and_the_missing_from_the_schedule(tmp_path):
    folders = bots(tmp_path, ["a", "b", "c", "d"])
    config = write_config(tmp_path, ["a", "b", "c", "d"], games=4)
    stored = store_games(config, folders, 2, lambda names, pair: "d" not in names
                         or names == {"a", "d"} and pair == 0)
    assert stored == 14  # a-b, a-c, b-c complete; a-d's first pair
    plan = plan_json(config, "-j", "1")
    entrants = by_name(plan)
    for name, seconds in SECONDS.items():
        assert entrants[name]["seconds_per_game"] == pytest.approx(seconds, abs=1e-6)
        assert entrants[name]["cost_from"].startswith("its ")
    assert (plan["matchups"], plan["matchups_complete"], plan["matchups_begun"]) == (6, 3, 1)
    assert (plan["games_scheduled"], plan["games_to_play"]) == (24, 10)
    assert {n: e["games_to_play"] for n, e in entrants.items()} == {
        "a": 2, "b": 4, "c": 4, "d": 10}
    assert entrants["d"]["stored_games"] == 2
    to_play = 2 * (SECONDS["a"] + SECONDS["d"]) + 4 * sum(
        SECONDS[x] + SECONDS["d"] for x in "bc")
    assert plan["game_seconds"] == pytest.approx(to_play)
    assert (plan["workers"], plan["workers_from"], plan["at_once"]) == (1, "-j", 1)
    assert plan["wall_seconds"] == pytest.approx(to_play)
    assert plan["cost_games"] == 14 and not plan["assumed"]


def test_a_new_version_plays_only_its_own_matchups_at_its_earlier_cost(tmp_path):
    folders = bots(tmp_path, ["a", "b", "c", "d"])
    config = write_config(tmp_path, ["a", "b", "c", "d"], games=4)
    store_games(config, folders, 2)
    assert plan_json(config)["games_to_play"] == 0
    old = key_of(folders[1])
    (folders[1] / "README.md").write_text("a new version\n")
    plan = plan_json(config, "-j", "2")
    entrants = by_name(plan)
    assert entrants["b"]["key"] != old and entrants["b"]["replaces"] == old
    assert entrants["b"]["stored_games"] == 0 and entrants["b"]["games_to_play"] == 12
    assert entrants["b"]["cost_from"] == "its earlier versions' games"
    assert entrants["b"]["seconds_per_game"] == pytest.approx(SECONDS["b"], abs=1e-6)
    assert plan["games_to_play"] == 12 == plan["new_version_games"]  # (n - 1) x games
    assert (plan["matchups_complete"], plan["matchups_begun"]) == (3, 0)
    assert {n: e["games_to_play"] for n, e in entrants.items()} == {
        "a": 4, "b": 12, "c": 4, "d": 4}
    text = said(CliRunner().invoke(main, ["tournament", str(config), "--plan"]).output)
    assert f"new version (replaces {old.split('@')[1][:8]})" in text


def test_a_submitted_bot_is_planned_from_the_store_and_by_its_language(tmp_path):
    folders = bots(tmp_path, ["a", "b", "c"])
    config = write_config(tmp_path, ["a", "b", "c"], games=2,
                          extra='[intake]\nfolder = "cache"\n')
    store_games(config, folders, 1)
    newcomer = copy_bot("random", tmp_path / "newcomer", name="newcomer")
    manifest = newcomer / "bot.toml"  # a language no entrant of the store has
    manifest.write_text(manifest.read_text().replace('language = "python"', 'language = "node"'))
    result = CliRunner().invoke(main, ["submit", str(newcomer), "--tournament", str(config)])
    assert result.exit_code == 0, result.output
    plan = plan_json(config)
    entrant = by_name(plan)["newcomer"]
    assert (entrant["source"], entrant["language"], entrant["games_to_play"]) == (
        "submit", "node", 6)
    assert entrant["cost_from"] == "node default"
    assert plan["assumed"] == [f"node {language_seconds('node', 200):.2f} (default)"]
    assert plan["games_to_play"] == 6


def test_a_folder_intake_would_refuse_is_named_and_plays_nothing(tmp_path):
    bots(tmp_path, ["a", "b", "c"])
    os.mkfifo(tmp_path / "c" / "pipe")
    config = write_config(tmp_path, ["a", "b", "c"], games=2)
    result = CliRunner().invoke(main, ["tournament", str(config), "--plan"])
    assert result.exit_code == 0, result.output
    text = said(result.output)
    assert "refused by intake, plays nothing:" in text and "FIFO" in text
    assert "2 scheduled, 0 stored, 2 to play." in text


def test_a_cluster_plays_as_many_games_at_a_time_as_it_has_workers(tmp_path):
    bots(tmp_path, ["a", "b", "c", "d", "e"])
    config = write_config(tmp_path, ["a", "b", "c", "d", "e"], games=4)
    remote = plan_json(config, "--cluster", "tcp://scheduler:8786", "-j", "8")
    assert (remote["workers"], remote["at_once"], remote["cluster"]) == (
        8, 8, "tcp://scheduler:8786")
    assert remote["wall_seconds"] == pytest.approx(remote["game_seconds"] / 8)
    local = plan_json(config, "--cluster", "local:3")
    assert (local["workers"], local["workers_from"]) == (3, "local:3")
    assert local["at_once"] == min(3, available_cores())


def test_format_needs_plan(tmp_path):
    bots(tmp_path, ["a", "b"])
    config = write_config(tmp_path, ["a", "b"])
    result = CliRunner().invoke(main, ["tournament", str(config), "--format", "json"])
    assert result.exit_code == 2 and "--format goes with --plan" in result.output


def test_the_plan_names_the_keys_and_the_games_a_real_run_then_plays(tmp_path):
    copy_bot("random", tmp_path / "random")
    copy_bot("heuristic", tmp_path / "heuristic")
    config = write_config(tmp_path, ["random", "heuristic"], games=2, target=200)
    before = plan_tournament(load_config(config))
    assert before.games_to_play == 2 and not (tmp_path / "t.sqlite").exists()
    result = CliRunner().invoke(main, ["tournament", str(config), "-j", "1", "--no-standings"])
    assert result.exit_code == 0, result.output
    assert "2 games played" in result.output
    with Store(tmp_path / "t.sqlite", read_only=True) as store:
        assert {e.key for e in store.entrants()} == {e.key for e in before.entrants}
    after = plan_tournament(load_config(config))
    assert after.games_to_play == 0 and after.cost_games == 2
    assert "Time: nothing to play." in after.lines()
    assert all(len(line) <= 92 for line in after.lines()[2:])  # but the config's path


def test_the_default_costs_scale_with_the_target(tmp_path):
    """A game's rounds grow as its target, and its seconds as its rounds but for a fixed part
    (the bots' start-up, a game's welcome and end): with the same entrants and no stored
    games, a plan to 500 takes a little more than half the time of one to 1000, one to 2000
    a little less than twice."""
    folders = bots(tmp_path, ["a", "b", "c"])
    for folder, language in zip(folders, ["node", "java", "brainfuck"], strict=True):
        manifest = folder / "bot.toml"
        manifest.write_text(manifest.read_text().replace('language = "python"',
                                                         f'language = "{language}"'))
    config = load_config(write_config(tmp_path, ["a", "b", "c"], games=4, target=1000))
    sources = [Source(m, "config", folder_version(m.folder)) for m in config.entrants]

    def plan_to(target: int) -> TournamentPlan:
        return build_plan(dataclasses.replace(config, target=target), sources, StoreRows(),
                          workers=1, cores=2)

    full, half, double = plan_to(1000), plan_to(500), plan_to(2000)
    shares = LANGUAGE_SECONDS["node"] + LANGUAGE_SECONDS["java"] + OTHER_LANGUAGE_SECONDS
    assert LANGUAGE_TARGET == 1000  # each of the 3 matchups plays 4 games; each entrant 2
    assert full.game_seconds == pytest.approx(4 * 2 * shares)
    ratio = half.game_seconds / full.game_seconds
    assert ratio == pytest.approx((1 + FIXED_PART) / 2) and 0.5 < ratio < 0.7
    assert double.game_seconds / full.game_seconds == pytest.approx(2 - FIXED_PART)
    for plan in (half, double):
        assert plan.wall_seconds / full.wall_seconds == pytest.approx(
            plan.game_seconds / full.game_seconds)
        assert plan.new_version_seconds / full.new_version_seconds == pytest.approx(
            plan.game_seconds / full.game_seconds)
    assert [e.seconds_per_game for e in half.entrants] == pytest.approx(
        [ratio * LANGUAGE_SECONDS["node"], ratio * LANGUAGE_SECONDS["java"],
         ratio * OTHER_LANGUAGE_SECONDS])
    assert half.target == 500 and "in seconds per game to 500: " in said("\n".join(half.lines()))


def test_stored_costs_are_the_store_target_s_and_are_not_scaled(tmp_path):
    folders = bots(tmp_path, ["a", "b", "c", "d"])
    config = write_config(tmp_path, ["a", "b", "c", "d"], games=4, target=500)
    store_games(config, folders, 2)
    (folders[0] / "README.md").write_text("a new version\n")
    plan = plan_json(config, "-j", "1")
    assert by_name(plan)["a"]["seconds_per_game"] == pytest.approx(SECONDS["a"], abs=1e-6)
    assert plan["target"] == 500


def test_costs_are_fitted_by_least_squares_and_never_negative():
    games = [(a, b, SECONDS[a] + SECONDS[b]) for a in "abcd" for b in "abcd" if a < b]
    assert fit_costs(games) == pytest.approx(SECONDS, abs=1e-6)
    assert fit_costs([("x", "y", 3.0), ("y", "x", 5.0)]) == {"x": 2.0, "y": 2.0}
    lopsided = fit_costs([("x", "y", 10.0), ("x", "z", 10.0), ("y", "z", 1.0)])
    assert min(lopsided.values()) >= 0.0


@pytest.mark.parametrize("seconds, text", [(42.4, "42 s"), (600, "10 min"),
                                           (3 * 3600 + 1200, "3 h 20 min"), (7200, "2 h"),
                                           (5 * 86400, "5.0 days")])
def test_durations_read_at_a_glance(seconds, text):
    assert duration(seconds) == text
