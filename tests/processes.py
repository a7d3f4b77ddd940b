"""Finding bot processes from tests: bots run in their own folder (or in intake's snapshot
or build of it), so their working directory tells them apart, and they carry the running
test's tag in their environment (tests/conftest.py), so that another test or another arena
run beside this one, even in the same folders, is never counted. And processes found by
their command line (`processes_with`, `processes_running`), for a test whose bot starts a
program named by a marker of its own."""

from __future__ import annotations

import os
from collections.abc import Iterator
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


def _command_lines() -> Iterator[tuple[int, list[bytes]]]:
    """(pid, argv) of every process (one that ended meanwhile left out)."""
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                yield int(proc.name), (proc / "cmdline").read_bytes().split(b"\0")[:-1]
            except OSError:  # it ended meanwhile
                continue


def processes_with(marker: str) -> list[int]:
    """The processes whose command line holds `marker` (bubblewrap's too, whose command line
    holds the command it runs)."""
    return [pid for pid, argv in _command_lines() if marker.encode() in argv]


def processes_running(*argv: str) -> list[int]:
    """The processes whose command line is `argv`, its program named by any path."""
    wanted = [word.encode() for word in argv]
    return [pid for pid, line in _command_lines()
            if line[:1] and [os.path.basename(line[0]), *line[1:]] == wanted]
