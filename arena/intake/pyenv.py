"""A Python bot's own environment: its `requirements.txt`, installed at build time into a
virtual environment of its built copy, `.venv`.

A bot whose command starts with ``python`` or ``python3`` and whose folder holds a
`requirements.txt` gets it: intake's build (`take.py`) runs `SCRIPT` with the arena's own
Python, in the build's sandbox, in the bot's built copy. It makes `.venv` (the arena's
Python, with pip), lets it see what the arena's Python sees (its site folders, where the SDK
`protocol` and its msgpack and pyzmq are, through a `.pth` file of `.venv`), and runs `pip
install -r requirements.txt` there: a requirement the arena's environment satisfies already
is taken from it (numpy, where the arena has the `train` extra), anything else is installed
into `.venv`, whose packages come first on the bot's `sys.path`. Nothing is ever installed
outside `.venv` (pip never removes a package outside the environment it installs into, and
in the sandbox the arena's folders are read-only anyway). Without the network (the build's
usual case) pip gets `--no-index`: it installs from the arena's environment and from wheels
the folder ships (`--find-links wheels` in requirements.txt); with it (`build_network = true`
in bot.toml, allowed by the run), from the package index too. The bot's own `build`, if it
has one, runs next in the same build (the same sandbox and limits).

The bot then runs with `.venv/bin/python` wherever its manifest says ``python`` (its command
and its build): `with_environment`.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import site
import sys
from pathlib import Path

from arena.referee.manifest import BotManifest

REQUIREMENTS = "requirements.txt"
ENVIRONMENT = ".venv"
PYTHON = f"{ENVIRONMENT}/bin/python"
SCRIPT = Path(__file__).with_name("pyenv_build.py")
"""The program that makes the environment, run as `python -I -c <its text>` (the sandbox
shows the arena's Python, not necessarily this package's folder)."""
_PYTHONS = ("python", "python3")


def wants_environment(manifest: BotManifest) -> bool:
    """Whether the bot gets an environment of its own: a command run by ``python`` and a
    `requirements.txt` in its folder."""
    return manifest.command[0] in _PYTHONS and (manifest.folder / REQUIREMENTS).is_file()


def with_environment(manifest: BotManifest) -> BotManifest:
    """The manifest with ``python`` (first word of its command and build) meaning the
    environment's Python, `.venv/bin/python` of its folder."""
    return dataclasses.replace(manifest, command=_in_environment(manifest.command),
                               build=_in_environment(manifest.build))


def environment_argv(network: bool, build: list[str]) -> list[str]:
    """The build command that makes the environment, then runs `build` (the bot's own build,
    or nothing) in its place: `pip install` uses the package index only with `network`."""
    config = {"environment": ENVIRONMENT, "requirements": REQUIREMENTS, "network": network,
              "site": arena_paths()}
    return [sys.executable, "-I", "-c", SCRIPT.read_text(encoding="utf-8"), json.dumps(config),
            "--", *build]


def arena_paths() -> list[str]:
    """Where the arena's Python finds its packages: its site folders (their `.pth` files
    included, such as an editable install's) and the folder holding the SDK `protocol`."""
    paths = list(site.getsitepackages())
    if site.ENABLE_USER_SITE:
        paths.append(site.getusersitepackages())
    spec = importlib.util.find_spec("protocol")
    if spec is not None and spec.submodule_search_locations:
        paths += [str(Path(p).parent) for p in spec.submodule_search_locations]
    return list(dict.fromkeys(paths))


def _in_environment(argv: tuple[str, ...]) -> tuple[str, ...]:
    if argv and argv[0] in _PYTHONS:
        return (PYTHON, *argv[1:])
    return argv
