"""Toolchains of the organizer's home in a league's intake builds, against a real server
(`arena.sandbox.toolchains`): an upload's build runs the nvm node that the server's PATH
chooses; an upload whose .python-version names a folder of the server as its pyenv
version is not shown that folder. nvm and pyenv are shaped here (`tests/sandbox/shaped.py`
says why), pyenv to answer with the file's text as it is."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.league.conftest import bot_copy, served
from tests.sandbox import shaped
from tests.sandbox.conftest import need_sandbox

pytestmark = pytest.mark.timeout(600)

INTAKE = '[intake]\nfolder = "intake"\n'


def shaped_pyenv(home: Path) -> Path:
    """~/.pyenv whose `pyenv version-name` answers with .python-version as it is, and one
    installed version, 3.99.0, holding a file any build may read once it is shown."""
    root = home / ".pyenv"
    (root / "shims").mkdir(parents=True)
    shaped.program(root / "versions" / "3.99.0" / "bin" / "python3", "/bin/true")
    (root / "versions" / "3.99.0" / "readable.txt").write_text("shown\n")
    (root / "bin").mkdir()
    (root / "bin" / "pyenv").write_text("#!/bin/sh\ncat .python-version\n")
    (root / "bin" / "pyenv").chmod(0o755)
    return root


def test_uploads_build_with_nvms_node_and_cannot_name_a_server_folder_as_python(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    need_sandbox()
    home = tmp_path / "home"
    nvm = shaped.nvm_home(home)
    root = shaped_pyenv(home)
    secret = tmp_path / "server-secret"
    secret.mkdir()
    (secret / "key.txt").write_text("the organizer's key\n")
    for key, value in {"HOME": str(home), "PYENV_ROOT": str(root),
                       "PATH": f"{nvm}:{root / 'shims'}:/usr/local/bin:/usr/bin:/bin"}.items():
        monkeypatch.setenv(key, value)  # the server's environment (started below)
    monkeypatch.delenv("PYENV_VERSION", raising=False)
    (tmp_path / "league").mkdir()
    with served(tmp_path / "league", INTAKE) as league:
        token = league.invite("nina")
        built = league.upload(bot_copy(tmp_path / "nvm-bot", "nvm-bot", extra=(
            f'build = ["sh", "-c", "test \\"$(command -v node)\\" = {nvm / "node"} && '
            'node -e 0"]\n')), token)
        assert built.returncode == 0, built.stdout + built.stderr

        peek = bot_copy(tmp_path / "peek-bot", "peek-bot",
                        extra=f'build = ["cat", "{secret / "key.txt"}"]\n')
        (peek / ".python-version").write_text(os.path.relpath(secret, root / "versions"))
        refused = league.upload(peek, token)
        assert refused.returncode == 1, refused.stdout + refused.stderr
        assert "the organizer's key" not in refused.stdout + refused.stderr
        assert "arena: pyenv chose the version '../../../server-secret'" in refused.stdout

        shown = bot_copy(tmp_path / "shown-bot", "shown-bot", extra=(
            f'build = ["cat", "{root / "versions" / "3.99.0" / "readable.txt"}"]\n'))
        (shown / ".python-version").write_text("3.99.0\n")
        control = league.upload(shown, token)  # a version the file names is shown: the
        assert control.returncode == 0, control.stdout + control.stderr  # attack is real
