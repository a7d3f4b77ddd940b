"""Practice games against a real server: an author asks for an unrated game of their bot
against an active entrant, watches it pushed live (public events only), opens its replay;
it is stored, but no league table, game list or pair count holds it; every refusal gets its
status code and records nothing; `arena practice` and the bot page's form do the same, and
both say whose bot failed (the command exits 1 if the author's did); one cut short by kill -9
is played at the next start."""

from __future__ import annotations

import html
import json
import re
import shlex
import signal
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from arena.league.privacy import HIDDEN
from arena.rules.events import PUBLIC
from arena.tournament.schedule import Deals
from tests.league.conftest import (
    PRACTICE_PER_DAY,
    League,
    arena,
    bot_copy,
    database,
    request,
    wait_for,
)
from tests.presentation.conftest import browser  # noqa: F401 (a fixture)
from tests.presentation.test_report_look import fits_and_is_clean, full_page_screenshot

LIMIT = PRACTICE_PER_DAY
SLOW_BOT = (Path(__file__).resolve().parents[2] / "bots" / "random" / "bot.py").read_text(
).replace("    def decide(self, request):\n",
          "    def decide(self, request):\n        __import__('time').sleep(0.05)\n")
"""The random bot, a little slower at each decision: its games last long enough to watch."""


FRAGILE_BOT = (Path(__file__).resolve().parents[2] / "bots" / "random" / "bot.py").read_text(
).replace("    def decide(self, request):\n", """    def decide(self, request):
        self.decided = getattr(self, "decided", 0) + 1
        names = " ".join(self.welcome["settings"]["names"])
        if self.decided == 3 and ("heuristic" in names or "calm" in names):
            print("cara-bot at its third decision", file=sys.stderr, flush=True)
            raise RuntimeError("cara-bot gives up")
""")
"""The random bot, crashing at its third decision of a game against the heuristic bot or a
bot named "...calm...": its check game (against the random bot) passes."""

SLOW_BOTS = ("pat-bot", "ruth-bot", "quinn-bot", "cara-bot", "cara-calm")
"""The bots this module uploads to the shared league (cara's are not slow, but crash)."""


@pytest.fixture(scope="module", autouse=True)
def _slow_bots_leave_with_this_module(league: League) -> Iterator[None]:
    """This module's slow bots out of the shared league's rated games after its last test
    here: a game of one of them lasts 2 to 8 s, and the later tests' bots waited behind those
    (test_rebuild: 32 s, against 9 s alone); and back in if this worker had taken part of
    this module's tests before (pytest-xdist may split a module)."""
    organizer = league.organizer("oscar")  # a name of its own: another invite revokes it

    def organize(name: str, action: str) -> int:
        status, body = request(f"{league.url}/api/bots/{name}/{action}", b"", organizer, "POST")
        assert status in (200, 404), body  # 404: not uploaded (yet)
        return status

    back = [name for name in SLOW_BOTS if organize(name, "enable") == 200]
    wait_for("the slow bots back in the table", lambda: set(back) <= set(league.standings()))
    yield
    for name in SLOW_BOTS:
        organize(name, "disable")


@pytest.fixture(scope="module")
def tokens(league: League) -> dict[str, str]:
    return {author: league.invite(author) for author in ("pat", "ruth", "cara")}


def ready(league: League, tokens: dict[str, str], author: str, tmp_path: Path,
          name: str = "", body: str | None = SLOW_BOT) -> str:
    """`author`'s bot `name` (default AUTHOR-bot) of `body` (a slow random bot; None: the
    random bot), uploaded and active."""
    name = name or f"{author}-bot"
    if name not in league.standings():
        result = league.upload(bot_copy(tmp_path / name, name, body), tokens[author])
        assert result.returncode == 0, result.stdout + result.stderr
    wait_for(f"{name} in the table", lambda: name in league.standings())
    return name


def ask(league: League, token: str | None, body: object) -> tuple[int, dict]:
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    status, answer = request(league.url + "/api/practice", json.dumps(body).encode(), headers,
                             "POST")
    return status, answer


def practices(league: League) -> int:
    with database(league.folder / "league.sqlite") as db:
        return int(db.execute("SELECT count(*) FROM league_practice").fetchone()[0])


def stored(league: League, store: str, game_id: str) -> int:
    with database(league.folder / store) as db:
        return int(db.execute("SELECT count(*) FROM games WHERE game_id = ?",
                              (game_id,)).fetchone()[0])


def watch(league: League, page: str) -> list[str]:
    """The server-sent events of a practice game's page, read as they come until `end`;
    meanwhile every spectators' file of the practice games holds public events only."""
    events = []
    live = league.folder / "league.sqlite.practice.live"
    with urllib.request.urlopen(league.url + page + "/events", timeout=120) as stream:
        kind = ""
        for raw in stream:
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                kind = line.removeprefix("event: ")
            elif line.startswith("data: "):
                events.append(kind)
                for file in live.glob("*.json"):
                    try:
                        shown = json.loads(file.read_text())
                    except (OSError, ValueError):  # it ended, or is being rewritten
                        continue
                    assert all(e["visible_to"] == PUBLIC for e in shown)
                if kind == "end":
                    break
    return events


def test_a_practice_game_is_watched_live_replayed_and_never_counted(league: League, tokens,
                                                                     tmp_path):
    bot = ready(league, tokens, "pat", tmp_path)
    status, granted = ask(league, tokens["pat"], {"bot": bot, "opponent": "heuristic"})
    assert status == 202, granted
    assert granted["status"] == "queued" and granted["entrant"].startswith(f"{bot}@")
    assert granted["opponent"].startswith("heuristic@")
    page = league.get(granted["page"])
    assert 'id="live-table"' in page and "Unrated" in page
    pushed = watch(league, granted["page"])
    assert pushed[-1] == "end" and pushed.count("table") >= 2, pushed

    done = wait_for("the practice game stored", lambda: (
        (p := league.get(granted["url"]))["status"] in ("done", "failed") and p))
    assert done["status"] == "done", done
    game = done["game"]
    assert game["id"] == done["game_id"] and game["record"]["events"]
    assert game["teams"][0] == granted["entrant"]  # the author's version is team 0
    status, html = request(league.url + done["replay"])
    assert status == 200 and 'id="replay"' in html
    status, script = request(league.url + done["replay"] + ".js")
    assert status == 200 and script.startswith("tichuReplay.add(")
    page = league.get(granted["page"])
    assert 'href="/practice/' in page and "It is over." in page  # and links the replay now

    # stored once, in the practice store; nowhere the league counts games
    assert stored(league, "league.sqlite.practice", game["id"]) == 1
    assert stored(league, "league.sqlite", game["id"]) == 0
    assert request(league.url + f"/api/games/{game['id']}")[0] == 404
    listed = league.get(f"/api/games?bot={bot}&limit=200")["games"]
    assert game["id"] not in {g["id"] for g in listed}
    assert practice_seed(league, game["id"]) not in rated_seeds(league, game["id"])


def practice_seed(league: League, game_id: str) -> int:
    with database(league.folder / "league.sqlite.practice") as db:
        return int(db.execute("SELECT seed FROM games WHERE game_id = ?",
                              (game_id,)).fetchone()[0])


def rated_seeds(league: League, game_id: str) -> set[int]:
    """Every seed the league dealt, and the one it would deal the pair a practice game's id
    names ("a~b#k": its ids have the league's form): a practice deal must be none of them."""
    with database(league.folder / "league.sqlite") as db:
        secret = db.execute("SELECT value FROM meta WHERE key = 'deal_secret'").fetchone()[0]
        seeds = {int(seed) for (seed,) in db.execute("SELECT seed FROM games")}
    return seeds | {Deals.secret(bytes.fromhex(secret)).pair_seed(game_id.rpartition(".")[0])}


def test_practice_refusals_get_their_status_and_record_nothing(league: League, tokens,
                                                              tmp_path):
    ready(league, tokens, "pat", tmp_path)
    before = practices(league)
    fair = {"bot": "pat-bot", "opponent": "heuristic"}
    assert ask(league, None, fair)[0] == 401
    assert ask(league, "not-a-token", fair)[0] == 403
    status, body = ask(league, tokens["ruth"], fair)
    assert status == 403 and "another author's" in body["error"]
    status, body = ask(league, tokens["pat"], {"bot": "pat-bot", "opponent": "nobody"})
    assert status == 404 and "/api/standings" in body["error"]
    assert ask(league, tokens["pat"], {"bot": "no-such-bot", "opponent": "heuristic"})[0] == 404
    assert ask(league, tokens["pat"], {**fair, "version": "0123abcd"})[0] == 404
    assert ask(league, tokens["pat"], {"bot": "pat-bot", "opponent": "pat-bot"})[0] == 400
    assert ask(league, tokens["pat"], ["pat-bot"])[0] == 400
    status, _ = request(league.url + "/api/practice", b"{", {
        "Authorization": f"Bearer {tokens['pat']}"}, "POST")
    assert status == 400
    organizer = league.organizer()
    url = league.url + "/api/bots/pat-bot/"
    assert request(url + "disable", b"", organizer, "POST")[0] == 200
    try:
        status, body = ask(league, tokens["pat"], fair)
        assert status == 403 and "organizer" in body["error"]
    finally:
        assert request(url + "enable", b"", organizer, "POST")[0] == 200
    assert practices(league) == before
    assert request(league.url + "/api/practice/999999")[0] == 404
    paths = league.get("/openapi.json")["paths"]
    assert {"401", "403", "404", "429"} <= set(paths["/api/practice"]["post"]["responses"])
    assert "/api/practice/{id}" in paths
    assert request(league.url + "/practice/999999")[0] == 404
    assert request(league.url + "/practice/999999/replay")[0] == 404


def test_an_author_gets_429_past_the_daily_limit(league: League, tokens, tmp_path):
    bot = ready(league, tokens, "ruth", tmp_path)
    answers = [ask(league, tokens["ruth"], {"bot": bot, "opponent": "random"})
               for _ in range(LIMIT + 1)]
    assert [s for s, _ in answers] == [202] * LIMIT + [429], answers
    assert "practice_per_day" in answers[-1][1]["error"]
    with database(league.folder / "league.sqlite") as db:
        assert db.execute("SELECT count(*) FROM league_practice WHERE author = 'ruth'"
                          ).fetchone()[0] == LIMIT


def test_the_bot_page_form_asks_for_a_practice_game(league: League, tokens, tmp_path):
    bot = ready(league, tokens, "pat", tmp_path)
    page = league.get(f"/bots/{bot}")
    assert 'id="practice-form"' in page and '<option value="heuristic">' in page
    assert 'id="practice-form"' not in league.get("/bots/heuristic")  # a house bot's
    status, body = request(league.url + "/practice",
                           f"bot={bot}&opponent=heuristic&token={tokens['pat']}".encode(),
                           {"Content-Type": "application/x-www-form-urlencoded"}, "POST")
    assert status == 403 and "stale" in body["error"]  # no CSRF cookie: another site's


def test_a_practice_game_asked_for_in_the_browser_is_watched_then_replayed(
        league: League, tokens, tmp_path, browser):  # noqa: F811
    """The bot page's form, at a phone's width: the game's page shows the table live with
    every hand face down, says when it is over and links the replay, which opens."""
    bot = ready(league, tokens, "pat", tmp_path)
    browser.set_window_size(390, 900)
    browser.get(f"{league.url}/bots/{bot}")
    form = browser.find_element(By.ID, "practice-form")
    form.find_element(By.NAME, "token").send_keys(tokens["pat"])
    Select(form.find_element(By.NAME, "opponent")).select_by_value("heuristic")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for("the practice game's page", lambda: "/practice/" in browser.current_url, 30)
    assert "Practice" in browser.find_element(By.TAG_NAME, "h1").text
    faces = browser.execute_script("""return Array.from(document.querySelectorAll(
        '#live-table .hand .card')).map(function (c) { return c.className; });""")
    assert all("back" in c for c in faces), faces  # no hand while it runs
    fits_and_is_clean(browser, "practice 390")
    full_page_screenshot(browser, tmp_path / "practice-390.png", 390)
    link = wait_for("the game over", lambda: browser.find_elements(
        By.CSS_SELECTOR, "#live-status a"), 180)[0]
    assert "The game is over" in browser.find_element(By.ID, "live-status").text
    link.click()
    wait_for("the replay loaded", lambda: browser.find_elements(
        By.CSS_SELECTOR, "#replay-controls:not([hidden])"), 30)
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.END)  # the last event: cards
    wait_for("the replay drawn", lambda: browser.find_elements(By.CSS_SELECTOR, "#replay .card"),
             30)
    assert "/replay" in browser.current_url
    fits_and_is_clean(browser, "practice replay 390")
    full_page_screenshot(browser, tmp_path / "practice-replay-390.png", 390)


def test_arena_practice_follows_the_game_to_its_replay(league: League, tokens, tmp_path):
    bot = ready(league, tokens, "pat", tmp_path)
    result = arena("practice", bot, "random", "--server", league.url, "--token",
                   tokens["pat"])
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("practice ") and "watch it at http" in result.stdout
    assert "done" in result.stdout and "/replay" in result.stdout
    assert re.search(r"score \d+ to \d+; the replay: http", result.stdout), result.stdout
    assert "failed" not in result.stdout  # random bots never fail
    result = arena("practice", bot, "nobody", "--server", league.url, "--token",
                   tokens["pat"])
    assert result.returncode != 0 and "404" in result.stderr


def practice_page_says(league: League, stdout: str) -> str:
    """The status line of the practice page `arena practice` printed in `stdout`."""
    found = re.search(r"watch it at http://[^/]+(/practice/\d+)", stdout)
    assert found is not None, stdout
    status = re.search(r'<p id="practice-status"[^>]*>(.*?)</p>', league.get(found.group(1)))
    assert status is not None, stdout
    return html.unescape(status.group(1))


def test_arena_practice_exits_1_saying_why_when_the_authors_bot_failed(league: League, tokens,
                                                                       tmp_path):
    """cara-bot crashes in its game against the heuristic bot: `arena practice` says how,
    shows the end of its stderr and exits 1, and the page says it too; when the opponent
    crashes instead, both say so and the command exits 0."""
    fragile = ready(league, tokens, "cara", tmp_path, "cara-bot", FRAGILE_BOT)
    calm = ready(league, tokens, "cara", tmp_path, "cara-calm", None)
    mine = arena("practice", fragile, "heuristic", "--server", league.url, "--token",
                 tokens["cara"])
    assert mine.returncode == 1, mine.stdout + mine.stderr
    assert re.search(r"your bot failed: crash in round \d+ \(decision \d+\): \S", mine.stdout)
    assert "    | RuntimeError: cara-bot gives up" in mine.stdout  # its stderr, to its author
    command = re.search(r"reproduce it: (arena reproduce .*)", mine.stdout)
    assert command is not None, mine.stdout
    words = shlex.split(command.group(1))
    assert words[2:4] == [practice_id(mine.stdout), "BOT_FOLDER"] and "--seat" in words
    assert arena(*words[1:3], str(tmp_path / "cara-bot"), *words[4:], "--token",
                 tokens["cara"]).returncode == 1  # the crash, reproduced by its command
    assert re.search(r"stopped by a crash at \d+ to \d+; the replay: http", mine.stdout)
    said = practice_page_says(league, mine.stdout)
    assert re.search(r"Your bot failed: crash in round \d+ \(decision \d+\): \S", said), said
    assert "It is over" not in said and "opponent" not in said

    theirs = arena("practice", calm, fragile, "--server", league.url, "--token",
                   tokens["cara"])
    assert theirs.returncode == 0, theirs.stdout + theirs.stderr
    assert "the opponent's bot failed (it forfeited): crash in round" in theirs.stdout
    assert "your bot failed" not in theirs.stdout
    said = practice_page_says(league, theirs.stdout)
    assert "The opponent's bot failed: crash in round" in said and "Your bot" not in said


def practice_id(stdout: str) -> str:
    """The practice game `arena practice` printed, as `arena reproduce` names it."""
    found = re.search(r"watch it at \S+/practice/(\d+)", stdout)
    assert found is not None, stdout
    return f"practice/{found.group(1)}"


def test_a_league_crash_is_explained_on_the_bot_page_and_by_arena_failures(
        league: League, tokens, tmp_path):
    """cara-bot crashes in its rated games against the heuristic bot: its page and
    `arena failures --server` give the kind, round, decision and the reproduce command;
    its stderr goes to cara only."""
    fragile = ready(league, tokens, "cara", tmp_path, "cara-bot", FRAGILE_BOT)
    failed = wait_for("a rated crash of cara-bot", lambda: league.get(
        f"/api/bots/{fragile}")["failures"])[0]
    assert failed["kind"] == "crash" and failed["round"] >= 1 and failed["decision"] >= 1
    assert "cara-bot gives up" not in json.dumps(failed) and failed["output"] == HIDDEN
    assert shlex.split(failed["reproduce"]) == [
        "arena", "reproduce", failed["game"], "BOT_FOLDER", "--seat", str(failed["seat"]),
        "--server", league.url]
    mine = league.get(f"/api/bots/{fragile}", tokens["cara"])["failures"][0]
    assert "RuntimeError: cara-bot gives up" in mine["output"]

    page = league.signed_in(fragile, tokens["cara"])
    assert re.search(r"<strong>crash</strong> in round \d+, decision \d+", page), page
    assert "RuntimeError: cara-bot gives up" in page and html.escape(
        failed["reproduce"], quote=True) in page
    public = urllib.request.urlopen(f"{league.url}/bots/{fragile}", timeout=30).read().decode()
    assert "cara-bot gives up" not in public and "<strong>crash</strong> in round" in public

    out = arena("failures", fragile, "--server", league.url, "--token", tokens["cara"])
    assert out.returncode == 0, out.stdout + out.stderr
    assert re.search(r": crash by cara-bot@\S+, seat \d at round \d+, decision \d+", out.stdout)
    assert "  | RuntimeError: cara-bot gives up" in out.stdout
    assert f"  reproduce it: {failed['reproduce']}" in out.stdout
    anyone = arena("failures", fragile, "--server", league.url)
    assert anyone.returncode == 0 and "cara-bot gives up" not in anyone.stdout


def test_a_crash_on_the_bot_page_reads_at_390_and_1280_px(league: League, tokens, tmp_path,
                                                            browser):  # noqa: F811
    """Signed in on its page, cara sees her bot's failure: the traceback on lines of its own
    in a box, the command whole; nothing makes the page scroll sideways."""
    fragile = ready(league, tokens, "cara", tmp_path, "cara-bot", FRAGILE_BOT)
    wait_for("a rated crash of cara-bot", lambda: league.get(f"/api/bots/{fragile}")["failures"])
    for width in (390, 1280):
        browser.set_window_size(width, 900)
        browser.get(f"{league.url}/bots/{fragile}")
        form = browser.find_element(By.ID, "sign-in-form")
        form.find_element(By.NAME, "token").send_keys(tokens["cara"])
        form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        wait_for("the signed-in page", lambda: browser.execute_script(
            "var box = document.querySelector('.failure pre.output');"
            "return box !== null && box.textContent.indexOf('gives up') >= 0;"), 30)
        failure = browser.find_element(By.CSS_SELECTOR, ".failure")
        box = failure.find_element(By.CSS_SELECTOR, "pre.output")
        assert "RuntimeError: cara-bot gives up" in box.text.splitlines()
        top, seen, whole = browser.execute_script(
            "var b = arguments[0]; return [b.scrollTop, b.clientHeight, b.scrollHeight];", box)
        assert whole > seen or width == 1280, (top, seen, whole)  # its tail overflows a phone
        assert top + seen >= whole - 1, (top, seen, whole)  # the box opens on its last line
        assert "arena reproduce" in failure.find_element(By.TAG_NAME, "code").text
        fits_and_is_clean(browser, f"bot page {width}")
        full_page_screenshot(browser, tmp_path / f"bot-failure-{width}.png", width)


def test_a_practice_game_cut_by_kill_9_is_played_at_the_next_start(league: League, tmp_path):
    """kill -9 of the whole league while a practice game is played: the same command again
    plays it (it was granted: it is not lost), once."""
    token = league.invite("quinn")  # an author of its own: the others' daily limits are used
    bot = ready(league, {"quinn": token}, "quinn", tmp_path)
    status, granted = ask(league, token, {"bot": bot, "opponent": "heuristic"})
    assert status == 202, granted
    try:
        wait_for("the practice game playing", lambda: league.get(granted["url"])["status"]
                 == "playing")
        league.stop(signal.SIGKILL)
    finally:
        if league.process is None:
            league.start()  # (the shared league: up again for the tests after this one)
    done = wait_for("the practice game over", lambda: (
        (p := league.get(granted["url"]))["status"] in ("done", "failed") and p))
    assert done["status"] == "done", done
    assert stored(league, "league.sqlite.practice", done["game_id"]) == 1
    assert stored(league, "league.sqlite", done["game_id"]) == 0
    with database(league.folder / "league.sqlite.practice") as db:  # every practice so far
        seeds = [int(seed) for (seed,) in db.execute("SELECT seed FROM games")]
    assert len(set(seeds)) == len(seeds)  # none dealt twice
    assert set(seeds).isdisjoint(rated_seeds(league, done["game_id"]))
