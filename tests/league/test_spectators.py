"""What a spectator sees of a league's games, in headless Chromium at a phone's width (390 px)
and a desktop's (1280 px), against a real `arena league serve` process: a game watched live
plays to its end (its last tricks, the final score, the winner) and links to its replay; a
finished game's live link lands on its replay; a replay opens at its top on the first hands
dealt; a crashed game's replay ends with the fault (its bot's output to the organizer only);
pages are titled "A vs B, game 3.1"; the games and live lists name the entrants with their
versions, a score on one line and a short time. Every page fits the window's width.

The league of this module plays a slow bot (a random bot that waits a little at each
decision, so that a game lasts seconds and can be watched) that crashes now and then (at a
random play, from its seat's seed) against the random bot."""

from __future__ import annotations

import base64
import gzip
import re
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from tests.league.conftest import League, bot_copy, request, served, wait_for
from tests.presentation.conftest import module_browser  # noqa: F401 (a fixture)

WIDTHS = (390, 1280)
MARK = "spect-boom-7f3a"
"""What the slow bot writes to stderr as it crashes: its output, which only the organizer
(or its author) may see on the replay."""
SLOW_BOT = f'''import sys
import time

from protocol.sdk import Bot, choose, exchange, run


class SlowBot(Bot):
    """A random bot that waits at each decision and crashes at about one play in 80."""

    name = "slowpoke"
    version = "2.5.0"

    def decide(self, request):
        time.sleep(0.04)
        rng = self.rng
        if request["kind"] == "exchange":
            return exchange(rng.sample(request["observation"]["hand"], 3))
        if request["kind"] in ("grand_tichu", "tichu"):
            return choose(0)
        if request["kind"] == "play" and rng.random() < 0.0125:
            print("about to fail: {MARK}", file=sys.stderr, flush=True)
            raise RuntimeError("{MARK}")
        return choose(rng.randrange(len(request["options"])))


if __name__ == "__main__":
    sys.exit(run(SlowBot()))
'''


@pytest.fixture(scope="module")
def spectated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[League]:
    """A league of its own: the slow bot (house) against the random bot."""
    folder = tmp_path_factory.mktemp("spectated")
    slow = bot_copy(folder / "slowpoke", "slowpoke", SLOW_BOT)
    manifest = slow / "bot.toml"
    manifest.write_text(manifest.read_text().replace('version = "1.0.0"', 'version = "2.5.0"'))
    (folder / "league").mkdir()
    with served(folder / "league", house=("random", str(slow))) as league:
        yield league


@pytest.fixture
def browser(module_browser: Any, spectated: League) -> Iterator[Any]:  # noqa: F811
    """The module's Chromium as a fresh one is: no cookie, a blank page, its console read."""
    driver = module_browser
    driver.get("about:blank")
    driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    driver.get_log("browser")
    yield driver


def fits(driver: Any, what: str) -> None:
    """No sideways scrolling of the page, and no error in the console."""
    wide, inner = driver.execute_script(
        "return [document.scrollingElement.scrollWidth, window.innerWidth]")
    assert wide <= inner, (what, wide, inner)
    errors = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, (what, errors)


def stored(league: League, game_id: str) -> dict[str, Any]:
    return league.get(f"/api/games/{quote(game_id, safe='')}")


def live_game(league: League) -> str | None:
    """The id of a game in progress with at least a few seconds to go (its first round)."""
    folder = league.folder / "league.sqlite.live"
    for path in folder.glob("*.json"):
        try:
            if '"round_end"' not in path.read_text():
                return path.name.removesuffix(".json")
        except OSError:  # it ended meanwhile
            continue
    return None


def some_game(league: League, crashed: bool) -> dict[str, Any]:
    """A stored game that ended by the slow bot's crash, or one that ended normally."""
    def found() -> dict[str, Any] | None:
        games = league.get("/api/games?limit=200")["games"]
        return next((g for g in games if (g["termination"] == "crash") == crashed), None)
    return wait_for("a crashed game" if crashed else "a normal game", found)


def title_of(league: League, game: dict[str, Any]) -> str:
    """The title the pages give `game`: "A 1.0.0 1234abcd vs B ..., game 3.1"."""
    versions = {v["key"]: f"{name} {v['version']} {v['hash'][:8]}"
                for name in ("random", "slowpoke")
                for v in league.get(f"/api/bots/{name}")["versions"]}
    teams = [versions[k] for k in game["teams"]]
    return f"{teams[0]} vs {teams[1]}, game {game['pair_index']}.{game['game_index']}"


# ----- live ---------------------------------------------------------------------------------

@pytest.mark.parametrize("width", WIDTHS)
def test_a_game_watched_live_plays_to_its_end_then_links_to_its_replay(
        spectated: League, browser: Any, width: int) -> None:
    """The page shows the score the game ended with (on the table and in its last line),
    its winner, and a link that opens the replay. The server's spectators' file is gone as
    the game ends: the end comes from the stored game."""
    browser.set_window_size(width, 900)
    for _ in range(5):  # a game may end between its file's read and its page's
        game_id = wait_for("a game in its first round", lambda: live_game(spectated), 120)
        browser.get(f"{spectated.url}/live/{quote(game_id, safe='')}")
        if browser.find_elements(By.ID, "live-title"):
            break
    assert browser.find_element(By.ID, "live-title").text.startswith("Live: ")
    wait_for("the end shown", lambda: browser.find_elements(By.CSS_SELECTOR, "#live.over"), 120)
    game = stored(spectated, game_id)
    final = f"{game['scores'][0]} : {game['scores'][1]}"
    assert browser.find_element(By.CSS_SELECTOR, "#trick [data-slot=scores]").text == final
    said = browser.find_element(By.ID, "live-over").text
    assert f"{game['scores'][0]} – {game['scores'][1]}" in said, said
    winner = ("random", "slowpoke")[game["teams"][game["winner"]].startswith("slowpoke")]
    assert re.search(rf"\b{winner} [0-9.]+ [0-9a-f]{{8}} wins\.", said), (said, game)
    if game["termination"] == "crash":
        assert "forfeited: crash in round" in said, said
    fits(browser, f"live {width}")
    browser.find_element(By.ID, "live-replay").click()
    wait_for("the replay", lambda: browser.find_elements(By.ID, "step-counter"), 60)
    assert browser.current_url.endswith(f"/games/{quote(game_id, safe='')}")


def test_the_live_link_of_a_finished_game_lands_on_its_replay(spectated: League,
                                                              browser: Any) -> None:
    game = some_game(spectated, crashed=False)
    browser.get(f"{spectated.url}/live/{quote(game['id'], safe='')}")
    wait_for("the replay", lambda: browser.find_elements(By.ID, "step-counter"), 60)
    assert browser.current_url == spectated.url + game["replay"]
    assert browser.find_element(By.ID, "replay-title").text == title_of(spectated, game)


# ----- replays ------------------------------------------------------------------------------

@pytest.mark.parametrize("width", WIDTHS)
def test_a_replay_opens_at_its_top_on_the_first_hands_dealt(spectated: League,
                                                            browser: Any, width: int) -> None:
    browser.set_window_size(width, 900)
    game = some_game(spectated, crashed=False)
    browser.get(spectated.url + game["replay"])
    wait_for("the replay", lambda: browser.find_elements(By.ID, "step-counter"), 60)
    seen = browser.execute_script("""
        return {y: window.scrollY, kind: document.getElementById('replay').dataset.kind,
                title: document.title, h1: document.getElementById('replay-title').textContent,
                counts: [0, 1, 2, 3].map(s => document.querySelector(
                  '#seat-' + s + ' [data-slot=count]').textContent),
                cards: [0, 1, 2, 3].map(s => document.querySelectorAll(
                  '#seat-' + s + ' .hand .card').length)};""")
    assert seen["y"] == 0, seen
    assert seen["kind"] == "deal", seen
    assert seen["counts"] == ["8"] * 4 and seen["cards"] == [8] * 4, seen  # before Grand Tichu
    assert seen["title"] == seen["h1"] == title_of(spectated, game), seen
    fits(browser, f"replay {width}")


@pytest.mark.parametrize("width", WIDTHS)
def test_a_crashed_games_replay_ends_with_the_fault(spectated: League, browser: Any,
                                                    width: int) -> None:
    """The last event names the seat, its bot, the kind, the round and the decision; the
    bot's output is not on the public page (nor in its data), and is there for the organizer
    after the page's form is sent with their token."""
    browser.set_window_size(width, 900)
    game = some_game(spectated, crashed=True)
    fault = stored(spectated, game["id"])["record"]["fault"]
    browser.get(spectated.url + game["replay"])
    wait_for("the replay", lambda: browser.find_elements(By.ID, "step-counter"), 60)
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
    said = browser.find_element(By.ID, "fault-detail").text
    assert browser.find_element(By.ID, "replay").get_attribute("data-kind") == "fault"
    assert (f"Seat {fault['seat']} (slowpoke 2.5.0 " in said
            and f"forfeits: crash in round {fault['round']}, decision {fault['decision']}"
            in said), said
    assert MARK not in browser.page_source, "the bot's output is on the public page"
    fits(browser, f"fault {width}")
    form = browser.find_element(By.ID, "output-form")
    form.find_element(By.NAME, "token").send_keys(
        spectated.organizer()["Authorization"].split()[1])
    browser.execute_script("window.notReloaded = true;")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for("the replay again", lambda: browser.execute_script(
        "return !window.notReloaded && document.getElementById('step-counter') !== null;"), 60)
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
    output = browser.find_element(By.CSS_SELECTOR, "#fault-detail pre.output").text
    assert MARK in output and "RuntimeError" in output, output
    assert not browser.find_elements(By.ID, "output-form")
    fits(browser, f"fault signed in {width}")


def replay_as(league: League, game_id: str, token: str) -> tuple[str, int, str]:
    """A crashed game's replay page as anyone sees it, then the answer to its form sent
    with `token` (and the CSRF cookie and field the page set)."""
    path = f"{league.url}/games/{quote(game_id, safe='')}"
    with urllib.request.urlopen(path, timeout=60) as response:
        cookie = response.headers["set-cookie"].split(";")[0]
        public = response.read().decode()
    body = urllib.parse.urlencode({"csrf": cookie.partition("=")[2], "token": token})
    status, page = request(path, body.encode(), {
        "Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"}, "POST")
    return public, status, str(page)


def test_a_failed_bots_output_is_its_authors_only_on_a_real_server(spectated: League
                                                                   ) -> None:
    """The attack: another author (mallory) reads the house bot's stderr from its replay
    page, its form or its data. The control: the organizer (the house bots' author) does."""
    game = some_game(spectated, crashed=True)
    public, status, page = replay_as(spectated, game["id"], spectated.invite("mallory"))
    assert status == 200 and MARK not in public and MARK not in page
    assert 'id="output-form"' in page  # still offered: mallory is not its author
    script = request(f"{spectated.url}/replays/{quote(game['id'], safe='')}.js")[1]
    packed = re.fullmatch(r'tichuReplay\.add\("[^"]*", "([^"]*)"\);\n', script)
    assert packed, script[:200]
    data = gzip.decompress(base64.b64decode(packed.group(1))).decode()
    assert '"failures":[{"seat":' in data and MARK not in data
    _, status, page = replay_as(spectated, game["id"],
                                spectated.organizer()["Authorization"].split()[1])
    assert status == 200 and MARK in page and 'id="output-form"' not in page


# ----- lists --------------------------------------------------------------------------------

@pytest.mark.parametrize("width", WIDTHS)
def test_the_games_and_live_lists_name_the_entrants_with_one_line_scores(
        spectated: League, browser: Any, width: int) -> None:
    browser.set_window_size(width, 900)
    some_game(spectated, crashed=False)
    browser.get(spectated.url + "/games")
    rows = browser.execute_script("""
        return Array.from(document.querySelectorAll('#games-table tbody tr')).map(tr => ({
          game: tr.cells[0].textContent, finished: tr.cells[3].textContent,
          score: tr.querySelector('.score').textContent,
          lines: tr.querySelector('.score').getClientRects().length,
          high: tr.querySelector('.score').getBoundingClientRect().height,
          line: parseFloat(getComputedStyle(tr.querySelector('.score')).lineHeight)}));""")
    assert rows
    for row in rows:
        assert re.fullmatch(r"(random|slowpoke) \S+ [0-9a-f]{8} vs (random|slowpoke) \S+ "
                            r"[0-9a-f]{8}game \d+\.[01](, \d+ rounds?)?", row["game"]), row
        assert re.fullmatch(r"\d+ – -?\d+|-?\d+ – -?\d+", row["score"]), row
        assert row["lines"] == 1 and row["high"] < 1.5 * row["line"], row  # one line
        assert re.fullmatch(r"just now|\d+ min ago|\d\d:\d\d", row["finished"]), row
    fits(browser, f"games {width}")
    wait_for("a game in progress", lambda: live_game(spectated), 120)
    browser.get(spectated.url + "/live")
    listed = [r.text for r in browser.find_elements(By.CSS_SELECTOR, "#live-games tbody tr")]
    if listed:  # (the game may have ended before the page was asked for)
        assert re.search(r"(random|slowpoke) \S+ [0-9a-f]{8} vs ", listed[0]), listed
        assert re.search(r"\d+ – \d+", listed[0]), listed
    fits(browser, f"live list {width}")


def test_a_page_for_a_game_never_played_links_to_where_its_replay_would_be(
        spectated: League, browser: Any) -> None:
    game_id = "nobody@0~none@1#3.1"
    browser.get(f"{spectated.url}/live/{quote(game_id, safe='')}")
    link = browser.find_element(By.ID, "replay-link")
    assert link.get_attribute("href") == f"{spectated.url}/games/{quote(game_id, safe='')}"
    said = browser.find_element(By.TAG_NAME, "main").text
    assert f"Game {game_id} is not in progress" in said, said

