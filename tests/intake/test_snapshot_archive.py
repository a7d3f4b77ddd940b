"""Taking a bot archive (.tar.gz, .tgz, .tar, .zip) and shipping a snapshot (pack_snapshot):
the same digest as the folder, and every hostile member and bomb refused with nothing
written outside the scratch folder, which is removed."""

from __future__ import annotations

import os
import stat
import tarfile
import time
import zipfile
from pathlib import Path

import pytest

from arena.intake import IntakeLimits, content_hash, pack_snapshot, take_snapshot
from tests.intake import leftovers, make_bot, member, refused, tar_of, tar_with, zip_of
from tests.intake.conftest import tar_bomb

LINKS = IntakeLimits(links_in_archives=True)


@pytest.fixture
def bot(tmp_path: Path) -> Path:
    return make_bot(tmp_path / "bot")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "snapshots"


def _nothing_escaped(tmp_path: Path) -> None:
    assert not (tmp_path / "evil").exists() and not Path("/etc/evil").exists()
    assert not Path("/tmp/evil").exists()


@pytest.mark.parametrize("name", ["bot.tar.gz", "bot.tgz", "bot.tar", "BOT.TGZ"])
def test_a_tar_of_the_folder_gives_the_folders_snapshot(bot, root, tmp_path, name):
    expected = take_snapshot(bot, tmp_path / "from-folder")
    snapshot = take_snapshot(tar_of(bot, tmp_path / name), root)
    assert snapshot.digest == expected.digest
    assert (snapshot.files, snapshot.bytes) == (expected.files, expected.bytes)
    assert content_hash(snapshot.folder) == snapshot.digest
    assert stat.S_IMODE((snapshot.folder / "run.sh").stat().st_mode) == 0o755
    assert stat.S_IMODE((snapshot.folder / "bot.py").stat().st_mode) == 0o644
    assert not (snapshot.folder / ".git").exists()
    assert leftovers(root) == [snapshot.digest]


@pytest.mark.parametrize("name", ["bot.zip", "BOT.ZIP"])
def test_a_zip_of_the_folder_gives_the_folders_snapshot(bot, root, tmp_path, name):
    expected = take_snapshot(bot, tmp_path / "from-folder")
    snapshot = take_snapshot(zip_of(bot, tmp_path / name), root)
    assert snapshot.digest == expected.digest
    assert stat.S_IMODE((snapshot.folder / "run.sh").stat().st_mode) == 0o755
    assert leftovers(root) == [snapshot.digest]


def test_a_zip_without_folder_entries_implies_them(bot, root, tmp_path):
    archive = tmp_path / "bot.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for path in sorted(bot.rglob("*")):
            if path.is_file():
                zipped.write(path, path.relative_to(bot).as_posix())
    (bot / "empty").rmdir()
    assert take_snapshot(archive, root).digest == take_snapshot(bot, tmp_path / "other").digest


def test_an_archive_with_a_top_folder_keeps_it(bot, root, tmp_path):
    archive = tmp_path / "bot.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(bot, arcname="bot")
    snapshot = take_snapshot(archive, root)
    assert os.listdir(snapshot.folder) == ["bot"]
    assert snapshot.digest != take_snapshot(bot, tmp_path / "other").digest


def test_an_empty_archive_is_an_empty_folder(tmp_path, root):
    (tmp_path / "empty").mkdir()
    archive = tar_of(tmp_path / "empty", tmp_path / "empty.tar")
    assert take_snapshot(archive, root).digest == take_snapshot(tmp_path / "empty", root).digest


def test_a_packed_snapshot_is_taken_back_to_the_same_digest(bot, root, tmp_path):
    snapshot = take_snapshot(bot, root)
    packed = pack_snapshot(snapshot.folder)
    assert packed == pack_snapshot(snapshot.folder)
    (tmp_path / "shipped.tar").write_bytes(packed)
    shipped = take_snapshot(tmp_path / "shipped.tar", tmp_path / "worker")
    assert shipped.digest == snapshot.digest == content_hash(shipped.folder)
    assert pack_snapshot(shipped.folder) == packed


def test_pack_snapshot_is_the_same_bytes_for_the_same_content(bot, root, tmp_path):
    from_folder = take_snapshot(bot, root)
    os.utime(bot / "bot.py", (1e9, 1e9))
    from_zip = take_snapshot(zip_of(bot, tmp_path / "bot.zip"), tmp_path / "other")
    assert pack_snapshot(from_folder.folder) == pack_snapshot(from_zip.folder)


def test_a_packed_snapshot_with_links_needs_links_in_archives(bot, root, tmp_path):
    (bot / "lib").symlink_to("src")
    (bot / "src" / "up").symlink_to("../bot.py")
    snapshot = take_snapshot(bot, root)
    (tmp_path / "shipped.tar").write_bytes(pack_snapshot(snapshot.folder))
    refused(tmp_path / "shipped.tar", tmp_path / "worker",
            "member 'lib': symlink member (archives may hold only files and folders)")
    shipped = take_snapshot(tmp_path / "shipped.tar", tmp_path / "worker", LINKS)
    assert shipped.digest == snapshot.digest
    assert os.readlink(shipped.folder / "src" / "up") == "../bot.py"


DEEP = "/".join(["d"] * 33) + "/f"


@pytest.mark.parametrize("name, kind, linkname, reason", [
    ("../evil", tarfile.REGTYPE, "", "member '../evil': '..' in the name"),
    ("./a/../../evil", tarfile.REGTYPE, "", "'..' in the name"),
    ("/etc/evil", tarfile.REGTYPE, "", "member '/etc/evil': absolute name"),
    ("/tmp/evil", tarfile.DIRTYPE, "", "absolute name"),
    ("evil", tarfile.SYMTYPE, "/etc/passwd",
     "member 'evil': symlink member (archives may hold only files and folders)"),
    ("evil", tarfile.SYMTYPE, "inside", "symlink member"),
    ("evil", tarfile.LNKTYPE, "/etc/passwd", "member 'evil': hard link member"),
    ("evil", tarfile.CHRTYPE, "", "member 'evil': is a character device"),
    ("evil", tarfile.BLKTYPE, "", "is a block device"),
    ("evil", tarfile.FIFOTYPE, "", "member 'evil': is a FIFO"),
    ("evil", b"Z", "", "member of unsupported type b'Z'"),
    ("a\x1b[31m\nb", tarfile.REGTYPE, "",
     "member 'a\\x1b[31m\\x0ab': name contains a control character"),
    ("d/" + "x" * 256, tarfile.REGTYPE, "", "name is longer than 255 bytes"),
    ("bad\udcff.py", tarfile.REGTYPE, "", "member 'bad\\xff.py': name is not valid UTF-8"),
    (DEEP, tarfile.REGTYPE, "", "deeper than 32 levels"),
])
def test_a_hostile_tar_member_is_refused(tmp_path, root, name, kind, linkname, reason):
    archive = tar_with(tmp_path / "bot.tar.gz", (member("fine.py"), b"x"),
                       (member(name, kind, linkname), b"evil"))
    error = refused(archive, root, reason)
    assert error.path == str(archive)
    _nothing_escaped(tmp_path)


@pytest.mark.parametrize("members, reason", [
    ([("a", tarfile.REGTYPE), ("a", tarfile.REGTYPE)], "member 'a': duplicate member"),
    ([("d", tarfile.DIRTYPE), ("./d/", tarfile.DIRTYPE)], "member './d': duplicate member"),
    ([("./", tarfile.DIRTYPE), (".", tarfile.DIRTYPE)], "duplicate member"),
    ([("d/f", tarfile.REGTYPE), ("d", tarfile.REGTYPE)], "member 'd': duplicate member"),
    ([("a", tarfile.REGTYPE), ("a/b", tarfile.REGTYPE)], "member 'a/b': 'a' is not a folder"),
])
def test_duplicate_and_clashing_members_are_refused(tmp_path, root, members, reason):
    archive = tar_with(tmp_path / "bot.tgz", *((member(name, kind), b"x")
                                                for name, kind in members))
    refused(archive, root, reason)


def test_a_folder_member_after_its_files_is_fine(tmp_path, root):
    archive = tar_with(tmp_path / "bot.tar", (member("d/f"), b"x"),
                       (member("d", tarfile.DIRTYPE), b""))
    snapshot = take_snapshot(archive, root)
    assert (snapshot.folder / "d" / "f").read_bytes() == b"x"


def test_allowed_link_members_must_stay_inside_and_are_never_written_through(tmp_path, root):
    escaping = tar_with(tmp_path / "out.tar", (member("evil", tarfile.SYMTYPE, "/etc"), b""))
    refused(escaping, root, "member 'evil': symlink to an absolute path '/etc'", limits=LINKS)
    through = tar_with(tmp_path / "through.tar", (member("sub", tarfile.DIRTYPE), b""),
                       (member("l", tarfile.SYMTYPE, "sub"), b""), (member("l/x"), b"x"))
    refused(through, root, "member 'l/x': 'l' is not a folder", limits=LINKS)


def test_members_under_skipped_folders_are_skipped_but_counted(tmp_path, root):
    archive = tar_with(tmp_path / "bot.tgz", (member("bot.py"), b"x"),
                       (member(".git/config"), b"[core]"), (member("a/__pycache__/m.pyc"), b"c"),
                       (member("a/.git"), b"gitdir: elsewhere"))
    snapshot = take_snapshot(archive, root)
    assert sorted(p.relative_to(snapshot.folder).as_posix()
                  for p in snapshot.folder.rglob("*")) == ["a", "a/.git", "bot.py"]
    refused(archive, tmp_path / "other", "more than 3 files, folders and links",
            limits=IntakeLimits(files=3))


def test_more_members_than_the_limit_are_refused(tmp_path, root):
    archive = tar_with(tmp_path / "bot.tgz", *((member(f"f{n}"), b"x") for n in range(10)))
    refused(archive, root, "member 'f5': more than 5 files, folders and links",
            limits=IntakeLimits(files=5))
    implied = tar_with(tmp_path / "deep.tar", (member("a/b/c/d"), b"x"))
    refused(implied, root, "more than 3 files, folders and links", limits=IntakeLimits(files=3))


def test_files_larger_than_the_byte_limit_are_refused(tmp_path, root):
    archive = tar_with(tmp_path / "bot.tar", (member("a"), b"x" * 600), (member("b"), b"y" * 600))
    refused(archive, root, "member 'b': the unpacked files exceed 1000 bytes",
            limits=IntakeLimits(bytes=1000))


def test_a_tgz_bomb_is_refused_early_and_leaves_nothing(tgz_bomb, tmp_path, root):
    started = time.monotonic()
    refused(tgz_bomb, root, "tar stream unpacks to more than 100 times the archive's",
            "compression bomb")
    assert time.monotonic() - started < 10
    assert os.listdir(tmp_path) == ["snapshots"]


def test_a_zip_bomb_is_refused_early_and_leaves_nothing(zip_bomb, tmp_path, root):
    started = time.monotonic()
    refused(zip_bomb, root, "member 'zeros': unpacks to more than 100 times the archive's",
            "compression bomb")
    assert time.monotonic() - started < 10
    assert os.listdir(tmp_path) == ["snapshots"]


def test_a_bomb_in_a_skipped_folder_still_trips_the_stream_guard(tmp_path, root):
    archive = tar_bomb(tmp_path / "bot.tar.gz", ".git/objects/pack", 50 * 1000 * 1000)
    refused(archive, root, "the tar stream unpacks to more than 100 times", "compression bomb")


def test_a_small_archive_is_no_bomb_however_well_it_compresses(tmp_path, root):
    small = tar_bomb(tmp_path / "small.tgz", "zeros.bin", 500_000)
    assert small.stat().st_size * 100 < 500_000
    assert take_snapshot(small, root).bytes == 500_000
    larger = tar_bomb(tmp_path / "larger.tgz", "zeros.bin", 2_000_000)
    refused(larger, tmp_path / "other", "compression bomb")


def test_a_plain_tar_stream_may_not_exceed_the_limits_and_headers(tmp_path, root):
    archive = tar_with(tmp_path / "bot.tar", (member(".git/big"), os.urandom(100_000)))
    refused(archive, root, "the tar stream holds more than 21480 bytes",
            limits=IntakeLimits(bytes=1000, files=1))


def _zip_with(archive: Path, *members: tuple[zipfile.ZipInfo | str, bytes]) -> Path:
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
        for info, data in members:
            zipped.writestr(info, data)
    return archive


def _zip_member(name: str, mode: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.create_system, info.external_attr = 3, mode << 16
    return info


@pytest.mark.parametrize("info, reason", [
    ("../evil", "member '../evil': '..' in the name"),
    ("a/../../evil", "'..' in the name"),
    ("/etc/evil", "member '/etc/evil': absolute name"),
    (_zip_member("evil", stat.S_IFLNK | 0o777), "member 'evil': symlink member"),
    (_zip_member("evil", stat.S_IFIFO | 0o644), "member 'evil': is a FIFO"),
    (_zip_member("evil", stat.S_IFCHR | 0o644), "is a character device"),
    ("a\x1bb", "member 'a\\x1bb': name contains a control character"),
])
def test_a_hostile_zip_member_is_refused(tmp_path, root, info, reason):
    archive = _zip_with(tmp_path / "bot.zip", ("fine.py", b"x"), (info, b"/etc/passwd"))
    refused(archive, root, reason)
    _nothing_escaped(tmp_path)


def test_a_zip_name_that_is_not_utf8_is_refused(tmp_path, root):
    archive = _zip_with(tmp_path / "bot.zip", ("bad_X.py", b"x"))
    archive.write_bytes(archive.read_bytes().replace(b"bad_X.py", b"bad\xffX.py"))
    refused(archive, root, "member 'bad\\xffX.py': name is not valid UTF-8")


def test_a_zip_with_duplicate_members_is_refused(tmp_path, root):
    with pytest.warns(UserWarning, match="Duplicate name"):
        archive = _zip_with(tmp_path / "bot.zip", ("a.py", b"x"), ("a.py", b"y"))
    refused(archive, root, "member 'a.py': duplicate member")


def test_a_zip_listing_more_members_than_the_limit_is_refused_before_reading_them(tmp_path,
                                                                                  root):
    archive = _zip_with(tmp_path / "bot.zip", *((f"f{n}", b"x") for n in range(10)))
    refused(archive, root, "bot.zip: more than 5 members", limits=IntakeLimits(files=5))


def test_a_zip_member_whose_declared_size_lies_is_refused(tmp_path, root):
    archive = _zip_with(tmp_path / "bot.zip", ("big", bytes(1_000_000)))
    data = bytearray(archive.read_bytes())
    directory = data.index(b"PK\x01\x02")
    data[22:26] = data[directory + 24:directory + 28] = (100).to_bytes(4, "little")
    archive.write_bytes(bytes(data))
    refused(archive, root, "not a valid zip archive")


def test_a_tar_member_that_is_a_pax_bomb_is_refused(tmp_path, root):
    archive = tar_with(tmp_path / "bot.tar", (member("fine"), b"x"))
    info = tarfile.TarInfo("x")
    info.pax_headers = {"comment": "a" * 60_000}  # under the 64 KiB cap of one header
    with tarfile.open(archive, "w", format=tarfile.PAX_FORMAT) as tar:
        tar.addfile(info)
    refused(archive, root, "the tar stream holds more than 21480 bytes",
            limits=IntakeLimits(bytes=1000, files=1))


@pytest.mark.parametrize("name, content, reason", [
    ("bot.tar.gz", b"not a gzip", "not a valid tar archive"),
    ("bot.tgz", b"", "not a valid tar archive"),
    ("bot.tar", b"\0" * 100, "not a valid tar archive"),
    ("bot.zip", b"PK\x03\x04 and then garbage", "not a valid zip archive"),
])
def test_a_corrupt_archive_is_refused(tmp_path, root, name, content, reason):
    (tmp_path / name).write_bytes(content)
    refused(tmp_path / name, root, f"{name}: {reason}")


def test_a_truncated_archive_is_refused(bot, tmp_path, root):
    archive = tar_of(bot, tmp_path / "bot.tar.gz")
    archive.write_bytes(archive.read_bytes()[:len(archive.read_bytes()) // 2])
    refused(archive, root, "not a valid tar archive")


def test_an_archive_that_is_not_a_regular_file_is_refused(tmp_path, root):
    os.mkfifo(tmp_path / "bot.tar")
    refused(tmp_path / "bot.tar", root, "bot.tar: not a regular file")
