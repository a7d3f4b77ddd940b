"""A person plays a seat game in headless Chromium, on the page of `play_views.play_page`
and its script `assets/play.js`, at a phone's width (390 px) and a desktop's (1280 px), in
both themes: a real game (`play_harness`: the referee's wire maps, the house's heuristic bot
at the three other seats) played to its end by clicking and tapping.

Every kind of decision is drawn and answered by clicking (Grand Tichu, Tichu, the exchange
with who gets each card, a lead, a follow, a pass, the wish, the Dragon's gift, a bomb, a
bomb window skipped for the rest of its trick), each click making exactly the reply meant;
an illegal selection is refused with its rule and asked again; a reloaded page comes back to
its open decision; leaving ends the game. At every decision the page fits the window's width,
its buttons are thumb-sized, and its DOM holds no card hidden from the seat."""

from __future__ import annotations

import html
import json
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from arena.presentation.play_views import play_page
from arena.presentation.seat_view import sorted_cards
from arena.presentation.table_view import card_name
from tests.presentation.play_harness import Served
from tests.presentation.play_person import Intended, Kinds, Person
from tests.presentation.test_report_look import BACKGROUND, full_page_screenshot, set_theme

SEED, TARGET = 25, 500
"""A game of 48 decisions for the tests' person with every bomb window put to them, which
holds every kind of decision and a window the page declines after "skip" (found by playing
the same person against the same bots in-process)."""
FULL = (25, 1000, "ask")
"""A game to 1000 of 82 decisions for the person, with the windows of "ask", likewise."""
EVERY_KIND = {"call_tichu", "grand_tichu", "exchange", "tichu", "lead", "follow", "wish", "dragon_gift",
              "bomb", "skip"}
STEP = 60.0
"""A hang guard, not a claim: the longest one decision may take to come."""
STATE = """var root = document.getElementById('play'),
  box = document.getElementById('play-decision');
return [root.getAttribute('data-state'), root.getAttribute('data-request'),
        box.hidden ? null : box.getAttribute('data-kind')];"""
SEEN = """var cards = [];
document.body.querySelectorAll('[data-card]').forEach(function (c) {
  cards.push(c.getAttribute('data-card')); });
return [cards, document.body.innerText];"""
SMALL = """var small = [];
document.querySelectorAll('#play-decision button, #play-hand .pick, #play-leave').forEach(
  function (b) { var r = b.getBoundingClientRect();
    if (r.width && (r.width < 40 || r.height < 40)) small.push(b.id || b.className); });
return small;"""


@pytest.fixture
def table(shared_browser: Any) -> Iterator[tuple[Any, list[Served]]]:
    """The browser, and the seat games a test serves (closed after it)."""
    served: list[Served] = []
    yield shared_browser, served
    for s in served:
        s.close()


def wait(what: str, ready: Callable[[], Any]) -> Any:
    deadline = time.monotonic() + STEP
    while time.monotonic() < deadline:
        value = ready()
        if value:
            return value
        time.sleep(0.03)
    raise AssertionError(f"waited in vain for {what}")


def open_decision(driver: Any, served: Served) -> dict[str, Any] | None:
    """The request the page shows the person, once it shows it; None once the game ended."""
    def ready() -> Any:
        state, shown, kind = driver.execute_script(STATE)
        if state in ("over", "left", "failed"):
            return "over"
        request = served.game.open_request()
        if kind and request is not None and shown == str(request["id"]):
            return request
        return None
    found = wait("a decision or the end", ready)
    return None if found == "over" else found


def click(driver: Any, css: str) -> None:
    driver.find_element(By.CSS_SELECTOR, css).click()


def tap_cards(driver: Any, cards: list[str], keyboard: bool = False) -> None:
    for card in cards:
        pick = driver.find_element(By.CSS_SELECTOR, f'#play-hand .pick[data-card="{card}"]')
        if keyboard:
            pick.send_keys(Keys.SPACE)  # a button: focus it, Space presses it
        else:
            pick.click()


def answer(driver: Any, request: dict[str, Any], meant: Intended, keyboard: bool) -> None:
    """Make the reply `meant` by clicking, as a person would."""
    kind, action = request["kind"], meant.action
    if kind in ("grand_tichu", "tichu"):
        click(driver, "#play-call" if action["call"] else "#play-no-call")
    elif kind == "exchange":
        give = action["give"]
        tap_cards(driver, give, keyboard)
        click(driver, "#play-give-0")  # taken back: the next card tapped goes to that seat
        tap_cards(driver, give[:1], keyboard)
        slots = [e.get_attribute("data-card") for e in driver.find_elements(
            By.CSS_SELECTOR, "#play-exchange .give .card")]
        assert slots == give, (slots, give)
        if meant.call_tichu:
            click(driver, "#play-call-tichu")
        click(driver, "#play-give")
    elif kind == "dragon_gift":
        click(driver, f"#play-dragon-{request['options'].index(action)}")
    elif meant.skip:
        click(driver, "#play-skip")
    elif action["action"] == "pass":
        click(driver, "#play-pass")
    else:
        play(driver, request, meant, keyboard)


def reply_to(driver: Any, served: Served, request: dict[str, Any], meant: Intended,
             keyboard: bool) -> dict[str, Any]:
    """Answer `request` by clicking; the reply the referee got."""
    before = len(served.game.replies)
    answer(driver, request, meant, keyboard)
    wait("the reply", lambda: len(served.game.replies) > before)
    return served.game.replies[before]


def play(driver: Any, request: dict[str, Any], meant: Intended, keyboard: bool) -> None:
    """A play: a bomb chosen from the plays offered, any other by tapping its cards."""
    index = request["options"].index(meant.action)
    if request["kind"] == "bomb":
        click(driver, f'#play-options .option[data-option="{index}"]')
    else:
        tap_cards(driver, meant.action["cards"], keyboard)
    phoenix = driver.find_elements(By.ID, "play-phoenix")
    if phoenix:
        Select(phoenix[0]).select_by_value(str(index))
    if meant.wish:
        Select(driver.find_element(By.ID, "play-wish")).select_by_value(meant.wish)
    click(driver, "#play-play")


def refused_once(driver: Any, served: Served, request: dict[str, Any]) -> bool:
    """At a lead holding two suited cards of different ranks: play those two, which form no
    combination; the page shows the server's rule, still asks, and no reply was made."""
    suited = [c for c in sorted_cards(request["observation"]["hand"]) if len(c) == 2]
    if len(suited) < 2 or suited[0][0] == suited[-1][0]:
        return False
    replies = len(served.game.replies)
    tap_cards(driver, [suited[0], suited[-1]])
    click(driver, "#play-play")
    error = wait("the refusal", lambda: driver.find_element(By.ID, "play-error").text)
    assert error.startswith("that play is not allowed: "), error
    assert served.game.refusals and served.game.refusals[-1][1] in error
    assert driver.find_element(By.ID, "play-decision").get_attribute("data-kind") == "play"
    assert len(served.game.replies) == replies
    click(driver, "#play-clear")
    return True


def check_page(driver: Any, served: Served) -> int:
    """No sideways scroll, thumb-sized buttons, no card the seat may not see in the page
    or in the messages of this round it was sent (cards of its hands of earlier rounds are
    others' now); how many cards are hidden from the seat now."""
    wide, inner = driver.execute_script(
        "return [document.documentElement.scrollWidth, window.innerWidth]")
    assert wide <= inner, (wide, inner)
    assert not driver.execute_script(SMALL)
    cards, text = driver.execute_script(SEEN)
    hidden = served.game.hidden()
    assert not hidden & set(cards), hidden & set(cards)
    named = [card_name(c) for c in hidden if len(c) == 2]
    assert not [n for n in named if n in text], named
    sent = json.dumps(served.game.this_round())
    assert not [c for c in hidden if f'"{c}"' in sent]
    return len(hidden)


def console_errors(driver: Any) -> list[str]:
    """The console's errors, less the expected 400 of the refused play."""
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"
            and "status of 400" not in e["message"]]


def play_game(driver: Any, served: Served, keyboard: bool,
              reload_at: int = 10) -> Kinds:
    """Play the served game to its end by clicking; the kinds of decision it asked."""
    person, kinds, refused, asked, hiding = Person(), Kinds(), False, 0, 0
    while (request := open_decision(driver, served)) is not None:
        hiding += check_page(driver, served) > 0
        if asked == reload_at:  # a closed tab comes back: the page redraws from the stream
            hand = request["observation"]["hand"]
            driver.refresh()
            assert open_decision(driver, served) == request
            shown = [e.get_attribute("data-card") for e in
                     driver.find_elements(By.CSS_SELECTOR, "#play-hand .pick")]
            assert shown == sorted_cards(hand)
        if not refused and request["kind"] == "play" and request["observation"]["table"] is None:
            refused = refused_once(driver, served, request)
        if request["kind"] == "bomb":  # after "skip", the page declines the trick's windows
            assert not person.skipping(served.game.events())
        meant = person.intended(request, served.game.events())
        kinds.add(request, meant)
        reply = reply_to(driver, served, request, meant,
                         keyboard and request["kind"] == "exchange")
        assert (reply["action"], reply["call_tichu"], reply["wish"]) == (
            meant.action, meant.call_tichu, meant.wish), (reply, meant)
        asked += 1
    assert refused
    assert hiding > asked // 2  # the check had cards to find (at most decisions)
    return kinds


@pytest.mark.parametrize(("width", "theme", "seed", "target", "windows"),
                         [(390, "dark", SEED, TARGET, "every"), (1280, "light", *FULL)])
def test_a_person_plays_a_whole_game_by_clicking(table: tuple[Any, list[Served]], width: int,
                                                 theme: str, seed: int, target: int,
                                                 windows: str, tmp_path: Path) -> None:
    """Every kind of decision, answered by clicking (the exchange by keyboard at 390 px), to
    the game's end: the result and the replay's link, the record's score; after "skip", the
    page declined its trick's next window itself."""
    driver, served = table
    served.append(game := Served(seed, target, bomb_windows=windows))
    driver.set_window_size(width, 900)
    set_theme(driver, theme)
    driver.get(game.url)
    assert driver.execute_script(
        "return getComputedStyle(document.body).backgroundColor") == BACKGROUND[theme]
    kinds = play_game(driver, game, keyboard=width == 390)
    assert set(kinds.seen) >= EVERY_KIND, kinds.seen
    assert game.game.posted > sum(kinds.seen.values())  # the windows declined after skip
    wait("the result", lambda: driver.find_element(By.ID, "play-result").is_displayed())
    end = game.game.messages[-1]
    assert end["type"] == "end" and game.game.state == "over"
    ours = end["scores"][0]
    text = driver.find_element(By.ID, "play-result-text").text
    assert f"{ours} to {end['scores'][1]}" in text, text
    link = wait("the replay's link", lambda: driver.find_element(By.ID, "play-replay"))
    assert link.get_attribute("href").endswith("/replay/seat-1")
    full_page_screenshot(driver, tmp_path / f"over-{width}-{theme}.png", width)
    assert not console_errors(driver)


@pytest.mark.parametrize(("width", "theme"), [(390, "light"), (1280, "dark")])
def test_the_table_fits_and_leaving_ends_the_game(table: tuple[Any, list[Served]], width: int,
                                                  theme: str, tmp_path: Path) -> None:
    """The first decisions in the other two looks, over a stream the server cuts every two
    messages (the page goes on from its `Last-Event-ID`, every message taken); then the
    person leaves: the game ends as left, and the page says so."""
    driver, served = table
    served.append(game := Served(SEED, TARGET, bomb_windows="never", cut=2))
    driver.set_window_size(width, 900)
    set_theme(driver, theme)
    driver.get(game.url)
    person = Person()
    for _ in range(3):  # Grand Tichu, the exchange, Tichu
        request = open_decision(driver, game)
        assert request is not None
        check_page(driver, game)
        full_page_screenshot(driver, tmp_path / f"{request['kind']}-{width}-{theme}.png", width)
        reply_to(driver, game, request, person.intended(request, game.game.events()), False)
    assert open_decision(driver, game) is not None
    assert game.resumed and all(start > 0 for start in game.resumed)
    taken = driver.execute_script("return document.getElementById('play')"
                                  ".getAttribute('data-messages')")
    assert taken == str(len(game.game.messages))
    click(driver, "#play-leave")
    driver.switch_to.alert.accept()
    wait("the game's end", lambda: game.game.state == "left")
    wait("the page's word", lambda: driver.find_element(By.ID, "play-result").is_displayed())
    assert "You left the game." in driver.find_element(By.ID, "play-status").text
    assert not console_errors(driver)


def test_the_page_holds_no_card_and_escapes_names() -> None:
    """The page as written: its data attributes, no card outside the faces' template (the
    56 faces every page draws from), every name escaped."""
    page = play_page(7, "You & <b>x</b>", "/play/7/events", "/play/7/answer", "/play/7/leave",
                     "tok", 2, ["a", "<script>", "c", "d"], "never")
    assert 'data-seat="2"' in page and 'data-answer="/play/7/answer"' in page
    assert "<script>" not in page.replace('<script src="/assets/', "")
    outside = page.split('<template id="card-faces">')[0]
    assert "data-card" not in outside
    assert "Bomb windows (never): you are never asked" in page
    assert "Bomb windows" not in play_page(7, "t", "e", "a", "l", "c", 0, "abcd")


def test_the_page_names_the_four_seats_before_any_message() -> None:
    """The seats' names are in the page as a JSON list, whatever a name holds, so the table
    names every seat before the welcome (a game that fails before it showed 'undefined')."""
    names = ["carol", 'a "quoted" bot', "tab\there", "<b>"]
    page = play_page(7, "t", "/e", "/a", "/l", "c", 0, names)
    found = re.search(r'data-names="([^"]*)"', page)
    assert found is not None and json.loads(html.unescape(found[1])) == names
