"""PROTOCOL.md 6: the order of a request's options, over random games.

Pass first where allowed; then the plays by combination type (the order of the wire names in
section 6), then rank, then number of cards, then card set (as the number sum 2**id), then
the rank the Phoenix stands for; and a reply's `option` index counts in that order.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.referee import wire
from arena.rules import Decision, DecisionKind, Game, Pass, Play, classify
from arena.rules.actions import PlayOptions
from arena.rules.moves import lead_options
from arena.rules.selfplay import random_player
from protocol.schema import COMBINATIONS

PLAYS = (DecisionKind.PLAY, DecisionKind.BOMB)


def order_key(option: dict, table) -> tuple:
    """The documented sort key of a play option, recomputed from its wire map alone (and the
    table, for a Phoenix single's rank)."""
    cards = wire.cards_mask(option["cards"])
    phoenix_as = wire.rank_value(option["phoenix_as"])
    combo = classify(cards, phoenix_as, table)
    assert COMBINATIONS[combo.type] == option["combination"]
    return (COMBINATIONS.index(option["combination"]), combo.rank, combo.length, cards,
            phoenix_as)


def check_decision(game: Game, seat: int) -> None:
    decision = game.decision(seat)
    maps = wire.option_maps(decision)
    plays = maps[1:] if decision.can_pass else maps
    assert (maps[:1] == [{"action": "pass"}]) == decision.can_pass
    assert all(m["action"] == "play" for m in plays)
    keys = [order_key(m, game.observation(seat).table) for m in plays]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    engine = {(c.cards, c.phoenix_as) for c in decision.options.combinations}
    assert {(k[3], k[4]) for k in keys} == engine
    for index in {0, len(maps) // 2, len(maps) - 1}:
        reply = {"option": index, "action": None, "call_tichu": False, "wish": None}
        action = wire.action_from_reply(reply, decision)
        if maps[index]["action"] == "pass":
            assert isinstance(action, Pass)
        else:
            assert isinstance(action, Play) and wire.action_map(action) == {
                k: maps[index][k] for k in ("action", "cards", "phoenix_as")}


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**32))
def test_play_options_are_in_the_documented_order(seed: int) -> None:
    rng = random.Random(seed)
    player = random_player(rng)
    game = Game(seed, target=150)
    checked = 0
    while not game.over and checked < 150:
        seat = game.to_act()[0]
        decision = game.decision(seat)
        if decision.kind in PLAYS:
            check_decision(game, seat)
            checked += 1
        game.apply(seat, player(decision))


def test_the_lowest_single_is_the_first_play_when_following_a_single() -> None:
    game = Game(11)
    player = random_player(random.Random(11))
    while True:
        seat = game.to_act()[0]
        decision = game.decision(seat)
        table = game.observation(seat).table
        if decision.kind is DecisionKind.PLAY and table is not None and table.length == 1 \
                and len(decision.options) > 3:
            break
        game.apply(seat, player(decision))
    plays = [m for m in wire.option_maps(decision) if m["action"] == "play"]
    singles = [m for m in plays if m["combination"] == "single"]
    assert plays[:len(singles)] == singles
    ranks = [order_key(m, table)[1] for m in singles]
    assert ranks[0] == min(ranks)


def test_the_example_of_protocol_md_is_exact() -> None:
    text = (Path(__file__).resolve().parents[2] / "protocol" / "PROTOCOL.md").read_text()
    section = text[text.index("**The order of `play` and `bomb` options.**"):]
    block = section[section.index("```\n") + 4:section.index("\n```", section.index("```\n"))]
    documented = [json.loads(line) for line in block.splitlines()]
    hand = wire.cards_mask(["3j", "3s", "7p", "Dog", "Phoenix"])
    decision = Decision(0, DecisionKind.PLAY, PlayOptions(lead_options(hand), False))
    assert wire.option_maps(decision) == documented
