"""The environment benchmark: steps per second with random agents, and its overhead over the
bare rules engine measured in the same run (`arena bench env`)."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

import numpy as np

from arena.env.tichu_v0 import TichuEnv
from arena.rules.selfplay import play_game, random_player
from protocol.features import CALL

SLICES = 4  # the engine and the environment alternate in this many slices


@dataclass(frozen=True)
class EnvFigures:
    """Both measured in one process, alternating, over the same game seeds."""

    games: int
    env_seconds: float
    env_steps: int        # policy steps (a decision can take several)
    env_decisions: int    # engine actions applied (auto passes included)
    engine_seconds: float
    engine_decisions: int

    def lines(self) -> list[str]:
        env_per = self.env_seconds / self.env_decisions
        engine_per = self.engine_seconds / self.engine_decisions
        return [
            f"games:            {self.games} to 1000 each, random agents, one process",
            f"environment:      {self.env_steps / self.env_seconds:.0f} steps/s, "
            f"{self.env_decisions / self.env_seconds:.0f} engine decisions/s "
            f"({self.env_steps / self.games:.0f} steps per game)",
            f"bare engine:      {self.engine_decisions / self.engine_seconds:.0f} decisions/s",
            f"overhead:         {env_per / engine_per:.1f}x the engine's time per decision "
            "(wire maps, encoding, masks, reply)",
        ]


def random_agent(rng: np.random.Generator):
    """A uniformly random legal action that never calls (as the engine's random player)."""
    def act(mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        if len(legal) > 1:
            legal = legal[legal != CALL]
        return int(legal[rng.integers(len(legal))])
    return act


def bench_env(games: int, seed: int = 0) -> EnvFigures:
    """Play `games` games through the environment and as many with the bare engine."""
    env = TichuEnv()
    act = random_agent(np.random.default_rng(seed))
    players = [random_player(random.Random(seed)) for _ in range(4)]
    env_time = engine_time = 0.0
    steps = env_decisions = engine_decisions = 0
    for k in range(SLICES):
        part = range(seed + games * k // SLICES, seed + games * (k + 1) // SLICES)
        start = time.perf_counter()
        for game_seed in part:
            env.reset(seed=game_seed)
            for _agent in env.agent_iter():
                observation, _, termination, truncation, _ = env.last()
                if termination or truncation:
                    env.step(None)
                    continue
                env.step(act(observation["action_mask"]))
                steps += 1
            assert env.game is not None  # (set by reset)
            env_decisions += len(env.game.actions)
        middle = time.perf_counter()
        for game_seed in part:
            engine_decisions += play_game(game_seed, players)[1].decisions
        engine_time += time.perf_counter() - middle
        env_time += middle - start
    return EnvFigures(games, env_time, steps, env_decisions, engine_time, engine_decisions)
