"""Record files: a game record on disk, written and read back, and linked to its stored game.

A record file holds a record's JSON (`GameRecord.to_json`), gzip-compressed in a tournament
(`record_bytes`) or plain (`arena play --record`). `write_record` writes one atomically and
durably (temporary file, fsync, rename, fsync of the folder): a reader sees the whole file or
none. `read_record` reads either kind back as a `GameRecord`; `record_json` reads one as
plain JSON, for readers that keep the fields a newer arena adds (the report's hand
statistics).

In a tournament a record is written first under a name of its own (`pending_record`) and
given the name its store row names only once that row is committed (`link_record`, or the
store's `GameWriter` in a batch), so that no record file ever disagrees with its row: the next
run's `sweep_pending` links the pending records of games committed and deletes the others.
"""

from __future__ import annotations

import ctypes
import gzip
import json
import os
import secrets
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from arena.errors import ArenaError
from arena.referee.record import GameRecord

_PENDING = ".pending"
_TEMP = ".tmp"  # a record file being written (`write_record`)
RECORDS_CLEAN = "records_clean"
"""The store's meta key saying "1" while no run can have left a record to sweep."""


def record_bytes(record: GameRecord, gzipped: bool = True) -> bytes:
    """A record file's content: its JSON on one line, gzip-compressed unless `gzipped` is
    false (the same bytes for the same record: no time stamp in the gzip header)."""
    data = json.dumps(record.to_json(), separators=(",", ":")).encode() + b"\n"
    return gzip.compress(data, compresslevel=6, mtime=0) if gzipped else data


def write_record(record: GameRecord, path: Path, gzipped: bool = True) -> None:
    """Write a record file (`record_bytes`) atomically and durably: a reader sees the whole
    file or none, and once this returns the file survives a power loss."""
    _write_durably(record_bytes(record, gzipped), path)


def read_record(path: str | Path) -> GameRecord:
    """The record in a record file, gzipped or plain; ArenaError naming the file if it cannot
    be read or is not a record this arena reads."""
    return GameRecord.from_json(record_json(path))


def record_json(path: str | Path) -> dict[str, Any]:
    """A record file's JSON (gzipped or plain), its fields not checked beyond being a game
    record's; ArenaError naming the file if it cannot be read or is not a game record."""
    try:
        raw = Path(path).read_bytes()
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        data = json.loads(raw)
    except (OSError, ValueError, EOFError) as exc:
        raise ArenaError(f"{path}: cannot read game record: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("events"), list):
        raise ArenaError(f"{path}: not a game record")
    return data


# ----- linked to a stored game ---------------------------------------------------------------

def pending_record(path: Path) -> Path:
    """A name of its own for a record written before its row is committed."""
    return path.with_name(f"{path.name}.{secrets.token_hex(8)}{_PENDING}")


def link_record(pending: Path, path: Path) -> None:
    """Give a committed game's record its final name (replacing any file of an uncommitted
    attempt there), durably."""
    os.replace(pending, path)
    _sync_folder(path.parent)


class RecordIndex(Protocol):
    """What `sweep_pending` asks of the tournament's store (`store.Store` is one): it is
    declared here because the store imports this module, not this module the store."""

    @property
    def path(self) -> Path:
        """The store's file: the row's record name is relative to its folder."""
        ...

    def meta(self, key: str) -> str | None:
        """The meta value under `key`, or None."""
        ...

    def set_meta(self, values: dict[str, str]) -> None:
        """Set meta values, in one transaction."""
        ...

    def result_of_record(self, relative: str) -> tuple[str, int, int, str] | None:
        """(game id, score0, score1, termination) of the game whose row names this record."""
        ...


def sweep_pending(records: Path, store: RecordIndex) -> None:
    """Finish what a stopped run left in `records`: a pending record whose game was committed
    gets its final name; one whose game was not is deleted, and so is a record file cut
    short while being written (`write_record`'s temporary file). Run only under the run
    lock. Skipped when the store says the last run's writer closed cleanly (`GameWriter`):
    its workers then left no record behind."""
    if store.meta(RECORDS_CLEAN) == "1" or not records.is_dir():
        return  # the last run stored every game its workers finished: nothing to finish
    left: list[Path] = []
    for folder, _, files in os.walk(records):  # one pass over every record file
        for name in files:
            if name.endswith(_PENDING):
                left.append(Path(folder, name))
            elif name.startswith(".") and name.endswith(_TEMP):
                Path(folder, name).unlink(missing_ok=True)
    for pending in sorted(left):
        final = pending.with_name(pending.name.rsplit(".", 2)[0])
        stored = store.result_of_record(os.path.relpath(final, store.path.parent))
        if stored is not None and not final.exists() and _holds(pending, stored):
            link_record(pending, final)
        else:
            pending.unlink(missing_ok=True)
    store.set_meta({RECORDS_CLEAN: "1"})


def _holds(pending: Path, stored: tuple[str, int, int, str]) -> bool:
    """True if a pending record is the one of the stored game (an earlier, uncommitted
    attempt at the same game may have left another)."""
    try:
        record = read_record(pending)
    except (ArenaError, OSError, ValueError):
        return False
    return (record.game_id, *record.scores, record.termination.value) == tuple(stored)


# ----- durable files -------------------------------------------------------------------------

def _write_durably(data: bytes, path: Path) -> None:
    """Write a file atomically and durably (temp file, fsync, rename, fsync of the folder):
    a reader sees the whole file or none."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=_TEMP)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    _sync_folder(path.parent)


def sync_files(paths: list[Path]) -> None:
    """Make the files (and their names) durable: one `syncfs` of their file system where
    Linux has it, else an fsync of each file and each folder."""
    if _SYNCFS is not None:
        fd = os.open(paths[0].parent, os.O_RDONLY)
        try:
            if _SYNCFS(fd) == 0:
                return
        finally:
            os.close(fd)
    for path in paths:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    for folder in {p.parent for p in paths}:
        _sync_folder(folder)


def _sync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _syncfs() -> Callable[[int], int] | None:
    try:
        return ctypes.CDLL(None, use_errno=True).syncfs
    except (OSError, AttributeError):
        return None


_SYNCFS = _syncfs()
