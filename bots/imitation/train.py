"""Train the imitation bot: a small numpy network that imitates bots/heuristic.

    .venv/bin/python bots/imitation/train.py                  # about 2.5 minutes on 2 cores
    .venv/bin/python bots/imitation/train.py --data heuristic.npz   # from `arena export`

Without --data it first plays games in-process (arena.referee.inprocess: the SDK's sessions
fed the protocol's own request maps, no processes), half of them heuristic against itself
and half heuristic against the random bot, and keeps the heuristic seats' decisions in the
export format of `arena export` (`arena.env.export.Rows`, written to --save-data if given).
Then it fits the network, observation -> ReLU layer -> one logit per action, by minimising
the cross-entropy of the heuristic's action among the legal ones (softmax over the mask), at
every step of every decision (`arena.env.dataset.step_arrays`), with Adam. Everything is
seeded: the same command gives the same weights (on the same numpy and BLAS). The result is
written with `MlpPolicy.save` (float16), which bot.py plays.

The data of a real tournament works the same way:

    arena tournament tournaments/imitation.toml
    arena export tournaments/imitation.toml --entrant heuristic -o heuristic.npz
    python bots/imitation/train.py --data heuristic.npz
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from multiprocessing import Pool
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))  # run as a script from anywhere in the checkout

from arena.env.dataset import load, step_arrays  # noqa: E402
from arena.env.export import FORMAT, Rows  # noqa: E402
from arena.referee.inprocess import load_bot, play_local_game  # noqa: E402
from protocol.policy import MlpPolicy  # noqa: E402
from protocol.sdk import Bot  # noqa: E402


class Recording(Bot):
    """A bot that plays like another and keeps every (request, reply) it made."""

    def __init__(self, inner: Bot, log: list) -> None:
        self.inner = inner
        self.name = inner.name
        self.version = inner.version
        self.log = log

    def decide(self, request: dict) -> dict:
        reply = self.inner.decide(request)
        self.log.append((request, reply))
        return reply


def play_and_record(seed: int) -> dict[str, np.ndarray]:
    """One game to 1000 (seed even: heuristic x4; odd: heuristic at seats 0, 2 against the
    random bot); the heuristic seats' decisions as export arrays."""
    heuristic, random_bot = load_bot(ROOT / "bots/heuristic"), load_bot(ROOT / "bots/random")
    logs: list[list] = [[], [], [], []]
    teams = ("heuristic", "heuristic" if seed % 2 == 0 else "random")
    bots = [Recording(heuristic(seed * 4 + s), logs[s]) if teams[s & 1] == "heuristic"
            else random_bot(seed * 4 + s) for s in range(4)]
    game = play_local_game(seed, bots)
    rows = Rows()
    rows.start_game(f"inprocess-{seed}", seed, game.target, teams)
    decisions = sorted((request["id"], request, reply) for log in logs for request, reply in log)
    for index, (_, request, reply) in enumerate(decisions):
        action = reply.get("action") or request["options"][reply["option"]]
        rows.add(request, action, reply.get("call_tichu", False), reply.get("wish"), 0.0,
                 index)
    round_points = [tuple(e.data["card_points"][t] + e.data["calls"][t] for t in (0, 1))
                    for e in game.events if e.kind == "round_end"]
    rows.end_game(round_points, game.scores, game.winner)
    return rows.arrays()


def generate(games: int, seed: int, jobs: int, save: Path | None) -> dict[str, np.ndarray]:
    """Play `games` games on `jobs` processes; the heuristic's decisions, in seed order."""
    seeds = range(seed, seed + games)
    with Pool(jobs) as pool:
        parts = pool.map(play_and_record, seeds, chunksize=max(1, games // (4 * jobs)))
    merged = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]
              if k not in ("game_entrants", "entrants", "format")}
    offsets = np.cumsum([0] + [len(p["game_id"]) for p in parts[:-1]])
    merged["game"] = np.concatenate([p["game"] + o for p, o in zip(parts, offsets, strict=True)])
    merged["entrant"] = np.concatenate([p["entrant"] for p in parts])  # 0: heuristic in each
    merged["game_entrants"] = np.concatenate([p["game_entrants"] for p in parts])
    merged["entrants"] = np.array(["heuristic", "random"])
    merged["format"] = np.array(FORMAT)
    with tempfile.TemporaryDirectory() as temp:
        path = save or Path(temp) / "data.npz"
        with path.open("wb") as out:
            np.savez_compressed(out, **merged)
        return load(path)


def train(x: np.ndarray, mask: np.ndarray, y: np.ndarray, hidden: int, epochs: int,
          seed: int, batch: int = 512, rate: float = 2e-3) -> MlpPolicy:
    """Fit the network with Adam on the masked softmax cross-entropy of the actions taken."""
    rng = np.random.default_rng(seed)
    policy = MlpPolicy.random([hidden], seed=seed)
    params = [policy.weights[0], policy.biases[0], policy.weights[1], policy.biases[1]]
    moments = [(np.zeros_like(p), np.zeros_like(p)) for p in params]
    t = 0
    for epoch in range(epochs):
        order = rng.permutation(len(y))
        total = 0.0
        for start in range(0, len(y), batch):
            i = order[start:start + batch]
            loss, grads = _loss_and_grads(params, x[i], mask[i], y[i])
            total += loss * len(i)
            t += 1
            for p, g, (m, v) in zip(params, grads, moments, strict=True):
                m *= 0.9
                m += 0.1 * g
                v *= 0.999
                v += 0.001 * g * g
                p -= rate * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
        print(f"  epoch {epoch + 1}/{epochs}: loss {total / len(y):.4f}", flush=True)
    return policy


def _loss_and_grads(params, x, mask, y):
    w0, b0, w1, b1 = params
    h = np.maximum(x @ w0 + b0, 0.0)
    logits = np.where(mask, h @ w1 + b1, -1e9)
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    n = len(y)
    loss = -np.log(p[np.arange(n), y] + 1e-12).mean()
    d = p
    d[np.arange(n), y] -= 1.0
    d /= n
    dh = (d @ w1.T) * (h > 0)
    return loss, [x.T @ dh, dh.sum(0), h.T @ d, d.sum(0)]


def accuracy(policy: MlpPolicy, x: np.ndarray, mask: np.ndarray, y: np.ndarray) -> float:
    logits = np.where(mask, policy.logits(x), -np.inf)
    return float((logits.argmax(axis=1) == y).mean())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, help="an `arena export` file (default: play)")
    parser.add_argument("--entrant", default="heuristic",
                        help="with --data: imitate this entrant's rows (default heuristic)")
    parser.add_argument("--games", type=int, default=300, help="games to play for data")
    parser.add_argument("--jobs", type=int, default=2, help="processes playing them")
    parser.add_argument("--save-data", type=Path, help="keep the played data here (.npz)")
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=HERE / "weights.npz")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    if args.data:
        data = load(args.data)
        keep = np.isin(data["entrant"], np.flatnonzero(
            np.char.startswith(data["entrants"], args.entrant)))
        data = {k: (v[keep] if v.ndim and len(v) == len(keep) else v) for k, v in data.items()}
    else:
        print(f"playing {args.games} games for data on {args.jobs} processes...", flush=True)
        data = generate(args.games, args.seed * 100_000, args.jobs, args.save_data)
    x, mask, y, _ = step_arrays(data)
    choice = mask.sum(axis=1) > 1  # a step with one legal action teaches nothing
    x, mask, y = x[choice], mask[choice], y[choice]
    held = np.random.default_rng(args.seed).random(len(y)) < 0.1
    print(f"{len(data['steps'])} decisions, {len(y)} steps with a choice "
          f"({time.perf_counter() - start:.0f} s); training...", flush=True)
    policy = train(x[~held], mask[~held], y[~held], args.hidden, args.epochs, args.seed)
    print(f"held-out accuracy {accuracy(policy, x[held], mask[held], y[held]):.3f} "
          f"({held.sum()} steps); {time.perf_counter() - start:.0f} s in all")
    policy.save(args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
