"""Benchmarks: scripts that print speed figures (never timed unit tests)."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from arena.selfplay import play_game, random_player


@dataclass(frozen=True)
class EngineFigures:
    """Throughput of the rules engine with four random players in one process."""

    games: int
    rounds: int
    decisions: int
    seconds: float

    def lines(self) -> list[str]:
        s = self.seconds
        return [
            f"games:      {self.games} in {s:.2f} s",
            f"games/s:    {self.games / s:.1f}",
            f"rounds/s:   {self.rounds / s:.0f}  ({self.rounds / self.games:.1f} rounds per game)",
            f"decisions/s: {self.decisions / s:.0f}  ({self.decisions / self.games:.0f} per game)",
        ]


def bench_engine(games: int, seed: int = 0) -> EngineFigures:
    """Play `games` full games to 1000 with four uniformly random legal players."""
    rng = random.Random(seed)
    players = [random_player(rng) for _ in range(4)]
    rounds = decisions = 0
    start = time.perf_counter()
    for i in range(games):
        _, summary = play_game(seed + i, players)
        rounds += summary.rounds
        decisions += summary.decisions
    return EngineFigures(games, rounds, decisions, time.perf_counter() - start)
