"""The options objects the engine hands out: a forced pass's, an exchange's (issue 18's fast paths)."""

from __future__ import annotations

import pickle
import random

from arena.rules import PASS, CallTichu, DecisionKind, Exchange, Game, GrandTichu, Play
from arena.rules.actions import PlayOptions


def _first_forced_pass(seed: int) -> tuple[Game, int]:
    """A game (played by seeded random choices) at a decision whose only option is a pass."""
    rng = random.Random(seed)
    game = Game(seed)
    while game.phase is not None:
        for seat in game.to_act():
            decision = game.decision(seat)
            if decision.only_pass:
                return game, seat
            if decision.kind in (DecisionKind.GRAND_TICHU, DecisionKind.TICHU):
                game.apply(seat, decision.options[0])
            else:
                game.apply(seat, rng.choice(decision.options))
    raise AssertionError("no forced pass in a whole game")


def test_a_forced_pass_offers_exactly_pass_and_still_reads_as_play_options():
    game, seat = _first_forced_pass(3)
    decision = game.decision(seat)
    options = decision.options
    assert isinstance(options, PlayOptions) and list(options) == [PASS] and len(options) == 1
    assert options.can_pass and not options.combinations and decision.can_pass
    assert decision.allows(PASS) and not decision.allows(CallTichu(False))  # equal tuples
    assert not decision.allows(Play(game.hands[seat] & -game.hands[seat]))
    assert pickle.loads(pickle.dumps(decision)) == decision


def test_an_exchange_as_the_options_give_it_or_rebuilt_is_the_same_move():
    games = [Game(11), Game(11)]
    for game in games:
        for seat in range(4):
            game.apply(seat, GrandTichu(False))
    options = [games[0].decision(s).options for s in range(4)]
    picks = [options[s][37 * s + 5] for s in range(4)]
    for s in range(4):
        games[0].apply(s, picks[s])  # the very objects the options handed out
        games[1].apply(s, Exchange(list(picks[s].give)))  # rebuilt: checked rule by rule
    assert games[0].hands == games[1].hands and games[0].phase is games[1].phase
    assert games[0].observation(0) == games[1].observation(0)
