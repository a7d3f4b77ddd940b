"""The config reference names every key the loaders know, and nothing else, and the loaders
take its examples. The reference's blocks come from the config modules' docstrings
(docs/hooks/arena_docs.py), so these tests hold those docstrings to the code."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest

import arena.league.config
import arena.tournament.config
from arena.errors import ConfigError
from arena.league.config import load_league
from arena.tournament.config import load_config
from tests.docs.pages import DOCS, ROOT

HOOKS = DOCS / "hooks"


def hook() -> Any:
    """The hook that renders the pages (docs/hooks/arena_docs.py)."""
    sys.path.insert(0, str(HOOKS))
    try:
        import arena_docs
    finally:
        sys.path.remove(str(HOOKS))
    return arena_docs


def toml_of(docstring: str | None) -> str:
    return hook().toml_of(docstring or "").removeprefix("```toml\n").removesuffix("```")


TOURNAMENT = toml_of(arena.tournament.config.__doc__)
LEAGUE = toml_of(arena.league.config.__doc__)


def documented(toml: str) -> dict[str, set[str]]:
    """The keys of each table that a documented block names, set or commented out."""
    tables: dict[str, set[str]] = {"": set()}
    table = ""
    for line in toml.splitlines():
        if found := re.match(r"^\[(\w+)\]", line):
            table = found.group(1)
            tables.setdefault("", set()).add(table)
            tables.setdefault(table, set())
        elif found := re.match(r"^(?:# )?([a-z_]+)\s*=", line):
            tables[table].add(found.group(1))
    return tables


def known(folder: Path, text: str, table: str, league: bool) -> set[str]:
    """The keys the loader knows in `table` ("": the top level), from its error about an
    unknown one."""
    config = folder / "probe.toml"
    lines = re.sub(rf"^\[{table}\].*$", rf"[{table}]\nzzz_unknown = 1", text, flags=re.M) \
        if table else "zzz_unknown = 1\n" + text
    config.write_text(lines)
    with pytest.raises(ConfigError) as error:
        (load_league if league else load_config)(config)
    found = re.search(r"unknown key '[\w.]*zzz_unknown' \(known: ([^)]*)\)", str(error.value))
    assert found, str(error.value)
    return set(found.group(1).split(", "))


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A folder whose `../bots` are the bundled bots, as for a config in tournaments/."""
    (tmp_path / "bots").symlink_to(ROOT / "bots")
    (tmp_path / "tournaments").mkdir()
    return tmp_path / "tournaments"


def test_the_tournament_reference_names_every_key_the_loader_knows(folder: Path):
    tables = documented(TOURNAMENT)
    assert {"tournament", "time", "ratings", "limits", "intake", "build"} <= tables[""]
    for table in tables[""]:
        assert tables[table] == known(folder, TOURNAMENT, table, league=False), table
    assert tables[""] == known(folder, TOURNAMENT, "", league=False)


def test_the_league_reference_names_every_key_of_its_table(folder: Path):
    tables = documented(LEAGUE)
    assert tables[""] == {"league"}
    assert tables["league"] == known(folder, TOURNAMENT + LEAGUE, "league", league=True)


def test_the_loaders_take_the_documented_examples(folder: Path):
    (folder / "demo.toml").write_text(TOURNAMENT)
    assert load_config(folder / "demo.toml").name == "demo"
    (folder / "league.toml").write_text(TOURNAMENT + LEAGUE)
    assert load_league(folder / "league.toml").uploads_per_hour == 10


def test_a_key_the_reference_lacks_is_found(folder: Path):
    assert "games_per_matchup" in known(folder, TOURNAMENT, "tournament", league=False)
    assert "games_per_matchup" not in documented(TOURNAMENT.replace(
        "games_per_matchup", "matchup_games"))["tournament"]


def test_the_tables_of_the_page_have_every_key_of_the_file():
    for name, toml in (("tournament-config", TOURNAMENT), ("league-config", LEAGUE)):
        shown = set(re.findall(r"^\| `([a-z_]+)` \|", hook().generated(name), re.M))
        keys = documented(toml)
        assert shown == {key for table in keys if table for key in keys[table]}, name
