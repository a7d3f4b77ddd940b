"""A seat's clock runs only while it alone is thinking, in the simultaneous phases too.

Two "thinker" copies (seats 0 and 2) burn 0.05 s of CPU time on every Grand Tichu, exchange
and Tichu decision (far above the microseconds of the timestamps; 0.2 s cost 3 s of CPU a
run) and write, to their output, when each thinking began and ended on the machine's clock.
Asked at once, the two thinkers would think at the same time (and each be
charged the other's thinking); asked one after the other, their thinking never overlaps,
however slow or busy the machine is, and a seat's clock runs while it thinks.
"""

from __future__ import annotations

import itertools
import re

import pytest

from arena.referee.match import GameSpec, run_game
from arena.referee.record import Termination
from tests.pace import honest_time
from tests.referee.conftest import ROOT, entrant

pytestmark = pytest.mark.timeout(120)

THINKER = '''
import sys, time
from protocol.sdk import FunctionBot, choose, exchange, run

def decide(request):
    if request["kind"] in ("grand_tichu", "exchange", "tichu"):
        start = time.time()
        end = time.thread_time() + 0.05
        while time.thread_time() < end:
            pass
        print(f"THINK {request['id']} {start:.6f} {time.time():.6f}", file=sys.stderr,
              flush=True)
    if request["kind"] == "exchange":
        return exchange(request["observation"]["hand"][:3])
    return choose(0)

sys.exit(run(FunctionBot(decide, name="thinker", version="1")))
'''

_THINK = re.compile(r"^THINK (\d+) ([\d.]+) ([\d.]+)$", re.M)


def test_simultaneous_decisions_charge_each_seat_only_its_own_thinking(tmp_path):
    folder = tmp_path / "thinker"
    folder.mkdir()
    (folder / "bot.py").write_text(THINKER)
    (folder / "bot.toml").write_text('name = "thinker"\nversion = "1"\nlanguage = "python"\n'
                                     'command = ["python", "bot.py"]\n')
    trivial = entrant(ROOT / "arena" / "cli" / "benchbots" / "trivial")
    record = run_game(GameSpec("clock", 1, (entrant(folder), trivial), target=100,
                               time=honest_time(hello=10.0, decision=30.0, bank=600.0)))
    assert record.termination is Termination.NORMAL, record.fault
    spans = {int(i): (float(a), float(b)) for seat in (0, 2)
             for i, a, b in _THINK.findall(record.bot_output[seat])}
    asked = {d["id"]: d for d in record.decisions if d["id"] in spans}
    assert len(asked) >= 6 and {d["seat"] for d in asked.values()} == {0, 2}
    for request_id, decision in asked.items():  # its clock ran while it thought (the
        start, end = spans[request_id]          # referee's timestamps lag a little on a busy
        assert decision["latency_ms"] >= (end - start) * 500, (decision, end - start)  # CPU)
    by_start = sorted(spans.values())
    for (_, first_end), (second_start, _) in itertools.pairwise(by_start):
        assert first_end <= second_start, by_start  # never two seats thinking at once
