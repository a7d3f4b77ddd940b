"""The run's writer (`GameWriter`): group commits that lose nothing on close, report only what
is committed, and survive a SIGKILL mid-batch (records written by workers or by the writer
itself): the store opens, the sweep leaves no record without its row, and a resume stores
exactly what is missing."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from arena.referee.record import EntrantInfo, GameRecord
from arena.tournament.records import pending_record, read_record, sweep_pending, write_record
from arena.tournament.schedule import missing, round_robin
from arena.tournament.store import EntrantRow, GameRow, GameWriter, IntegrityError, Store

pytestmark = pytest.mark.timeout(60)

KEYS = [f"e{k}@v1" for k in range(4)]
RECORDS = "s.sqlite.records"


def open_store(folder: Path) -> Store:
    store = Store(folder / "s.sqlite")
    for key in KEYS:
        name = key.split("@")[0]
        store.register_entrant(EntrantRow(key, name, "v1", "1.0", "python", f"/bots/{name}",
                                          "config", False))
    return store


def finished(store: Store, game, winner: int = 0) -> tuple[GameRow, Path]:
    """A played game as a worker hands it over: its row and its record under a pending name."""
    scores = (1000, 300) if winner == 0 else (300, 1000)
    relative = f"{RECORDS}/{game.record_name}.json.gz"
    record = GameRecord(game.game_id, game.seed, 1000,
                        tuple(EntrantInfo(t.split("@")[0], "v1", "") for t in game.teams),
                        scores=scores, winner=winner, rounds=3)
    pending = pending_record(store.record_path(relative))
    write_record(record, pending)
    return GameRow.from_record(game, record, relative), pending


def record_files(folder: Path) -> tuple[set[str], set[Path]]:
    """(final record names relative to the store's folder, pending files)."""
    files = [p for p in (folder / RECORDS).rglob("*") if p.is_file()]
    return ({str(p.relative_to(folder)) for p in files if not p.name.endswith(".pending")},
            {p for p in files if p.name.endswith(".pending")})


def test_closing_the_writer_stores_every_game_added_and_reports_each_once(tmp_path):
    games = round_robin(KEYS, 2, 7)
    with open_store(tmp_path) as store:
        reported = []
        with GameWriter(store, max_batch=7) as writer:
            for game in games:
                writer.add(*finished(store, game))
                reported += writer.stored()
        reported += writer.stored()
        assert sorted(r.game.game_id for r, new in reported if new) == \
            sorted(g.game_id for g in games)
        assert store.done_game_ids() == {g.game_id for g in games}
        rows = {g.record for g in store.games()}
    final, pending = record_files(tmp_path)
    assert final == rows and not pending


def test_a_game_stored_again_with_its_result_is_not_counted_twice(tmp_path):
    game = round_robin(KEYS, 1, 7)[0]
    with open_store(tmp_path) as store:
        with GameWriter(store) as writer:
            writer.add(*finished(store, game))
            writer.add(*finished(store, game))
        assert [new for _, new in writer.stored()] == [True, False]
        assert store.game_count() == 1
    final, pending = record_files(tmp_path)
    assert len(final) == 1 and not pending


def test_a_conflicting_result_raises_and_the_games_around_it_are_stored(tmp_path):
    first, second, third = round_robin(KEYS, 1, 7)[:3]
    with open_store(tmp_path) as store:
        forged, forged_record = finished(store, second, winner=1)
        store.add_game(forged)  # stored by someone else
        forged_record.unlink()
        writer = GameWriter(store)
        writer.add(*finished(store, first))
        writer.add(*finished(store, third))
        writer.add(*finished(store, second, winner=0))
        with pytest.raises(IntegrityError, match=re.escape(second.game_id)):
            writer.close()
        row, pending = finished(store, round_robin(KEYS, 1, 7)[3])
        with pytest.raises(IntegrityError):  # and from any later add, its record deleted
            writer.add(row, pending)
        assert not pending.exists()
        assert store.done_game_ids() == {first.game_id, second.game_id, third.game_id}
        assert store.results()[1].winner == 1  # the first result stands
    final, pending = record_files(tmp_path)
    assert len(final) == 2 and not pending  # the conflicting game's record is gone


WRITER = textwrap.dedent("""
    import sys
    from pathlib import Path
    sys.path[:0] = [sys.argv[2]]
    from tests.tournament.test_store_writer import finished, open_store, round_robin, KEYS
    from arena.tournament.store import GameWriter

    folder = Path(sys.argv[1])
    store = open_store(folder)
    writer = GameWriter(store, max_batch=10)
    for k, game in enumerate(round_robin(KEYS, 10, 7)):
        row, pending = finished(store, game)
        if k % 2:  # half of them as a cluster's records: the writer writes the file
            data = pending.read_bytes()
            pending.unlink()
            writer.add(row, data)
        else:
            writer.add(row, pending)
        for row, new in writer.stored():
            print(row.game.game_id, flush=True)  # reported stored: committed
    writer.close()
    print("closed", flush=True)
""")


def test_a_writer_killed_mid_batch_loses_only_uncommitted_games(tmp_path):
    root = Path(__file__).resolve().parents[2]
    child = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), str(root)],
                             stdout=subprocess.PIPE, text=True)
    reported = set()
    for line in child.stdout:
        reported.add(line.strip())
        if len(reported) >= 40:
            break
    child.send_signal(signal.SIGKILL)
    child.wait()
    child.stdout.close()
    assert "closed" not in reported
    schedule = round_robin(KEYS, 10, 7)
    with open_store(tmp_path) as store:
        done = store.done_game_ids()
        assert reported <= done < {g.game_id for g in schedule}
        sweep_pending(tmp_path / RECORDS, store)
        final, pending = record_files(tmp_path)
        assert not pending and final == {g.record for g in store.games()}
        todo = missing(schedule, done)
        assert {g.game_id for g in todo} == {g.game_id for g in schedule} - done
        with GameWriter(store) as writer:  # the resume: what is missing, once
            for game in todo:
                writer.add(*finished(store, game))
        assert all(new for _, new in writer.stored())
        assert store.done_game_ids() == {g.game_id for g in schedule}
        final, pending = record_files(tmp_path)
        assert not pending and final == {g.record for g in store.games()}


def test_records_the_coordinator_holds_are_written_synced_and_linked_once_committed(tmp_path):
    games = round_robin(KEYS, 1, 7)
    with open_store(tmp_path) as store:
        with GameWriter(store) as writer:
            for k, game in enumerate(games):
                row, pending = finished(store, game)
                if k % 2:  # from a cluster: the bytes only, the writer writes the file
                    data = pending.read_bytes()
                    pending.unlink()
                    writer.add(row, data)
                else:
                    writer.add(row, pending)
        assert sum(new for _, new in writer.stored()) == len(games)
        for stored in store.games():
            assert read_record(store.record_path(stored.record)).game_id == stored.game_id
    final, pending = record_files(tmp_path)
    assert len(final) == len(games) and not pending
