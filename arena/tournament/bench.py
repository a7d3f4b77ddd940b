"""The tournament's benchmarks: the coordinator's work as the league grows, and a game's cost
per language.

`bench_coordinator` builds, for each league size, a finished round robin in a scratch folder
(tiny bot folders that are never started, a config, and a store filled with synthetic results
and synthetic record files, stored as a run stores them), then times the coordinator's steps
on it: storing finished games (the single writer's ceiling, records linked as a run links
them), handing out every pair, the standings, the live standings' fit, and running the
finished tournament ("nothing left to play"). `CoordinatorFigures.exponents` fits each step's
time against the games stored on a log-log scale: 1 is linear.

The standings are timed through a callable the caller gives (the command line's own
`arena standings` text), so that what is timed is what a user waits for.

`bench_game_costs` (`arena bench game-cost`) measures what a plan assumes of a bot that has
not played: a real round robin (intake, builds, one worker, the sandbox) between the
bundled random bot of each language at each target asked for, each game's seconds split
into its two entrants' shares by the plan's own least squares (`plan.fit_costs`).
"""

from __future__ import annotations

import gc
import json
import math
import os
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from arena.ratings.fit import rate
from arena.referee.record import EntrantInfo, GameRecord, Termination
from arena.sandbox import resolve
from arena.tournament.config import TournamentConfig, load_config
from arena.tournament.plan import fit_costs
from arena.tournament.records import link_record, pending_record, record_bytes, write_record
from arena.tournament.runner import deals_of, open_store, register_entrants, run_tournament
from arena.tournament.schedule import Dispatcher, ScheduledGame, round_robin
from arena.tournament.store import GameRow, GameWriter, Store

STANDINGS = Callable[[Path, int], str]
"""(store path, bootstrap replicates) -> the standings text, as `arena standings` prints it."""

SPREAD_ELO = 200.0
"""Standard deviation of the synthetic entrants' true ratings."""

PER_GAME_SAMPLE = 500
"""Games stored one commit per game (the old way), and records written durably (as a worker
writes them), to measure those rates: they take about as long per game at any size, and all
of a large league would take minutes. The other records are written without a sync."""


@dataclass(frozen=True)
class LeagueFigures:
    """One league size's timings, in seconds (None: not measured)."""

    entrants: int
    games: int
    pairs: int
    per_game_rate: float
    """Games/s stored one transaction per game, records linked (`Store.add_game`)."""
    writer_rate: float
    """Games/s stored by the coordinator's writer (`GameWriter.add`), records (written by
    workers) linked."""
    held_rate: float
    """Games/s stored by the writer when it also writes the records (`GameWriter.add` given
    bytes: what a coordinator does with records a cluster's workers send)."""
    record_rate: float
    """Games/s of writing the (synthetic) record files, as a worker writes them."""
    handout: float
    """Handing out every pair to 100 workers (`Dispatcher`)."""
    standings: float
    bootstrap: float | None
    fit: float
    """One fit of the live standings line on the finished store (what `LiveStandings`
    computes: it runs in a thread of its own, off the loop that stores and hands out)."""
    nothing_left: float
    """`run_tournament` on the finished tournament (entrants hashed, nothing to play)."""


@dataclass(frozen=True)
class CoordinatorFigures:
    """Timings per league size and what they say about growth."""

    leagues: tuple[LeagueFigures, ...]
    pairs_per_matchup: int
    bootstrap_replicates: int

    _STEPS = (("handout", "hand-out"), ("standings", "standings"), ("bootstrap", "bootstrap"),
              ("fit", "live fit"), ("nothing_left", "nothing left"))

    def exponents(self) -> dict[str, float]:
        """Per step, the slope of log(seconds) over log(games stored): 1 is linear."""
        slopes = {}
        for attr, name in self._STEPS:
            points = [(math.log(f.games), math.log(getattr(f, attr))) for f in self.leagues
                      if getattr(f, attr) is not None and getattr(f, attr) > 0]
            if len(points) >= 2:
                slopes[name] = _slope(points)
        return slopes

    def lines(self, game_seconds: float, workers: Sequence[int] = (100,)) -> list[str]:
        """The table, the exponents, and the writer's ceiling in workers of `game_seconds`."""
        from tabulate import tabulate

        rows = [[f.entrants, f"{f.games:,}", f"{f.per_game_rate:,.0f}",
                 f"{f.writer_rate:,.0f}", f"{f.held_rate:,.0f}", f"{f.standings:.2f}",
                 "-" if f.bootstrap is None else f"{f.bootstrap:.1f}", f"{f.fit:.2f}",
                 f"{f.nothing_left:.2f}", f"{f.handout:.2f}"] for f in self.leagues]
        headers = ["entrants", "games", "store games/s: 1 commit/game",
                   "writer", "writer writing records", "standings s",
                   f"--bootstrap {self.bootstrap_replicates} s", "live fit s",
                   "nothing left s", "hand-out s"]
        lines = [f"Synthetic leagues, {self.pairs_per_matchup} pairs per matchup, no game "
                 "played; records written as workers write them and linked as a run links "
                 "them.", "", *tabulate(rows, headers=headers).splitlines(), ""]
        slopes = self.exponents()
        if slopes:
            lines.append("Growth with the games stored (log-log slope; 1 is linear): "
                         + ", ".join(f"{name} {s:.2f}" for name, s in slopes.items()))
        rate = min(f.writer_rate for f in self.leagues)
        held = min(f.held_rate for f in self.leagues)
        record = min(f.record_rate for f in self.leagues)
        lines.append(f"The writer's ceiling: {rate:,.0f} games/s with records written by "
                     f"workers, {held:,.0f} games/s writing them itself (one at a time, "
                     f"each synced: {record:,.0f} games/s); at {game_seconds:g} s per game "
                     f"and worker that feeds {min(rate, held) * game_seconds:,.0f} workers ("
                     + ", ".join(f"{n} workers produce {n / game_seconds:,.0f} games/s"
                                 for n in workers) + ").")
        return lines


def _slope(points: Sequence[tuple[float, float]]) -> float:
    mx = sum(x for x, _ in points) / len(points)
    my = sum(y for _, y in points) / len(points)
    num = sum((x - mx) * (y - my) for x, y in points)
    den = sum((x - mx) ** 2 for x, _ in points)
    return num / den if den else math.nan


def bench_coordinator(sizes: Sequence[int], standings: STANDINGS, pairs: int = 8,
                      bootstrap: int = 200, bootstrap_up_to: int | None = None,
                      seed: int = 0, folder: Path | None = None,
                      note: Callable[[str], None] | None = None) -> CoordinatorFigures:
    """Build a finished league of each size in `sizes` and time the coordinator on it.

    `bootstrap` replicates are timed for leagues of at most `bootstrap_up_to` entrants (None:
    all; 0 replicates: none). Scratch folders go under `folder` (default: a temporary one,
    removed afterwards).
    """
    leagues = []
    scratch = Path(tempfile.mkdtemp(prefix="arena-bench-", dir=folder))
    try:
        for size in sizes:
            if note is not None:
                note(f"{size} entrants: building the league ...")
            rng = random.Random(f"{seed}/{size}")
            with_boot = bootstrap if bootstrap_up_to is None or size <= bootstrap_up_to else 0
            leagues.append(_bench_league(scratch / f"league-{size}", size, pairs, rng,
                                         standings, with_boot))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return CoordinatorFigures(tuple(leagues), pairs, bootstrap)


def make_league(folder: Path, size: int, pairs: int) -> TournamentConfig:
    """A tournament config of `size` tiny bot folders (never started) in `folder`."""
    bots = folder / "bots"
    for k in range(size):
        bot = bots / f"bot{k:03d}"
        bot.mkdir(parents=True)
        (bot / "bot.toml").write_text(f'name = "bot{k:03d}"\nversion = "1.0.0"\n'
                                      f'language = "python"\ncommand = ["{sys.executable}", '
                                      '"bot.py"]\n')
        (bot / "bot.py").write_text(f"# synthetic entrant {k}: never started\n")
    entrants = ", ".join(f'"bots/bot{k:03d}"' for k in range(size))
    path = folder / "league.toml"
    path.write_text(f'[tournament]\nname = "bench-{size}"\nentrants = [{entrants}]\n'
                    f"games_per_matchup = {2 * pairs}\ntarget = 1000\nseed = 1\n"
                    'concurrency = 1\nisolation = "none"\nstorage = "league.sqlite"\n')
    return load_config(path)


def _bench_league(folder: Path, size: int, pairs: int, rng: random.Random,
                  standings: STANDINGS, bootstrap: int) -> LeagueFigures:
    config = make_league(folder, size, pairs)
    with open_store(config) as store:
        entrants, _ = register_entrants(config, store)
        keys = list(entrants)
        games = round_robin(keys, pairs, deals_of(config, store))
        strength = {k: rng.gauss(0.0, SPREAD_ELO) for k in keys}
        half = PER_GAME_SAMPLE + (len(games) - PER_GAME_SAMPLE) // 2
        finished = [_synthetic(config, store, game, strength, rng,
                               "durable" if k < PER_GAME_SAMPLE else
                               "written" if k < half else "bytes")
                    for k, game in enumerate(games)]
    written = finished[:PER_GAME_SAMPLE]
    record_rate = len(written) / sum(seconds for _, _, seconds in written)
    sample, linked, held = (finished[:PER_GAME_SAMPLE], finished[PER_GAME_SAMPLE:half],
                            finished[half:])
    with Store(config.storage) as store:
        durable = cast("list[tuple[GameRow, Path, float]]", sample)  # (files, not bytes)
        per_game_rate = len(sample) / _store_per_game(store, durable)
        writer_rate = len(linked) / _store_with_writer(store, linked) if linked \
            else per_game_rate
        held_rate = len(held) / _store_with_writer(store, held) if held else writer_rate
        del finished, sample, linked, held  # a coordinator holds no records: its heap is
        gc.collect()                        # its own
        fit = _best(lambda: rate(store.results(keys)))
    handout = _best(lambda: _hand_out(games, 100))
    table = _best(lambda: standings(config.storage, 0))
    boot = _time(lambda: standings(config.storage, bootstrap)) if bootstrap else None
    nothing = _best(lambda: run_tournament(config, 1))
    return LeagueFigures(size, len(games), len(games) // 2, per_game_rate, writer_rate,
                         held_rate, record_rate, handout, table, boot, fit, nothing)


def _best(step: Callable[[], object], runs: int = 2) -> float:
    """The fastest of `runs` timings: the first also pays for imports and a cold disk
    cache, which do not grow with the league, and the machine's load varies."""
    return min(_time(step) for _ in range(runs))


def _time(step: Callable[[], object]) -> float:
    gc.collect()  # what the step leaves, not what came before it
    start = time.perf_counter()
    step()
    return time.perf_counter() - start


def _synthetic(config: TournamentConfig, store: Store, game: ScheduledGame,
               strength: dict[str, float], rng: random.Random, how: str,
               ) -> tuple[GameRow, Path | bytes, float]:
    """A synthetic result of `game` (Bradley-Terry on `strength`) with its record: written
    under its pending name "durable" (as a worker writes it, synced) or only "written" (the
    rate is measured on the durable ones: a worker's disk is not the coordinator's), or held
    as "bytes" for the writer to write; (row, pending file or bytes, seconds writing)."""
    teams = game.teams
    p0 = 1.0 / (1.0 + 10.0 ** ((strength[teams[1]] - strength[teams[0]]) / 400.0))
    winner = 0 if rng.random() < p0 else 1
    loser = rng.randrange(0, 1000, 5)
    scores = (1000, loser) if winner == 0 else (loser, 1000)
    relative = f"{config.records.name}/{game.record_name}.json.gz"
    team0, team1 = (EntrantInfo(t.split("@")[0], t.split("@")[1], "") for t in teams)
    record = GameRecord(game.game_id, game.seed, config.target, (team0, team1),
                        round_scores=[scores], scores=scores, winner=winner, rounds=1,
                        termination=Termination.NORMAL)
    start = time.perf_counter()
    row = GameRow.from_record(game, record, relative)
    if how == "bytes":
        return row, record_bytes(record), 0.0
    pending = pending_record(store.record_path(relative))
    if how == "durable":
        write_record(record, pending)
    else:
        pending.parent.mkdir(parents=True, exist_ok=True)
        pending.write_bytes(record_bytes(record))
    return row, pending, time.perf_counter() - start


def _store_per_game(store: Store, finished: Sequence[tuple[GameRow, Path, float]]) -> float:
    """One transaction per game, then the record linked: the first way a run stored games."""
    start = time.perf_counter()
    for row, pending, _ in finished:
        store.add_game(row)
        link_record(pending, store.record_path(row.record))
    return time.perf_counter() - start


def _store_with_writer(store: Store,
                       finished: Sequence[tuple[GameRow, Path | bytes, float]]) -> float:
    """The run's writer: records written by workers (a path) or held (bytes)."""
    start = time.perf_counter()
    with GameWriter(store) as writer:
        for row, record, _ in finished:
            writer.add(row, record)
    return time.perf_counter() - start


def _hand_out(games: Sequence[ScheduledGame], workers: int) -> int:
    """Every pair handed out to `workers` asking in turn; the number of batches."""
    dispatcher = Dispatcher(games, workers)
    batches = 0
    worker = 0
    while dispatcher.next(worker):
        batches += 1
        worker = (worker + 1) % workers
    return batches


# ----- `arena bench game-cost`: a game's seconds per language -------------------------------

BUNDLED_BOTS: dict[str, str] = {"python": "random", "c": "c-random", "node": "node-random",
                                "java": "java-random"}
"""Language -> the bundled bot (a folder of bots/) whose share of a game `bench_game_costs`
measures for it: each plays uniformly random legal options, so what is measured is the
language's processes and the harness, not a strategy."""


@dataclass(frozen=True)
class TargetCosts:
    """The round robin at one target: each language's share of a game's (and of a round's)
    seconds, fitted as a plan fits a store's games (`arena.tournament.plan.fit_costs`)."""

    target: int
    games: int
    """Games that ended normally (the others are left out of the fit)."""
    rounds: int
    """Their rounds, together."""
    per_game: dict[str, float]
    """Language -> its entrant's share of a game's seconds."""
    per_round: dict[str, float]
    """Language -> its entrant's share of a round's seconds (each game's seconds over its
    rounds, fitted likewise)."""
    load: tuple[float, float]
    """The machine's 1-minute load average as the round robin started and as it ended."""


@dataclass(frozen=True)
class GameCostFigures:
    """`bench_game_costs`' round robins, one per target, and what was left out."""

    pairs: int
    isolation: str
    targets: tuple[TargetCosts, ...]
    left_out: tuple[str, ...]
    """Bots intake could not build (a toolchain missing): 'name: reason'."""

    def lines(self) -> list[str]:
        from tabulate import tabulate

        languages = [lang for lang in BUNDLED_BOTS if all(lang in t.per_game
                                                          for t in self.targets)]
        headers = ["language", "bot"]
        for t in self.targets:
            headers += [f"s/game to {t.target}", f"s/round to {t.target}"]
        first, last = self.targets[0], self.targets[-1]
        if len(self.targets) > 1:
            headers.append(f"s/game {last.target} / {first.target}")
        rows = []
        for lang in languages:
            row = [lang, BUNDLED_BOTS[lang]]
            for t in self.targets:
                row += [f"{t.per_game[lang]:.2f}", f"{t.per_round[lang]:.3f}"]
            if len(self.targets) > 1:
                row.append(f"{last.per_game[lang] / first.per_game[lang]:.2f} "
                           f"(targets {last.target / first.target:.2f})")
            rows.append(row)
        out = [f"Each language's bundled random bot in a round robin ({self.pairs} pairs per "
               f"matchup, one worker, isolation {self.isolation}); each game's seconds split "
               "into its two entrants' shares by least squares, as `arena tournament --plan` "
               "fits a store's games.", ""]
        out += tabulate(rows, headers=headers, tablefmt="simple",
                        disable_numparse=True).splitlines()
        out.append("")
        for t in self.targets:
            out.append(f"target {t.target}: {t.games} games, {t.rounds / max(1, t.games):.1f} "
                       f"rounds per game; load average {t.load[0]:.1f} at the start, "
                       f"{t.load[1]:.1f} at the end")
        if len(self.targets) > 1 and languages:
            out.append(self._fixed_part(languages))
        out += [f"left out: {reason}" for reason in self.left_out]
        return out

    def _fixed_part(self, languages: Sequence[str]) -> str:
        """The languages' shares together at the lowest and highest target, and the part of
        the cost a straight line through them leaves at target 0 (what does not grow with
        the rounds: bot start-up spread over a batch's games, each game's welcome and end)."""
        ordered = sorted(self.targets, key=lambda t: t.target)
        low, high = ordered[0], ordered[-1]
        low_sum = sum(low.per_game[lang] for lang in languages)
        high_sum = sum(high.per_game[lang] for lang in languages)
        slope = (high_sum - low_sum) / (high.target - low.target)
        at_zero = low_sum - slope * low.target
        return (f"{', '.join(languages)} together: {low_sum:.2f} s/game to {low.target}, "
                f"{high_sum:.2f} to {high.target}; a straight line through them gives "
                f"{at_zero:.2f} at target 0, a part that does not grow with the target of "
                f"{at_zero / high_sum:.0%} of the cost to {high.target}")


class _Notes:
    """A run's Listener that hands its notes (a bot being built, one left out) on."""

    def __init__(self, note: Callable[[str], None] | None) -> None:
        self.forward = note

    def note(self, text: str) -> None:
        if self.forward is not None:
            self.forward(text)

    def started(self, total: int, standings: str) -> None:
        self.note(f"{total} games to play")

    def game(self, row: GameRow, pair_done: bool, standings: str) -> None:
        pass


def bench_game_costs(bots: Path, targets: Sequence[int], pairs: int = 4,
                     folder: Path | None = None,
                     note: Callable[[str], None] | None = None,
                     languages: Sequence[str] = tuple(BUNDLED_BOTS)) -> GameCostFigures:
    """Play a round robin between the bundled bots of `BUNDLED_BOTS` (folders of `bots`; those
    of `languages`) at each target, one worker at a time, at the isolation a tournament uses
    (`auto`); fit each language's share of a game's seconds. A bot whose build fails is left
    out, named. The runs' stores go to a scratch folder under `folder` (default: a temporary
    one), removed afterwards; builds are intake's, kept in its cache as a tournament keeps
    them."""
    scratch = Path(tempfile.mkdtemp(prefix="arena-bench-cost-", dir=folder))
    measured = []
    left_out: dict[str, str] = {}
    try:
        for target in targets:
            config = _cost_league(scratch / f"target-{target}", bots, target, pairs,
                                  languages)
            load = os.getloadavg()[0]
            if note is not None:
                note(f"target {target}: playing (load average {load:.1f}) ...")
            summary = run_tournament(config, 1, _Notes(note))
            left_out.update((f.name, f.reason) for f in summary.left_out)
            measured.append(_target_costs(config, target, load))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return GameCostFigures(pairs, resolve("auto").value, tuple(measured),
                           tuple(f"{name}: {reason}" for name, reason in left_out.items()))


def _target_costs(config: TournamentConfig, target: int, load: float) -> TargetCosts:
    """Each language's shares from the games of `config`'s store that ended normally."""
    with Store(config.storage, read_only=True) as store:
        language = {e.key: e.language for e in store.entrants()}
        games = [g for g in store.games() if g.termination == Termination.NORMAL.value
                 and g.seconds > 0 and g.rounds > 0]
    per_game = fit_costs((g.teams[0], g.teams[1], g.seconds) for g in games)
    per_round = fit_costs((g.teams[0], g.teams[1], g.seconds / g.rounds) for g in games)
    return TargetCosts(target, len(games), sum(g.rounds for g in games),
                       {language[k]: s for k, s in per_game.items()},
                       {language[k]: s for k, s in per_round.items()},
                       (load, os.getloadavg()[0]))


def _cost_league(folder: Path, bots: Path, target: int, pairs: int,
                 languages: Sequence[str]) -> TournamentConfig:
    """The config of one target's round robin between the bundled bots of `languages`, in
    `folder`."""
    folder.mkdir(parents=True)
    entrants = ", ".join(json.dumps(str(bots / BUNDLED_BOTS[language]))
                         for language in BUNDLED_BOTS if language in languages)
    path = folder / "costs.toml"
    path.write_text(f'[tournament]\nname = "bench-cost-{target}"\nentrants = [{entrants}]\n'
                    f"games_per_matchup = {2 * pairs}\ntarget = {target}\nseed = 1\n"
                    'concurrency = 1\nskip_unbuildable = true\nstorage = "costs.sqlite"\n')
    return load_config(path)
