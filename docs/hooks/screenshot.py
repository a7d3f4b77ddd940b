"""Makes docs/images/league.png, the README's picture of a league's leaderboard.

It serves a small league of the bundled bots with the tests' own helpers
(tests/league/conftest.py), waits for some games, and shoots the page in headless Chromium
(tests/presentation/conftest.py). Run it from the project folder when the page changes:

    .venv/bin/python docs/hooks/screenshot.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.league.conftest import League, bot_copy, free_port, wait_for, write_config  # noqa: E402
from tests.presentation.conftest import chromium  # noqa: E402

HOUSE = ("random", "heuristic", "imitation")
"""The house bots; an author's upload makes the fourth row."""
GAMES = 60
"""Games stored before the shot, so that the table holds ratings with intervals."""


def main() -> None:
    out = ROOT / "docs" / "images" / "league.png"
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        config = write_config(folder, house=HOUSE, games_per_minute=None)
        config.write_text(config.read_text().replace("test-league", "class-league"))
        league = League(folder, config, free_port(), jobs=2)
        league.start()
        try:
            token = league.invite("alice")
            upload = league.upload(bot_copy(folder / "bot", "alices-bot"), token)
            assert upload.returncode == 0, upload.stdout + upload.stderr
            wait_for(f"{GAMES} games", lambda: len(league.get(f"/api/games?limit={GAMES}")
                                                    ["games"]) >= GAMES, 1800)
            time.sleep(3)  # the standings process makes its next table
            with chromium() as driver:
                driver.set_window_size(1200, 480)
                driver.get(league.url + "/")
                time.sleep(2)
                driver.save_screenshot(str(out))
        finally:
            league.stop()
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
