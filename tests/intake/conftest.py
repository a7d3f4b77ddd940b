"""Compression bombs for the intake tests, built once per run by streaming zeros through the
compressor (about 200 KB on disk each, a few seconds to build)."""

from __future__ import annotations

import tarfile
import zipfile
from pathlib import Path

import pytest

BOMB_BYTES = 200 * 1000 * 1000
"""What a bomb unpacks to: 200 MB of zeros (below the 200 MiB byte limit: only the ratio
guard can stop it)."""


class _Zeros:
    """A file of `size` zero bytes that is never held in memory."""

    def __init__(self, size: int) -> None:
        self.left = size

    def read(self, size: int = -1) -> bytes:
        size = self.left if size < 0 else min(size, self.left)
        self.left -= size
        return bytes(size)


def tar_bomb(archive: Path, name: str, size: int = BOMB_BYTES) -> Path:
    """A tar.gz holding one member `name` of `size` zeros."""
    with tarfile.open(archive, "w:gz") as tar:
        info = tarfile.TarInfo(name)
        info.size = size
        tar.addfile(info, _Zeros(size))
    return archive


@pytest.fixture(scope="session")
def tgz_bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tar_bomb(tmp_path_factory.mktemp("bombs") / "bomb.tar.gz", "zeros")


@pytest.fixture(scope="session")
def zip_bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    archive = tmp_path_factory.mktemp("bombs") / "bomb.zip"
    chunk = bytes(1 << 20)
    with (zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped,
          zipped.open("zeros", "w", force_zip64=True) as member):
        for _ in range(BOMB_BYTES // len(chunk)):
            member.write(chunk)
    return archive
