"""The league's pages in headless Chromium (Debian's chromium and chromium-driver through
selenium, as tests/presentation drives them): the leaderboard updates itself as games finish,
without a reload; a bot page and a replay page render with no console error."""

from __future__ import annotations

import time

from tests.league.conftest import League, wait_for
from tests.presentation.conftest import browser  # noqa: F401 (a fixture)


def _errors(driver) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def test_the_leaderboard_updates_itself_without_a_reload(league: League, browser):  # noqa: F811
    browser.get(league.url + "/")
    board = browser.find_element("id", "leaderboard")
    first = int(board.get_attribute("data-version"))
    browser.execute_script("window.notReloaded = true;")
    deadline = time.monotonic() + 120
    while int(browser.find_element("id", "leaderboard").get_attribute("data-version")) <= first:
        assert time.monotonic() < deadline, "the leaderboard never updated itself"
        time.sleep(0.2)
    assert browser.execute_script("return window.notReloaded === true;")
    assert browser.find_element("id", "standings-table").is_displayed()
    shown = int(browser.find_element("id", "games-count").text)
    assert shown > 0
    assert not _errors(browser)


def test_a_bot_page_and_a_replay_render_without_console_errors(league: League,
                                                               browser):  # noqa: F811
    games = wait_for("a game", lambda: league.get("/api/games?limit=1")["games"])
    browser.get(league.url + "/bots/heuristic")
    assert "heuristic" in browser.find_element("tag name", "h1").text
    browser.get(league.url + games[0]["replay"])
    wait_for("the replay drawn", lambda: browser.find_elements("css selector", "#replay .card")
             or browser.find_elements("css selector", "#replay-controls:not([hidden])"), 30)
    assert not _errors(browser)
