"""The movement of a tournament with mixed partners: which entrants partner and face whom.

A game with mixed partners seats four different entrants: two partnerships, a foursome. A
movement is the list of foursomes one cycle of the tournament plays, each as a duplicate
pair (the same deals twice, the partnerships swapping seats). It is balanced: every two
entrants partner each other `partner_times` times per cycle and face each other as opponents
twice as often, and every entrant plays as many foursomes as every other, (n - 1) times
`partner_times`. Two is the least number of games in which two entrants can partner exactly
as often as they face each other half as often, since a foursome has two partnerships and
four pairs of opponents.

How it is built. The entrants, in key order, are the points of Z_n (n odd) or of Z_(n-1)
plus one fixed point (n even), and the movement is cyclic: a few base foursomes, each
shifted by every element of the group (the fixed point stays). A pair of points {x, y}
belongs to a class, its difference +-(y - x) (pairs with the fixed point form a class of
their own); shifting a base foursome through the group covers every pair of a class once.
So the movement is balanced exactly when the base foursomes' partnerships hold every class
`partner_times` times and their opponent pairs every class twice as often: a small search,
exhaustive when the base has at most three foursomes, else a seeded random local search over
the partnerships' offsets with a fixed budget of moves (deterministic: the same field size
gives the same movement everywhere). `partner_times` is 1 where n(n-1)/4 foursomes can do
it (n = 0 or 1 modulo 4), else 2; it is doubled where no cyclic movement exists (9 entrants:
none on Z_9, the exhaustive search shows) or the search finds none within its budget. Every
field of 4 to 40 entrants gets an exact movement (tests/tournament/test_movement.py checks
4 to 24 on every run); past the budget, the best movement found is used, every partnership
still exactly `partner_times` times, the opponent counts approximate (`Movement.exact`
False, and `opponent_spread` says by how much).

Each cycle plays the movement with the entrants relabelled (`cycle_movement`: cycle 0 as
built, each later one under a seeded shuffle of the keys, the same everywhere), so that over
the cycles a partnership meets different partnerships: with `partner_times` 1 a movement
seats each partnership against a single other one, and the synergy of the two
(`arena.ratings.synergy`) could not be told apart within one movement. Every cycle is
balanced as the movement is.

There are no rounds, so there are no byes: a worker plays any foursome whenever it is free
(an entrant's processes in different games are different processes), and an entrant plays
the same number of games as every other whatever the field size.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import random
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

Partnership = tuple[str, str]
"""Two different entrant keys, in key order."""
Foursome = tuple[Partnership, Partnership]
"""Two partnerships of four different entrants, in order (the first is team 0 in the first
game of each pair)."""

MOVES_PER_ATTEMPT = 150_000
"""Moves of the local search per attempt (each a few microseconds)."""
_RESTART = 30_000  # moves before a random restart of the local search
_INF = -1  # the fixed point of an even field (the last entrant in key order)


@dataclass(frozen=True)
class Movement:
    """One cycle of a tournament with mixed partners, over the entrant keys it was made for."""

    keys: tuple[str, ...]
    """The entrants, in key order."""
    foursomes: tuple[Foursome, ...]
    """Every foursome of a cycle, each once, in the order they are played."""
    times: tuple[int, ...]
    """How many duplicate pairs each foursome plays per cycle (1 unless the construction
    gives a foursome twice)."""
    partner_times: int
    """How often every two entrants partner per cycle."""
    exact: bool
    """True if every two entrants face each other exactly 2 * partner_times times per cycle."""

    @property
    def pairs_per_cycle(self) -> int:
        return sum(self.times)

    @property
    def games_per_cycle(self) -> int:
        return 2 * self.pairs_per_cycle

    def partner_counts(self) -> Counter[Partnership]:
        """Per two entrants (in key order): duplicate pairs played as partners, per cycle."""
        counts: Counter[Partnership] = Counter()
        for foursome, times in zip(self.foursomes, self.times, strict=True):
            for partnership in foursome:
                counts[partnership] += times
        return counts

    def opponent_counts(self) -> Counter[Partnership]:
        """Per two entrants (in key order): duplicate pairs played as opponents, per cycle."""
        counts: Counter[Partnership] = Counter()
        for (first, second), times in zip(self.foursomes, self.times, strict=True):
            for a in first:
                for b in second:
                    counts[(min(a, b), max(a, b))] += times
        return counts

    def opponent_spread(self) -> tuple[int, int]:
        """The fewest and the most pairs two entrants play as opponents per cycle."""
        counts = self.opponent_counts()
        every = [counts[pair] for pair in itertools.combinations(self.keys, 2)]
        return min(every), max(every)

    def describe(self) -> str:
        """What the movement gives, for the run's notes and the standings header."""
        n = len(self.keys)
        low, high = self.opponent_spread()
        faced = (f"faces every other {2 * self.partner_times} times" if self.exact
                 else f"faces every other {low} to {high} times (no exact movement found "
                      f"for {n} entrants)")
        return (f"mixed partners: {len(self.foursomes)} foursomes per cycle "
                f"({self.games_per_cycle} games); each entrant partners every other "
                f"{self.partner_times} time{'s' if self.partner_times > 1 else ''} and "
                f"{faced}, in {2 * self.partner_times * (n - 1)} games per cycle")


def movement(keys: Iterable[str]) -> Movement:
    """The movement of the entrants `keys` (at least four): a function of their number and
    key order alone. ValueError with fewer than four."""
    ordered = tuple(sorted(set(keys)))
    if len(ordered) < 4:
        raise ValueError(f"mixed partners need at least four entrants, not {len(ordered)}")
    base, partner_times, exact = _base(len(ordered))
    tables = Counter(_canonical(ordered, table) for table in _develop(base, len(ordered)))
    foursomes = tuple(tables)  # in the order developed: each base foursome's shifts in turn
    return Movement(ordered, foursomes, tuple(tables[f] for f in foursomes), partner_times,
                    exact)


def cycle_movement(keys: Iterable[str], cycle: int) -> Movement:
    """The movement that cycle `cycle` plays: `movement(keys)` with the entrants relabelled by
    a shuffle seeded with the field size and the cycle (none for cycle 0)."""
    plan = movement(keys)
    if cycle == 0:
        return plan
    shuffled = list(plan.keys)
    random.Random(f"tichu-arena/cycle/{len(shuffled)}/{cycle}").shuffle(shuffled)
    rename = dict(zip(plan.keys, shuffled, strict=True))
    foursomes = tuple(_ordered(tuple(tuple(rename[k] for k in team) for team in foursome))
                      for foursome in plan.foursomes)
    return dataclasses.replace(plan, foursomes=foursomes)


def _ordered(foursome: tuple[tuple[str, ...], ...]) -> Foursome:
    first = (min(foursome[0]), max(foursome[0]))
    second = (min(foursome[1]), max(foursome[1]))
    return (first, second) if first < second else (second, first)


# ----- the cyclic construction -----------------------------------------------------------

Base = tuple[tuple[int, int, int, int], ...]
"""Base foursomes as points: (p, q) partners (r, s); _INF is the fixed point."""


@functools.lru_cache(maxsize=64)
def _base(n: int) -> tuple[Base, int, bool]:
    """The base foursomes for n entrants, their partner_times and whether they are exact."""
    least = 1 if n % 4 in (0, 1) else 2
    best: tuple[int, Base, int] | None = None
    for attempt, times in ((0, least), (1, least), (0, 2 * least), (1, 2 * least)):
        if attempt and _base_size(n, times) <= 3:
            continue  # searched exhaustively already
        found, cost = _search(n, times, attempt)
        if cost == 0:
            return found, times, True
        if found and (best is None or (times, cost) < (best[2], best[0])):
            best = (cost, found, times)
    if best is None:  # not reached for any n >= 4: every search returns a valid base
        raise ValueError(f"no movement found for {n} entrants")
    return best[1], best[2], False


def _group(n: int) -> int:
    """The order of the cyclic group: n for an odd field, n - 1 (plus _INF) for an even one."""
    return n if n % 2 else n - 1


def _base_size(n: int, times: int) -> int:
    return times * n * (n - 1) // 4 // _group(n)


def _class(x: int, y: int, z: int) -> int:
    """The class of the pair {x, y}: its difference 1..(z-1)/2, or 0 for the fixed point."""
    if _INF in (x, y):
        return 0
    d = (y - x) % z
    return min(d, z - d)


def _table(d1: int, d2: int, offset: int, z: int) -> tuple[int, int, int, int] | None:
    """The foursome of partnership {0, d1} (or {_INF, 0} for d1 = 0) against {offset,
    offset + d2} (or {_INF, offset}); None if it does not hold four different points."""
    first = (0, d1 % z) if d1 else (_INF, 0)
    second = (offset % z, (offset + d2) % z) if d2 else (_INF, offset % z)
    points = (*first, *second)
    return points if len(set(points)) == 4 else None


def _opponent_classes(table: tuple[int, int, int, int], z: int) -> list[int]:
    p, q, r, s = table
    return [_class(a, b, z) for a in (p, q) for b in (r, s)]


def _search(n: int, times: int, attempt: int) -> tuple[Base, int]:
    """Base foursomes whose partnerships hold every class `times` times (by construction)
    and whose opponent pairs come as close as found to 2 * times per class; and the cost,
    the sum of squared deviations (0: exact)."""
    z = _group(n)
    classes = list(range(1, (z - 1) // 2 + 1)) + ([] if n % 2 else [0])
    differences = [d for d in classes for _ in range(times)]  # one per partnership
    if _base_size(n, times) <= 3:
        return _exhaustive(differences, classes, z, times)
    rng = random.Random(f"tichu-arena/movement/{n}/{times}/{attempt}")
    return _anneal(differences, classes, z, times, rng)


def _cost(tables: Iterable[tuple[int, int, int, int]], classes: Sequence[int], z: int,
          times: int) -> tuple[list[int], int]:
    """Opponent pairs per class (indexed by class) and the sum of squared deviations."""
    opponents = [0] * ((z - 1) // 2 + 1)
    for table in tables:
        for c in _opponent_classes(table, z):
            opponents[c] += 1
    return opponents, _deviation(opponents, classes, times)


def _deviation(opponents: Sequence[int], classes: Sequence[int], times: int) -> int:
    return sum((opponents[c] - 2 * times) ** 2 for c in classes)


def _exhaustive(differences: list[int], classes: Sequence[int], z: int,
                times: int) -> tuple[Base, int]:
    """Every way of pairing the partnerships (each difference with either sign) into
    foursomes at every offset: an exact base if one exists, else the best."""
    best: tuple[int, Base] | None = None
    for tables in _pairings(differences, z):
        cost = _cost(tables, classes, z, times)[1]
        if best is None or cost < best[0]:
            best = (cost, tuple(tables))
            if cost == 0:
                break
    if best is None:  # not reached: some pairing is valid for every field of 4 or more
        raise ValueError("no base foursomes")
    return best[1], best[0]


def _pairings(differences: list[int], z: int) -> Iterator[list[tuple[int, int, int, int]]]:
    """Every base: the differences paired into foursomes, with signs and offsets."""
    if not differences:
        yield []
        return
    first, rest = differences[0], differences[1:]
    for k, second in enumerate(rest):
        others = rest[:k] + rest[k + 1:]
        for d1, d2 in sorted({(first, second), (first, -second), (-first, second),
                              (-first, -second)}):
            for offset in range(z):
                table = _table(d1, d2, offset, z)
                if table is None:
                    continue
                for tail in _pairings(others, z):
                    yield [table, *tail]


def _anneal(differences: list[int], classes: Sequence[int], z: int, times: int,
            rng: random.Random) -> tuple[Base, int]:
    """A seeded local search over foursomes of two signed differences and an offset: a move
    changes an offset, a sign or the order of a foursome's partnerships, or exchanges
    partnerships between two foursomes; a worse state is kept with a probability falling
    with the temperature; a restart every _RESTART moves."""
    best: tuple[int, Base] | None = None
    moves = 0
    while moves < MOVES_PER_ATTEMPT:
        state = _start(differences, z, rng)
        tables = [_table(s[0], s[1], s[2], z) for s in state]
        opponents, score = _cost(tables, classes, z, times)  # type: ignore[arg-type]  # valid
        temperature = 1.5
        for _ in range(_RESTART):
            moves += 1
            if best is None or score < best[0]:
                best = (score, tuple(tables))  # type: ignore[arg-type]  # all valid
                if score == 0:
                    return best[1], 0
            picked, proposal = _move(state, rng, z)
            new_tables = [_table(s[0], s[1], s[2], z) for s in proposal]
            if not picked or None in new_tables:
                continue
            for k in picked:
                for c in _opponent_classes(tables[k], z):  # type: ignore[arg-type]  # valid
                    opponents[c] -= 1
            for t in new_tables:
                for c in _opponent_classes(t, z):  # type: ignore[arg-type]  # not None
                    opponents[c] += 1
            new_score = _deviation(opponents, classes, times)
            if new_score <= score or rng.random() < math.exp((score - new_score) / temperature):
                for k, s, t in zip(picked, proposal, new_tables, strict=True):
                    state[k], tables[k] = s, t
                score = new_score
            else:
                for t in new_tables:
                    for c in _opponent_classes(t, z):  # type: ignore[arg-type]  # not None
                        opponents[c] -= 1
                for k in picked:
                    for c in _opponent_classes(tables[k], z):  # type: ignore[arg-type]
                        opponents[c] += 1
            temperature = max(0.2, temperature * 0.9995)
    if best is None:  # not reached: MOVES_PER_ATTEMPT > 0
        raise ValueError("no base foursomes")
    return best[1], best[0]


def _start(differences: list[int], z: int, rng: random.Random) -> list[list[int]]:
    """A random valid state: the differences shuffled into foursomes (two partnerships with
    the fixed point never in one), random signs, and offsets redrawn until valid."""
    order = differences[:]
    rng.shuffle(order)
    for k in range(0, len(order), 2):
        if order[k] == order[k + 1] == 0:  # two partnerships with the fixed point: split them
            j = next(j for j in range(len(order)) if order[j] != 0)
            order[k + 1], order[j] = order[j], order[k + 1]
    state = [[order[k] * rng.choice((1, -1)), order[k + 1] * rng.choice((1, -1)), 0]
             for k in range(0, len(order), 2)]
    for s in state:
        while _table(s[0], s[1], s[2], z) is None:
            s[2] = rng.randrange(z)
    return state


def _move(state: list[list[int]], rng: random.Random,
          z: int) -> tuple[list[int], list[list[int]]]:
    """A proposed change: (indices of the foursomes changed, their new states); ([], [])
    for none."""
    k = rng.randrange(len(state))
    d1, d2, offset = state[k]
    roll = rng.random()
    if roll < 0.55:
        return [k], [[d1, d2, rng.randrange(z)]]
    if roll < 0.7:
        return [k], [[d1, -d2, offset]]
    if roll < 0.8:
        return [k], [[d2, d1, offset]]
    other = rng.randrange(len(state))
    if other == k:
        return [], []
    mine, theirs = state[k][:], state[other][:]
    a, b = rng.randrange(2), rng.randrange(2)
    mine[a], theirs[b] = theirs[b], mine[a]
    return [k, other], [mine, theirs]


def _develop(base: Base, n: int) -> list[tuple[int, int, int, int]]:
    """Every shift of every base foursome (the fixed point stays)."""
    z = _group(n)
    return [tuple(p if p == _INF else (p + shift) % z for p in table)  # type: ignore[misc]
            for table in base for shift in range(z)]


def _canonical(keys: Sequence[str], table: tuple[int, int, int, int]) -> Foursome:
    """A foursome of points as entrant keys: each partnership in key order, the two
    partnerships in order. The fixed point is the last key."""
    named = [keys[-1] if p == _INF else keys[p] for p in table]
    return _ordered(((named[0], named[1]), (named[2], named[3])))
