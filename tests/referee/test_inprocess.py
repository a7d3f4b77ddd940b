"""arena.referee.inprocess and the two shipped bots: legal play through the wire, determinism, strength."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.referee.inprocess import load_bot, measure, play_local_game
from arena.referee.manifest import load_manifest
from arena.rules import Game

BOTS = Path(__file__).resolve().parents[2] / "bots"
HEURISTIC, RANDOM = load_bot(BOTS / "heuristic"), load_bot(BOTS / "random")


@pytest.mark.parametrize("name", ["random", "heuristic"])
def test_bot_folder_has_a_valid_manifest_and_readme(name):
    manifest = load_manifest(BOTS / name)
    assert manifest.name == name and manifest.language == "python"
    assert manifest.command == ("python", "bot.py")
    assert (BOTS / name / "README.md").is_file()


@pytest.mark.timeout(60)
def test_bots_play_a_whole_game_through_encoded_messages():
    seen = []
    game = play_local_game(2, [HEURISTIC(0), RANDOM(1), HEURISTIC(2), RANDOM(3)], target=500,
                           record=lambda seat, sender, message, data: seen.append(sender))
    assert game.over and game.winner in (0, 1)
    # The SDK says auto_pass: a turn where passing is all a seat may do is passed unasked.
    replay, forced = Game(2, 500), 0
    for seat, action in game.actions:
        forced += replay.decision(seat).only_pass
        replay.apply(seat, action)
    assert forced > 0
    assert seen.count("bot") == len(game.actions) - forced + 4  # a reply per asked action, hellos


@pytest.mark.timeout(60)
def test_same_seeds_same_game():
    def actions():
        return play_local_game(9, [HEURISTIC(0), RANDOM(1), HEURISTIC(2), RANDOM(3)]).actions
    assert actions() == actions()


@pytest.mark.timeout(60)
def test_heuristic_beats_random():
    result = measure(HEURISTIC, RANDOM, pairs=5, seed=100)
    assert result.games == 10
    assert result.win_rate >= 0.8
    assert result.points_a > result.points_b
