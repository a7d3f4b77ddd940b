"""Issue 50's "done when", in headless Chromium against a real server: a person starts a game
from a bot's page (their token typed once, in the form), plays it to 1000 by clicking, at a
phone's width (390 px) and a desktop's (1280 px), in both themes, against two league bots
(random) with a third as partner (heuristic); the game is then among the practice games,
with its replay. At every decision the page's DOM holds no card the seat could not see (what
its stream had shown it: test_play.py checks that stream against the record); once, the
page is reloaded and comes back to its open decision; once, an illegal play is refused with
its rule. The person's choices are the page tests' (`play_person.Person`)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from arena.presentation.seat_view import sorted_cards
from tests.league.conftest import League, free_port, write_config
from tests.league.test_play import EXTRA, Person, hidden_cards_seen
from tests.presentation.conftest import browser  # noqa: F401 (a fixture)
from tests.presentation.play_person import Person as Chooser
from tests.presentation.test_play_page import SEEN, SMALL, STATE, answer, tap_cards
from tests.presentation.test_report_look import BACKGROUND, set_theme

pytestmark = pytest.mark.timeout(1800)

TARGET = 1000
STEP = 120.0
"""A hang guard, not a claim: the longest one decision may take to come."""
FINAL = ("over", "left", "failed")


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Iterator[League]:
    """A league whose games go to 1000 (the issue's), two seat games at once."""
    folder = tmp_path_factory.mktemp("play-browser")
    config = write_config(folder, extra=EXTRA.replace("human_games = 1", "human_games = 2"))
    config.write_text(config.read_text().replace("target = 100\n", f"target = {TARGET}\n", 1))
    served = League(folder, config, free_port())
    served.start()
    try:
        yield served
    finally:
        assert served.stop() == 0, served.log()


def wait(what: str, ready: Any) -> Any:
    deadline = time.monotonic() + STEP
    while time.monotonic() < deadline:
        if value := ready():
            return value
        time.sleep(0.05)
    raise AssertionError(f"waited in vain for {what}")


class Watcher:
    """The seat's stream, read beside the page's with the same token: what the page was
    sent, to know the open request and what the seat may see."""

    def __init__(self, person: Person, practice: int) -> None:
        self.messages: list[dict[str, Any]] = []
        self.thread = threading.Thread(target=self._read, args=(person, practice),
                                       daemon=True)
        self.thread.start()

    def _read(self, person: Person, practice: int) -> None:
        for kind, data in person.events(practice):
            if kind == "message":
                self.messages.append(data)
            elif kind == "status" and data["state"] in FINAL:
                return

    def request(self, request_id: int) -> dict[str, Any] | None:
        return next((m for m in list(self.messages) if m["type"] == "request"
                     and m["id"] == request_id), None)

    def until(self, request: dict[str, Any]) -> list[dict[str, Any]]:
        messages = list(self.messages)
        return messages[:messages.index(request) + 1]


def start_in_browser(driver: Any, league: League, token: str) -> int:
    """The bot page's play form, filled and sent: the game's id, from the page's URL."""
    driver.get(f"{league.url}/bots/random")
    form = driver.find_element(By.ID, "play-form")
    Select(form.find_element(By.NAME, "partner")).select_by_value("heuristic")
    Select(form.find_element(By.NAME, "bomb_windows")).select_by_value("ask")
    form.find_element(By.NAME, "token").send_keys(token)
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait("the game's page", lambda: "/play/" in driver.current_url)
    assert token not in driver.current_url
    return int(driver.current_url.rstrip("/").rsplit("/", 1)[1])


def shown(driver: Any, watcher: Watcher) -> dict[str, Any] | str:
    """The request the page asks, once it asks one; "over" once the game ended."""
    def ready() -> Any:
        state, request_id, kind = driver.execute_script(STATE)
        if state in FINAL:
            return "over"
        if kind and request_id and request_id.isdigit():
            return watcher.request(int(request_id))
        return None
    found: dict[str, Any] | str = wait("a decision or the end", ready)
    return found


def check_page(driver: Any, watcher: Watcher, request: dict[str, Any], width: int) -> None:
    """No sideways scroll, thumb-sized buttons, no card the seat could not see."""
    wide, inner = driver.execute_script(
        "return [document.documentElement.scrollWidth, window.innerWidth]")
    assert wide <= inner, (wide, inner)
    assert not driver.execute_script(SMALL)
    cards, _ = driver.execute_script(SEEN)
    assert hidden_cards_seen([*watcher.until(request), {"page": cards}], 0) == []


def refuse_once(driver: Any, request: dict[str, Any]) -> bool:
    """At a lead with two suited cards of different ranks: play them (no combination); the
    page shows the server's rule and still asks."""
    suited = [c for c in sorted_cards(request["observation"]["hand"]) if len(c) == 2]
    if len(suited) < 2 or suited[0][0] == suited[-1][0]:
        return False
    tap_cards(driver, [suited[0], suited[-1]])
    driver.find_element(By.ID, "play-play").click()
    error = wait("the refusal", lambda: driver.find_element(By.ID, "play-error").text)
    assert error.startswith("that play is not allowed: "), error
    driver.find_element(By.ID, "play-clear").click()
    return True


def play_to_the_end(driver: Any, watcher: Watcher, width: int) -> int:
    """Answer every decision by clicking; the number answered."""
    chooser, asked, refused = Chooser(), 0, False
    while isinstance(request := shown(driver, watcher), dict):
        check_page(driver, watcher, request, width)
        if asked == 5:  # a closed tab comes back: the page redraws from the stream
            driver.refresh()
            assert shown(driver, watcher) == request
        if not refused and request["kind"] == "play" and \
                request["observation"]["table"] is None:
            refused = refuse_once(driver, request)
        events = [e for m in watcher.until(request) for e in m.get("events") or ()]
        answer(driver, request, chooser.intended(request, events), keyboard=False)
        wait("the answer taken", lambda: driver.execute_script(STATE)[1] != str(request["id"])
             or driver.execute_script(STATE)[0] in FINAL)
        asked += 1
    assert refused
    return asked


@pytest.mark.parametrize(("width", "theme"), [(390, "dark"), (1280, "light")])
def test_a_person_plays_a_game_to_1000_by_clicking_against_league_bots(
        league: League, browser: Any, width: int, theme: str, tmp_path: Path):  # noqa: F811
    token = league.invite(f"player{width}")
    browser.set_window_size(width, 900)
    practice = start_in_browser(browser, league, token)
    set_theme(browser, theme)
    browser.refresh()
    assert browser.execute_script(
        "return getComputedStyle(document.body).backgroundColor") == BACKGROUND[theme]
    watcher = Watcher(Person(league, token), practice)
    asked = play_to_the_end(browser, watcher, width)
    wait("the result", lambda: browser.find_element(By.ID, "play-result").is_displayed())
    end = watcher.messages[-1]
    assert end["type"] == "end" and end["reason"] == "game_over" and max(end["scores"]) >= TARGET
    text = browser.find_element(By.ID, "play-result-text").text
    assert f"{end['scores'][0]} to {end['scores'][1]}" in text, text
    link = wait("the replay's link", lambda: browser.find_element(By.ID, "play-replay"))
    assert link.get_attribute("href").endswith(f"/practice/{practice}/replay")
    found = league.get(f"/api/practice/{practice}", token)
    record = found["game"]["record"]
    assert found["status"] == "done" and record["guest"]["seat"] == 0
    assert record["termination"] == "normal" and record["scores"] == end["scores"]
    assert sum(d["seat"] == 0 for d in record["decisions"]) >= asked
    assert hidden_cards_seen(watcher.messages, 0) == []
    browser.get(league.url + link.get_attribute("href").split(league.url, 1)[-1])
    assert "replay" in browser.title.lower()
    print(f"{width} px: {asked} decisions clicked, the game {record['scores']}")
