"""The tournament store: one SQLite file (WAL) with the tournament, its entrants and its games.

Only the runner's main process writes, and only one run writes a store at a time (the run
lock, `arena.tournament.lock`). A finished game's row and its entrants' failure counters are
committed together, in one transaction of their own (`Store.add_game`) or with the other
games that finished meanwhile (`GameWriter`, the run's writer: group commits). Its record
file is written first under a name of its own (`records.pending_record`), atomically, and
renamed to the name the row gives only once the row is committed, so a stop at any moment
(Ctrl-C, kill -9, power loss) leaves either the whole game or none of it, and no record file
ever disagrees with its row: the next run's `records.sweep_pending` deletes the pending
records of games never committed and links those of games committed. `synchronous=FULL`
makes a commit durable. A game stored already with another result than a new one is an
`IntegrityError` that stops the run: the store was changed by something other than the run,
and is not to be trusted.

Tables (see `_SCHEMA`): `meta` (key/value: name, deals, target, ratings anchor, the deal
secret...), `entrants` (key "name@version", folder, content hash, retired flag),
`submissions` (bot folders added with `arena submit`), `games` (one row per finished game:
pair, seats, seed, scores, rounds, termination, fault, link to its record; `team0` and
`team1` are the entrants of seats 0 and 1, and with mixed partners `partner0` and `partner1`
those of seats 2 and 3, NULL when each team is one entrant), `failures` (per entrant and bot
fault kind: how many games a seat of it forfeited so, or failed in a game voided because
seats of both teams failed), `build_outputs` (unused since builds moved into intake's own
copies of each bot; kept so that every store has the same tables).

Schema 3 added `games.partner0` and `games.partner1` (mixed partners); a store of schema 1
or 2 gains them, NULL in every existing row, when it is opened for writing, and reads as it
did. Meta `partners` says which kind of tournament the store holds ("fixed" when absent).

The store holds the tournament's deal secret (meta `deal_secret`, made with the store): it
must stay where no bot can read it, as the sandbox keeps the tournament folder.
"""

from __future__ import annotations

import collections
import json
import os
import queue
import re
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import ArenaError, ConfigError
from arena.ratings.fit import GameResult
from arena.ratings.individual import TeamResult
from arena.referee.manifest import NAME_RULE, shown, valid_name
from arena.referee.record import GameRecord, Termination
from arena.tournament.records import RECORDS_CLEAN, pending_record, sync_files
from arena.tournament.schedule import ScheduledGame, entrant_key, new_secret

SCHEMA_VERSION = 3

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
    partner0 TEXT REFERENCES entrants(key),  -- mixed partners: seat 2 (NULL: team0's copy)
    partner1 TEXT REFERENCES entrants(key),  -- mixed partners: seat 3 (NULL: team1's copy)
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
CREATE TABLE IF NOT EXISTS build_outputs (  -- unused (see the module docstring)
    folder TEXT NOT NULL,               -- a bot folder
    path TEXT NOT NULL,                 -- a file its build wrote, relative to the folder
    PRIMARY KEY (folder, path)
);
"""
_RESULT_COLUMNS = ("seed", "team0", "team1", "partner0", "partner1", "score0", "score1",
                   "winner", "rounds", "termination", "fault_seat", "fault_message")
_GAME_COLUMNS = ("game_id", "pair_id", "pair_index", "game_index", "seed", "team0", "team1",
                 "score0", "score1", "winner", "rounds", "termination", "fault_seat",
                 "fault_team", "fault_message", "seconds", "record", "finished_at", "partner0",
                 "partner1")
_PARTNER_COLUMNS = ("partner0", "partner1")


_VERSION = re.compile(r"[A-Za-z0-9]{1,64}")
"""An entrant's version in its key: the folder's content hash (hex digits)."""


def entrant_problem(key: str, name: str, version: str) -> str | None:
    """Why an entrant cannot be stored under this key, name and version (None: it can).

    The key is "name@version" with the name a bot name (`manifest.NAME`) and the version
    letters and digits: keys become record folder names (`ScheduledGame.record_name`) and
    the report's page names, so nothing else may get in, through a caller or a store file.
    """
    if not valid_name(name):
        return f"name {shown(name)} is not a bot name ({NAME_RULE})"
    if not (isinstance(version, str) and _VERSION.fullmatch(version)):
        return f"version {shown(version)} is not 1-64 letters and digits"
    if key != entrant_key(name, version):
        return f"key {shown(key)} is not name@version"
    return None


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
    seat_faults: tuple[tuple[int, str], ...] = ()
    """(seat, bot fault kind) of each seat that failed in a game voided because seats of both
    teams failed together (empty: at most the seat `fault_seat`, which forfeited)."""

    def failed_entrants(self) -> dict[str, str]:
        """Entrant key -> bot fault kind, for each entrant a seat of which failed (the first
        kind of its seats, in seat order: two copies of one entrant count once)."""
        seats = self.seat_faults
        if not seats and self.termination.is_bot_fault and self.fault_seat is not None:
            seats = ((self.fault_seat, self.termination.value),)
        kinds: dict[str, str] = {}
        for seat, kind in seats:
            kinds.setdefault(self.game.seat_keys[seat], kind)
        return kinds

    @classmethod
    def from_record(cls, game: ScheduledGame, record: GameRecord, path: str) -> GameRow:
        fault = record.fault
        return cls(game, record.scores, record.winner, record.rounds, record.termination,
                   fault.seat if fault else None, fault.message if fault else None,
                   record.seconds, path, _seat_faults(record))


def _seat_faults(record: GameRecord) -> tuple[tuple[int, str], ...]:
    """Each failed seat's fault kind in a game voided because seats of both teams failed."""
    fault = record.fault
    if fault is None or fault.seat is not None or not record.termination.is_bot_fault:
        return ()
    kinds: dict[int, str] = {}  # both teams failed: each seat's fault is in the details
    for each in (fault.details or {}).get("faults", []):
        kinds.setdefault(each["seat"], each["kind"])
    return tuple(sorted(kinds.items()))


@dataclass(frozen=True)
class StoredGame:
    """One stored game as its row says it (for listings and reports; see `Store.games`)."""

    game_id: str
    pair_id: str
    pair_index: int
    game_index: int
    seed: int
    teams: tuple[str, str]
    """Entrant keys of team 0 (seats 0 and 2) and team 1; with mixed partners, of seats 0
    and 1 (`seats` names all four)."""
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
    partners: tuple[str, str] | None = None
    """With mixed partners, the entrant keys of seats 2 and 3; None: each team is one
    entrant's two copies."""

    @property
    def seats(self) -> tuple[str, str, str, str]:
        """The entrant key of each seat, 0 to 3."""
        a, b = self.teams
        c, d = self.partners or self.teams
        return (a, b, c, d)

    @property
    def sides(self) -> tuple[tuple[str, str], tuple[str, str]]:
        """Each team's entrant keys (its seats, in order; the same key twice for copies)."""
        a, b, c, d = self.seats
        return (a, c), (b, d)

    def team_of(self, key: str) -> int | None:
        """The team `key` played on (None: it did not play)."""
        return next((t for t, side in enumerate(self.sides) if key in side), None)


def _connect(path: Path) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit), WAL, durable commits."""
    db = sqlite3.connect(path, timeout=30.0, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("PRAGMA foreign_keys=ON")
    return db


@contextmanager
def immediate_transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE ... COMMIT on `db`, or ROLLBACK on any exception: the one transaction
    of every store of the arena (the tournament's, the league's accounts)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _stored_game(r: Sequence[Any]) -> StoredGame:
    """A `StoredGame` from a row of `Store._stored_columns`."""
    return StoredGame(r[0], r[1], r[2], r[3], r[4], (r[5], r[6]), (r[7], r[8]), r[9], r[10],
                      r[11], r[12], r[13], r[14], r[15], r[16],
                      None if r[17] is None else (r[17], r[18]))


def _like_literal(text: str) -> str:
    """`text` matched literally by LIKE ... ESCAPE '\\'."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


class IntegrityError(ArenaError):
    """The store holds a game with another result than the one just played: something other
    than this run wrote it. The run stops; nothing of the game is stored."""


class Store:
    """A tournament's SQLite store; a context manager closing the connection."""

    def __init__(self, path: str | Path, create: bool = True, read_only: bool = False) -> None:
        """Open (or, with `create`, make) the store at `path`; `read_only`: a connection
        that only reads an existing store (it never takes the write lock)."""
        self.path = Path(path).resolve()
        if (read_only or not create) and not self.path.is_file():
            raise ConfigError(f"{self.path}: no tournament store here (run the tournament "
                              "first)")
        if read_only:
            self.db = sqlite3.connect(f"{self.path.as_uri()}?mode=ro", uri=True, timeout=30.0,
                                      isolation_level=None)
            self._partners_sql = self._partner_columns()
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.db = _connect(self.path)
            # schema 1 lacked build_outputs and the deal secret: both are added here
            self.db.executescript(
                f"BEGIN IMMEDIATE; {_SCHEMA} INSERT OR IGNORE INTO meta VALUES "
                f"('schema_version', '{SCHEMA_VERSION}'); "
                f"INSERT OR IGNORE INTO meta VALUES ('deal_secret', '{new_secret().hex()}'); "
                "COMMIT;")
            self._upgrade()
        except sqlite3.DatabaseError as exc:
            raise ArenaError(f"{self.path}: not a usable tournament store: {exc}") from None
        self._partners_sql = self._partner_columns()
        version = self.meta("schema_version")
        if version != str(SCHEMA_VERSION):
            raise ArenaError(f"{self.path}: store schema {version}, this arena reads "
                             f"{SCHEMA_VERSION}")

    def __enter__(self) -> Store:
        return self

    def _upgrade(self) -> None:
        """Bring a store of schema 1 or 2 to this schema in one transaction: the games' partner
        columns (NULL in every existing row: its teams are copies) are added."""
        with self.transaction() as db:
            for column in _PARTNER_COLUMNS:
                if column not in self._columns("games"):
                    db.execute(f"ALTER TABLE games ADD COLUMN {column} TEXT "
                               "REFERENCES entrants(key)")
            db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version' AND "
                       "value IN ('1', '2')", (str(SCHEMA_VERSION),))

    def _columns(self, table: str) -> set[str]:
        return {row[1] for row in self.db.execute(f"PRAGMA table_info({table})")}

    def _partner_columns(self) -> str:
        """What to select for the partner columns: themselves, or NULLs in a store of an
        older schema opened read-only (it has none, and every game of it has copies)."""
        try:
            present = set(_PARTNER_COLUMNS) <= self._columns("games")
        except sqlite3.DatabaseError as exc:
            raise ArenaError(f"{self.path}: not a usable tournament store: {exc}") from None
        return ", ".join(_PARTNER_COLUMNS) if present else "NULL, NULL"

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self.db.close()

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on any exception."""
        return immediate_transaction(self.db)

    # ----- meta --------------------------------------------------------------------------------

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, values: dict[str, str]) -> None:
        with self.transaction() as db:
            db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", values.items())

    def deal_secret(self) -> bytes:
        """The tournament's secret, made with the store: every secret deal derives from it."""
        return bytes.fromhex(self.meta("deal_secret") or "")

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
        """Add (or re-activate) an entrant; other versions of its folder are retired.
        ValueError if its key, name or version cannot be stored (`entrant_problem`)."""
        problem = entrant_problem(row.key, row.name, row.version)
        if problem:
            raise ValueError(f"entrant {shown(row.key)}: {problem}")
        with self.transaction() as db:
            db.execute("INSERT OR IGNORE INTO entrants VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?)",
                       (row.key, row.name, row.version, row.bot_version, row.language,
                        row.folder, row.source, _now()))
            db.execute("UPDATE entrants SET retired = 0, folder = ? WHERE key = ?",
                       (row.folder, row.key))
            db.execute("UPDATE entrants SET retired = 1 WHERE folder = ? AND key != ?",
                       (row.folder, row.key))

    def entrants(self) -> list[EntrantRow]:
        """Every entrant, in the order registered; ArenaError if a row holds a key, name or
        version no run stores (`entrant_problem`): the store was written by something else."""
        rows = self.db.execute("SELECT key, name, version, bot_version, language, folder, "
                               "source, retired FROM entrants ORDER BY rowid").fetchall()
        for key, name, version, *_ in rows:
            problem = entrant_problem(key, name, version)
            if problem:
                raise ArenaError(f"{self.path}: not a usable tournament store: entrant "
                                 f"{shown(key)}: {problem}")
        return [EntrantRow(key, name, version, bot_version, language, folder, source,
                           bool(retired))
                for key, name, version, bot_version, language, folder, source, retired in rows]

    def add_submission(self, folder: Path) -> None:
        with self.transaction() as db:
            db.execute("INSERT OR IGNORE INTO submissions VALUES (?, ?)", (str(folder), _now()))

    def remove_submission(self, folder: Path) -> None:
        """Forget a submitted folder (its registration failed)."""
        with self.transaction() as db:
            db.execute("DELETE FROM submissions WHERE folder = ?", (str(folder),))

    def submissions(self) -> list[Path]:
        return [Path(r[0]) for r in
                self.db.execute("SELECT folder FROM submissions ORDER BY rowid")]

    def withdraw(self, name: str, folders: Iterable[str]) -> None:
        """Take a submitted bot out of the tournament: its folders are no longer scheduled
        and every version of it is retired (kept with its games); `reinstate` undoes it."""
        folders = sorted(set(folders))
        with self.transaction() as db:
            db.executemany("DELETE FROM submissions WHERE folder = ?", [(f,) for f in folders])
            db.execute("UPDATE entrants SET retired = 1 WHERE name = ?", (name,))
            db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                       (f"withdrawn:{name}", json.dumps(folders)))

    def withdrawn(self, name: str) -> list[str] | None:
        """The folders of a withdrawn bot (None: it is not withdrawn)."""
        value = self.meta(f"withdrawn:{name}")
        return None if value is None else json.loads(value)

    def reinstate(self, name: str) -> None:
        """Undo `withdraw`: its folders are scheduled again, and the last version registered
        of each is current again until the next run takes the folder in anew."""
        folders = self.withdrawn(name) or []
        with self.transaction() as db:
            for folder in folders:
                db.execute("INSERT OR IGNORE INTO submissions VALUES (?, ?)", (folder, _now()))
                db.execute("UPDATE entrants SET retired = 0 WHERE rowid = (SELECT max(rowid) "
                           "FROM entrants WHERE folder = ? AND name = ?)", (folder, name))
            db.execute("DELETE FROM meta WHERE key = ?", (f"withdrawn:{name}",))

    # ----- games -------------------------------------------------------------------------------

    def done_game_ids(self) -> set[str]:
        return {r[0] for r in self.db.execute("SELECT game_id FROM games")}

    def game_seeds(self) -> dict[str, int]:
        """Every stored game's id and seed."""
        return dict(self.db.execute("SELECT game_id, seed FROM games"))

    def add_game(self, row: GameRow) -> bool:
        """Commit one finished game and its failure counter in one transaction.

        False (and nothing changed) if the game is stored already with the same result: a
        game is never counted twice. IntegrityError if it is stored with another result.
        """
        with self.transaction() as db:
            return _insert_game(db, row, self.path)

    def result_of_record(self, relative: str) -> tuple[str, int, int, str] | None:
        """(game id, score0, score1, termination) of the stored game whose row names this
        record file (relative to the store), or None."""
        return self.db.execute("SELECT game_id, score0, score1, termination FROM games "
                               "WHERE record = ?", (relative,)).fetchone()

    def game_count(self) -> int:
        return self.db.execute("SELECT count(*) FROM games").fetchone()[0]

    def results(self, keys: Iterable[str] | None = None) -> list[GameResult]:
        """Stored games as the ratings see them, in schedule order (pair index, then game id),
        so that even the order-dependent incremental Elo does not depend on when games
        finished or how often a run was interrupted; with `keys`, only games between those
        entrants. Games with mixed partners are left out (see `team_results`)."""
        wanted = None if keys is None else set(keys)
        results = []
        for (pair_id, team0, team1, s0, s1, winner, termination,
             fault_team, partner0, _) in self.db.execute(
                "SELECT pair_id, team0, team1, score0, score1, winner, termination, fault_team, "
                f"{self._partners_sql} FROM games ORDER BY pair_index, game_id"):
            if partner0 is not None or wanted is not None and not {team0, team1} <= wanted:
                continue
            results.append(_result(pair_id, team0, team1, s0, s1, winner, termination,
                                   fault_team))
        return results

    def results_after(self, rowid: int) -> tuple[int, int, list[GameResult]]:
        """The games stored after row `rowid` (0: all), in the order stored, for a reader that
        keeps up with the store (the league's standings, `arena.ratings.tally`): the last row
        read (`rowid` if none), the games read, and those of them as the ratings see them
        (games with mixed partners are counted, not returned). Rows only grow: games are
        never deleted, so a row id once read is never reused."""
        last, count, results = rowid, 0, []
        for (row, pair_id, team0, team1, s0, s1, winner, termination, fault_team, partner0,
             _) in self.db.execute(
                "SELECT rowid, pair_id, team0, team1, score0, score1, winner, termination, "
                f"fault_team, {self._partners_sql} FROM games WHERE rowid > ? ORDER BY rowid",
                (rowid,)):
            last, count = row, count + 1
            if partner0 is None:
                results.append(_result(pair_id, team0, team1, s0, s1, winner, termination,
                                       fault_team))
        return last, count, results

    def team_results(self, keys: Iterable[str] | None = None) -> list[TeamResult]:
        """Stored games as individual ratings see them (each team its two seats' entrants,
        `arena.ratings.individual`), in schedule order; with `keys`, only games whose four
        seats are all among those entrants."""
        wanted = None if keys is None else set(keys)
        results = []
        for game in self.games():
            if wanted is not None and not set(game.seats) <= wanted:
                continue
            kind = Termination(game.termination)
            forfeit = None
            if kind.is_bot_fault and game.fault_seat is not None:
                forfeit = (game.fault_seat & 1, kind.value)
            offender = None if game.fault_seat is None else game.seats[game.fault_seat]
            results.append(TeamResult(game.pair_id, game.sides, game.scores, game.winner,
                                      forfeit, kind is Termination.HARNESS_FAULT,
                                      offender if forfeit else None))
        return results

    def games(self) -> list[StoredGame]:
        """Every stored game with its record file, in schedule order (pair index, game id)."""
        rows = self.db.execute(
            f"SELECT {self._stored_columns} FROM games ORDER BY pair_index, game_id").fetchall()
        return [_stored_game(r) for r in rows]

    @property
    def _stored_columns(self) -> str:
        """The columns `_stored_game` reads, in its order."""
        return ("game_id, pair_id, pair_index, game_index, seed, team0, team1, score0, "
                "score1, winner, rounds, termination, fault_seat, fault_message, seconds, "
                f"record, finished_at, {self._partners_sql}")

    def games_page(self, after: int, limit: int, bot: str | None = None,
                   game_id: str | None = None, newest: bool = False
                   ) -> list[tuple[int, StoredGame]]:
        """Stored games with their row ids (a cursor), after row `after`, oldest first, at
        most `limit`; `bot`: only games a version of that bot name played; `game_id`: only
        that game; `newest`: the last `limit` stored, newest first."""
        where, args = "rowid > ?", list[object]([after])
        if game_id is not None:
            where += " AND game_id = ?"
            args.append(game_id)
        if bot:
            pattern = _like_literal(bot) + "@%"
            where += (" AND (team0 LIKE ? ESCAPE '\\' OR team1 LIKE ? ESCAPE '\\' OR "
                      "partner0 LIKE ? ESCAPE '\\' OR partner1 LIKE ? ESCAPE '\\')"
                      if self._partners_sql.startswith("partner0") else
                      " AND (team0 LIKE ? ESCAPE '\\' OR team1 LIKE ? ESCAPE '\\')")
            args += [pattern] * where.count("LIKE ?")
        rows = self.db.execute(
            f"SELECT rowid, {self._stored_columns} FROM games WHERE {where} ORDER BY rowid "
            f"{'DESC' if newest else ''} LIMIT ?", (*args, limit)).fetchall()
        return [(r[0], _stored_game(r[1:])) for r in rows]

    def failed_games(self, keys: Sequence[str], limit: int) -> list[StoredGame]:
        """The newest `limit` games, newest first, that a bot fault ended and one of the
        entrant keys `keys` played (the failed seat may be another's: `seat_failures` says)."""
        if not keys:
            return []
        marks = ", ".join("?" for _ in keys)
        faults = [kind.value for kind in Termination if kind.is_bot_fault]
        played = " OR ".join(f"{column} IN ({marks})" for column in self._team_columns())
        rows = self.db.execute(
            f"SELECT {self._stored_columns} FROM games WHERE termination IN "
            f"({', '.join('?' for _ in faults)}) AND ({played}) ORDER BY rowid DESC LIMIT ?",
            (*faults, *[*keys] * played.count("IN ("), limit)).fetchall()
        return [_stored_game(r) for r in rows]

    def _team_columns(self) -> list[str]:
        """The columns naming an entrant at a seat: the teams', and the partners' if kept."""
        partners = ["partner0", "partner1"] if self._partners_sql.startswith("partner0") else []
        return ["team0", "team1", *partners]

    def opponents(self, keys: Sequence[str]) -> list[tuple[str, int, int]]:
        """(opponent's entrant key, games, wins of `keys`) for each entrant that played one of
        the entrant keys `keys` (a bot's versions), as team 0 or team 1."""
        if not keys:
            return []
        marks = ", ".join("?" for _ in keys)
        rows = self.db.execute(
            f"SELECT CASE WHEN team0 IN ({marks}) THEN team1 ELSE team0 END, count(*), "
            f"sum(CASE WHEN (winner = 0 AND team0 IN ({marks})) OR (winner = 1 AND team1 IN "
            f"({marks})) THEN 1 ELSE 0 END) FROM games WHERE team0 IN ({marks}) OR team1 IN "
            f"({marks}) GROUP BY 1", [*keys] * 5).fetchall()
        return [(opponent, games, wins or 0) for opponent, games, wins in rows]

    def last_pair_index(self, matchup: str) -> int | None:
        """The highest pair index stored of `matchup` ("a~b"), or None if it has no game."""
        row = self.db.execute("SELECT max(pair_index) FROM games WHERE pair_id LIKE ? "
                              "ESCAPE '\\'", (_like_literal(matchup + "#") + "%",)).fetchone()
        return None if row[0] is None else int(row[0])

    def add_synthetic_games(self, rows: Sequence[tuple[object, ...]]) -> None:
        """Benchmarks only: games without records, in one transaction, each row (game_id,
        pair_id, pair_index, game_index, seed, team0, team1, score0, score1, winner, rounds,
        termination, seconds, record, finished_at). Failures are not counted."""
        with self.transaction() as db:
            db.executemany(
                "INSERT INTO games (game_id, pair_id, pair_index, game_index, seed, team0, "
                "team1, score0, score1, winner, rounds, termination, seconds, record, "
                "finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)

    def without_fsync(self) -> None:
        """Benchmarks only: commits no longer wait for the disk (a crash may lose them)."""
        self.db.execute("PRAGMA synchronous=OFF")

    def partners(self) -> str:
        """Which kind of tournament the store holds: "fixed" (each team one entrant's two
        copies) or "mixed" (`tournament.partners` in the config)."""
        return self.meta("partners") or "fixed"

    def failures(self) -> dict[str, dict[str, int]]:
        """Per entrant key: bot-fault kind -> games forfeited so."""
        table: dict[str, dict[str, int]] = {}
        for entrant, kind, count in self.db.execute("SELECT entrant, kind, count FROM failures"):
            table.setdefault(entrant, {})[kind] = count
        return table

    def record_path(self, relative: str) -> Path:
        return self.path.parent / relative


def _result(pair_id: str, team0: str, team1: str, s0: int, s1: int, winner: int | None,
            termination: str, fault_team: int | None) -> GameResult:
    """A stored game's row as the ratings see it."""
    kind = Termination(termination)
    forfeit = (fault_team, kind.value) if kind.is_bot_fault and fault_team is not None else None
    return GameResult(pair_id, (team0, team1), (s0, s1), winner, forfeit,
                      kind is Termination.HARNESS_FAULT)


def _insert_game(db: sqlite3.Connection, row: GameRow, path: Path) -> bool:
    """Insert one finished game and count its failure, in the open transaction of `db`;
    False if it is stored already with the same result, IntegrityError (nothing inserted) if
    with another."""
    g = row.game
    teams = g.teams
    partners = _stored_partners(g)
    fault_team = None if row.fault_seat is None else row.fault_seat & 1
    values = (g.seed, teams[0], teams[1], *partners, row.scores[0], row.scores[1], row.winner,
              row.rounds, row.termination.value, row.fault_seat, row.fault_message)
    stored = db.execute(f"SELECT game_id, {', '.join(_RESULT_COLUMNS)} FROM games "
                        "WHERE game_id = ? OR (pair_id = ? AND game_index = ?)",
                        (g.game_id, g.pair_id, g.game_index)).fetchone()
    if stored is not None:
        if stored[0] == g.game_id and tuple(stored[1:]) == values:
            return False
        raise IntegrityError(_conflict(path, g.game_id, stored, values))
    db.execute(f"INSERT INTO games ({', '.join(_GAME_COLUMNS)}) VALUES "
               f"({', '.join('?' * len(_GAME_COLUMNS))})",
               (g.game_id, g.pair_id, g.pair_index, g.game_index, g.seed, teams[0], teams[1],
                row.scores[0], row.scores[1], row.winner, row.rounds, row.termination.value,
                row.fault_seat, fault_team, row.fault_message, row.seconds, row.record, _now(),
                *partners))
    db.executemany("INSERT INTO failures VALUES (?, ?, 1) ON CONFLICT (entrant, kind) "
                   "DO UPDATE SET count = count + 1", row.failed_entrants().items())
    return True


def _stored_partners(game: ScheduledGame) -> tuple[str | None, str | None]:
    """The partner columns of a game: the entrants of seats 2 and 3 with mixed partners."""
    seats = game.seat_keys
    return (None, None) if game.partners is None else (seats[2], seats[3])


def _conflict(path: Path, game_id: str, stored: tuple, values: tuple) -> str:
    differ = [f"{name} {old!r} stored, {new!r} played" for name, old, new
              in zip(_RESULT_COLUMNS, stored[1:], values, strict=True) if old != new]
    if stored[0] != game_id:
        differ.insert(0, f"stored as game {stored[0]!r}")
    return (f"{path}: integrity error: game {game_id} is stored already with another "
            f"result than the one just played ({'; '.join(differ)}). Something other than "
            "this run wrote to the store, so its results cannot be trusted; the run stops "
            "here. Check who can write to it, and start the tournament with a new storage "
            "path.")


class GameWriter:
    """The coordinator's writer: stores finished games from a thread of its own, as many per
    transaction as arrived while the previous one committed (group commit), and gives each
    record its final name once its row is committed.

    `add` hands a game over and returns at once: the loop that receives games and hands out
    pairs never waits for a disk. At a few games per second each game is a transaction of
    its own, as with `Store.add_game`; at thousands, one commit (one fsync) serves hundreds.
    `stored` gives the games committed since it was last asked, in commit order: only those
    may be reported stored. `close` stores everything added, then raises the first error met.

    A stop at any moment keeps the store's promise: a row is committed only after its record
    is durable under a pending name (synced by the worker that wrote it, or by the writer
    for a record given as bytes), and the record is renamed to the name the row gives only
    after the commit. So a killed coordinator loses only games not yet committed, whose
    records keep their pending names and are deleted by the next run's
    `records.sweep_pending`; a committed game whose rename was lost is linked by that sweep
    (so the rename needs no sync of its folder). Leaving the `with` block without an
    exception says that every game the workers finished was added: the records are then all
    in place and the next run skips the sweep (any other end leaves it to do). A game stored
    already with another result raises the store's IntegrityError from the next `add` (or
    `close`), its record deleted; the games around it are stored. A database error ends the
    writer: its batch is rolled back (and swept later), and the error is raised likewise.
    """

    def __init__(self, store: Store, max_batch: int = 1000) -> None:
        store.set_meta({RECORDS_CLEAN: "0"})  # from now on a stop may leave records to sweep
        self.store = store
        self.path = store.path
        self.max_batch = max_batch
        self._queue: queue.SimpleQueue[tuple[GameRow, Path | bytes] | None] = \
            queue.SimpleQueue()
        self._stored: collections.deque[tuple[GameRow, bool]] = collections.deque()
        self._error: BaseException | None = None
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="arena-store-writer",
                                        daemon=True)
        self._thread.start()

    def __enter__(self) -> GameWriter:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *exc_info: object) -> None:
        self.close(raise_error=exc_type is None)
        if exc_type is None:  # every game finished was added and is stored: no records left
            self.store.set_meta({RECORDS_CLEAN: "1"})

    def add(self, row: GameRow, record: Path | bytes) -> None:
        """Store a finished game soon. Its record is either a file under its pending name
        (written and synced by a local worker) or its content (`records.record_bytes`) that
        the coordinator holds, e.g. sent by a cluster's worker: the writer writes that under
        a pending name and makes it durable, with the other records of its batch, by one
        sync of the file system before the commit. Raises the writer's error, if it met one (a
        pending file is then deleted)."""
        if self._error is not None or self._closed:
            if isinstance(record, Path):
                record.unlink(missing_ok=True)
            self._raise()
            raise ArenaError("the store's writer is closed")
        self._queue.put((row, record))

    def stored(self) -> list[tuple[GameRow, bool]]:
        """(row, new) of each game committed since the last call; new is False for a game
        that was stored already with the same result (not counted twice)."""
        done = []
        while self._stored:
            done.append(self._stored.popleft())
        return done

    def close(self, raise_error: bool = True) -> None:
        """Store everything added, stop the thread; then raise the first error met (unless
        `raise_error` is false: an error is on its way already)."""
        if not self._closed:
            self._closed = True
            self._queue.put(None)
            self._thread.join()
        if raise_error:
            self._raise()

    def _raise(self) -> None:
        if self._error is not None:
            raise self._error

    def _run(self) -> None:
        db = _connect(self.path)
        try:
            while True:
                batch = [self._queue.get()]
                while batch[-1] is not None and len(batch) < self.max_batch:
                    try:
                        batch.append(self._queue.get_nowait())
                    except queue.Empty:
                        break
                games = [item for item in batch if item is not None]
                if games:
                    self._commit(db, games)
                if batch[-1] is None:
                    return
        except BaseException as exc:  # noqa: BLE001 - handed to the caller by add/close
            self._error = self._error or exc
        finally:
            db.close()

    def _commit(self, db: sqlite3.Connection,
                given: list[tuple[GameRow, Path | bytes]]) -> None:
        games = self._write_records(given)
        kept = []
        db.execute("BEGIN IMMEDIATE")
        try:
            for row, pending in games:
                try:
                    kept.append((row, pending, _insert_game(db, row, self.path)))
                except IntegrityError as exc:  # nothing of it inserted: the others go on
                    pending.unlink(missing_ok=True)
                    self._error = self._error or exc
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        for row, pending, new in kept:
            if new:
                os.replace(pending, self.path.parent / row.record)
            else:
                pending.unlink(missing_ok=True)
            self._stored.append((row, new))

    def _write_records(self, games: list[tuple[GameRow, Path | bytes]],
                       ) -> list[tuple[GameRow, Path]]:
        """The games with every record given as bytes written under a pending name, and
        those files made durable (before their rows are committed)."""
        out: list[tuple[GameRow, Path]] = []
        written: list[Path] = []
        for row, record in games:
            if isinstance(record, bytes):
                pending = pending_record(self.path.parent / row.record)
                pending.parent.mkdir(parents=True, exist_ok=True)
                pending.write_bytes(record)
                written.append(pending)
                record = pending
            out.append((row, record))
        if written:
            sync_files(written)
        return out
