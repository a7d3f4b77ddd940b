"""The bundled bots of other languages: their own golden-vector tests, check-bot, full games."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from arena.botkit.check import Status, check_bot
from arena.referee.manifest import load_manifest
from arena.referee.match import GameSpec, run_game
from arena.referee.record import Termination
from tests.bots.conftest import BOTS, entrant, need
from tests.pace import HELLO_FACTOR, honest_time, pace_check_bot

LANGUAGE = {"node-random": "node", "c-random": "c", "java-random": "java", "random": "python",
            "heuristic": "python", "search": "python"}
VECTOR_TESTS = {"node-random": ["npm", "test", "--silent"], "c-random": ["make", "--silent", "test"],
                "java-random": ["sh", "build.sh", "test"]}
OTHER_LANGUAGES = sorted(VECTOR_TESTS)
# whose golden-vector tests build the bot first themselves (`sh build.sh test` starts from an
# empty build/): a build before them would be thrown away (2.3 s of a JVM's CPU)
BUILT_BY_THEIR_TESTS = {"java-random"}


@pytest.mark.timeout(900)  # a hang guard: a JVM's build and tests took over 120 s at load 35
@pytest.mark.parametrize("bot", OTHER_LANGUAGES)
def test_bot_passes_the_golden_vectors_in_its_own_tests(bot: str, tmp_path: Path) -> None:
    need(LANGUAGE[bot])
    # as its author would: built and tested in its folder, a copy here (another test may be
    # taking the repository's folder in meanwhile), with ../../protocol/vectors beside it
    folder = tmp_path / "bots" / bot
    shutil.copytree(BOTS / bot, folder, symlinks=True,  # without a build of the checkout's
                    ignore=lambda at, names: ["build"] if Path(at) == BOTS / bot else [])
    (tmp_path / "protocol").symlink_to(BOTS.parent / "protocol")
    if bot not in BUILT_BY_THEIR_TESTS:
        subprocess.run(load_manifest(folder).build_argv(), cwd=folder, check=True, timeout=420,
                       capture_output=True)
    result = subprocess.run(VECTOR_TESTS[bot], cwd=folder, capture_output=True, text=True,
                            timeout=420)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("bot", sorted(LANGUAGE))
def test_every_bundled_bot_passes_check_bot(bot: str, monkeypatch) -> None:
    need(LANGUAGE[bot])
    pace_check_bot(monkeypatch)
    report = check_bot(BOTS / bot, games=1, target=300)
    assert report.ok, "\n".join(report.lines())
    # a late exit after `end` is a warning, which a busy machine may cause; nothing else may warn
    assert all(i.status in (Status.PASS, Status.SKIP) or (i.name, i.status) == ("end", Status.WARN)
               for i in report.items), report.lines()


@pytest.mark.timeout(120)
@pytest.mark.parametrize("bot", OTHER_LANGUAGES)
def test_bot_plays_a_full_game_to_1000_against_random(bot: str) -> None:
    need(LANGUAGE[bot])
    team0 = entrant(BOTS / bot)
    spec = GameSpec(f"full-{bot}", 11, (team0, entrant(BOTS / "random")), 1000,
                    # a JVM or node starts slower than the Python bots paced
                    honest_time(hello=10.0, bank=120.0, hello_factor=3 * HELLO_FACTOR))
    record = run_game(spec)
    assert record.termination is Termination.NORMAL, record.fault
    assert max(record.scores) >= 1000 and record.rounds >= 3
