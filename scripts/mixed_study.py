"""The study behind tests/ratings/test_individual.py and test_synergy.py at full size: on
simulated tournaments of mixed partners (the real movement, games that follow the individual
model exactly, duplicate pairs whose second game reuses the deal's luck with probability 0.7),
the share of 95% statements about individual ratings that hold and the slope of fitted on
true ratings, per field size; then how often the synergy table flags a pair in a field
without synergy, and how often it flags a pair with a synergy planted.

    .venv/bin/python scripts/mixed_study.py [--quick]

A few minutes in full (pure-Python fits, each synergy table one fit per partnership);
--quick uses a fifth of the tournaments.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.ratings.individual import fit_individual, rated_team_pairs  # noqa: E402
from arena.ratings.synergy import synergies  # noqa: E402
from arena.tournament.movement import movement  # noqa: E402
from tests.ratings.mixed import evenly, mixed_coverage, simulate_mixed  # noqa: E402

# (entrants, cycles, tournaments): each entrant meets each other in 2 * partner_times *
# cycles games as partner or opponent; 32 such games in the main rows (64 for 5 entrants)
RATINGS = [(5, 32, 300), (6, 8, 300), (7, 8, 200), (8, 16, 150), (12, 16, 40), (20, 16, 8)]
SMALL = [(5, 4, 300), (8, 4, 200), (12, 2, 100)]
SYNERGY = [(6, 8, 0.0, 100), (6, 8, 200.0, 100), (8, 16, 150.0, 40)]


def per_other(size: int, cycles: int) -> int:
    """Games each entrant plays with or against each other entrant."""
    return 2 * movement([f"e{k}" for k in range(size)]).partner_times * cycles


def rating_line(size: int, cycles: int, tournaments: int, seed: int) -> str:
    start = time.monotonic()
    result = mixed_coverage(evenly(size), cycles, tournaments, seed=seed)
    return (f"  {size:3d} entrants, {cycles:2d} cycles ({per_other(size, cycles):2d} games per "
            f"other), {len(result.per_tournament):3d} tournaments: {100 * result.share:6.2f}% "
            f"±{100 * result.margin:4.2f} of {result.made:5d}  slope {result.slope:5.3f}  "
            f"({time.monotonic() - start:.0f} s)")


def synergy_line(size: int, cycles: int, planted: float, tournaments: int, seed: int) -> str:
    start = time.monotonic()
    rng = random.Random(seed)
    true = evenly(size, 200.0)
    keys = sorted(true)
    pair = frozenset(keys[1:3])
    plant = {pair: planted} if planted else {}
    any_flag = flagged = 0
    estimates = []
    for _ in range(tournaments):
        pairs = rated_team_pairs(simulate_mixed(true, cycles, rng, synergy=plant))
        table = synergies(pairs, fit_individual(pairs, anchor=keys[0]))
        any_flag += bool(table.flagged)
        mine = next(s for s in table.pairs if {s.a, s.b} == pair)
        flagged += mine.flagged
        estimates.append(mine.elo)
    mean = sum(estimates) / len(estimates)
    return (f"  {size:3d} entrants, {cycles:2d} cycles, synergy {planted:+4.0f} planted: a flag "
            f"in {100 * any_flag / tournaments:5.1f}% of {tournaments} tournaments, the planted "
            f"pair flagged in {100 * flagged / tournaments:5.1f}%, its mean estimate "
            f"{mean:+6.1f} Elo  ({time.monotonic() - start:.0f} s)")


def main() -> None:
    scale = 0.2 if "--quick" in sys.argv else 1.0
    print("Individual ratings: true ratings evenly over 0-400 Elo (teams up to 800 apart), the "
          "lowest the anchor; share of 95% intervals (or one-sided bounds) holding the true "
          "rating, ± its 95% margin, and the slope of fitted on true ratings")
    for size, cycles, tournaments in RATINGS:
        print(rating_line(size, cycles, max(4, int(tournaments * scale)), 500 + size),
              flush=True)
    print("Few games (the small-sample bias of maximum likelihood shows in the slope)")
    for size, cycles, tournaments in SMALL:
        print(rating_line(size, cycles, max(4, int(tournaments * scale)), 600 + size),
              flush=True)
    print("Synergy: true ratings evenly over 0-200 Elo; the flag is |z| beyond the Bonferroni "
          "bound at 5% for the field's partnerships")
    for size, cycles, planted, tournaments in SYNERGY:
        print(synergy_line(size, cycles, planted, max(4, int(tournaments * scale)),
                           700 + size), flush=True)


if __name__ == "__main__":
    main()
