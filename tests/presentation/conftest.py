"""Fixtures of the report tests: a real headless Chromium driven by selenium through
Debian's chromedriver (scripts/setup-bots.sh installs both; without them the browser tests
skip saying so, and fail under CI, where every test must run: `tests.requirements`)."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.requirements import missing
from tests.tournament.conftest import copy_bot, write_config

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
SETUP = "scripts/setup-bots.sh (run by `make test` as root on Debian) installs them"

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--disable-quic", "--disable-dev-shm-usage",
                  "--window-size=1400,1000"]


def need_browser() -> None:
    """Skip (under CI: fail) unless chromium, chromedriver and selenium are all there."""
    absent = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    if importlib.util.find_spec("selenium") is None:
        absent.append("the selenium package (pip install -e '.[test]')")
    if absent:
        missing(f"the report's browser tests need Debian's chromium and chromium-driver and "
                f"selenium: missing {', '.join(absent)}", SETUP)


@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    """A fresh headless Chromium (empty profile, no network services) under chromedriver,
    keeping its console (`get_log("browser")`)."""
    need_browser()
    os.environ["SE_OFFLINE"] = "true"  # selenium's driver manager must not try the network
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="arena-chromium-")
    options = Options()
    options.binary_location = str(CHROMIUM)
    for flag in CHROMIUM_FLAGS + [f"--user-data-dir={profile}"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    # hang guards, not claims: a page of the report loads in well under a second idle, and
    # Chromium's renderer took over 30 s with the machine at a load of 50 to 70
    driver.set_page_load_timeout(180)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def browser():
    """A fresh browser for one test."""
    with chromium() as driver:
        yield driver


@pytest.fixture(scope="module")
def module_browser():
    """One browser for a module's tests (each leaves it as it found it: no stored state)."""
    with chromium() as driver:
        yield driver


WINDOW = (1400, 1000)
"""The window of a fresh browser (`--window-size` in CHROMIUM_FLAGS)."""


@pytest.fixture(scope="package")
def package_chromium():
    """One Chromium for the report tests of this folder (under xdist: one per worker): a
    start costs about a second of CPU, as much as several page loads."""
    with chromium() as driver:
        yield driver


def as_new(driver: Any) -> None:
    """Undo what a test may change in a browser it shares: the window's size, the emulated
    colour scheme, the theme stored for the report's pages (file://); and empty the console,
    so that each test sees only its own pages' messages."""
    driver.get("about:blank")
    driver.set_window_size(*WINDOW)
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "", "features": []})
    driver.execute_cdp_cmd("Storage.clearDataForOrigin", {"origin": "file://",
                                                          "storageTypes": "all"})
    driver.get_log("browser")


@pytest.fixture
def shared_browser(package_chromium):
    """The folder's Chromium, as a fresh one would be for this test (`as_new`, before it, not
    after: a navigation costs CPU); a test that installs a script to run on every page
    removes it itself."""
    as_new(package_chromium)
    return package_chromium


@pytest.fixture(scope="package")
def crash_tournament(tmp_path_factory) -> Path:
    """A real round robin (random, heuristic, and a bot that crashes in each of its games,
    tests/botkit/bots/broken `crash_in_game`), played once for the folder's modules that read
    one (the report in a browser, `arena failures`): its config. Each game starts its bots'
    processes, sandboxed where the machine allows: the CPU of a tournament is theirs."""
    from click.testing import CliRunner

    from arena.cli.main import main
    from tests.botkit.conftest import broken_bot

    folder = tmp_path_factory.mktemp("tournament")
    copy_bot("random", folder / "random")
    copy_bot("heuristic", folder / "heuristic")
    broken_bot("crash_in_game", folder)
    config = write_config(folder, ["random", "heuristic", "crash_in_game"], games=2,
                          target=300)
    played = CliRunner().invoke(main, ["tournament", str(config), "--no-standings", "-j", "2"])
    assert played.exit_code == 0, played.output
    return config
