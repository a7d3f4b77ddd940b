"""After a restart, a new version's placement games come before the pairs the last server
left stored half (issue 48, item 8), against a real `arena league serve`: a league of the
random and heuristic bots plays and stops; one of its pairs is made half-stored (its second
game taken out of the store, as a kill during that game leaves it); a new bot joins the
config; the server starts again with one game worker. Its first games are the newcomer's
placement, then the half pair's missing game. Before, the half pair went first."""

from __future__ import annotations

from pathlib import Path

from tests.league.conftest import (
    HOUSE,
    ROOT,
    League,
    bot_copy,
    database,
    free_port,
    wait_for,
    write_config,
)

NEW = "newcomer"


def stored(folder: Path) -> list[str]:
    """The games stored, in the order they were stored."""
    with database(folder / "league.sqlite") as db:
        return [row[0] for row in db.execute("SELECT game_id FROM games ORDER BY rowid")]


def missing_games(folder: Path) -> set[str]:
    """The missing game of each pair stored half."""
    with database(folder / "league.sqlite") as db:
        return {f"{pair}.{1 - index}" for pair, index in db.execute(
            "SELECT pair_id, min(game_index) FROM games GROUP BY pair_id HAVING count(*) = 1")}


def make_half(folder: Path) -> str:
    """Take the second game of a complete pair out of the store (its row and its record),
    as a kill during that game leaves it; that game's id."""
    with database(folder / "league.sqlite") as db:
        game, record = db.execute(
            "SELECT game_id, record FROM games WHERE game_index = 1 AND pair_id IN (SELECT "
            "pair_id FROM games GROUP BY pair_id HAVING count(*) = 2) ORDER BY rowid "
            "LIMIT 1").fetchone()
        db.execute("DELETE FROM games WHERE game_id = ?", (game,))
        db.commit()
    (folder / record).unlink()
    return str(game)


def test_a_new_bot_is_placed_before_the_half_pairs_of_a_restart(tmp_path: Path):
    league = League(tmp_path, write_config(tmp_path), free_port())
    league.start()
    try:
        wait_for("two pairs stored", lambda: len(stored(tmp_path)) >= 4)
    finally:
        assert league.stop() == 0
    missing = make_half(tmp_path)
    halves = missing_games(tmp_path)  # (the stop may have cut a pair too)
    assert missing in halves
    before = stored(tmp_path)
    newcomer = bot_copy(tmp_path / NEW, NEW)
    league.config = write_config(tmp_path, house=(*HOUSE, str(newcomer)))
    assert str(newcomer) in league.config.read_text() and str(ROOT) in league.config.read_text()
    league.start()
    try:
        # placement: one pair against each of the two others (placement_pairs = 1)
        wait_for("the newcomer placed and the half pairs completed", lambda: len(
            stored(tmp_path)) >= len(before) + 4 + len(halves))
    finally:
        assert league.stop() == 0
    after = stored(tmp_path)[len(before):]
    placement = [g for g in after[:4] if NEW in g.split("#")[0]]
    assert len(placement) == 4, (missing, after)
    assert set(after[4:4 + len(halves)]) == halves, (halves, after)
