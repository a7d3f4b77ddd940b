"""Finding bot processes from tests: bots run in their own folder, so their working
directory tells them apart, and they carry the running test's tag in their environment
(tests/conftest.py), so that another test or another arena run beside this one, even in the
same folders, is never counted."""

from __future__ import annotations

import os
from pathlib import Path

TAG_VAR = "TICHU_TEST_TAG"


def bot_processes(folder: Path, helpers: bool = True) -> list[int]:
    """Pids of live (not zombie) processes of the running test whose working directory is
    `folder`; `helpers`: with the sandbox's own processes (bubblewrap, around each sandboxed
    bot process)."""
    wanted = str(Path(folder).resolve())
    tag = f"{TAG_VAR}={os.environ.get(TAG_VAR, '')}".encode()
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            if os.readlink(f"/proc/{name}/cwd") == wanted and (
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
