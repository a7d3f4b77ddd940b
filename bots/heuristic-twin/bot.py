"""The heuristic bot: sheds low cards early, keeps bombs and honours, calls Tichu on strong
hands, helps its partner, and gives the Dragon trick to the opponent holding more cards.

It reads only the wire maps of PROTOCOL.md (no engine import), scoring each option.
"""

from __future__ import annotations

import random
import sys
from collections import Counter

from protocol.sdk import Bot, choose, exchange, run

RANKS = "23456789TJQKA"
SPECIAL_RANK = {"Mahjong": 1, "Dog": 0, "Phoenix": 15, "Dragon": 16}
BOMBS = ("four_bomb", "straight_flush")


def rank(card: str) -> int:
    """2..14 for a suited card; Mahjong 1, Dog 0, Phoenix 15, Dragon 16 (for sorting)."""
    if card in SPECIAL_RANK:
        return SPECIAL_RANK[card]
    return RANKS.index(card[0]) + 2


def counts(hand: list[str]) -> Counter:
    return Counter(rank(c) for c in hand if c not in SPECIAL_RANK)


def strength(hand: list[str]) -> float:
    """A rough measure of a hand's power to win tricks and go out first."""
    n = counts(hand)
    score = 2.0 * ("Dragon" in hand) + 1.5 * ("Phoenix" in hand)
    score += sum(k for r, k in n.items() if r == 14) + 0.5 * n.get(13, 0)
    score += 2.5 * sum(1 for k in n.values() if k == 4)
    loose = sum(1 for r, k in n.items() if k == 1 and r <= 9)
    return score - 0.5 * loose - 0.5 * ("Dog" in hand)


class HeuristicBot(Bot):
    name = "heuristic"
    version = "1.0.0"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def decide(self, request: dict) -> dict:
        kind = request["kind"]
        obs = request["observation"]
        if kind == "grand_tichu":
            return choose(1 if strength(obs["hand"]) >= 5.5 else 0)
        if kind == "tichu":
            return choose(1 if self._should_call(obs) else 0)
        if kind == "exchange":
            return self._exchange(obs, request["may_call_tichu"])
        if kind == "dragon_gift":
            counts_ = obs["hand_counts"]
            options = request["options"]
            best = max(range(len(options)), key=lambda i: counts_[options[i]["to"]])
            return choose(best)
        if kind == "bomb":
            return choose(self._bomb(request))
        index = self._play(request)
        option = request["options"][index]
        wish = self._wish(obs) if "Mahjong" in option.get("cards", ()) else None
        call = request["may_call_tichu"] and self._should_call(obs)
        return choose(index, call_tichu=call, wish=wish)

    # ----- calls and exchange ---------------------------------------------------------------

    def _should_call(self, obs: dict) -> bool:
        partner = (obs["seat"] + 2) % 4
        if obs["tichu"][partner] or obs["grand_tichu"][partner] or len(obs["hand"]) < 14:
            return False
        return strength(obs["hand"]) >= 5.0

    def _exchange(self, obs: dict, may_call: bool) -> dict:
        hand = obs["hand"]
        n = counts(hand)
        keep_value = {c: _keep_value(c, n) for c in hand}
        order = sorted(hand, key=lambda c: (keep_value[c], rank(c)))
        calling = may_call and self._should_call(obs)
        low1, low2 = order[0], order[1]
        rest = [c for c in order[2:]]
        if calling:  # a caller keeps its strength and gives the partner a low card
            partner_gift = rest[0]
        else:
            partner_gift = max((c for c in rest if c not in ("Dragon", "Phoenix")
                                and n.get(rank(c), 0) < 4), key=rank, default=rest[-1])
        return exchange([low1, partner_gift, low2], call_tichu=calling)

    def _wish(self, obs: dict) -> str | None:
        held = counts(obs["hand"])
        for r in range(14, 1, -1):
            if r not in held:
                return RANKS[r - 2]
        return None

    # ----- playing --------------------------------------------------------------------------

    def _bomb(self, request: dict) -> int:
        obs = request["observation"]
        table = obs["table"]
        seat = obs["seat"]
        if table is None or table["seat"] in (seat, (seat + 2) % 4):
            return 0
        threat = obs["hand_counts"][table["seat"]] <= 2
        rich = obs["trick_points"] >= 20 or "Dragon" in table["cards"]
        if not (threat or rich):
            return 0
        options = request["options"]
        bombs = [i for i, o in enumerate(options) if o["action"] == "play"]
        return min(bombs, key=lambda i: len(options[i]["cards"]) * 20 + _top(options[i]))

    def _play(self, request: dict) -> int:
        obs = request["observation"]
        options = request["options"]
        hand = obs["hand"]
        n = counts(hand)
        bomb_ranks = {r for r, k in n.items() if k == 4}
        scored = [(self._score(o, obs, n, bomb_ranks, len(hand)), i)
                  for i, o in enumerate(options)]
        return max(scored)[1]

    def _score(self, option: dict, obs: dict, n: Counter, bomb_ranks: set, hand_size: int) -> float:
        seat = obs["seat"]
        partner = (seat + 2) % 4
        table = obs["table"]
        if option["action"] == "pass":
            if table is not None and table["seat"] == partner:
                return 50.0  # never overtake the partner
            return 0.0
        cards = option["cards"]
        if len(cards) == hand_size:
            return 1000.0  # going out
        combo = option["combination"]
        top = _top(option)
        penalty = 0.0
        if "Dragon" in cards:
            penalty += 8
        if "Phoenix" in cards:
            penalty += 6 if len(cards) == 1 else 4
        if combo in BOMBS:
            penalty += 25
        elif any(rank(c) in bomb_ranks for c in cards if c not in SPECIAL_RANK):
            penalty += 15
        for r, k in Counter(rank(c) for c in cards if c not in SPECIAL_RANK).items():
            if k < n[r]:
                penalty += 2.5  # breaks a pair or triple
        if table is None:
            if combo == "dog":
                helps = obs["tichu"][partner] or obs["grand_tichu"][partner]
                return 8.0 if helps else 2.0
            return 2.0 * len(cards) - 0.6 * top - penalty
        # following
        opponent_close = obs["hand_counts"][table["seat"]] <= 2 and table["seat"] != partner
        if opponent_close or obs["trick_points"] >= 15:
            penalty /= 3
        if table["seat"] == partner:
            return -100.0
        return 12.0 - 0.5 * top - penalty


def _keep_value(card: str, n: Counter) -> float:
    """How much a card is worth keeping (low: give it to an opponent)."""
    if card == "Dog":
        return 1.5
    if card in ("Dragon", "Phoenix"):
        return 30.0
    if card == "Mahjong":
        return 3.0
    r = rank(card)
    return r + 4 * (n[r] - 1) + (20 if n[r] == 4 else 0)


def _top(option: dict) -> int:
    ranks = [rank(c) for c in option["cards"] if c != "Phoenix"]
    if option.get("phoenix_as"):
        ranks.append(RANKS.index(option["phoenix_as"]) + 2)
    return max(ranks) if ranks else 15


def make_bot(seed: int | None = None) -> HeuristicBot:
    return HeuristicBot(seed)


if __name__ == "__main__":
    sys.exit(run(make_bot()))
