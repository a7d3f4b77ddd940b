"""Toolchains installed in a temporary home, as rustup, nvm, pyenv and sdkman lay them out.

What is real and what is shaped:

- rustup: the machine's real rustup (its proxies' folder on PATH) with a RUSTUP_HOME of the
  test's own, where `rustup toolchain link` (real, offline) makes the toolchain. The linked
  folder's cargo and rustc run Debian's (scripts/setup-bots.sh installs them), after leaving
  a mark in the working folder: the mark shows which cargo a build ran.
- pyenv: the machine's real pyenv and its installed versions (nothing is installed here);
  the test chooses a version as an author does (.python-version, PYENV_VERSION).
- nvm, sdkman: shaped. Their installers come from GitHub and sdkman.io, which the set-up
  cannot reach, so the test builds their layout (~/.nvm/versions/node/vX/bin,
  ~/.sdkman/candidates/java/current/bin) with programs that run the system's Node.js and
  JDK after leaving the same mark.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

MARK = ".toolchain-mark"
"""Written by a shaped program into its working folder: which program ran, and JAVA_HOME."""


def marking(real: str) -> str:
    """A shell program that notes itself (and JAVA_HOME) in the working folder's `MARK`,
    quietly where it may not write, then runs `real`."""
    return (f'#!/bin/sh\n{{ echo "$0 JAVA_HOME=${{JAVA_HOME:-}}" >> "$PWD/{MARK}"; }} '
            f'2>/dev/null\nexec {real} "$@"\n')


def program(path: Path, real: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(marking(real))
    path.chmod(0o755)
    return path


def system(name: str) -> str:
    """The real file of the system's `name` (its links followed)."""
    found = shutil.which(name, path="/usr/local/bin:/usr/bin:/bin")
    assert found is not None, f"{name} is not installed"
    return os.path.realpath(found)


def nvm_home(home: Path, version: str = "v99.0.0") -> Path:
    """~/.nvm with one Node.js installed (running the system's), npm beside it as nvm lays it
    out (lib/node_modules/npm, bin/npm a link to its npm-cli.js); returns its bin folder."""
    place = home / ".nvm" / "versions" / "node" / version
    program(place / "bin" / "node", system("node"))
    npm = Path(system("npm")).parents[1]  # .../node_modules/npm/bin/npm-cli.js
    (place / "lib" / "node_modules").mkdir(parents=True)
    (place / "lib" / "node_modules" / "npm").symlink_to(npm)
    (place / "bin" / "npm").symlink_to("../lib/node_modules/npm/bin/npm-cli.js")
    return place / "bin"


def sdkman_home(home: Path, version: str = "17.0.99-shaped") -> Path:
    """~/.sdkman with one Java installed (running the system's JDK) and `current` leading to
    it; returns current's bin folder."""
    java = home / ".sdkman" / "candidates" / "java"
    for name in ("java", "javac"):
        program(java / version / "bin" / name, system(name))
    (java / "current").symlink_to(version)
    return java / "current" / "bin"


def rustup_home(home: Path, name: str = "linked") -> Path:
    """A RUSTUP_HOME of its own whose default toolchain `name` is linked (`rustup toolchain
    link`) to a folder whose cargo and rustc run Debian's; returns the RUSTUP_HOME."""
    rustup = shutil.which("rustup")
    assert rustup is not None
    linked = home / "debian-rust"
    for tool in ("cargo", "rustc"):
        program(linked / "bin" / tool, system(tool))
    (linked / "lib").mkdir()  # (rustup links a folder with bin/ and lib/)
    env = {**os.environ, "RUSTUP_HOME": str(home / ".rustup"), "HOME": str(home),
           "RUSTUP_AUTO_INSTALL": "0"}
    for argv in (["toolchain", "link", name, str(linked)], ["default", name]):
        subprocess.run([rustup, *argv], env=env, check=True, capture_output=True, timeout=60)
    return home / ".rustup"


def rustup_bin() -> Path | None:
    """The folder of the machine's rustup and its proxies (~/.cargo/bin), if it has one
    outside the system folders."""
    found = shutil.which("rustup")
    if found is None or os.path.realpath(found).startswith("/usr/"):
        return None
    return Path(found).parent


def pyenv_root() -> Path | None:
    """The machine's pyenv (PYENV_ROOT, or ~/.pyenv), if it has an installed version."""
    root = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv")
    return root if (root / "versions").is_dir() and any((root / "versions").iterdir()) \
        and (root / "shims").is_dir() else None


def pyenv_version(root: Path, avoid: str) -> str | None:
    """An installed CPython 3 version of pyenv with a `python3.N` program, other than `avoid`
    (the arena's own) where it can."""
    found = []
    for place in sorted((root / "versions").iterdir()):
        parts = place.name.split(".")
        if len(parts) == 3 and parts[0] == "3" and all(p.isdigit() for p in parts) and \
                (place / "bin" / f"python3.{parts[1]}").is_file():
            found.append(place.name)
    others = [v for v in found if not avoid.startswith(v.rsplit(".", 1)[0] + ".")]
    return (others or found or [None])[-1]


def marks(folder: Path) -> list[str]:
    """The marks the shaped programs left in `folder` (a built copy)."""
    try:
        return (folder / MARK).read_text().splitlines()
    except FileNotFoundError:
        return []
