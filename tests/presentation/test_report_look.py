"""The look of the pages in a real headless Chromium: the report's index and replay viewer,
and a live game's page, at a phone's width (390 px) and a desktop's (1280 px), in the light
and the dark theme. Each is saved as a full-page screenshot (the folder is printed: look at
them) and checked: the page is no wider than the window, the console holds no error, the
theme's colours apply, and cards are drawn in their suit's colour.

The report is of engine games stored as the runner stores them (`arena.presentation.bench`),
built once for the module; the live page is served by a small HTTP server that pushes the
table as server-sent events, as the league server does.
"""

from __future__ import annotations

import base64
import http.server
import struct
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from arena.cli.main import main
from arena.presentation.bench import fill_store, play_record
from arena.presentation.report import slug
from arena.presentation.table_view import public_table
from arena.presentation.views import live_fragment, live_game, page, report_nav
from arena.tournament.store import Store
from tests.presentation.payloads import IMG, SCRIPT
from tests.presentation.test_report_browser import wait_for

pytestmark = pytest.mark.timeout(240)

WIDTHS = (390, 1280)
THEMES = ("light", "dark")
BACKGROUND = {"light": "rgb(245, 244, 239)", "dark": "rgb(16, 19, 23)"}
"""The page's background in each theme (report.css --bg)."""
SUIT_COLOURS = {"j": "rgb(21, 128, 61)", "s": "rgb(51, 65, 85)", "p": "rgb(29, 78, 216)",
                "t": "rgb(220, 38, 38)"}
"""Jade green, Sword slate, Pagoda blue, Star red (report.css)."""
LABELS = ["north-south", "east-west", "north-south", "east-west"]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> dict:
    """A report of a round robin of three entrants (one pair each), and one game's id."""
    folder = tmp_path_factory.mktemp("look")
    store = folder / "t.sqlite"
    fill_store(store, ["random@r1", "eager@e1", "late@l1"], 1, strong={"eager@e1"},
               target=300)
    out = folder / "site"
    built = CliRunner().invoke(main, ["report", str(store), "-o", str(out)])
    assert built.exit_code == 0, built.output
    with Store(store, create=False) as s:
        game = s.games()[0].game_id
    return {"folder": out, "game": game}


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("screenshots")
    print(f"screenshots of the pages: {folder}")
    return folder


def full_page_screenshot(driver, path: Path, width: int) -> None:
    """The whole page as a PNG (not only the window), checked to be one of that width
    holding more than a blank page."""
    size = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": width, "height": size["height"], "scale": 1}})
    data = base64.b64decode(shot["data"])
    path.write_bytes(data)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    shot_width, shot_height = struct.unpack(">II", data[16:24])
    assert shot_width == width and shot_height >= 600
    assert len(data) > 30_000, path


def set_theme(driver, theme: str) -> None:
    """The system's colour scheme as the page sees it (prefers-color-scheme)."""
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
        "features": [{"name": "prefers-color-scheme", "value": theme}]})


def fits_and_is_clean(driver, page_name: str) -> None:
    """No horizontal scrolling, and nothing in the console at error level."""
    wide, inner = driver.execute_script(
        "return [document.documentElement.scrollWidth, window.innerWidth]")
    assert wide <= inner, (page_name, wide, inner)
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, (page_name, errors)


def background(driver) -> str:
    return driver.execute_script("return getComputedStyle(document.body).backgroundColor")


def open_replay(driver, folder: Path, game: str, keys: list[str]) -> None:
    """The replay of `game`, loaded afresh, after these keys."""
    driver.get("about:blank")  # (the same URL again would keep the page as it is)
    driver.get((folder / "replay.html").as_uri() + "#" + slug(game))
    wait_for(driver, "#step-counter")
    body = driver.find_element(By.TAG_NAME, "body")
    for key in keys:
        body.send_keys(key)


MID_TRICK = [Keys.ARROW_DOWN] * 2 + [Keys.ARROW_RIGHT] * 3
"""The third trick of the first round, some cards played."""


def test_the_pages_fit_a_phone_and_a_desktop_in_both_themes(site, shared_browser, shots):
    browser = shared_browser
    folder = site["folder"]
    browser.get_log("browser")  # (start from an empty console)
    for theme in THEMES:
        set_theme(browser, theme)
        for width in WIDTHS:
            browser.set_window_size(width, 900)
            browser.get((folder / "index.html").as_uri())
            wait_for(browser, "#standings-table")
            assert background(browser) == BACKGROUND[theme]
            fits_and_is_clean(browser, f"index {width} {theme}")
            full_page_screenshot(browser, shots / f"index-{width}-{theme}.png", width)

            open_replay(browser, folder, site["game"], MID_TRICK)
            assert background(browser) == BACKGROUND[theme]
            assert browser.find_elements(By.CSS_SELECTOR, "#trick .plays .play")
            fits_and_is_clean(browser, f"replay {width} {theme}")
            full_page_screenshot(browser, shots / f"replay-{width}-{theme}.png", width)


def test_cards_show_in_their_suit_colour_and_the_specials_each_their_own(site, shared_browser):
    browser = shared_browser
    # round start, 8 dealt, Grand Tichu, 6 dealt, the exchange: 4 x 14 cards in hand
    open_replay(browser, site["folder"], site["game"], [Keys.ARROW_RIGHT] * 16)
    hands = browser.find_elements(By.CSS_SELECTOR, "#table .hand .card")
    assert len(hands) == 56
    colours = browser.execute_script("""
        var out = {};
        document.querySelectorAll('#table .hand .card').forEach(function (card) {
          var pip = card.querySelector('.pip'), box = pip.getBoundingClientRect();
          out[card.getAttribute('data-card')] = [getComputedStyle(card).color,
            getComputedStyle(pip).fill, box.width > 4 && box.height > 4,
            getComputedStyle(card).backgroundImage];
        });
        return out;""")
    for card, (colour, fill, drawn, _) in colours.items():
        assert drawn, card
        if len(card) == 2:
            assert colour == SUIT_COLOURS[card[1]] and fill == colour, card
    assert len(set(SUIT_COLOURS.values())) == 4
    specials = {c: colours[c] for c in ("Mahjong", "Dog", "Phoenix", "Dragon")}
    assert len({tuple(v[0::3]) for v in specials.values()}) == 4  # four different faces
    assert "gradient" in specials["Dragon"][3] and "gradient" in specials["Phoenix"][3]
    for card, label in (("Mahjong", "Mah Jong"), ("Dog", "Dog"), ("Dragon", "Dragon")):
        face = browser.find_element(By.CSS_SELECTOR, f'#table .card[data-card="{card}"]')
        assert face.get_attribute("aria-label") == label


def test_the_theme_toggle_switches_and_is_remembered(site, shared_browser):
    browser = shared_browser
    folder = site["folder"]
    set_theme(browser, "light")
    browser.get((folder / "index.html").as_uri())
    toggle = browser.find_element(By.ID, "theme-toggle")
    assert background(browser) == BACKGROUND["light"] and "Dark" in toggle.text
    toggle.click()
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("data-theme") == "dark"
    assert background(browser) == BACKGROUND["dark"]
    browser.get((folder / "games.html").as_uri())  # another page of the site: still dark
    assert background(browser) == BACKGROUND["dark"]
    assert "Light" in browser.find_element(By.ID, "theme-toggle").text
    browser.find_element(By.ID, "theme-toggle").click()
    browser.refresh()
    assert background(browser) == BACKGROUND["light"]
    browser.execute_script("localStorage.clear()")  # the system's theme again, for the others


class _LiveServer(http.server.ThreadingHTTPServer):
    """Serves a folder, and at /events pushes `fragment` as a table event, then, once `finish`
    is set, the end event (as the league server does, trick by trick)."""

    daemon_threads = True

    def __init__(self, folder: Path, fragment: str) -> None:
        self.folder, self.fragment = folder, fragment
        self.finish = threading.Event()
        super().__init__(("127.0.0.1", 0), _LiveHandler)


class _LiveHandler(http.server.SimpleHTTPRequestHandler):
    server: _LiveServer

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, directory=str(args[2].folder), **kwargs)

    def log_message(self, *args) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        if self.path != "/events":
            super().do_GET()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(f"event: table\ndata: {self.server.fragment}\n\n".encode())
        self.wfile.flush()
        if self.server.finish.wait(60):
            self.wfile.write(b"event: end\ndata: over\n\n")
            self.wfile.flush()


def test_a_live_game_shows_public_information_and_follows_the_pushes(site, shared_browser, shots):
    """The page opens on the table after the first trick; the server pushes the table a
    dozen events later; no hand of any seat shows, only the cards left; the seats' names
    (here script payloads) show as text."""
    browser = shared_browser
    record = play_record("live", 7, ["a@1", "b@1"], set(), target=300)
    events = record.events
    first = next(k for k, e in enumerate(events) if e["kind"] == "trick") + 1
    labels = [IMG, SCRIPT, "north-south", "east-west"]
    body = live_game("Live: a game in progress", public_table(events[:first], labels),
                     "/events", "replay.html")
    folder = site["folder"]
    (folder / "live.html").write_text(page("Live", body, assets="assets",
                                           nav=report_nav("."), scripts=("live.js",)))
    fragment = live_fragment(events[:first + 12], labels)
    pushed = f"trick {public_table(events[:first + 12], labels).trick_number}"
    assert pushed != f"trick {public_table(events[:first], labels).trick_number}"
    assert "\n" not in fragment
    server = _LiveServer(folder, fragment)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        for theme in THEMES:
            set_theme(browser, theme)
            for width in WIDTHS:
                server.finish.clear()
                browser.set_window_size(width, 900)
                browser.get(f"http://127.0.0.1:{server.server_port}/live.html")
                # the push replaces the table: an element found just before it may go stale
                WebDriverWait(browser, 20, ignored_exceptions=(StaleElementReferenceException,)
                              ).until(lambda d: d.find_element(
                                  By.CSS_SELECTOR, "#trick [data-slot=trick-number]").text
                                  == pushed)
                assert browser.execute_script("return window.__pwned") is None
                assert browser.execute_script("return document.images.length") == 0
                assert IMG in browser.find_element(By.ID, "seat-0").text
                shown = browser.find_elements(By.CSS_SELECTOR, "#live-table .hand .card")
                assert shown and all("back" in c.get_attribute("class") for c in shown)
                counts = [int(browser.find_element(By.CSS_SELECTOR, f"#seat-{s} .count").text)
                          for s in range(4)]
                assert counts == [len(browser.find_elements(
                    By.CSS_SELECTOR, f"#seat-{s} .hand .card.back")) for s in range(4)]
                assert background(browser) == BACKGROUND[theme]
                fits_and_is_clean(browser, f"live {width} {theme}")
                full_page_screenshot(browser, shots / f"live-{width}-{theme}.png", width)
                server.finish.set()
                link = wait_for(browser, "#live-status a")
                assert "The game is over" in browser.find_element(By.ID, "live-status").text
                assert link.get_attribute("href").endswith("/replay.html")
    finally:
        server.finish.set()
        server.shutdown()
        server.server_close()
