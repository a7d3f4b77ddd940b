"""The standings process's work (`TableMaker`): reading only the games stored since its last
table gives the table a fresh reading of the whole store gives; no new game and the same
entrants, no new table. The store is seeded as `arena bench league` seeds it."""

from __future__ import annotations

from pathlib import Path

from arena.league.bench import seed_games
from arena.league.standings import Request, TableMaker
from arena.tournament.store import EntrantRow, Store

KEYS = [f"bot-{k}@{k:08x}" for k in range(6)]


def store_of(folder: Path) -> Path:
    path = folder / "league.sqlite"
    with Store(path) as store:
        for key in KEYS:
            name, version = key.split("@")
            store.register_entrant(EntrantRow(key, name, version, "1.0", "python", key,
                                              "config", False))
    return path


def ask(path: Path, keys: list[str], version: int) -> Request:
    return Request(path, tuple(keys), {"bot-1": "alice"}, version, "bot-0", 0.0, 2.0)


def test_a_table_kept_up_game_by_game_is_the_table_of_the_whole_store(tmp_path: Path):
    path = store_of(tmp_path)
    maker = TableMaker()
    assert seed_games(path, KEYS[:4], 120, seed=1) == 120
    first = maker.make(ask(path, KEYS, 1))
    assert first is not None and first.games == 120
    assert maker.make(ask(path, KEYS, 2)) is None  # nothing new
    seed_games(path, KEYS, 90, seed=2, first_pair=100)  # the last two's first games
    kept_up = maker.make(ask(path, KEYS, 2))
    fresh = TableMaker().make(ask(path, KEYS, 2))
    assert kept_up is not None and fresh is not None
    assert kept_up.games == fresh.games == 210
    assert kept_up.rows == fresh.rows and kept_up.notes == fresh.notes
    assert kept_up.body == fresh.body  # (the HTML sorts by unrounded ratings: 1e-9 apart)
    rows = {r["name"]: r for r in kept_up.rows}
    assert set(rows) == {k.split("@")[0] for k in KEYS}
    assert rows["bot-1"]["author"] == "alice" and rows["bot-2"]["author"] == "house"
    assert rows["bot-0"]["rating"] == 0.0  # the anchor
    fewer = maker.make(ask(path, KEYS[:3], 3))  # entrants retired: their games leave
    assert fewer is not None and {r["name"] for r in fewer.rows} == {"bot-0", "bot-1",
                                                                      "bot-2"}


def test_the_games_against_retired_versions_are_counted_in_a_note(tmp_path: Path):
    """A table of the active versions leaves out their games against a retired version (and
    against a bot taken out): a note says how many, so no row's count is left unexplained."""
    path = store_of(tmp_path)
    seed_games(path, KEYS, 150, seed=3)
    with Store(path) as store:  # a new version of bot-5 retires bot-5@5
        store.register_entrant(EntrantRow("bot-5@0000000f", "bot-5", "0000000f", "1.1",
                                          "python", KEYS[5], "submit", False))
        ids = list(store.game_seeds())
        assert [e.key for e in store.entrants() if e.retired] == [KEYS[5]]

    def against(other: str) -> int:
        return sum(1 for i in ids if other in i.split("#")[0].split("~")
                   and any(k in i for k in KEYS[:4]))

    retired, removed = against(KEYS[5]), against(KEYS[4])
    assert retired and removed
    table = TableMaker().make(ask(path, KEYS[:4], 1))  # bot-4 taken out of the table
    assert table is not None
    assert table.notes[-1] == (f"{retired} games against retired versions and {removed} "
                               "games against bots taken out of the table are not counted: "
                               "each row counts only the games between the versions listed.")
    assert sum(r["games"] for r in table.rows) + 2 * (retired + removed) == 2 * sum(
        1 for i in ids if KEYS[4] not in i or KEYS[5] not in i)
    every = TableMaker().make(ask(path, KEYS, 1))  # nothing left out: no such note
    assert every is not None and not any("not counted" in n for n in every.notes)


def test_the_left_out_note_reads_in_the_singular_and_says_nothing_of_none():
    from arena.presentation.notes import left_out_note

    assert left_out_note(0, 0) is None
    assert left_out_note(1) == ("1 game against retired versions is not counted: each row "
                                "counts only the games between the versions listed.")
    assert left_out_note(0, 3).startswith("3 games against bots taken out of the table are")
