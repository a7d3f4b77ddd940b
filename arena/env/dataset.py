"""Reading exported training data (`arena export`) back: decisions and their steps.

```python
from arena.env.dataset import load, step_arrays

data = load("heuristic.npz")            # every column; obs (float32) and mask (bool) unpacked
x, mask, action, row = step_arrays(data) # one row per step of each decision, as the env has it
```

A decision's steps are rebuilt from its first step with `protocol.features.advance`, the
function the environment and policy bots step with, so each (observation, mask) equals what
`arena.env.tichu_v0` and `protocol.policy` show a policy at that step.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from arena.env.export import FORMAT
from arena.errors import ArenaError
from protocol.features import N_ACTIONS, N_BITS, advance, observation_vector


def load(path: str | Path) -> dict[str, np.ndarray]:
    """Every column of an export, plus `obs` (float32 [rows, OBSERVATION_SIZE]),
    `bits` (uint8 [rows, N_BITS]) and `legal` (bool [rows, N_ACTIONS]) unpacked."""
    try:
        with np.load(path) as npz:
            data = {k: npz[k] for k in npz.files}
    except (OSError, ValueError) as exc:
        raise ArenaError(f"{path}: not a readable export: {exc}") from None
    if int(data.get("format", -1)) != FORMAT:
        raise ArenaError(f"{path}: export format {data.get('format')}, this arena reads {FORMAT}")
    data["bits"] = np.unpackbits(data["obs_bits"], axis=1, count=N_BITS)
    data["obs"] = observation_vector(data["bits"], data["obs_nums"])
    data["legal"] = np.unpackbits(data["mask"], axis=1, count=N_ACTIONS).astype(bool)
    return data


def step_arrays(data: dict[str, np.ndarray],
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every step of every decision: (observation float32 [steps, OBSERVATION_SIZE], mask
    bool [steps, N_ACTIONS], action int64 [steps], row int64 [steps]: the decision's row)."""
    bits_out, nums_out, masks, actions, rows = [], [], [], [], []
    all_bits, all_nums, legal, steps = data["bits"], data["obs_nums"], data["legal"], data["steps"]
    for i in range(len(steps)):
        bits, mask = all_bits[i], legal[i].astype(np.int8)
        for action in steps[i]:
            if action < 0:
                break
            bits_out.append(bits)
            nums_out.append(all_nums[i])
            masks.append(mask)
            actions.append(int(action))
            rows.append(i)
            bits, mask, _ = advance(bits, mask, int(action))
    if not actions:
        empty = np.zeros((0, N_ACTIONS), bool)
        return (observation_vector(np.zeros((0, N_BITS), np.uint8), all_nums[:0]), empty,
                np.zeros(0, np.int64), np.zeros(0, np.int64))
    return (observation_vector(np.array(bits_out), np.array(nums_out)),
            np.array(masks).astype(bool), np.array(actions, np.int64), np.array(rows, np.int64))
