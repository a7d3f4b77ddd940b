"""The schedule: matchups, duplicate pairs and their seeds, deterministic from the config.

Every two entrants form a matchup; each matchup plays `pairs` duplicate pairs. Pair `k` of
every matchup has the same seed (`pair_seed(base_seed, k)`), so every matchup sees the same
deals, and an entrant added later plays the deals the others played. In game 0 of a pair the
matchup's first entrant (in key order) is team 0; in game 1 the entrants swap seats, on the
same deals. Entrant keys are "name@version" (see `entrant_key`).
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterable
from dataclasses import dataclass


def entrant_key(name: str, version: str) -> str:
    """The key an entrant is stored and rated under: bot name and folder hash."""
    return f"{name}@{version}"


def pair_seed(base_seed: int, index: int) -> int:
    """The seed of pair `index` of every matchup: 63 bits of SHA-256, the same everywhere."""
    digest = hashlib.sha256(f"tichu-arena/pair/{base_seed}/{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


@dataclass(frozen=True)
class ScheduledGame:
    """One game of the schedule: which pair, which seating, which seed."""

    matchup: tuple[str, str]
    """The two entrant keys, in key order."""
    pair_index: int
    game_index: int
    """0: matchup[0] is team 0; 1: the entrants swap seats."""
    seed: int

    @property
    def pair_id(self) -> str:
        return f"{self.matchup[0]}~{self.matchup[1]}#{self.pair_index}"

    @property
    def game_id(self) -> str:
        return f"{self.pair_id}.{self.game_index}"

    @property
    def teams(self) -> tuple[str, str]:
        """Entrant keys of team 0 and team 1."""
        a, b = self.matchup
        return (a, b) if self.game_index == 0 else (b, a)

    @property
    def record_name(self) -> str:
        """The record file's path below the records folder."""
        return f"{self.matchup[0]}~{self.matchup[1]}/{self.pair_index:05d}-{self.game_index}"


def matchups(keys: Iterable[str]) -> list[tuple[str, str]]:
    """Every two entrants, each matchup in key order, the list sorted."""
    return list(itertools.combinations(sorted(set(keys)), 2))


def pair_games(matchup: tuple[str, str], index: int, base_seed: int) -> list[ScheduledGame]:
    """The two games of pair `index` of a matchup."""
    seed = pair_seed(base_seed, index)
    return [ScheduledGame(matchup, index, g, seed) for g in (0, 1)]


def round_robin(keys: Iterable[str], pairs: int, base_seed: int,
                first_pair: int = 0) -> list[ScheduledGame]:
    """Every game of the round robin, pair by pair across the matchups (pair 0 of every
    matchup first), so that standings fill evenly while it runs."""
    games = []
    for index in range(first_pair, pairs):
        for matchup in matchups(keys):
            games += pair_games(matchup, index, base_seed)
    return games


def missing(games: Iterable[ScheduledGame], done: set[str]) -> list[ScheduledGame]:
    """The games whose ids are not in `done`, in schedule order."""
    return [g for g in games if g.game_id not in done]


def group_pairs(games: Iterable[ScheduledGame]) -> list[tuple[ScheduledGame, ...]]:
    """Games grouped by pair, in order of each pair's first game."""
    pairs: dict[str, list[ScheduledGame]] = {}
    for game in games:
        pairs.setdefault(game.pair_id, []).append(game)
    return [tuple(p) for p in pairs.values()]


class Dispatcher:
    """Hands out pairs to workers on request, in schedule order, with matchup affinity.

    A worker that has just played a matchup gets its next pair if one is left (so its bot
    processes are reused), for at most `max_run` pairs in a row; otherwise it gets the first
    pair not handed out yet. Every pair is handed out exactly once.
    """

    def __init__(self, games: Iterable[ScheduledGame], max_run: int = 16) -> None:
        self.pairs = group_pairs(games)
        self.given = [False] * len(self.pairs)
        self.max_run = max_run
        self.current: dict[int, tuple[tuple[str, str], int]] = {}  # worker: (matchup, run)

    def next(self, worker: int) -> tuple[ScheduledGame, ...] | None:
        """The pair (its games still to play) for `worker`, or None when all are handed out."""
        matchup, run = self.current.get(worker, (None, 0))
        pick = None
        if matchup is not None and run < self.max_run:
            pick = next((k for k, p in enumerate(self.pairs)
                         if not self.given[k] and p[0].matchup == matchup), None)
        if pick is None:
            pick = next((k for k, given in enumerate(self.given) if not given), None)
        if pick is None:
            return None
        self.given[pick] = True
        pair = self.pairs[pick]
        same = pair[0].matchup == matchup
        self.current[worker] = (pair[0].matchup, run + 1 if same else 1)
        return pair
