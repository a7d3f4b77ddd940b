"""Candidates compared on common sampled deals, until time is up or one is clearly best.

Every sample is played out once per candidate still in the running, so the candidates are
compared deal by deal (paired: the luck of the deal cancels out). After each sample a
candidate is dropped once the best one beats it by more than `Z` standard errors of their
paired differences, or once they are known to be alike (`ALIKE`); the search stops when
one is left, when time is up, or at `MAX_SAMPLES`.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from searchbot.budget import Deadline

Z = 2.0
"""Standard errors by which the best must lead a candidate to drop it."""
SWITCH = 1.5
"""Standard errors by which the best must lead the policy's choice to be taken instead."""
ALIKE = 4.0
"""Points a round: two candidates whose paired difference is known to within this standard
error are alike, and the search does not spend more time telling them apart (the best is
kept)."""
ALIKE_SAMPLES = 30
DEFAULT = 0
"""The policy's own choice, taken unless another is better (see `Tally.choice`)."""
"""Samples before candidates may be found alike."""
MIN_SAMPLES = 6
"""Samples before any candidate is dropped."""
MAX_SAMPLES = 4000
"""Samples at most, whatever the time: enough to tell any two candidates worth telling."""


class Tally:
    """The values of candidates 0..n-1 over the samples played so far, and the seats that
    went out first in them."""

    def __init__(self, candidates: int) -> None:
        self.values: list[list[float]] = [[] for _ in range(candidates)]
        self.firsts: list[list[int]] = [[] for _ in range(candidates)]
        self.live = list(range(candidates))
        self.samples = 0
        self.playouts = 0

    def mean(self, candidate: int) -> float:
        values = self.values[candidate]
        return sum(values) / len(values) if values else -math.inf

    def best(self) -> int:
        """The live candidate with the highest mean value (the first of equals)."""
        return max(self.live, key=self.mean)

    def choice(self, default: int = DEFAULT) -> int:
        """The candidate to take: the best, unless `default` (the policy's) is still in the
        running and the best does not lead it by SWITCH standard errors of their paired
        differences (few samples are noise; the policy is right more often than not)."""
        best = self.best()
        if best == default or default not in self.live or self.samples < 2:
            return best if self.samples >= 2 else default
        mean, var = self._paired(best, default)
        return best if mean > 0 and mean * mean * self.samples > SWITCH * SWITCH * var else default

    def _paired(self, a: int, b: int) -> tuple[float, float]:
        """The mean and variance of a's value minus b's over their common samples."""
        n = self.samples
        diffs = [x - y for x, y in zip(self.values[a][-n:], self.values[b][-n:], strict=True)]
        mean = sum(diffs) / n
        return mean, max(sum((d - mean) ** 2 for d in diffs) / (n - 1), 1e-9)

    def first_out_rate(self, candidate: int, seat: int) -> tuple[float, int]:
        """How often `seat` went out first after `candidate`, and over how many samples."""
        firsts = self.firsts[candidate]
        return (firsts.count(seat) / len(firsts) if firsts else 0.0), len(firsts)

    def prune(self) -> None:
        """Drop the live candidates that the best beats clearly (paired differences), and
        those known to be alike to it (of two alike, the policy's own choice stays)."""
        if self.samples < MIN_SAMPLES or len(self.live) < 2:
            return
        best = self.best()
        n = self.samples
        dropped = set()
        for c in self.live:
            if c == best:
                continue
            mean, var = self._paired(best, c)
            if mean > 0 and mean * mean * n > Z * Z * var:
                dropped.add(c)
            elif n >= ALIKE_SAMPLES and var < ALIKE * ALIKE * n:
                dropped.add(best if c == DEFAULT else c)
        self.live = [c for c in self.live if c not in dropped]


def run(tally: Tally, play: Callable[[int], tuple[float, int]], new_sample: Callable[[], None],
        deadline: Deadline, decided: Callable[[Tally], bool] | None = None) -> Tally:
    """Sample and play out the live candidates until `deadline` passes, MAX_SAMPLES,
    or `decided(tally)` (default: one candidate left): `new_sample()` draws a deal, `play(c)`
    plays candidate c out on it (its value and the seat out first). A sample cut short by
    the deadline is not counted (with none counted, the caller keeps its default)."""
    if decided is None:
        decided = _one_left
    while tally.samples < MAX_SAMPLES and not decided(tally) and not deadline.passed():
        new_sample()
        results = []
        live = tally.live
        for c in live:
            results.append(play(c))
            tally.playouts += 1
            if len(results) < len(live) and deadline.passed():
                return tally
        for c, (v, first) in zip(tally.live, results, strict=True):
            tally.values[c].append(v)
            tally.firsts[c].append(first)
        tally.samples += 1
        tally.prune()
    return tally


def _one_left(tally: Tally) -> bool:
    return len(tally.live) <= 1
