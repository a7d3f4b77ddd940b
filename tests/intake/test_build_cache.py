"""The build cache of intake: a bot is built once per version, in a copy intake owns; its
author's folder is never written; a changed source is a new version, built again; a built
copy that is gone is built again."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.tournament.config import load_config
from arena.tournament.runner import open_store, register_entrants
from tests.tournament.conftest import copy_bot, write_config

pytestmark = pytest.mark.timeout(120)


def counting_bot(folder: Path) -> Path:
    """A copy of the random bot with a build that writes `made` (a build output)."""
    bot = copy_bot("random", folder, name="counted")
    (bot / "build.sh").write_text("echo built\necho binary > made\n")
    manifest = bot / "bot.toml"
    manifest.write_text(manifest.read_text() + 'build = ["sh", "build.sh"]\n')
    return bot


def builds(config: Path) -> tuple[str, Path, list[str]]:
    """Register the config's entrants as a run does: (the bot's version, the folder it runs
    from, the notes of builds started)."""
    notes: list[str] = []
    cfg = load_config(config)
    with open_store(cfg) as store:
        entrants, failures = register_entrants(cfg, store, note=notes.append)
    assert not failures
    counted = next(e for e in entrants.values() if e.name == "counted")
    built = [n for n in notes if n.startswith("building counted")]
    return counted.version, counted.manifest.folder, built


def test_a_bot_is_built_once_per_version_in_a_copy_and_never_in_its_authors_folder(tmp_path):
    bot = counting_bot(tmp_path / "counted")
    copy_bot("heuristic", tmp_path / "heuristic")
    config = write_config(tmp_path, ["counted", "heuristic"],
                          extra=f'[intake]\nfolder = "{tmp_path / "cache"}"\n')

    version, built, notes = builds(config)
    assert len(notes) == 1 and notes[0].startswith("building counted (sh build.sh)")
    assert (built / "made").read_text() == "binary\n"
    assert built.is_relative_to(tmp_path / "cache") and not (bot / "made").exists()
    assert builds(config) == (version, built, [])  # the same version, built: no build

    (bot / "bot.py").write_text((bot / "bot.py").read_text() + "\n# a changed source\n")
    changed, built_again, notes = builds(config)
    assert changed != version and built_again != built and len(notes) == 1
    assert builds(config) == (changed, built_again, [])

    (built_again.parent / f"{built_again.name}.ok").unlink()  # its build is forgotten:
    again, _, notes = builds(config)                          # built anew, same version
    assert again == changed and len(notes) == 1
    assert builds(config)[2] == []
    assert not (bot / "made").exists()


def test_a_built_copy_is_read_only(tmp_path):
    counting_bot(tmp_path / "counted")
    copy_bot("heuristic", tmp_path / "heuristic")
    config = write_config(tmp_path, ["counted", "heuristic"],
                          extra=f'[intake]\nfolder = "{tmp_path / "cache"}"\n')
    _, built, _ = builds(config)
    for path in [built, *built.rglob("*")]:
        assert not path.lstat().st_mode & 0o222, f"{path} is writable"


def test_a_forgotten_build_is_built_anew_from_its_snapshot(tmp_path):
    """`forget_build` (an organizer's rebuild) discards a version's build: the next intake
    of the same bytes builds it again; forgetting what was never built says so."""
    from arena.intake import forget_build
    from arena.sandbox import resolve

    bot = counting_bot(tmp_path / "counted")
    copy_bot("heuristic", tmp_path / "heuristic")
    config = write_config(tmp_path, ["counted", "heuristic"],
                          extra=f'[intake]\nfolder = "{tmp_path / "cache"}"\n')
    version, built, notes = builds(config)
    assert len(notes) == 1
    policy = load_config(config).intake_policy(resolve("auto"))
    assert forget_build(bot, policy) is True
    assert not built.exists() and not (built.parent / f"{built.name}.ok").exists()
    assert forget_build(bot, policy) is False  # nothing left to forget
    again, built_again, notes = builds(config)
    assert (again, built_again) == (version, built) and len(notes) == 1
    assert (built_again / "made").read_text() == "binary\n"
    assert not (bot / "made").exists()  # still never in its author's folder


def test_a_build_set_aside_is_put_back_or_thrown_away(tmp_path):
    """`forget_build(keep=True)` (a rebuild of a version in play) sets the build aside: the
    next intake builds anew; `restore_build` puts the one from before back in its place (the
    new build failed), or with keep=False throws it away (it passed)."""
    from arena.intake import forget_build, restore_build
    from arena.sandbox import resolve

    bot = counting_bot(tmp_path / "counted")
    copy_bot("heuristic", tmp_path / "heuristic")
    config = write_config(tmp_path, ["counted", "heuristic"],
                          extra=f'[intake]\nfolder = "{tmp_path / "cache"}"\n')
    _, built, _ = builds(config)
    policy = load_config(config).intake_policy(resolve("auto"))
    marker = built.parent / f"{built.name}.ok"
    noted = marker.read_text()
    assert forget_build(bot, policy, keep=True) is True
    assert not built.exists() and not marker.exists()
    assert restore_build(bot, policy) is True
    assert (built / "made").read_text() == "binary\n" and marker.read_text() == noted
    assert builds(config)[2] == []  # the build put back serves: nothing built again
    assert restore_build(bot, policy) is False  # nothing aside any more

    assert forget_build(bot, policy, keep=True) is True
    assert len(builds(config)[2]) == 1  # built anew beside the one set aside
    assert restore_build(bot, policy, keep=False) is True
    assert sorted(p.name for p in built.parent.iterdir() if "aside" in p.name) == []
    assert (built / "made").read_text() == "binary\n" and marker.is_file()
