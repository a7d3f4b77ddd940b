"""The build cache of local runs: a bot whose folder (version) and build outputs are as its last
successful build left them is not built again; a changed source, or a deleted build output,
builds it again."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.tournament.config import load_config
from arena.tournament.runner import open_store, register_entrants
from tests.tournament.conftest import copy_bot, write_config

pytestmark = pytest.mark.timeout(60)


def counting_bot(folder: Path, log: Path) -> Path:
    """A copy of the random bot whose build counts its runs in `log` (outside its folder,
    so outside its version) and writes `made` (a build output inside it)."""
    bot = copy_bot("random", folder, name="counted")
    (bot / "build.sh").write_text(f'echo built >> "{log}"\necho binary > made\n')
    manifest = bot / "bot.toml"
    manifest.write_text(manifest.read_text() + 'build = ["sh", "build.sh"]\n')
    return bot


def builds(config: Path, log: Path) -> tuple[int, str, list[str]]:
    """Register the config's entrants as a run does: (builds so far, the bot's version, notes)."""
    notes: list[str] = []
    cfg = load_config(config)
    with open_store(cfg) as store:
        entrants, failures = register_entrants(cfg, store, note=notes.append)
    assert not failures
    version = next(e.version for e in entrants.values() if e.name == "counted")
    return len(log.read_text().splitlines()) if log.exists() else 0, version, notes


def test_a_bot_is_built_again_only_when_its_version_or_its_build_outputs_changed(tmp_path):
    log = tmp_path / "builds.log"
    bot = counting_bot(tmp_path / "counted", log)
    copy_bot("heuristic", tmp_path / "heuristic")
    config = write_config(tmp_path, ["counted", "heuristic"])

    count, version, notes = builds(config, log)
    assert count == 1 and notes == ["building counted (sh build.sh) ..."]
    assert builds(config, log) == (1, version, [])  # the same version, still built: no build

    (bot / "bot.py").write_text((bot / "bot.py").read_text() + "\n# a changed source\n")
    count, changed, notes = builds(config, log)
    assert count == 2 and changed != version and notes
    assert builds(config, log)[:2] == (2, changed)

    (bot / "made").unlink()  # the build's output is gone: build again, same version
    assert builds(config, log)[:2] == (3, changed)
    assert builds(config, log)[:2] == (3, changed)

    manifest = bot / "bot.toml"  # another build command is another version: built again
    manifest.write_text(manifest.read_text().replace('"build.sh"]', '"build.sh", "x"]'))
    assert builds(config, log)[0] == 4
