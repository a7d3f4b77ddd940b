"""Entrants: building each bot folder, its version, and what to do with one that cannot be built.

A version is the content hash of the folder after its build, leaving out every file a build
of that folder was ever seen to write (`Store.build_outputs`; the folders `build/`,
`target/`, `node_modules/`... are left out anyway). Hashing before the build would make a
build that rewrites a hashed file (a lock file, a generated header) a new version on every
run; leaving out what builds write keeps the version a function of what the author wrote.
The files a build writes are found by comparing the folder's file list, sizes, modification
times and inodes before and after it.

A build runs only when needed: after a successful build the store notes the folder's version
and what the build made (the files it wrote, and the top-level folders its build left that
the hash skips, such as `build/` or `node_modules/`); the next run skips the build while the
folder's version is the same, its build command too, and all of that is still there
(`cached_version`). Changing a source file, or deleting what the build made, builds again.

A bot that cannot be built (its build fails, or its command is not installed) is
`Unbuildable`: the failure in one line, the build's output, and what to install.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from arena.referee.manifest import BotManifest, folder_hash, shown, version_files
from arena.referee.match import build_bot
from arena.tournament.store import Store
from protocol.schema import clip

_OUTPUT_LINES = 12  # of a failed build's output, shown
_OUTPUT_CHARS = 300  # of each of those lines, and of the build command
_INSTALL = {
    "c": "install a C compiler, make and the libzmq and msgpack-c headers (Debian: apt-get "
         "install gcc make libzmq3-dev libmsgpack-dev)",
    "java": "install a JDK and the JeroMQ and msgpack-java jars (Debian: apt-get install "
            "default-jdk-headless libjeromq-java libmsgpack-java)",
    "node": "install Node.js and npm (Debian: apt-get install nodejs npm)",
    "python": "install what its README asks for",
}


@dataclass(frozen=True)
class Unbuildable:
    """A bot folder that cannot take part: why, the build's output, and what to install."""

    manifest: BotManifest
    reason: str
    """One line: the command that failed and how."""
    output: str = ""
    """The end of the build's output (stdout and stderr), as text."""

    @property
    def hint(self) -> str:
        """What to install, by the bot's language."""
        return _INSTALL.get(self.manifest.language.lower(),
                            "install what its build needs (see its README)")

    def line(self) -> str:
        """Why it is left out and what to install, in one line."""
        return f"{self.manifest.name} left out: {self.reason}; to include it, {self.hint}"

    def details(self) -> str:
        """The failure with the end of the build's output (its last lines, each cut),
        indented, for an error message (the CLI escapes it for the terminal)."""
        text = f"{self.manifest.name} ({self.manifest.folder}): {self.reason}"
        lines = self.output.strip().splitlines()[-_OUTPUT_LINES:]
        if lines:
            text += "\n" + "\n".join(f"      {clip(line, _OUTPUT_CHARS)}" for line in lines)
        return f"{text}\n    to include it, {self.hint}"


def build(manifest: BotManifest) -> Unbuildable | None:
    """Run the bot's build (if it has one) and check its command can be started; None if it
    is ready, else why not."""
    if manifest.build:
        command = clip(" ".join(manifest.build), _OUTPUT_CHARS)
        try:
            build_bot(manifest)
        except FileNotFoundError:
            return Unbuildable(manifest, f"its build `{command}` cannot run: "
                                         f"{shown(manifest.build[0])} is not installed")
        except subprocess.CalledProcessError as exc:
            return Unbuildable(manifest, f"its build `{command}` failed (exit code "
                                         f"{exc.returncode})", _output(exc))
        except subprocess.TimeoutExpired as exc:
            return Unbuildable(manifest, f"its build `{command}` took longer than "
                                         f"{exc.timeout:g} s", _output(exc))
        except OSError as exc:
            return Unbuildable(manifest, f"its build `{command}` cannot run: {exc}")
    return _runnable(manifest)


def _runnable(manifest: BotManifest) -> Unbuildable | None:
    program = manifest.argv()[0]
    if os.sep in program:
        if os.access(Path(manifest.folder, program), os.X_OK):
            return None
        return Unbuildable(manifest, f"its command {shown(program)} is not an executable file "
                                     "in its folder")
    if shutil.which(program) is None:
        return Unbuildable(manifest, f"its command {shown(program)} is not installed (not on "
                                     "PATH)")
    return None


def _output(exc: subprocess.CalledProcessError | subprocess.TimeoutExpired) -> str:
    parts = [exc.stdout, exc.stderr]
    return "".join(p.decode(errors="replace") if isinstance(p, bytes) else (p or "")
                   for p in parts)


def build_and_hash(manifest: BotManifest, store: Store) -> tuple[str | None, Unbuildable | None]:
    """Build the bot, note the files its build wrote, and hash what is left: (version, None),
    or (None, why it cannot be built)."""
    before = _snapshot(manifest.folder)
    failure = build(manifest)
    after = _snapshot(manifest.folder)
    written = {path for path, stamp in after.items() if before.get(path) != stamp}
    if written:
        store.add_build_outputs(manifest.folder, written)
    if failure is not None:
        return None, failure
    current = version(manifest, store)
    if manifest.build:
        _note_build(manifest, store, current, set(after))
    return current, None


def cached_version(manifest: BotManifest, store: Store) -> str | None:
    """The folder's version if its last successful build (noted in the store) was of this
    very version and build command and what it made is all still there; None if the bot must
    be built (or has no build)."""
    if not manifest.build:
        return None
    noted = store.meta(_BUILT + str(manifest.folder))
    if noted is None:
        return None
    built = json.loads(noted)
    current = version(manifest, store)
    if built["version"] != current or built["build"] != list(manifest.build):
        return None
    if not all((manifest.folder / rel).exists() for rel in built["made"]):
        return None
    return current if _runnable(manifest) is None else None


_BUILT = "built:"  # store meta key prefix: a folder's last successful build


def _note_build(manifest: BotManifest, store: Store, current: str, hashed: set[str]) -> None:
    """Note a successful build: the version built and what the build made (the files of the
    folder it wrote, and the top-level entries that hold no hashed file, such as build/)."""
    folder = manifest.folder
    tops = {rel.split("/", 1)[0] for rel in hashed}
    made = sorted(store.build_outputs(folder) & hashed
                  | {entry.name for entry in folder.iterdir() if entry.name not in tops})
    store.set_meta({_BUILT + str(folder): json.dumps(
        {"version": current, "build": list(manifest.build), "made": made})})


def version(manifest: BotManifest, store: Store) -> str:
    """The folder's version as it stands (without building)."""
    return folder_hash(manifest.folder, store.build_outputs(manifest.folder))


def _snapshot(folder: Path) -> dict[str, tuple[int, int, int]]:
    """Each hashed file's (modification time in ns, size, inode)."""
    stamps = {}
    for rel in version_files(folder):
        try:
            st = os.stat(folder / rel)
        except OSError:
            continue
        stamps[rel] = (st.st_mtime_ns, st.st_size, st.st_ino)
    return stamps
