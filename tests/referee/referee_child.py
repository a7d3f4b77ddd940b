"""Run one game in a process of its own and print what the referee process cost: for tests
that measure the referee's peak memory (ru_maxrss of this process alone, bots excluded).

Usage: python -m tests.referee.referee_child BOT_A BOT_B [HELLO DECISION BANK GRACE] (the
time control, in seconds: the caller's honest one at the pace it measured, tests.pace, so
that this process's peak memory is the referee's alone); prints one JSON line: termination,
fault seat and message, winner, and maxrss_kib.
"""

from __future__ import annotations

import json
import resource
import sys
from pathlib import Path

from arena.referee.manifest import folder_hash, load_manifest
from arena.referee.match import Entrant, GameSpec, TimeControl, run_game


def main() -> None:
    folders = [Path(sys.argv[1]), Path(sys.argv[2])]
    limits = [float(a) for a in sys.argv[3:7]] or [5.0, 2.0, 60.0, 0.2]
    entrants = [Entrant(load_manifest(f), folder_hash(f)) for f in folders]
    spec = GameSpec("child", 1, (entrants[0], entrants[1]), target=50,
                    time=TimeControl(*limits))
    record = run_game(spec)
    fault = record.fault
    print(json.dumps({
        "termination": record.termination.value, "winner": record.winner,
        "seat": fault.seat if fault else None, "message": fault.message if fault else None,
        "maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))


if __name__ == "__main__":
    main()
