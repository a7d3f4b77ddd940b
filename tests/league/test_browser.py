"""The league's pages in headless Chromium (Debian's chromium and chromium-driver through
selenium, as tests/presentation drives them): the leaderboard updates itself as games finish,
without a reload; a bot page and a replay page render with no console error."""

from __future__ import annotations

import time

from tests.intake import tar_of
from tests.league.conftest import League, bot_copy, wait_for
from tests.presentation.conftest import browser  # noqa: F401 (a fixture)


def _heading(driver) -> str:
    """The page's heading, "" while the page is being replaced (the element goes stale)."""
    from selenium.common.exceptions import WebDriverException

    try:
        return str(driver.find_element("tag name", "h1").text)
    except WebDriverException:
        return ""


def _errors(driver) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def test_the_leaderboard_updates_itself_without_a_reload(league: League, browser):  # noqa: F811
    browser.get(league.url + "/")
    first = _board(browser)["version"]
    browser.execute_script("window.notReloaded = true;")
    deadline = time.monotonic() + 120
    while (board := _board(browser))["version"] <= first:
        assert time.monotonic() < deadline, "the leaderboard never updated itself"
        time.sleep(0.2)
    assert browser.execute_script("return window.notReloaded === true;")
    assert board["table_shown"], board
    assert board["games"] > 0, board
    assert not _errors(browser)


def _board(driver) -> dict:
    """The leaderboard as the page shows it, read in one script: a push may replace its
    elements between two WebDriver calls (a stale element, under load)."""
    return driver.execute_script("""
        const board = document.getElementById('leaderboard');
        const table = document.getElementById('standings-table');
        const games = document.getElementById('games-count');
        return {version: Number(board.dataset.version),
                table_shown: table !== null && table.getClientRects().length > 0,
                games: games === null ? null : Number(games.textContent)};""")


def test_a_bot_page_and_a_replay_render_without_console_errors(league: League,
                                                               browser):  # noqa: F811
    games = wait_for("a game", lambda: league.get("/api/games?limit=1")["games"])
    browser.get(league.url + "/bots/heuristic")
    assert "heuristic" in browser.find_element("tag name", "h1").text
    browser.get(league.url + games[0]["replay"])
    wait_for("the replay drawn", lambda: browser.find_elements("css selector", "#replay .card")
             or browser.find_elements("css selector", "#replay-controls:not([hidden])"), 30)
    assert not _errors(browser)


def test_the_upload_form_takes_a_bot(league: League, browser, tmp_path):  # noqa: F811
    token = league.invite("frank")
    archive = tar_of(bot_copy(tmp_path / "frank-bot", "frank-bot"), tmp_path / "frank.tar.gz")
    browser.get(league.url + "/upload")
    form = browser.find_element("id", "upload-form")
    form.find_element("name", "token").send_keys(token)
    form.find_element("name", "name").send_keys("frank-bot")
    form.find_element("name", "archive").send_keys(str(archive))
    form.find_element("css selector", "button[type=submit]").click()
    wait_for("the answer page", lambda: "received" in _heading(browser), 60)
    assert not _errors(browser)
    wait_for("frank-bot in the table", lambda: "frank-bot" in league.standings())
    assert token not in browser.page_source
