"""A seat's messages rebuilt from the record (`arena.referee.seatstream`) are, byte for byte,
the frames the referee sent that seat in the real game: tape bots write every frame they
receive, and each seat's rebuilt stream, fitted to its bot's capabilities, is compared with
what its bot wrote. Games of fixed and mixed partners, several seeds (Tichu calls, bombs,
wishes and Dragon gifts among their decisions), capabilities that change the messages
(`seed`, `bank`, `auto_pass`), and a game a seat forfeits by a crash."""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest

from arena.referee.match import Entrant, GameSpec, run_game
from arena.referee.record import GameRecord, Termination
from arena.referee.seatstream import SeatStream, failed_seats, fitted, seat_stream
from arena.sandbox import Isolation
from protocol import codec
from tests.pace import honest_time
from tests.referee.conftest import HERE, entrant

pytestmark = pytest.mark.timeout(240)
CAPABILITIES = ["seed", "bank", "auto_pass"]


def tape(folder: Path, name: str, capabilities: list[str]) -> Entrant:
    """A copy of the tape bot named `name`, saying `capabilities` at hello."""
    shutil.copytree(HERE / "bots" / "tape", folder)
    toml = folder / "bot.toml"
    command = ", ".join(f'"{word}"' for word in ["python", "bot.py", *capabilities])
    toml.write_text(toml.read_text().replace('name = "tape"', f'name = "{name}"')
                    .replace('["python", "bot.py"]', f"[{command}]"))
    return entrant(folder)


def frames(path: Path) -> list[bytes]:
    data = path.read_bytes()
    out, i = [], 0
    while i < len(data):
        (n,) = struct.unpack(">I", data[i:i + 4])
        out.append(data[i + 4:i + 4 + n])
        i += 4 + n
    return out


def logged(folder: Path) -> dict[int, list[bytes]]:
    """The frames each seat's bot received, by seat (its welcome names it)."""
    by_seat = {}
    for log in folder.glob("*.frames"):
        received = frames(log)
        by_seat[codec.unpack(received[0])["seat"]] = received
    return by_seat


def assert_rebuilt(record: GameRecord, folder: Path, capabilities: dict[int, list[str]]) -> None:
    sent = logged(folder)
    assert sorted(sent) == [0, 1, 2, 3]
    for seat in range(4):
        stream = seat_stream(record, seat)
        again = SeatStream.from_json(stream.to_json())  # as the league sends it
        rebuilt = [codec.pack(m) for m in again.fitted(capabilities[seat])]
        assert rebuilt == sent[seat], f"seat {seat}"
        assert len(rebuilt) > 3


def play(tmp_path: Path, monkeypatch, seed: int, mixed: bool, crash_at: int = 0
         ) -> tuple[GameRecord, Path, dict[int, list[str]]]:
    folder = tmp_path / "frames"
    folder.mkdir(parents=True)
    monkeypatch.setenv("TICHU_TEST_TAPE_DIR", str(folder))
    if crash_at:
        monkeypatch.setenv("TICHU_TEST_TAPE_FAULT", "crash")
        monkeypatch.setenv("TICHU_TEST_TAPE_AT", str(crash_at))
    says = [CAPABILITIES, [], ["seed"], ["bank", "auto_pass"]] if mixed else \
        [CAPABILITIES, [], CAPABILITIES, []]
    names = ["north", "east", "south", "west"] if mixed else ["north", "east"]
    bots = [tape(tmp_path / name, name, says[k]) for k, name in enumerate(names)]
    spec = GameSpec(f"stream-{seed}", seed, (bots[0], bots[1]), target=300,
                    time=honest_time(), partners=(bots[2], bots[3]) if mixed else None)
    record = run_game(spec, isolation=Isolation.NONE)  # unsandboxed: the bots write here
    return record, folder, dict(enumerate(says))


@pytest.mark.parametrize("seed", [3, 11])
def test_each_seats_rebuilt_stream_is_what_the_referee_sent_it(tmp_path, monkeypatch, seed):
    record, folder, says = play(tmp_path, monkeypatch, seed, mixed=False)
    assert record.termination is Termination.NORMAL, record.fault
    assert record.time_control is not None
    assert_rebuilt(record, folder, says)
    assert_rebuilt(GameRecord.from_json(record.to_json()), folder, says)  # from its file


def test_mixed_partners_streams_are_rebuilt_too(tmp_path, monkeypatch):
    record, folder, says = play(tmp_path, monkeypatch, 7, mixed=True)
    assert record.termination is Termination.NORMAL, record.fault
    assert_rebuilt(record, folder, says)


def test_a_game_a_seat_crashed_in_is_rebuilt_to_its_failing_request(tmp_path, monkeypatch):
    record, folder, says = play(tmp_path, monkeypatch, 5, mixed=False, crash_at=9)
    assert record.termination is Termination.CRASH and record.fault is not None
    assert failed_seats(record) == [record.fault.seat]
    assert_rebuilt(record, folder, says)
    stream = seat_stream(record, record.fault.seat)
    last = stream.messages[-1]
    assert stream.failing == record.fault.decision == last.decision
    assert last.message["type"] == "request" and last.reply is None
    assert sum(m.message["type"] == "request" for m in stream.messages) == 9
    other = seat_stream(record, 1 - record.fault.seat % 2)
    assert other.failing is None and other.messages[-1].message["reason"] == "aborted"


def test_the_game_has_the_decisions_worth_replaying(tmp_path, monkeypatch):
    # the seeds above hold Tichu calls, wishes, bombs and Dragon gifts: a stream that
    # rebuilt only plain plays would not be tested by them
    kinds: set[str] = set()
    for seed in (3, 11):
        record, _, _ = play(tmp_path / str(seed), monkeypatch, seed, mixed=False)
        kinds |= {e["kind"] for e in record.events}
        kinds |= {d["kind"] for d in record.decisions}
        kinds |= {e["combination"] for e in record.events if e["kind"] == "play"}
    assert {"wish", "tichu", "dragon_gift", "bomb", "exchange", "grand_tichu"} <= kinds, kinds
    assert kinds & {"four_of_a_kind", "straight_flush"}, "no bomb was played"


def test_fitting_keeps_each_key_in_its_place():
    welcome = {"type": "welcome", "protocol": 1, "seat": 2, "options": True,
               "settings": {}, "limits": {"hello_ms": 1, "decision_ms": 2,
                                          "max_message_bytes": 3, "bank_ms": 4}, "seed": 5}
    plain = fitted(welcome, ["no_options"])
    assert plain == {"type": "welcome", "protocol": 1, "seat": 2, "options": False,
                     "settings": {}, "limits": {"hello_ms": 1, "decision_ms": 2,
                                                "max_message_bytes": 3}}
    assert list(fitted(welcome, ["seed", "bank"])) == list(welcome)
    request = {"type": "request", "id": 1, "options": [{"action": "pass"}], "events": []}
    assert fitted(request, ["no_options"])["options"] is None
    assert fitted(request, [])["options"] == [{"action": "pass"}]


def test_an_older_record_without_its_time_control_takes_the_one_given():
    from arena.presentation.bench import play_record
    from arena.referee.match import TimeControl

    record = play_record("old", 3, ["a@1", "b@2"], set(), target=200)
    assert record.time_control is None
    welcome = seat_stream(record, 1, TimeControl(decision=1.5)).messages[0].message
    assert welcome["limits"]["decision_ms"] == 1500
    assert seat_stream(record, 1).messages[0].message["limits"]["decision_ms"] == 5000
