"""How long a decision may think: the least of the bot's own limit, a share of the request's
`deadline_ms`, and, once the time bank shows, a fair share of what is left of it.

The referee gives each request `deadline_ms`: the decision limit, or what is left of the
seat's time bank for the game when that is less (PROTOCOL.md 9.4). A decision thinks for
at most `SHARE` of it, less `MARGIN_MS` for reading the request and writing the reply, so
that a slow moment of the machine cannot make it late. Once `deadline_ms` falls below the
welcome's `decision_ms`, the bank is what is left: a decision then thinks for its share of it
over the decisions the game may still ask, less what a decision costs beyond its thinking
(measured: `Clock.overhead_ms`); below `MIN_SEARCH_MS` it does not search at all, and the
policy answers at once.
"""

from __future__ import annotations

SHARE = 0.4
"""The share of a request's deadline a decision may think for."""
MARGIN_MS = 15.0
"""Kept back from every deadline for reading the request and answering it."""
MIN_SEARCH_MS = 2.0
"""Below this, no search: the policy answers."""
DECISIONS_PER_ROUND = 16
"""Decisions a seat is asked per round, about (calls, exchange, its turns that are not
forced passes, bomb windows): to spread the bank over the rounds left."""
POINTS_PER_ROUND = 150
"""How much closer to the target a round brings the leading team, about."""


class Clock:
    """A seat's thinking time: `budget_ms` for each request, `spent` after it."""

    def __init__(self, limit_ms: float | None, decision_ms: float = 5000.0) -> None:
        self.limit_ms = limit_ms
        """The bot's own limit per decision (None: none but the referee's)."""
        self.decision_ms = decision_ms
        """The welcome's decision limit: a deadline below it is the bank's."""
        self.overhead_ms = 2.0
        """What a decision takes beyond its thinking (a moving average, measured)."""

    def budget_ms(self, deadline_ms: float, scores: tuple[int, int], target: int) -> float:
        """Milliseconds the decision may think for (0: answer by the policy at once);
        `scores` and `target` say how much of the game is left."""
        think = SHARE * deadline_ms - MARGIN_MS
        if self.limit_ms is not None:
            think = min(think, self.limit_ms)
        if deadline_ms < self.decision_ms:  # the bank shows: share it over the decisions left
            think = min(think, (deadline_ms - MARGIN_MS) / decisions_left(scores, target)
                        - 2 * self.overhead_ms)
        return think if think >= MIN_SEARCH_MS else 0.0

    def spent(self, total_ms: float, think_ms: float) -> None:
        """A decision took `total_ms` having been given `think_ms` to think."""
        extra = max(0.0, total_ms - think_ms)
        self.overhead_ms += 0.2 * (extra - self.overhead_ms)


def decisions_left(scores: tuple[int, int], target: int) -> int:
    """The decisions this seat may still be asked in the game, generously."""
    rounds = 2 + max(0, target - max(scores)) // POINTS_PER_ROUND
    return DECISIONS_PER_ROUND * rounds
