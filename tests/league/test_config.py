"""League configs (arena.league.config): the commented example loads, and every mistake is a
ConfigError naming the file, the key and the problem, as a tournament config's."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.league import config as league_config
from arena.league.config import ServerLimits, load_league
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
    ("[league]\nconnections = 0\n", "league.connections", "at least 1"),
    ("[league]\nconnections_per_client = 300\n", "league.connections_per_client",
     "at most league.connections (256)"),
    ("[league]\nstreams = 300\n", "league.streams", "at most league.connections (256)"),
    ("[league]\nstreams_per_client = 65\n", "league.streams_per_client",
     "at most league.streams (64)"),
    ("[league]\nheader_seconds = 0\n", "league.header_seconds", "above 0"),
    ("[league]\nbody_seconds = \"long\"\n", "league.body_seconds", "a number"),
    ("[league]\nstream_minutes = -1\n", "league.stream_minutes", "above 0"),
    ("[league]\nproxies = \"127.0.0.1\"\n", "league.proxies", "a list of addresses"),
    ("[league]\nproxies = [\"*\"]\n", "league.proxies", "'*' is not an IP address"),
    ("[league]\nproxies = [1]\n", "league.proxies", "1 is not an IP address"),
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


def test_the_example_documents_the_server_limits_with_their_defaults():
    config = load_league(ROOT / "tournaments" / "league.toml")
    assert config.limits == ServerLimits()
    text = (ROOT / "tournaments" / "league.toml").read_text()
    for limit in fields(ServerLimits):
        assert f"\n{limit.name} = " in text, limit.name
        assert f"\n{limit.name} = " in (league_config.__doc__ or ""), limit.name


def test_the_server_limits_are_read_from_the_league_table(tmp_path: Path):
    config = write_config(tmp_path, extra="connections = 40\nconnections_per_client = 8\n"
                          "streams = 10\nstreams_per_client = 2\nheader_seconds = 2.5\n"
                          "body_seconds = 30\nstream_minutes = 1\nproxies = [\"10.0.0.0/8\"]\n")
    assert load_league(config).limits == ServerLimits(40, 8, 10, 2, 2.5, 30.0, 1.0,
                                                      ("10.0.0.0/8",))


def test_a_league_refuses_a_public_seed(tmp_path: Path):
    config = write_config(tmp_path)
    config.write_text(config.read_text().replace("\ntarget = 100\n", "\ntarget = 100\nseed = 3\n"))
    with pytest.raises(ConfigError, match="tournament.seed.*secret deals"):
        load_league(config)


def test_a_league_may_cap_its_games_a_minute(tmp_path: Path):
    assert load_league(write_config(tmp_path, games_per_minute=30)).games_per_minute == 30
    assert load_league(write_config(tmp_path, games_per_minute=None)).games_per_minute is None
