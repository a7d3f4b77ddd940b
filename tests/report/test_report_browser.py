"""The web report as a person uses it, in a real headless Chromium: open the standings, sort
a column, follow a game to its replay, step through it with the keyboard, visit an entrant.

The tournament is real: three bot processes per seat pair played by the referee, one of them
a hostile bot that crashes mid-game (tests/bots/broken, `crash_in_game`), so the report shows
a recorded forfeit with its kind, seat and replay.
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
from tests.tournament.conftest import copy_bot, write_config

pytestmark = pytest.mark.timeout(240)

BROKEN = Path(__file__).resolve().parents[1] / "bots" / "broken"


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    """A real round robin (random, heuristic, a bot that crashes in game) and its report."""
    folder = tmp_path_factory.mktemp("tournament")
    copy_bot("random", folder / "random")
    copy_bot("heuristic", folder / "heuristic")
    (folder / "broken").mkdir()
    shutil.copy(BROKEN / "broken.py", folder / "broken" / "broken.py")
    shutil.copytree(BROKEN / "crash_in_game", folder / "broken" / "crash_in_game")
    config = write_config(folder, ["random", "heuristic", "broken/crash_in_game"], games=2,
                          target=300)
    played = CliRunner().invoke(main, ["tournament", str(config), "--no-standings", "-j", "2"])
    assert played.exit_code == 0, played.output
    out = folder / "site"
    built = CliRunner().invoke(main, ["report", str(config), "-o", str(out)])
    assert built.exit_code == 0, built.output
    return out


def wait_for(driver, css: str):
    return WebDriverWait(driver, 20).until(lambda d: d.find_element(By.CSS_SELECTOR, css))


def column(driver, table: str, index: int) -> list[str]:
    return [row.find_elements(By.TAG_NAME, "td")[index].text
            for row in driver.find_elements(By.CSS_SELECTOR, f"#{table} tbody tr")]


def screenshot(driver, path: Path) -> None:
    """Save a screenshot and check that something was drawn: the window's size, and more
    than a blank page compresses to (about 5 KB at this size; a table page is 100 KB+)."""
    driver.save_screenshot(str(path))
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert width >= 1000 and height >= 700
    assert len(data) > 40_000


def test_a_person_reads_the_standings_sorts_and_replays_a_game(report, browser, tmp_path):
    browser.get((report / "index.html").as_uri())
    facts = browser.find_element(By.ID, "facts").text
    for text in ("Tournament", "Games", "6 stored", "Anchor", "random = 0", "Prior",
                 "Interval method", "Isolation", "not recorded"):
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
    assert len(browser.find_elements(By.CSS_SELECTOR, "#seat-0 .card")) == 14
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
                        column(browser, "failures-table", 1)))
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
