"""`arena new-bot`: a working bot folder from a template of `arena/botkit/templates/<language>/`.

Each template is the smallest bot that passes `arena check-bot` in its language; the
placeholder ``__NAME__`` in its files becomes the bot's name. Template "policy" (Python only,
`templates/python-policy/`) is a bot played by a policy of the training environment
(`protocol.policy`), which needs the train extra's numpy.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from arena.errors import ConfigError
from arena.referee.manifest import NAME_RULE, load_manifest, shown, valid_name

TEMPLATES = Path(__file__).resolve().parent / "templates"
RANDOM_BOT = Path(__file__).resolve().parents[2] / "bots" / "random"  # the rating anchor
LANGUAGES = ("python", "node", "c", "cpp", "java", "rust")
TEMPLATES_OF = {"basic": LANGUAGES, "policy": ("python",)}  # template -> its languages
PLACEHOLDER = "__NAME__"
_SKIP = shutil.ignore_patterns("node_modules", "build", "target", "__pycache__")


def new_bot(name: str, language: str, parent: str | Path = ".", template: str = "basic",
            ) -> Path:
    """Create `parent/name` from the `language` template (or its `template` variant); its
    path.

    ConfigError if the name is not a valid entrant name, the language has no such template,
    or the folder exists already.
    """
    if not valid_name(name):  # bot.toml's rule: it is also a folder name here
        raise ConfigError(f"bot name {shown(name)}: use {NAME_RULE}")
    if language not in LANGUAGES:
        raise ConfigError(f"language {language!r}: choose one of {', '.join(LANGUAGES)}")
    if language not in TEMPLATES_OF.get(template, ()):
        known = ", ".join(f"{t} ({'/'.join(langs)})" for t, langs in TEMPLATES_OF.items())
        raise ConfigError(f"template {template!r} for {language}: the templates are {known}")
    folder = Path(parent).resolve() / name
    if folder.exists():
        raise ConfigError(f"{folder}: already exists; choose another name or --dir")
    source = language if template == "basic" else f"{language}-{template}"
    shutil.copytree(TEMPLATES / source, folder, ignore=_SKIP)
    for path in folder.rglob("*"):
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            if PLACEHOLDER in text:
                path.write_text(text.replace(PLACEHOLDER, name), encoding="utf-8")
    return folder


def next_steps(folder: Path) -> list[str]:
    """The commands that check and play the new bot in `folder`, runnable from any directory:
    absolute paths, and the `arena` of this installation unless that is what `arena` finds on
    the PATH anyway."""
    arena = arena_command()
    network = " --allow-build-network" if load_manifest(folder).build_network else ""
    return [f"check it:  {arena} check-bot{network} {folder}",
            f"play it:   {arena} play{network} {folder} {RANDOM_BOT} --target 1000"]


def arena_command() -> str:
    """How to run this installation's `arena` from anywhere: "arena" if the PATH finds this
    very one, else its absolute path (in a virtual environment, `.venv/bin/arena`)."""
    installed = Path(sys.executable).with_name("arena")
    if not installed.exists():
        return f"{sys.executable} -m arena.cli"
    on_path = shutil.which("arena")
    if on_path and os.path.realpath(on_path) == os.path.realpath(installed):
        return "arena"
    return str(installed)
