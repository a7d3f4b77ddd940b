"""A bot's folder or archive becomes a content-addressed snapshot, trusting no byte of it.

`take_snapshot(source, root)` copies a folder, or unpacks a `.tar.gz`, `.tgz`, `.tar` or
`.zip` archive, into a scratch folder `root/.incoming-<random>` (mode 0700 while it fills),
hashes what it wrote (`content_hash`) and renames it to `root/<digest>` in one step: a
snapshot folder is complete or absent, never half-written. Whatever is refused
(`IntakeRefused`, one line naming the offending path and why) or fails leaves nothing under
`root` and the author's folder untouched. The same content taken twice, or by two processes
at once, gives one folder; the second take returns the first's (snapshots may be read-only).
A process killed mid-take leaves its `root/.incoming-*` behind: never a snapshot (the name
is no digest), it may be removed when no take is running.

What is taken, and how:
- A folder is walked through directory file descriptors, every entry opened with
  `O_NOFOLLOW` and checked with `fstat` to be the one `lstat` saw, so an author who swaps a
  file or folder for a symlink while we copy gets a refusal ("changed while being copied"),
  never a read outside. Only `source` itself may be a symlink (to a folder or an archive).
- Files become mode 0644, or 0755 where the owner could execute them; folders 0755. Owners,
  times and other permission bits are not kept.
- A symlink is copied as a symlink when its target stays inside the folder, judged
  lexically from the link's own folder: the target must be relative, and `..` may appear
  only as its leading components, climbing no higher than the folder's root (`../lib/x` is
  fine, `/etc/x`, `../../x` from one level down and `a/../x` are refused: the last stays
  inside on paper but escapes when `a` is itself a link to the root). Since every link
  obeys this from a real folder, no chain of links resolves outside the snapshot. A bot
  whose virtualenv links to `/usr/bin/python3` is refused: build it from the snapshot.
- `.git` and `__pycache__` folders (folders only, at any depth) are skipped: neither copied
  nor hashed. Everything else is copied, `build/` and `node_modules/` included.
- Refused: FIFOs, sockets and device files; a regular file with more hard links than the
  walk met inside the folder (the others lie outside it; a copy read that way is dropped
  with the scratch folder, which nobody else can read); a regular file with several hard
  links in a folder that some folder of it lets another user write to (owned by another
  user, or writable by group or others: that user could move links in and out while the
  walk counts them, so no count can be trusted; the links are taken only from a folder
  that nobody but intake's own user can change); a name that is not valid UTF-8,
  holds a control character (C0, DEL, C1, or U+2028/U+2029) or is longer than 255 bytes;
  a path deeper than `limits.depth`; more than `limits.files` files, folders and links, or
  more than `limits.bytes` bytes of files (counted as they are copied, stopping at once:
  a file's size is checked before it is read and its reading stops one byte past the limit).
- An archive is unpacked by this module, member by member, into the scratch folder (never
  `extractall`). Its members must be relative paths (a leading `./` is fine) without `..`,
  with the names a folder may hold, each at most once; a member's parent folders are made
  as needed. Archives may hold only files and folders: symlink and hard link members are
  refused, as are device, FIFO and sparse members, and encrypted zip members
  (`IntakeLimits.links_in_archives` admits symlink members under the folder's rule, for
  `pack_snapshot`'s output). Members are paths relative to the bot's root (made with
  `tar -C bot .` or `cd bot && zip -r`), with one exception: when the unpacked root holds
  only one folder (not a link) and that folder holds bot.toml, that folder is the bot's root
  (made with `tar czf x.tar.gz bot`), so both archives give the bot's folder one digest.
  Any other top folder is kept, not stripped (and its bot has no bot.toml at its root).
  Members under `.git` and `__pycache__` folders are skipped, but every member counts
  toward `limits.files`. Zip member names are taken as UTF-8 whatever their flag says.
- Bomb guards, on the real bytes (declared sizes can lie): the unpacked files may not exceed
  `limits.bytes` nor `limits.archive_ratio` times the archive file's size; a tar stream
  (its headers, and members that are skipped) may not exceed that ratio either, nor the
  byte limit plus 10 KiB of headers per allowed member, so a gzip bomb stops early and
  tarfile never holds more than that in memory; one extended header (a pax header, a GNU
  long name or link) may not exceed 64 KiB, refused before tarfile reads it; a zip's central
  directory is counted against `limits.files`, and its size against 10 KiB per allowed
  member, before zipfile reads it.

The digest: sha256 over a tag and, per entry in the order of a depth-first walk that
visits each folder's names sorted by code point (so `a/b` comes before `a-b`: paths compare
as lists of names), `kind NUL path NUL value NUL`, where kind is `folder`, `file`,
`exec` (a file its owner may execute) or `link`, path is the relative POSIX path and value
the sha256 (hex) of a file's bytes or a link's target. The same tree gives the same digest
on any machine; nothing else of the files counts. Linux only (names are bytes, read as UTF-8).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import gzip
import hashlib
import io
import logging
import os
import re
import shutil
import stat
import tarfile
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, NoReturn, Protocol

from arena.errors import ArenaError, ConfigError

_log = logging.getLogger(__name__)

SKIPPED_FOLDERS = frozenset({".git", "__pycache__"})
"""Folders neither copied nor hashed, wherever they are."""

MANIFEST = "bot.toml"
"""A bot's manifest, as `arena.referee.manifest.MANIFEST` names it (not imported: this
module needs nothing of the project but its errors)."""

ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".zip")
"""The archives `take_snapshot` unpacks (matched case-insensitively)."""

_NAME_BYTES = 255
_TARGET_BYTES = 4095
_CHUNK = 1 << 20
_TAR_HEADER_ALLOWANCE = 10 * 1024
_EXTENDED_HEADER_BYTES = 64 * 1024  # one pax header or GNU long name, at most
_RATIO_FLOOR = 1 << 20
_DIGEST_TAG = b"tichu-arena snapshot 1\0"
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_SHOWN_CHARS = 300
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass(frozen=True)
class IntakeLimits:
    """What a bot may hold; the defaults fit any real bot."""

    files: int = 10_000
    """Files, folders and links in the bot (in an archive: members, skipped ones included,
    plus the folders its members imply)."""
    bytes: int = 200 * 1024 * 1024
    """Total bytes of the bot's regular files."""
    archive_ratio: int = 100
    """An archive's unpacked bytes (and a tar's whole stream) over the archive file's size,
    at most: the compression-bomb guard. Below 1 MiB unpacked it does not apply (a tar
    stream is 10 KiB at least, however small its gzip)."""
    depth: int = 32
    """Components of a path inside the bot, at most (`a/b/c` is 3 deep)."""
    links_in_archives: bool = False
    """Whether an archive may hold symlink members (under the same rule as a folder's
    links). Off for authors' archives; on to take back a `pack_snapshot` of a bot with links."""

    def __post_init__(self) -> None:
        for name in ("files", "bytes", "archive_ratio", "depth"):
            if getattr(self, name) < 1:
                raise ValueError(f"IntakeLimits.{name} must be at least 1")


DEFAULT_INTAKE_LIMITS = IntakeLimits()
_UNLIMITED = IntakeLimits(files=1 << 62, bytes=1 << 62, depth=1 << 62)  # a snapshot's copy


class IntakeRefused(ArenaError):
    """A bot may not be taken: `str(exc)` is one line, `'<path>: <reason>'`.

    `path` names the offending path (the bot's folder joined with the path inside it, or
    the archive), `reason` says why (for an archive member it starts `member '<name>': `).
    Both are printable: control characters and undecodable bytes come escaped.
    """

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason

    def __reduce__(self) -> tuple[type[IntakeRefused], tuple[str, str]]:
        return IntakeRefused, (self.path, self.reason)


@dataclass(frozen=True)
class Snapshot:
    """A bot taken into the snapshot root: a complete, content-addressed folder."""

    folder: Path
    """`root/<digest>`."""
    digest: str
    """The content hash, 64 hex characters (see the module's docstring)."""
    files: int
    """Files, folders and links in the snapshot."""
    bytes: int
    """Total bytes of its regular files."""

    @property
    def version(self) -> str:
        """The short form of the digest an entrant is shown and stored with."""
        return version_of(self.digest)


def version_of(digest: str) -> str:
    """The version of a bot whose snapshot has this digest (`Snapshot.version`)."""
    return digest[:16]


def folder_version(folder: Path) -> str:
    """The version intake would give the bot folder at `folder` as it is now, without taking
    it in (a plan reads it; nothing is copied). IntakeRefused as for `content_hash`."""
    return version_of(content_hash(folder))


def take_snapshot(source: str | Path, root: str | Path,
                  limits: IntakeLimits = DEFAULT_INTAKE_LIMITS) -> Snapshot:
    """The snapshot of a bot folder or archive, taken into `root` (made 0755 if missing).

    Raises IntakeRefused when the source may not be taken; OSError for a fault of the
    machine (a full disk under `root`). Either way nothing is left under `root`.
    """
    source, root = Path(source), Path(root)
    fill, archive = _filler(source, root, limits)
    _make_root(root)
    scratch = Path(tempfile.mkdtemp(prefix=".incoming-", dir=root))
    try:
        fill(scratch)
        if archive:
            scratch = _hoisted(scratch, root)
        digest, files, size = _survey(scratch)
        os.chmod(scratch, 0o755)
        folder = _publish(scratch, root / digest)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    _log.info("%s: taken as %s (%d entries, %d bytes)", source, folder, files, size)
    return Snapshot(folder, digest, files, size)


def content_hash(folder: Path) -> str:
    """The digest of a snapshot folder, as `take_snapshot` names it (to verify a copy).

    Raises IntakeRefused if the folder holds what a snapshot may not (a FIFO, a link out).
    """
    return _survey(Path(folder))[0]


def copy_snapshot(snapshot_folder: Path, target: Path) -> None:
    """A copy of a snapshot at `target` (made here; it must not exist), file by file as
    `take_snapshot` copies a folder: through directory descriptors, so at any depth and path
    length (a snapshot may hold paths longer than PATH_MAX, which a copy by path names such
    as shutil.copytree cannot reach)."""
    target = Path(target)
    os.mkdir(target, 0o700)
    _FolderCopy(Path(snapshot_folder), _UNLIMITED).run(target)
    os.chmod(target, 0o755)


def pack_snapshot(snapshot_folder: Path) -> bytes:
    """A deterministic uncompressed tar of a snapshot, which `take_snapshot` takes back
    (from a file ending in `.tar`) to the same digest.

    Entries come in digest order, with times, owners and modes fixed (0644, 0755). A
    snapshot holding symlinks packs them as symlink members: take it back with
    `IntakeLimits(links_in_archives=True)`. Uncompressed, so that no bomb guard trips.
    A snapshot holding only a folder with bot.toml in it comes back as that folder (no bot).
    """
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT,
                      encoding="utf-8") as tar:
        for node in _tree(Path(snapshot_folder)):
            _pack_node(tar, node)
    return buffer.getvalue()


# -- the source, the scratch folder and publishing


def _filler(source: Path, root: Path, limits: IntakeLimits
            ) -> tuple[Callable[[Path], None], bool]:
    """What fills the scratch folder from `source`, and whether it is an archive; refuses a
    source of the wrong kind."""
    try:
        info = os.stat(source)
    except OSError as exc:
        raise IntakeRefused(_shown(str(source)), f"cannot be read ({exc.strerror})") from None
    if stat.S_ISDIR(info.st_mode):
        _refuse_root_inside(source, root)
        return (lambda scratch: _FolderCopy(source, limits).run(scratch)), False
    lowered = source.name.lower()
    if not lowered.endswith(ARCHIVE_SUFFIXES):
        raise IntakeRefused(_shown(str(source)),
                            "not a folder or a .tar.gz, .tgz, .tar or .zip archive")
    unpack = _unpack_zip if lowered.endswith(".zip") else functools.partial(
        _unpack_tar, gzipped=lowered.endswith((".tar.gz", ".tgz")))
    return (lambda scratch: _unpack(source, scratch, limits, unpack)), True


def _top_folder(scratch: Path) -> str | None:
    """The name of the one folder an unpacked archive holds at its root, if that folder holds
    bot.toml and the root holds nothing else (a folder, never a link: lstat says)."""
    names = os.listdir(scratch)
    if len(names) != 1 or names[0] == MANIFEST:
        return None
    if not stat.S_ISDIR(os.lstat(scratch / names[0]).st_mode):
        return None
    return names[0] if os.path.lexists(scratch / names[0] / MANIFEST) else None


def _hoisted(scratch: Path, root: Path) -> Path:
    """The scratch folder of an unpacked archive, or its one top folder holding bot.toml
    moved out in its place (`tar czf x.tar.gz my-bot`): the snapshot is the bot's folder."""
    top = _top_folder(scratch)
    if top is None:
        return scratch
    inner = Path(tempfile.mkdtemp(prefix=".incoming-", dir=root))
    try:
        os.chmod(scratch / top, 0o700)
        os.rename(scratch / top, inner)  # onto the empty folder, in one step
        os.rmdir(scratch)
    except BaseException:
        shutil.rmtree(inner, ignore_errors=True)
        raise
    return inner


def _refuse_root_inside(source: Path, root: Path) -> None:
    """A snapshot root inside the bot's folder would be copied into itself."""
    if root.resolve().is_relative_to(source.resolve()):
        raise IntakeRefused(_shown(str(source)),
                            f"the snapshot root {_shown(str(root))} lies inside this folder")


def _make_root(root: Path) -> None:
    """`root` made if missing (with its missing parents), each with mode 0755 whatever the
    umask; ConfigError unless it is private (`private_folder`), before anything is made in a
    folder that is not."""
    missing = [p for p in (root, *root.parents) if not p.exists() and not p.is_symlink()]
    if missing:
        problem = _unsafe_above(missing[-1])
        if problem is not None:
            _not_private(root, problem)
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=0o755)
        except FileExistsError:
            continue
        os.chmod(folder, 0o755)
    private_folder(root)


def private_folder(folder: Path) -> None:
    """ConfigError unless nobody but this user (and root) can change what `folder` holds:
    it is a folder of this user's that no one else may write, and every folder on the way to
    it (as named, and once links are resolved) belongs to this user or root and may be
    written by no one else but for the sticky ones (/tmp). Intake trusts what its folders
    hold (a snapshot by its name, a build by its marker): another user who may write there
    could plant a build that another bot would run."""
    me = os.geteuid()
    info = os.stat(os.path.realpath(folder))
    if not stat.S_ISDIR(info.st_mode):
        _not_private(folder, "not a folder")
    if info.st_uid != me or info.st_mode & 0o022:
        _not_private(folder, f"owner uid {info.st_uid}, mode {stat.S_IMODE(info.st_mode):o}")
    problem = _unsafe_above(folder)
    if problem is not None:
        _not_private(folder, problem)


def _unsafe_above(folder: Path) -> str | None:
    """Why another user could replace `folder` (or what it resolves to), or None: a folder
    above it, as named or resolved, that is neither this user's nor root's, or that others
    may write and is not sticky."""
    folder = Path(os.path.abspath(folder))
    me = os.geteuid()
    for above in (*folder.parents, *Path(os.path.realpath(folder)).parents):
        info = os.lstat(above)
        if info.st_uid not in (me, 0):
            return f"{above} belongs to uid {info.st_uid}"
        if (info.st_mode & 0o022 and not info.st_mode & stat.S_ISVTX
                and not stat.S_ISLNK(info.st_mode)):
            return f"{above} may be written by others (mode {stat.S_IMODE(info.st_mode):o})"
    return None


def _not_private(folder: Path, problem: str) -> NoReturn:
    raise ConfigError(f"{_shown(str(folder))}: intake keeps bots here, so it must be a "
                      f"folder of yours that no one else may write ({_shown(problem)}); fix "
                      "its owner or mode (chmod go-w), or choose another folder")


def _publish(scratch: Path, folder: Path) -> Path:
    """The scratch folder renamed to `folder`; an existing `folder` (the same content,
    taken before or at this moment by another process) kept, and the scratch dropped."""
    if not folder.exists():
        try:
            os.rename(scratch, folder)
            return folder
        except OSError as exc:
            if exc.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                raise
    shutil.rmtree(scratch, ignore_errors=True)
    return folder


# -- names, links and messages


def _raw(text: str) -> bytes:
    """The bytes a name stands for (names read from Linux and archives are UTF-8 with
    surrogate escapes for undecodable bytes)."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


def _shown(text: str) -> str:
    """`text` printable on one line: undecodable bytes and control characters escaped,
    and cut short if long."""
    text = _raw(text).decode("utf-8", "backslashreplace")
    text = _CONTROL.sub(lambda match: f"\\x{ord(match[0]):02x}" if ord(match[0]) < 0x100
                        else f"\\u{ord(match[0]):04x}", text)
    return text if len(text) <= _SHOWN_CHARS else text[:_SHOWN_CHARS] + "..."


def _text_problem(text: str, what: str, max_bytes: int) -> str | None:
    """Why `text` (a name or a link's target) may not be taken, or None."""
    raw = _raw(text)
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return f"{what} is not valid UTF-8"
    if _CONTROL.search(text):
        return f"{what} contains a control character"
    if len(raw) > max_bytes:
        return f"{what} is longer than {max_bytes} bytes"
    return None


def _name_problem(name: str) -> str | None:
    """Why a file or folder name may not be taken, or None."""
    return _text_problem(name, "name", _NAME_BYTES)


def _link_problem(parts: tuple[str, ...], target: str) -> str | None:
    """Why the symlink at `parts` may not point at `target`, or None (see the module's
    docstring: relative, `..` only leading, climbing no higher than the root)."""
    if not target:
        return "symlink target is empty"
    problem = _text_problem(target, "symlink target", _TARGET_BYTES)
    if problem:
        return problem
    if target.startswith("/"):
        return f"symlink to an absolute path '{_shown(target)}' leaves the folder"
    names = [name for name in target.split("/") if name not in ("", ".")]
    climbs = next((at for at, name in enumerate(names) if name != ".."), len(names))
    if ".." in names[climbs:]:
        return (f"symlink target '{_shown(target)}' has '..' after a name "
                "(only leading '..' may climb)")
    if climbs > len(parts) - 1:
        return f"symlink target '{_shown(target)}' climbs out of the folder"
    return None


def _kind_refused(mode: int) -> str:
    """Why an entry of this kind (neither file, folder nor link) is refused."""
    kinds = {stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket",
             stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device"}
    return f"is {kinds.get(stat.S_IFMT(mode), 'not a file, folder or symlink')}"


def _os_reason(exc: OSError) -> str:
    """Why reading an entry failed, in words (a swap shows as ELOOP or ENOTDIR)."""
    if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.ENOENT, errno.EISDIR, errno.EINVAL):
        return "changed while being copied"
    return f"cannot be read ({exc.strerror})"


@contextlib.contextmanager
def _reading(where: str) -> Iterator[None]:
    """An OSError while reading the entry at `where` becomes IntakeRefused."""
    try:
        yield
    except OSError as exc:
        raise IntakeRefused(where, _os_reason(exc)) from None


def _open_checked(dir_fd: int, name: str, seen: os.stat_result, flags: int,
                  where: str) -> int:
    """`name` opened without following a link, checked to be the entry `lstat` saw."""
    with _reading(where):
        fd = os.open(name, flags, dir_fd=dir_fd)
    now = os.fstat(fd)
    if (now.st_dev, now.st_ino, stat.S_IFMT(now.st_mode)) != (
            seen.st_dev, seen.st_ino, stat.S_IFMT(seen.st_mode)):
        os.close(fd)
        raise IntakeRefused(where, "changed while being copied")
    return fd


def _write_all(fd: int, data: bytes) -> None:
    """All of `data` written (os.write may write less)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


# -- copying a folder


@dataclass
class _Inode:
    """A file with several hard links: where the walk first met it, and how often."""

    parts: tuple[str, ...]
    links: int
    seen: int = 1


class _FolderCopy:
    """Copies an author's folder into the scratch folder, refusing what may not be taken."""

    def __init__(self, source: Path, limits: IntakeLimits) -> None:
        self.source = source
        self.limits = limits
        self.entries = 0
        self.bytes = 0
        self.inodes: dict[tuple[int, int], _Inode] = {}
        self.shared: tuple[str, ...] | None = None
        """The first folder met that another user may write to (None: there is none)."""

    def run(self, scratch: Path) -> None:
        """Copies the whole folder into `scratch`."""
        with _reading(_shown(str(self.source))):
            source_fd = os.open(self.source, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        scratch_fd = os.open(scratch, _DIR_FLAGS)
        try:
            self._note_writers(source_fd, ())
            self._folder(source_fd, scratch_fd, ())
        finally:
            os.close(source_fd)
            os.close(scratch_fd)
        self._check_hard_links()

    def _where(self, parts: tuple[str, ...]) -> str:
        return _shown(os.path.join(self.source, *parts))

    def _refuse(self, parts: tuple[str, ...], reason: str) -> NoReturn:
        raise IntakeRefused(self._where(parts), reason)

    def _folder(self, source_fd: int, target_fd: int, parts: tuple[str, ...]) -> None:
        for name in self._names(source_fd, parts):
            self._entry(source_fd, target_fd, (*parts, name))

    def _names(self, fd: int, parts: tuple[str, ...]) -> list[str]:
        """The names of a folder but its skipped folders; refuses as soon as they are too many."""
        names: list[str] = []
        with _reading(self._where(parts)), os.scandir(fd) as listing:
            for entry in listing:
                if entry.name in SKIPPED_FOLDERS and entry.is_dir(follow_symlinks=False):
                    continue
                names.append(entry.name)
                if self.entries + len(names) > self.limits.files:
                    self._refuse(parts, f"more than {self.limits.files} files, folders and links")
        return names

    def _entry(self, source_fd: int, target_fd: int, parts: tuple[str, ...]) -> None:
        name = parts[-1]
        with _reading(self._where(parts)):
            seen = os.stat(name, dir_fd=source_fd, follow_symlinks=False)
        problem = _name_problem(name)
        if problem:
            self._refuse(parts, problem)
        if stat.S_ISDIR(seen.st_mode) and name in SKIPPED_FOLDERS:
            return
        if len(parts) > self.limits.depth:
            self._refuse(parts, f"deeper than {self.limits.depth} levels")
        self.entries += 1
        if self.entries > self.limits.files:
            self._refuse(parts, f"more than {self.limits.files} files, folders and links")
        if stat.S_ISDIR(seen.st_mode):
            self._copy_folder(source_fd, target_fd, parts, seen)
        elif stat.S_ISREG(seen.st_mode):
            self._copy_file(source_fd, target_fd, parts, seen)
        elif stat.S_ISLNK(seen.st_mode):
            self._copy_link(source_fd, target_fd, parts)
        else:
            self._refuse(parts, _kind_refused(seen.st_mode))

    def _copy_folder(self, source_fd: int, target_fd: int, parts: tuple[str, ...],
                     seen: os.stat_result) -> None:
        name = parts[-1]
        os.mkdir(name, 0o700, dir_fd=target_fd)
        sub_target = os.open(name, _DIR_FLAGS, dir_fd=target_fd)
        try:
            os.fchmod(sub_target, 0o755)
            sub_source = _open_checked(source_fd, name, seen, _DIR_FLAGS, self._where(parts))
            try:
                self._note_writers(sub_source, parts)
                self._folder(sub_source, sub_target, parts)
            finally:
                os.close(sub_source)
        finally:
            os.close(sub_target)

    def _copy_file(self, source_fd: int, target_fd: int, parts: tuple[str, ...],
                   seen: os.stat_result) -> None:
        if self.bytes + seen.st_size > self.limits.bytes:
            self._refuse(parts, self._too_big())
        source = _open_checked(source_fd, parts[-1], seen, _READ_FLAGS, self._where(parts))
        try:
            now = os.fstat(source)
            self._note_hard_links(now, parts)
            target = os.open(parts[-1], _WRITE_FLAGS, 0o600, dir_fd=target_fd)
            try:
                self._pour(source, target, parts)
                os.fchmod(target, 0o755 if now.st_mode & stat.S_IXUSR else 0o644)
            finally:
                os.close(target)
        finally:
            os.close(source)

    def _too_big(self) -> str:
        return f"the bot's files exceed {self.limits.bytes} bytes"

    def _pour(self, source: int, target: int, parts: tuple[str, ...]) -> None:
        """Copies the file's bytes, reading at most one byte past the byte limit."""
        while True:
            with _reading(self._where(parts)):
                chunk = os.read(source, min(_CHUNK, self.limits.bytes - self.bytes + 1))
            if not chunk:
                return
            self.bytes += len(chunk)
            if self.bytes > self.limits.bytes:
                self._refuse(parts, self._too_big())
            _write_all(target, chunk)

    def _copy_link(self, source_fd: int, target_fd: int, parts: tuple[str, ...]) -> None:
        with _reading(self._where(parts)):
            target = os.readlink(parts[-1], dir_fd=source_fd)
        problem = _link_problem(parts, target)
        if problem:
            self._refuse(parts, problem)
        os.symlink(target, parts[-1], dir_fd=target_fd)

    def _note_hard_links(self, info: os.stat_result, parts: tuple[str, ...]) -> None:
        if info.st_nlink < 2:
            return
        inode = self.inodes.get((info.st_dev, info.st_ino))
        if inode is None:
            self.inodes[(info.st_dev, info.st_ino)] = _Inode(parts, info.st_nlink)
        else:
            inode.seen += 1

    def _note_writers(self, fd: int, parts: tuple[str, ...]) -> None:
        """Notes the folder if a user other than intake's own may change its entries."""
        info = os.fstat(fd)
        if self.shared is None and (info.st_uid != os.geteuid() or info.st_mode & 0o022):
            self.shared = parts

    def _check_hard_links(self) -> None:
        """Refuses a file some of whose hard links the walk did not meet (outside the folder,
        or in a skipped folder), and any file of several links when another user may write
        to a folder of the bot's."""
        if self.inodes and self.shared is not None:
            inode = next(iter(self.inodes.values()))
            folder = _shown(os.path.join(self.source, *self.shared))
            self._refuse(inode.parts, f"has {inode.links} hard links, and {folder} may be "
                                      "changed by another user (its owner, or group or others "
                                      "may write to it): links moved during the copy cannot "
                                      "be counted; replace the hard links by copies")
        for inode in self.inodes.values():
            if inode.seen < inode.links:
                self._refuse(inode.parts, f"has {inode.links} hard links, {inode.seen} inside "
                                          "the folder: a link to a file outside it")


# -- walking a snapshot (the digest, packing)


@dataclass(frozen=True)
class _Node:
    """An entry met by `_tree`; `dir_fd` (its folder) is open only while the walk is at it."""

    parts: tuple[str, ...]
    kind: str
    target: str
    dir_fd: int

    @property
    def path(self) -> str:
        return "/".join(self.parts)


def _tree(folder: Path) -> Iterator[_Node]:
    """The entries of a folder, each folder's names sorted, skipped folders left out; refuses
    an entry a snapshot may not hold."""
    with _reading(_shown(str(folder))):
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        yield from _tree_at(fd, (), str(folder))
    finally:
        os.close(fd)


def _tree_at(fd: int, parts: tuple[str, ...], top: str) -> Iterator[_Node]:
    with _reading(_shown(os.path.join(top, *parts))):
        names = sorted(os.listdir(fd))
    for name in names:
        sub = (*parts, name)
        where = _shown(os.path.join(top, *sub))
        with _reading(where):
            seen = os.stat(name, dir_fd=fd, follow_symlinks=False)
        problem = _name_problem(name)
        if problem:
            raise IntakeRefused(where, problem)
        if stat.S_ISDIR(seen.st_mode):
            if name not in SKIPPED_FOLDERS:
                yield _Node(sub, "folder", "", fd)
                sub_fd = _open_checked(fd, name, seen, _DIR_FLAGS, where)
                try:
                    yield from _tree_at(sub_fd, sub, top)
                finally:
                    os.close(sub_fd)
        elif stat.S_ISREG(seen.st_mode):
            yield _Node(sub, "exec" if seen.st_mode & stat.S_IXUSR else "file", "", fd)
        elif stat.S_ISLNK(seen.st_mode):
            yield _Node(sub, "link", _tree_link(fd, sub, where), fd)
        else:
            raise IntakeRefused(where, _kind_refused(seen.st_mode))


def _tree_link(fd: int, parts: tuple[str, ...], where: str) -> str:
    with _reading(where):
        target = os.readlink(parts[-1], dir_fd=fd)
    problem = _link_problem(parts, target)
    if problem:
        raise IntakeRefused(where, problem)
    return target


@contextlib.contextmanager
def _opened(node: _Node) -> Iterator[io.BufferedReader]:
    """A file of the walk, opened for reading without following a link."""
    with _reading(_shown(node.path)):
        fd = os.open(node.parts[-1], _READ_FLAGS, dir_fd=node.dir_fd)
    with open(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise IntakeRefused(_shown(node.path), "changed while being read")
        yield file


def _survey(folder: Path) -> tuple[str, int, int]:
    """The digest of a folder, its entries and its files' bytes."""
    digest = hashlib.sha256(_DIGEST_TAG)
    entries = size = 0
    for node in _tree(folder):
        entries += 1
        value = node.target
        if node.kind in ("file", "exec"):
            with _opened(node) as file:
                value = hashlib.file_digest(file, "sha256").hexdigest()
                size += file.tell()
        digest.update(f"{node.kind}\0{node.path}\0{value}\0".encode("utf-8", "surrogateescape"))
    return digest.hexdigest(), entries, size


def _pack_node(tar: tarfile.TarFile, node: _Node) -> None:
    """One entry of the walk added to `tar` with fixed metadata."""
    info = tarfile.TarInfo(node.path)
    info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
    info.mode = {"file": 0o644, "exec": 0o755, "folder": 0o755, "link": 0o777}[node.kind]
    if node.kind == "folder":
        info.type = tarfile.DIRTYPE
        tar.addfile(info)
    elif node.kind == "link":
        info.type, info.linkname = tarfile.SYMTYPE, node.target
        tar.addfile(info)
    else:
        with _opened(node) as file:
            info.size = os.fstat(file.fileno()).st_size
            tar.addfile(info, file)


# -- unpacking an archive


def _unpack(archive: Path, scratch: Path, limits: IntakeLimits,
            unpack: Callable[[BinaryIO, _Unpacker], None]) -> None:
    """An archive file opened (it must be a regular file) and unpacked by `unpack`."""
    where = _shown(str(archive))
    with _reading(where):
        fd = os.open(archive, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    with open(fd, "rb") as file:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise IntakeRefused(where, "not a regular file")
        scratch_fd = os.open(scratch, _DIR_FLAGS)
        try:
            unpack(file, _Unpacker(where, scratch_fd, limits, info.st_size))
        finally:
            os.close(scratch_fd)


class _Unpacker:
    """Writes an archive's members into the scratch folder: checks each member's name and
    kind, makes its parent folders, counts members and bytes against the limits."""

    def __init__(self, archive: str, scratch_fd: int, limits: IntakeLimits,
                 packed: int) -> None:
        self.archive = archive
        self.scratch_fd = scratch_fd
        self.limits = limits
        self.packed = packed
        self.members = 0
        self.bytes = 0
        self.kinds: dict[tuple[str, ...], str] = {}
        self.parent: tuple[tuple[str, ...], int] | None = None

    @property
    def bomb_bytes(self) -> int:
        """The most bytes the archive may unpack to by its ratio."""
        return max(self.limits.archive_ratio * self.packed, _RATIO_FLOOR)

    def refuse(self, reason: str, name: str | None = None) -> NoReturn:
        """Raises IntakeRefused about the archive, or one of its members."""
        if name is not None:
            reason = f"member '{_shown(name)}': {reason}"
        raise IntakeRefused(self.archive, reason)

    def place(self, name: str, kind: str) -> tuple[str, ...] | None:
        """The path of a member of `kind` ('folder', 'file', 'link'), its name checked, or
        None for a member to skip (the root, or under a skipped folder)."""
        parts = self._parts(name)
        if not parts:
            if self.kinds.get(()) == "folder":
                self.refuse("duplicate member", name)
            self.kinds[()] = "folder"
            return None
        self._count(name)
        if any(part in SKIPPED_FOLDERS for part in parts[:-1]) or (
                kind == "folder" and parts[-1] in SKIPPED_FOLDERS):
            return None
        if len(parts) > self.limits.depth:
            self.refuse(f"deeper than {self.limits.depth} levels", name)
        self._claim(name, parts, kind)
        return parts

    def _parts(self, name: str) -> tuple[str, ...]:
        if _CONTROL.search(name):
            self.refuse("name contains a control character", name)
        if name.startswith("/"):
            self.refuse("absolute name", name)
        parts = tuple(part for part in name.split("/") if part not in ("", "."))
        if ".." in parts:
            self.refuse("'..' in the name", name)
        for part in parts:
            problem = _name_problem(part)
            if problem:
                self.refuse(problem, name)
        return parts

    def _count(self, name: str) -> None:
        self.members += 1
        if self.members > self.limits.files:
            self.refuse(f"more than {self.limits.files} files, folders and links", name)

    def _claim(self, name: str, parts: tuple[str, ...], kind: str) -> None:
        """Records the member's kind, refusing a duplicate or a parent that is no folder."""
        for at in range(1, len(parts)):
            parent = self.kinds.get(parts[:at])
            if parent is None:
                self._count(name)
                self.kinds[parts[:at]] = "implied"
            elif parent not in ("folder", "implied"):
                self.refuse(f"'{_shown('/'.join(parts[:at]))}' is not a folder", name)
        before = self.kinds.get(parts)
        if before is not None and not (before == "implied" and kind == "folder"):
            self.refuse("duplicate member", name)
        self.kinds[parts] = kind

    def folder(self, parts: tuple[str, ...]) -> None:
        """Makes a folder member (it may already be made, as a parent of an earlier one)."""
        self._folder_fd(parts)

    def file(self, name: str, parts: tuple[str, ...], chunks: Iterable[bytes],
             executable: bool) -> None:
        """Writes a file member from its chunks of real bytes, counting them."""
        fd = os.open(parts[-1], _WRITE_FLAGS, 0o600, dir_fd=self._folder_fd(parts[:-1]))
        try:
            for chunk in chunks:
                self.bytes += len(chunk)
                self._check_bytes(name)
                _write_all(fd, chunk)
            os.fchmod(fd, 0o755 if executable else 0o644)
        finally:
            os.close(fd)

    def _check_bytes(self, name: str) -> None:
        if self.bytes > self.limits.bytes:
            self.refuse(f"the unpacked files exceed {self.limits.bytes} bytes", name)
        if self.bytes > self.bomb_bytes:
            self.refuse(f"unpacks to more than {self.limits.archive_ratio} times the "
                        f"archive's {self.packed} bytes (a compression bomb?)", name)

    def room(self) -> int:
        """How many more bytes a member may unpack to, plus one (to see it exceed)."""
        return min(self.limits.bytes, self.bomb_bytes) - self.bytes + 1

    def link(self, name: str, parts: tuple[str, ...], target: str) -> None:
        """Makes a symlink member, if archives may hold them and it stays inside."""
        if not self.limits.links_in_archives:
            self.refuse("symlink member (archives may hold only files and folders)", name)
        problem = _link_problem(parts, target)
        if problem:
            self.refuse(problem, name)
        os.symlink(target, parts[-1], dir_fd=self._folder_fd(parts[:-1]))

    def _folder_fd(self, parts: tuple[str, ...]) -> int:
        """The open folder at `parts`, made as needed (the last one opened is kept open)."""
        if self.parent is not None and self.parent[0] == parts:
            return self.parent[1]
        self.close()
        fd = os.dup(self.scratch_fd)
        try:
            for part in parts:
                fd = _enter_folder(fd, part)
        except BaseException:
            os.close(fd)
            raise
        self.parent = (parts, fd)
        return fd

    def close(self) -> None:
        if self.parent is not None:
            os.close(self.parent[1])
            self.parent = None


def _enter_folder(fd: int, name: str) -> int:
    """The folder `name` in `fd` (made 0755 if missing), opened without following a link;
    `fd` is closed once it is open."""
    made = True
    try:
        os.mkdir(name, 0o700, dir_fd=fd)
    except FileExistsError:
        made = False
    sub_fd = os.open(name, _DIR_FLAGS, dir_fd=fd)
    os.close(fd)
    if made:
        os.fchmod(sub_fd, 0o755)
    return sub_fd


class _Readable(Protocol):
    """A stream of bytes to read (a file, a gzip stream, an archive's member)."""

    def read(self, size: int = -1, /) -> bytes: ...


def _chunks(file: _Readable, unpacker: _Unpacker) -> Iterator[bytes]:
    """A member's bytes as read, never asking past what the limits leave (plus one)."""
    while chunk := file.read(min(_CHUNK, unpacker.room())):
        yield chunk


class _CountedStream:
    """A tar stream that refuses as soon as more than `cap` bytes have come out of it."""

    def __init__(self, raw: _Readable, cap: int, unpacker: _Unpacker, reason: str) -> None:
        self.raw, self.cap, self.unpacker, self.reason = raw, cap, unpacker, reason
        self.count = 0

    def read(self, size: int = -1) -> bytes:
        room = self.cap - self.count + 1
        data = self.raw.read(room if size is None or size < 0 else min(size, room))
        self.count += len(data)
        if self.count > self.cap:
            self.unpacker.refuse(self.reason)
        return data


def _tar_stream(file: BinaryIO, unpacker: _Unpacker, gzipped: bool) -> _CountedStream:
    """The archive's tar stream (gunzipped for .tar.gz and .tgz), counted."""
    limits = unpacker.limits
    by_limits = limits.bytes + _TAR_HEADER_ALLOWANCE * (limits.files + 1)
    if unpacker.bomb_bytes < by_limits:
        cap, reason = unpacker.bomb_bytes, (
            f"the tar stream unpacks to more than {limits.archive_ratio} times the "
            f"archive's {unpacker.packed} bytes (a compression bomb?)")
    else:
        cap, reason = by_limits, (
            f"the tar stream holds more than {by_limits} bytes (the byte limit and "
            "headers for the file limit)")
    raw = gzip.GzipFile(fileobj=file, mode="rb") if gzipped else file
    return _CountedStream(raw, cap, unpacker, reason)


class _ExtendedHeaderTooBig(Exception):
    """A pax header or GNU long name larger than `_EXTENDED_HEADER_BYTES`."""


_EXTENDED_TYPES = frozenset({tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.SOLARIS_XHDTYPE,
                             tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK})


class _CheckedTarInfo(tarfile.TarInfo):
    """A tar header that refuses an extended header (pax, GNU long name or link) above
    `_EXTENDED_HEADER_BYTES` before tarfile reads it: tarfile reads one whole into memory
    (and copies it while parsing), up to the whole stream's allowance otherwise."""

    def _proc_member(self, tarfile_: tarfile.TarFile) -> tarfile.TarInfo:
        if self.type in _EXTENDED_TYPES and self.size > _EXTENDED_HEADER_BYTES:
            raise _ExtendedHeaderTooBig(self.size)
        return super()._proc_member(tarfile_)  # type: ignore[misc]  # private: not in typeshed


def _unpack_tar(file: BinaryIO, unpacker: _Unpacker, gzipped: bool) -> None:
    """Unpacks a tar stream member by member (tarfile's stream mode reads it once)."""
    try:
        stream = _tar_stream(file, unpacker, gzipped)
        with tarfile.open(fileobj=stream, mode="r|",  # type: ignore[call-overload]  # "r|" only reads: typeshed asks for seek too
                          encoding="utf-8", errors="surrogateescape",
                          tarinfo=_CheckedTarInfo) as tar:
            for member in tar:
                _unpack_tar_member(tar, member, unpacker)
    except _ExtendedHeaderTooBig as exc:
        unpacker.refuse(f"an extended header (pax or GNU long name) of {exc.args[0]} bytes, "
                        f"more than {_EXTENDED_HEADER_BYTES}")
    except (tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile) as exc:
        unpacker.refuse(f"not a valid tar archive ({_shown(str(exc))})")
    finally:
        unpacker.close()


_TAR_SPECIAL = {tarfile.CHRTYPE: stat.S_IFCHR, tarfile.BLKTYPE: stat.S_IFBLK,
                tarfile.FIFOTYPE: stat.S_IFIFO}


def _tar_kind(member: tarfile.TarInfo, unpacker: _Unpacker) -> str:
    """'file', 'folder' or 'link'; refuses every other kind of member."""
    sparse = member.sparse is not None or member.type == tarfile.GNUTYPE_SPARSE
    if member.isdir():
        return "folder"
    if member.issym():
        return "link"
    if member.isreg() and not sparse:
        return "file"
    if member.islnk():
        unpacker.refuse("hard link member (archives may hold only files and folders)",
                        member.name)
    if sparse:
        unpacker.refuse("sparse member (not supported)", member.name)
    if member.type in _TAR_SPECIAL:
        unpacker.refuse(_kind_refused(_TAR_SPECIAL[member.type]), member.name)
    unpacker.refuse(f"member of unsupported type {member.type!r}", member.name)


def _unpack_tar_member(tar: tarfile.TarFile, member: tarfile.TarInfo,
                       unpacker: _Unpacker) -> None:
    kind = _tar_kind(member, unpacker)
    parts = unpacker.place(member.name, kind)
    if parts is None:
        return
    if kind == "folder":
        unpacker.folder(parts)
    elif kind == "link":
        unpacker.link(member.name, parts, member.linkname)
    else:
        data = tar.extractfile(member)
        assert data is not None  # (a regular file's member)
        unpacker.file(member.name, parts, _chunks(data, unpacker), bool(member.mode & 0o100))


def _unpack_zip(file: BinaryIO, unpacker: _Unpacker) -> None:
    """Unpacks a zip archive member by member, after counting its central directory."""
    try:
        _count_zip_directory(file, unpacker)
        with zipfile.ZipFile(file) as archive:
            for info in archive.infolist():
                _unpack_zip_member(archive, info, unpacker)
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError,
            UnicodeDecodeError) as exc:
        unpacker.refuse(f"not a valid zip archive ({_shown(str(exc))})")
    finally:
        unpacker.close()


# zipfile itself, for its reader of the end record and its layout constants: private names,
# which typeshed leaves out, so typed loosely.
_zip_internals: Any = zipfile


def _count_zip_directory(file: BinaryIO, unpacker: _Unpacker) -> None:
    """Refuses a zip whose central directory lists more members than the file limit,
    before zipfile builds an object for each. It finds the directory with zipfile's own
    (private) reader of the end record and walks it as zipfile does, so both agree."""
    end = _zip_internals._EndRecData(file)  # noqa: SLF001 - the same record zipfile will read
    if not end:
        return
    size = end[_zip_internals._ECD_SIZE]  # noqa: SLF001
    allowance = _TAR_HEADER_ALLOWANCE * (unpacker.limits.files + 1)
    if size > allowance:  # zipfile reads it whole, and keeps every name, extra and comment
        unpacker.refuse(f"its central directory is {size} bytes, more than {allowance} (the "
                        f"headers of {unpacker.limits.files} members)")
    start = end[_zip_internals._ECD_LOCATION] - size  # noqa: SLF001
    if end[_zip_internals._ECD_SIGNATURE] == _zip_internals.stringEndArchive64:  # noqa: SLF001
        start -= _zip_internals.sizeEndCentDir64 + _zip_internals.sizeEndCentDir64Locator
    members, at = 0, 0
    while at < size and start >= 0:
        file.seek(start + at)
        head = file.read(_zip_internals.sizeCentralDir)
        if (len(head) < _zip_internals.sizeCentralDir
                or head[:4] != _zip_internals.stringCentralDir):
            return
        members += 1
        if members > unpacker.limits.files:
            unpacker.refuse(f"more than {unpacker.limits.files} members")
        lengths = int.from_bytes(head[28:30], "little"), int.from_bytes(
            head[30:32], "little"), int.from_bytes(head[32:34], "little")
        at += _zip_internals.sizeCentralDir + sum(lengths)


def _zip_name(info: zipfile.ZipInfo) -> str:
    """A member's name from its bytes read as UTF-8 (zipfile reads unflagged names as cp437,
    which gives the bytes back), undecodable bytes surrogate-escaped."""
    try:
        raw = info.filename.encode("utf-8" if info.flag_bits & 0x800 else "cp437")
    except UnicodeEncodeError:
        raw = info.filename.encode("utf-8", "surrogatepass")
    return raw.decode("utf-8", "surrogateescape")


def _zip_kind(info: zipfile.ZipInfo, name: str, unpacker: _Unpacker) -> str:
    """'file', 'folder' or 'link' by the member's Unix mode (if any) and name."""
    mode = info.external_attr >> 16 if info.create_system == 3 else 0
    if info.flag_bits & 0x1:
        unpacker.refuse("encrypted member", name)
    if stat.S_ISDIR(mode) or name.endswith("/"):
        return "folder"
    if stat.S_ISLNK(mode):
        return "link"
    if stat.S_IFMT(mode) in (0, stat.S_IFREG):
        return "file"
    unpacker.refuse(_kind_refused(mode), name)


def _unpack_zip_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo,
                       unpacker: _Unpacker) -> None:
    name = _zip_name(info)
    kind = _zip_kind(info, name, unpacker)
    parts = unpacker.place(name, kind)
    if parts is None:
        return
    if kind == "folder":
        unpacker.folder(parts)
        return
    with archive.open(info) as data:
        if kind == "link":
            target = data.read(_TARGET_BYTES + 1)
            unpacker.link(name, parts, target.decode("utf-8", "surrogateescape"))
        else:
            mode = info.external_attr >> 16 if info.create_system == 3 else 0
            unpacker.file(name, parts, _chunks(data, unpacker), bool(mode & 0o100))
