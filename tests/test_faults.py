"""The bot-fault kinds are one list: whatever fault the referee records, the store, the
standings and the tables count under its own kind."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from arena.faults import ForfeitKind
from arena.presentation.tables import standings_table
from arena.ratings.standings import compute_standings
from arena.referee.record import EntrantInfo, Fault, GameRecord, Termination
from arena.tournament.schedule import round_robin
from arena.tournament.store import EntrantRow, GameRow, Store

pytestmark = pytest.mark.timeout(60)

BOT_FAULTS = [kind for kind in Termination if kind.is_bot_fault]
README = Path(__file__).resolve().parents[1] / "README.md"


def test_a_game_ends_normally_by_a_forfeit_kind_or_by_nobodys_fault():
    assert {kind.value for kind in BOT_FAULTS} == {kind.value for kind in ForfeitKind}
    assert [kind.name for kind in Termination if not kind.is_bot_fault] == [
        "NORMAL", "HARNESS_FAULT", "INTERRUPTED"]


def _record(game, termination: Termination, fault_seat: int | None) -> GameRecord:
    infos = tuple(EntrantInfo(*key.split("@"), f"/bots/{key}") for key in game.teams)
    winner = 0 if fault_seat is None else 1 - (fault_seat & 1)
    record = GameRecord(game.game_id, game.seed, 1000, infos, scores=(1000, 300),
                        winner=winner, rounds=7, termination=termination)
    if fault_seat is not None:
        record.fault = Fault(termination, fault_seat, "it failed", 2, 30)
    return record


@pytest.mark.parametrize("kind", BOT_FAULTS, ids=lambda kind: kind.value)
def test_every_bot_fault_the_referee_records_is_counted_by_the_store_and_the_standings(
        tmp_path, kind):
    with Store(tmp_path / "t.sqlite") as store:
        for name in ("a", "b"):
            store.register_entrant(EntrantRow(f"{name}@v1", name, "v1", "1", "python",
                                              f"/bots/{name}", "config", False))
        forfeited, played = round_robin(["a@v1", "b@v1"], 1, 1)
        assert forfeited.teams[1] == "b@v1"
        store.add_game(GameRow.from_record(forfeited, _record(forfeited, kind, 1), "r0"))
        store.add_game(GameRow.from_record(played, _record(played, Termination.NORMAL, None),
                                           "r1"))
        assert store.failures() == {"b@v1": {kind.value: 1}}
        standings = compute_standings(store.results())

    rows = {row["entrant"]: row for row in
            json.loads(standings_table(standings, fmt="json"))["standings"]}
    assert rows["b@v1"]["forfeits"] == {k.value: int(k == kind.value) for k in ForfeitKind}
    assert sum(rows["a@v1"]["forfeits"].values()) == 0
    table = {row["entrant"]: row for row in
             csv.DictReader(io.StringIO(standings_table(standings, fmt="csv")))}
    assert table["b@v1"][kind.value] == "1"
    assert kind.value.replace("_", " ") in standings_table(standings)


def test_the_readme_names_every_forfeit_kind():
    text = README.read_text()
    assert [kind.value for kind in ForfeitKind if f"`{kind.value}`" not in text] == []
