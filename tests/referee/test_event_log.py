"""The engine's raw event log (`Game.log`) and its wire form: the same as the events'."""

from __future__ import annotations

import random

from arena.referee import packing, wire
from arena.rules import Event, Game
from arena.rules.events import DATA_KEYS
from arena.rules.selfplay import random_player
from protocol import codec


def test_each_log_entry_is_its_event_and_has_its_wire_map_and_bytes():
    game = Game(7)
    player = random_player(random.Random(7))
    steps = 0
    while not game.over:
        for seat in game.to_act():
            game.apply(seat, player(game.decision(seat)))
        steps += 1
        if steps % 50 == 0:  # events read mid-game: the log stays whole, and both grow on
            assert len(game.events) == len(game.log)
    assert len(game.events) == len(game.log)
    for entry, event in zip(game.log, game.events, strict=True):
        kind, seat, visible_to, *values = entry
        assert event == Event(kind, seat, visible_to, dict(zip(DATA_KEYS[kind], values, strict=True)))
        assert wire.entry_map(entry) == wire.event_map(event)
        assert packing.entry_bytes(entry) == codec.packb(wire.entry_map(entry))
