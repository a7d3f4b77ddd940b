"""End-to-end games over real sockets and processes: outcomes, records, determinism, reuse."""

from __future__ import annotations

import gzip
import logging

import pytest

from arena.referee.match import GameSpec, Match, run_game
from arena.referee.record import GameRecord, Termination, resimulate
from arena.tournament.records import read_record, write_record
from tests.pace import honest_time
from tests.processes import bot_processes
from tests.referee.conftest import ROOT

pytestmark = pytest.mark.timeout(120)


def test_full_game_between_the_reference_bots_ends_normally(heuristic_bot, random_bot, tmp_path):
    record = run_game(GameSpec("e2e", 5, (heuristic_bot, random_bot), time=honest_time()))
    assert record.termination is Termination.NORMAL
    assert record.fault is None
    assert max(record.scores) >= 1000 and record.scores[0] != record.scores[1]
    assert record.winner == (0 if record.scores[0] > record.scores[1] else 1)
    assert record.rounds == len(record.round_scores) >= 1
    assert record.round_scores[-1] == record.scores
    assert all(d["latency_ms"] >= 0 for d in record.decisions)
    assert sum(record.time_used) > 0
    assert not bot_processes(ROOT / "bots" / "heuristic")
    assert not bot_processes(ROOT / "bots" / "random")


def test_record_round_trips_through_json_and_resimulates_exactly(heuristic_bot, random_bot,
                                                                 tmp_path):
    record = run_game(GameSpec("rec", 9, (random_bot, heuristic_bot), target=500,
                               time=honest_time()))
    path = tmp_path / "game.json"
    write_record(record, path, gzipped=False)  # as `arena play --record` writes it
    assert path.read_bytes()[:1] == b"{"
    loaded = read_record(path)
    assert loaded == record
    zipped = tmp_path / "game.json.gz"
    zipped.write_bytes(gzip.compress(path.read_bytes()))
    assert read_record(zipped) == record, "tournament records are gzipped"
    game = resimulate(loaded)
    assert game.over and tuple(game.scores) == record.scores


def test_same_seed_and_deterministic_bots_give_an_identical_record(trivial_bot):
    def stripped(record: GameRecord) -> tuple:
        decisions = [{k: v for k, v in d.items() if k != "latency_ms"} for d in record.decisions]
        return decisions, record.events, record.scores, record.round_scores, record.winner

    time = honest_time()
    first = run_game(GameSpec("det", 11, (trivial_bot, trivial_bot), target=300, time=time))
    second = run_game(GameSpec("det", 11, (trivial_bot, trivial_bot), target=300, time=time))
    assert first.termination is Termination.NORMAL
    assert stripped(first) == stripped(second)


def test_a_match_reuses_multi_game_processes_across_a_duplicate_pair(heuristic_bot, random_bot):
    with Match(heuristic_bot, random_bot) as match:
        first = match.play(GameSpec("pair-a", 3, (heuristic_bot, random_bot), target=300,
                                    time=honest_time()), last=False)
        pids = sorted(c.process.pid for c in match.conns)
        second = match.play(GameSpec("pair-b", 3, (random_bot, heuristic_bot), target=300,
                                     time=honest_time()), last=False)  # else they stop at its end
        assert sorted(c.process.pid for c in match.conns) == pids
    assert first.termination is second.termination is Termination.NORMAL
    # the same deals with the teams swapped: the first round's first deal event is the same
    deals = [[e for e in r.events if e["kind"] == "deal"][:4] for r in (first, second)]
    assert deals[0] == deals[1]
    assert not bot_processes(ROOT / "bots" / "heuristic")


def test_the_debug_log_shows_every_message_exchanged(trivial_bot, caplog):
    with caplog.at_level(logging.DEBUG, logger="arena.referee.match"):
        record = run_game(GameSpec("log", 2, (trivial_bot, trivial_bot), target=100,
                                   time=honest_time()))
    assert record.termination is Termination.NORMAL
    sent = [r.message for r in caplog.records if ": << " in r.message]
    received = [r.message for r in caplog.records if ": >> " in r.message]
    assert any("'type': 'welcome'" in m for m in sent)
    asked = [d for d in record.decisions if not d.get("auto")]  # auto passes send nothing
    assert sum("'type': 'request'" in m for m in sent) == len(asked)
    assert len(received) == len(asked)
