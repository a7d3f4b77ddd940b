"""Shared helpers of the intake tests: a bot folder to take, a fingerprint of a folder (to see
that a refusal left the author's folder untouched) and the check every refusal must pass."""

from __future__ import annotations

import io
import os
import tarfile
import zipfile
from pathlib import Path

import pytest

from arena.intake import DEFAULT_INTAKE_LIMITS, IntakeLimits, IntakeRefused, take_snapshot


def make_bot(folder: Path) -> Path:
    """A small bot folder: files, an executable, nested and empty folders, and the folders
    intake skips (.git, __pycache__) beside the ones it keeps (build, node_modules)."""
    (folder / "src" / "deep").mkdir(parents=True)
    (folder / "empty").mkdir()
    (folder / "bot.py").write_text("print('pass')\n")
    (folder / "run.sh").write_text("#!/bin/sh\nexec python3 bot.py\n")
    (folder / "run.sh").chmod(0o755)
    (folder / "src" / "deep" / "data.bin").write_bytes(bytes(range(256)) * 10)
    (folder / "src" / "é.txt").write_text("unicode name\n")
    for kept in ("build", "node_modules/pkg"):
        (folder / kept).mkdir(parents=True)
        (folder / kept / "out.js").write_text("1\n")
    for skipped in (".git/objects", "src/__pycache__"):
        (folder / skipped).mkdir(parents=True)
        (folder / skipped / "junk").write_bytes(b"skipped")
    return folder


def fingerprint(folder: Path) -> dict[bytes, tuple]:
    """Every entry under `folder` (names as bytes) with its kind, size, mode, times, inode
    and link target: what a refusal must leave as it was."""
    entries: dict[bytes, tuple] = {}
    top = os.fsencode(folder)
    for here, folders, files in os.walk(top):
        for name in folders + files:
            path = os.path.join(here, name)
            info = os.lstat(path)
            target = os.readlink(path) if os.path.islink(path) else b""
            entries[os.path.relpath(path, top)] = (info.st_mode, info.st_size, info.st_mtime_ns,
                                                   info.st_ino, info.st_nlink, target)
    return entries


def leftovers(root: Path) -> list[str]:
    """What `root` holds (nothing if it does not exist)."""
    return sorted(os.listdir(root)) if root.exists() else []


def refused(source: Path, root: Path, *fragments: str,
            limits: IntakeLimits = DEFAULT_INTAKE_LIMITS) -> IntakeRefused:
    """Takes `source`, which must be refused with every fragment in the one-line message,
    leaving nothing under `root` and the source as it was."""
    before = fingerprint(source) if source.is_dir() else None
    with pytest.raises(IntakeRefused) as caught:
        take_snapshot(source, root, limits)
    message = str(caught.value)
    assert "\n" not in message and "\x1b" not in message, message
    assert message == f"{caught.value.path}: {caught.value.reason}"
    for fragment in fragments:
        assert fragment in message, message
    assert leftovers(root) == []
    if before is not None:
        assert fingerprint(source) == before
    return caught.value


def tar_of(folder: Path, archive: Path) -> Path:
    """`folder` packed as a tar (compressed by the archive's suffix), paths relative to it."""
    mode = "w:gz" if archive.name.lower().endswith((".tar.gz", ".tgz")) else "w"
    with tarfile.open(archive, mode) as tar:
        tar.add(folder, arcname=".")
    return archive


def zip_of(folder: Path, archive: Path) -> Path:
    """`folder` packed as a zip, folders included, paths relative to it."""
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
        for path in sorted(folder.rglob("*")):
            zipped.write(path, path.relative_to(folder).as_posix())
    return archive


def tar_with(archive: Path, *members: tuple[tarfile.TarInfo, bytes]) -> Path:
    """A tar.gz (or tar) holding exactly the given members, as crafted."""
    mode = "w:gz" if archive.name.lower().endswith((".tar.gz", ".tgz")) else "w"
    with tarfile.open(archive, mode, format=tarfile.GNU_FORMAT, encoding="utf-8",
                      errors="surrogateescape") as tar:
        for info, data in members:
            info.size = len(data) if info.isreg() else 0
            tar.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return archive


def member(name: str, kind: bytes = tarfile.REGTYPE, linkname: str = "",
           mode: int = 0o644) -> tarfile.TarInfo:
    """A tar member header of any kind and name."""
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.mode = kind, linkname, mode
    return info
