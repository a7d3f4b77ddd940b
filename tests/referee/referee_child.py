"""Run one game in a process of its own and print what the referee process cost: for tests
that measure the referee's peak memory (ru_maxrss of this process alone, bots excluded).

Usage: python -m tests.referee.referee_child BOT_A BOT_B [HELLO_SECONDS]; prints one JSON
line: termination, fault seat and message, winner, and maxrss_kib.
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
    hello = float(sys.argv[3]) if len(sys.argv) > 3 else 5.0
    entrants = [Entrant(load_manifest(f), folder_hash(f)) for f in folders]
    spec = GameSpec("child", 1, (entrants[0], entrants[1]), target=50,
                    time=TimeControl(hello=hello, decision=2.0, bank=60.0))
    record = run_game(spec)
    fault = record.fault
    print(json.dumps({
        "termination": record.termination.value, "winner": record.winner,
        "seat": fault.seat if fault else None, "message": fault.message if fault else None,
        "maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))


if __name__ == "__main__":
    main()
