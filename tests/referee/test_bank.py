"""The `bank` capability (PROTOCOL.md 5.1, 5.2, 9.4): a seat that says it is told its time
bank in `welcome.limits.bank_ms`; a seat that does not gets exactly the welcome of before.

Spy bots write every frame they receive; one entrant says `bank`, the other does not, in
the same game, so the rule is seen to apply per seat, through the real referee.
"""

from __future__ import annotations

import math
import struct

import msgpack
import pytest

from arena.referee import wire
from arena.referee.match import GameSpec, TimeControl, run_game
from arena.referee.record import Termination
from arena.sandbox import Isolation
from tests.referee.test_auto_pass import _spy_saying

BANK = TimeControl(hello=5.0, decision=2.0, bank=61.25, grace=0.2)  # a bank of 61 250 ms


def raw_frames(path) -> list[bytes]:
    """The frames a spy received, as bytes."""
    data = path.read_bytes()
    out, i = [], 0
    while i < len(data):
        (n,) = struct.unpack(">I", data[i:i + 4])
        out.append(data[i + 4:i + 4 + n])
        i += 4 + n
    return out


@pytest.mark.timeout(120)
def test_only_a_seat_that_says_bank_is_told_its_bank_and_the_others_get_the_old_bytes(
        tmp_path, monkeypatch):
    frames_dir = tmp_path / "frames"
    frames_dir.mkdir()
    monkeypatch.setenv("TICHU_TEST_SPY_DIR", str(frames_dir))
    banked = _spy_saying(tmp_path / "banked", ["bank"])  # named spy1
    plain = _spy_saying(tmp_path / "plain", [])           # named spy0
    # unsandboxed: the spy writes the frames it receives to a folder of the test
    record = run_game(GameSpec("bank-told", 5, (banked, plain), target=200, time=BANK),
                      isolation=Isolation.NONE)
    assert record.termination is Termination.NORMAL, record.fault

    welcomes = {}
    for log in frames_dir.glob("*.frames"):
        first = raw_frames(log)[0]
        welcomes[msgpack.unpackb(first)["seat"]] = first
    assert sorted(welcomes) == [0, 1, 2, 3]
    for seat, data in welcomes.items():
        # the welcome as it was before the capability existed, written out by hand
        old = {"type": "welcome", "protocol": 1, "seat": seat, "options": True,
               "settings": {"game": "bank-told", "target": 200,
                            "names": ["spy1", "spy0", "spy1", "spy0"]},
               "limits": {"hello_ms": 5000, "decision_ms": 2000,
                          "max_message_bytes": 1048576}}
        if seat % 2 == 0:  # said `bank`: the configured bank, last in `limits`
            told = {**old, "limits": {**old["limits"], "bank_ms": 61250}}
            assert msgpack.unpackb(data) == told
            assert data == msgpack.packb(told)
        else:
            assert data == msgpack.packb(old)


def test_the_announced_bank_is_whole_milliseconds_rounded_down_and_bounded():
    assert wire.bank_limit_ms(61.25) == 61250
    assert wire.bank_limit_ms(0.0019) == 1  # never more than the bank
    assert wire.bank_limit_ms(0.0) == 0
    assert wire.bank_limit_ms(3e6) == wire.bank_limit_ms(math.inf) == 2**31 - 1
