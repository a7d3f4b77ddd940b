"""A seat's clock runs only while it alone is thinking, in the simultaneous phases too.

Two "thinker" copies burn 0.2 s of CPU time on every Grand Tichu, exchange and Tichu
decision, all processes on one CPU. Asked at once, both thinkers would share the CPU and
each be charged about 0.4 s; asked one after the other, each is charged its own 0.2 s.
"""

from __future__ import annotations

import shutil

import pytest

from arena.referee.placement import pinned
from arena.referee.record import Termination
from arena.referee.match import GameSpec, TimeControl, run_game
from tests.referee.conftest import ROOT, entrant

pytestmark = pytest.mark.timeout(120)

THINKER = '''
import sys, time
from protocol.sdk import FunctionBot, choose, exchange, run

def decide(request):
    if request["kind"] in ("grand_tichu", "exchange", "tichu"):
        end = time.thread_time() + 0.2
        while time.thread_time() < end:
            pass
    if request["kind"] == "exchange":
        return exchange(request["observation"]["hand"][:3])
    return choose(0)

sys.exit(run(FunctionBot(decide, name="thinker", version="1")))
'''


def test_simultaneous_decisions_charge_each_seat_only_its_own_thinking(tmp_path):
    folder = tmp_path / "thinker"
    folder.mkdir()
    (folder / "bot.py").write_text(THINKER)
    (folder / "bot.toml").write_text('name = "thinker"\nversion = "1"\nlanguage = "python"\n'
                                     'command = ["python", "bot.py"]\n')
    trivial = entrant(ROOT / "arena" / "cli" / "benchbots" / "trivial")
    with pinned() as cpu:
        if cpu is None:
            pytest.skip("needs a CPU to pin the game to")
        record = run_game(GameSpec("clock", 1, (entrant(folder), trivial), target=100,
                                   time=TimeControl(decision=5.0, bank=120.0)))
    assert record.termination is Termination.NORMAL
    thinking = [d["latency_ms"] for d in record.decisions
                if d["seat"] % 2 == 0 and d["kind"] in ("grand_tichu", "exchange", "tichu")]
    assert len(thinking) >= 6
    assert min(thinking) >= 190
    assert max(thinking) < 320, thinking  # about 400 if the two thinkers had shared the CPU
