"""Toolchains an author installed in their home (`arena.sandbox.toolchains`): chosen as
their shell chooses them, shown read-only, the rest of the home hidden, and an unusable one
named in one line. `shaped.py` says which installs are real and which are shaped.

The hostile side: a build that writes into a shown toolchain, reads a secret of the home
beside it, or names a folder of the host as its toolchain (rust-toolchain.toml,
.python-version), must fail; each has its control (the same build at level none, which
does not confine, succeeds; the detector is shown to detect)."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import main
from arena.referee.process import BotProcess
from arena.sandbox import Isolation, ToolchainKind, find_toolchains, run_build
from arena.sandbox.toolchains import VARIABLES, program_of, remembered
from tests.bots.conftest import SETUP
from tests.requirements import missing, not_applicable
from tests.sandbox import shaped
from tests.sandbox.conftest import need_sandbox

pytestmark = pytest.mark.timeout(120)

SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


def author(home: Path, *entries: Path | str, **variables: str) -> dict[str, str]:
    """An author's environment: `home`, PATH with `entries` before the system's."""
    path = ":".join([*map(str, entries), SYSTEM_PATH])
    return {**os.environ, "HOME": str(home), "PATH": path, **variables}


def use(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> None:
    """Make `env` the caller's environment (what `run_build` looks at)."""
    for key in ("HOME", "PATH", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN", "PYENV_VERSION",
                "PYENV_ROOT", "NVM_DIR", "SDKMAN_DIR", "JAVA_HOME"):
        if key in env:
            monkeypatch.setenv(key, env[key])
        else:
            monkeypatch.delenv(key, raising=False)


def need_rustup() -> Path:
    """rustup's folder, with Debian's cargo and rustc (which its linked toolchain runs)."""
    found = shaped.rustup_bin()
    if found is None:
        not_applicable("no rustup outside the system folders here, and the set-up cannot "
                       "install it (rustup.rs is not reachable)")
    absent = [p for p in ("cargo", "rustc") if shutil.which(p, path=SYSTEM_PATH) is None]
    if absent:
        missing(f"Debian's Rust is needed: {', '.join(absent)} not in {SYSTEM_PATH}", SETUP)
    return found


def need_pyenv() -> Path:
    root = shaped.pyenv_root()
    if root is None:
        not_applicable("no pyenv with an installed version here, and the set-up cannot "
                       "install one (pyenv builds each Python from source)")
    return root


# ----- chosen as the author's shell chooses -------------------------------------------------

def test_each_toolchain_is_found_by_its_path_entry_and_replaces_it_in_order(tmp_path) -> None:
    """nvm's and sdkman's `bin` stay on PATH where the author's PATH had them, before the
    system's; their folders are shown, and JAVA_HOME is sdkman's `current`."""
    nvm = shaped.nvm_home(tmp_path)
    sdkman = shaped.sdkman_home(tmp_path)
    found = find_toolchains(tmp_path, author(tmp_path, sdkman, "/opt/elsewhere/bin", nvm))
    assert [t.kind for t in found.found] == [ToolchainKind.SDKMAN, ToolchainKind.NVM]
    assert found.search_path.split(":")[:2] == [str(sdkman), str(nvm)]
    assert "/opt/elsewhere/bin" not in found.search_path  # shown nowhere: not on PATH either
    assert nvm.parent in found.folders()
    java = tmp_path / ".sdkman" / "candidates" / "java"
    assert {java / "current", java / "17.0.99-shaped"} <= set(found.folders())
    assert found.environment()["JAVA_HOME"] == str(java / "current")
    assert found.which("node") == str(nvm / "node")


def test_rustup_toolchain_is_the_one_rustup_chooses_in_the_folder(tmp_path) -> None:
    """RUSTUP_HOME's default toolchain, or the one the bot's rust-toolchain.toml names; its
    own folder is shown, its bin replaces rustup's proxies on PATH."""
    proxies = need_rustup()
    home = shaped.rustup_home(tmp_path)
    env = author(tmp_path, proxies, RUSTUP_HOME=str(home))
    found = find_toolchains(tmp_path, env)
    (rust,) = found.found
    assert rust.kind is ToolchainKind.RUSTUP and rust.problem is None, rust
    assert rust.path == (home / "toolchains" / "linked" / "bin",)
    assert found.which("cargo") == str(home / "toolchains" / "linked" / "bin" / "cargo")
    assert dict(rust.env) == {"RUSTUP_TOOLCHAIN": "linked"}
    assert str(proxies) not in found.search_path
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "rust-toolchain.toml").write_text('[toolchain]\nchannel = "nightly-1999-01-01"\n')
    (other,) = find_toolchains(bot, env).found
    assert other.problem is not None and "nightly-1999-01-01" in other.problem, other


def test_pyenv_version_is_the_one_pyenv_chooses_in_the_folder(tmp_path) -> None:
    """.python-version in the bot's folder, else PYENV_VERSION: the version's own folder is
    shown and its bin takes the shims' place (the shims need the whole of pyenv)."""
    root = need_pyenv()
    version = shaped.pyenv_version(root, avoid=sys.version.split()[0])
    assert version is not None
    env = author(tmp_path, root / "shims", PYENV_ROOT=str(root), PYENV_VERSION=version)
    (python,) = find_toolchains(tmp_path, env).found
    assert python.problem is None, python.problem
    assert python.path == (root / "versions" / version / "bin",)
    assert root / "versions" / version in python.folders
    assert dict(python.env)["PYENV_VERSION"] == version
    env.pop("PYENV_VERSION")
    (tmp_path / ".python-version").write_text(f"{version}\n")
    (python,) = find_toolchains(tmp_path, env).found
    assert python.path == (root / "versions" / version / "bin",)


def test_the_hostile_bot_allows_exactly_the_toolchains_variables() -> None:
    """The hostile bot's environment check lets pass only `VARIABLES` (its own copy)."""
    text = (Path(__file__).parent / "bots" / "hostile" / "bot.py").read_text()
    copy = text.split("TOOLCHAIN_VARIABLES = ", 1)[1].splitlines()[0]
    assert ast.literal_eval(copy) == VARIABLES


def test_program_of_looks_past_env_and_its_assignments() -> None:
    assert program_of(["env", "-i", "CARGO_HOME=x", "cargo", "build"]) == "cargo"
    assert program_of(["cargo", "build"]) == "cargo"
    assert program_of(["env"]) is None


def test_a_program_installed_elsewhere_first_on_path_is_still_the_one_run(
        tmp_path, monkeypatch) -> None:
    """The caller's PATH decides, as in their shell: a node installed outside any toolchain
    manager, before the system's on PATH, is the one a sandboxed build runs (its
    installation shown), not the system's nor an nvm version after it."""
    need_sandbox()
    custom = shaped.program(tmp_path / "opt" / "node" / "bin" / "node", shaped.system("node"))
    nvm = shaped.nvm_home(tmp_path / "home")
    use(monkeypatch, author(tmp_path / "home", custom.parent, nvm))
    bot = tmp_path / "bot"
    bot.mkdir()
    result = run_build(Isolation.SANDBOX, bot, ["node", "-e", "0"])
    assert result.ok, result.reason() + result.output
    assert shaped.marks(bot) == [f"{custom} JAVA_HOME="]


def test_a_bot_start_reuses_the_answer_for_its_folder_and_environment(
        tmp_path, monkeypatch) -> None:
    """`remembered` (a bot process's start) asks once per folder and environment: the same
    answer again, a new one for another nvm version on PATH."""
    first = shaped.nvm_home(tmp_path)
    use(monkeypatch, author(tmp_path, first))
    once = remembered(tmp_path)
    assert remembered(tmp_path) is once
    second = shaped.nvm_home(tmp_path, "v100.0.0")
    use(monkeypatch, author(tmp_path, second))
    assert [t.entry for t in remembered(tmp_path).found] == [second]


# ----- unusable: one line naming the toolchain and what to do ---------------------------------

def test_rustup_without_a_toolchain_fails_a_build_with_one_line(tmp_path, monkeypatch) -> None:
    """A build run by rustup's cargo, and rustup has no toolchain: the build does not start,
    and says so in one line naming rustup and how to get one (not rustup's own error)."""
    proxies = need_rustup()
    use(monkeypatch, author(tmp_path, proxies, RUSTUP_HOME=str(tmp_path / "empty")))
    bot = tmp_path / "bot"
    bot.mkdir()
    for argv in (["cargo", "build"], ["env", "CARGO_HOME=target/h", "cargo", "build"]):
        result = run_build(Isolation.NONE, bot, argv)
        assert not result.ok
        assert result.error is not None and "\n" not in result.error
        assert result.error.startswith(f"rustup ({proxies / 'rustup'}) cannot choose a "
                                       "toolchain"), result.error
        assert "rustup default stable" in result.error
        assert "rustup toolchain link system /usr" in result.error
    control = run_build(Isolation.NONE, bot, ["true"])  # a build that needs no cargo runs
    assert control.ok, control.reason()


def test_a_pyenv_version_not_installed_is_named(tmp_path, monkeypatch) -> None:
    root = need_pyenv()
    use(monkeypatch, author(tmp_path, root / "shims", PYENV_ROOT=str(root),
                            PYENV_VERSION="3.0.99"))
    result = run_build(Isolation.NONE, tmp_path, ["pip", "--version"])
    assert result.error is not None and "\n" not in result.error
    assert result.error.startswith("pyenv (") and "3.0.99" in result.error
    assert "pyenv install" in result.error


def test_a_pyenv_shim_of_another_version_is_named(tmp_path, monkeypatch) -> None:
    """A shim that the chosen version does not have (python3.N of another version): named,
    as pyenv itself would refuse it, in one line. Control: the chosen version's own one runs
    (at level none: the caller's environment as it is)."""
    root = need_pyenv()
    chosen = shaped.pyenv_version(root, avoid="")
    other = shaped.pyenv_version(root, avoid=chosen or "")
    assert chosen is not None and other is not None and other != chosen
    use(monkeypatch, author(tmp_path, root / "shims", PYENV_ROOT=str(root),
                            PYENV_VERSION=chosen))
    python = f"python3.{other.split('.')[1]}"
    result = run_build(Isolation.NONE, tmp_path, [python, "-c", "pass"])
    assert result.error == (f"{python} on PATH is a shim of pyenv ({root / 'shims'}), and "
                            f"pyenv's Python {chosen} has no {python}: choose a version that "
                            "has it (`pyenv versions`)")
    own = run_build(Isolation.NONE, tmp_path, [f"python3.{chosen.split('.')[1]}", "-c", "pass"])
    assert own.ok, own.reason() + own.output


def test_an_nvm_version_without_node_is_named_and_noted_after_a_failed_build(
        tmp_path, monkeypatch) -> None:
    """nvm's bin on PATH, its node gone: a build that runs a program of it says so; a build
    that fails otherwise gets the same line at the end of its output."""
    gone = tmp_path / ".nvm" / "versions" / "node" / "v1.2.3" / "bin"
    gone.mkdir(parents=True)
    shaped.program(gone / "npm", "/bin/false")
    use(monkeypatch, author(tmp_path, gone))
    result = run_build(Isolation.NONE, tmp_path, ["npm", "install"])
    assert result.error is not None
    assert result.error.startswith("nvm's Node.js v1.2.3 is on PATH") and "nvm install" in \
        result.error
    failed = run_build(Isolation.NONE, tmp_path, ["sh", "-c", "exit 3"])
    assert failed.reason() == "exit code 3"
    assert failed.output.splitlines()[-1] == f"arena: {result.error}"


# ----- hostile: what a build sees of the home ------------------------------------------------

ATTACK = """
set -u
for target in "$@"; do
    if ( : > "$target/planted" ) 2>/dev/null; then echo "WROTE $target"; else echo "REFUSED $target"; fi
done
for secret in "$HOME_SEEN/.ssh/id_ed25519" "$HOME_SEEN/.nvm/alias/default" \
        "$HOME_SEEN/.nvm/versions/node/v1.0.0/bin/node"; do
    if cat "$secret" >/dev/null 2>&1; then echo "READ $secret"; else echo "HIDDEN $secret"; fi
done
node -e 'console.log("RAN node")' 2>&1 | head -1
echo "NODE $(command -v node)"
"""


def home_with_secrets(home: Path) -> Path:
    """An author's home: nvm with the chosen version and another one, nvm's alias, and a
    private key; returns the chosen version's bin."""
    chosen = shaped.nvm_home(home)
    shaped.nvm_home(home, "v1.0.0")
    (home / ".nvm" / "alias").mkdir()
    (home / ".nvm" / "alias" / "default").write_text("v99.0.0\n")
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    return chosen


def attack(level: Isolation, home: Path, chosen: Path, bot: Path) -> list[str]:
    script = ATTACK.replace("$HOME_SEEN", str(home))
    result = run_build(level, bot, ["sh", "-c", script, "attack", str(chosen.parent),
                                    str(chosen), str(bot)])
    assert result.ok, result.reason() + result.output
    return result.output.splitlines()


def test_a_build_cannot_write_the_toolchain_nor_see_the_rest_of_the_home(
        tmp_path, monkeypatch) -> None:
    """In the sandbox the chosen nvm version is shown (its node runs) but read-only, and
    nothing else of the home is there: not another nvm version, nor nvm's files, nor a
    private key. Control: at level none (no sandbox) the same build writes and reads all."""
    need_sandbox()
    home = tmp_path / "home"
    chosen = home_with_secrets(home)
    use(monkeypatch, author(home, chosen))
    bot = tmp_path / "bot"
    bot.mkdir()
    seen = attack(Isolation.SANDBOX, home, chosen, bot)
    assert f"REFUSED {chosen.parent}" in seen and f"REFUSED {chosen}" in seen, seen
    assert f"WROTE {bot}" in seen, seen  # its own folder it may write: the script works
    assert all(not line.startswith("READ") for line in seen), seen
    assert "RAN node" in seen, seen  # the toolchain is there, and it ran the chosen node:
    assert shaped.marks(bot) == [f"{chosen / 'node'} JAVA_HOME="]
    assert not (chosen / "planted").exists()
    (bot / "planted").unlink()
    control = attack(Isolation.NONE, home, chosen, bot)
    assert f"WROTE {chosen}" in control and f"READ {home}/.ssh/id_ed25519" in control, control
    assert f"READ {home}/.nvm/versions/node/v1.0.0/bin/node" in control, control


def test_a_bot_process_cannot_write_the_toolchain_nor_see_the_rest_of_the_home(
        tmp_path, monkeypatch) -> None:
    """The same attack by a bot process (started as the referee starts one): the chosen nvm
    version is its `node`, read-only; the rest of the home is not there. Control: the same
    process at level none writes into the toolchain and reads the key."""
    need_sandbox()
    home = tmp_path / "home"
    chosen = home_with_secrets(home)
    use(monkeypatch, author(home, chosen))
    bot = tmp_path / "bot"
    bot.mkdir()
    bot.chmod(0o755)
    script = ATTACK.replace("$HOME_SEEN", str(home))

    def run(level: Isolation) -> list[str]:
        process = BotProcess(["sh", "-c", script, "attack", str(chosen.parent), str(chosen)],
                             bot, {}, f"attack-{level.value}", isolation=level)
        process.start()
        try:
            assert process.wait(60) == 0, process.output_tail()
            process.read_to_end()
            return process.output_tail().splitlines()
        finally:
            process.stop()

    seen = run(Isolation.SANDBOX)
    assert f"REFUSED {chosen.parent}" in seen and f"REFUSED {chosen}" in seen, seen
    assert all(not line.startswith("READ") for line in seen), seen
    assert "RAN node" in seen and f"NODE {chosen / 'node'}" in seen, seen
    assert not (chosen / "planted").exists()
    control = run(Isolation.NONE)
    assert f"WROTE {chosen}" in control and f"READ {home}/.ssh/id_ed25519" in control, control


def test_a_bot_folder_cannot_name_a_host_folder_as_its_pyenv_version(tmp_path) -> None:
    """.python-version climbing out of pyenv's versions, or naming an absolute path: refused,
    nothing shown. The pyenv here is shaped to answer with the file's text as it is (the
    real one refuses `..` itself: this guard does not rely on it). Control: the same folder
    naming an installed version gets it shown."""
    root = tmp_path / "pyenv"
    (root / "shims").mkdir(parents=True)
    shaped.program(root / "versions" / "3.99.0" / "bin" / "python3", "/bin/true")
    (root / "bin").mkdir()
    (root / "bin" / "pyenv").write_text("#!/bin/sh\ncat .python-version\n")
    (root / "bin" / "pyenv").chmod(0o755)
    bot = tmp_path / "bot"
    bot.mkdir()
    env = author(tmp_path, root / "shims", PYENV_ROOT=str(root))
    for escape in (os.path.relpath("/etc", root / "versions"), "/etc", "3.99.0/../../../../etc"):
        (bot / ".python-version").write_text(f"{escape}\n")
        (python,) = find_toolchains(bot, env).found
        assert python.problem is not None and python.folders == (), python
        assert "/etc" not in find_toolchains(bot, env).search_path
    (bot / ".python-version").write_text("3.99.0\n")
    (python,) = find_toolchains(bot, env).found
    assert python.problem is None and python.folders == (root / "versions" / "3.99.0",)


def test_a_rust_toolchain_file_naming_a_path_is_refused(tmp_path) -> None:
    proxies = need_rustup()
    home = shaped.rustup_home(tmp_path)
    bot = tmp_path / "bot"
    bot.mkdir()
    host = tmp_path / "host-folder"  # what rustup would take as a toolchain: bin/ and lib/
    (host / "bin").mkdir(parents=True)
    (host / "lib").mkdir()
    shaped.program(host / "bin" / "rustc", "/bin/true")
    (bot / "rust-toolchain.toml").write_text(f'[toolchain]\npath = "{host}"\n')
    env = author(tmp_path, proxies, RUSTUP_HOME=str(home))
    chosen = subprocess.run([str(proxies / "rustup"), "show", "active-toolchain"], cwd=bot,
                            env=env, capture_output=True, text=True, check=False)
    assert str(host) in chosen.stdout, chosen  # control: rustup itself would take it
    (rust,) = find_toolchains(bot, env).found
    assert rust.problem is not None and "a path" in rust.problem and rust.folders == ()


def test_doctor_names_each_toolchain_and_why_one_cannot_be_used(tmp_path, monkeypatch) -> None:
    """`arena doctor` lists the toolchains of the author's PATH: the shown one by name and
    folder, the unusable one by its problem."""
    usable = shaped.nvm_home(tmp_path)
    gone = tmp_path / ".nvm" / "versions" / "node" / "v1.2.3" / "bin"
    gone.mkdir(parents=True)
    use(monkeypatch, author(tmp_path, usable, gone))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["doctor"])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("toolchain: ")]
    assert lines == [
        f"toolchain: nvm's Node.js v99.0.0, shown read-only in the sandbox ({usable.parent})",
        f"toolchain: nvm's Node.js v1.2.3 is on PATH ({gone}) but has no node: install it "
        "(`nvm install v1.2.3`), or choose an installed one (`nvm use`)"]
