"""`arena new-bot`: each language's template passes check-bot as created."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.botkit.check import check_bot
from arena.botkit.scaffold import LANGUAGES, new_bot
from arena.cli.bots import LANGUAGES as CLI_LANGUAGES
from arena.cli.main import main
from arena.referee.manifest import load_manifest
from arena.sandbox import Isolation
from tests.bots.conftest import need
from tests.processes import bot_processes as processes_in
from tests.sandbox.conftest import need_sandbox

# seconds per test: a first Rust build compiles every crate, a minute of CPU and several
# minutes on a busy machine (the sandboxed one is made first, and the other reuses it)
TIMEOUT = {"cpp": 300, "rust": 1500}
SLOW_BUILDS = {"cpp", "rust"}  # a C++ or Rust toolchain in the sandbox: minutes; `make test-slow`


@pytest.mark.parametrize("level", ["sandbox", "none"])
@pytest.mark.parametrize("language", [
    pytest.param(language, marks=[pytest.mark.timeout(TIMEOUT.get(language, 120))]
                 + ([pytest.mark.slow] if language in SLOW_BUILDS else []))
    for language in LANGUAGES])
def test_a_new_bot_passes_check_bot_as_created(language: str, level: str, tmp_path) -> None:
    """At every isolation level: built (through intake) and played sandboxed, and not."""
    need(language)
    if level == "sandbox":
        need_sandbox()
    result = CliRunner().invoke(main, ["new-bot", f"my-{language}-bot", "--lang", language,
                                       "--dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    folder = tmp_path / f"my-{language}-bot"
    assert load_manifest(folder).name == f"my-{language}-bot"
    network = load_manifest(folder).build_network  # the Node template's npm install
    report = check_bot(folder, games=1, target=200, build_network=network,
                       isolation=Isolation(level))
    assert report.ok, "\n".join(report.lines())
    assert not processes_in(folder)


@pytest.mark.timeout(30)
def test_new_bot_offers_the_language_of_every_template() -> None:
    """The CLI names the languages itself (it imports the bot kit only when it runs)."""
    assert CLI_LANGUAGES == LANGUAGES
    assert {"cpp", "rust"} <= set(LANGUAGES)


@pytest.mark.timeout(30)
def test_new_bot_refuses_an_existing_folder_and_a_bad_name(tmp_path) -> None:
    runner = CliRunner()
    assert runner.invoke(main, ["new-bot", "x", "--dir", str(tmp_path)]).exit_code == 0
    again = runner.invoke(main, ["new-bot", "x", "--dir", str(tmp_path)])
    bad = runner.invoke(main, ["new-bot", "no/slash", "--dir", str(tmp_path)])
    assert again.exit_code == 2 and "already exists" in again.output
    assert bad.exit_code == 2 and "bot name" in bad.output


@pytest.mark.timeout(120)
def test_the_printed_next_steps_work_from_any_directory(tmp_path) -> None:
    arena = Path(sys.executable).with_name("arena")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    made = subprocess.run([str(arena), "new-bot", "far-bot"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    lines = made.stdout.splitlines()
    check = next(line for line in lines if line.startswith("check it:")).split()[2:]
    play = next(line for line in lines if line.startswith("play it:")).split()[2:]
    assert check[1:] == ["check-bot", str(tmp_path / "far-bot")]
    assert Path(play[0]).is_absolute() or play[0] == "arena"
    played = subprocess.run(play[:-1] + ["300"], cwd=elsewhere, capture_output=True, text=True,
                            timeout=100)
    assert played.returncode == 0, played.stdout + played.stderr
    assert "Final score" in played.stdout


@pytest.mark.timeout(300)
def test_the_c_template_compiles_as_cpp_and_plays(tmp_path) -> None:
    """A student may rename bot.c to bot.cpp: the template is C++ too (no implicit
    conversion from void*), and the C++ build plays as the C one does."""
    need("c")
    need("cpp")
    folder = new_bot("c-as-cpp", "c", tmp_path)
    manifest = folder / "bot.toml"
    cpp_build = ('build = ["sh", "-c", "mkdir -p build && c++ -x c++ -std=c++17 -Wall '
                 '-o build/bot bot.c -lzmq -lmsgpackc"]')
    text = manifest.read_text()
    assert 'build = ["make", "--silent"]' in text
    manifest.write_text(text.replace('build = ["make", "--silent"]', cpp_build))
    report = check_bot(folder, games=1, target=200, isolation=Isolation.NONE)
    assert report.ok, "\n".join(report.lines())
