"""Coverage: the printed 95% intervals contain the true rating 95% of the time, from 2 pairs
per matchup up and in fields of 20 to 100 entrants, on simulated duplicate round robins.

Each check counts statements over seeded simulations (`tests.ratings.helpers.simulate`: games
follow Bradley-Terry exactly; with probability 0.7 a pair's second game reuses the deal's luck
for the other side, so pairs split far more often than independent games: strongly correlated
duplicates). A statement is an entrant's 95% interval, or, for a rating set by the prior, its
one-sided 95% bound. Tolerances: with N statements the binomial standard error is
sqrt(0.95 * 0.05 / N), 0.4 points at N = 2400 and 0.7 at N = 1000; the expected coverage,
measured on 4000-8000 statements per setting (scripts/coverage_study.py), is 95.3-96.2%, so
the 93-97% band the issue asks for sits at least 1.2 standard errors from it. The seeds are
fixed: the test is deterministic. The full table comes from `scripts/coverage_study.py`.
"""

from __future__ import annotations

import pytest

from tests.ratings.helpers import coverage, evenly_spread

FIVE = {"e0": 0.0, "e1": 60.0, "e2": 120.0, "e3": 180.0, "e4": 300.0}


@pytest.mark.parametrize("pairs, tournaments", [(2, 600), (4, 400), (8, 300), (50, 100)])
def test_intervals_hold_95_percent_from_2_pairs_per_matchup_up(pairs, tournaments):
    result = coverage(FIVE, pairs, tournaments, seed=2026 + pairs)
    assert 0.93 <= result.share <= 0.97, result


def test_large_fields_are_neither_compressed_nor_overconfident():
    # True ratings evenly over 0-800 Elo, 8 pairs per matchup. The old prior (2 virtual draws
    # on every matchup) gave slopes of 0.79-0.82 and covered 45% of the true ratings at 20
    # entrants and 30% at 50. The intervals of one tournament share the anchor's luck: a
    # tournament's coverage ranges from about 85% to 100% at 100 entrants (mean z-score of its
    # ratings -1.3 to +1.1, mean squared z-score 0.93 over 7 tournaments), so a size's own
    # figure from a few tournaments is loose; each must be above 85% and the pooled one (36
    # tournaments, about 1200 statements) in the band.
    held = made = 0
    for size, tournaments in ((20, 30), (50, 5), (100, 1)):
        result = coverage(evenly_spread(size), 8, tournaments, seed=size)
        assert 0.95 <= result.slope <= 1.05, (size, result.slope)
        assert result.share >= 0.85, (size, result)
        held, made = held + result.held, made + result.made
    assert 0.93 <= held / made <= 0.97, (held, made)
