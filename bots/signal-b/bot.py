"""signal-a and signal-b: a pair of colluding bots, the demo of what the synergy table of a
tournament of mixed partners finds
(docs/explanation/mixed-partners.md).

Each plays the heuristic bot's strategy (`heuristic.py`, a copy of bots/heuristic/bot.py),
plus a private code that the two agreed on beforehand. At the exchange, the suit of the card
a bot passes its partner says whether it goes for Tichu: a Jade means "play your own game",
any other suit "I call Tichu: keep out of my way". A bot whose partner passed it a
Pagoda or a Star supports that partner: it stops contesting the opponents' tricks (it passes
unless an opponent is about to go out, or it can go out itself), leaving the partner the
control it needs to go out first. The bots keep their code whoever the partner is: they read
the card any partner passed them as if it were sent in the code, so with any other partner
they support a caller who is not there in about three rounds of four, and play much worse;
with each other they understand each other. That is what a pair of programs that signal to each other
through their plays looks like in the standings: together they do far better than their
individual ratings, earned mostly with others, predict.
"""

from __future__ import annotations

import sys

from heuristic import SPECIAL_RANK, HeuristicBot, counts, rank

from protocol.sdk import choose, exchange, run

CODE = ("s", "p", "t")
"""The suits of a card that says "I call Tichu: support me" (Sword, Pagoda, Star): only a
Jade says "play your own game"."""


def speaks(card: str) -> bool:
    """Whether a card passed to the partner says "support me"."""
    return card not in SPECIAL_RANK and card[1] in CODE


class SignalBot(HeuristicBot):
    name = "signal"
    version = "1.0.0"

    def decide(self, request: dict) -> dict:
        obs = request["observation"]
        if request["kind"] == "exchange":
            return self._coded_exchange(obs, request["may_call_tichu"])
        if request["kind"] == "play" and self._partner_calls(obs):
            index = self._support(request)
            if index is not None:
                return choose(index)
        return super().decide(request)

    def _partner_calls(self, obs: dict) -> bool:
        """The partner's card at this round's exchange says "support me", and it plays on."""
        done = obs.get("exchange")
        partner = (obs["seat"] + 2) % 4
        return bool(done) and speaks(done["received"][1]) and partner not in obs["out_order"]

    def _coded_exchange(self, obs: dict, may_call: bool) -> dict:
        """The heuristic's exchange, with the card for the partner swapped, if need be, for
        the nearest in rank that says what this bot means: "support me" only when it calls."""
        reply = HeuristicBot._exchange(self, obs, may_call)
        left, gift, right = reply["action"]["give"]
        calling = bool(reply["call_tichu"])
        if speaks(gift) != calling:
            n = counts(obs["hand"])
            spare = [c for c in obs["hand"] if c not in (left, right) and c not in SPECIAL_RANK
                     and n[rank(c)] < 4 and speaks(c) == calling]
            if spare:
                target = rank(gift)
                gift = min(spare, key=lambda c: (abs(rank(c) - target), rank(c), c))
            elif not calling:  # no plain card to spare: any card but one that speaks
                gift = next((c for c in obs["hand"] if c not in (left, right)
                             and not speaks(c)), gift)
        return exchange([left, gift, right], call_tichu=calling)

    def _support(self, request: dict) -> int | None:
        """Pass on an opponent's trick unless the opponent is about to go out or this bot can
        go out itself; None: play as the heuristic would."""
        obs = request["observation"]
        table = obs["table"]
        if table is None or table["seat"] == (obs["seat"] + 2) % 4:
            return None
        options = request["options"]
        if obs["hand_counts"][table["seat"]] <= 2 or any(
                o["action"] == "play" and len(o["cards"]) == len(obs["hand"]) for o in options):
            return None
        return next((i for i, o in enumerate(options) if o["action"] == "pass"), None)


def make_bot(seed: int | None = None) -> SignalBot:
    return SignalBot(seed)


if __name__ == "__main__":
    sys.exit(run(make_bot()))
