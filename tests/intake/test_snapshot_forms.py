"""Property: any tree of files gets one digest whichever form it comes in (the folder, its
tar.gz, its zip, or a packed snapshot of it), with names that sort differently as strings
and as paths ("a-b" < "a/b" < "a0"), non-ASCII names and executables among them."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.intake import SKIPPED_FOLDERS, content_hash, pack_snapshot, take_snapshot
from tests.intake import tar_of, zip_of

NAMES = st.text(alphabet="ab-_.0 éü木", min_size=1, max_size=6).filter(
    lambda name: name not in (".", "..") and name not in SKIPPED_FOLDERS)
FILES = st.lists(st.tuples(st.lists(NAMES, max_size=3), NAMES, st.binary(max_size=200),
                           st.booleans()), max_size=10)


def _build(bot: Path, files: list[tuple[list[str], str, bytes, bool]]) -> None:
    """The files written under `bot`, skipping those that clash with earlier ones."""
    bot.mkdir()
    for folders, name, data, executable in files:
        path = bot.joinpath(*folders, name)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            continue
        if not path.exists():
            path.write_bytes(data)
            path.chmod(0o755 if executable else 0o644)


@settings(max_examples=20, deadline=None)
@given(FILES)
def test_a_tree_has_one_digest_in_every_form(files):
    with tempfile.TemporaryDirectory() as scratch:
        tmp = Path(scratch)
        _build(tmp / "bot", files)
        snapshot = take_snapshot(tmp / "bot", tmp / "snapshots")
        assert content_hash(snapshot.folder) == snapshot.digest
        (tmp / "packed.tar").write_bytes(pack_snapshot(snapshot.folder))
        for archive in (tar_of(tmp / "bot", tmp / "bot.tar.gz"),
                        zip_of(tmp / "bot", tmp / "bot.zip"), tmp / "packed.tar"):
            assert take_snapshot(archive, tmp / f"from-{archive.name}").digest == snapshot.digest
