"""The search before play: the Grand Tichu call, the exchange and the Tichu window.

Each samples the hands this seat cannot see (before the exchange: the cards not dealt to it,
14 a seat; after: as at any decision, `sampling`), lets the rollout policy make the other
seats' choices (their exchange, their Tichu calls) and plays the round out from its first
lead. A call is made when this seat goes out first in more than half of the playouts, by a
standard error (calling adds the bonus when it does and takes it away when it does not);
the exchange is chosen among a few variants of the policy's by their mean value.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

from arena.rules import DecisionKind, Position
from arena.rules.cards import DOG, FULL_DECK, MAHJONG, cards_of
from searchbot import playout, policy
from searchbot.budget import Deadline
from searchbot.knowledge import Knowledge
from searchbot.sampling import caller_weights, sample_hands
from searchbot.search import CALL_SAMPLES
from searchbot.tally import Tally, run

Give = tuple[int, int, int]


def decide_grand_tichu(knowledge: Knowledge, rng: random.Random, deadline: Deadline) -> bool:
    """Whether to call Grand Tichu on the first 8 cards (`knowledge.hand`)."""
    seat, eight = knowledge.seat, knowledge.hand

    def world() -> tuple[float, int]:
        cards = cards_of(FULL_DECK & ~eight)
        rng.shuffle(cards)
        hands = [0, 0, 0, 0]
        k = 0
        for s in range(4):
            n = 6 if s == seat else 14
            hands[s] = sum(1 << c for c in cards[k:k + n]) | (eight if s == seat else 0)
            k += n
        grand = tuple(s == seat for s in range(4))
        gives = [policy.exchange_cards(hands[s], s == seat) for s in range(4)]
        return _play_from_start(knowledge, _exchanged(hands, gives), grand)

    return _call_pays(knowledge, world, deadline, policy.calls_grand_tichu(eight))


def decide_tichu(knowledge: Knowledge, rng: random.Random, deadline: Deadline) -> bool:
    """Whether to call Tichu in the window after the exchange (14 cards in hand)."""
    seat = knowledge.seat
    weights = caller_weights(knowledge.grand_tichu, knowledge.tichu)

    def world() -> tuple[float, int]:
        hands = sample_hands(rng, seat, knowledge.hand, knowledge.counts, knowledge.unseen(),
                             knowledge.held, knowledge.void, weights)
        return _play_from_start(knowledge, list(hands), knowledge.grand_tichu)

    partner = seat ^ 2
    fallback = policy.calls_tichu(knowledge.hand, knowledge.grand_tichu[partner]
                                  or knowledge.tichu[partner])
    return _call_pays(knowledge, world, deadline, fallback)


def decide_exchange(knowledge: Knowledge, rng: random.Random, deadline: Deadline) -> Give:
    """The three cards to give (to seat+1, the partner, seat+3), by their playouts."""
    seat, hand = knowledge.seat, knowledge.hand
    candidates = exchange_candidates(hand)
    if len(candidates) == 1:
        return candidates[0]
    weights = caller_weights(knowledge.grand_tichu, (False,) * 4)
    others: list[list[int]] = [[]]
    theirs: list[list[Give]] = [[]]

    def new_sample() -> None:
        hands = sample_hands(rng, seat, hand, (14, 14, 14, 14), FULL_DECK & ~hand,
                             (0, 0, 0, 0), (0, 0, 0, 0), weights)
        others[0] = list(hands)
        partner_called = [knowledge.grand_tichu[s ^ 2] for s in range(4)]
        theirs[0] = [policy.exchange_cards(hands[s], policy.calls_tichu(hands[s], partner_called[s]))
                     for s in range(4)]

    def play(c: int) -> tuple[float, int]:
        gives = list(theirs[0])
        gives[seat] = candidates[c]
        return _play_from_start(knowledge, _exchanged(others[0], gives), knowledge.grand_tichu)

    tally = run(Tally(len(candidates)), play, new_sample, deadline)
    return candidates[tally.choice(0)]


def exchange_candidates(hand: int) -> list[Give]:
    """The policy's exchange and a few variants: the opponents' cards swapped or taken from
    the next weakest, the partner given the next best spare card, the Dog to the partner."""
    low1, gift, low2 = policy.exchange_cards(hand, False)
    order = sorted(cards_of(hand), key=lambda c: policy.keep_value(c, hand))
    spare = [c for c in order if c not in (low1, low2, gift)]
    weak = spare[0]
    second_gift = max((c for c in spare if c < MAHJONG), key=lambda c: (c >> 2, c), default=gift)
    out = [(low1, gift, low2), (low2, gift, low1), (low1, gift, weak), (weak, gift, low2),
           (low1, second_gift, low2)]
    if hand >> DOG & 1 and DOG in (low1, low2):
        other_low = low2 if low1 == DOG else low1
        out.append((other_low, DOG, weak))
    return list(dict.fromkeys(g for g in out if len(set(g)) == 3))


def _exchanged(hands: Sequence[int], gives: Sequence[Give]) -> list[int]:
    """The hands after every seat gives `gives[s]` (to s+1, s+2, s+3)."""
    after = list(hands)
    for s, give in enumerate(gives):
        for k, card in enumerate(give):
            after[s] &= ~(1 << card)
            after[(s + 1 + k) & 3] |= 1 << card
    return after


def _play_from_start(knowledge: Knowledge, hands: list[int],
                     grand: Sequence[bool]) -> tuple[float, int]:
    """Play a round out from its first lead, the other seats calling Tichu as the policy
    does (this seat does not: its call is what is weighed); its value for this seat's team
    and the seat out first."""
    seat = knowledge.seat
    tichu = tuple(knowledge.tichu[s] or (s != seat and not grand[s] and policy.calls_tichu(
        hands[s], grand[s ^ 2] or knowledge.tichu[s ^ 2])) for s in range(4))
    leader = next(s for s in range(4) if hands[s] >> MAHJONG & 1)
    g0, g1, g2, g3 = grand
    t0, t1, t2, t3 = tichu
    position = Position(knowledge.round_number, knowledge.scores, knowledge.target,
                        (hands[0], hands[1], hands[2], hands[3]), (0, 0, 0, 0),
                        (g0, g1, g2, g3), (t0, t1, t2, t3), (), 0, None, -1, 0,
                        DecisionKind.PLAY, leader, 0, leader)
    game = playout.start(position)
    playout.play_out(game)
    return playout.value(game, knowledge.scores, seat & 1), playout.first_out(game)


def _call_pays(knowledge: Knowledge, world: Callable[[], tuple[float, int]],
               deadline: Deadline, fallback: bool) -> bool:
    """Whether this seat goes out first in more than half the worlds by a standard error,
    sampled until `deadline` or until the rate is 2.5 standard errors from one half;
    `fallback` (the policy's call) with fewer than CALL_SAMPLES samples."""
    results: list[tuple[float, int]] = []

    def new_sample() -> None:
        results.append(world())

    def play(c: int) -> tuple[float, int]:
        return results[-1]

    tally = run(Tally(1), play, new_sample, deadline, _settled(knowledge.seat))
    p, n = tally.first_out_rate(0, knowledge.seat)
    if n < CALL_SAMPLES:
        return fallback
    return p - math.sqrt(p * (1 - p) / n) > 0.5


def _settled(seat: int) -> Callable[[Tally], bool]:
    def settled(tally: Tally) -> bool:
        p, n = tally.first_out_rate(0, seat)
        return n >= CALL_SAMPLES and abs(p - 0.5) > 2.5 * math.sqrt(max(p * (1 - p), 0.01) / n)
    return settled
