"""Tournament configs: a bad one is an error naming the file, the key and the problem, and
nothing starts."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import main
from arena.errors import ConfigError
from arena.referee.match import TimeControl
from arena.sandbox import DEFAULT_LIMITS
from arena.tournament.config import load_config
from tests.tournament import conftest
from tests.tournament.conftest import ROOT, copy_bot

PARSED = TimeControl(hello=10.0, decision=3.0, bank=60.0)
"""The time control of these configs, only read, never played: values under test (so no
pace is measured, and nothing starts)."""
write_config = functools.partial(conftest.write_config, control=PARSED)

pytestmark = pytest.mark.timeout(30)


def test_demo_config_loads_with_the_bundled_bots_and_the_random_anchor():
    config = load_config(ROOT / "tournaments" / "demo.toml")
    names = [m.name for m in config.entrants]
    assert {"random", "heuristic"} <= set(names)
    assert config.games_per_matchup % 2 == 0 and config.target == 1000
    assert config.ratings.anchor == "random"
    assert config.storage == ROOT / "tournaments" / "demo.sqlite"


def test_paths_are_relative_to_the_config_file(tmp_path, two_bots):
    config = load_config(write_config(tmp_path, ["random", "heuristic"]))
    assert [m.folder for m in config.entrants] == list(two_bots)
    assert config.storage == tmp_path / "t.sqlite"
    assert config.records == tmp_path / "t.sqlite.records"
    assert config.pairs_per_matchup == 1 and config.time.decision == 3.0


@pytest.mark.parametrize("change, key, problem", [
    (("games_per_matchup = 2", "games_per_matchup = 3"), "tournament.games_per_matchup",
     "even"),
    (("target = 200", "target = \"many\""), "tournament.target", "must be an integer"),
    (("seed = 7", "seed = -1"), "tournament.seed", "between"),
    (("concurrency = 2", "concurrency = 2\nworkers = 3"), "tournament.workers", "unknown key"),
    (("decision = 3.0", "decision = 0"), "time.decision", "positive"),
    (("anchor = \"random\"", "anchor = 3"), "ratings.anchor", "must be a string"),
    (("concurrency = 2", "concurrency = 2\npin_cpus = 1"), "tournament.pin_cpus",
     "must be true or false"),
    (("concurrency = 2", "concurrency = 2\nisolation = \"jail\""), "tournament.isolation",
     "must be one of 'auto', 'sandbox', 'none'"),
    (('    "heuristic",', '    "nowhere",'), "tournament.entrants[1]", "not a bot folder"),
    (('    "heuristic",', '    "random",'), "tournament.entrants[1]", "listed twice"),
])
def test_a_bad_value_names_file_key_and_problem(tmp_path, two_bots, change, key, problem):
    path = write_config(tmp_path, ["random", "heuristic"], seed=7)
    path.write_text(path.read_text().replace(*change))
    with pytest.raises(ConfigError) as error:
        load_config(path)
    message = str(error.value)
    assert str(path) in message and f"'{key}'" in message and problem in message


def test_missing_table_and_invalid_toml_are_named(tmp_path):
    path = tmp_path / "t.toml"
    path.write_text("[time]\ndecision = 1.0\n")
    with pytest.raises(ConfigError, match=r"t.toml: missing table \[tournament\]"):
        load_config(path)
    path.write_text("[tournament\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(path)


def test_two_folders_with_the_same_bot_name_are_refused(tmp_path, two_bots):
    from tests.tournament.conftest import copy_bot

    copy_bot("random", tmp_path / "random2")
    path = write_config(tmp_path, ["random", "random2"])
    with pytest.raises(ConfigError, match="'tournament.entrants\\[1\\]'.*'random' is also"):
        load_config(path)


def test_cli_exits_2_on_a_bad_config_and_starts_nothing(tmp_path, two_bots):
    path = write_config(tmp_path, ["random", "heuristic"])
    path.write_text(path.read_text().replace("games_per_matchup = 2", "games_per_matchup = 0"))
    result = CliRunner().invoke(main, ["tournament", str(path)])
    assert result.exit_code == 2
    assert "'tournament.games_per_matchup'" in result.output and str(path) in result.output
    assert not (tmp_path / "t.sqlite").exists()
    assert not (tmp_path / "t.sqlite.records").exists()


def test_a_store_started_with_another_seed_is_refused(tmp_path, two_bots):
    from arena.tournament.runner import open_store

    path = write_config(tmp_path, ["random", "heuristic"], seed=7)
    open_store(load_config(path)).close()
    path.write_text(path.read_text().replace("seed = 7", "seed = 8"))
    with pytest.raises(ConfigError, match="'tournament.seed'.*started with seed = 7"):
        open_store(load_config(path))
    path.write_text(path.read_text().replace("seed = 8\n", ""))
    with pytest.raises(ConfigError, match="'tournament.seed'.*started with seed = 7, not "
                       "secret deals.*set seed = 7 again"):
        open_store(load_config(path))


def test_a_store_started_with_secret_deals_refuses_a_fixed_seed(tmp_path, two_bots):
    from arena.tournament.runner import open_store

    path = write_config(tmp_path, ["random", "heuristic"])
    open_store(load_config(path)).close()
    path.write_text(path.read_text().replace("concurrency = 2", "seed = 1\nconcurrency = 2"))
    with pytest.raises(ConfigError, match="started with secret deals.*remove the seed"):
        open_store(load_config(path))


def mixed_config(tmp_path, extra: str = "cycles = 2") -> Path:
    """A config of mixed partners over four copies of the random bot."""
    names = ["random", "r2", "r3", "r4"]
    for name in names:
        copy_bot("random", tmp_path / name, None if name == "random" else name)
    path = write_config(tmp_path, names)
    path.write_text(path.read_text().replace("games_per_matchup = 2\n",
                                             f'partners = "mixed"\n{extra}\n'))
    return path


def test_mixed_partners_are_chosen_in_the_config_and_played_in_cycles(tmp_path):
    config = load_config(mixed_config(tmp_path))
    assert config.mixed and config.partners == "mixed" and config.cycles == 2
    assert not load_config(ROOT / "tournaments" / "demo.toml").mixed  # the default: fixed


@pytest.mark.parametrize("extra, key, problem", [
    ("cycles = 0", "tournament.cycles", "at least 1"),
    ("cycles = 2\ngames_per_matchup = 4", "tournament.games_per_matchup",
     "there are no matchups"),
])
def test_a_bad_mixed_config_names_file_key_and_problem(tmp_path, extra, key, problem):
    path = mixed_config(tmp_path, extra)
    with pytest.raises(ConfigError, match=f"'{key}'.*{problem}"):
        load_config(path)


def test_fixed_partners_have_no_cycles_and_mixed_ones_need_four_entrants(tmp_path, two_bots):
    path = write_config(tmp_path, ["random", "heuristic"])
    path.write_text(path.read_text().replace("games_per_matchup = 2", "cycles = 2"))
    with pytest.raises(ConfigError, match="'tournament.cycles': only for partners"):
        load_config(path)
    path.write_text(path.read_text().replace("cycles = 2", 'partners = "mixed"'))
    with pytest.raises(ConfigError, match="'tournament.entrants': mixed partners need at "
                                          "least four entrants"):
        load_config(path)
    path.write_text(path.read_text().replace('"mixed"', '"random"'))
    with pytest.raises(ConfigError, match="'tournament.partners': must be one of 'fixed', "
                                          "'mixed'"):
        load_config(path)


def test_a_plan_covers_fixed_partners_only(tmp_path):
    from arena.tournament.plan import plan_tournament

    with pytest.raises(ConfigError, match="'tournament.partners': --plan covers tournaments "
                                          "of fixed partners"):
        plan_tournament(load_config(mixed_config(tmp_path)))


def test_a_store_of_fixed_partners_refuses_a_config_of_mixed_ones(tmp_path):
    from arena.tournament.runner import open_store

    path = mixed_config(tmp_path)
    fixed = path.read_text().replace('partners = "mixed"\ncycles = 2\n',
                                     "games_per_matchup = 2\n")
    path.with_name("fixed.toml").write_text(fixed)
    open_store(load_config(path.with_name("fixed.toml"))).close()
    with pytest.raises(ConfigError, match="'tournament.partners'.*played with fixed partners, "
                                          "not mixed"):
        open_store(load_config(path))


@pytest.mark.parametrize("key, value", [("storage", "random/t.sqlite"),
                                        ("records", "heuristic/records")])
def test_the_store_and_records_must_be_outside_every_bot_folder(tmp_path, two_bots, key,
                                                                 value):
    path = write_config(tmp_path, ["random", "heuristic"])
    line = f'{key} = "{value}"' + ('' if key == "storage" else '\nstorage = "t.sqlite"')
    path.write_text(path.read_text().replace('storage = "t.sqlite"', line))
    with pytest.raises(ConfigError, match=rf"'tournament.{key}'.*inside the folder of the bot"):
        load_config(path)


def test_tournament_limits_are_a_ceiling_over_each_bots_own(tmp_path, two_bots):
    config = load_config(write_config(tmp_path, two_bots,
                                      extra="\n[limits]\nmemory_mb = 1024\ncpu_seconds = 0\n"))
    assert config.limits.memory_mb == 1024 and config.limits.cpu_seconds is None
    assert config.limits.open_files == DEFAULT_LIMITS.open_files, "unset: the default ceiling"
    limited = config.with_limits(config.entrants[0])
    assert limited.limits.memory_mb == 1024 and limited.limits.cpu_seconds is None
    assert limited.limits.open_files == DEFAULT_LIMITS.open_files


def test_a_manifest_cannot_raise_a_tournament_limit_nor_lift_it(tmp_path):
    folder = copy_bot("random", tmp_path / "greedy", name="greedy")
    with open(folder / "bot.toml", "a") as manifest:
        manifest.write("\n[limits]\nmemory_mb = 0\nprocesses = 100000\nopen_files = 16\n")
    config = load_config(write_config(tmp_path, ["greedy"], extra="\n[limits]\n"
                                      "memory_mb = 1024\nprocesses = 64\n"))
    limits = config.with_limits(config.entrants[0]).limits
    assert (limits.memory_mb, limits.processes, limits.open_files) == (1024, 64, 16)


def test_bad_tournament_limits_name_file_key_and_problem(tmp_path, two_bots):
    path = write_config(tmp_path, two_bots, extra="\n[limits]\nmemory_mb = -5\n")
    with pytest.raises(ConfigError, match=r"t\.toml: key 'limits\.memory_mb' must be a whole"):
        load_config(path)
