"""Uploads: an archive stored durably before it is acknowledged, then taken in behind.

`store_upload` (called by the API, off the event loop) writes the archive under a temporary
name, fsyncs it, checks it as intake's snapshot does (`arena.intake.take_snapshot`: a path
that escapes, a link, a bomb, too many files are refused whole: 400), renames it into the
uploads folder, fsyncs the folder, and records it (`Accounts.add_upload`) only then: an
acknowledged upload survives a `kill -9`, and an upload killed before it was recorded leaves
at most a stray file.

The quotas (`UploadQuota`: uploads an hour, uploads being taken in at once) and the bot
name's owner are checked again in the transaction that records the upload, so that uploads
sent at once are counted one after another; one refused then has its archive removed (429 or
409). An upload refused at intake (too large, not an archive, refused by the snapshot check)
counts toward the hourly quota (`Accounts.add_refusal`): each cost the server what an upload
costs. A 429 counts toward nothing.

`IntakeQueue` takes each recorded upload in on threads of its own (`league.intakes` at once):
building (`arena.intake.take_bot`: the snapshot, the sandboxed build), checking
(`arena.botkit.check.check_bot`, sandboxed, a short game against the random bot), then
active (registered as an entrant; the same bot's older version retires) or failed, with the
first failing step, the tail of its output and the `arena check-bot` command that reproduces
it. Uploads found received, building or checking at start (the server was killed) are taken
in again. An organizer's rebuild (`IntakeQueue.rebuild`) takes an upload in again the same way,
its cached build set aside first (`arena.intake.forget_build`) once nothing runs it: thrown
away once the new build passes, or put back (`arena.intake.restore_build`) if it fails, when
the upload was the bot's active version, so that this version plays on (`Rebuild.fallback`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import shlex
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import BinaryIO

from arena.botkit.check import check_bot
from arena.errors import ArenaError
from arena.intake import (
    ARCHIVE_SUFFIXES,
    IntakeFailed,
    IntakePolicy,
    IntakeStage,
    ReadyBot,
    forget_build,
    restore_build,
    take_bot,
)
from arena.intake.snapshot import IntakeRefused, take_snapshot
from arena.league.accounts import (
    PENDING,
    Accounts,
    CountedRefusal,
    NotRecorded,
    UploadQuota,
    UploadStatus,
)
from arena.league.config import LeagueConfig
from arena.presentation.failures import BOT_FOLDER

logger = logging.getLogger(__name__)

LOG_LINES = 40
"""Lines of a failing step's output kept for its author."""


class BadUpload(ArenaError):
    """An upload refused before it is recorded; `status` is the HTTP status to answer, and
    `kind` says how it counts toward the author's hourly quota (None: not at all)."""

    def __init__(self, status: int, message: str, kind: CountedRefusal | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind


def refusal_error(refused: NotRecorded, name: str, quota: UploadQuota,
                  recording: bool = False) -> BadUpload:
    """The answer to an upload `Accounts` refused; `recording`: refused when it was recorded,
    after passing the check made before its bytes were read."""
    if refused is NotRecorded.NAME_TAKEN:
        return BadUpload(409, f"the bot name {name!r} belongs to another author: choose "
                         "another name (in bot.toml, and --name)")
    if refused is NotRecorded.PER_HOUR:
        message = (f"{quota.per_hour} uploads in the last hour already, archives refused at "
                   "intake included (league.uploads_per_hour): try again later")
    else:
        message = (f"{quota.pending} of your uploads are still being taken in ({quota.pending} "
                   "at most at once): wait until they are active or failed")
    return BadUpload(429, message + (" (uploads sent at once are counted as each is recorded)"
                                     if recording else ""))


class Busy(ArenaError):
    """An organizer's action on an upload being taken in (409)."""


class NoSuchUpload(ArenaError):
    """An organizer's rebuild names an upload or version the bot does not have (404)."""


def archive_suffix(filename: str) -> str:
    """The archive suffix of an uploaded file's name; BadUpload (400) if it has none."""
    lower = filename.lower()
    for suffix in sorted(ARCHIVE_SUFFIXES, key=len, reverse=True):
        if lower.endswith(suffix):
            return suffix
    raise BadUpload(400, f"the file {filename!r} is not an archive: upload a "
                    f"{', '.join(sorted(ARCHIVE_SUFFIXES))} of the bot folder (or give "
                    "`arena upload` the folder itself)", CountedRefusal.NOT_AN_ARCHIVE)


def store_upload(config: LeagueConfig, policy: IntakePolicy, accounts: Accounts, author: str,
                 name: str, filename: str, data: BinaryIO, quota: UploadQuota) -> int:
    """Write, fsync, check and record an uploaded archive; its upload id. BadUpload: 400 (not
    an archive, or intake refuses it), 409 (the name is another author's), 413 (too large),
    429 (`quota` reached when it was recorded). A refusal of a `CountedRefusal` is counted."""
    try:
        return _store_upload(config, policy, accounts, author, name, filename, data, quota)
    except BadUpload as exc:
        if exc.kind is not None:
            accounts.add_refusal(author, exc.kind, quota)
        raise


def _store_upload(config: LeagueConfig, policy: IntakePolicy, accounts: Accounts, author: str,
                  name: str, filename: str, data: BinaryIO, quota: UploadQuota) -> int:
    suffix = archive_suffix(filename)
    folder = config.uploads
    folder.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=".incoming-", suffix=suffix, dir=folder)
    path = Path(temporary)
    try:
        with os.fdopen(fd, "wb") as out:
            size = 0
            while chunk := data.read(1 << 16):
                size += len(chunk)
                if size > config.upload_bytes:
                    raise BadUpload(413, f"the upload is larger than the league's limit of "
                                    f"{config.upload_bytes // 2**20} MB "
                                    "(league.upload_megabytes)", CountedRefusal.TOO_LARGE)
                out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        with tempfile.TemporaryDirectory(dir=folder, prefix=".check-") as scratch:
            try:
                take_snapshot(path, Path(scratch), policy.limits)
            except IntakeRefused as exc:
                raise BadUpload(400, f"the archive is refused: {exc}",
                                CountedRefusal.ARCHIVE_REFUSED) from None
        final = folder / (path.name.removeprefix(".incoming-"))
        os.rename(path, final)
        _fsync_folder(folder)
        upload = accounts.add_upload(author, name, final.name, quota)
        if isinstance(upload, NotRecorded):
            final.unlink()
            raise refusal_error(upload, name, quota, recording=True)
        return upload
    finally:
        path.unlink(missing_ok=True)


def _fsync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


Details = dict[str, str]
"""A failure as `Accounts.set_status` records it: stage, reason, log and command."""


@dataclass(frozen=True)
class Rebuild:
    """An organizer's rebuild of an upload."""

    quiet: Callable[[], bool]
    """Waits until nothing runs the upload's build any more (False: the server is
    stopping)."""
    fallback: Callable[[Accounts, Details], None] | None = None
    """If the new build fails, records the failure and puts the version built before back
    in play (its build restored first); None: the failure is recorded as an upload's."""
    set_aside: bool = False
    """Whether its build was set aside (a bot with no build has none to put back)."""


def _tail(text: str) -> str:
    return "\n".join(text.strip().splitlines()[-LOG_LINES:])


class IntakeQueue:
    """Takes recorded uploads in, `config.intakes` at once, on threads of their own."""

    def __init__(self, config: LeagueConfig, policy: IntakePolicy,
                 on_active: Callable[[int, ReadyBot], str]) -> None:
        self.config = config
        self.policy = policy
        self.on_active = on_active
        self.queue: queue.Queue[int | None] = queue.Queue()
        self.threads = [threading.Thread(target=self._run, name=f"arena-intake-{k}",
                                         daemon=True) for k in range(config.intakes)]
        self.taking: set[int] = set()
        """The uploads being taken in now."""
        self.fresh: dict[int, Rebuild] = {}
        """Uploads to rebuild from scratch."""

    def undo_cut_rebuilds(self) -> list[int]:
        """Before the server starts anything: the uploads whose build an organizer's rebuild
        had set aside when the server was killed get that build back. The rebuild is undone
        (the organizer may ask again): the bot's active version plays with the build it had,
        and the upload, taken in again at `start`, finds it built. Without this, the build
        set aside would stay on disk for ever, and that version would be built anew, or
        lost if its build now fails. The uploads concerned."""
        undone = []
        with Accounts(self.config.storage) as accounts:
            for upload in accounts.uploads(status=PENDING):
                with contextlib.suppress(IntakeFailed):  # (its intake will say why)
                    if restore_build(self.config.uploads / upload.file, self.policy):
                        undone.append(upload.id)
        return undone

    def start(self) -> None:
        """Take in again the uploads a stopped server left received, building or checking."""
        with Accounts(self.config.storage) as accounts:
            for upload in accounts.uploads(status=PENDING):
                self.queue.put(upload.id)
        for thread in self.threads:
            thread.start()

    def put(self, upload: int) -> None:
        self.queue.put(upload)

    def rebuild(self, upload: int, rebuild: Rebuild) -> None:
        """Take `upload` in again (it is recorded as received already), its cached build
        set aside once `rebuild.quiet` returned True: built and checked anew."""
        self.fresh[upload] = rebuild
        self.queue.put(upload)

    def close(self, wait: float = 300.0) -> None:
        """Take no more uploads in, and wait (at most `wait` seconds) for those being taken
        in: their builds and check-bot games run processes of their own, which a process
        ending under them would leave behind. One not finished is taken in again at the
        next start."""
        for _ in self.threads:
            self.queue.put(None)
        deadline = time.monotonic() + wait
        for thread in self.threads:
            if thread.is_alive():
                thread.join(max(0.0, deadline - time.monotonic()))

    def _run(self) -> None:
        with Accounts(self.config.storage) as accounts:
            while (upload := self.queue.get()) is not None:
                self.taking.add(upload)
                try:
                    self.take(accounts, upload)
                except Exception as exc:  # the harness failed, not the bot: say so
                    logger.exception("upload %s could not be taken in", upload)
                    self._failed(accounts, upload, {
                        "stage": IntakeStage.ARENA, "reason": f"the league failed to take it in: {exc}"})
                finally:
                    self.taking.discard(upload)

    def take(self, accounts: Accounts, upload: int) -> None:
        """Build, check and register one upload, its status updated at each step."""
        row = accounts.upload(upload)
        if row is None:
            return
        archive = self.config.uploads / row.file
        command = shlex.join(["arena", "check-bot", "--games", str(self.config.check_games),
                              "--target", str(self.config.check_target), BOT_FOLDER])
        rebuild = self.fresh.get(upload)
        if rebuild is not None:
            if not rebuild.quiet():  # stopping: taken in at the next start (still received)
                self.fresh.pop(upload)
                return
            with contextlib.suppress(IntakeFailed):  # then take_bot says why
                self.fresh[upload] = replace(rebuild, set_aside=forget_build(
                    archive, self.policy, keep=rebuild.fallback is not None))
        accounts.set_status(upload, UploadStatus.BUILDING)
        try:
            ready = take_bot(archive, self.policy, build=True)
        except IntakeFailed as exc:
            failure = exc.failure
            self._failed(accounts, upload, {"stage": failure.stage, "reason": failure.reason,
                                            "log": _tail(failure.output), "command": command})
            return
        if ready.manifest.name != row.name:
            self._failed(accounts, upload, {"stage": IntakeStage.MANIFEST, "reason": (
                f"bot.toml names the bot {ready.manifest.name!r}, but it was uploaded as "
                f"{row.name!r}: the names must match"), "command": command})
            return
        accounts.set_status(upload, UploadStatus.CHECKING)
        report = check_bot(archive, games=self.config.check_games,
                           target=self.config.check_target, isolation=self.policy.isolation,
                           build_network=self.policy.build_network)
        if not report.ok:
            bad = [i for i in report.items if i.failed or i.status.value == "ERROR"]
            first = bad[0] if bad else None
            self._failed(accounts, upload, {
                "stage": IntakeStage.CHECK,
                "reason": f"{first.name}: {first.summary}" if first else "check-bot failed",
                "log": _tail((first.output if first and first.output else "")
                             or "\n".join(report.lines())),
                "command": command})
            return
        if self.fresh.pop(upload, None) is not None:
            with contextlib.suppress(IntakeFailed):  # the build from before is not needed
                restore_build(archive, self.policy, keep=False)
        key = self.on_active(upload, ready)
        accounts.set_status(upload, UploadStatus.ACTIVE, entrant=key)

    def _failed(self, accounts: Accounts, upload: int, details: Details) -> None:
        """Record a failed intake; that of a rebuild with a fallback puts the build from
        before back (if it had one) and lets the fallback record it."""
        rebuild = self.fresh.pop(upload, None)
        row = accounts.upload(upload)
        if rebuild is not None and rebuild.fallback is not None and row is not None:
            try:
                restored = not rebuild.set_aside or restore_build(
                    self.config.uploads / row.file, self.policy)
            except IntakeFailed:
                restored = False
            if restored:
                rebuild.fallback(accounts, details)
                return
        accounts.set_status(upload, UploadStatus.FAILED, **details)
