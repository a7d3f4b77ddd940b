"""The pure Tichu rules engine: cards, combinations, legal moves and the game state machine.

No I/O, no clock, no global randomness. Start with `Game` (`game.py`: the state machine from
a seed to a finished game); a seat's decisions and actions are in `actions.py`, cards and
card sets as bitmasks in `cards.py`, combinations and how they compare in `combos.py`, legal
plays in `moves.py`, the shuffled order of a round's deck in `deal.py`, the events a game
logs and who may see them in `events.py`, and its one error, `IllegalAction`, in
`errors.py`. What one seat may know, its `Observation`, is in `observation.py`.
`selfplay.py` plays whole games in-process with seeded players; `position.py`
holds a `Position`, a round in play with every hand known, which `Game.from_position` starts
from (a search bot plays its decisions out on sampled deals so). The rule book
it enforces is `RULES.md`. It imports nothing of the project (not even `arena.errors`) and
nothing outside the standard library.
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
from arena.rules.deal import deal_order
from arena.rules.errors import IllegalAction
from arena.rules.events import PUBLIC, Event
from arena.rules.game import DEFAULT_TARGET, Game, team_of
from arena.rules.observation import Observation
from arena.rules.position import Position, observed_position

__all__ = [
    "PASS", "Action", "CallTichu", "Decision", "DecisionKind", "Exchange", "GiveDragon",
    "GrandTichu", "Pass", "Play", "Combination", "ComboType", "classify", "DEFAULT_TARGET",
    "PUBLIC", "Event", "Game", "IllegalAction", "Observation", "deal_order", "team_of",
    "Position", "observed_position",
]
