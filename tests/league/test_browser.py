"""The league's pages in headless Chromium (Debian's chromium and chromium-driver through
selenium, as tests/presentation drives them): the leaderboard updates itself as games finish,
without a reload; a bot page and a replay page render with no console error; the leaderboard,
a bot page and a replay fit a phone's width and a desktop's, in both themes (screenshots).
One Chromium serves the module's tests (a start costs seconds of CPU), each given it as a
fresh one would be (`browser`)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from selenium.webdriver.common.by import By

from tests.intake import tar_of
from tests.league.conftest import League, bot_copy, wait_for
from tests.presentation.conftest import CHROMIUM_FLAGS, module_browser  # noqa: F401 (a fixture)
from tests.presentation.test_report_look import (
    BACKGROUND,
    MID_TRICK,
    SUIT_COLOURS,
    THEMES,
    WIDTHS,
    background,
    fits_and_is_clean,
    full_page_screenshot,
    set_theme,
)

WINDOW = next(tuple(map(int, f.split("=")[1].split(","))) for f in CHROMIUM_FLAGS
              if f.startswith("--window-size="))


@pytest.fixture
def browser(module_browser: Any, league: League) -> Iterator[Any]:  # noqa: F811
    """The module's Chromium as a fresh one is: no cookie or storage of the league's pages,
    the system's theme, the first window size, a blank page and its console read."""
    driver = module_browser
    driver.get("about:blank")
    driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    driver.execute_cdp_cmd("Storage.clearDataForOrigin", {"origin": league.url,
                                                         "storageTypes": "all"})
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    driver.set_window_size(*WINDOW)
    driver.get_log("browser")
    yield driver


def _heading(driver) -> str:
    """The page's heading, "" while the page is being replaced (the element goes stale)."""
    from selenium.common.exceptions import WebDriverException

    try:
        return str(driver.find_element("tag name", "h1").text)
    except WebDriverException:
        return ""


def _errors(driver) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def test_the_leaderboard_updates_itself_without_a_reload(league: League, browser):
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
                                                               browser):
    games = wait_for("a game", lambda: league.get("/api/games?limit=1")["games"])
    browser.get(league.url + "/bots/heuristic")
    assert "heuristic" in browser.find_element("tag name", "h1").text
    browser.get(league.url + games[0]["replay"])
    wait_for("the replay drawn", lambda: browser.find_elements("css selector", "#replay .card")
             or browser.find_elements("css selector", "#replay-controls:not([hidden])"), 30)
    assert not _errors(browser)


def test_the_upload_form_takes_a_bot(league: League, browser, tmp_path):
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


def test_the_pages_fit_a_phone_and_a_desktop_in_both_themes(league: League, browser,
                                                           tmp_path_factory):
    """The leaderboard, a bot's page and a replay at a phone's width (390 px) and a desktop's
    (1280 px), light and dark: no wider than the window, the theme's colours, cards drawn in
    their suit's colour; each saved as a full-page screenshot (the folder is printed: look
    at them)."""
    shots = tmp_path_factory.mktemp("league-screenshots")
    print(f"screenshots of the league's pages: {shots}")
    game = wait_for("a game", lambda: league.get("/api/games?limit=1")["games"])[0]
    wait_for("the heuristic's rating history", lambda: len(next(
        v for v in league.get("/api/bots/heuristic")["versions"] if v["active"])["history"]) >= 2)
    browser.get_log("browser")  # (start from an empty console)
    for theme in THEMES:
        set_theme(browser, theme)
        for width in WIDTHS:
            browser.set_window_size(width, 900)
            for name, path, ready in (("leaderboard", "/", "#standings-table"),
                                      ("bot", "/bots/heuristic", "#opponents-table"),
                                      ("replay", game["replay"], "#step-counter")):
                browser.get("about:blank")
                browser.get(league.url + path)
                wait_for(f"{name} drawn", lambda r=ready: browser.find_elements(
                    By.CSS_SELECTOR, r), 30)
                if name == "replay":
                    body = browser.find_element(By.TAG_NAME, "body")
                    for key in MID_TRICK:
                        body.send_keys(key)
                    assert_cards_drawn(browser)
                assert background(browser) == BACKGROUND[theme], (name, width, theme)
                full_page_screenshot(browser, shots / f"{name}-{width}-{theme}.png", width)
                fits_and_is_clean(browser, f"{name} {width} {theme}")
                if name == "leaderboard":
                    assert_leaderboard_fits(browser, width)


def assert_leaderboard_fits(driver, width: int) -> None:
    """The leaderboard whole in the window, with no sideways scrolling of the page or of its
    own box: at a phone's width its minor columns hidden (Author, Version, Wins, Win %,
    Margin, Forfeits; the author shown beneath the entrant instead), at a desktop's every
    column shown; its box carries the scroll cue (the shadows a table
    too wide for it would show at its edges)."""
    seen = driver.execute_script("""
        const table = document.getElementById('standings-table');
        const box = table.parentElement;
        const shown = Array.from(table.querySelectorAll('thead th'))
          .filter(th => th.getClientRects().length > 0).map(th => th.textContent);
        const stacked = Array.from(table.querySelectorAll('td .stacked'))
          .filter(span => span.getClientRects().length > 0).map(span => span.textContent);
        return {stacked: stacked, page: document.scrollingElement.scrollWidth, inner: window.innerWidth,
                box: [box.scrollWidth, box.clientWidth], right: box.getBoundingClientRect().right,
                shown: shown, cue: getComputedStyle(box).backgroundImage,
                table: box.outerHTML};""")
    # the whole of what was seen, the table's HTML too, if it fails (pytest would cut a dict)
    said = json.dumps(seen, indent=1)
    assert seen["page"] <= seen["inner"], said
    assert seen["box"][0] <= seen["box"][1] and seen["right"] <= seen["inner"], said
    minor = {"Author", "Version", "Wins", "Win %", "Margin", "Forfeits"}
    assert {"Rank", "Entrant", "Elo", "Games", "Order vs next"} <= set(seen["shown"]), said
    assert (minor & set(seen["shown"])) == (set() if width < 720 else minor), said
    assert ("house" in seen["stacked"]) == (width < 720), said  # the house bots' author
    assert seen["cue"].count("gradient") == 4, said


def assert_cards_drawn(driver) -> None:
    """The replay's cards in hand and on the trick, each drawn (a face of some size) and a
    suited one in its suit's colour."""
    cards = driver.execute_script("""
        return Array.from(document.querySelectorAll('#replay .card')).map(function (card) {
          var box = card.getBoundingClientRect();
          return [card.getAttribute('data-card') || '', getComputedStyle(card).color,
                  box.width > 10 && box.height > 10];
        });""")
    assert len(cards) >= 40, cards  # four hands, and the trick being played
    faces = [c for c in cards if c[0]]
    assert faces and all(drawn for _, _, drawn in cards)
    for card, colour, _ in faces:
        if len(card) == 2:
            assert colour == SUIT_COLOURS[card[1]], (card, colour)
