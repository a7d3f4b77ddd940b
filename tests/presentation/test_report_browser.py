"""The web report as a person uses it, in a real headless Chromium: open the standings, sort
a column, follow a game to its replay, step through it with the keyboard, visit an entrant.

The tournament is real: three bot processes per seat pair played by the referee, one of them
a hostile bot that crashes mid-game (tests/botkit/bots/broken, `crash_in_game`), so the
report shows a recorded forfeit with its kind, seat and replay.
"""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest
from click.testing import CliRunner
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from arena.cli.main import main
from arena.sandbox import probe

pytestmark = pytest.mark.timeout(240)


@pytest.fixture(scope="module")
def report(crash_tournament, tmp_path_factory) -> Path:
    """The report of a real round robin (random, heuristic, a bot that crashes in game)."""
    out = tmp_path_factory.mktemp("report") / "site"
    built = CliRunner().invoke(main, ["report", str(crash_tournament), "-o", str(out)])
    assert built.exit_code == 0, built.output
    return out


def wait_for(driver, css: str):
    return WebDriverWait(driver, 20).until(lambda d: d.find_element(By.CSS_SELECTOR, css))


def column(driver, table: str, index: int) -> list[str]:
    return [row.find_elements(By.TAG_NAME, "td")[index].text
            for row in driver.find_elements(By.CSS_SELECTOR, f"#{table} tbody tr")]


def shown_cards(driver, css: str) -> list[str]:
    """The cards drawn inside the elements `css` picks, by their wire names, in order."""
    return [c.get_attribute("data-card")
            for c in driver.find_elements(By.CSS_SELECTOR, f"{css} .card")]


def screenshot(driver, path: Path) -> None:
    """Save a screenshot and check that something was drawn: the window's size, and more
    than a blank page compresses to (about 5 KB at this size; a table page is 100 KB+)."""
    driver.save_screenshot(str(path))
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert width >= 1000 and height >= 700
    assert len(data) > 40_000


def test_a_person_reads_the_standings_sorts_and_replays_a_game(report, shared_browser,
                                                               tmp_path):
    browser = shared_browser
    browser.get((report / "index.html").as_uri())
    facts = browser.find_element(By.ID, "facts").text
    recorded = probe().level.value  # the isolation the games were played at (auto: the best)
    for text in ("Tournament", "Games", "6 stored", "Anchor", "random = 0", "Prior",
                 "Interval method", "Isolation", recorded):
        assert text in facts
    names = column(browser, "standings-table", 1)
    assert sorted(names) == ["broken-crash-in-game", "heuristic", "random"]
    assert browser.find_element(By.CSS_SELECTOR, "svg.chart").is_displayed()
    assert len(browser.find_elements(By.CSS_SELECTOR, "#crosstable tbody tr")) == 3

    # Sort by wins: ascending, then descending; the numbers must follow.
    wins = browser.find_element(By.XPATH, "//table[@id='standings-table']//th[.='Wins']")
    wins.click()
    assert wins.get_attribute("aria-sort") == "ascending"
    up = [int(v) for v in column(browser, "standings-table", 6)]
    assert up == sorted(up)
    wins.click()
    down = [int(v) for v in column(browser, "standings-table", 6)]
    assert down == sorted(up, reverse=True)
    screenshot(browser, tmp_path / "standings.png")

    # Follow the games link, then a game of the crashing bot, to its replay.
    browser.find_element(By.PARTIAL_LINK_TEXT, "All 6 games").click()
    wait_for(browser, "#games-table")
    rows = browser.find_elements(By.CSS_SELECTOR, "#games-table tbody tr")
    assert len(rows) == 6
    crashed = [r for r in rows if "crash" in r.text]
    assert crashed, "the crashing bot's forfeit is listed"
    crashed[0].find_element(By.TAG_NAME, "a").click()
    wait_for(browser, "#step-counter")
    assert "replay.html#" in browser.current_url
    total = int(browser.find_element(By.ID, "step-counter").text.split()[-1])
    assert "Event 1 of" in browser.find_element(By.ID, "step-counter").text
    meta = browser.find_element(By.ID, "replay-meta").text
    assert "crash" in meta and "Isolation" in meta

    body = browser.find_element(By.TAG_NAME, "body")
    for _ in range(16):  # round start, 4 deals of 8, 4 Grand Tichu decisions, 4 deals of 6...
        body.send_keys(Keys.ARROW_RIGHT)
    replay = browser.find_element(By.ID, "replay")
    assert replay.get_attribute("data-step") == "16"
    counts = [int(browser.find_element(By.CSS_SELECTOR, f"#seat-{s} .count").text.strip(" ()"))
              for s in range(4)]
    assert counts == [14, 14, 14, 14]  # all four hands, after the exchange
    assert len(browser.find_elements(By.CSS_SELECTOR, "#seat-0 .hand .card")) == 14
    body.send_keys(Keys.ARROW_DOWN)  # to the end of the first trick
    assert replay.get_attribute("data-kind") == "trick"
    assert "trick" in browser.find_element(By.ID, "event-text").text
    body.send_keys(Keys.ARROW_LEFT)
    assert replay.get_attribute("data-kind") != "trick"
    body.send_keys(Keys.END)
    assert browser.find_element(By.ID, "step-counter").text == f"Event {total} of {total}"
    body.send_keys(Keys.HOME)
    assert replay.get_attribute("data-kind") == "round_start"
    screenshot(browser, tmp_path / "replay.png")

    # The crashing entrant's page: its failure, by kind, with the game linked.
    browser.get((report / "index.html").as_uri())
    browser.find_element(By.LINK_TEXT, "broken-crash-in-game").click()
    wait_for(browser, "#failures-table")
    failures = dict(zip(column(browser, "failures-table", 0),
                        column(browser, "failures-table", 1), strict=True))
    assert int(failures["crash"]) >= 1
    assert browser.find_elements(By.CSS_SELECTOR, "#entrant-failures li a")
    assert "Points/round" in browser.find_element(By.ID, "entrant-hands-table").text


def test_the_report_needs_nothing_outside_its_folder(report):
    # No network: every src and href is relative and points at a file of the report.
    import re

    for page in report.rglob("*.html"):
        text = page.read_text()
        assert "http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "")
        assert "https://" not in text
        for ref in re.findall(r'(?:src|href)="([^"#]+)', text):
            assert (page.parent / ref).resolve().is_file(), (page, ref)


def hand_made_game() -> dict:
    """A short game whose first round has every special moment the viewer must show."""
    hands = [["Mahjong", "7j", "7s", "7p", "7t", "2j"], ["Dog", "3s", "4s"],
             ["Dragon", "Kj"], ["Phoenix", "5t"]]
    events = [{"kind": "round_start", "round": 1, "scores": [0, 0]}]
    events += [{"kind": "deal", "seat": s, "cards": h} for s, h in enumerate(hands)]
    events += [{"kind": "grand_tichu", "seat": 0, "call": True},
               {"kind": "exchange", "seat": 0, "given": ["2j"], "received": ["5t"]},
               {"kind": "tichu", "seat": 1},
               {"kind": "play", "seat": 0, "cards": ["Mahjong"], "combination": "single",
                "phoenix_as": None, "out_of_turn": False},
               {"kind": "wish", "seat": 0, "rank": "7"},
               {"kind": "play", "seat": 2, "cards": ["Dragon"], "combination": "single",
                "phoenix_as": None, "out_of_turn": False},
               {"kind": "play", "seat": 0, "cards": ["7j", "7s", "7p", "7t"],
                "combination": "four_bomb", "phoenix_as": None, "out_of_turn": True},
               {"kind": "wish_fulfilled", "seat": 0, "rank": "7"},
               {"kind": "trick", "seat": 0, "taker": 0, "cards": [], "points": 25},
               {"kind": "play", "seat": 1, "cards": ["Dog"], "combination": "dog",
                "phoenix_as": None, "out_of_turn": False},
               {"kind": "dog", "seat": 1, "to": 3},
               {"kind": "play", "seat": 2, "cards": ["Kj"], "combination": "single",
                "phoenix_as": None, "out_of_turn": False},
               {"kind": "trick", "seat": 3, "taker": 2, "cards": ["Dragon"], "points": 25},
               {"kind": "out", "seat": 2, "place": 1},
               {"kind": "round_end", "card_points": [50, 50], "calls": [-200, -100],
                "double_victory": False, "out_order": [2, 0, 3], "scores": [-150, -50]},
               {"kind": "game_end", "scores": [-150, -50], "winner": 1}]
    return {"game_id": "hand-made", "pair_id": "p", "seed": 1, "target": 100,
            "teams": ["north-south", "east-west"], "scores": [-150, -50], "winner": 1,
            "rounds": 1, "termination": "normal", "fault": None, "time_used": None,
            "isolation": "not recorded", "events": events}


def test_the_viewer_shows_calls_exchange_wish_bombs_dog_and_dragon(report, shared_browser,
                                                                   tmp_path):
    import base64
    import gzip
    import json

    browser = shared_browser

    site = tmp_path / "site"
    shutil.copytree(report, site)
    packed = base64.b64encode(gzip.compress(json.dumps(hand_made_game()).encode())).decode()
    (site / "games" / "hand-made.js").write_text(f'tichuReplay.add("hand-made", "{packed}");')
    browser.get((site / "replay.html").as_uri() + "#hand-made")
    wait_for(browser, "#step-counter")
    body = browser.find_element(By.TAG_NAME, "body")
    seen = []
    for _ in range(len(hand_made_game()["events"]) - 1):
        body.send_keys(Keys.ARROW_RIGHT)
        seen.append(browser.find_element(By.ID, "event-text").text)
        if "wishes" in seen[-1]:
            assert "wish: 7" in browser.find_element(By.ID, "trick").text
        if "exchange" in seen[-1] or "gives 2j" in seen[-1]:
            assert "Exchange: gave" in browser.find_element(By.ID, "seat-0").text
            assert shown_cards(browser, "#seat-0 [data-slot=given]") == ["2j"]
            assert shown_cards(browser, "#seat-0 [data-slot=received]") == ["5t"]
    text = "\n".join(seen)
    for expected in ("Seat 0 (north-south) calls GRAND TICHU!", "gives 2j",
                     "Seat 1 (east-west) calls TICHU!", "wishes for a 7", "BOMB, out of turn",
                     "fulfils the wish for a 7", "leads the Dog: the lead goes to Seat 3",
                     "wins the trick with the Dragon and gives it to Seat 2",
                     "goes out (place 1)", "Game over: -150 : -50; east-west wins."):
        assert expected in text, expected
    seat0 = browser.find_element(By.ID, "seat-0").text
    assert "Grand Tichu" in seat0 and "out #2" not in seat0
    assert "Tichu" in browser.find_element(By.ID, "seat-1").text


@pytest.mark.parametrize("width", [1280, 390])
def test_no_page_is_wider_than_the_window(report, shared_browser, width):
    """Wide tables (hand statistics, the crosstable) scroll in their own box: the page
    itself fits a 1280 px desktop window and a 390 px phone."""
    browser = shared_browser
    browser.set_window_size(width, 900)
    inner = browser.execute_script("return window.innerWidth")
    pages = ["index.html", "games.html", "replay.html",
             *sorted(p.relative_to(report).as_posix() for p in (report / "entrants").iterdir())]
    for page in pages:
        browser.get((report / page).as_uri())
        wide = browser.execute_script("return document.documentElement.scrollWidth")
        assert wide <= inner, (page, wide, inner)
