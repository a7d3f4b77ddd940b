"""Taking a bot folder: what is copied and how, the digest, and every hostile entry an author
can put in a folder, each built for real and refused leaving nothing under the root."""

from __future__ import annotations

import collections
import hashlib
import os
import pickle
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.intake import IntakeLimits, IntakeRefused, content_hash, take_snapshot
from tests.intake import fingerprint, leftovers, make_bot, refused
from tests.requirements import AS_ROOT, missing, need_root

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def bot(tmp_path: Path) -> Path:
    return make_bot(tmp_path / "bot")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "snapshots"


def test_a_folder_becomes_a_complete_snapshot_named_by_its_digest(bot, root):
    before = fingerprint(bot)
    snapshot = take_snapshot(bot, root)
    assert snapshot.folder == root / snapshot.digest
    assert len(snapshot.digest) == 64 and int(snapshot.digest, 16) >= 0
    assert snapshot.version == snapshot.digest[:16]
    assert leftovers(root) == [snapshot.digest]
    assert content_hash(snapshot.folder) == snapshot.digest
    assert fingerprint(bot) == before
    kept = sorted(path.relative_to(snapshot.folder).as_posix()
                  for path in snapshot.folder.rglob("*"))
    assert kept == ["bot.py", "build", "build/out.js", "empty", "node_modules",
                    "node_modules/pkg", "node_modules/pkg/out.js", "run.sh", "src",
                    "src/deep", "src/deep/data.bin", "src/é.txt"]
    assert snapshot.files == len(kept)
    assert snapshot.bytes == sum((bot / name).stat().st_size for name in kept
                                 if (bot / name).is_file())
    assert (snapshot.folder / "src" / "deep" / "data.bin").read_bytes() == bytes(range(256)) * 10


def test_the_copy_has_fixed_modes_whatever_the_author_set(bot, root):
    (bot / "bot.py").chmod(0o600)
    (bot / "src").chmod(0o700)
    (bot / "run.sh").chmod(0o700)
    folder = take_snapshot(bot, root).folder
    modes = {path.relative_to(folder).as_posix(): stat.S_IMODE(path.lstat().st_mode)
             for path in folder.rglob("*")}
    assert modes["bot.py"] == 0o644 and modes["src/deep/data.bin"] == 0o644
    assert modes["run.sh"] == 0o755
    assert modes["src"] == modes["empty"] == modes["src/deep"] == 0o755
    assert stat.S_IMODE(folder.stat().st_mode) == 0o755
    assert stat.S_IMODE(root.stat().st_mode) == 0o755


def test_the_same_content_taken_again_returns_the_existing_read_only_snapshot(bot, root):
    first = take_snapshot(bot, root)
    for path in [first.folder, *first.folder.rglob("*")]:
        path.chmod(stat.S_IMODE(path.stat().st_mode) & ~0o222)
    (bot / "bot.py").touch()
    again = take_snapshot(bot, root)
    assert again == first
    assert leftovers(root) == [first.digest]


def _change_bytes(bot: Path) -> None:
    (bot / "bot.py").write_text("print('PASS')\n")


def _set_exec_bit(bot: Path) -> None:
    (bot / "bot.py").chmod(0o744)


def _rename(bot: Path) -> None:
    (bot / "bot.py").rename(bot / "main.py")


def _add_empty_folder(bot: Path) -> None:
    (bot / "more").mkdir()


def _file_for_folder(bot: Path) -> None:
    (bot / "empty").rmdir()
    (bot / "empty").write_bytes(b"")


@pytest.mark.parametrize("change", [_change_bytes, _set_exec_bit, _rename, _add_empty_folder,
                                    _file_for_folder])
def test_the_digest_changes_with_the_content(bot, root, change):
    before = take_snapshot(bot, root).digest
    change(bot)
    assert take_snapshot(bot, root).digest != before


def test_the_digest_ignores_times_owners_other_permissions_and_skipped_folders(bot, root):
    before = take_snapshot(bot, root).digest
    os.utime(bot / "bot.py", (1, 1))
    (bot / "bot.py").chmod(0o600)
    (bot / "run.sh").chmod(0o700)
    os.chown(bot / "src" / "é.txt", 12345, 12345)
    (bot / ".git" / "objects" / "more").write_bytes(b"a commit")
    (bot / "src" / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"bytecode")
    assert take_snapshot(bot, root).digest == before


def test_the_digest_is_the_same_for_the_same_tree_anywhere(tmp_path, root):
    one, two = make_bot(tmp_path / "one"), make_bot(tmp_path / "elsewhere" / "two")
    assert take_snapshot(one, root).digest == take_snapshot(two, root).digest
    assert len(leftovers(root)) == 1


def test_a_symlinked_source_folder_is_followed_once(bot, root, tmp_path):
    (tmp_path / "link-to-bot").symlink_to(bot)
    assert take_snapshot(tmp_path / "link-to-bot", root) == take_snapshot(bot, root)


@pytest.mark.parametrize("where, target", [
    ("lib", "src"), ("src/up", "../bot.py"), ("src/deep/top", "../../run.sh"),
    ("here", "."), ("src/dangling", "nowhere/else"), ("src/deep/dot", "./../deep/./data.bin"),
])
def test_a_symlink_that_stays_inside_is_copied_as_a_link(bot, root, where, target):
    (bot / where).symlink_to(target)
    snapshot = take_snapshot(bot, root)
    copy = snapshot.folder / where
    assert copy.is_symlink() and os.readlink(copy) == target
    assert content_hash(snapshot.folder) == snapshot.digest


@pytest.mark.parametrize("where, target, reason", [
    ("evil", "/etc/passwd", "evil: symlink to an absolute path '/etc/passwd' leaves the folder"),
    ("evil", "../outside", "evil: symlink target '../outside' climbs out of the folder"),
    ("src/evil", "../../outside", "climbs out of the folder"),
    ("src/deep/evil", "../../../outside", "climbs out of the folder"),
    ("src/evil", "deep/../../../outside", "has '..' after a name"),
])
def test_a_symlink_whose_target_leaves_the_folder_is_refused(bot, root, tmp_path, where,
                                                             target, reason):
    (tmp_path / "outside").write_text("secret")
    (bot / where).symlink_to(target)
    error = refused(bot, root, reason)
    assert error.path == f"{bot}/{where}"


def test_a_link_through_a_link_to_the_root_cannot_climb_out(bot, root, tmp_path):
    """Lexically `here/../outside` is inside; through `here` -> `.` it is not."""
    (tmp_path / "outside").write_text("secret")
    (bot / "here").symlink_to(".")
    (bot / "escape").symlink_to("here/../outside")
    assert (bot / "escape").read_text() == "secret"
    refused(bot, root, "escape: symlink target 'here/../outside' has '..' after a name")


def test_a_fifo_is_refused(bot, root):
    os.mkfifo(bot / "src" / "pipe")
    refused(bot, root, "src/pipe: is a FIFO")


def test_a_socket_is_refused(bot, root, monkeypatch):
    monkeypatch.chdir(bot)
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind("sock")
        refused(bot, root, "sock: is a socket")


def test_a_device_file_is_refused(bot, root):
    try:
        os.mknod(bot / "null", stat.S_IFCHR | 0o600, os.makedev(1, 3))
    except PermissionError:
        missing("making a device file needs root (CAP_MKNOD)", AS_ROOT)
    refused(bot, root, "null: is a character device")


def test_a_hard_link_to_a_file_outside_is_refused(bot, root, tmp_path):
    (tmp_path / "shadow").write_text("root:secret")
    os.link(tmp_path / "shadow", bot / "src" / "shadow")
    refused(bot, root, "src/shadow: has 2 hard links, 1 inside the folder")


def test_hard_links_all_inside_are_copied_as_files(bot, root):
    os.link(bot / "bot.py", bot / "src" / "again.py")
    for folder in (bot, bot / "src"):  # only intake's own user may change them
        os.chmod(folder, 0o755)
    folder = take_snapshot(bot, root).folder
    assert (folder / "src" / "again.py").read_bytes() == (bot / "bot.py").read_bytes()
    assert (folder / "src" / "again.py").stat().st_nlink == 1


@pytest.mark.parametrize("mode", [0o775, 0o757])
def test_hard_links_in_a_folder_others_may_write_to_are_refused(bot, root, mode):
    os.link(bot / "bot.py", bot / "src" / "again.py")
    os.chmod(bot, 0o755)
    os.chmod(bot / "src", mode)
    refused(bot, root, "has 2 hard links, and ", "src may be changed by another user")


def test_hard_links_in_a_folder_of_another_owner_are_refused(bot, root):
    need_root("giving a folder of the bot to another user")
    os.link(bot / "bot.py", bot / "again.py")
    os.chmod(bot, 0o755)
    os.chown(bot / "src", 65534, 65534)
    refused(bot, root, "has 2 hard links, and ", "src may be changed by another user")


def test_a_name_that_is_not_utf8_is_refused(bot, root):
    with open(os.path.join(os.fsencode(bot), b"bad\xff.py"), "wb") as file:
        file.write(b"x")
    error = refused(bot, root, "bad\\xff.py: name is not valid UTF-8")
    assert error.path.isprintable()


def test_a_name_with_control_characters_is_refused_and_shown_escaped(bot, root):
    (bot / "src" / "a\x1b[31mred\nline.py").write_text("x")
    error = refused(bot, root, "src/a\\x1b[31mred\\x0aline.py: name contains a control character")
    assert error.path.isprintable()


@pytest.mark.parametrize("name", ["del\x7f", "c1\x85", "sep\u2028"])
def test_del_c1_and_line_separators_are_control_characters(bot, root, name):
    (bot / name).write_text("x")
    refused(bot, root, "name contains a control character")


def test_more_entries_than_the_limit_are_refused(bot, root):
    refused(bot, root, "more than 5 files, folders and links", limits=IntakeLimits(files=5))


def test_a_huge_folder_is_refused_while_listing_it(bot, root):
    crowd = bot / "crowd"
    crowd.mkdir()
    for number in range(400):
        (crowd / f"f{number}").touch()
    refused(bot, root, "crowd: more than 100 files, folders and links",
            limits=IntakeLimits(files=100))


def test_a_path_deeper_than_the_limit_is_refused(bot, root):
    deep = bot.joinpath(*["d"] * 33)
    deep.mkdir(parents=True)
    refused(bot, root, "deeper than 32 levels")
    refused(bot, root, "src/deep/data.bin: deeper than 2 levels", limits=IntakeLimits(depth=2))


def test_a_file_larger_than_the_limit_is_refused_without_reading_it(bot, root):
    huge = bot / "src" / "weights.bin"
    with open(huge, "wb") as file:
        file.truncate(50 * 1024 ** 3)
    started = time.monotonic()
    refused(bot, root, "src/weights.bin: the bot's files exceed 209715200 bytes")
    assert time.monotonic() - started < 5


def test_files_together_larger_than_the_limit_are_refused(bot, root):
    limits = IntakeLimits(bytes=(bot / "src" / "deep" / "data.bin").stat().st_size + 10)
    refused(bot, root, "the bot's files exceed", limits=limits)


def test_a_source_that_is_neither_a_folder_nor_an_archive_is_refused(bot, root, tmp_path):
    refused(bot / "bot.py", root, "bot.py: not a folder or a .tar.gz, .tgz, .tar or .zip archive")
    refused(tmp_path / "missing", root, "missing: cannot be read (No such file or directory)")
    assert not root.exists()


def test_a_root_inside_the_folder_is_refused(bot):
    refused(bot, bot / "snapshots", "lies inside this folder")


def test_content_hash_refuses_what_a_snapshot_cannot_hold(bot, root):
    snapshot = take_snapshot(bot, root)
    os.mkfifo(bot / "pipe")
    with pytest.raises(IntakeRefused, match="pipe: is a FIFO"):
        content_hash(bot)
    assert content_hash(snapshot.folder) == snapshot.digest


def test_the_refusal_survives_pickling_and_limits_must_be_positive():
    error = IntakeRefused("bot/x", "is a FIFO")
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.path, copy.reason, str(copy)) == ("bot/x", "is a FIFO", "bot/x: is a FIFO")
    with pytest.raises(ValueError, match="files"):
        IntakeLimits(files=0)


def test_entries_swapped_for_links_while_copying_are_never_followed(bot, root, tmp_path):
    """Another process swaps a file and a folder for symlinks to a secret, over and over,
    while the folder is taken: every take is refused or holds no byte of the secret."""
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "key").write_text("SECRET")
    (bot / "f").write_text("plain")
    (bot / "d").mkdir()
    (bot / "d" / "key").write_text("plain")
    swapper = subprocess.Popen([sys.executable, "-c", _SWAP, str(bot), str(secret)])
    reasons: collections.Counter[str] = collections.Counter()
    try:
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            try:
                snapshot = take_snapshot(bot, root)
            except IntakeRefused as error:
                reasons[error.reason] += 1
                continue
            reasons["taken"] += 1
            assert all(b"SECRET" not in path.read_bytes()
                       for path in snapshot.folder.rglob("*") if path.is_file()
                       and not path.is_symlink())
    finally:
        swapper.kill()
        swapper.wait()
    assert reasons["taken"] and reasons["changed while being copied"], reasons
    assert not any(name.startswith(".incoming-") for name in leftovers(root))


_SWAP = """
import os, sys
bot, secret = sys.argv[1:]
f, d = os.path.join(bot, "f"), os.path.join(bot, "d")
while True:
    os.symlink(os.path.join(secret, "key"), f + ".new")
    os.replace(f + ".new", f)
    with open(f + ".new", "w") as file:
        file.write("plain")
    os.replace(f + ".new", f)
    os.rename(d, d + ".real")
    os.symlink(secret, d)
    os.unlink(d)
    os.rename(d + ".real", d)
"""


_TAKE = """
import os, sys, time
from arena.intake import take_snapshot
while not os.path.exists(sys.argv[3]):
    time.sleep(0.001)
print(take_snapshot(sys.argv[1], sys.argv[2]).digest)
"""


def test_two_processes_taking_the_same_folder_at_once_get_one_snapshot(bot, root, tmp_path):
    for number in range(300):
        (bot / "src" / f"module{number}.py").write_bytes(os.urandom(20_000))
    go = tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    takers = [subprocess.Popen([sys.executable, "-c", _TAKE, str(bot), str(root), str(go)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
              for _ in range(2)]
    time.sleep(1)
    go.touch()
    results = [taker.communicate(timeout=60) for taker in takers]
    assert [taker.returncode for taker in takers] == [0, 0], results
    digests = {out.strip() for out, _ in results}
    assert digests == {take_snapshot(bot, root).digest}
    assert leftovers(root) == sorted(digests)


def test_the_digest_is_the_documented_hash(tmp_path, root):
    """Known answer: the format of the module's docstring, computed by hand (a change of
    format changes every entrant's version, so it must be deliberate)."""
    bot = tmp_path / "tiny"
    (bot / "a").mkdir(parents=True)
    (bot / "a" / "b").write_bytes(b"x")
    (bot / "a-b").write_bytes(b"y")
    (bot / "a-b").chmod(0o755)
    (bot / "a" / "up").symlink_to("../a-b")
    records = [("folder", "a", ""), ("file", "a/b", hashlib.sha256(b"x").hexdigest()),
               ("link", "a/up", "../a-b"), ("exec", "a-b", hashlib.sha256(b"y").hexdigest())]
    expected = hashlib.sha256(b"tichu-arena snapshot 1\0")
    for kind, path, value in records:
        expected.update(f"{kind}\0{path}\0{value}\0".encode())
    assert take_snapshot(bot, root).digest == expected.hexdigest()
