"""The schedule: matchups, duplicate pairs and their seeds, deterministic from the config.

Fixed partners (the default): every two entrants form a matchup, each entrant partnering a
copy of itself; each matchup plays `pairs` duplicate pairs. In game 0 of a pair the
matchup's first entrant (in key order) is team 0; in game 1 the entrants swap seats, on the
same deals.

Mixed partners: the games are the foursomes of the movement (`arena.tournament.movement`),
each cycle once (or as often as the movement says; each cycle relabels the entrants), a pair
each: in game 0 the first partnership is team 0 (its first entrant at seat 0, its second at
seat 2), in game 1 the partnerships swap seats. A game's `matchup` is then the entrants of
seats 0 and 1 in game 0, and `partners` their partners. Entrant keys are "name@version" (see
`entrant_key`).

Every pair is dealt afresh, from its own id: "a~b#k", or with mixed partners "a+c~b+d#k"
(each entrant with its version, and the pair index). So only the two games of one pair play
the same deals; no two pairs of a tournament or a league do. A published record therefore
shows no hand of a pair still to come, nor of another matchup's.

The seeds come from the tournament's secret (`Deals.secret`: 256 random bits made with its
store, kept only there), so nothing a bot or its author sees (game ids, records, the public
code) lets them compute a deal. For reproducible runs they come instead from a seed the
config fixes (`Deals.fixed`): public, so anyone who knows it can compute every hand.
"""

from __future__ import annotations

import collections
import dataclasses
import hashlib
import hmac
import itertools
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from arena.tournament.movement import cycle_movement

SECRET_BYTES = 32
"""A tournament secret's size: 256 random bits."""


def entrant_key(name: str, version: str) -> str:
    """The key an entrant is stored and rated under: bot name and folder hash."""
    return f"{name}@{version}"


def pair_seed(base_seed: int, pair_id: str) -> int:
    """The seed of the pair `pair_id` (`ScheduledGame.pair_id`) under a public base seed:
    63 bits of SHA-256, the same everywhere (what a config that fixes `seed` plays)."""
    digest = hashlib.sha256(f"tichu-arena/pair/{base_seed}/{pair_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


@dataclass(frozen=True)
class Deals:
    """Where a tournament's game seeds come from: its secret, or a public seed.

    Build one with `Deals.secret` or `Deals.fixed`; `pair_seed(pair_id)` is the seed of one
    pair, from its own id (63 bits: SQLite's integers are signed 64-bit).
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

    def pair_seed(self, pair_id: str) -> int:
        """The seed of both games of the pair `pair_id` (`ScheduledGame.pair_id`: its lineup
        and index): HMAC-SHA-256 of the id under the secret, or SHA-256 with the fixed seed."""
        if self.key is None:
            return pair_seed(self.seed or 0, pair_id)
        digest = hmac.digest(self.key, f"tichu-arena/pair/{pair_id}".encode(), "sha256")
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


Lineup = tuple[tuple[str, str], tuple[str, str] | None]
"""Who plays a pair whatever the seating: its matchup and, with mixed partners, their partners
(`ScheduledGame.lineup`)."""


def sides_of(matchup: tuple[str, str], partners: tuple[str, str] | None = None,
             ) -> tuple[str, str]:
    """How each side of a pair is written in ids: an entrant key, or with mixed partners two
    keys joined by '+' (no bot name or version holds a '+', a '~' or a '#')."""
    if partners is None:
        return matchup
    return (f"{matchup[0]}+{partners[0]}", f"{matchup[1]}+{partners[1]}")


def pair_id_of(matchup: tuple[str, str], index: int,
               partners: tuple[str, str] | None = None) -> str:
    """The id of pair `index` of a lineup, "a~b#k" (mixed: "a+c~b+d#k"): one string per
    pair, never the same for two (it is what the pair's seed is made from)."""
    first, second = sides_of(matchup, partners)
    return f"{first}~{second}#{index}"


@dataclass(frozen=True)
class ScheduledGame:
    """One game of the schedule: which pair, which seating, which seed."""

    matchup: tuple[str, str]
    """The two entrant keys, in key order; with mixed partners, the entrants of seats 0 and 1
    in game 0 of the pair."""
    pair_index: int
    game_index: int
    """0: matchup[0] is team 0; 1: the teams swap seats."""
    seed: int
    partners: tuple[str, str] | None = None
    """With mixed partners, the partners of matchup[0] and matchup[1] (seats 2 and 3 in game 0
    of the pair); None: each entrant partners a copy of itself."""

    @property
    def sides(self) -> tuple[str, str]:
        """How each side of the pair is written in ids (`sides_of`)."""
        return sides_of(self.matchup, self.partners)

    @property
    def pair_id(self) -> str:
        """The pair's id (`pair_id_of`), which its seed is made from."""
        return pair_id_of(self.matchup, self.pair_index, self.partners)

    @property
    def game_id(self) -> str:
        return f"{self.pair_id}.{self.game_index}"

    @property
    def teams(self) -> tuple[str, str]:
        """Entrant keys of seats 0 and 1: of team 0 and team 1 (with mixed partners, of
        their first seats; `seat_keys` names all four)."""
        a, b = self.matchup
        return (a, b) if self.game_index == 0 else (b, a)

    @property
    def seat_keys(self) -> tuple[str, str, str, str]:
        """The entrant key of each seat, 0 to 3."""
        a, b = self.matchup
        c, d = self.partners or self.matchup
        return (a, b, c, d) if self.game_index == 0 else (b, a, d, c)

    @property
    def lineup(self) -> Lineup:
        """Who plays the pair, whatever the seating: the unit a worker's bot processes serve."""
        return self.matchup, self.partners

    @property
    def keys(self) -> tuple[str, ...]:
        """The different entrants playing, matchup first."""
        return self.matchup + (self.partners or ())

    @property
    def record_name(self) -> str:
        """The record file's path below the records folder (with mixed partners a folder per
        side, each name at most 2 * 81 + 1 characters)."""
        first, second = self.sides
        folder = f"{first}~{second}" if self.partners is None else f"{first}/{second}"
        return f"{folder}/{self.pair_index:05d}-{self.game_index}"


def matchups(keys: Iterable[str]) -> list[tuple[str, str]]:
    """Every two entrants, each matchup in key order, the list sorted."""
    return list(itertools.combinations(sorted(set(keys)), 2))


def pair_games(matchup: tuple[str, str], index: int, deals: Deals | int,
               partners: tuple[str, str] | None = None) -> list[ScheduledGame]:
    """The two games of pair `index` of a matchup (with mixed partners, of a foursome), on
    the pair's own seed (an int `deals` is a fixed base seed)."""
    seed = _deals(deals).pair_seed(pair_id_of(matchup, index, partners))
    return [ScheduledGame(matchup, index, 0, seed, partners),
            ScheduledGame(matchup, index, 1, seed, partners)]


def round_robin(keys: Iterable[str], pairs: int, deals: Deals | int,
                first_pair: int = 0) -> list[ScheduledGame]:
    """Every game of the round robin, pair by pair across the matchups (pair 0 of every
    matchup first), so that standings fill evenly while it runs (an int `deals` is a fixed
    base seed)."""
    deals = _deals(deals)
    every = matchups(keys)
    games: list[ScheduledGame] = []
    for index in range(first_pair, pairs):
        for matchup in every:
            games += pair_games(matchup, index, deals)
    return games


def mixed_schedule(keys: Iterable[str], cycles: int, deals: Deals | int,
                   first_cycle: int = 0) -> list[ScheduledGame]:
    """Every game of `cycles` cycles of the movement of `keys` (`cycle_movement`: relabelled
    each cycle), cycle by cycle (each foursome's pair in cycle k is its pair k, or pairs
    k*t .. k*t + t - 1 for a foursome the movement holds t times), so that the standings fill
    evenly; each pair on its own seed, as in `pair_games` (an int `deals` is a fixed base
    seed). ValueError with fewer than four entrants."""
    deals = _deals(deals)
    keys = list(keys)
    games: list[ScheduledGame] = []
    for cycle in range(first_cycle, cycles):
        plan = cycle_movement(keys, cycle)
        for (first, second), times in zip(plan.foursomes, plan.times, strict=True):
            for index in range(cycle * times, (cycle + 1) * times):
                games += pair_games((first[0], second[0]), index, deals,
                                    (first[1], second[1]))
    return games


def _deals(deals: Deals | int) -> Deals:
    return deals if isinstance(deals, Deals) else Deals.fixed(deals)


def missing(games: Iterable[ScheduledGame], done: set[str]) -> list[ScheduledGame]:
    """The games whose ids are not in `done`, in schedule order."""
    return [g for g in games if g.game_id not in done]


def dealt_as_stored(games: Iterable[ScheduledGame], stored: Mapping[str, int],
                    ) -> list[ScheduledGame]:
    """`games`, each whose pair has a game in `stored` (game id: seed) on that game's seed.

    The two games of a pair then share their deals even in a store half played by an arena
    that dealt otherwise (one seed per pair index, before each pair had its own)."""
    seeds = {game_id.rpartition(".")[0]: seed for game_id, seed in stored.items()}
    return [g if seeds.get(g.pair_id, g.seed) == g.seed
            else dataclasses.replace(g, seed=seeds[g.pair_id]) for g in games]


def pairs_of(games: Iterable[ScheduledGame]) -> list[tuple[ScheduledGame, ...]]:
    """Games grouped by pair, in order of each pair's first game."""
    pairs: dict[tuple[object, int], list[ScheduledGame]] = {}
    for game in games:  # keyed as the pair id is made, without making it
        pairs.setdefault((game.lineup, game.pair_index), []).append(game)
    return [tuple(p) for p in pairs.values()]


class Dispatcher:
    """Hands out batches of pairs to workers on request, in schedule order, each batch of one
    lineup (a matchup, or with mixed partners a foursome), with lineup affinity.

    A worker that has just played a lineup gets more of its pairs while any are left (so
    that its bot processes are reused); otherwise it gets the lineup of the first pair not
    handed out yet. A batch is at most `max_batch` pairs, and smaller when few are left, so
    that the last pairs spread over all `workers`. Every pair is handed out exactly once.
    """

    def __init__(self, games: Iterable[ScheduledGame], workers: int = 1,
                 max_batch: int = 8) -> None:
        self.pairs = pairs_of(games)
        self.given = [False] * len(self.pairs)
        self.left = len(self.pairs)
        self.workers = max(1, workers)
        self.max_batch = max_batch
        self.current: dict[int, Lineup] = {}  # worker: its last lineup
        self._order = collections.deque(range(len(self.pairs)))  # not given, lazily
        self._by_lineup: dict[Lineup, collections.deque[int]] = {}
        for k, pair in enumerate(self.pairs):
            self._by_lineup.setdefault(pair[0].lineup, collections.deque()).append(k)

    def next(self, worker: int) -> list[tuple[ScheduledGame, ...]]:
        """The next batch for `worker` (each pair: its games still to play); [] when all
        pairs are handed out."""
        current = self.current.get(worker)
        queue = self._by_lineup.get(current) if current is not None else None
        if self._first(queue) is None:
            first = self._first(self._order)
            if first is None:
                return []
            queue = self._by_lineup[self.pairs[first][0].lineup]
        assert queue is not None  # (a pair not handed out is in it)
        size = max(1, min(self.max_batch, -(-self.left // self.workers)))
        batch: list[tuple[ScheduledGame, ...]] = []
        while len(batch) < size and (pick := self._first(queue)) is not None:
            queue.popleft()
            self.given[pick] = True
            batch.append(self.pairs[pick])
        self.left -= len(batch)
        self.current[worker] = batch[0][0].lineup
        return batch

    def _first(self, queue: collections.deque[int] | None) -> int | None:
        """The first pair of `queue` not handed out yet (handed-out ones dropped)."""
        while queue and self.given[queue[0]]:
            queue.popleft()
        return queue[0] if queue else None
