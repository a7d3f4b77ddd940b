"""The store: one transaction per game, never counted twice, failure counters, results as the
ratings see them, atomic record files; games of mixed partners with all four seats, and a
store made before them (schema 2) still read."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from arena.referee.record import EntrantInfo, GameRecord, Termination
from arena.tournament.records import read_record, write_record
from arena.tournament.schedule import mixed_schedule, round_robin
from arena.tournament.store import EntrantRow, GameRow, IntegrityError, Store

pytestmark = pytest.mark.timeout(30)


def entrant(name: str) -> EntrantRow:
    return EntrantRow(f"{name}@v1", name, "v1", "1.0", "python", f"/bots/{name}", "config",
                      False)


def row(game, winner=0, termination=Termination.NORMAL, fault_seat=None) -> GameRow:
    scores = (1000, 300) if winner == 0 else (300, 1000)
    return GameRow(game, scores, winner, 7, termination, fault_seat,
                   None if fault_seat is None else "boom", 1.5, f"records/{game.record_name}")


@pytest.fixture
def store(tmp_path):
    with Store(tmp_path / "s.sqlite") as store:
        for name in ("a", "b"):
            store.register_entrant(entrant(name))
        yield store


def test_the_store_is_one_sqlite_file_in_wal_mode(store):
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.meta("schema_version") == "3"


def test_a_new_store_makes_a_secret_of_256_random_bits_and_keeps_it(tmp_path):
    with Store(tmp_path / "a.sqlite") as a, Store(tmp_path / "b.sqlite") as b:
        secret = a.deal_secret()
        assert len(secret) == 32 and secret != b.deal_secret()
    with Store(tmp_path / "a.sqlite") as again:
        assert again.deal_secret() == secret


def test_a_store_of_schema_1_is_upgraded_keeping_its_games(store):
    game = round_robin(["a@v1", "b@v1"], 1, 1)[0]
    store.add_game(row(game))
    store.set_meta({"schema_version": "1"})
    store.db.execute("DROP TABLE build_outputs")
    with Store(store.path) as upgraded:
        assert upgraded.meta("schema_version") == "3" and upgraded.game_count() == 1
        tables = {r[0] for r in upgraded.db.execute("SELECT name FROM sqlite_master")}
        assert "build_outputs" in tables


def test_a_stored_game_that_differs_from_a_new_result_stops_loudly(store):
    game = round_robin(["a@v1", "b@v1"], 1, 1)[0]
    assert store.add_game(row(game, winner=1))  # stored first: a forged row, say
    with pytest.raises(IntegrityError, match=rf"game {re.escape(game.game_id)} is stored "
                       r"already with another result.*winner 1 stored, 0 played"):
        store.add_game(row(game, winner=0))
    assert not store.add_game(row(game, winner=1))  # the same result again: no error
    assert store.game_count() == 1 and store.results()[0].winner == 1


def test_a_game_is_stored_once_with_its_pair_and_seats(store):
    game = round_robin(["a@v1", "b@v1"], 1, 1)[1]
    assert store.add_game(row(game, winner=1))
    assert not store.add_game(row(game, winner=1))
    assert store.game_count() == 1
    (result,) = store.results()
    assert result.pair_id == game.pair_id and result.entrants == ("b@v1", "a@v1")
    assert result.winner == 1 and result.forfeit is None


def test_a_forfeit_counts_a_failure_for_the_offender_only(store):
    g0, g1 = round_robin(["a@v1", "b@v1"], 1, 1)
    store.add_game(row(g0, winner=0, termination=Termination.TIMEOUT, fault_seat=3))
    store.add_game(row(g1, winner=1, termination=Termination.CRASH, fault_seat=2))
    assert store.failures() == {"b@v1": {"timeout": 1, "crash": 1}}
    results = store.results()
    assert [r.forfeit for r in results] == [(1, "timeout"), (0, "crash")]


def test_a_harness_fault_is_marked_for_the_ratings(store):
    g0, _ = round_robin(["a@v1", "b@v1"], 1, 1)
    store.add_game(GameRow(g0, (0, 0), None, 0, Termination.HARNESS_FAULT, None, "bug", 0.1,
                           "r"))
    (result,) = store.results()
    assert result.harness_fault and result.winner is None
    assert store.failures() == {}


def test_a_new_version_of_a_folder_retires_the_old_one(store):
    store.register_entrant(EntrantRow("a@v2", "a", "v2", "1.1", "python", "/bots/a", "config",
                                      False))
    retired = {e.key: e.retired for e in store.entrants()}
    assert retired == {"a@v1": True, "b@v1": False, "a@v2": False}
    store.register_entrant(entrant("a"))  # back to the old content: active again
    assert {e.key: e.retired for e in store.entrants()}["a@v1"] is False


def test_a_failed_transaction_leaves_nothing(store):
    game = round_robin(["a@v1", "b@v1"], 1, 1)[0]
    with pytest.raises(sqlite3.IntegrityError):
        store.add_game(GameRow(game, (1, 2), 5, 1, Termination.NORMAL, None, None, 1.0, "r"))
    assert store.game_count() == 0


def test_records_are_written_atomically_compressed_and_read_back(tmp_path):
    record = GameRecord("g", 3, 200, (EntrantInfo("a", "v1", "/a"), EntrantInfo("b", "v1", "/b")),
                        scores=(200, 0), winner=0, rounds=1)
    path = tmp_path / "m" / "00000-0.json.gz"
    write_record(record, path)
    assert path.read_bytes()[:2] == b"\x1f\x8b"
    assert read_record(path) == record
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temp file left


# ----- mixed partners, and a store of schema 2 ---------------------------------------------

OLD_STORE = Path(__file__).with_name("store-schema-2.sql")
"""A store of schema 2, as the arena before mixed partners wrote it (dumped as SQL): two
entrants, one pair, the second game forfeited by seat 2 (b) on time."""


def old_store(folder: Path) -> Path:
    path = folder / "old.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript(OLD_STORE.read_text())
    return path


def test_a_store_of_schema_2_reads_as_before_read_only_and_upgraded(tmp_path):
    path = old_store(tmp_path)
    with Store(path, read_only=True) as old:  # not upgraded: read as it is
        before = (old.results(), old.games(), old.failures())
        assert old.meta("schema_version") == "2" and old.partners() == "fixed"
    assert [r.forfeit for r in before[0]] == [None, (0, "timeout")]
    assert [g.partners for g in before[1]] == [None, None]
    assert before[2] == {"b@v1": {"timeout": 1}}
    with Store(path) as upgraded:
        assert upgraded.meta("schema_version") == "3"
        columns = {r[1] for r in upgraded.db.execute("PRAGMA table_info(games)")}
        assert {"partner0", "partner1"} <= columns
        assert (upgraded.results(), upgraded.games(), upgraded.failures()) == before
        assert upgraded.deal_secret() == bytes(32)
        teams = [r.teams for r in upgraded.team_results()]
        assert teams == [(("a@v1", "a@v1"), ("b@v1", "b@v1")),
                         (("b@v1", "b@v1"), ("a@v1", "a@v1"))]
        (g0, g1) = upgraded.games()
        assert g1.seats == ("b@v1", "a@v1", "b@v1", "a@v1")
    with Store(path, read_only=True) as again:  # and reads the same once upgraded
        assert (again.results(), again.games(), again.failures()) == before


KEYS = ["a@v1", "b@v1", "c@v1", "d@v1"]


@pytest.fixture
def mixed_store(tmp_path):
    with Store(tmp_path / "m.sqlite") as store:
        for name in "abcd":
            store.register_entrant(entrant(name))
        yield store


def test_a_game_of_mixed_partners_keeps_all_four_seats(mixed_store):
    game = mixed_schedule(KEYS, 1, 3)[1]  # game 1 of the first pair: the teams swapped
    assert mixed_store.add_game(row(game, winner=0))
    assert not mixed_store.add_game(row(game, winner=0))
    (stored,) = mixed_store.games()
    assert stored.seats == game.seat_keys and stored.partners == game.seat_keys[2:]
    assert len(set(stored.seats)) == 4
    (result,) = mixed_store.team_results()
    assert result.teams == ((game.seat_keys[0], game.seat_keys[2]),
                            (game.seat_keys[1], game.seat_keys[3]))
    assert mixed_store.results() == []  # the ratings of fixed partners never see it


def test_a_mixed_game_stored_with_other_partners_is_an_integrity_error(mixed_store):
    game = mixed_schedule(KEYS, 1, 3)[0]
    mixed_store.add_game(row(game))
    a, b = game.partners
    mixed_store.db.execute("UPDATE games SET partner0 = ?, partner1 = ?", (b, a))  # forged
    with pytest.raises(IntegrityError, match=f"partner0 {b!r} stored, {a!r} played"):
        mixed_store.add_game(row(game))


def test_a_mixed_forfeit_is_charged_to_the_seat_that_failed_not_its_partner(mixed_store):
    game = mixed_schedule(KEYS, 1, 3)[0]
    mixed_store.add_game(row(game, winner=1, termination=Termination.CRASH, fault_seat=2))
    offender = game.seat_keys[2]
    assert mixed_store.failures() == {offender: {"crash": 1}}
    (result,) = mixed_store.team_results()
    assert result.forfeit == (0, "crash") and result.offender == offender


def test_a_void_game_of_both_teams_counts_each_failed_seat_once(mixed_store):
    game = mixed_schedule(KEYS, 1, 3)[0]
    void = GameRow(game, (0, 0), None, 0, Termination.START_FAILURE, None, "both", 0.1, "r",
                   seat_faults=((1, "start_failure"), (2, "handshake_failure")))
    mixed_store.add_game(void)
    seats = game.seat_keys
    assert mixed_store.failures() == {seats[1]: {"start_failure": 1},
                                      seats[2]: {"handshake_failure": 1}}


# ----- the questions the league and the SPRT runner ask (issue 47: SQL only in the store) ------

def three_entrant_store(tmp_path: Path) -> Store:
    store = Store(tmp_path / "q.sqlite")
    for name in ("a", "a_b", "c"):
        store.register_entrant(entrant(name))
    for game in round_robin(["a@v1", "a_b@v1", "c@v1"], 2, 1):
        store.add_game(row(game, winner=game.game_index))
    return store


def test_games_page_is_a_cursor_over_the_games_in_the_order_stored(tmp_path):
    with three_entrant_store(tmp_path) as store:
        first = store.games_page(0, 5)
        assert [r for r, _ in first] == [1, 2, 3, 4, 5]
        rest = store.games_page(first[-1][0], 50)
        assert [r for r, _ in rest] == list(range(6, 13))
        assert [g.game_id for _, g in store.games_page(0, 3, newest=True)] == [
            g.game_id for _, g in reversed(rest[-3:])]
        one = store.games_page(0, 5, game_id=rest[0][1].game_id)
        assert [g for _, g in one] == [rest[0][1]]


def test_games_page_of_a_bot_takes_its_name_literally(tmp_path):
    with three_entrant_store(tmp_path) as store:
        of_a = {g.game_id for _, g in store.games_page(0, 50, bot="a")}
        assert of_a and all("a@v1" in g.split("#")[0].split("~") for g in of_a)
        assert all("a_b@v1" in g for _, g in store.games_page(0, 50, bot="a_b")
                   for g in [g.game_id])
        assert store.games_page(0, 50, bot="a%") == [] and store.games_page(0, 50, bot="_") == []


def test_opponents_count_games_and_wins_of_a_bots_versions(tmp_path):
    with three_entrant_store(tmp_path) as store:
        rows = {o: (g, w) for o, g, w in store.opponents(["a@v1"])}
        # each matchup played 2 pairs: 4 games, the team of game index 0 winning game 0 of
        # each pair, team 1 of game 1: a won game 0 as team 0 and game 1 as team 1, so 4 of 4
        assert rows == {"a_b@v1": (4, 4), "c@v1": (4, 4)}
        assert {o: (g, w) for o, g, w in store.opponents(["c@v1"])} == {
            "a@v1": (4, 0), "a_b@v1": (4, 0)}
        assert store.opponents([]) == []


def test_last_pair_index_of_a_matchup(tmp_path):
    with three_entrant_store(tmp_path) as store:
        assert store.last_pair_index("a@v1~c@v1") == 1
        assert store.last_pair_index("a@v1~zz@v1") is None
        assert store.last_pair_index("a@v1~a_b@v1") == 1
