"""A guest at one seat (the organizer's own program, as `arena play human` seats a person):
it runs unsandboxed, under its own time control, in place of one copy of its team's
entrant; the bots keep their sandbox and their limits."""

from __future__ import annotations

import struct

import msgpack
import pytest

from arena.faults import LEFT_EXIT
from arena.referee.match import GameSpec, Guest, Match, TimeControl, run_game
from arena.referee.record import GuestInfo, Termination
from arena.sandbox import Isolation, resolve
from arena.tournament.records import read_record, write_record
from tests.pace import honest_time
from tests.processes import bot_processes
from tests.referee.conftest import HERE, ROOT, entrant

pytestmark = pytest.mark.timeout(180)

GUEST_TIME = TimeControl(hello=20.0, decision=600.0, bank=float("inf"), grace=0.0)


def frames_of(path) -> list[dict]:
    data = path.read_bytes()
    messages, at = [], 0
    while at < len(data):
        (size,) = struct.unpack(">I", data[at:at + 4])
        messages.append(msgpack.unpackb(data[at + 4:at + 4 + size]))
        at += 4 + size
    return messages


def spec_with_guest(seat: int) -> GameSpec:
    bot = entrant(ROOT / "bots" / "random")
    guest = Guest(seat, entrant(HERE / "bots" / "spy"), GUEST_TIME)
    return GameSpec("guest", 11, (bot, bot), target=300, time=honest_time(), guest=guest)


def test_a_guest_plays_its_seat_unsandboxed_under_its_own_time_control(tmp_path, monkeypatch):
    monkeypatch.setenv("TICHU_TEST_SPY_DIR", str(tmp_path))
    level = resolve("auto")  # the bots sandboxed wherever the machine allows
    record = run_game(spec_with_guest(3), isolation=level)
    assert record.termination is Termination.NORMAL, record.fault
    assert record.isolation == level.value
    assert record.guest == GuestInfo(3, "spy", record.guest.version)
    assert [record.seat_name(s) for s in range(4)] == ["random", "random", "random", "spy"]
    # the spy wrote what it received to the test's folder: no sandbox (whose only writable
    # place is a private /tmp) would have let it
    (log,) = tmp_path.glob("*.frames")
    messages = frames_of(log)
    welcome = messages[0]
    assert welcome["seat"] == 3
    assert welcome["settings"]["names"] == ["random", "random", "random", "spy"]
    assert welcome["limits"]["decision_ms"] == 600_000  # its own, not the game's
    asked = [m for m in messages if m["type"] == "request"]
    assert asked and all(m["deadline_ms"] == 600_000 for m in asked)
    assert messages[-1]["type"] == "end" and messages[-1]["reason"] == "game_over"
    assert not bot_processes(ROOT / "bots" / "random")


def test_a_record_with_a_guest_survives_saving_and_loading(tmp_path, monkeypatch):
    monkeypatch.setenv("TICHU_TEST_SPY_DIR", str(tmp_path))
    record = run_game(spec_with_guest(0), isolation=Isolation.NONE)
    path = tmp_path / "game.json"
    write_record(record, path, gzipped=False)
    loaded = read_record(path)
    assert loaded.guest == record.guest
    assert loaded.seat_name(0) == "spy" and loaded.seat_name(2) == "random"


def test_a_match_refuses_a_game_without_its_guest():
    spec = spec_with_guest(1)
    bot = spec.entrants[0]
    with Match(bot, bot, isolation=Isolation.NONE) as match, \
            pytest.raises(ValueError, match="does not have this match's guest"):
        match.seat_conns(spec)


def test_a_guest_that_exits_saying_its_person_left_is_recorded_as_left(monkeypatch):
    """A guest's program that exits with LEFT_EXIT (the human seat's quit or end of input)
    leaves the game: `left`, a forfeit of its team, not a crash; its output is kept."""
    monkeypatch.setenv("TICHU_TEST_FAULT", "crash")
    monkeypatch.setenv("TICHU_TEST_FAULT_AT", "2")
    monkeypatch.setenv("TICHU_TEST_EXIT", str(LEFT_EXIT))
    bot = entrant(ROOT / "bots" / "random")
    guest = Guest(1, entrant(HERE / "bots" / "faulty"), GUEST_TIME, person=True)
    record = run_game(GameSpec("left", 5, (bot, bot), target=300, time=honest_time(),
                               guest=guest), isolation=resolve("auto"))
    assert record.termination is Termination.LEFT, record.fault
    assert record.fault is not None and record.fault.seat == 1 and record.winner == 0
    assert record.fault.message == "left the game (forfeit)"
    assert record.fault.details["exit_code"] == LEFT_EXIT
    assert "crashing on purpose" in record.fault.details["output"]
    assert not bot_processes(HERE / "bots" / "faulty")


def test_a_bot_that_exits_as_a_person_leaving_still_crashed(monkeypatch):
    """Control: the same exit status from a seat no guest plays is a crash (a bot cannot
    pass its failure off as a person's leaving)."""
    monkeypatch.setenv("TICHU_TEST_FAULT", "crash")
    monkeypatch.setenv("TICHU_TEST_FAULT_AT", "2")
    monkeypatch.setenv("TICHU_TEST_EXIT", str(LEFT_EXIT))
    faulty, bot = entrant(HERE / "bots" / "faulty"), entrant(ROOT / "bots" / "random")
    record = run_game(GameSpec("crash", 5, (bot, faulty), target=300, time=honest_time()),
                      isolation=resolve("auto"))
    assert record.termination is Termination.CRASH, record.fault
    assert record.fault is not None and record.fault.details["exit_code"] == LEFT_EXIT
