"""Intake: how a bot's folder or archive, written by a stranger, enters the arena.

It owns taking a bot as a content-addressed snapshot that trusts no byte of it
(`snapshot`: copying a folder without following links, unpacking an archive with bomb
guards, the content hash, packing a snapshot to ship it). The build of a snapshot and the
orchestration of intake will live here too. `snapshot` imports only the standard library
and `arena.errors`.
"""

from arena.intake.snapshot import (
    ARCHIVE_SUFFIXES,
    DEFAULT_INTAKE_LIMITS,
    SKIPPED_FOLDERS,
    IntakeLimits,
    IntakeRefused,
    Snapshot,
    content_hash,
    pack_snapshot,
    take_snapshot,
)

__all__ = ["ARCHIVE_SUFFIXES", "DEFAULT_INTAKE_LIMITS", "SKIPPED_FOLDERS", "IntakeLimits",
           "IntakeRefused", "Snapshot", "content_hash", "pack_snapshot", "take_snapshot"]
