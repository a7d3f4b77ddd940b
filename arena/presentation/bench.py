"""`arena bench report`: the web report's size and build time, on a tournament store given or
on a synthetic one; and the synthetic tournaments themselves, which the report's tests use too.

A synthetic tournament holds real games of the rules engine (random players), recorded in the
referee's record format and stored like a tournament's: each game's events re-simulate
exactly, but its bots never ran, and the decision latencies are drawn at random. A stronger
entrant is made by giving its seats a player that never passes when it can play (enough to
win most games against random play). For a store of thousands of games, `distinct` reuses
the records of that many played games.

`bench_report` builds the report twice: a first build (every record read) and a rebuild with
nothing new (what `arena report --watch` does each time).
"""

from __future__ import annotations

import gzip
import json
import random
import time
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.presentation.report import BuildResult, ReportBuilder
from arena.referee import wire
from arena.referee.record import EntrantInfo, GameRecord, Termination
from arena.rules import Action, Decision, Game, Play
from arena.rules.selfplay import random_player
from arena.tournament.records import write_record
from arena.tournament.schedule import round_robin
from arena.tournament.store import EntrantRow, GameRow, Store


def eager_player(rng: random.Random) -> Callable[[Decision], Action]:
    """Plays whenever it may (the longest legal play), else passes; never calls."""
    base = random_player(rng)

    def choose(decision: Decision) -> Action:
        plays = [o for o in decision.options if isinstance(o, Play)]
        if decision.kind.value in ("play", "bomb") and plays:
            return max(plays, key=lambda o: (bin(o.cards).count("1"), rng.random()))
        return base(decision)

    return choose


def play_record(game_id: str, seed: int, teams: Sequence[str], strong: AbstractSet[str],
                target: int = 500) -> GameRecord:
    """One engine game between teams (entrant keys "name@version") as a game record."""
    rng = random.Random(seed ^ hash(tuple(teams)) & 0xFFFF)
    players = [eager_player(random.Random(seed + s)) if teams[s & 1] in strong
               else random_player(random.Random(seed + s)) for s in range(4)]
    game = Game(seed, target)
    decisions: list[dict[str, Any]] = []
    while not game.over:
        for seat in game.to_act():
            decision = game.decision(seat)
            action = players[seat](decision)
            game.apply(seat, action)
            decisions.append({"seat": seat, "id": len(decisions), "kind": decision.kind.value,
                              "action": wire.action_map(action),
                              "call_tichu": bool(getattr(action, "call_tichu", False)),
                              "wish": wire.rank_text(action.wish) if isinstance(action, Play)
                              else None,
                              "latency_ms": round(rng.lognormvariate(0.0, 0.8), 3)})
    events = [wire.event_map(e) | {"visible_to": e.visible_to} for e in game.events]
    team0, team1 = (EntrantInfo(k.split("@")[0], k.split("@")[1], f"/bots/{k}") for k in teams)
    round_scores = [tuple(e["scores"]) for e in events if e["kind"] == "round_end"]
    return GameRecord(game_id, seed, target, (team0, team1), decisions, events, round_scores,
                      (game.scores[0], game.scores[1]), game.winner, game.round_number, Termination.NORMAL,
                      None, [0.01] * 4, [""] * 4, 0.1)


def fill_store(store_path: Path, keys: Sequence[str], pairs: int,
               strong: AbstractSet[str] = frozenset(), seed: int = 1, target: int = 500,
               skip: AbstractSet[str] = frozenset(),
               distinct: int | None = None, anchor: str | None = None,
               durable: bool = True) -> int:
    """Register `keys` and store every game of their round robin (but the matchups of
    entrants in `skip`); `distinct` reuses that many played games' records round-robin
    (fast, for size benchmarks). The store's ratings anchor is `anchor`, else the first
    entrant's name. `durable=False` skips the fsyncs of records and commits (a benchmark's
    store of thousands of games). Returns the games stored."""
    cache: list[tuple[GameRecord, bytes]] = []
    stored = 0
    with Store(store_path) as store:
        if not durable:
            store.without_fsync()
        store.set_meta({"name": store_path.stem, "anchor": anchor or keys[0].split("@")[0]})
        for key in keys:
            name, version = key.split("@")
            store.register_entrant(EntrantRow(key, name, version, "1.0", "python",
                                              f"/bots/{name}", "config", False))
        for game in round_robin(keys, pairs, seed):
            if set(game.teams) & set(skip):
                continue
            relative = f"{store_path.name}.records/{game.record_name}.json.gz"
            path = store_path.parent / relative
            if distinct is not None and len(cache) >= distinct:
                # A reused record keeps its own game id and entrants inside: the store's row
                # is what names the game and its teams.
                record, packed = cache[stored % distinct]
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(packed)
            else:
                record = play_record(game.game_id, game.seed, game.teams, strong, target)
                packed = gzip.compress(json.dumps(record.to_json()).encode(), 6)
                cache.append((record, packed))
                if durable:
                    write_record(record, path)
                else:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_bytes(packed)
            store.add_game(GameRow.from_record(game, record, relative))
            stored += 1
    return stored


SYNTHETIC_ENTRANTS = 10
"""Entrants of the synthetic tournament of `bench_report` (45 matchups)."""

SYNTHETIC_DISTINCT = 300
"""Distinct engine games played for it by default; the other games reuse their records."""


@dataclass(frozen=True)
class ReportFigures:
    """What `bench_report` measured."""

    synthetic: tuple[int, float] | None
    """(games stored, seconds) of the synthetic store, when one was made."""
    first: BuildResult
    """The first build: every record read."""
    again: BuildResult
    """A rebuild with nothing new (what `--watch` does each time)."""

    def lines(self) -> list[str]:
        out = []
        if self.synthetic is not None:
            games, seconds = self.synthetic
            out.append(f"synthetic store: {games} games in {seconds:.0f} s")
        first, again = self.first, self.again
        out.append(f"first build: {first.games} games, {first.files} files, "
                   f"{first.bytes / 1e6:.1f} MB, {first.seconds:.1f} s")
        out.append(f"rebuild, nothing new: {again.seconds:.1f} s "
                   f"({again.new_games} records read)")
        out.append(f"report: {first.folder / 'index.html'}")
        return out


def synthetic_store(folder: Path, games: int, distinct: int = SYNTHETIC_DISTINCT
                    ) -> tuple[Path, int]:
    """A synthetic tournament of about `games` games in `folder`: `SYNTHETIC_ENTRANTS`
    entrants (two of them strong), pairs per matchup to make the count, `distinct` of them
    played by the engine, the others reusing their records; (store, games)."""
    keys = [f"bot{k}@v{k}" for k in range(SYNTHETIC_ENTRANTS)]
    matchups = SYNTHETIC_ENTRANTS * (SYNTHETIC_ENTRANTS - 1) // 2
    pairs = max(1, round(games / 2 / matchups))
    store = folder / "synthetic.sqlite"
    stored = fill_store(store, keys, pairs, strong={"bot1@v1", "bot2@v2"},
                        distinct=distinct, anchor="bot0", durable=False)
    return store, stored


def bench_report(folder: Path, store: Path | None = None, games: int = 10_000,
                 distinct: int = SYNTHETIC_DISTINCT,
                 note: Callable[[str], None] = lambda text: None) -> ReportFigures:
    """Build the report of `store` (default: a synthetic tournament of about `games` games,
    `distinct` of them played by the engine, made in `folder`) into `folder / "site"`,
    twice; `note` hears what is under way."""
    synthetic = None
    if store is None:
        note(f"making a synthetic tournament of about {games} games "
             f"({distinct} distinct engine games at most)")
        start = time.monotonic()
        store, stored = synthetic_store(folder, games, distinct)
        synthetic = (stored, time.monotonic() - start)
    note("building the report twice")
    with Store(store, create=False) as opened:
        anchor = opened.meta("anchor")
        key = next((e.key for e in opened.entrants() if e.name == anchor), None)
    builder = ReportBuilder(store, folder / "site", {"anchor": key, "anchor_elo": 0.0,
                                                     "prior": 2.0})
    first = builder.build()
    again = builder.build()
    return ReportFigures(synthetic, first, again)
