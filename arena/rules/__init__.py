"""The pure Tichu rules engine: cards, combinations, legal moves and the game state machine.

No I/O, no clock, no global randomness. Start with `Game`.
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
from arena.rules.game import DEFAULT_TARGET, PUBLIC, Event, Game, Observation, deal_order, team_of

__all__ = [
    "PASS", "Action", "CallTichu", "Decision", "DecisionKind", "Exchange", "GiveDragon",
    "GrandTichu", "Pass", "Play", "Combination", "ComboType", "classify", "DEFAULT_TARGET",
    "PUBLIC", "Event", "Game", "Observation", "deal_order", "team_of",
]
