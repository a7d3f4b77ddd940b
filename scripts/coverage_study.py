"""The coverage study behind tests/ratings/test_coverage.py, at full size: prints the share of
95% statements (intervals, or one-sided bounds for ratings set by the prior) that hold on
simulated duplicate round robins, per pairs per matchup and duplicate correlation, and for
fields of 20, 50 and 100 entrants with the fitted-vs-true slope.

    .venv/bin/python scripts/coverage_study.py [--quick]

Several minutes in full (pure-Python fits); --quick uses a tenth of the tournaments.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.ratings.helpers import coverage, evenly_spread  # noqa: E402

FIVE = {"e0": 0.0, "e1": 60.0, "e2": 120.0, "e3": 180.0, "e4": 300.0}


def line(label: str, result, seconds: float) -> str:
    return (f"{label:<34} {100 * result.share:6.2f}%  ±{100 * result.margin:4.2f}  "
            f"{result.made:6d} statements  {result.bounds:4d} bounds  "
            f"slope {result.slope:5.3f}  ({seconds:.0f} s)")


def main() -> None:
    scale = 0.1 if "--quick" in sys.argv else 1.0
    print("5 entrants (true 0, 60, 120, 180, 300 Elo; e0 the anchor); ± is the 95% margin of "
          "the share, from the spread between tournaments (or binomial, if larger)")
    for antithetic in (0.0, 0.7, 0.9):
        for pairs, tournaments in ((2, 2000), (4, 1000), (8, 1000), (50, 250)):
            start = time.monotonic()
            result = coverage(FIVE, pairs, max(10, int(tournaments * scale)), seed=7 + pairs,
                              antithetic=antithetic)
            print(line(f"  {pairs:2d} pairs/matchup, correlation {antithetic}", result,
                       time.monotonic() - start), flush=True)
    print("Fields evenly over 0-800 Elo, 8 pairs per matchup, correlation 0.7")
    for size, tournaments in ((20, 200), (50, 40), (100, 20)):
        start = time.monotonic()
        result = coverage(evenly_spread(size), 8, max(2, int(tournaments * scale)),
                          seed=1000 + size)
        print(line(f"  {size:3d} entrants, {len(result.per_tournament)} tournaments", result,
                   time.monotonic() - start), flush=True)


if __name__ == "__main__":
    main()
