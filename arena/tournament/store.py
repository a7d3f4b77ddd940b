"""The tournament store: one SQLite file (WAL) with the tournament, its entrants and its games.

Only the runner's main process writes. Each finished game is one transaction: its row and
its entrants' failure counters are committed together, after its record file was written
atomically (`write_record`), so a stop at any moment (Ctrl-C, kill -9, power loss) leaves
either the whole game or none of it. `synchronous=FULL` makes a commit durable.

Tables (see `_SCHEMA`): `meta` (key/value: name, seed, target, ratings anchor...),
`entrants` (key "name@version", folder, content hash, retired flag), `submissions` (bot
folders added with `arena submit`), `games` (one row per finished game: pair, seats, seed,
scores, rounds, termination, fault, link to its record), `failures` (per entrant and bot
fault kind: how many games it forfeited so).
"""

from __future__ import annotations

import gzip
import json
import os
import sqlite3
import tempfile
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from arena.errors import ArenaError, ConfigError
from arena.ratings.fit import GameResult
from arena.referee.record import GameRecord, Termination
from arena.tournament.schedule import ScheduledGame

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS entrants (
    key TEXT PRIMARY KEY,               -- name@version
    name TEXT NOT NULL,                 -- from bot.toml
    version TEXT NOT NULL,              -- content hash of the bot folder
    bot_version TEXT NOT NULL,          -- the author's version string from bot.toml
    language TEXT NOT NULL,
    folder TEXT NOT NULL,
    source TEXT NOT NULL CHECK (source IN ('config', 'submit')),
    retired INTEGER NOT NULL DEFAULT 0, -- 1: a newer version of its folder replaced it
    added_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS submissions (
    folder TEXT PRIMARY KEY,
    added_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    game_id TEXT PRIMARY KEY,
    pair_id TEXT NOT NULL,
    pair_index INTEGER NOT NULL,
    game_index INTEGER NOT NULL CHECK (game_index IN (0, 1)),
    seed INTEGER NOT NULL,
    team0 TEXT NOT NULL REFERENCES entrants(key),  -- seats 0 and 2
    team1 TEXT NOT NULL REFERENCES entrants(key),  -- seats 1 and 3
    score0 INTEGER NOT NULL,
    score1 INTEGER NOT NULL,
    winner INTEGER CHECK (winner IN (0, 1)),
    rounds INTEGER NOT NULL,
    termination TEXT NOT NULL,
    fault_seat INTEGER,
    fault_team INTEGER,
    fault_message TEXT,
    seconds REAL NOT NULL,
    record TEXT NOT NULL,               -- the record file, relative to the store's folder
    finished_at TEXT NOT NULL,
    UNIQUE (pair_id, game_index)
);
CREATE INDEX IF NOT EXISTS games_by_team0 ON games (team0);
CREATE INDEX IF NOT EXISTS games_by_team1 ON games (team1);
CREATE TABLE IF NOT EXISTS failures (
    entrant TEXT NOT NULL REFERENCES entrants(key),
    kind TEXT NOT NULL,                 -- a bot-fault termination: timeout, crash, ...
    count INTEGER NOT NULL,
    PRIMARY KEY (entrant, kind)
);
"""


@dataclass(frozen=True)
class EntrantRow:
    """An entrant as stored."""

    key: str
    name: str
    version: str
    bot_version: str
    language: str
    folder: str
    source: str
    retired: bool


@dataclass(frozen=True)
class GameRow:
    """What the store keeps of one finished game (the record file holds the rest)."""

    game: ScheduledGame
    scores: tuple[int, int]
    winner: int | None
    rounds: int
    termination: Termination
    fault_seat: int | None
    fault_message: str | None
    seconds: float
    record: str
    """The record file, relative to the store's folder."""

    @classmethod
    def from_record(cls, game: ScheduledGame, record: GameRecord, path: str) -> GameRow:
        fault = record.fault
        return cls(game, record.scores, record.winner, record.rounds, record.termination,
                   fault.seat if fault else None, fault.message if fault else None,
                   record.seconds, path)


@dataclass(frozen=True)
class StoredGame:
    """One stored game as its row says it (for listings and reports; see `Store.games`)."""

    game_id: str
    pair_id: str
    pair_index: int
    game_index: int
    seed: int
    teams: tuple[str, str]
    """Entrant keys of team 0 (seats 0 and 2) and team 1."""
    scores: tuple[int, int]
    winner: int | None
    rounds: int
    termination: str
    fault_seat: int | None
    fault_message: str | None
    seconds: float
    record: str
    """The record file, relative to the store's folder (`Store.record_path`)."""
    finished_at: str


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


class Store:
    """A tournament's SQLite store; a context manager closing the connection."""

    def __init__(self, path: str | Path, create: bool = True) -> None:
        self.path = Path(path).resolve()
        if not create and not self.path.is_file():
            raise ConfigError(f"{self.path}: no tournament store here (run the tournament "
                              "first)")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.execute("PRAGMA foreign_keys=ON")
            self.db.executescript(f"BEGIN IMMEDIATE; {_SCHEMA} INSERT OR IGNORE INTO meta "
                                  f"VALUES ('schema_version', '{SCHEMA_VERSION}'); COMMIT;")
        except sqlite3.DatabaseError as exc:
            raise ArenaError(f"{self.path}: not a usable tournament store: {exc}") from None
        version = self.meta("schema_version")
        if version != str(SCHEMA_VERSION):
            raise ArenaError(f"{self.path}: store schema {version}, this arena reads "
                             f"{SCHEMA_VERSION}")

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on any exception."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # ----- meta --------------------------------------------------------------------------------

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, values: dict[str, str]) -> None:
        with self.transaction() as db:
            db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", values.items())

    def bind(self, config_path: Path, fixed: dict[str, str], settings: dict[str, str]) -> None:
        """Tie the store to a tournament: `fixed` values (seed, target) must match what the
        store was started with (ConfigError naming the config key otherwise); `settings` are
        updated (ratings anchor and the like)."""
        for key, value in fixed.items():
            stored = self.meta(key)
            if stored is not None and stored != value:
                raise ConfigError(f"{config_path}: key 'tournament.{key}': the tournament in "
                                  f"{self.path} was started with {key} = {stored}, not {value}; "
                                  "its games would not match (use a new storage path)")
        self.set_meta({**{k: v for k, v in fixed.items()}, **settings})

    # ----- entrants ----------------------------------------------------------------------------

    def register_entrant(self, row: EntrantRow) -> None:
        """Add (or re-activate) an entrant; other versions of its folder are retired."""
        with self.transaction() as db:
            db.execute("INSERT OR IGNORE INTO entrants VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?)",
                       (row.key, row.name, row.version, row.bot_version, row.language,
                        row.folder, row.source, _now()))
            db.execute("UPDATE entrants SET retired = 0, folder = ? WHERE key = ?",
                       (row.folder, row.key))
            db.execute("UPDATE entrants SET retired = 1 WHERE folder = ? AND key != ?",
                       (row.folder, row.key))

    def entrants(self) -> list[EntrantRow]:
        rows = self.db.execute("SELECT key, name, version, bot_version, language, folder, "
                               "source, retired FROM entrants ORDER BY rowid").fetchall()
        return [EntrantRow(*r[:7], bool(r[7])) for r in rows]

    def add_submission(self, folder: Path) -> None:
        with self.transaction() as db:
            db.execute("INSERT OR IGNORE INTO submissions VALUES (?, ?)", (str(folder), _now()))

    def submissions(self) -> list[Path]:
        return [Path(r[0]) for r in
                self.db.execute("SELECT folder FROM submissions ORDER BY rowid")]

    # ----- games -------------------------------------------------------------------------------

    def done_game_ids(self) -> set[str]:
        return {r[0] for r in self.db.execute("SELECT game_id FROM games")}

    def add_game(self, row: GameRow) -> bool:
        """Commit one finished game and its failure counter in one transaction.

        False (and nothing changed) if the game is stored already: a game is never counted
        twice.
        """
        g = row.game
        teams = g.teams
        fault_team = None if row.fault_seat is None else row.fault_seat & 1
        with self.transaction() as db:
            cursor = db.execute(
                "INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT DO NOTHING",
                (g.game_id, g.pair_id, g.pair_index, g.game_index, g.seed, teams[0], teams[1],
                 row.scores[0], row.scores[1], row.winner, row.rounds, row.termination.value,
                 row.fault_seat, fault_team, row.fault_message, row.seconds, row.record,
                 _now()))
            if cursor.rowcount == 0:
                return False
            if row.termination.is_bot_fault and fault_team is not None:
                db.execute("INSERT INTO failures VALUES (?, ?, 1) ON CONFLICT (entrant, kind) "
                           "DO UPDATE SET count = count + 1",
                           (teams[fault_team], row.termination.value))
        return True

    def game_count(self) -> int:
        return self.db.execute("SELECT count(*) FROM games").fetchone()[0]

    def results(self, keys: Iterable[str] | None = None) -> list[GameResult]:
        """Stored games as the ratings see them, in schedule order (pair index, then game id),
        so that even the order-dependent incremental Elo does not depend on when games
        finished or how often a run was interrupted; with `keys`, only games between those
        entrants."""
        wanted = None if keys is None else set(keys)
        results = []
        for (pair_id, team0, team1, s0, s1, winner, termination,
             fault_team) in self.db.execute(
                "SELECT pair_id, team0, team1, score0, score1, winner, termination, fault_team "
                "FROM games ORDER BY pair_index, game_id"):
            if wanted is not None and not {team0, team1} <= wanted:
                continue
            kind = Termination(termination)
            forfeit = (fault_team, kind.value) if kind.is_bot_fault and fault_team is not None \
                else None
            results.append(GameResult(pair_id, (team0, team1), (s0, s1), winner, forfeit,
                                      kind is Termination.HARNESS_FAULT))
        return results

    def games(self) -> list[StoredGame]:
        """Every stored game with its record file, in schedule order (pair index, game id)."""
        rows = self.db.execute(
            "SELECT game_id, pair_id, pair_index, game_index, seed, team0, team1, score0, "
            "score1, winner, rounds, termination, fault_seat, fault_message, seconds, record, "
            "finished_at FROM games ORDER BY pair_index, game_id").fetchall()
        return [StoredGame(*r[:5], (r[5], r[6]), (r[7], r[8]), *r[9:]) for r in rows]

    def failures(self) -> dict[str, dict[str, int]]:
        """Per entrant key: bot-fault kind -> games forfeited so."""
        table: dict[str, dict[str, int]] = {}
        for entrant, kind, count in self.db.execute("SELECT entrant, kind, count FROM failures"):
            table.setdefault(entrant, {})[kind] = count
        return table

    def record_path(self, relative: str) -> Path:
        return self.path.parent / relative


# ----- record files ------------------------------------------------------------------------

def write_record(record: GameRecord, path: Path) -> None:
    """Write a record as gzip-compressed JSON, atomically and durably (temp file, fsync,
    rename, fsync of the folder): a reader sees the whole file or none."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = gzip.compress(json.dumps(record.to_json(), separators=(",", ":")).encode() + b"\n",
                         compresslevel=6, mtime=0)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def read_record(path: str | Path) -> GameRecord:
    """Read a record file written by `write_record` (or a plain JSON one)."""
    return GameRecord.load(path)
