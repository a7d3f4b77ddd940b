"""The PettingZoo environment: PettingZoo's own conformance and seed tests, determinism,
rewards, truncation, rendering, and that each agent sees only what its seat may know."""

from __future__ import annotations

import warnings

import pytest

from tests.env.conftest import cards_in, known_cards, require_train

require_train()

import numpy as np  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

from arena.env import tichu_v0  # noqa: E402
from arena.rules import Game  # noqa: E402
from arena.rules.cards import cards_of  # noqa: E402
from protocol.features import BIT, CALL, N_BITS, IllegalStep  # noqa: E402

pytestmark = pytest.mark.timeout(120)
# api_test names PettingZoo's own classic games (chess, connect four...) as the ones allowed
# a dict observation {"observation", "action_mask"}; for any other name it warns so, and
# nothing else.
DICT_OBSERVATION_WARNINGS = {
    "Observation space for each agent probably should be gymnasium.spaces.box or "
    "gymnasium.spaces.discrete",
    "Observation is not a NumPy array",
}


def play(env, seed: int, rng_seed: int = 0, on_step=None) -> list[tuple]:
    """One game with random agents that never call; the transcript (agent, action, reward)."""
    rng = np.random.default_rng(rng_seed)
    env.reset(seed=seed)
    transcript = []
    for agent in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        if termination or truncation:
            action = None
        else:
            legal = np.flatnonzero(observation["action_mask"])
            legal = legal[legal != CALL] if len(legal) > 1 else legal
            action = int(rng.choice(legal))
            if on_step is not None:
                on_step(env, agent, observation)
        transcript.append((agent, action, reward))
        env.step(action)
    return transcript


def test_pettingzoo_api_test_passes():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(tichu_v0.env(), num_cycles=250)
    assert {str(w.message) for w in caught} <= DICT_OBSERVATION_WARNINGS


def test_pettingzoo_seed_test_passes():
    seed_test(lambda: tichu_v0.env(target=300), num_cycles=200)


def test_the_same_seed_replays_the_same_game_with_the_engines_deals():
    first = play(tichu_v0.env(target=300), seed=11)
    second = play(tichu_v0.env(target=300), seed=11)
    other = play(tichu_v0.env(target=300), seed=12)
    assert first == second and first != other
    env = tichu_v0.env(target=300)
    env.reset(seed=11)
    hand = np.flatnonzero(env.observe("seat_0")["observation"][BIT["hand"]:BIT["hand"] + 56])
    assert hand.tolist() == cards_of(Game(11).observation(0).hand)  # the first 8 cards of seed 11


def test_rewards_are_the_round_points_and_the_game_result():
    env = tichu_v0.env(target=500)
    totals = {a: 0.0 for a in env.possible_agents}
    for agent, _, reward in play(env, seed=3):
        totals[agent] += reward
    scores, winner = env.game.scores, env.game.winner
    expected = 0.01 * (scores[0] - scores[1]) + (1.0 if winner == 0 else -1.0)
    assert totals["seat_0"] == pytest.approx(expected)
    assert totals["seat_2"] == pytest.approx(expected)
    assert totals["seat_1"] == totals["seat_3"] == pytest.approx(-expected)


def test_max_rounds_truncates_the_game():
    env = tichu_v0.env(max_rounds=1)
    transcript = play(env, seed=4)
    assert not env.game.over and env.game.round_number == 2
    assert not env.agents and len(transcript) > 20


def test_a_masked_action_is_refused_and_changes_nothing():
    env = tichu_v0.env()
    env.reset(seed=1)
    observation = env.observe(env.agent_selection)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    with pytest.raises(IllegalStep):
        env.step(illegal)
    again = env.observe(env.agent_selection)
    assert np.array_equal(again["action_mask"], observation["action_mask"])
    with pytest.raises(ValueError):
        env.step(None)


def test_render_shows_the_table_to_people(capsys):
    env = tichu_v0.env(render_mode="ansi")
    env.reset(seed=2)
    text = env.render()
    assert "round 1" in text and "seat 3" in text and "grand_tichu" in text
    human = tichu_v0.env(render_mode="human")
    human.reset(seed=2)
    assert "seat 0 (team 0)" in capsys.readouterr().out
    with pytest.raises(ValueError):
        tichu_v0.env(render_mode="rgb_array")


def test_every_observation_names_only_cards_its_seat_may_know():
    checked = []

    def scan(env, agent, _):
        game = env.game
        for other in env.agents:
            seat = int(other[-1])
            observation = env.observe(other)["observation"]
            bits = observation[:N_BITS].astype(np.uint8)
            known = known_cards(game.events, seat)
            assert cards_in(bits) <= known, (other, cards_in(bits) - known)
            assert set(np.flatnonzero(bits[BIT["hand"]:BIT["hand"] + 56])) == \
                set(cards_of(game.observation(seat).hand))
        checked.append(agent)

    play(tichu_v0.env(target=400), seed=9, on_step=scan)
    assert len(checked) > 100
