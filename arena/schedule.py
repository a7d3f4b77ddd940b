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
import math
from collections.abc import Iterable, Sequence
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


def work_units(games: Sequence[ScheduledGame], workers: int,
               max_pairs: int = 6) -> list[list[ScheduledGame]]:
    """Games split into units for the workers: each unit is one matchup's games (whole pairs
    together, so a Match reuses its processes), small enough to keep every worker busy.

    Units come in schedule order of their first game.
    """
    by_matchup: dict[tuple[str, str], list[ScheduledGame]] = {}
    for game in games:
        by_matchup.setdefault(game.matchup, []).append(game)
    pair_count = len({g.pair_id for g in games})
    per_unit = max(1, min(max_pairs, math.ceil(pair_count / max(1, 2 * workers))))
    units = []
    for matchup_games in by_matchup.values():
        pairs: list[list[ScheduledGame]] = []
        for game in matchup_games:
            if pairs and pairs[-1][0].pair_id == game.pair_id:
                pairs[-1].append(game)
            else:
                pairs.append([game])
        for start in range(0, len(pairs), per_unit):
            units.append([g for pair in pairs[start:start + per_unit] for g in pair])
    order = {g.game_id: k for k, g in enumerate(games)}
    return sorted(units, key=lambda unit: order[unit[0].game_id])
