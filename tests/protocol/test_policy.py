"""Policies as bots: one policy plays the same game in the environment and as protocol bots
through the SDK; the policy template and the imitation bot pass check-bot; the example's
training is reproducible."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from tests.env.conftest import ROOT, require_train

require_train()

import numpy as np  # noqa: E402

from arena.botkit.check import check_bot  # noqa: E402
from arena.cli.main import main  # noqa: E402
from arena.env import tichu_v0  # noqa: E402
from arena.referee.inprocess import play_local_game  # noqa: E402
from protocol.features import CALL  # noqa: E402
from protocol.policy import MlpPolicy, PolicyBot  # noqa: E402
from tests.processes import bot_processes  # noqa: E402

pytestmark = pytest.mark.timeout(180)


def test_a_policy_plays_the_same_game_in_the_environment_and_as_bots():
    policy = MlpPolicy.random([32], seed=3)
    policy.biases[-1][CALL] = -1e3  # a network that calls everything plays forever
    env = tichu_v0.env(target=500)
    env.reset(seed=21)
    for _agent in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        done = termination or truncation
        env.step(None if done else policy(observation["observation"],
                                          observation["action_mask"]))
    bots = [PolicyBot(policy, f"p{s}") for s in range(4)]
    game = play_local_game(21, bots, target=500, wire_bytes=True)  # through the codec, as bytes
    assert env.game.over and game.over
    assert env.game.actions == game.actions and env.game.scores == game.scores


def test_a_network_is_saved_small_and_loaded_for_its_encoding_only(tmp_path):
    policy = MlpPolicy.random([16], seed=1)
    policy.save(tmp_path / "w.npz")
    loaded = MlpPolicy.load(tmp_path / "w.npz")
    x = np.random.default_rng(0).random((5, 695), dtype=np.float32)
    assert np.allclose(loaded.logits(x), policy.logits(x), atol=0.05)
    with np.load(tmp_path / "w.npz") as npz:
        arrays = {k: npz[k] for k in npz.files}
    arrays["meta"] = np.array(json.dumps({"encoding": 0, "layers": 2}))
    np.savez(tmp_path / "old.npz", **arrays)
    with pytest.raises(ValueError, match="encoding version 0"):
        MlpPolicy.load(tmp_path / "old.npz")
    with pytest.raises(ValueError, match="inputs"):
        MlpPolicy([np.zeros((10, 737))], [np.zeros(737)])


@pytest.mark.parametrize("bot", ["template", "imitation"])
def test_a_policy_bot_passes_check_bot(bot, tmp_path):
    if bot == "template":
        result = CliRunner().invoke(main, ["new-bot", "my-policy", "--template", "policy",
                                           "--dir", str(tmp_path)])
        assert result.exit_code == 0, result.output
        folder = tmp_path / "my-policy"
    else:
        folder = ROOT / "bots" / "imitation"
    report = check_bot(folder, games=1, target=300)
    assert report.ok, "\n".join(report.lines())
    assert not bot_processes(folder)


def test_the_policy_template_is_python_only(tmp_path):
    result = CliRunner().invoke(main, ["new-bot", "x", "--lang", "c", "--template", "policy",
                                       "--dir", str(tmp_path)])
    assert result.exit_code == 2 and "template 'policy' for c" in result.output
    assert not (tmp_path / "x").exists()


def test_the_example_training_is_reproducible(tmp_path):
    def train(out):
        subprocess.run([sys.executable, str(ROOT / "bots/imitation/train.py"), "--games", "1",
                        "--jobs", "1", "--epochs", "1", "--hidden", "8", "--out", str(out)],
                       check=True, capture_output=True, timeout=120)
        return out.read_bytes()

    assert train(tmp_path / "a.npz") == train(tmp_path / "b.npz")
