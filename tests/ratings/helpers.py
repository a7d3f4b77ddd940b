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
