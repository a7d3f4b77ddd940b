"""The league's own tables, in the tournament's SQLite store: authors and their tokens, who
owns which bot name, every upload with its status, the uploads refused at intake, and the
practice games asked for.

A token is 256 random bits (`secrets`), shown once by `invite` and stored only as its SHA-256
(the token has all the entropy a hash needs: no salt or slow hash adds anything), compared
in constant time (`hmac.compare_digest`) against every author's. Nothing here writes a token
anywhere else. These tables live beside the games so that one file (and its records and
uploads) is the whole league to back up; `invite` and `revoke` work with or without the
server running (SQLite's WAL lets both write the file).

Every quota is checked in the transaction that records what it limits (`add_upload`,
`add_refusal`, `add_practice`, each BEGIN IMMEDIATE: one writer at a time), so requests sent
at once are counted one after another, whichever server thread or process sends them.
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import re
import secrets
import sqlite3
import time
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

from arena.errors import ArenaError, ConfigError
from arena.tournament.store import immediate_transaction

_SCHEMA = """
CREATE TABLE IF NOT EXISTS league_authors (
    name TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL,           -- SHA-256 of the token, hex; never the token
    organizer INTEGER NOT NULL DEFAULT 0,
    revoked INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS league_bots (  -- a bot name belongs to the author who first took it
    name TEXT PRIMARY KEY,
    author TEXT NOT NULL REFERENCES league_authors(name),
    disabled INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS league_uploads (
    id INTEGER PRIMARY KEY,
    author TEXT NOT NULL,
    name TEXT NOT NULL,                 -- the bot name the upload is for
    file TEXT NOT NULL,                 -- the archive, below the uploads folder
    status TEXT NOT NULL CHECK (status IN
        ('received', 'building', 'checking', 'active', 'retired', 'failed')),
    stage TEXT NOT NULL DEFAULT '',     -- the first failing step
    reason TEXT NOT NULL DEFAULT '',
    log TEXT NOT NULL DEFAULT '',       -- the tail of the failing step's output
    command TEXT NOT NULL DEFAULT '',   -- the arena command that reproduces the failure
    entrant TEXT,                       -- its entrant key once taken in
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS league_uploads_by_author ON league_uploads (author, created);
CREATE TABLE IF NOT EXISTS league_ratings (  -- each entrant's rating as its games grew
    entrant TEXT NOT NULL,
    games INTEGER NOT NULL,
    rating REAL NOT NULL,
    half REAL NOT NULL,                 -- the 95% interval's half-width (inf: none)
    at REAL NOT NULL,
    PRIMARY KEY (entrant, games)
);
CREATE TABLE IF NOT EXISTS league_practice (  -- practice games asked for (arena.league.practice)
    id INTEGER PRIMARY KEY,
    author TEXT NOT NULL,
    entrant TEXT NOT NULL,              -- the author's version (an entrant key)
    opponent TEXT NOT NULL,             -- the active entrant it plays (an entrant key)
    status TEXT NOT NULL CHECK (status IN ('queued', 'playing', 'done', 'failed')),
    game_id TEXT,                       -- its game in the practice store, once played
    reason TEXT NOT NULL DEFAULT '',    -- why it failed
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS league_practice_by_author ON league_practice (author, created);
CREATE TABLE IF NOT EXISTS league_seats (  -- practice games with a person at a seat (seats.py)
    practice INTEGER PRIMARY KEY REFERENCES league_practice (id),
    seat INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),  -- the person's seat
    bomb_windows TEXT NOT NULL          -- how bomb windows are put to the person
);
CREATE TABLE IF NOT EXISTS league_refusals (  -- uploads refused at intake: they count too
    id INTEGER PRIMARY KEY,
    author TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('too_large', 'not_an_archive', 'archive_refused')),
    created REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS league_refusals_by_author ON league_refusals (author, created);
"""

AUTHOR = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")
AUTHOR_RULE = "1-40 letters, digits, '.', '-' or '_', starting with a letter or digit"
class UploadStatus(enum.StrEnum):
    """Where an upload is (league_uploads.status): taken in, then active or failed."""

    RECEIVED = "received"
    """Stored durably and recorded; waiting for its intake."""
    BUILDING = "building"
    """Intake: its snapshot and its sandboxed build."""
    CHECKING = "checking"
    """`arena check-bot`, sandboxed, with a short game."""
    ACTIVE = "active"
    """In the live table: the bot's current version."""
    RETIRED = "retired"
    """A newer version of the bot became active."""
    FAILED = "failed"
    """Its intake failed: the stage, the reason and the log say where and why."""

    @property
    def final(self) -> bool:
        """Whether its intake is over (a client following it stops)."""
        return self not in PENDING


STATUSES = tuple(UploadStatus)
PENDING = (UploadStatus.RECEIVED, UploadStatus.BUILDING, UploadStatus.CHECKING)
"""The statuses of an upload still being taken in."""
TOKEN_BYTES = 32
"""A token's randomness: 256 bits."""
HOUR = 3600.0


class CountedRefusal(enum.StrEnum):
    """An upload refused at intake that counts toward the author's hourly quota (a row of
    league_refusals): the server read, stored or unpacked its bytes, as it does an upload's."""

    TOO_LARGE = "too_large"
    """Larger than `league.upload_megabytes` (413)."""
    NOT_AN_ARCHIVE = "not_an_archive"
    """A file whose name is not a .tar.gz, .tgz, .tar or .zip (400)."""
    ARCHIVE_REFUSED = "archive_refused"
    """Refused by intake's snapshot check: a path that escapes, a link, a bomb... (400)."""


class NotRecorded(enum.StrEnum):
    """Why `Accounts.add_upload` recorded nothing. Never stored: a 429 counts toward nothing,
    or each retry during a lockout would extend it, for as long as a client kept sending."""

    NAME_TAKEN = "name_taken"
    """The bot name is another author's (409)."""
    PER_HOUR = "per_hour"
    """The author's uploads and refusals of the last hour reached `UploadQuota.per_hour`."""
    PENDING = "pending"
    """`UploadQuota.pending` of the author's uploads are being taken in (received, building
    or checking)."""


@dataclass(frozen=True)
class UploadQuota:
    """What one author may upload: checked, and the upload recorded, in one transaction."""

    per_hour: int
    """Uploads recorded plus uploads refused at intake (`CountedRefusal`), in any hour."""
    pending: int
    """Uploads being taken in at once."""


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Author:
    name: str
    organizer: bool


@dataclass(frozen=True)
class Upload:
    """One upload as stored."""

    id: int
    author: str
    name: str
    file: str
    status: UploadStatus
    stage: str
    reason: str
    log: str
    command: str
    entrant: str | None
    created: float
    updated: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", UploadStatus(self.status))

    def public(self) -> dict[str, object]:
        """What the API shows of it (never a token: the table holds none)."""
        return {"id": self.id, "author": self.author, "name": self.name, "status": self.status,
                "stage": self.stage, "reason": self.reason, "log": self.log,
                "command": self.command, "entrant": self.entrant, "created": self.created,
                "updated": self.updated}


@dataclass(frozen=True)
class PracticeRow:
    """One practice game asked for, as stored."""

    id: int
    author: str
    entrant: str
    opponent: str
    status: PracticeStatus
    game_id: str | None
    reason: str
    created: float
    updated: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", PracticeStatus(self.status))

    def public(self) -> dict[str, object]:
        return {"id": self.id, "author": self.author, "entrant": self.entrant,
                "opponent": self.opponent, "status": self.status, "game_id": self.game_id,
                "reason": self.reason, "created": self.created, "updated": self.updated}


class PracticeStatus(enum.StrEnum):
    """Where a practice game is (league_practice.status)."""

    QUEUED = "queued"
    """Asked for; practice games are played one at a time."""
    PLAYING = "playing"
    DONE = "done"
    """Played and stored: its replay opens."""
    FAILED = "failed"
    """It could not be played; the reason says why."""

    @property
    def final(self) -> bool:
        """Whether the game is over, one way or the other."""
        return self in (PracticeStatus.DONE, PracticeStatus.FAILED)


PRACTICE_STATUSES = tuple(PracticeStatus)
_PRACTICE_COLUMNS = "id, author, entrant, opponent, status, game_id, reason, created, updated"
_UPLOAD_COLUMNS = ("id, author, name, file, status, stage, reason, log, command, entrant, "
                   "created, updated")


class Accounts:
    """A connection to the league's tables (one per thread: SQLite connections are not
    shared); a context manager closing it."""

    def __init__(self, storage: Path) -> None:
        storage.parent.mkdir(parents=True, exist_ok=True)
        self.path = storage
        self.db = sqlite3.connect(storage, timeout=30.0, isolation_level=None,
                                  check_same_thread=False)
        try:
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.executescript(f"BEGIN IMMEDIATE; {_SCHEMA} COMMIT;")
        except sqlite3.DatabaseError as exc:
            self.db.close()
            raise ArenaError(f"{storage}: not a usable league store: {exc}") from None

    def __enter__(self) -> Accounts:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self.db.close()

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        return immediate_transaction(self.db)

    # ----- authors -------------------------------------------------------------------------

    def invite(self, author: str, organizer: bool = False) -> str:
        """A new token for `author` (a new author, or a new token replacing the old one):
        returned once, stored only as its hash. ConfigError if the name is not an author's."""
        if not AUTHOR.fullmatch(author):
            raise ConfigError(f"author {author!r}: not an author's name ({AUTHOR_RULE})")
        token = secrets.token_urlsafe(TOKEN_BYTES)
        with self.transaction() as db:
            db.execute("INSERT INTO league_authors VALUES (?, ?, ?, 0, ?) ON CONFLICT(name) DO "
                       "UPDATE SET token_hash = excluded.token_hash, organizer = "
                       "excluded.organizer, revoked = 0",
                       (author, hash_token(token), int(organizer), _now()))
        return token

    def revoke(self, author: str) -> None:
        """The author's token stops working (their bots keep playing). ConfigError if there
        is no such author."""
        with self.transaction() as db:
            changed = db.execute("UPDATE league_authors SET revoked = 1 WHERE name = ?",
                                 (author,)).rowcount
        if not changed:
            known = ", ".join(self.author_names()) or "none"
            raise ConfigError(f"{self.path}: no author {author!r} (authors: {known})")

    def author_names(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT name FROM league_authors ORDER BY name")]

    def authenticate(self, token: str) -> Author | None:
        """The author whose token this is (None: no one's, or revoked). Every stored hash is
        compared, in constant time, so that the answer's time says nothing of the token."""
        wanted = hash_token(token)
        found: Author | None = None
        for name, stored, organizer, revoked in self.db.execute(
                "SELECT name, token_hash, organizer, revoked FROM league_authors"):
            if hmac.compare_digest(wanted, stored) and not revoked:
                found = Author(name, bool(organizer))
        return found

    # ----- bots ----------------------------------------------------------------------------

    def owner(self, name: str) -> str | None:
        row = self.db.execute("SELECT author FROM league_bots WHERE name = ?", (name,)).fetchone()
        return row[0] if row else None

    def disabled(self) -> set[str]:
        return {r[0] for r in self.db.execute("SELECT name FROM league_bots WHERE disabled")}

    def set_disabled(self, name: str, disabled: bool) -> bool:
        with self.transaction() as db:
            return bool(db.execute("UPDATE league_bots SET disabled = ? WHERE name = ?",
                                   (int(disabled), name)).rowcount)

    # ----- uploads -------------------------------------------------------------------------

    def attempts_since(self, author: str, since: float) -> int:
        """The author's uploads recorded since `since` (epoch seconds), plus those refused
        at intake: what the hourly quota counts."""
        return _attempts_since(self.db, author, since)

    def upload_refusal(self, author: str, name: str, quota: UploadQuota) -> NotRecorded | None:
        """Why an upload of `name` by `author` would be refused now (None: it would not). A
        fast answer only: `add_upload` asks again when it records."""
        return _upload_refusal(self.db, author, name, quota, time.time())

    def add_upload(self, author: str, name: str, file: str, quota: UploadQuota
                   ) -> int | NotRecorded:
        """Record an upload (its archive written and fsynced already) and claim its bot name
        for `author`; its id. The name's owner and `quota` are checked in the same
        transaction: uploads sent at once are counted one after another. If refused,
        nothing is recorded and the reason is returned."""
        now = time.time()
        with self.transaction() as db:
            refused = _upload_refusal(db, author, name, quota, now)
            if refused is not None:
                return refused
            db.execute("INSERT OR IGNORE INTO league_bots (name, author) VALUES (?, ?)",
                       (name, author))
            cursor = db.execute("INSERT INTO league_uploads (author, name, file, status, "
                                "created, updated) VALUES (?, ?, ?, 'received', ?, ?)",
                                (author, name, file, now, now))
            return int(cursor.lastrowid or 0)

    def add_refusal(self, author: str, kind: CountedRefusal, quota: UploadQuota) -> bool:
        """Count an upload refused at intake toward the author's hourly quota; False (not
        counted) once the quota is reached: the table grows by `quota.per_hour` rows an hour
        per author at most, whatever is sent."""
        now = time.time()
        with self.transaction() as db:
            if _attempts_since(db, author, now - HOUR) >= quota.per_hour:
                return False
            db.execute("INSERT INTO league_refusals (author, kind, created) VALUES (?, ?, ?)",
                       (author, kind.value, now))
            return True

    def set_status(self, upload: int, status: UploadStatus, *, stage: str = "",
                   reason: str = "", log: str = "", command: str = "",
                   entrant: str | None = None) -> None:
        status = UploadStatus(status)
        with self.transaction() as db:
            db.execute("UPDATE league_uploads SET status = ?, stage = ?, reason = ?, log = ?, "
                       "command = ?, entrant = coalesce(?, entrant), updated = ? WHERE id = ?",
                       (status.value, stage, reason, log, command, entrant, time.time(),
                        upload))
            if status is UploadStatus.ACTIVE:  # the author's older versions leave the table
                db.execute("UPDATE league_uploads SET status = 'retired', updated = ? WHERE "
                           "name = (SELECT name FROM league_uploads WHERE id = ?) AND id != ? "
                           "AND status = 'active'", (time.time(), upload, upload))

    def upload(self, upload: int) -> Upload | None:
        row = self.db.execute(f"SELECT {_UPLOAD_COLUMNS} FROM league_uploads WHERE id = ?",
                              (upload,)).fetchone()
        return Upload(*row) if row else None

    def uploads(self, name: str | None = None, status: tuple[UploadStatus, ...] = STATUSES
                ) -> list[Upload]:
        marks = ", ".join("?" for _ in status)
        where = f"status IN ({marks})" + ("" if name is None else " AND name = ?")
        args = (*status, *(() if name is None else (name,)))
        return [Upload(*r) for r in self.db.execute(
            f"SELECT {_UPLOAD_COLUMNS} FROM league_uploads WHERE {where} ORDER BY id", args)]

    def add_ratings(self, rows: list[tuple[str, int, float, float]]) -> None:
        """(entrant, games, rating, half-width) of a fit, kept for the rating's history."""
        now = time.time()
        with self.transaction() as db:
            db.executemany("INSERT OR REPLACE INTO league_ratings VALUES (?, ?, ?, ?, ?)",
                           [(*row, now) for row in rows])

    def ratings(self, entrant: str) -> list[tuple[int, float, float]]:
        """An entrant's rating history: (games, rating, half-width), by games."""
        return [tuple(r) for r in self.db.execute(
            "SELECT games, rating, half FROM league_ratings WHERE entrant = ? ORDER BY games",
            (entrant,))]

    # ----- practice games ------------------------------------------------------------------

    def add_practice(self, author: str, entrant: str, opponent: str, limit: int,
                     since: float) -> int | None:
        """Record a practice game asked for by `author`; its id, or None (nothing recorded)
        if `author` asked for `limit` games since `since` already (counted and recorded in
        one transaction: two requests at once cannot both pass the limit)."""
        with self.transaction() as db:
            return _counted_practice(db, author, entrant, opponent, PracticeStatus.QUEUED,
                                     limit, since)

    def add_seat_game(self, author: str, partner: str, opponent: str, seat: int,
                      bomb_windows: str, limit: int, since: float) -> int | None:
        """Record a practice game with `author` at `seat`, `partner` at the seat opposite
        and `opponent` at the others, counted as `add_practice` counts (None: `limit`
        reached); it is recorded as playing at once (a person waits for no queue)."""
        with self.transaction() as db:
            practice = _counted_practice(db, author, partner, opponent, PracticeStatus.PLAYING,
                                         limit, since)
            if practice is not None:
                db.execute("INSERT INTO league_seats (practice, seat, bomb_windows) VALUES "
                           "(?, ?, ?)", (practice, seat, bomb_windows))
            return practice

    def seat_games(self) -> dict[int, int]:
        """The practice games with a person at a seat: practice id -> the person's seat."""
        return dict(self.db.execute("SELECT practice, seat FROM league_seats"))

    def practice(self, practice: int) -> PracticeRow | None:
        row = self.db.execute(f"SELECT {_PRACTICE_COLUMNS} FROM league_practice WHERE id = ?",
                              (practice,)).fetchone()
        return PracticeRow(*row) if row else None

    def practices(self, status: tuple[PracticeStatus, ...] = PRACTICE_STATUSES
                  ) -> list[PracticeRow]:
        marks = ", ".join("?" for _ in status)
        return [PracticeRow(*r) for r in self.db.execute(
            f"SELECT {_PRACTICE_COLUMNS} FROM league_practice WHERE status IN ({marks}) "
            "ORDER BY id", status)]

    def set_practice(self, practice: int, status: PracticeStatus, game_id: str | None = None,
                     reason: str = "") -> None:
        status = PracticeStatus(status)
        with self.transaction() as db:
            db.execute("UPDATE league_practice SET status = ?, game_id = coalesce(?, game_id), "
                       "reason = ?, updated = ? WHERE id = ?",
                       (status, game_id, reason, time.time(), practice))

    def authors_of(self) -> dict[str, str]:
        """Bot name -> its author."""
        return dict(self.db.execute("SELECT name, author FROM league_bots"))


def _attempts_since(db: sqlite3.Connection, author: str, since: float) -> int:
    return int(db.execute(
        "SELECT (SELECT count(*) FROM league_uploads WHERE author = ? AND created >= ?) + "
        "(SELECT count(*) FROM league_refusals WHERE author = ? AND created >= ?)",
        (author, since, author, since)).fetchone()[0])


def _upload_refusal(db: sqlite3.Connection, author: str, name: str, quota: UploadQuota,
                    now: float) -> NotRecorded | None:
    """Why `author` may not upload `name` now, read in `db`'s transaction (None: they may)."""
    owner = db.execute("SELECT author FROM league_bots WHERE name = ?", (name,)).fetchone()
    if owner is not None and owner[0] != author:
        return NotRecorded.NAME_TAKEN
    if _attempts_since(db, author, now - HOUR) >= quota.per_hour:
        return NotRecorded.PER_HOUR
    marks = ", ".join("?" for _ in PENDING)
    pending = db.execute(f"SELECT count(*) FROM league_uploads WHERE author = ? AND status IN "
                         f"({marks})", (author, *PENDING)).fetchone()[0]
    if pending >= quota.pending:
        return NotRecorded.PENDING
    return None


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def _counted_practice(db: sqlite3.Connection, author: str, entrant: str, opponent: str,
                      status: PracticeStatus, limit: int, since: float) -> int | None:
    """Insert a practice game of `author` in the open transaction of `db`, unless they asked
    for `limit` since `since` already; its id, or None."""
    asked = db.execute("SELECT count(*) FROM league_practice WHERE author = ? AND "
                       "created >= ?", (author, since)).fetchone()[0]
    if asked >= limit:
        return None
    now = time.time()
    cursor = db.execute("INSERT INTO league_practice (author, entrant, opponent, status, "
                        "created, updated) VALUES (?, ?, ?, ?, ?, ?)",
                        (author, entrant, opponent, status.value, now, now))
    return int(cursor.lastrowid or 0)
