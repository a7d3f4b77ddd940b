"""An observation's round events: the seat's view of the round as it stood when observed."""

from __future__ import annotations

import pickle
import random

import pytest

from arena.rules import PUBLIC, Game
from arena.rules.events import RoundEvents
from arena.rules.selfplay import random_player


def _visible(game: Game, seat: int) -> tuple:
    """This round's events so far that `seat` may see, picked from `game.events`."""
    events = game.events
    start = max(i for i, e in enumerate(events) if e.kind == "round_start")
    return tuple(e for e in events[start:] if e.visible_to in (PUBLIC, seat))


def test_round_events_are_the_seats_events_of_the_round_when_observed_not_when_read():
    rng = random.Random(3)
    players = [random_player(rng) for _ in range(4)]
    game = Game(3, 1000)
    kept = []
    while not game.over and len(game.actions) < 300:  # into the second round or further
        for seat in game.to_act():
            kept.append((game.observation(seat), _visible(game, seat)))
            game.apply(seat, players[seat](game.decision(seat)))
    assert game.round_number > 1
    for observation, expected in kept:  # read only now, after the game went on
        assert tuple(observation.round_events) == expected
        assert observation.round_events == expected
        assert repr(observation.round_events) == repr(expected)
        assert len(observation.round_events) == len(expected)
        assert all(e in observation.round_events for e in expected)
        assert object() not in observation.round_events


def test_round_events_pickle_as_a_tuple():
    game = Game(0, 1000)
    observation = game.observation(2)
    copy = pickle.loads(pickle.dumps(observation))
    assert copy == observation
    assert copy.round_events == tuple(observation.round_events)
    assert [e.kind for e in copy.round_events] == ["round_start", "deal"]


def test_round_events_hash_as_their_tuple():
    game = Game(0, 1000)
    assert hash(RoundEvents(game, 0, 0, 0)) == hash(())  # no event in the range
    public = RoundEvents(game, 1, 0, 1)  # the round start only
    assert len(public) == 1 and public[0].kind == "round_start"
    with pytest.raises(TypeError):  # as the tuple's: an event's data is a dict
        hash(public)
    with pytest.raises(TypeError):
        hash(tuple(public))
    assert public == RoundEvents(game, 2, 0, 1) == RoundEvents(game, 2, 0, 2)  # 1: seat 0's deal
    assert public != RoundEvents(game, 0, 0, 2)  # seat 0 sees its own deal
    assert public != list(public)  # only a tuple (or round events) compares equal
