"""Numbers past JavaScript's exact integers (2**53) reach the pages exactly: a game's seed is
shown as stored, so that `arena play --seed` replays it (a seed is up to 2**63 - 1)."""

from __future__ import annotations

import dataclasses

import pytest
from click.testing import CliRunner
from selenium.webdriver.common.by import By

from arena.cli.main import main
from arena.presentation.bench import play_record
from arena.presentation.report import slug
from arena.tournament.records import write_record
from arena.tournament.schedule import round_robin
from arena.tournament.store import EntrantRow, GameRow, Store
from tests.presentation.test_report_browser import wait_for
from tests.tournament.conftest import copy_bot, write_config

SEED = 4635684920050757010  # as a double, 4635684920050757000 (the issue's own example)

pytestmark = pytest.mark.timeout(120)


def test_the_replay_viewer_shows_a_64_bit_seed_exactly(tmp_path, shared_browser):
    browser = shared_browser
    copy_bot("random", tmp_path / "random")
    copy_bot("heuristic", tmp_path / "heuristic")
    config = write_config(tmp_path, ["random", "heuristic"])
    storage = tmp_path / "t.sqlite"
    with Store(storage) as store:
        for k, name in enumerate(("random", "heuristic")):
            store.register_entrant(EntrantRow(f"{name}@v{k}", name, f"v{k}", "1", "python",
                                              str(tmp_path / name), "config", False))
        game = dataclasses.replace(round_robin(["random@v0", "heuristic@v1"], 1, 1)[0],
                                   seed=SEED)
        record = play_record(game.game_id, SEED, game.teams, set(), target=200)
        relative = f"{storage.name}.records/{game.record_name}.json.gz"
        write_record(record, storage.parent / relative)
        store.add_game(GameRow.from_record(game, record, relative))
    out = tmp_path / "site"
    built = CliRunner().invoke(main, ["report", str(config), "-o", str(out)])
    assert built.exit_code == 0, built.output
    browser.get((out / "replay.html").as_uri() + "#" + slug(game.game_id))
    wait_for(browser, "#step-counter")
    meta = browser.find_element(By.ID, "replay-meta").text
    assert str(SEED) in meta, meta
