"""Playouts: a round played to its end from a position by the rollout policy, and what it
came to for a team.

A playout starts a game at a position (`Game.from_position`: a light build, no copy of a
game), lets the policy play every seat through the engine's fast paths (an option taken by
indexing the engine's own decision is applied without being checked again), and stops at
the round's end. Its value for a team is the round's score difference (card points, calls,
double victories) plus `WIN_BONUS` for the game won or lost with that round.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from arena.rules import PASS, Action, Decision, Game, GiveDragon, Play, Position
from searchbot import policy

WIN_BONUS = 400.0
"""What winning the game with this round is worth over its points (a loss costs as much)."""
_DECK = list(range(56))


def _fixed_deck(seed: int, round_number: int) -> list[int]:
    """The next round's deal in a playout: never played (a playout stops at the round's
    end), so any deck, the cheapest."""
    return _DECK


def start(position: Position) -> Game:
    """A game at `position`, to be played out."""
    return Game.from_position(position, dealer=_fixed_deck)


def play_out(game: Game, rnd: int = 0) -> None:
    """Play round `rnd` (default: the current one) to its end, every seat by the rollout
    policy (nothing, if it is over)."""
    rnd = rnd or game.round_number
    decision, apply, to_act, choose = game.decision, game.apply, game.to_act, policy.choose
    while game.round_number == rnd and game.phase is not None:
        seat = to_act()[0]
        apply(seat, choose(game, seat, decision(seat)))


def value(game: Game, scores_before: Sequence[int], team: int) -> float:
    """The round just played out, for `team`: its score difference, and WIN_BONUS if the
    game ended with it (won: plus, lost: minus)."""
    scores = game.scores
    v = float(scores[team] - scores_before[team] - scores[1 - team] + scores_before[1 - team])
    if game.winner is not None:
        v += WIN_BONUS if game.winner == team else -WIN_BONUS
    return v


def first_out(game: Game) -> int:
    """The seat that went out first in the round last played out (-1 if none ended yet)."""
    log = game.log
    for k in range(len(log) - 1, max(len(log) - 12, -1), -1):
        entry = log[k]
        if entry[0] == "round_end":  # (kind, seat, visible_to, points, calls, double, out_order..)
            first: int = entry[6][0]
            return first
    return -1


def evaluate(position: Position, seat: int, candidate: Candidate) -> tuple[float, int]:
    """`seat` takes `candidate` at `position`, then the policy plays the round out: its value
    for `seat`'s team, and the seat that went out first."""
    game = start(position)
    game.apply(seat, candidate.action_in(game.decision(seat)))
    play_out(game, position.round_number)  # (the action may have ended it)
    return value(game, position.scores, seat & 1), first_out(game)


class Candidate(NamedTuple):
    """One action a search considers at a decision of play, stated so that it is taken as
    the engine's own option in every sampled game (the options of a seat's decision depend
    only on its own hand and the table, not on the hands sampled): `combination`, the index
    of its combination among the decision's (-1: pass, or decline a bomb), with `wish`, or
    the Dragon given to `to`."""

    combination: int = -1
    wish: int = 0
    to: int = -1

    def action_in(self, decision: Decision) -> Action:
        if self.to >= 0:
            return GiveDragon(self.to)
        if self.combination < 0:
            return PASS
        options = decision.options
        action = options[self.combination + options.can_pass]  # type: ignore[attr-defined]  # PlayOptions
        if self.wish and isinstance(action, Play):
            return action._replace(wish=self.wish)
        return action
