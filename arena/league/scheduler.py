"""The league's continuous schedule: which matchup plays its next duplicate pair, forever.

The policy (README, "Run a league"), a pure function of the pairs played and the ratings
(`choose`):

1. Placement: a matchup with fewer than `placement_pairs` pairs comes first (a new version
   has played none against anyone), the one with fewest pairs first. It comes before the
   pairs a restart found stored half, which follow at once (`LeagueSource`).
2. Then every matchup of active entrants is weighed by its pairs played, times 2 when the
   two entrants' intervals are apart (their order is settled) and less the more they
   overlap: the fewest-weighted matchup plays. So an unsettled neighbour pair gets about
   twice the games of a settled one, and since a matchup's weight only grows as it plays,
   none is ever starved.
3. Ties go to the matchup whose entrants have played fewest pairs in all.

`LeagueSource` hands these out to the tournament's workers (`arena.tournament.workers`, as a
`Source`): each batch is `batch_pairs` pairs of one matchup, each pair index handed out once
in a server's life; a pair found half-stored at start (the server was killed during it)
plays its missing game on its stored game's deals (the tournament's replay of unfinished
games), after the placement games of the active entrants: a new version does not wait for
the pairs of the field it joins. A half pair of an entrant no longer active (a retired
version) is never played. Each pair is dealt from its own id (`Deals.pair_seed`): the two versions
and the pair index, so no published record shows a hand of a pair still to come. A pair
handed out but never stored leaves its index unused: a gap changes nothing. `Pace` spaces
the batches' starts where the league's config caps its games a minute (a league sharing its
machine: each game's bots and referee take CPU).
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence

from arena.tournament.schedule import Deals, ScheduledGame, pair_games

Matchup = tuple[str, str]
Interval = tuple[float, float]
"""An entrant's rating and the half-width of its 95% interval (inf: not rated yet)."""


def overlap(a: Interval | None, b: Interval | None) -> float:
    """How much two entrants' intervals overlap: 0 apart (their order is settled) .. 1 the
    same rating; 1 if either is not rated."""
    if a is None or b is None:
        return 1.0
    widths = a[1] + b[1]
    if not widths < float("inf"):
        return 1.0
    if widths <= 0:
        return 0.0 if a[0] != b[0] else 1.0
    return max(0.0, min(1.0, (widths - abs(a[0] - b[0])) / widths))


def choose(active: Sequence[str], pairs: Mapping[Matchup, int],
           ratings: Mapping[str, Interval], placement_pairs: int,
           busy: Iterable[Matchup] = ()) -> Matchup | None:
    """The matchup of `active` entrants to play next (None: fewer than two entrants, or
    every matchup busy). `pairs`: pairs handed out per matchup (keys in key order)."""
    taken = set(busy)
    matchups = [m for m in itertools.combinations(sorted(set(active)), 2) if m not in taken]
    if not matchups:
        return None
    totals: dict[str, int] = {}
    for (a, b), n in pairs.items():
        totals[a] = totals.get(a, 0) + n
        totals[b] = totals.get(b, 0) + n

    def weight(m: Matchup) -> tuple[int, float, int]:
        played = pairs.get(m, 0)
        placing = 0 if played < placement_pairs else 1
        settled = 1.0 - overlap(ratings.get(m[0]), ratings.get(m[1]))
        return placing, (played + 1) * (1.0 + settled), totals.get(m[0], 0) + totals.get(m[1], 0)

    return min(matchups, key=weight)


class Pace:
    """Spaces the starts of the league's batches so that at most `per_minute` games start a
    minute, on average (None: no limit): each batch handed out moves the earliest start of the
    next on by its games' share of a minute. Shared by the workers of a server (thread-safe)
    and kept across its generations of entrants."""

    POLL = 0.1
    """How often a waiting worker looks whether the league stopped or its entrants changed."""

    def __init__(self, per_minute: int | None) -> None:
        self.per_minute = per_minute
        self.next_start = float("-inf")
        self.lock = threading.Lock()

    def wait(self, stop: Callable[[], bool]) -> None:
        """Until a batch may start (at once without a limit), or `stop()` turns true."""
        while self.per_minute is not None and not stop():
            with self.lock:
                left = self.next_start - time.monotonic()
            if left <= 0:
                return
            time.sleep(min(left, self.POLL))

    def started(self, games: int) -> None:
        """`games` games were handed out now: the next batch waits for their share."""
        if self.per_minute is None:
            return
        with self.lock:
            self.next_start = max(self.next_start, time.monotonic()) + \
                60.0 * games / self.per_minute


class LeagueSource:
    """Hands out batches to the workers as they ask (a `workers.Source`), until the entrants
    change or the league stops: then [] ends the workers' run, and the league starts the
    next with the new entrants. Called from the thread that runs the games."""

    def __init__(self, active: Sequence[str], deals: Deals, pairs: Mapping[Matchup, int],
                 half_done: Mapping[Matchup, Sequence[ScheduledGame]],
                 ratings: Callable[[], Mapping[str, Interval]], placement_pairs: int,
                 batch_pairs: int, stop: Callable[[], bool], pace: Pace | None = None) -> None:
        self.active = list(active)
        self.deals = deals
        self.pairs = dict(pairs)
        self.half_done = {m: list(g) for m, g in half_done.items() if set(m) <= set(active)}
        self.ratings = ratings
        self.placement_pairs = placement_pairs
        self.batch_pairs = batch_pairs
        self.stop = stop
        self.pace = pace or Pace(None)
        self.busy: dict[int, Matchup] = {}  # worker: the matchup it plays
        self.lock = threading.Lock()

    def next(self, worker: int) -> list[tuple[ScheduledGame, ...]]:
        with self.lock:
            self.busy.pop(worker, None)
        self.pace.wait(self.stop)
        batch = self._chosen(worker)
        self.pace.started(sum(map(len, batch)))
        return batch

    def _chosen(self, worker: int) -> list[tuple[ScheduledGame, ...]]:
        with self.lock:
            if self.stop():
                return []
            ratings = self.ratings()
            chosen = choose(self.active, self.pairs, ratings, self.placement_pairs,
                            self.busy.values())
            placing = chosen is not None and self.pairs.get(chosen, 0) < self.placement_pairs
            half = chosen if placing and chosen in self.half_done else \
                None if placing else self._half_pair()
            if half is not None:
                self.busy[worker] = half
                return [(game,) for game in self.half_done.pop(half)]
            if chosen is None:  # more workers than matchups: a busy one plays another pair
                chosen = choose(self.active, self.pairs, ratings, self.placement_pairs)
            if chosen is None:
                return []
            first = self.pairs.get(chosen, 0)
            self.pairs[chosen] = first + self.batch_pairs
            self.busy[worker] = chosen
            return [tuple(pair_games(chosen, k, self.deals))
                    for k in range(first, first + self.batch_pairs)]

    def _half_pair(self) -> Matchup | None:
        """A matchup with a pair stored half and no worker playing it (None: there is none)."""
        return next((m for m in self.half_done if m not in self.busy.values()), None)


def stored_pairs(stored: Mapping[str, int],
                 ) -> tuple[dict[Matchup, int], dict[Matchup, list[ScheduledGame]]]:
    """From the stored games (game id "a~b#k.g": its seed): per matchup the next pair index
    to hand out (one past the highest stored), and the missing game of each pair stored half,
    on its stored game's seed (so a store half played by an older arena keeps its pairs)."""
    games: dict[str, dict[int, int]] = {}  # pair id: {game index: seed}
    for game_id, seed in stored.items():
        pair_id, _, index = game_id.rpartition(".")
        games.setdefault(pair_id, {})[int(index)] = seed
    following: dict[Matchup, int] = {}
    half: dict[Matchup, list[ScheduledGame]] = {}
    for pair_id, seeds in games.items():
        sides, _, k = pair_id.rpartition("#")
        a, _, b = sides.partition("~")
        matchup, pair = (a, b), int(k)
        following[matchup] = max(following.get(matchup, 0), pair + 1)
        if len(seeds) == 1:
            ((g, seed),) = seeds.items()
            half.setdefault(matchup, []).append(ScheduledGame(matchup, pair, 1 - g, seed))
    return following, half
