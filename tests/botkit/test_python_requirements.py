"""A Python bot brings its own packages: its requirements.txt installed, at build time, into an
environment of its own (`.venv` of its built copy), offline from wheels it ships, leaving the
arena's environment as it was."""

from __future__ import annotations

import base64
import hashlib
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from arena.botkit.check import check_bot
from arena.botkit.scaffold import new_bot
from arena.intake import CACHE_VAR, IntakeFailed, IntakePolicy, take_bot
from arena.sandbox import Isolation, resolve
from tests.processes import bot_processes as processes_in
from tests.sandbox.conftest import need_sandbox

PACKAGE = "tichu_tinydep"  # a name no index or environment has


@pytest.fixture(autouse=True)
def _cache_of_its_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test builds afresh: the shared cache would serve an earlier run's build."""
    monkeypatch.setenv(CACHE_VAR, str(tmp_path / "cache"))


def wheel(folder: Path, name: str = PACKAGE, version: str = "1.0") -> Path:
    """A real wheel of a one-module package, written in `folder` (no build tool, no index):
    `pick(options)`, the index of the last option."""
    files = {f"{name}.py": "def pick(options):\n    return len(options) - 1\n",
             f"{name}-{version}.dist-info/METADATA":
                 f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
             f"{name}-{version}.dist-info/WHEEL":
                 "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\n"
                 "Tag: py3-none-any\n"}
    record = f"{name}-{version}.dist-info/RECORD"
    lines = [f"{path},sha256={_digest(text)},{len(text.encode())}\n"
             for path, text in files.items()]
    files[record] = "".join(lines) + f"{record},,\n"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for member, text in files.items():
            archive.writestr(member, text)
    return path


def _digest(text: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()


def bot_with_requirements(parent: Path, requirements: str, name: str = "needs-a-package"
                          ) -> Path:
    """The Python template, made to play with `PACKAGE` (every choice that is not a call is
    its `pick`), with `requirements` and the package's wheel in `wheels/`."""
    folder = new_bot(name, "python", parent)
    wheel(folder / "wheels")
    (folder / "requirements.txt").write_text(requirements)
    code = (folder / "bot.py").read_text()
    code = code.replace("import random\n", f"import random\n\nimport {PACKAGE}\n")
    code = code.replace("choose(random.randrange(len(request[\"options\"])))",
                        f"choose({PACKAGE}.pick(request[\"options\"]))")
    assert f"{PACKAGE}.pick" in code
    (folder / "bot.py").write_text(code)
    return folder


def arena_packages() -> list[str]:
    """What the arena's own environment holds."""
    return sorted(os.listdir(sysconfig.get_path("purelib")))


def arena_imports(module: str) -> bool:
    """Whether the arena's Python, started afresh, can import `module`."""
    return subprocess.run([sys.executable, "-c", f"import {module}"],
                          capture_output=True, timeout=60).returncode == 0


@pytest.mark.timeout(300)
@pytest.mark.parametrize("level", ["sandbox", "none"])
def test_a_python_bot_plays_with_the_packages_of_its_requirements(level: str,
                                                                  tmp_path: Path) -> None:
    """Offline: one requirement from the wheels it ships, installed into its `.venv`; one the
    arena's environment meets (msgpack), taken from there; its own build's `python` is the
    environment's too; and the arena's environment is left as it was."""
    if level == "sandbox":
        need_sandbox()
    before = arena_packages()
    folder = bot_with_requirements(tmp_path, f"msgpack\n--find-links wheels\n{PACKAGE}\n")
    manifest = folder / "bot.toml"
    manifest.write_text(manifest.read_text()
                        + f'build = ["python", "-c", "import {PACKAGE}"]\n')
    report = check_bot(folder, games=1, target=200, isolation=Isolation(level))
    assert report.ok, "\n".join(report.lines())
    assert any("pip install -r requirements.txt into .venv, then python -c" in line
               for line in report.lines())
    assert not processes_in(folder)

    ready = take_bot(folder, IntakePolicy(Isolation(level)))  # built before: reused
    assert ready.build is None
    assert ready.manifest.command == (".venv/bin/python", "bot.py")
    installed = [p.name for p in (ready.manifest.folder / ".venv").glob("lib/*/site-packages/*")]
    assert f"{PACKAGE}.py" in installed
    assert not any(name.startswith("msgpack") for name in installed)
    assert arena_packages() == before
    assert not arena_imports(PACKAGE)


@pytest.mark.timeout(300)
def test_without_the_network_a_requirement_nobody_has_fails_the_build_saying_why(
        tmp_path: Path) -> None:
    folder = bot_with_requirements(tmp_path, f"--find-links wheels\n{PACKAGE}\n"
                                             "tichu-arena-no-such-package\n")
    with pytest.raises(IntakeFailed) as refused:
        take_bot(folder, IntakePolicy(resolve("auto")))
    failure = refused.value.failure
    assert failure.stage == "build"
    assert "pip install -r requirements.txt into .venv" in failure.reason
    assert "tichu-arena-no-such-package" in failure.output
    assert "this build has no network (build_network = true in bot.toml" in failure.output
    assert not list((tmp_path / "cache" / "builds").glob("*.ok"))


@pytest.mark.timeout(120)
def test_a_python_bot_without_requirements_runs_with_the_arenas_own_python(
        tmp_path: Path) -> None:
    folder = new_bot("plain", "python", tmp_path)
    ready = take_bot(folder, IntakePolicy(resolve("auto")))
    assert ready.build is None
    assert ready.manifest.argv()[0] == sys.executable
    assert not (ready.manifest.folder / ".venv").exists()
