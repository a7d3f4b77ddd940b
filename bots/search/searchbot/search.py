"""The search at a decision of play (a turn, a bomb window, a Dragon gift).

Determinized Monte Carlo search: the rollout policy proposes a few candidates (its own
choice first, then the other actions it ranks best, of different shapes), every sampled
deal is played out once per candidate (`tally.run`: paired, pruned as they fall behind),
and the best mean value wins; the policy's choice stands when no sample was played. A
Tichu call allowed with the decision is weighed on the same playouts: calling adds +100
when this seat went out first and -100 otherwise, so it is worth it when the chosen action
sends this seat out first more often than not, by a margin (`call_is_worth_it`).
"""

from __future__ import annotations

import math
import random
from typing import NamedTuple

from arena.rules import Action, Decision, DecisionKind, Game, Position
from arena.rules.cards import MAHJONG_BIT, rank_mask
from arena.rules.combos import FOUR_T, Combination
from searchbot import playout, policy
from searchbot.budget import Deadline
from searchbot.knowledge import Knowledge
from searchbot.playout import Candidate
from searchbot.sampling import caller_weights, sample_hands
from searchbot.tally import Tally, run

MAX_CANDIDATES = 8
"""Actions considered at a decision of play, at most."""
CALL_SAMPLES = 12
"""Samples a Tichu call needs behind it."""


class Choice(NamedTuple):
    """What a search chose, and what it took to choose it."""

    action: Action
    """The action chosen (a Play's wish included; Tichu is called with `call_tichu`)."""
    call_tichu: bool
    samples: int
    playouts: int


def decide_play(knowledge: Knowledge, kind: str, rng: random.Random,
                deadline: Deadline) -> Choice:
    """The choice at this seat's decision of play `kind` (play, bomb, dragon_gift), searched
    until `deadline` passes."""
    seat = knowledge.seat
    weights = caller_weights(knowledge.grand_tichu, knowledge.tichu)
    unseen = knowledge.unseen()

    def draw() -> Position:
        hands = sample_hands(rng, seat, knowledge.hand, knowledge.counts, unseen,
                             knowledge.held, knowledge.void, weights)
        return knowledge.position(kind, hands)

    world = [draw()]
    game = playout.start(world[0])
    decision = game.decision(seat)
    candidates = candidates_for(game, seat, decision)
    may_call = decision.may_call_tichu
    if len(candidates) == 1 and not may_call:
        return Choice(candidates[0].action_in(decision), False, 0, 0)
    if deadline.passed():  # no time to search: the policy's choice
        call = may_call and call_is_worth_it(Tally(1), 0, seat, knowledge)
        return Choice(candidates[0].action_in(decision), call, 0, 0)
    tally = Tally(len(candidates))
    fresh = [True]  # the first sample is the one drawn above

    def new_sample() -> None:
        if fresh[0]:
            fresh[0] = False
        else:
            world[0] = draw()

    def play(c: int) -> tuple[float, int]:
        return playout.evaluate(world[0], seat, candidates[c])

    decided = (lambda t: len(t.live) <= 1 and call_settled(t, seat)) if may_call else None
    run(tally, play, new_sample, deadline, decided)
    if not tally.samples:
        call = may_call and call_is_worth_it(tally, 0, seat, knowledge)
        return Choice(candidates[0].action_in(decision), call, 0, tally.playouts)
    best = tally.choice(0)
    call = may_call and call_is_worth_it(tally, best, seat, knowledge)
    return Choice(candidates[best].action_in(decision), call, tally.samples, tally.playouts)


def call_is_worth_it(tally: Tally, candidate: int, seat: int, knowledge: Knowledge) -> bool:
    """Whether a Tichu call with `candidate` pays: `seat` went out first in more than half
    the samples by one standard error (with fewer than CALL_SAMPLES samples: the policy's
    call)."""
    p, n = tally.first_out_rate(candidate, seat)
    if n < CALL_SAMPLES:
        partner = seat ^ 2
        return policy.calls_tichu(knowledge.hand, knowledge.tichu[partner]
                                  or knowledge.grand_tichu[partner])
    return p - math.sqrt(p * (1 - p) / n) > 0.5


def call_settled(tally: Tally, seat: int) -> bool:
    """Whether the samples so far settle the call for the best candidate (the rate of going
    out first is 2.5 standard errors from one half)."""
    p, n = tally.first_out_rate(tally.best(), seat)
    return n >= CALL_SAMPLES and abs(p - 0.5) > 2.5 * math.sqrt(max(p * (1 - p), 0.01) / n)


def candidates_for(game: Game, seat: int, decision: Decision) -> list[Candidate]:
    """The actions worth playing out at `decision`, the policy's own choice first."""
    if decision.kind is DecisionKind.DRAGON_GIFT:
        gift = policy.choose(game, seat, decision)
        other = (seat + 1) & 3 if gift.to == (seat + 3) & 3 else (seat + 3) & 3  # type: ignore[union-attr]
        return [Candidate(to=gift.to), Candidate(to=other)]  # type: ignore[union-attr]
    combos = decision.options.combinations  # type: ignore[attr-defined]
    if not combos:
        return [Candidate()]
    chosen = policy.choose_index(game, seat, decision)
    if decision.kind is DecisionKind.BOMB:
        ranked = [-1, *range(len(combos))]
    elif game.table is None:
        ranked = _leads(game, seat, combos, chosen)
    else:
        ranked = _follows(game, seat, combos, decision.options.can_pass)  # type: ignore[attr-defined]
    picked = [chosen] + [i for i in ranked if i != chosen][:MAX_CANDIDATES - 1]
    return _with_wishes(game.hands[seat], combos, picked)


def _leads(game: Game, seat: int, combos: list[Combination], chosen: int) -> list[int]:
    """Leads in the order a search tries them: the policy's two next best, then the best
    of each shape (type and length) by the policy's score over every lead."""
    own = policy.lead_scores(game, seat, combos)
    scores = policy.any_lead_scores(game, seat, combos)
    best_own = sorted((i for i in range(len(combos)) if own[i] > policy.NEVER),
                      key=lambda i: -own[i])[:3]
    shapes: dict[tuple[int, int], int] = {}
    for i in sorted(range(len(combos)), key=lambda i: -scores[i]):
        shapes.setdefault((combos[i].type, combos[i].length), i)
    ranked = best_own + sorted(shapes.values(), key=lambda i: -scores[i])
    return list(dict.fromkeys(ranked))


def _follows(game: Game, seat: int, combos: list[Combination], can_pass: bool) -> list[int]:
    """Follows in the order a search tries them: passing, the policy's best plays, and the
    smallest bomb."""
    scores = policy.follow_scores(game, seat, combos)
    plays = sorted((i for i in range(len(combos)) if combos[i].type < FOUR_T),
                   key=lambda i: -scores[i])
    bombs = [i for i in range(len(combos)) if combos[i].type >= FOUR_T]
    ranked = ([-1] if can_pass else []) + plays[:MAX_CANDIDATES - 3]
    if bombs:
        ranked.append(min(bombs, key=lambda i: (combos[i].length, combos[i].rank)))
    return ranked + plays[MAX_CANDIDATES - 3:]


def _with_wishes(hand: int, combos: list[Combination], picked: list[int]) -> list[Candidate]:
    """The candidates of `picked` (indexes, -1 a pass); a play holding the Mah Jong comes
    with the policy's wish, and the first such also with the next rank wished and none."""
    out: list[Candidate] = []
    varied = False
    for i in picked:
        if i >= 0 and combos[i].cards & MAHJONG_BIT:
            wishes = _wishes(hand & ~combos[i].cards)
            out += [Candidate(i, w) for w in (wishes if not varied else wishes[:1])]
            varied = True
        else:
            out.append(Candidate(i))
    return out


def _wishes(rest: int) -> list[int]:
    """The wishes worth trying with what is left in hand: the policy's, the next rank it
    does not hold, and none."""
    ranks = [r for r in range(14, 1, -1) if not rest & rank_mask(r)][:2]
    return [*ranks, 0] if ranks else [0]
