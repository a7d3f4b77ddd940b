"""A simulator of tournaments with mixed partners whose games follow the individual model
exactly (with optional synergies), and the coverage of individual ratings on them."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping

from arena.ratings.individual import TeamResult, fit_individual, rated_team_pairs
from arena.tournament.movement import cycle_movement
from tests.ratings.helpers import Coverage, statement_holds


def win_probability(first: tuple[str, str], second: tuple[str, str],
                    true_elo: Mapping[str, float],
                    synergy: Mapping[frozenset[str], float]) -> float:
    """The chance that team `first` beats team `second`: the sum of each team's ratings, plus
    the synergy of each partnership, on the Elo scale."""
    def strength(team: tuple[str, str]) -> float:
        return sum(true_elo[e] for e in team) + synergy.get(frozenset(team), 0.0)
    return 1.0 / (1.0 + 10.0 ** ((strength(second) - strength(first)) / 400.0))


def simulate_mixed(true_elo: Mapping[str, float], cycles: int, rng: random.Random,
                   antithetic: float = 0.7,
                   synergy: Mapping[frozenset[str], float] | None = None) -> list[TeamResult]:
    """`cycles` cycles of the movement of the entrants (relabelled each cycle, as a
    tournament plays them), each foursome a duplicate pair: both
    games share one uniform draw u (the first team wins game 0 if u < p); with probability
    `antithetic` game 1 reuses the deal's luck for the other side (1 - u), else it is
    independent, as `helpers.simulate` does for fixed partners."""
    synergy = synergy or {}
    results = []
    for cycle in range(cycles):
        for k, (first, second) in enumerate(cycle_movement(true_elo, cycle).foursomes):
            p = win_probability(first, second, true_elo, synergy)
            u = rng.random()
            v = 1.0 - u if rng.random() < antithetic else rng.random()
            pair = f"{cycle}-{k}"
            won0, won1 = u < p, v < p  # the first team wins game 0, game 1
            results.append(TeamResult(pair, (first, second), (1000, 600) if won0 else
                                      (600, 1000), 0 if won0 else 1))
            results.append(TeamResult(pair, (second, first), (600, 1000) if won1 else
                                      (1000, 600), 1 if won1 else 0))
    return results


def evenly(n: int, top: float = 400.0) -> dict[str, float]:
    """n entrants with true individual ratings evenly over 0..top; 'e00' (at 0) the anchor."""
    return {f"e{k:02d}": top * k / (n - 1) for k in range(n)}


def mixed_coverage(true_elo: Mapping[str, float], cycles: int, tournaments: int, seed: int,
                   antithetic: float = 0.7, anchor: str = "e00") -> Coverage:
    """Statements that held over simulated tournaments (every entrant but the anchor), and
    the slope of fitted on true ratings."""
    rng = random.Random(seed)
    held = made = bounds = 0
    xs, ys, shares = [], [], []
    for _ in range(tournaments):
        fit = fit_individual(rated_team_pairs(simulate_mixed(true_elo, cycles, rng,
                                                             antithetic)), anchor=anchor)
        here = 0
        for key, truth in true_elo.items():
            if key == anchor:
                continue
            made += 1
            here += statement_holds(fit, key, truth)
            bounds += key in fit.bounds
            if key not in fit.bounds and math.isfinite(fit.elo[key]):
                xs.append(truth)
                ys.append(fit.elo[key])
        held += here
        shares.append(here / (len(true_elo) - 1))
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / \
        sum((x - mx) ** 2 for x in xs)
    return Coverage(held, made, bounds, slope, tuple(shares))
