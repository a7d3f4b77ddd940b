"""Hostile bots against the tournament: a bot cannot compute its deals from what it receives
and public code, no process plays two games on the same deals, and a result a bot writes
into the store ahead of the referee stops the run instead of standing."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import main
from arena.tournament.records import read_record
from tests.pace import play_options
from tests.tournament.conftest import copy_bot, game_rows, game_seeds, hostile_bot, write_config

pytestmark = pytest.mark.timeout(180)


def outputs(folder: Path) -> list[str]:
    """Every seat's output in every record of the store in `folder`."""
    texts = []
    for row in game_rows(folder / "t.sqlite"):
        if (folder / row[9]).is_file():
            texts += read_record(folder / row[9]).bot_output
    return texts


def tournament(config: Path, *args: str):
    return CliRunner().invoke(main, ["tournament", str(config), "--no-standings", *args])


def against_random(tmp_path: Path, mode: str, games: int, **settings: object):
    """A tournament of the hostile bot in `mode` against the random bot, on one worker."""
    hostile_bot(tmp_path / mode, mode, **settings)
    copy_bot("random", tmp_path / "random")
    config = write_config(tmp_path, [mode, "random"], games=games, target=100)
    return config, tournament(config, "-j", "1")


def test_a_bot_cannot_compute_its_hand_from_what_it_receives(tmp_path):
    secret, result = against_random(tmp_path, "cracker", games=2)
    assert result.exit_code == 0, result.output
    said = "\n".join(outputs(tmp_path))
    assert "cracker: not cracked" in said and "CRACKED" not in said

    # the attack works where the deals are public: a config that fixes a seed says so
    (tmp_path / "fixed").mkdir()
    fixed = write_config(tmp_path / "fixed", ["../cracker", "../random"], games=2, target=100,
                         seed=7)
    result = tournament(fixed, "-j", "1")
    assert result.exit_code == 0, result.output
    assert "deals: fixed seed 7" in result.output
    assert "CRACKED" in "\n".join(outputs(tmp_path / "fixed"))
    standings = CliRunner().invoke(main, ["standings", str(fixed)])
    header = standings.output.split("\n\n")[0]  # the lines above the table
    assert "Deals: fixed seed 7 (tournament.seed): reproducible, and public" in header
    assert "Deals:" not in CliRunner().invoke(main, ["standings", str(secret)]).output


def test_arena_play_draws_a_seed_no_bot_can_learn_unless_one_is_given(tmp_path):
    cracker = hostile_bot(tmp_path / "cracker", "cracker")
    random_bot = copy_bot("random", tmp_path / "random")
    seeds = []
    for k, extra in enumerate([[], [], ["--seed", "5"]]):
        record = tmp_path / f"game{k}.json"
        result = CliRunner().invoke(main, ["play", str(cracker), str(random_bot), "--target",
                                           "50", "--record", str(record), *extra,
                                           *play_options()])
        assert result.exit_code == 0, result.output
        game = read_record(record)
        seeds.append(game.seed)
        assert str(game.seed) in result.output  # shown, to replay the deals with --seed
        said = "\n".join(game.bot_output)
        assert ("CRACKED" in said) == bool(extra), said
    assert seeds[0] != seeds[1] and seeds[2] == 5


def test_the_same_store_deals_the_same_again_and_a_new_store_new_deals(tmp_path, two_bots):
    config = write_config(tmp_path, ["random", "heuristic"], games=2, target=100)
    assert tournament(config, "-j", "1").exit_code == 0
    seeds = game_seeds(tmp_path / "t.sqlite")
    with sqlite3.connect(tmp_path / "t.sqlite") as db:  # lose a game, as a killed run does
        db.execute("DELETE FROM games WHERE game_index = 1")
    result = tournament(config, "-j", "1")
    assert result.exit_code == 0 and "1 games played" in result.output, result.output
    assert game_seeds(tmp_path / "t.sqlite") == seeds

    (tmp_path / "t.sqlite").rename(tmp_path / "old.sqlite")
    assert tournament(config, "-j", "1").exit_code == 0
    fresh = game_seeds(tmp_path / "t.sqlite")
    assert fresh.keys() == seeds.keys() and set(fresh.values()).isdisjoint(seeds.values())


def test_a_pair_half_stored_by_an_older_arena_is_completed_on_its_stored_deals(tmp_path,
                                                                             two_bots):
    """A store left half played by an arena that dealt each pair index alike: the missing
    game of its pair is dealt what the stored game was, not the pair's new seed."""
    config = write_config(tmp_path, ["random", "heuristic"], games=2, target=100)
    assert tournament(config, "-j", "1").exit_code == 0
    with sqlite3.connect(tmp_path / "t.sqlite") as db:
        db.execute("DELETE FROM games WHERE game_index = 1")
        db.execute("UPDATE games SET seed = 42")  # as the older arena dealt it
    result = tournament(config, "-j", "1")
    assert result.exit_code == 0 and "1 games played" in result.output, result.output
    assert set(game_seeds(tmp_path / "t.sqlite").values()) == {42}


def test_no_process_plays_two_games_on_the_same_deals_yet_processes_are_reused(tmp_path):
    _, result = against_random(tmp_path, "spy", games=8)
    assert result.exit_code == 0, result.output
    seeds = game_seeds(tmp_path / "t.sqlite")
    played: dict[str, set[str]] = {}  # spy process -> the games it was welcomed to
    for text in outputs(tmp_path):
        assert "REMEMBERS" not in text
        for nonce, game_id in re.findall(r"^spy: (\w+) (\S+)$", text, re.MULTILINE):
            played.setdefault(nonce, set()).add(game_id)
    assert set().union(*played.values()) == set(seeds)
    for games in played.values():
        deals = [seeds[g] for g in games]
        assert len(deals) == len(set(deals)), f"one process saw the same deals twice: {games}"
    assert max(len(games) for games in played.values()) >= 3  # reused over several pairs


def test_a_result_written_into_the_store_ahead_of_the_referee_never_stands(tmp_path):
    db = tmp_path / "t.sqlite"
    _, result = against_random(tmp_path, "forger", games=2, store=str(db))
    forged = [r for r in game_rows(db) if r[9] == "forged"]
    if "could not forge" in "\n".join(outputs(tmp_path)) and result.exit_code == 0:
        assert not forged  # the store was out of the bot's reach (a sandbox)
    else:  # the bot wrote it: the run must stop loudly, the forged row being no result
        assert result.exit_code == 1, result.output
        assert "integrity error" in result.output and "forger" in result.output
    for row in game_rows(db):  # whatever stands agrees with a record the referee wrote
        if row[9] != "forged":
            record = read_record(tmp_path / row[9])
            assert record.game_id == row[0] and tuple(record.scores) == (row[4], row[5])
