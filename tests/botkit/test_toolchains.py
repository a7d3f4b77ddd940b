"""check-bot builds and runs each language's template with the toolchain its author's shell
chooses: rustup's cargo, nvm's node, sdkman's java and pyenv's python, installed in the
author's home (`arena.sandbox.toolchains`).

`tests/sandbox/shaped.py` says what is real: rustup and pyenv are the machine's own (rustup
with a toolchain linked to Debian's Rust in a RUSTUP_HOME of the test's), nvm and sdkman are
shaped (their installers cannot be fetched here), with programs that leave a mark in the
folder they run in: the built copy shows which toolchain its build ran."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.botkit.check import check_bot
from arena.cli.main import main
from arena.intake import CACHE_VAR
from arena.referee.manifest import load_manifest
from arena.sandbox import Isolation
from tests.bots.conftest import BOTS, SETUP, need
from tests.requirements import missing
from tests.sandbox import shaped
from tests.sandbox.conftest import need_sandbox
from tests.sandbox.test_toolchains import author, need_pyenv, need_rustup, use


def new_bot(language: str, parent: Path) -> Path:
    result = CliRunner().invoke(main, ["new-bot", f"my-{language}-bot", "--lang", language,
                                       "--dir", str(parent)])
    assert result.exit_code == 0, result.output
    return parent / f"my-{language}-bot"


def checked(folder: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str],
            cache: Path) -> Path:
    """check-bot of `folder` in the sandbox, as the author of `env` runs it; it must pass.
    Returns the built copy."""
    use(monkeypatch, env)
    monkeypatch.setenv(CACHE_VAR, str(cache))
    report = check_bot(folder, games=1, target=200, isolation=Isolation.SANDBOX)
    assert report.ok, "\n".join(report.lines())
    (built,) = [p for p in (cache / "builds").iterdir() if p.is_dir()]
    return built


@pytest.mark.slow
@pytest.mark.timeout(1500)  # a first Rust build: minutes on a busy machine (test_scaffold)
def test_the_rust_template_builds_with_rustups_toolchain(tmp_path, monkeypatch) -> None:
    """The template as created (its build runs `cargo`): rustup's chosen toolchain builds
    it, not the system's cargo that the sandbox shows too."""
    need("rust")
    need_sandbox()
    proxies = need_rustup()
    home = tmp_path / "home"
    rustup_home = shaped.rustup_home(home)
    folder = new_bot("rust", tmp_path)
    built = checked(folder, monkeypatch, author(home, proxies, RUSTUP_HOME=str(rustup_home)),
                    tmp_path / "cache")
    assert f"{rustup_home}/toolchains/linked/bin/cargo JAVA_HOME=" in shaped.marks(built)


@pytest.mark.timeout(300)
def test_the_node_template_builds_and_runs_with_nvms_node(tmp_path, monkeypatch) -> None:
    """The template with the npm packages the set-up installed for the bundled Node bot (no
    network needed): npm install and the bot run on nvm's node."""
    need("node")
    need_sandbox()
    modules = BOTS / "node-random" / "node_modules"
    if not modules.is_dir():
        missing(f"{modules} is missing", SETUP)
    nvm = shaped.nvm_home(tmp_path / "home")
    folder = new_bot("node", tmp_path)
    shutil.copytree(modules, folder / "node_modules", symlinks=True)
    shutil.copy(BOTS / "node-random" / "package-lock.json", folder)
    manifest = folder / "bot.toml"
    manifest.write_text("\n".join(line for line in manifest.read_text().splitlines()
                                  if not line.startswith("build_network")) + "\n")
    built = checked(folder, monkeypatch, author(tmp_path / "home", nvm), tmp_path / "cache")
    assert f"{nvm / 'node'} JAVA_HOME=" in shaped.marks(built)  # npm's node: nvm's


@pytest.mark.timeout(300)
def test_the_java_template_builds_and_runs_with_sdkmans_java(tmp_path, monkeypatch) -> None:
    """The template as created: its build.sh's javac is sdkman's, with JAVA_HOME its
    `current` as sdkman sets it."""
    need("java")
    need_sandbox()
    home = tmp_path / "home"
    current = shaped.sdkman_home(home)
    java_home = current.parent
    folder = new_bot("java", tmp_path)
    built = checked(folder, monkeypatch, author(home, current, JAVA_HOME=str(java_home)),
                    tmp_path / "cache")
    assert f"{current / 'javac'} JAVA_HOME={java_home}" in shaped.marks(built)


@pytest.mark.timeout(300)
def test_the_python_template_builds_with_the_pyenv_version_of_its_folder(
        tmp_path, monkeypatch) -> None:
    """The template with a .python-version (pyenv's way to choose per project) and a build
    that compiles it with that version's python3.N, found through pyenv's shims. (`python`
    in bot.toml stays the arena's own Python, which has the SDK.)"""
    need_sandbox()
    root = need_pyenv()
    version = shaped.pyenv_version(root, avoid=sys.version.split()[0])
    assert version is not None
    minor = version.split(".")[1]
    folder = new_bot("python", tmp_path)
    (folder / ".python-version").write_text(f"{version}\n")
    manifest = folder / "bot.toml"
    manifest.write_text(manifest.read_text() + f'build = ["python3.{minor}", "-m", '
                        '"compileall", "-q", "bot.py"]\n')
    assert load_manifest(folder).build[0] == f"python3.{minor}"
    env = author(tmp_path / "home", root / "shims", PYENV_ROOT=str(root))
    env.pop("PYENV_VERSION", None)
    built = checked(folder, monkeypatch, env, tmp_path / "cache")
    assert (built / "__pycache__" / f"bot.cpython-3{minor}.pyc").is_file()


@pytest.mark.timeout(120)
def test_check_bot_names_an_nvm_node_that_is_not_installed(tmp_path, monkeypatch) -> None:
    """A bot run by `node`, and the author's PATH has an nvm version with no node in it:
    check-bot fails saying so in one line (nvm's version, and `nvm install`)."""
    gone = tmp_path / "home" / ".nvm" / "versions" / "node" / "v1.2.3" / "bin"
    shaped.program(gone / "node", "/bin/false")
    (gone / "node").rename(gone / "node.old")  # (a bin folder left behind, its node gone)
    shaped.program(gone / "npm", "/bin/false")
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "n"\nversion = "1"\nlanguage = "node"\ncommand = ["npm", "start"]\n')
    use(monkeypatch, author(tmp_path / "home", gone))
    monkeypatch.setenv(CACHE_VAR, str(tmp_path / "cache"))
    report = check_bot(folder, games=1, target=200, isolation=Isolation.NONE)
    text = "\n".join(report.lines())
    assert not report.ok
    assert "nvm's Node.js v1.2.3 is on PATH" in text and "nvm install v1.2.3" in text, text
