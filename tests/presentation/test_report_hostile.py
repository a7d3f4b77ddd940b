"""The web report of a tournament whose bot carries script payloads in every string it
controls, opened in a real headless Chromium: nothing runs, and the payloads show as text.

The bot enters through its bot.toml (`arena submit`): its version and language are HTML and
script payloads (its name cannot be: a name is letters, digits, '.', '-', '_'). Its games are
engine games stored as the runner stores them (`arena.presentation.bench`; no bot process
runs); in two of them it forfeits for a protocol violation whose message is the codec's own,
quoting the bot's bytes, and its output (the record's `bot_output`) is a payload too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from selenium.webdriver.common.by import By

from arena.cli.main import main
from arena.presentation.bench import play_record
from arena.presentation.report import slug
from arena.referee.record import Fault, Termination
from arena.tournament.records import write_record
from arena.tournament.schedule import round_robin
from arena.tournament.store import GameRow, Store
from protocol import codec
from protocol.schema import ProtocolError
from tests.presentation.payloads import ALERT_IMG, ALERT_SCRIPT, CLEAR, IMG, OSC_TITLE, SCRIPT
from tests.presentation.test_report_browser import wait_for
from tests.tournament.conftest import copy_bot, write_config

pytestmark = pytest.mark.timeout(240)

NAME = "hostile-strings"
OUTPUT = f"{SCRIPT}{OSC_TITLE}{CLEAR}\n{IMG}"
HOOK = ("window.alert = window.confirm = window.prompt = function () {"
        " window.__pwned = 'dialog'; };")
"""Installed before any script of a page: a payload that calls alert() is recorded too."""


def violation(reply: dict) -> str:
    """The fault message the referee records for a malformed reply: the codec's error."""
    with pytest.raises(ProtocolError) as error:
        codec.validate({"type": "reply", "id": 1, "option": None} | reply, "bot")
    return str(error.value)


MESSAGES = (violation({"action": {"action": IMG}}), violation({SCRIPT: 1}))


def hostile_bot(folder: Path) -> Path:
    folder.mkdir()
    (folder / "bot.py").write_text("raise SystemExit(1)  # never run: its games are stored\n")
    fields = {"name": NAME, "version": IMG, "language": SCRIPT,
              "description": f"{ALERT_SCRIPT} {ALERT_IMG} {SCRIPT}"}
    (folder / "bot.toml").write_text("".join(f"{k} = {json.dumps(v)}\n" for k, v in fields.items())
                                     + 'command = ["python", "bot.py"]\n')
    return folder


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("hostile")
    copy_bot("random", folder / "random")
    config = write_config(folder, ["random"])
    submitted = CliRunner().invoke(main, ["submit", str(hostile_bot(folder / "hostile")),
                                          "--tournament", str(config)])
    assert submitted.exit_code == 0, submitted.output
    storage = folder / "t.sqlite"
    faulted = []
    with Store(storage) as store:
        keys = {e.name: e.key for e in store.entrants()}
        assert store.entrants()[1].bot_version == IMG  # as the manifest wrote it
        for game in round_robin(sorted(keys.values()), 2, 1):
            record = play_record(game.game_id, game.seed, game.teams, set(), target=300)
            if game.pair_index == 0:  # the hostile bot's seat forfeits
                seat = game.teams.index(keys[NAME])
                record.termination, record.winner = Termination.PROTOCOL_VIOLATION, 1 - seat
                record.fault = Fault(Termination.PROTOCOL_VIOLATION, seat,
                                     MESSAGES[game.game_index], record.rounds,
                                     len(record.decisions), {"output": OUTPUT})
                record.bot_output[seat] = OUTPUT
                faulted.append(game.game_id)
            relative = f"{storage.name}.records/{game.record_name}.json.gz"
            write_record(record, storage.parent / relative)
            store.add_game(GameRow.from_record(game, record, relative))
    out = folder / "site"
    built = CliRunner().invoke(main, ["report", str(config), "-o", str(out)])
    assert built.exit_code == 0, built.output
    return {"folder": out, "hostile": keys[NAME], "faulted": faulted}


def nothing_ran(browser) -> None:
    """No payload ran on the page: no flag, no element or inline script made of data."""
    assert browser.execute_script("return window.__pwned") is None, browser.current_url
    assert browser.execute_script("return document.images.length") == 0
    assert browser.execute_script(
        "return Array.from(document.scripts).every(function (s) { return s.src; })")


def test_no_page_runs_a_payload_and_each_shows_as_text(site, shared_browser):
    browser = shared_browser
    hook = browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": HOOK})
    try:
        payloads_show_as_text(site, browser)
    finally:  # the browser is shared: the next test's pages run without the hook
        browser.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", hook)


def payloads_show_as_text(site: dict, browser) -> None:
    """Every page of the report, and the replays of the faulted games: no payload ran, and
    the bot's strings show as text where a person reads them."""
    out = site["folder"]
    pages = [out / "index.html", out / "games.html", *sorted((out / "entrants").iterdir())]
    assert out / "entrants" / f"{slug(site['hostile'])}.html" in pages
    for page in pages:
        browser.get(page.as_uri())
        wait_for(browser, "body")
        nothing_ran(browser)

    browser.get((out / "entrants" / f"{slug(site['hostile'])}.html").as_uri())
    facts = browser.find_element(By.ID, "entrant-facts").text
    assert IMG in facts and SCRIPT in facts  # the author's version and language, as text
    failures = browser.find_element(By.ID, "entrant-failures").text
    assert "'\"><img src=x onerror=window.__pwned=1>'" in failures

    browser.get((out / "games.html").as_uri())
    games = browser.find_element(By.ID, "games-table").text
    assert "onerror=window.__pwned=1>'" in games and f"reply.{SCRIPT}" in games
    nothing_ran(browser)

    for game_id, message in zip(site["faulted"], MESSAGES, strict=True):
        browser.get((out / "replay.html").as_uri() + "#" + slug(game_id))
        wait_for(browser, "#step-counter")
        nothing_ran(browser)
        meta = browser.find_element(By.ID, "replay-meta").text
        assert message in meta and "protocol_violation" in meta


def test_the_pages_hold_the_payloads_escaped(site):
    out = site["folder"]
    for page in [out / "index.html", out / "games.html", *(out / "entrants").iterdir()]:
        text = page.read_text()
        assert "<img" not in text and "<script>window" not in text, page
    entrant = (out / "entrants" / f"{slug(site['hostile'])}.html").read_text()
    assert "&quot;&gt;&lt;img src=x onerror=window.__pwned=1&gt;" in entrant
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in entrant
