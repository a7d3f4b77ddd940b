"""Archives as people make them: `tar czf x.tar.gz my-bot` (one top folder holding bot.toml)
is taken as the bot's folder, with the version of `tar czf x.tar.gz -C my-bot .`; any other
archive without bot.toml at its root is refused in one sentence saying how to make it, naming
only paths inside the archive. Hostile archives are refused exactly as before."""

from __future__ import annotations

import os
import tarfile
import zipfile
from pathlib import Path

import pytest

from arena.intake import IntakeFailed, IntakeLimits, IntakePolicy, take_bot, take_snapshot
from arena.intake import snapshot as snapshot_module
from arena.referee.manifest import MANIFEST
from arena.sandbox import resolve
from tests.intake import leftovers, member, refused, tar_of, tar_with, zip_of
from tests.intake.conftest import tar_bomb
from tests.tournament.conftest import copy_bot

pytestmark = pytest.mark.timeout(120)

HELP = "must be at the archive's root"
HOW = "`tar czf bot.tar.gz -C my-bot .`"


@pytest.fixture
def bot(tmp_path: Path) -> Path:
    return copy_bot("random", tmp_path / "my-bot")


def policy(tmp_path: Path) -> IntakePolicy:
    return IntakePolicy(resolve("auto"), root=tmp_path / "cache")


def refusal(source: Path, tmp_path: Path):
    with pytest.raises(IntakeFailed) as refused_:
        take_bot(source, policy(tmp_path), build=False)
    return refused_.value.failure


def tar_in_folder(folder: Path, archive: Path, *extra: Path) -> Path:
    """`tar czf archive folder [extra...]`, run from the folder's parent: one top folder."""
    with tarfile.open(archive, "w:gz") as tar:
        for path in (folder, *extra):
            tar.add(path, arcname=path.name)
    return archive


def zip_in_folder(folder: Path, archive: Path) -> Path:
    """`zip -r archive folder`, run from the folder's parent: folder entries included."""
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
        zipped.write(folder, folder.name)
        for path in sorted(folder.rglob("*")):
            zipped.write(path, path.relative_to(folder.parent).as_posix())
    return archive


def test_the_manifest_name_is_the_one_the_referee_reads():
    assert snapshot_module.MANIFEST == MANIFEST


def test_a_tgz_with_one_top_folder_is_the_bots_folder_with_the_flat_archives_version(
        bot, tmp_path):
    flat = take_bot(tar_of(bot, tmp_path / "flat.tar.gz"), policy(tmp_path), build=False)
    nested = take_bot(tar_in_folder(bot, tmp_path / "nested.tar.gz"), policy(tmp_path),
                      build=False)
    assert nested.version == flat.version == take_bot(bot, policy(tmp_path), build=False).version
    assert nested.manifest.name == "random"
    assert (nested.snapshot.files, nested.snapshot.bytes) == (flat.snapshot.files,
                                                              flat.snapshot.bytes)
    assert sorted(os.listdir(nested.snapshot.folder)) == sorted(os.listdir(bot))
    assert [n for n in leftovers(tmp_path / "cache" / "snapshots")
            if n.startswith(".incoming-")] == [], "a scratch folder was left"


def test_a_zip_with_one_top_folder_is_the_bots_folder_with_the_flat_archives_version(
        bot, tmp_path):
    flat = take_bot(zip_of(bot, tmp_path / "flat.zip"), policy(tmp_path), build=False)
    nested = take_bot(zip_in_folder(bot, tmp_path / "nested.zip"), policy(tmp_path),
                      build=False)
    assert nested.version == flat.version and nested.manifest.name == "random"


def test_a_top_folder_without_bot_toml_is_kept_and_refused_with_the_sentence(tmp_path):
    folder = tmp_path / "my-bot"
    (folder / "inner").mkdir(parents=True)
    (folder / "inner" / "bot.toml").write_text('name = "deep"\n')  # two levels down: not taken
    failure = refusal(tar_in_folder(folder, tmp_path / "bot.tar.gz"), tmp_path)
    assert failure.stage == "manifest" and HELP in failure.reason and HOW in failure.reason
    assert "'my-bot/'" in failure.reason


@pytest.mark.parametrize("second", ["other-bot", "README.md"])
def test_a_top_folder_beside_anything_else_is_refused_with_the_sentence(bot, tmp_path, second):
    other = tmp_path / second
    if second == "other-bot":
        copy_bot("random", other)
    else:
        other.write_text("read me\n")
    archive = tar_in_folder(bot, tmp_path / "bot.tar.gz", other)
    failure = refusal(archive, tmp_path)
    assert failure.stage == "manifest", failure
    assert HELP in failure.reason and HOW in failure.reason
    assert "'my-bot/'" in failure.reason and second in failure.reason
    assert str(tmp_path) not in failure.reason and "/cache/" not in failure.reason
    assert "\n" not in failure.reason


def test_the_archive_refusal_lists_a_few_root_names_and_counts_the_rest(tmp_path):
    loose = tmp_path / "loose"
    loose.mkdir()
    for index in range(8):
        (loose / f"f{index}.py").write_text("1\n")
    failure = refusal(tar_of(loose, tmp_path / "loose.tar"), tmp_path)
    assert "'f4.py'" in failure.reason and "'f5.py'" not in failure.reason
    assert "and 3 more" in failure.reason and HOW in failure.reason


def test_a_folder_with_one_subfolder_is_never_hoisted(tmp_path):
    """Only archives are made with a top folder: a folder is the bot's folder as it is."""
    outer = tmp_path / "outer"
    copy_bot("random", outer / "my-bot")
    failure = refusal(outer, tmp_path)
    assert failure.stage == "manifest" and f"{outer}/bot.toml: missing" in failure.reason


def test_other_manifest_mistakes_in_an_archive_name_the_path_inside_it(bot, tmp_path):
    (bot / "bot.toml").write_text('name = "x"\n')
    failure = refusal(tar_in_folder(bot, tmp_path / "bot.tar.gz"), tmp_path)
    assert failure.stage == "manifest" and failure.reason.startswith("bot.toml: "), failure
    assert str(tmp_path) not in failure.reason


# -- hostile archives with a top folder: refused exactly as before


@pytest.mark.parametrize(("name", "reason"), [
    ("my-bot/../evil", "'..' in the name"),
    ("my-bot/../../evil", "'..' in the name"),
    ("/my-bot/evil", "absolute name"),
])
def test_a_top_folder_with_escaping_members_is_refused(bot, tmp_path, name, reason):
    archive = tar_with(tmp_path / "bot.tar.gz",
                       (member("my-bot", tarfile.DIRTYPE, mode=0o755), b""),
                       (member("my-bot/bot.toml"), (bot / "bot.toml").read_bytes()),
                       (member(name), b"evil\n"))
    refused(archive, tmp_path / "snapshots", reason)
    assert not (tmp_path / "evil").exists() and not Path("/evil").exists()


def test_a_top_folder_that_is_a_link_is_refused_as_any_link_member(bot, tmp_path):
    archive = tar_with(tmp_path / "bot.tar.gz",
                       (member("my-bot", tarfile.SYMTYPE, linkname="."), b""))
    refused(archive, tmp_path / "snapshots", "symlink member")


def test_a_top_link_allowed_in_archives_is_kept_not_followed_into(bot, tmp_path):
    """Control: with links allowed, a root link to the root reaches a bot.toml (the link is
    real), yet it is no top folder: lstat sees a link, and nothing is moved."""
    archive = tar_with(tmp_path / "bot.tar",
                       (member("my-bot", tarfile.SYMTYPE, linkname="."), b""))
    links = IntakeLimits(links_in_archives=True)
    snapshot = take_snapshot(archive, tmp_path / "snapshots", links)
    assert os.listdir(snapshot.folder) == ["my-bot"]
    assert (snapshot.folder / "my-bot").is_symlink()


def test_a_bomb_in_a_top_folder_holding_bot_toml_is_refused(bot, tmp_path):
    archive = tar_bomb(tmp_path / "bomb.tar.gz", "my-bot/zeros")
    refused(archive, tmp_path / "snapshots", "a compression bomb?")


def test_the_file_limit_counts_the_top_folder(bot, tmp_path):
    archive = tar_in_folder(bot, tmp_path / "bot.tar.gz")
    entries = take_snapshot(tar_of(bot, tmp_path / "flat.tar"), tmp_path / "flat").files
    refused(archive, tmp_path / "snapshots", "more than",
            limits=IntakeLimits(files=entries))


def test_a_snapshot_refusal_of_an_archive_names_no_server_path(tmp_path):
    archive = tar_with(tmp_path / "bot.tar.gz", (member("my-bot/../evil"), b"evil\n"))
    refusal_ = refused(archive, tmp_path / "snapshots", "'..' in the name")
    assert str(tmp_path) in str(refusal_), "control: the snapshot's refusal names the archive"
    failure = refusal(archive, tmp_path)
    assert failure.stage == "snapshot" and str(tmp_path) not in failure.reason
    assert failure.reason == "the archive: member 'my-bot/../evil': '..' in the name"
    assert str(archive) in IntakeFailed(failure).args[0], "the details name the archive"
