"""The search bot's comparison of candidates (bots/search/searchbot/tally.py): a candidate
clearly better than the policy's choice is taken, noise and a tie keep the policy's, and the
search stops once one candidate is left."""

from __future__ import annotations

import random
import sys

from tests.bots.conftest import BOTS

if str(BOTS / "search") not in sys.path:
    sys.path.append(str(BOTS / "search"))

from searchbot.tally import MAX_SAMPLES, Tally, run  # noqa: E402  (bots/search on the path above)


def _searched(means: list[float], spread: float, seed: int = 1, samples: int = MAX_SAMPLES
              ) -> Tally:
    """A search over candidates whose values are `means` plus common noise (the deal's
    luck, shared) and their own noise of `spread`."""
    rng = random.Random(seed)
    luck = [0.0]
    count = [0]

    def new_sample() -> None:
        luck[0] = rng.gauss(0, 100)
        count[0] += 1

    def play(c: int) -> tuple[float, int]:
        return luck[0] + means[c] + rng.gauss(0, spread), 0

    clock = iter(range(10**9)).__next__  # one tick a call: the deadline counts calls
    return run(Tally(len(means)), play, new_sample, float(samples * (len(means) + 1) * 4),
               clock=clock)


def test_a_clearly_better_candidate_is_taken_and_the_rest_dropped():
    tally = _searched([0.0, 30.0, -20.0, 5.0], spread=20.0)
    assert tally.choice() == 1
    assert tally.live == [1]
    assert tally.samples < MAX_SAMPLES


def test_noise_alone_mostly_keeps_the_policy_choice():
    """Alternatives no better than the policy's choice replace it only when noise puts one
    1.5 standard errors ahead: seldom (a few searches in twenty here)."""
    kept = sum(_searched([0.0, 0.0, 0.0], spread=60.0, seed=seed, samples=60).choice() == 0
               for seed in range(20))
    assert kept >= 15


def test_candidates_alike_stop_the_search_with_the_policy_choice():
    tally = _searched([0.0, 0.5], spread=5.0)
    assert tally.live == [0] and tally.choice() == 0
    assert tally.samples < 200


def test_without_a_sample_the_policy_choice_stands():
    tally = run(Tally(3), lambda c: (1.0, 0), lambda: None, deadline=0.0, clock=lambda: 1.0)
    assert tally.samples == 0 and tally.choice() == 0
