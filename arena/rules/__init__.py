"""The pure Tichu rules engine: cards, combinations, legal moves and the game state machine.

No I/O, no clock, no global randomness. Start with `Game`; `selfplay` plays whole games
in-process with seeded players. It imports nothing of the project (not even `arena.errors`:
its one error, `IllegalAction`, is its own) and nothing outside the standard library.
"""

from arena.rules.actions import (
    PASS,
    Action,
    CallTichu,
    Decision,
    DecisionKind,
    Exchange,
    GiveDragon,
    GrandTichu,
    Pass,
    Play,
)
from arena.rules.combos import Combination, ComboType, classify
from arena.rules.errors import IllegalAction
from arena.rules.events import PUBLIC, Event
from arena.rules.game import DEFAULT_TARGET, Game, Observation, deal_order, team_of

__all__ = [
    "PASS", "Action", "CallTichu", "Decision", "DecisionKind", "Exchange", "GiveDragon",
    "GrandTichu", "Pass", "Play", "Combination", "ComboType", "classify", "DEFAULT_TARGET",
    "PUBLIC", "Event", "Game", "IllegalAction", "Observation", "deal_order", "team_of",
]
