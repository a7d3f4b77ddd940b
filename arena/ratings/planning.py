"""How wide the standings' intervals will be, before a tournament is played: pure arithmetic.

In a round robin of `n` entrants where every matchup plays `g` games, the Bradley-Terry
information about the ratings (logits) is `g v L`, with `L` the Laplacian of the complete
graph on `n` entrants and `v` the variance of one game's outcome, `p (1 - p)`: 1/4 between
entrants of equal strength, less in a lopsided matchup. With one entrant anchored, the
inverse of the reduced `L` is `(I + J) / n`, so a rating (and the difference between any two
ratings) has the variance `2 / (n g v)`; centred on the mean instead (no anchor), `(n - 1) /
(n^2 g v)`, about half of it. The standings' interval (`arena.ratings.model`) clusters the
games by duplicate pair: its variance is that of independent games times the pair factor `f`
(the variance of a pair's wins over that of two independent games: 1 when the deals do not
matter, less when the same deals cancel luck), divided by `1 - h` for the jackknife
correction (a pair's leverage `h = 4 / (n g)`), and floored at `VARIANCE_FLOOR`. The 95%
half-width in Elo is `Z95 * ELO_PER_LOGIT * sqrt(variance)`.

This is a model of the fit at equal strengths with typical per-pair variances
(`IntervalAssumptions`): the defaults assume equal strengths (v = 1/4, the narrowest) and no
help from duplicate deals (f = 1: the bundled bots' pairs measured 0.86 to 1.11 in three runs
of 24 to 80 pairs of the demo's bots), and `measure_assumptions` takes both from a
tournament's stored pairs instead. On simulated duplicate round robins
(tests/ratings/test_planning.py, which allows a fifth) the mean interval the fit reports was
within a tenth of the prediction, at 6 to 12 entrants, 2 to 4 pairs per matchup, equal or
spread strengths; in a field that spreads far, entrants far from the anchor get wider
intervals than the average predicted.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from arena.ratings.fit import GameResult, rated_pairs
from arena.ratings.model import ELO_PER_LOGIT, MAX_LEVERAGE, VARIANCE_FLOOR, Z95

EQUAL_STRENGTHS = 0.25
"""The variance of one game's outcome between entrants of equal strength: p (1 - p) at 1/2."""

INDEPENDENT_PAIRS = 1.0
"""The pair factor of games whose deals do not matter: a pair tells as much as two games."""

MIN_MEASURED_PAIRS = 20
"""Complete pairs (in matchups of at least two) that `measure_assumptions` needs to measure;
with fewer it keeps the defaults."""

MAX_GAMES = 1_000_000
"""The most games per matchup `games_for_half_width` considers."""


@dataclass(frozen=True)
class IntervalAssumptions:
    """What the width of an interval depends on besides the field's size and the games."""

    win_variance: float = EQUAL_STRENGTHS
    """The mean variance of one game's outcome over the matchups, p (1 - p): 1/4 at equal
    strengths, less when matchups are lopsided (a matchup always won tells nothing)."""
    pair_factor: float = INDEPENDENT_PAIRS
    """The variance of a duplicate pair's wins over that of two independent games: below 1
    when the shared deals cancel luck."""
    pairs: int = 0
    """The stored pairs these figures were measured on (0: the defaults)."""

    @property
    def measured(self) -> bool:
        return self.pairs > 0

    def describe(self) -> str:
        """The assumptions in words, for the plan's output."""
        if not self.measured:
            return ("equal strengths (p(1-p) = 0.25 per game) and duplicate pairs as "
                    "informative as two independent games (pair factor 1)")
        return (f"measured on {self.pairs} stored pairs: p(1-p) = {self.win_variance:.3f} "
                f"per game on average, pair factor {self.pair_factor:.2f}")


DEFAULT_ASSUMPTIONS = IntervalAssumptions()


def expected_half_width(entrants: int, games_per_matchup: int,
                        assumptions: IntervalAssumptions = DEFAULT_ASSUMPTIONS,
                        anchored: bool = True) -> float:
    """The expected half-width (Elo) of a rating's 95% interval in a round robin of
    `entrants` entrants playing `games_per_matchup` games per matchup (the module docstring
    says how); `anchored`: measured from an anchor entrant, else from the mean rating.
    ValueError for fewer than two entrants or games, a win variance that is not positive or
    a negative pair factor."""
    if entrants < 2 or games_per_matchup < 1:
        raise ValueError("a round robin needs two entrants and a game per matchup")
    if assumptions.win_variance <= 0.0 or assumptions.pair_factor < 0.0:
        raise ValueError("the win variance must be positive, the pair factor not negative")
    share = 2.0 / entrants if anchored else (entrants - 1) / entrants ** 2
    model = share / (games_per_matchup * assumptions.win_variance)
    leverage = min(4.0 / (entrants * games_per_matchup), MAX_LEVERAGE)
    factor = max(assumptions.pair_factor / (1.0 - leverage), VARIANCE_FLOOR)
    return Z95 * ELO_PER_LOGIT * math.sqrt(model * factor)


def games_for_half_width(entrants: int, half_width: float,
                         assumptions: IntervalAssumptions = DEFAULT_ASSUMPTIONS,
                         anchored: bool = True) -> int | None:
    """The fewest games per matchup (even: whole duplicate pairs) whose expected half-width
    is at most `half_width` Elo; None if more than `MAX_GAMES` would be needed."""
    if half_width <= 0.0:
        raise ValueError("a half-width must be positive")

    def enough(pairs: int) -> bool:
        return expected_half_width(entrants, 2 * pairs, assumptions, anchored) <= half_width

    low, high = 0, 1  # pairs: not enough at low (none), enough at high once found
    while not enough(high):
        if 2 * high > MAX_GAMES:
            return None
        low, high = high, 2 * high
    while high - low > 1:
        middle = (low + high) // 2
        if enough(middle):
            high = middle
        else:
            low = middle
    return 2 * high if 2 * high <= MAX_GAMES else None  # the last doubling may pass it


def measure_assumptions(results: Iterable[GameResult],
                        minimum: int = MIN_MEASURED_PAIRS) -> IntervalAssumptions:
    """The win variance and pair factor of a tournament's stored games, or the defaults when
    fewer than `minimum` complete pairs can be used.

    Each rated pair of two games between the same two entrants gives W, the wins of the
    matchup's first entrant (0, 1 or 2); per matchup of P >= 2 such pairs, with mean W-bar
    and sample variance s2 of W, p-hat = W-bar / 2 and p(1-p) is estimated without bias as
    p-hat (1 - p-hat) + s2 / (4 P). The win variance is the mean of that over the matchups;
    the pair factor is the sum of s2 P over the sum of 2 p(1-p) P (what two independent games
    would give).
    """
    by_matchup: dict[tuple[str, str], list[int]] = {}
    for games in rated_pairs(results).values():
        wins = _first_wins(games)
        if wins is not None:
            by_matchup.setdefault(wins[0], []).append(wins[1])
    variances: list[float] = []
    spread = independent = 0.0
    pairs = 0
    for counts in by_matchup.values():
        if len(counts) < 2:
            continue
        size = len(counts)
        mean = sum(counts) / size
        s2 = sum((w - mean) ** 2 for w in counts) / (size - 1)
        p = mean / 2.0
        variance = p * (1.0 - p) + s2 / (4.0 * size)
        variances.append(variance)
        spread += s2 * size
        independent += 2.0 * variance * size
        pairs += size
    if pairs < minimum or independent <= 0.0:
        return DEFAULT_ASSUMPTIONS
    return IntervalAssumptions(sum(variances) / len(variances), spread / independent, pairs)


def _first_wins(games: Sequence[GameResult]) -> tuple[tuple[str, str], int] | None:
    """(matchup in key order, games its first entrant won) of a rated pair of two games
    between the same two entrants; None for anything else."""
    if len(games) != 2:
        return None
    matchup = tuple(sorted(games[0].entrants))
    if tuple(sorted(games[1].entrants)) != matchup:
        return None
    first = matchup[0]
    wins = 0
    for game in games:
        winner = game.rated_winner
        if winner is None:
            return None
        wins += game.entrants[winner] == first
    return (matchup[0], matchup[1]), wins
