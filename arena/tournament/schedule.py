"""The schedule: matchups, duplicate pairs and their seeds, deterministic from the config.

Every two entrants form a matchup; each matchup plays `pairs` duplicate pairs. Pair `k` of
every matchup has the same seed (`Deals.pair_seed(k)`), so every matchup sees the same
deals, and an entrant added later plays the deals the others played. In game 0 of a pair the
matchup's first entrant (in key order) is team 0; in game 1 the entrants swap seats, on the
same deals. Entrant keys are "name@version" (see `entrant_key`).

Seeds come from the tournament's secret (`Deals.secret`: 256 random bits made with its store,
kept only there), so nothing a bot sees (the game id holds the pair index, the code is
public) lets it compute a deal; or, for reproducible runs, from a seed the config fixes
(`Deals.fixed`): public, so anyone who knows it can compute every hand.
"""

from __future__ import annotations

import collections
import hashlib
import hmac
import itertools
import secrets
from collections.abc import Iterable
from dataclasses import dataclass

SECRET_BYTES = 32
"""A tournament secret's size: 256 random bits."""


def entrant_key(name: str, version: str) -> str:
    """The key an entrant is stored and rated under: bot name and folder hash."""
    return f"{name}@{version}"


def pair_seed(base_seed: int, index: int) -> int:
    """The seed of pair `index` under a public base seed: 63 bits of SHA-256, the same
    everywhere (what a config that fixes `seed` plays)."""
    digest = hashlib.sha256(f"tichu-arena/pair/{base_seed}/{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


@dataclass(frozen=True)
class Deals:
    """Where a tournament's game seeds come from: its secret, or a public seed.

    Build one with `Deals.secret` or `Deals.fixed`; `pair_seed(k)` is the seed of pair k of
    every matchup (63 bits: SQLite's integers are signed 64-bit).
    """

    key: bytes | None = None
    """The secret (at least 128 bits), or None for a fixed seed."""
    seed: int | None = None
    """The config's fixed base seed, or None for secret deals."""

    @classmethod
    def secret(cls, key: bytes) -> Deals:
        if len(key) < 16:
            raise ValueError("a tournament secret has at least 128 bits")
        return cls(key=key)

    @classmethod
    def fixed(cls, seed: int) -> Deals:
        return cls(seed=seed)

    @property
    def public(self) -> bool:
        """True if anyone who knows the config can compute the deals."""
        return self.key is None

    def pair_seed(self, index: int) -> int:
        if self.key is None:
            return pair_seed(self.seed or 0, index)
        digest = hmac.new(self.key, f"tichu-arena/pair/{index}".encode(), "sha256").digest()
        return int.from_bytes(digest[:8], "big") >> 1

    def describe(self) -> str:
        """How the deals are made, for the standings header and messages."""
        if self.key is None:
            return (f"fixed seed {self.seed} (tournament.seed): reproducible, and public: "
                    "anyone who knows the seed can compute every hand")
        return "secret (256 random bits kept in the store)"


def new_secret() -> bytes:
    """A fresh tournament secret."""
    return secrets.token_bytes(SECRET_BYTES)


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


def pair_games(matchup: tuple[str, str], index: int, deals: Deals | int,
               ) -> list[ScheduledGame]:
    """The two games of pair `index` of a matchup (an int `deals` is a fixed base seed)."""
    seed = _deals(deals).pair_seed(index)
    return [ScheduledGame(matchup, index, g, seed) for g in (0, 1)]


def round_robin(keys: Iterable[str], pairs: int, deals: Deals | int,
                first_pair: int = 0) -> list[ScheduledGame]:
    """Every game of the round robin, pair by pair across the matchups (pair 0 of every
    matchup first), so that standings fill evenly while it runs (an int `deals` is a fixed
    base seed)."""
    deals = _deals(deals)
    games = []
    for index in range(first_pair, pairs):
        for matchup in matchups(keys):
            games += pair_games(matchup, index, deals)
    return games


def _deals(deals: Deals | int) -> Deals:
    return deals if isinstance(deals, Deals) else Deals.fixed(deals)


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
        self._order = collections.deque(range(len(self.pairs)))  # not given, lazily
        self._by_matchup: dict[tuple[str, str], collections.deque[int]] = {}
        for k, pair in enumerate(self.pairs):
            self._by_matchup.setdefault(pair[0].matchup, collections.deque()).append(k)

    def next(self, worker: int) -> tuple[ScheduledGame, ...] | None:
        """The pair (its games still to play) for `worker`, or None when all are handed out."""
        matchup, run = self.current.get(worker, (None, 0))
        pick = None
        if matchup is not None and run < self.max_run:
            pick = self._first(self._by_matchup.get(matchup))
        if pick is None:
            pick = self._first(self._order)
        if pick is None:
            return None
        self.given[pick] = True
        pair = self.pairs[pick]
        same = pair[0].matchup == matchup
        self.current[worker] = (pair[0].matchup, run + 1 if same else 1)
        return pair

    def may_follow(self, worker: int) -> frozenset[int]:
        """The game indexes (0, 1) of the pair `worker` would get next if it is of the same
        matchup: a hint (another worker may take it first), for telling bot processes
        whether more games follow."""
        matchup, run = self.current.get(worker, (None, 0))
        if matchup is None:
            return frozenset()
        pick = self._first(self._by_matchup.get(matchup), pop=False) \
            if run < self.max_run else None
        if pick is None:
            pick = self._first(self._order, pop=False)
        if pick is None or self.pairs[pick][0].matchup != matchup:
            return frozenset()
        return frozenset(g.game_index for g in self.pairs[pick])

    def _first(self, queue: collections.deque[int] | None, pop: bool = True) -> int | None:
        """The first pair of `queue` not handed out yet (handed-out ones dropped)."""
        while queue and self.given[queue[0]]:
            queue.popleft()
        if not queue:
            return None
        return queue.popleft() if pop else queue[0]
