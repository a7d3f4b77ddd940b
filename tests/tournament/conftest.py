"""Shared helpers of the tournament tests: small configs over copies of the bundled bots."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def copy_bot(source: str, dest: Path, name: str | None = None) -> Path:
    """A private copy of a bundled bot (so that its processes are recognised by folder),
    optionally renamed in its bot.toml."""
    shutil.copytree(ROOT / "bots" / source, dest, ignore=shutil.ignore_patterns("__pycache__"))
    if name is not None:
        manifest = dest / "bot.toml"
        text = manifest.read_text()
        manifest.write_text(text.replace(f'name = "{source}"', f'name = "{name}"'))
    return dest


def write_config(folder: Path, entrants: list[str], games: int = 2, target: int = 200,
                 extra: str = "", name: str = "t.toml") -> Path:
    listed = "\n".join(f'    "{e}",' for e in entrants)
    path = folder / name
    path.write_text(f"""[tournament]
entrants = [
{listed}
]
games_per_matchup = {games}
target = {target}
seed = 7
concurrency = 2
storage = "t.sqlite"

[time]
hello = 10.0
decision = 3.0
bank = 60.0

[ratings]
anchor = "random"
{extra}""")
    return path


def game_rows(db: Path) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT game_id, pair_id, team0, team1, score0, score1, winner, "
                            "rounds, termination, record FROM games ORDER BY game_id").fetchall()


@pytest.fixture
def two_bots(tmp_path: Path) -> tuple[Path, Path]:
    return copy_bot("random", tmp_path / "random"), copy_bot("heuristic", tmp_path / "heuristic")
