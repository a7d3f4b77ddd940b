"""A sequential test between two entrants of a tournament, on its stored pairs, playing more.

The test (`arena.ratings.sprt`) reads the complete duplicate pairs of the matchup stored so far, in
the order they finished. Asked to play, it plays further pairs of the matchup in batches (one
pair per worker) until the test decides or `max_pairs` pairs are used. Those pairs continue
the matchup's pair numbering past the round robin's, so they have seeds of their own, and
are stored like any game: they count in the standings too. Playing holds the store's run
lock, as a tournament run does: one run per store.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from arena.errors import ArenaError, ConfigError
from arena.ratings.sprt import SprtResult, Verdict, sprt
from arena.ratings.standings import pair_outcomes
from arena.tournament.config import TournamentConfig
from arena.tournament.lock import run_lock
from arena.tournament.records import sweep_pending
from arena.tournament.runner import (
    deals_of,
    labels,
    open_store,
    play_games,
    register_entrants,
    resolve_entrant,
)
from arena.tournament.schedule import pair_games
from arena.tournament.store import Store


def evaluate(store: Store, a: str, b: str, elo0: float, elo1: float, alpha: float,
             beta: float) -> SprtResult:
    """The test over the stored complete pairs between entrant keys a and b."""
    return sprt(pair_outcomes(store.results([a, b]), a, b), elo0, elo1, alpha, beta)


def next_pair_index(store: Store, config: TournamentConfig, a: str, b: str) -> int:
    """The first pair index of the matchup that neither the round robin nor a test used."""
    used = store.last_pair_index("~".join(sorted((a, b))))
    return max(config.pairs_per_matchup, -1 if used is None else used + 1)


def _playable(config: TournamentConfig, store: Store, names: tuple[str, str],
              note: Callable[[str], None] | None) -> dict:
    """The current entrants, registered and built, for `arena sprt --play`; ArenaError if
    one of the two tested (`names`) cannot be built."""
    sweep_pending(config.records, store)
    entrants, failures = register_entrants(config, store, note=note)
    unbuildable = {f.name: f.details() for f in failures}
    for name in (n.split("@")[0] for n in names):
        if name in unbuildable:
            raise ArenaError(f"{config.path}: cannot play: {unbuildable[name]}")
    return entrants


def run_sprt(config: TournamentConfig, a: str, b: str, elo0: float, elo1: float, alpha: float,
             beta: float, play: bool, max_pairs: int, workers: int | None,
             on_progress: Callable[[SprtResult, int, str, str], None] | None = None,
             note: Callable[[str], None] | None = None,
             ) -> tuple[SprtResult, str, str, dict[str, tuple[str, str]]]:
    """Evaluate (and with `play`, extend) the test of a against b; (result, key a, key b,
    labels). `on_progress(result, games played here, key a, key b)` is called before the
    first batch and after each game stored; `note` gets the lines of building entrants.
    ConfigError if a or b is unknown, the same, or (to play) not a current entrant; with
    `play`, StoreBusy if another run holds the store and ArenaError if a or b cannot be
    built; ConfigError for a tournament of mixed partners (no two entrants play a matchup
    there)."""
    if config.mixed:
        raise ConfigError(f"{config.path}: key 'tournament.partners': arena sprt tests two "
                          "entrants that each partner a copy of themselves, and this tournament "
                          "mixes partners; test them in a tournament of fixed partners")
    lock = run_lock(config.storage, f"arena sprt --play {config.path}") if play \
        else contextlib.nullcontext()
    with lock, open_store(config) as store:
        entrants = _playable(config, store, (a, b), note) if play else {}
        key_a, key_b = resolve_entrant(store, a), resolve_entrant(store, b)
        if key_a == key_b:
            raise ConfigError(f"{a!r} and {b!r} are the same entrant")
        result = evaluate(store, key_a, key_b, elo0, elo1, alpha, beta)
        count = config.workers(workers)
        played = 0  # pairs played here: a guard when void pairs do not advance the test
        games_played = 0

        def on_game(_row: object) -> None:
            nonlocal games_played
            games_played += 1
            if on_progress is not None:
                on_progress(evaluate(store, key_a, key_b, elo0, elo1, alpha, beta),
                            games_played, key_a, key_b)

        if play and on_progress is not None and result.decision is Verdict.CONTINUE:
            on_progress(result, 0, key_a, key_b)
        while (play and result.decision is Verdict.CONTINUE and result.pairs < max_pairs
               and played < max_pairs):
            for key in (key_a, key_b):
                if key not in entrants:
                    raise ConfigError(f"{key} is not a current entrant of {config.path}; only "
                                      "current versions can play")
            first = next_pair_index(store, config, key_a, key_b)
            batch = min(count, max_pairs - result.pairs)
            low, high = sorted((key_a, key_b))
            matchup = (low, high)
            seeds = deals_of(config, store)
            games = [g for k in range(first, first + batch)
                     for g in pair_games(matchup, k, seeds)]
            play_games(config, store, entrants, games, count, on_game)
            played += batch
            result = evaluate(store, key_a, key_b, elo0, elo1, alpha, beta)
        return result, key_a, key_b, labels(store)
