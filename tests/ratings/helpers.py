"""Result builders and a simulator of duplicate tournaments with known true ratings."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Mapping
from dataclasses import dataclass

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


@dataclass(frozen=True)
class Coverage:
    """What a coverage simulation counted."""

    held: int
    made: int
    bounds: int
    """Statements that were one-sided bounds (ratings set by the prior)."""
    slope: float
    """Least-squares slope of fitted on true ratings (1: no compression)."""
    per_tournament: tuple[float, ...]
    """Share held in each tournament: intervals of one tournament share the anchor's luck,
    so the spread of these, not the binomial error, measures the uncertainty of `share`."""

    @property
    def share(self) -> float:
        return self.held / self.made

    @property
    def margin(self) -> float:
        """Half-width of a 95% interval of `share` from the tournament-to-tournament spread
        (the larger of that and the binomial one)."""
        n = len(self.per_tournament)
        binomial = math.sqrt(self.share * (1 - self.share) / self.made)
        if n < 2:
            return 1.96 * binomial
        mean = sum(self.per_tournament) / n
        spread = math.sqrt(sum((x - mean) ** 2 for x in self.per_tournament) / (n - 1) / n)
        return 1.96 * max(spread, binomial)


def coverage(true_elo: Mapping[str, float], pairs_per_matchup: int, tournaments: int,
             seed: int, antithetic: float = 0.7, anchor: str = "e0") -> Coverage:
    """Statements that held over simulated duplicate round robins, for every entrant but the
    anchor (see `statement_holds`)."""
    from arena.ratings.fit import fit_ratings

    rng = random.Random(seed)
    held = made = bounds = 0
    xs, ys, shares = [], [], []
    for _ in range(tournaments):
        fit = fit_ratings(simulate(true_elo, pairs_per_matchup, rng, antithetic),
                          anchor=anchor)
        here = 0
        for key, truth in true_elo.items():
            if key == anchor:
                continue
            made += 1
            here += statement_holds(fit, key, truth)
            bounds += key in fit.bounds
            if key not in fit.bounds:
                xs.append(truth)
                ys.append(fit.elo[key])
        held += here
        shares.append(here / (len(true_elo) - 1))
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)
    return Coverage(held, made, bounds, slope, tuple(shares))
