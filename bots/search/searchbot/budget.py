"""How long a decision may think: the least of the bot's own limit, a share of the request's
`deadline_ms`, and a fair share of what is left of the game's time bank.

The referee gives each request `deadline_ms`: the decision limit, or what is left of the
seat's time bank for the game when that is less (PROTOCOL.md 9.4). A decision thinks for
at most `SHARE` of it, less `MARGIN_MS` for reading the request and writing the reply, so
that a slow moment of the machine cannot make it late.

The bank is not announced until less than one decision's time is left of it, too late to
spread it over the rest of a game. So the clock presumes a bank of `BANK_DECISIONS` decision
limits (the referee's default holds 60: 300 s at 5 s) and spreads what is left of that over
the decisions the game may still ask, less what a decision costs beyond its thinking
(measured: `Clock.overhead_ms`); once `deadline_ms` falls below the decision limit it knows
the bank left, and spreads that. Below `MIN_SEARCH_MS` a decision does not search at all:
the policy answers at once. (A bank smaller than presumed, and spent before it shows, can
leave too little for the decisions left, however fast each is answered.)
"""

from __future__ import annotations

SHARE = 0.4
"""The share of a request's deadline a decision may think for."""
MARGIN_MS = 15.0
"""Kept back from every deadline for reading the request and answering it."""
MIN_SEARCH_MS = 2.0
"""Below this, no search: the policy answers."""
BANK_DECISIONS = 30
"""The time bank presumed, in decision limits, until the bank shows."""
DECISIONS_PER_ROUND = 16
"""Decisions a seat is asked per round, about (calls, exchange, its turns that are not
forced passes, bomb windows): to spread the bank over the rounds left."""
POINTS_PER_ROUND = 150
"""How much closer to the target a round brings the leading team, about."""
TRANSPORT_MS = 1.0
"""What the referee charges a decision beyond the bot's own time, about (the request's and
the reply's way)."""


class Clock:
    """A seat's thinking time over a game: `budget_ms` for each request, `spent` after it."""

    def __init__(self, limit_ms: float | None, decision_ms: float = 5000.0) -> None:
        self.limit_ms = limit_ms
        """The bot's own limit per decision (None: none but the referee's)."""
        self.overhead_ms = 2.0
        """What a decision takes beyond its thinking (a moving average, measured)."""
        self.new_game(decision_ms)

    def new_game(self, decision_ms: float) -> None:
        """A game begins, with the welcome's decision limit."""
        self.decision_ms = decision_ms
        self.used_ms = 0.0
        """The time this game's decisions took so far, as the referee counts it, about."""

    def budget_ms(self, deadline_ms: float, scores: tuple[int, int], target: int) -> float:
        """Milliseconds the decision may think for (0: answer by the policy at once);
        `scores` and `target` say how much of the game is left."""
        think = SHARE * deadline_ms - MARGIN_MS
        if self.limit_ms is not None:
            think = min(think, self.limit_ms)
        if deadline_ms < self.decision_ms:  # the bank shows: this is what is left of it
            bank_left = deadline_ms
        else:
            bank_left = max(BANK_DECISIONS * self.decision_ms - self.used_ms, deadline_ms)
        think = min(think, (bank_left - MARGIN_MS) / decisions_left(scores, target)
                    - 2 * self.overhead_ms)
        return think if think >= MIN_SEARCH_MS else 0.0

    def spent(self, took_ms: float, think_ms: float) -> None:
        """A decision took `took_ms` having been given `think_ms` to think."""
        self.used_ms += took_ms + TRANSPORT_MS
        extra = max(0.0, took_ms - think_ms)
        self.overhead_ms += 0.2 * (extra - self.overhead_ms)


def decisions_left(scores: tuple[int, int], target: int) -> int:
    """The decisions this seat may still be asked in the game, generously."""
    rounds = 2 + max(0, target - max(scores)) // POINTS_PER_ROUND
    return DECISIONS_PER_ROUND * rounds
