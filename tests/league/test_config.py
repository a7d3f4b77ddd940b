"""League configs (arena.league.config): the commented example loads, and every mistake is a
ConfigError naming the file, the key and the problem, as a tournament config's."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.league.config import load_league
from tests.league.conftest import ROOT, write_config


def test_the_example_league_loads_with_its_house_bots():
    config = load_league(ROOT / "tournaments" / "league.toml")
    assert [m.name for m in config.tournament.entrants] == ["random", "heuristic"]
    assert config.upload_bytes == 20 * 2**20 and config.uploads_per_hour == 10
    assert config.practice_per_day == 5 and config.games_per_minute is None
    assert config.uploads == ROOT / "tournaments" / "league.sqlite.uploads"


@pytest.mark.parametrize("extra, key, problem", [
    ("[league]\nuploads_per_hour = 0\n", "league.uploads_per_hour", "at least 1"),
    ("[league]\nupload_megabytes = \"big\"\n", "league.upload_megabytes", "an integer"),
    ("[league]\nbogus = 1\n", "league.bogus", "unknown key"),
    ("[league]\npractice_per_day = 0\n", "league.practice_per_day", "at least 1"),
    ("[league]\ngames_per_minute = 0\n", "league.games_per_minute", "at least 1"),
    ("[league]\ngames_per_minute = 1.5\n", "league.games_per_minute", "an integer"),
    ("[leage]\n", "leage", "unknown key"),
])
def test_a_mistake_names_file_key_and_problem(tmp_path: Path, extra: str, key: str,
                                              problem: str):
    config = write_config(tmp_path)
    text = config.read_text().replace("[league]\n", "[ignored]\n").split("[ignored]")[0]
    config.write_text(text + extra)
    with pytest.raises(ConfigError) as caught:
        load_league(config)
    message = str(caught.value)
    assert str(config) in message and key in message and problem in message


def test_a_league_refuses_a_public_seed(tmp_path: Path):
    config = write_config(tmp_path)
    config.write_text(config.read_text().replace("\ntarget = 100\n", "\ntarget = 100\nseed = 3\n"))
    with pytest.raises(ConfigError, match="tournament.seed.*secret deals"):
        load_league(config)


def test_a_league_may_cap_its_games_a_minute(tmp_path: Path):
    assert load_league(write_config(tmp_path, games_per_minute=30)).games_per_minute == 30
    assert load_league(write_config(tmp_path, games_per_minute=None)).games_per_minute is None
