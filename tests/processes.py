"""Finding bot processes from tests: bots run in their own folder (or in intake's snapshot
or build of it), so their working directory tells them apart, and they carry the running
test's tag in their environment (tests/conftest.py), so that another test or another arena
run beside this one, even in the same folders, is never counted."""

from __future__ import annotations

import os
from pathlib import Path

from arena.intake import CACHE_VAR, IntakeRefused, content_hash

TAG_VAR = "TICHU_TEST_TAG"


def snapshot_of(folder: Path) -> Path:
    """Intake's snapshot of `folder` as it is now (where a bot without a build runs), whether
    or not it was taken yet: compute it before changing the folder."""
    return Path(os.environ[CACHE_VAR], "snapshots", content_hash(Path(folder).resolve()))


def run_folders(folder: Path) -> set[str]:
    """Where a bot of `folder` runs: the folder itself, or intake's copies of it as it is."""
    folder = Path(folder).resolve()
    found = {str(folder)}
    cache = os.environ.get(CACHE_VAR)
    if cache and folder.is_dir():
        try:
            digest = content_hash(folder)
        except (IntakeRefused, OSError):  # a folder intake would refuse runs nowhere else
            return found
        found |= {str(Path(cache, where, digest)) for where in ("snapshots", "builds")}
    return found


def bot_processes(folder: Path, helpers: bool = True) -> list[int]:
    """Pids of live (not zombie) processes of the running test whose working directory is
    `folder` (or intake's copy of it); `helpers`: with the sandbox's own processes (bubblewrap, around each sandboxed
    bot process)."""
    wanted = run_folders(folder)
    tag = f"{TAG_VAR}={os.environ.get(TAG_VAR, '')}".encode()
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            if os.readlink(f"/proc/{name}/cwd") in wanted and (
                    helpers or os.path.basename(os.readlink(f"/proc/{name}/exe")) != "bwrap"):
                with open(f"/proc/{name}/environ", "rb") as environ:
                    if tag not in environ.read().split(b"\0"):
                        continue
                with open(f"/proc/{name}/stat") as stat:
                    if stat.read().split(")")[-1].split()[0] != "Z":
                        pids.append(int(name))
        except OSError:
            continue
    return pids
