"""The league's leaderboard keeps a bot's forfeits in sight at a phone's width (390 px) as at
a desktop's (1280 px), in headless Chromium (issue 48, item 8): a bot that crashed half its
games was shown at 390 px as if it played normally, its Forfeits column hidden. The page is
the league's own (`league_views.index_page`, the league's CSS), served from a folder by a
small HTTP server on 127.0.0.1; no league runs."""

from __future__ import annotations

import http.server
import json
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import arena.presentation
from arena.presentation.league_views import LEAGUE_JS, index_page
from arena.presentation.views import LeaderboardRow, leaderboard
from tests.presentation.conftest import module_browser  # noqa: F401 (a fixture)
from tests.presentation.test_report_look import THEMES, WIDTHS, fits_and_is_clean, set_theme

pytestmark = pytest.mark.timeout(240)

ASSETS = Path(arena.presentation.__file__).parent / "assets"
FIELD = [  # (name, author, games, forfeits, order vs next): a class league's table
    ("heuristic", "house", 188, 0, "settled"), ("copy-of-heuristic", "alice", 160, 0,
                                                "~12 more pairs"),
    ("carol-crashes-in-round-ten", "carol", 148, 74, "settled"),
    ("bob-c", "bob", 150, 1, "~3 more pairs"), ("random", "house", 188, 0, "")]


def rows() -> list[LeaderboardRow]:
    return [LeaderboardRow(rank, False, name, f"/bots/{name}", "1.0 0123abcd",
                           1600.0 - 80 * rank, f"{1600 - 80 * rank:.1f}", 31.5, "31.5", games,
                           games // 2, 0.5, 12.5, forfeits, author=author, order=order)
            for rank, (name, author, games, forfeits, order) in enumerate(FIELD, 1)]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    """The folder's files, and at /events a stream with no event that asks the page not to
    come back for ten minutes (the table here never changes)."""

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        if self.path != "/events":
            super().do_GET()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        self.wfile.write(b"retry: 600000\n\n")


@pytest.fixture
def site(tmp_path: Path) -> Iterator[str]:
    """The leaderboard page and the league's assets, served on 127.0.0.1 until the test ends."""
    shutil.copytree(ASSETS, tmp_path / "assets")
    (tmp_path / "assets" / "league.js").write_text(LEAGUE_JS)  # (the league serves it so)
    board = leaderboard(rows(), extras=("author", "order"))
    (tmp_path / "index.html").write_text(index_page("class league", 834, 7, board, ()))
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), lambda *a: _Quiet(*a, directory=str(tmp_path)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/index.html"
    finally:
        server.shutdown()
        server.server_close()


def shown(driver: Any) -> dict[str, Any]:
    """What the leaderboard shows: the headers seen, each flagged count seen in the window
    (its text, colour and title), and whether the table fits its box."""
    return dict(driver.execute_script("""
        const table = document.getElementById('standings-table');
        const box = table.parentElement;
        const seen = el => el.getClientRects().length > 0;
        const inView = el => { const r = el.getBoundingClientRect();
                               return r.left >= 0 && r.right <= window.innerWidth; };
        return {headers: Array.from(table.querySelectorAll('thead th')).filter(seen)
                  .map(th => th.textContent),
                flagged: Array.from(table.querySelectorAll('td .forfeited'))
                  .filter(s => seen(s) && inView(s))
                  .map(s => [s.closest('tr').querySelector('a').textContent, s.textContent,
                             getComputedStyle(s).color, s.parentElement.getAttribute('title')]),
                box: [box.scrollWidth, box.clientWidth]};"""))


ALERT = {"light": "rgb(164, 0, 0)", "dark": "rgb(255, 138, 138)"}
"""report.css --alert, in each theme."""


def test_forfeits_stay_in_sight_and_flagged_at_a_phone_and_a_desktop(site, module_browser):  # noqa: F811
    """At 1280 px the Forfeits column, its non-zero counts flagged; at 390 px, where that
    column is hidden with the other minor ones, "N forfeited" beneath the games, flagged
    alike; each with its share of the games in its title. The table fits its box."""
    driver = module_browser
    driver.get_log("browser")
    for theme in THEMES:
        set_theme(driver, theme)
        for width in WIDTHS:
            driver.set_window_size(width, 900)
            driver.get("about:blank")
            driver.get(site)
            seen = shown(driver)
            said = json.dumps(seen, indent=1)
            phone = width < 720
            assert ("Forfeits" in seen["headers"]) != phone, said
            words = " forfeited" if phone else ""
            assert seen["flagged"] == [
                ["carol-crashes-in-round-ten", f"74{words}", ALERT[theme],
                 "74 of its 148 games forfeited (50%)"],
                ["bob-c", f"1{words}", ALERT[theme], "1 of its 150 games forfeited (1%)"]
            ], (width, said)
            assert seen["box"][0] <= seen["box"][1], (width, said)  # no sideways scroll
            fits_and_is_clean(driver, f"leaderboard {width} {theme}")
