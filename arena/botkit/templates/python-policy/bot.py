"""__NAME__: a Tichu Arena bot played by a policy, a function (observation, mask) -> action.

The observation and the mask are those of the training environment (`arena.env.tichu_v0`,
encoded by `protocol.features`), so a policy trained there plays here unchanged. With a
`weights.npz` beside this file (`protocol.policy.MlpPolicy.save`), the bot plays that
network; without one, a random legal action that never calls. Needs numpy (the arena's
train extra: pip install -e '.[train]').
"""

import sys
from pathlib import Path

import numpy as np

from protocol.features import CALL
from protocol.policy import MlpPolicy, run_policy

WEIGHTS = Path(__file__).resolve().with_name("weights.npz")


def random_policy(seed=None):
    """A uniformly random legal action, never a Tichu call when anything else is legal."""
    rng = np.random.default_rng(seed)

    def policy(observation, mask):
        legal = np.flatnonzero(mask)
        if len(legal) > 1:
            legal = legal[legal != CALL]
        return int(rng.choice(legal))

    return policy


def make_policy(seed=None):
    if WEIGHTS.exists():
        return MlpPolicy.load(WEIGHTS)
    return random_policy(seed)


if __name__ == "__main__":
    sys.exit(run_policy(make_policy(), name="__NAME__", version="0.1.0"))
