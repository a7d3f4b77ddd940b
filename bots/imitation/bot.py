"""The imitation bot: a small numpy network trained by train.py to imitate the heuristic bot,
played through protocol.policy with the encoding of the training environment.

Needs numpy (the arena's train extra: pip install -e '.[train]').
"""

import sys
from pathlib import Path

from protocol.policy import MlpPolicy, PolicyBot
from protocol.sdk import run

WEIGHTS = Path(__file__).resolve().with_name("weights.npz")


def make_bot(seed=None):
    return PolicyBot(MlpPolicy.load(WEIGHTS), name="imitation", version="1.0.0")


if __name__ == "__main__":
    sys.exit(run(make_bot()))
