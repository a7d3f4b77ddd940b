"""How long a decision may think: the least of the bot's own limit, a share of the request's
`deadline_ms`, and a fair share of what is left of the game's time bank.

The bot's own limit (`--budget-ms`) is counted in this process's CPU time, the referee's
deadline and bank in wall-clock time (`Deadline`): so a budget buys the same search on a busy
machine as on a quiet one (the ladder's rungs mean the same wherever they are measured), and
the referee's limits hold however busy the machine is, the search stopping short first.

The referee gives each request `deadline_ms`: the decision limit, or what is left of the
seat's time bank for the game when that is less (PROTOCOL.md 9.4). A decision thinks for
at most `SHARE` of it, less `MARGIN_MS` for reading the request and writing the reply, so
that a slow moment of the machine cannot make it late.

The bank: the bot asks for the `bank` capability, and a referee that knows it announces
the seat's bank for the game in the welcome (`limits.bank_ms`, PROTOCOL.md 5.1, 9.4). An
older referee does not, and then shows the bank only once less than one decision's time is
left of it, too late to spread it over the rest of a game: the clock then presumes a bank
of `BANK_DECISIONS` decision limits (the referee's default holds 60: 300 s at 5 s). Either
way it spreads what is left of the bank over the decisions the game may still ask, less
what a decision costs beyond its thinking (measured: `Clock.overhead_ms`); once
`deadline_ms` falls below the decision limit it is what is left of the bank, by the
referee's own count, and the clock spreads that. Below `MIN_SEARCH_MS` a decision does not
search at all: the policy answers at once. (Under a referee that does not announce the
bank, a bank smaller than presumed, spent before it shows, can leave too little for the
decisions left, however fast each is answered.)
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

SHARE = 0.4
"""The share of a request's deadline a decision may think for."""
MARGIN_MS = 15.0
"""Kept back from every deadline for reading the request and answering it."""
MIN_SEARCH_MS = 2.0
"""Below this, no search: the policy answers."""
BANK_DECISIONS = 30
"""The time bank presumed, in decision limits, when the referee does not announce it."""
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

    def new_game(self, decision_ms: float, bank_ms: float | None = None) -> None:
        """A game begins, with the welcome's decision limit and the bank it announces (None:
        not announced, presume `BANK_DECISIONS` decision limits)."""
        self.decision_ms = decision_ms
        self.bank_ms = BANK_DECISIONS * decision_ms if bank_ms is None else bank_ms
        """The seat's time bank for the game, announced or presumed."""
        self.used_ms = 0.0
        """The time this game's decisions took so far, as the referee counts it, about."""

    def deadline(self, deadline_ms: float, scores: tuple[int, int], target: int) -> Deadline:
        """When the decision stops thinking: after the bot's own limit of CPU time, or
        `budget_ms` of wall-clock time (at once, when too little is left to search)."""
        wall_ms = self.budget_ms(deadline_ms, scores, target)
        cpu_ms = wall_ms if self.limit_ms is None else min(wall_ms, self.limit_ms)
        if cpu_ms < MIN_SEARCH_MS:
            return Deadline(0.0, 0.0)
        return Deadline(cpu_ms / 1000.0, wall_ms / 1000.0)

    def budget_ms(self, deadline_ms: float, scores: tuple[int, int], target: int) -> float:
        """Milliseconds of wall-clock time the decision may think for, by the referee's
        deadline and bank (0: answer by the policy at once); `scores` and `target` say how
        much of the game is left."""
        think = SHARE * deadline_ms - MARGIN_MS
        if deadline_ms < self.decision_ms:  # the bank shows: this is what is left of it
            bank_left = deadline_ms
        else:
            bank_left = max(self.bank_ms - self.used_ms, deadline_ms)
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


class Deadline:
    """The end of a decision's thinking: once this process has used `cpu_s` seconds of CPU
    time since it was made, or `wall_s` seconds have passed, whichever comes first."""

    def __init__(self, cpu_s: float, wall_s: float = math.inf,
                 cpu_clock: Callable[[], float] = time.process_time,
                 wall_clock: Callable[[], float] = time.perf_counter) -> None:
        self.cpu_s = cpu_s
        self.wall_s = wall_s
        self._cpu_clock = cpu_clock
        self._wall_clock = wall_clock
        self.cpu_end = cpu_clock() + cpu_s
        self.wall_end = wall_clock() + wall_s

    def passed(self) -> bool:
        return self._cpu_clock() >= self.cpu_end or self._wall_clock() >= self.wall_end
