"""The coverage study behind tests/ratings/test_coverage.py, at full size: prints the share of
95% statements (intervals, or one-sided bounds for ratings set by the prior) that hold on
simulated duplicate round robins, per pairs per matchup and duplicate correlation, and for
fields of 20, 50 and 100 entrants with the fitted-vs-true slope.

    .venv/bin/python scripts/coverage_study.py [--quick]

Several minutes in full (pure-Python fits); --quick uses a tenth of the tournaments.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.ratings.helpers import coverage, evenly_spread  # noqa: E402

FIVE = {"e0": 0.0, "e1": 60.0, "e2": 120.0, "e3": 180.0, "e4": 300.0}


def line(label: str, held: int, made: int, bounds: int, slope: float, seconds: float) -> str:
    share = held / made
    se = math.sqrt(share * (1 - share) / made)
    return (f"{label:<34} {100 * share:6.2f}%  ±{100 * 1.96 * se:4.2f}  {made:6d} statements  "
            f"{bounds:4d} bounds  slope {slope:5.3f}  ({seconds:.0f} s)")


def main() -> None:
    scale = 0.1 if "--quick" in sys.argv else 1.0
    print("5 entrants (true 0, 60, 120, 180, 300 Elo; e0 the anchor); ± is the binomial 95% "
          "margin of the share")
    for antithetic in (0.0, 0.7, 0.9):
        for pairs, tournaments in ((2, 2000), (4, 1000), (8, 1000), (50, 250)):
            start = time.monotonic()
            held, made, bounds, slope = coverage(FIVE, pairs, max(10, int(tournaments * scale)),
                                                 seed=7 + pairs, antithetic=antithetic)
            print(line(f"  {pairs:2d} pairs/matchup, correlation {antithetic}", held, made,
                       bounds, slope, time.monotonic() - start), flush=True)
    print("Fields evenly over 0-800 Elo, 8 pairs per matchup, correlation 0.7")
    for size, tournaments in ((20, 100), (50, 20), (100, 5)):
        start = time.monotonic()
        held, made, bounds, slope = coverage(evenly_spread(size), 8,
                                             max(1, int(tournaments * scale)), seed=size)
        print(line(f"  {size:3d} entrants", held, made, bounds, slope,
                   time.monotonic() - start), flush=True)


if __name__ == "__main__":
    main()
