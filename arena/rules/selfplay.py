"""In-process self-play: engine-level players and a loop that plays whole games with them.

Used by the engine benchmark and the engine demo; the referee plays bots over the protocol.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from arena.rules import Action, Decision, DecisionKind, Game

Player = Callable[[Decision], Action]


def random_player(rng: random.Random) -> Player:
    """A uniformly random legal player that never calls Tichu or Grand Tichu.

    A random caller loses almost every call, drives both scores below zero and makes games
    that never reach the target, so calls are always declined.
    """
    no_call = (DecisionKind.GRAND_TICHU, DecisionKind.TICHU)

    def choose(decision: Decision) -> Action:
        if decision.kind in no_call:
            return decision.options[0]
        return rng.choice(decision.options)

    return choose


@dataclass(frozen=True)
class GameSummary:
    """What one self-play game came to."""

    seed: int
    scores: tuple[int, int]
    winner: int
    rounds: int
    decisions: int


def play_game(seed: int, players: Sequence[Player], target: int = 1000) -> tuple[Game, GameSummary]:
    """Play one game to `target` with one player per seat; the finished game and its summary."""
    game = Game(seed, target)
    apply, decision, to_act = game.apply, game.decision, game.to_act
    while game.phase is not None:  # not game.over, without a property call per decision
        for seat in to_act():
            apply(seat, players[seat](decision(seat)))
    assert game.winner is not None  # (the game is over)
    summary = GameSummary(seed, (game.scores[0], game.scores[1]), game.winner, game.round_number,
                          len(game.actions))
    return game, summary


def play_random_games(games: int, seed: int = 0) -> tuple[int, int]:
    """Play `games` games to 1000 with four uniformly random legal players (seeded); the
    rounds and decisions they took. The engine benchmark's workload: it imports nothing
    beyond the engine, so a run under callgrind spends little on start-up."""
    rng = random.Random(seed)
    players = [random_player(rng) for _ in range(4)]
    rounds = decisions = 0
    for i in range(games):
        _, summary = play_game(seed + i, players)
        rounds += summary.rounds
        decisions += summary.decisions
    return rounds, decisions
