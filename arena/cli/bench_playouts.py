"""`arena bench playouts`: how fast the search bot (bots/search) plays rounds out.

A search bot's strength at a given time per decision is its playouts per second. This plays
self-play games with random players, takes positions from them (every regular turn, bomb
window and Dragon gift of a round in play), and plays each position out to the round's end
`repeat` times: with the search bot's rollout policy (`searchbot.playout`, as the bot does),
and with uniformly random players for reference, the engine's own speed. Each playout
starts a game at the position (`Game.from_position`, a light build) and stops at the end
of the round. Times are of this thread's CPU (`time.thread_time`), as the search bot's budget
is of its CPU: the figures are the same on a busy machine as on a quiet one.
"""

from __future__ import annotations

import importlib
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from arena.rules import Game, Position
from arena.rules.position import IN_PLAY
from arena.rules.selfplay import play_game, random_player

SEARCH_BOT = Path(__file__).resolve().parents[2] / "bots" / "search"
"""The search bot's folder in the repository (its `searchbot` package is measured)."""


@dataclass(frozen=True)
class PlayoutFigures:
    """Playouts from the same positions, with the rollout policy and with random players."""

    positions: int
    policy: tuple[int, int, float]   # playouts, decisions, CPU seconds
    random: tuple[int, int, float]
    build_us: float                  # Game.from_position, per call

    def lines(self) -> list[str]:
        out = []
        for label, (playouts, decisions, seconds) in (("rollout policy", self.policy),
                                                      ("random players", self.random)):
            out.append(f"playouts per CPU second, {label}: {playouts / seconds:.0f}  ({decisions / playouts:.1f} "
                       f"decisions per playout, {1e6 * seconds / decisions:.1f} us per decision)")
        out.append(f"positions: {self.positions} (from random self-play); Game.from_position: "
                   f"{self.build_us:.1f} us")
        return out


def load_playout(folder: Path = SEARCH_BOT) -> ModuleType:
    """The search bot's `searchbot.playout` module, from its folder."""
    if not (folder / "searchbot" / "playout.py").is_file():
        raise FileNotFoundError(f"{folder}: not the search bot's folder (no searchbot/playout.py)")
    if str(folder) not in sys.path:
        sys.path.append(str(folder))
    return importlib.import_module("searchbot.playout")


def positions_of(games: int, seed: int = 0, every: int = 3) -> list[Position]:
    """Positions of `games` random self-play games (to 1000): every `every`-th decision of
    play."""
    rng = random.Random(seed)
    players = [random_player(rng) for _ in range(4)]
    found = []
    for k in range(games):
        finished, _ = play_game(seed + k, players)
        game = Game(seed + k)
        for i, (seat, action) in enumerate(finished.actions):
            if game.phase in IN_PLAY and i % every == 0:
                found.append(game.position())
            game.apply(seat, action)
    return found


def bench_playouts(games: int = 4, repeat: int = 3, seed: int = 0,
                   folder: Path = SEARCH_BOT) -> PlayoutFigures:
    """Play out the positions of `games` random games `repeat` times each, with the rollout
    policy and with random players."""
    playout = load_playout(folder)
    positions = positions_of(games, seed)
    start = time.thread_time()
    for position in positions:
        playout.start(position)
    build = (time.thread_time() - start) / len(positions)
    policy = _time(positions, repeat, lambda game, rnd: playout.play_out(game, rnd), playout)
    choose = random_player(random.Random(seed))

    def play_random(game: Game, rnd: int) -> None:
        while game.round_number == rnd and game.phase is not None:
            seat = game.to_act()[0]
            game.apply(seat, choose(game.decision(seat)))

    return PlayoutFigures(len(positions), policy, _time(positions, repeat, play_random, playout),
                          1e6 * build)


def _time(positions: list[Position], repeat: int, play: Callable[[Game, int], None],
          playout: ModuleType) -> tuple[int, int, float]:
    """Playouts, decisions and CPU seconds of playing every position out `repeat` times."""
    decisions = 0
    seconds = 0.0
    for _ in range(repeat):
        for position in positions:
            start = time.thread_time()
            game = playout.start(position)
            play(game, position.round_number)
            seconds += time.thread_time() - start
            decisions += len(game.actions)
    return repeat * len(positions), decisions, seconds
