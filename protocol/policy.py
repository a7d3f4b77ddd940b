"""Policies as bots: a function (observation, mask) -> action plays over the protocol.

```python
from protocol.policy import MlpPolicy, run_policy

sys.exit(run_policy(MlpPolicy.load("weights.npz"), name="my-policy", version="1.0.0"))
```

A policy is any callable taking the float32 observation and the int8 action mask of
`protocol.features` and returning a legal action index: the same vectors and action space as
the training environment `arena.env.tichu_v0`. `PolicyBot` encodes each request, asks the
policy once per step (a Tichu call, a wish and the three exchange cards are steps of their
own, as in the environment) and sends the reply the steps make. An illegal action raises
`IllegalStep`: a bug of the policy, which the referee records as the bot's crash.

`MlpPolicy` is a small numpy network (ReLU hidden layers, one logit per action, illegal
actions masked out), saved as an .npz that also records the encoding version it was
trained for. Needs numpy (the `train` extra); nothing of `arena`.
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from protocol.features import ENCODING_VERSION, N_ACTIONS, OBSERVATION_SIZE, Steps
from protocol.sdk import Bot, Message, run

Policy = Callable[[np.ndarray, np.ndarray], int]


class PolicyBot(Bot):
    """A protocol bot that asks a policy for each step of each request."""

    def __init__(self, policy: Policy, name: str = "policy", version: str = "0.0.0") -> None:
        self.policy = policy
        self.name = name
        self.version = version

    def decide(self, request: Message) -> Message:
        steps = Steps(request)
        while not steps.done:
            steps.step(self.policy(steps.observation, steps.mask))
        return steps.reply()


def run_policy(policy: Policy, name: str = "policy", version: str = "0.0.0") -> int:
    """Play one session against the referee with `policy`; the exit status."""
    return run(PolicyBot(policy, name, version))


class MlpPolicy:
    """A numpy multi-layer perceptron: observation -> ReLU layers -> N_ACTIONS logits.

    Called with one observation and its mask, it returns the legal action of highest logit
    (greedy), or, with `temperature` > 0, one drawn from the softmax of the legal logits by
    its own generator (seeded by `seed`).
    """

    def __init__(self, weights: Sequence[np.ndarray], biases: Sequence[np.ndarray],
                 temperature: float = 0.0, seed: int | None = None) -> None:
        if len(weights) != len(biases) or not weights:
            raise ValueError("one bias per weight matrix, at least one layer")
        if weights[0].shape[0] != OBSERVATION_SIZE or weights[-1].shape[1] != N_ACTIONS:
            raise ValueError(f"the network maps {weights[0].shape[0]} inputs to "
                             f"{weights[-1].shape[1]} actions; this encoding (version "
                             f"{ENCODING_VERSION}) has {OBSERVATION_SIZE} and {N_ACTIONS}")
        self.weights = [np.asarray(w, np.float32) for w in weights]
        self.biases = [np.asarray(b, np.float32) for b in biases]
        self.temperature = temperature
        self.rng = np.random.default_rng(seed)

    @classmethod
    def random(cls, hidden: Sequence[int], seed: int = 0) -> MlpPolicy:
        """A fresh network with He-initialised weights (seeded), zero biases."""
        rng = np.random.default_rng(seed)
        sizes = [OBSERVATION_SIZE, *hidden, N_ACTIONS]
        weights = [rng.normal(0.0, np.sqrt(2.0 / n), (n, m)).astype(np.float32)
                   for n, m in itertools.pairwise(sizes)]
        return cls(weights, [np.zeros(m, np.float32) for m in sizes[1:]])

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """The logits of one observation or a batch of them."""
        x = observations
        for w, b in zip(self.weights[:-1], self.biases[:-1], strict=True):
            x = np.maximum(x @ w + b, 0.0)
        return x @ self.weights[-1] + self.biases[-1]

    def __call__(self, observation: np.ndarray, mask: np.ndarray) -> int:
        logits = np.where(mask.astype(bool), self.logits(observation), -np.inf)
        if self.temperature <= 0:
            return int(np.argmax(logits))
        z = (logits - logits.max()) / self.temperature
        p = np.exp(z)
        return int(self.rng.choice(len(p), p=p / p.sum()))

    def save(self, path: str | Path, dtype: type = np.float16) -> None:
        """Write the network as an .npz (float16 by default: a quarter of the size)."""
        arrays: dict[str, np.ndarray] = {f"w{i}": w.astype(dtype)
                                         for i, w in enumerate(self.weights)}
        arrays |= {f"b{i}": b.astype(dtype) for i, b in enumerate(self.biases)}
        meta = {"encoding": ENCODING_VERSION, "layers": len(self.weights)}
        with Path(path).open("wb") as out:
            np.savez_compressed(out, meta=np.array(json.dumps(meta)), **arrays)  # type: ignore[arg-type]  # numpy's stub: **arrays vs allow_pickle

    @classmethod
    def load(cls, path: str | Path, temperature: float = 0.0,
             seed: int | None = None) -> MlpPolicy:
        """Read a network written by `save`; ValueError if it was trained for another
        encoding version."""
        with np.load(path) as npz:
            meta = json.loads(str(npz["meta"]))
            if meta.get("encoding") != ENCODING_VERSION:
                raise ValueError(f"{path}: trained for encoding version {meta.get('encoding')}, "
                                 f"this protocol.features is version {ENCODING_VERSION}")
            layers = range(meta["layers"])
            weights = [npz[f"w{i}"] for i in layers]
            biases = [npz[f"b{i}"] for i in layers]
        return cls(weights, biases, temperature, seed)


if __name__ == "__main__":  # python -m protocol.policy WEIGHTS: play with a saved network
    sys.exit(run_policy(MlpPolicy.load(sys.argv[1]), name="policy"))
