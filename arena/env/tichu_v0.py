"""Tichu as a PettingZoo AEC environment: agents seat_0..seat_3, one game to the target.

```python
from arena.env import tichu_v0

env = tichu_v0.env(render_mode="human")
env.reset(seed=7)
for agent in env.agent_iter():
    observation, reward, termination, truncation, info = env.last()
    action = None if termination or truncation else policy(observation["observation"],
                                                            observation["action_mask"])
    env.step(action)
```

Observations are dicts: `observation`, the float32 vector of `protocol.features`
(OBSERVATION_SIZE), and `action_mask`, an int8 vector over its N_ACTIONS discrete actions
(the convention of PettingZoo's classic games). Each is built from the protocol's request
map for that seat (`arena.referee.wire.request_message`), the very map a bot receives, and
an action is turned into the reply a bot would send and applied through
`wire.action_from_reply`: the environment and a policy bot (`protocol.policy`) share one
code path. An agent that is not asked anything sees its observation with an all-zero mask.

Turn order: the agent selected is the seat the engine asks, one at a time, as the referee
asks them. In the simultaneous phases (Grand Tichu, exchange, the Tichu window) the seats
are asked in seat order, and no seat sees another's choice before all have chosen (the
engine reveals them together), so the order gives nothing away. A bomb window (a seat
holding a bomb that beats the table, before the next regular turn) is a decision of its
own, asked seat by seat from the next player on, as the referee does. A decision that takes
several steps (see `protocol.features`: a Tichu call first, a wish after a Mah Jong play,
the three cards of an exchange) keeps its agent selected until it is complete. A turn on
which passing is all a seat may do is passed without asking, as the referee does for the
SDK's bots (capability `auto_pass`).

Rewards: at each round end every agent gets `round_reward` times its team's round points
(card points and call bonuses) minus the other team's, and at the game end `game_reward`
times +1 (its team won) or -1; partners get the same, the teams opposite amounts. Defaults
0.01 and 1.0: a round of 100:0 is worth +1/-1, as is the game. `max_rounds` ends a game
early as a truncation (no game reward).

Seeding: `reset(seed=s)` plays the deals of engine seed s (`arena.rules.deal_order`), the
same deals as a tournament game of seed s; `reset()` with no seed draws the next seed from
the generator the last seeded reset started. Render modes: "human" prints and "ansi"
returns a text picture of the table, all hands shown (for people, never for agents).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from arena.referee import wire
from arena.rules import DEFAULT_TARGET, PASS, Game
from arena.rules.cards import format_cards
from protocol import features
from protocol.features import N_ACTIONS, OBSERVATION_HIGH, OBSERVATION_LOW, Steps

AGENTS = tuple(f"seat_{s}" for s in range(4))


def env(**kwargs: Any) -> TichuEnv:
    """A Tichu environment (PettingZoo's `env()` convention); see `TichuEnv` for options."""
    return TichuEnv(**kwargs)


raw_env = env


class TichuEnv(AECEnv):
    """Tichu, one game per reset; see the module docstring."""

    metadata: dict[str, Any] = {"name": "tichu_v0", "render_modes": ["human", "ansi"],
                "is_parallelizable": False}

    def __init__(self, render_mode: str | None = None, target: int = DEFAULT_TARGET,
                 round_reward: float = 0.01, game_reward: float = 1.0,
                 max_rounds: int | None = None) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r}: choose one of "
                             f"{', '.join(self.metadata['render_modes'])} or None")
        if target < 1:
            raise ValueError(f"target {target}: must be at least 1")
        self.render_mode = render_mode
        self.target = target
        self.round_reward = round_reward
        self.game_reward = game_reward
        self.max_rounds = max_rounds
        self.possible_agents = list(AGENTS)
        self._observation_space = spaces.Dict({
            "observation": spaces.Box(OBSERVATION_LOW, OBSERVATION_HIGH, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (N_ACTIONS,), dtype=np.int8)})
        self._observation_spaces = {a: self._observation_space for a in AGENTS}
        self._action_spaces = {a: spaces.Discrete(N_ACTIONS) for a in AGENTS}
        self._seeds = random.Random()
        self.game: Game | None = None  # (None until the first reset)
        self.steps: Steps | None = None  # the steps of the decision asked; None once done

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_spaces[agent]

    @property
    def _playing(self) -> Game:
        """The game of the last reset."""
        assert self.game is not None, "reset the environment first"
        return self.game

    # ----- the AEC interface ----------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            game_seed = int(seed)  # numpy integers too
            self._seeds.seed(game_seed)
        else:
            game_seed = self._seeds.getrandbits(63)
        self.game = Game(game_seed, self.target)
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos: dict[str, dict] = {a: {} for a in AGENTS}
        self._events_seen = 0
        self._next_decision()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = AGENTS.index(agent)
        steps = self.steps
        if steps is not None and steps.seat == seat and agent == self.agent_selection:
            return {"observation": steps.observation, "action_mask": steps.mask.copy()}
        observation = self._playing.observation(seat)
        bits, nums = features.encode_observation(wire.observation_map(observation))
        return {"observation": features.observation_vector(bits, nums),
                "action_mask": np.zeros(N_ACTIONS, np.int8)}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} must act: None is only for an agent that is done")
        steps = self.steps
        assert steps is not None  # (the agent selected is not done)
        steps.step(int(action))  # IllegalStep (a ValueError) for a masked action: no change
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        if steps.done:
            game = self._playing
            decision = game.decision(steps.seat)
            game.apply(steps.seat, wire.action_from_reply(steps.reply(), decision))
            self._after_apply()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = picture(self._playing)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        self.steps = None

    # ----- the game ---------------------------------------------------------------------------

    def _after_apply(self) -> None:
        game = self._playing
        while not game.over:  # the referee's auto_pass: nothing to decide, nobody is asked
            seat = game.to_act()[0]
            if not game.decision(seat).only_pass:
                break
            game.apply(seat, PASS)
        self._score_events()
        truncated = (self.max_rounds is not None and not game.over
                     and game.round_number > self.max_rounds)
        if game.over or truncated:
            done = self.terminations if game.over else self.truncations
            for a in self.agents:
                done[a] = True
            self.steps = None
            return
        self._next_decision()

    def _score_events(self) -> None:
        events = self._playing.events
        for event in events[self._events_seen:]:
            if event.kind == "round_end":
                d = event.data
                points = [d["card_points"][t] + d["calls"][t] for t in (0, 1)]
                for s, agent in enumerate(AGENTS):
                    team = s & 1
                    self.rewards[agent] += self.round_reward * (points[team] - points[1 - team])
            elif event.kind == "game_end":
                for s, agent in enumerate(AGENTS):
                    won = event.data["winner"] == s & 1
                    self.rewards[agent] += self.game_reward * (1.0 if won else -1.0)
        self._events_seen = len(events)

    def _next_decision(self) -> None:
        game = self._playing
        seat = game.to_act()[0]
        decision = game.decision(seat)
        self.steps = Steps(wire.request_message(decision, game.observation(seat), [], 0, 0))
        self.agent_selection = AGENTS[seat]


def picture(game: Game) -> str:
    """A text picture of the table for people: every hand shown (never give it to agents).
    Built from the four seats' observations, the engine's public interface."""
    views = [game.observation(s) for s in range(4)]
    first = views[0]
    acting = first.to_act[:1]
    lines = [f"round {first.round_number}  scores {first.scores[0]}:{first.scores[1]}  "
             f"phase {first.phase.value if first.phase else 'game over'}"
             + (f"  wish {wire.rank_text(first.wish)}" if first.wish else "")]
    for s, view in enumerate(views):
        calls = ("GT " if view.grand_tichu[s] else "") + ("T " if view.tichu[s] else "")
        mark = ">" if s in acting else " "
        out = f" out {view.out_order.index(s) + 1}" if s in view.out_order else ""
        lines.append(f"{mark} seat {s} (team {s & 1}) {calls}[{view.hand_counts[s]:2}] "
                     f"{format_cards(view.hand)}{out}")
    if first.table is not None:
        lines.append(f"  table: seat {first.table_seat} {wire.combination_name(first.table)} "
                     f"{format_cards(first.table.cards)}")
    return "\n".join(lines)
