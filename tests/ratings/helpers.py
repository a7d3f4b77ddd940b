"""Result builders and a simulator of duplicate tournaments with known true ratings."""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping

from arena.ratings.fit import GameResult


def single_games(a: str, b: str, a_wins: int, b_wins: int, tag: str = "") -> list[GameResult]:
    """Games between a (team 0) and b, each its own one-game pair: independent games."""
    games = [GameResult(f"{tag}{a}-{b}-w{k}", (a, b), (1000, 500), 0) for k in range(a_wins)]
    games += [GameResult(f"{tag}{a}-{b}-l{k}", (a, b), (500, 1000), 1) for k in range(b_wins)]
    return games


def duplicate_pair(pair_id: str, a: str, b: str, a_wins_first: bool,
                   a_wins_second: bool) -> list[GameResult]:
    """Two games with the same deals: a on team 0 first, then on team 1."""
    first = GameResult(pair_id, (a, b), (1000, 700) if a_wins_first else (700, 1000),
                       0 if a_wins_first else 1)
    second = GameResult(pair_id, (b, a), (700, 1000) if a_wins_second else (1000, 700),
                        1 if a_wins_second else 0)
    return [first, second]


def simulate(true_elo: Mapping[str, float], pairs_per_matchup: int, rng: random.Random,
             antithetic: float = 0.7) -> list[GameResult]:
    """A round robin of duplicate pairs whose games follow Bradley-Terry exactly.

    Both games of a pair share one uniform draw u: a wins the first game if u < p. With
    probability `antithetic` the second game reuses the deal's luck for the other side
    (a wins if 1 - u < p), as duplicate deals do, so pairs split more often than independent
    games would; otherwise the second game is independent. Each game's marginal is p.
    """
    results = []
    for a, b in itertools.combinations(sorted(true_elo), 2):
        p = 1.0 / (1.0 + 10.0 ** ((true_elo[b] - true_elo[a]) / 400.0))
        for k in range(pairs_per_matchup):
            u = rng.random()
            v = 1.0 - u if rng.random() < antithetic else rng.random()
            results += duplicate_pair(f"{a}-{b}-{k}", a, b, u < p, v < p)
    return results


def evenly_spread(n: int, top: float = 800.0) -> dict[str, float]:
    """n entrants with true ratings evenly spread over 0..top; 'e0' (at 0) is the anchor."""
    return {f"e{k}": top * k / (n - 1) for k in range(n)}


def statement_holds(fit, key: str, truth: float) -> bool:
    """Whether what the fit says of `key` holds: its 95% interval contains the true rating or,
    for a rating set by the prior, its one-sided 95% bound does (no bound: no claim)."""
    bound = fit.bounds.get(key)
    if bound is None:
        return abs(fit.elo[key] - truth) <= fit.interval(key)
    limit = fit.confidence_bounds.get(key)
    if limit is None:
        return True
    return truth >= limit if bound == "lower" else truth <= limit


def coverage(true_elo: Mapping[str, float], pairs_per_matchup: int, tournaments: int,
             seed: int, antithetic: float = 0.7, anchor: str = "e0"):
    """(statements that held, statements made, bounds among them, fitted-vs-true slope) over
    simulated duplicate round robins, for every entrant but the anchor."""
    from arena.ratings.fit import fit_ratings

    rng = random.Random(seed)
    held = made = bounds = 0
    xs, ys = [], []
    for _ in range(tournaments):
        fit = fit_ratings(simulate(true_elo, pairs_per_matchup, rng, antithetic),
                          anchor=anchor)
        for key, truth in true_elo.items():
            if key == anchor:
                continue
            made += 1
            held += statement_holds(fit, key, truth)
            bounds += key in fit.bounds
            if key not in fit.bounds:
                xs.append(truth)
                ys.append(fit.elo[key])
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return held, made, bounds, slope
