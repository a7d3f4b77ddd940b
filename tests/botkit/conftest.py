"""Shared helpers of the bot-kit tests (check-bot, new-bot): the bundled bots, and the
deliberately broken bots of `bots/broken/`; check-bot's limits at the pace now
(`tests.pace.pace_check_bot`) for every test here."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.pace import pace_check_bot

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "bots"
BROKEN = Path(__file__).resolve().parent / "bots" / "broken"


def broken_bot(fault: str, parent: Path) -> Path:
    """A self-contained copy, in `parent`, of the broken bot whose fault is `fault`: its
    folder's bot.toml with the shared broken.py beside it (a sandboxed bot sees only its own
    folder, not the ../broken.py its manifest names)."""
    folder = parent / fault
    shutil.copytree(BROKEN / fault, folder)
    shutil.copy(BROKEN / "broken.py", folder / "broken.py")
    manifest = folder / "bot.toml"
    manifest.write_text(manifest.read_text().replace('"../broken.py"', '"broken.py"'))
    return folder


@pytest.fixture(autouse=True)
def _check_bot_at_the_pace_now(monkeypatch: pytest.MonkeyPatch) -> None:
    pace_check_bot(monkeypatch)
