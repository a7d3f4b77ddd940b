"""Make a Python bot's environment, then run its own build (see `pyenv`): run by the arena's
Python as `python -I -c <this text> CONFIG -- [BUILD...]` in the bot's built copy, inside
the build's sandbox. Standard library only: the arena's package may not be visible there.

CONFIG is JSON: `environment` (the folder to make), `requirements` (the file to install),
`network` (whether pip may use the package index) and `site` (the arena's package folders,
which the environment sees after its own). The arena's own pip installs into the
environment (`pip --python`), else the environment gets a pip of its own (ensurepip). Exits
with pip's status if the install fails, saying why on stderr; else execs BUILD, if given.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path


def main(argv: list[str]) -> int:
    config = json.loads(argv[0])
    build = argv[2:] if argv[1:2] == ["--"] else []
    environment = Path(config["environment"])
    if os.path.lexists(environment):
        return _fail(f"the bot folder holds {environment} already: leave it out (the arena "
                     f"makes {environment} from {config['requirements']} at build time)")
    python = str(environment / "bin" / "python")
    pip = _arena_pip(python)
    venv.EnvBuilder(with_pip=pip is None, symlinks=True).create(environment)
    _see_the_arena(environment, config["site"])
    pip = (pip or [python, "-I", "-m", "pip"]) + [
        "install", "--disable-pip-version-check", "--no-input", "--no-cache-dir",
        "--progress-bar", "off", "-r", config["requirements"]]
    if not config["network"]:
        pip.append("--no-index")
    sys.stdout.flush()
    code = subprocess.run(pip, stdin=subprocess.DEVNULL, check=False).returncode
    if code != 0:
        where = ("the package index, the arena's environment and the wheels the folder ships"
                 if config["network"] else
                 "the arena's environment and the wheels the folder ships (--find-links in "
                 f"{config['requirements']}): this build has no network (build_network = true "
                 "in bot.toml asks for it, and the run must allow it)")
        return _fail(f"pip could not install {config['requirements']} (exit code {code}) "
                     f"from {where}", code)
    if build:
        sys.stdout.flush()
        os.execvp(build[0], build)
    return 0


def _arena_pip(python: str) -> list[str] | None:
    """The arena's own pip, installing for `python`, where it can (pip 22.3 added --python):
    no pip of the environment's own to install first (ensurepip costs seconds of CPU)."""
    try:
        import pip
        version = tuple(int(part) for part in pip.__version__.split(".")[:2])
    except (ImportError, ValueError):
        return None
    if version < (22, 3):
        return None
    return [sys.executable, "-I", "-m", "pip", "--python", python]


def _see_the_arena(environment: Path, folders: list[str]) -> None:
    """A `.pth` file that adds the arena's package folders after the environment's own (their
    `.pth` files processed, as the arena's Python does)."""
    purelib = sysconfig.get_path("purelib", vars={"base": str(environment),
                                                  "platbase": str(environment)})
    lines = [f"import site; site.addsitedir({folder!r})\n" for folder in folders]
    Path(purelib, "_tichu_arena.pth").write_text("".join(lines), encoding="utf-8")


def _fail(message: str, code: int = 1) -> int:
    print(f"arena: {message}", file=sys.stderr, flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
