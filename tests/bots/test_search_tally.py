"""The search bot's comparison of candidates (bots/search/searchbot/tally.py): a candidate
clearly better than the policy's choice is taken, noise and a tie keep the policy's, and the
search stops once one candidate is left."""

from __future__ import annotations

import random
import sys

from tests.bots.conftest import BOTS

if str(BOTS / "search") not in sys.path:
    sys.path.append(str(BOTS / "search"))

from searchbot.budget import Clock, Deadline, decisions_left  # noqa: E402  (on the path above)
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

    tick = iter(range(10**9)).__next__  # one tick a call: the deadline counts calls
    deadline = Deadline(float(samples * (len(means) + 1) * 4), cpu_clock=tick)
    return run(Tally(len(means)), play, new_sample, deadline)


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
    tally = run(Tally(3), lambda c: (1.0, 0), lambda: None, Deadline(0.0, 0.0))
    assert tally.samples == 0 and tally.choice() == 0


def test_a_deadline_passes_on_either_clock():
    cpu, wall = [0.0], [0.0]
    deadline = Deadline(0.1, 2.0, cpu_clock=lambda: cpu[0], wall_clock=lambda: wall[0])
    wall[0] = 1.9
    cpu[0] = 0.09
    assert not deadline.passed()
    cpu[0] = 0.1  # the bot's own budget is spent: CPU time
    assert deadline.passed()
    cpu[0], wall[0] = 0.0, 2.0  # the referee's deadline comes first: wall-clock time
    assert deadline.passed()


def test_the_bots_limit_is_cpu_time_and_the_referees_is_wall_time():
    clock = Clock(limit_ms=100.0)
    clock.new_game(5000.0)
    deadline = clock.deadline(5000.0, (0, 0), 1000)
    assert deadline.cpu_s == 0.1
    assert 0.1 < deadline.wall_s <= 0.4 * 5.0  # a share of the deadline and of the bank
    unlimited = Clock(limit_ms=None)
    unlimited.new_game(5000.0)
    free = unlimited.deadline(5000.0, (0, 0), 1000)
    assert free.cpu_s == free.wall_s == deadline.wall_s
    assert Clock(limit_ms=1.0).deadline(5000.0, (0, 0), 1000).passed()  # too little: no search


def test_an_announced_bank_is_spread_over_the_game_in_place_of_the_presumed_one():
    presumed, announced = Clock(limit_ms=None), Clock(limit_ms=None)
    presumed.new_game(1000.0)
    announced.new_game(1000.0, bank_ms=3000.0)  # 3 decision limits, not the presumed 30
    small = announced.budget_ms(1000.0, (0, 0), 500)
    assert 0 < small < presumed.budget_ms(1000.0, (0, 0), 500) / 5
    # spread over the decisions a game may still ask, all of them together stay in the bank
    assert small * decisions_left((0, 0), 500) < 3000.0
    for _ in range(40):  # half the bank spent: the next decisions think less
        announced.spent(small + 2.0, small)
    assert 0 < announced.budget_ms(1000.0, (0, 0), 500) < small
    # what the referee says is left (a deadline below the decision limit) is believed
    assert announced.budget_ms(30.0, (0, 0), 500) == 0.0
