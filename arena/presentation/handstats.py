"""Hand-level statistics per entrant, read from the game records: what game wins hide.

For every round of every stored game, from each team's side: card points, double-victory
points and call bonuses (net: a failed call costs), Tichu and Grand Tichu calls and whether
the caller went out first, double victories for and against, who went out first, bombs
played; for every decision a bot made, its latency (the referee's automatic passes left out);
and, for the two games of each duplicate pair, the duplicate score of each shared deal (see
`arena.ratings.duplicate`). Means come with pair-clustered 95% intervals. With mixed
partners an entrant gets its team's figures (shared with its partner) and its own seat's
decision times; the duplicate score, which compares two entrants, is of fixed partners only.

Records are read as JSON (`arena.tournament.records.record_json`), not as the referee's record
class, so that fields added by newer arenas (such as `isolation`) are kept rather than refused.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.ratings.duplicate import (
    DealScore,
    DuplicateRatings,
    Mean,
    clustered_mean,
    duplicate_ratings,
    percentile,
)

BOMBS = ("four_bomb", "straight_flush")


@dataclass(frozen=True)
class TeamRound:
    """One round from one team's side."""

    card_points: int
    double_victory: int
    """200 for a double victory of this team, else 0 (the other team's card points are 0)."""
    calls: int
    """Net call bonuses: +100/+200 for a call made, -100/-200 for one failed."""
    opponent_total: int
    tichu_calls: int
    tichu_made: int
    grand_calls: int
    grand_made: int
    double_for: bool
    double_against: bool
    first_out: bool
    bombs: int

    @property
    def total(self) -> int:
        return self.card_points + self.double_victory + self.calls


def team_rounds(record: Mapping[str, Any]) -> tuple[list[TeamRound], list[TeamRound]]:
    """Every complete round of a record, from team 0's and team 1's side."""
    out: tuple[list[TeamRound], list[TeamRound]] = ([], [])
    tichu, grand, bombs = [False] * 4, [False] * 4, [0] * 4
    for event in record["events"]:
        kind = event.get("kind")
        if kind == "round_start":
            tichu, grand, bombs = [False] * 4, [False] * 4, [0] * 4
        elif kind == "grand_tichu" and event.get("call"):
            grand[event["seat"]] = True
        elif kind == "tichu":
            tichu[event["seat"]] = True
        elif kind == "play" and event.get("combination") in BOMBS:
            bombs[event["seat"]] += 1
        elif kind == "round_end":
            for team in (0, 1):
                out[team].append(_team_round(event, team, tichu, grand, bombs))
    return out


def _team_round(end: Mapping[str, Any], team: int, tichu: Sequence[bool],
                grand: Sequence[bool], bombs: Sequence[int]) -> TeamRound:
    seats = (team, team + 2)
    first = end["out_order"][0] if end["out_order"] else -1
    double = bool(end["double_victory"])
    double_team = first & 1 if double else None
    cards = end["card_points"]
    own_cards = 0 if double else cards[team]
    other = 1 - team
    other_total = (0 if double else cards[other]) + end["calls"][other] + \
        (200 if double_team == other else 0)
    return TeamRound(
        own_cards, 200 if double_team == team else 0, end["calls"][team], other_total,
        sum(tichu[s] for s in seats), sum(tichu[s] and first == s for s in seats),
        sum(grand[s] for s in seats), sum(grand[s] and first == s for s in seats),
        double_team == team, double_team == other, first in seats,
        sum(bombs[s] for s in seats))


@dataclass
class _Tally:
    """Observations of one entrant, grouped by pair (the clusters of the intervals)."""

    rounds: dict[str, list[TeamRound]] = field(default_factory=dict)
    latencies: array = field(default_factory=lambda: array("d"))
    games: int = 0


@dataclass(frozen=True)
class HandStats:
    """One entrant's hand-level figures; means are per round, with 95% intervals."""

    games: int
    rounds: int
    points: Mean | None
    """Own points per round: card points + double victories + call bonuses."""
    card_points: Mean | None
    double_victory_points: Mean | None
    call_points: Mean | None
    margin: Mean | None
    """Own minus opponent's points per round."""
    tichu_calls: Mean | None
    """Tichu calls per round (by either seat of the entrant's team)."""
    tichu_success: float | None
    """Share of Tichu calls made good (None with no calls)."""
    grand_calls: Mean | None
    grand_success: float | None
    double_for: int
    double_against: int
    first_out: Mean | None
    """Share of rounds in which a seat of the entrant went out first."""
    bombs: int
    bombs_per_round: Mean | None
    decisions: int
    """Decisions the bot made (automatic passes left out)."""
    latency_mean_ms: float
    latency_p99_ms: float


def _mean(tally: _Tally, value: Any) -> Mean | None:
    return clustered_mean([[float(value(r)) for r in rounds]
                           for rounds in tally.rounds.values()])


def _share(made: int, called: int) -> float | None:
    return made / called if called else None


def _summarise(tally: _Tally) -> HandStats:
    rounds = [r for rs in tally.rounds.values() for r in rs]
    tichu = sum(r.tichu_calls for r in rounds)
    grand = sum(r.grand_calls for r in rounds)
    lat = tally.latencies
    return HandStats(
        tally.games, len(rounds), _mean(tally, lambda r: r.total),
        _mean(tally, lambda r: r.card_points), _mean(tally, lambda r: r.double_victory),
        _mean(tally, lambda r: r.calls), _mean(tally, lambda r: r.total - r.opponent_total),
        _mean(tally, lambda r: r.tichu_calls), _share(sum(r.tichu_made for r in rounds), tichu),
        _mean(tally, lambda r: r.grand_calls), _share(sum(r.grand_made for r in rounds), grand),
        sum(r.double_for for r in rounds), sum(r.double_against for r in rounds),
        _mean(tally, lambda r: r.first_out), sum(r.bombs for r in rounds),
        _mean(tally, lambda r: r.bombs), len(lat),
        sum(lat) / len(lat) if lat else math.nan, percentile(lat, 0.99))


@dataclass(frozen=True)
class GameFacts:
    """What the statistics keep of one stored game (the record itself is not kept)."""

    pair_id: str
    game_index: int
    teams: tuple[str, str]
    """The entrants of seats 0 and 1."""
    sides: tuple[list[TeamRound], list[TeamRound]]
    """Every complete round from team 0's and team 1's side."""
    latencies: tuple[array, ...]
    """Decision latencies (ms) of each seat, 0 to 3, automatic passes left out."""
    seats: tuple[str, str, str, str] | None = None
    """With mixed partners, the entrant of each seat (None: teams of copies)."""

    def seat_entrants(self) -> tuple[str, str, str, str]:
        a, b = self.teams
        return self.seats or (a, b, a, b)


def game_facts(pair_id: str, game_index: int, teams: tuple[str, str],
               record: Mapping[str, Any],
               seats: tuple[str, str, str, str] | None = None) -> GameFacts:
    """The facts of one game; `seats`: each seat's entrant, with mixed partners."""
    return GameFacts(pair_id, game_index, teams, team_rounds(record),
                     tuple(array("d", _latencies(record, s)) for s in range(4)), seats)


@dataclass(frozen=True)
class HandReport:
    """Hand statistics of every entrant and the duplicate ratings."""

    entrants: Mapping[str, HandStats]
    duplicate: DuplicateRatings | None
    deal_scores: tuple[DealScore, ...]


def hand_report(games: Iterable[GameFacts], reference: str | None = None) -> HandReport:
    """Tally every game (records of any termination: a forfeit's finished rounds count) and
    fit the duplicate ratings with `reference` held at 0 (if it took part)."""
    tallies: dict[str, _Tally] = {}
    by_pair: dict[str, dict[int, GameFacts]] = {}
    for game in games:
        seats = game.seat_entrants()
        for team in (0, 1):  # each entrant of a team gets the team's rounds once
            for key in dict.fromkeys((seats[team], seats[team + 2])):
                tally = tallies.setdefault(key, _Tally())
                tally.games += 1
                tally.rounds.setdefault(game.pair_id, []).extend(game.sides[team])
        for seat, key in enumerate(seats):  # and its own seats' decision times
            tallies[key].latencies.extend(game.latencies[seat])
        if game.seats is None:  # the duplicate score compares two entrants, not partners
            by_pair.setdefault(game.pair_id, {})[game.game_index] = game
    scores = tuple(s for pair in by_pair.values() if len(pair) == 2
                   for s in [_deal_score(pair[0], pair[1])] if s is not None)
    return HandReport({k: _summarise(t) for k, t in sorted(tallies.items())},
                      duplicate_ratings(scores, reference), scores)


def _latencies(record: Mapping[str, Any], seat: int) -> list[float]:
    return [float(d["latency_ms"]) for d in record.get("decisions", ())
            if d.get("seat", -1) == seat and not d.get("auto")
            and isinstance(d.get("latency_ms"), (int, float))]


def _deal_score(first: GameFacts, second: GameFacts) -> DealScore | None:
    """Game 0's team 0 entrant against the other, over the deals both games played."""
    a, b = first.teams
    if second.teams != (b, a):
        return None
    one, two = first.sides, second.sides
    deals = min(len(one[0]), len(two[0]))
    if not deals:
        return None
    total = sum((one[0][k].total - one[1][k].total) + (two[1][k].total - two[0][k].total)
                for k in range(deals))
    return DealScore(first.pair_id, a, b, total / (2.0 * deals), deals)
