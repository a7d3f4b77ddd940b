"""The features of a request and its discrete action space, for learned policies.

The features are a numeric encoding of what a seat is sent (not the wire's encoding, which is
`protocol.codec`'s). One encoding serves both sides, so that what was trained is what plays:
the training environment (`arena.env`) builds the protocol's own `request` maps from the
engine and encodes them here, and a policy bot (`protocol.policy`) encodes the requests it
receives over the wire with the same functions. The encoding reads only these fields of a request:
`kind`, `may_call_tichu`, `must_fulfil_wish`, `observation` and `options` (never `events`),
so it holds exactly what the seat may know. FEATURES.md beside this file documents every
position; this module needs numpy (the `train` extra), and nothing of `arena`.

A request becomes one or more *steps*. Each step has an observation (a float32 vector of
`OBSERVATION_SIZE`) and a mask over the `N_ACTIONS` discrete actions; the policy picks one
legal action per step, and `Steps.reply()` turns the steps into the protocol reply:

- `PASS` (0): pass a turn, decline a bomb window, or call nothing (Grand Tichu, Tichu).
- `CALL` (1): call Grand Tichu or Tichu (those kinds); in an exchange, play or bomb decision
  where `may_call_tichu`, call Tichu with it: a first step, after which the seat chooses its
  action as usual.
- `GIVE_NEXT`, `GIVE_PREV` (2, 3): give the Dragon trick to seat+1 or seat+3.
- `WISH_NONE`, then one per rank 2..A (4..17): the wish, a step that follows every play
  holding the Mah Jong.
- `CARD_BASE + c` (18..73): in an exchange, the card (id c) given to seat+1, then to the
  partner, then to seat+3: three steps.
- `PLAY_BASE + k` (74..736): play the combination of key `PLAY_KEYS[k]`: type, length, top
  rank, second rank (the pair of a full house) and whether the Phoenix is part of it.

A key stands for every option of the same shape; the cards played are the option of that
key that breaks the fewest four-of-a-kinds of the hand, then the one with the lowest card
ids (the lowest suits; a Phoenix stands in for the highest rank it can). What is lost: the
choice between such options (which suits, which card a Phoenix replaces), and which card
of an exchange goes first is fixed by the step order.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from protocol.schema import CARD_NAMES, COMBINATIONS, DECISION_KINDS, RANKS

Message = dict[str, Any]

ENCODING_VERSION = 1  # raised whenever the observation or the action space changes
CARD_IDS = {name: i for i, name in enumerate(CARD_NAMES)}
KINDS = DECISION_KINDS  # the one-hot order of `kind`; COMBINATIONS is that of `table_type`
_RANK_OF_NAME = {name: (RANKS.index(name[0]) + 2 if len(name) == 2 else
                        {"Mahjong": 1, "Dragon": 15}.get(name, 0)) for name in CARD_NAMES}

# ----- the observation layout ---------------------------------------------------------------

BIT_FIELDS: tuple[tuple[str, int], ...] = (
    ("hand", 56),              # the cards held, by card id
    ("played", 56),            # every card played this round
    ("trick", 56),             # the cards of the current trick
    ("given", 3 * 56),         # exchange: the card given to seat+1, seat+2, seat+3 (56 each)
    ("received", 3 * 56),      # exchange: the card received from seat+1, seat+2, seat+3
    ("picks", 2 * 56),         # exchange steps: the cards picked so far for seat+1, seat+2
    ("table_type", 9),         # the combination to beat, one-hot in COMBINATIONS order
    ("table_empty", 1),        # no combination to beat (this seat leads)
    ("table_seat", 4),         # who played it, relative seat
    ("wish", 13),              # the wish in force, ranks 2..A
    ("grand_tichu", 4),        # who called Grand Tichu, relative seat
    ("tichu", 4),              # who called Tichu, relative seat
    ("out_place", 16),         # 4 * relative seat + place - 1: who went out, which place
    ("kind", 6),               # the decision asked, one-hot in KINDS order (none: not asked)
    ("may_call_tichu", 1),
    ("must_fulfil_wish", 1),
    ("step_called", 1),        # step state: CALL was chosen in this decision
    ("step_wish", 1),          # step state: choosing the wish of the Mah Jong play chosen
    ("step_pick", 3),          # step state: exchange, picking the card for seat+1, +2, +3
)
# name, size, scale (the float is value / scale; None: value / target), low, high (floats)
NUM_FIELDS: tuple[tuple[str, int, float | None, float, float], ...] = (
    ("hand_counts", 4, 14.0, 0.0, 1.0),       # cards held, relative seat
    ("table_rank2", 1, 30.0, 0.0, 1.0),       # 2 * the table's rank (a Phoenix single: x.5)
    ("table_length", 1, 14.0, 0.0, 1.0),      # the table's number of cards
    ("trick_points", 1, 100.0, -0.25, 1.25),  # card points in the current trick
    ("points_taken", 4, 100.0, -0.25, 1.25),  # card points won this round, relative seat
    ("score_own", 1, None, -4.0, 4.0),        # this seat's team score / target
    ("score_other", 1, None, -4.0, 4.0),      # the other team's score / target
    ("target", 1, 1000.0, 0.0, 10.0),
    ("round", 1, 20.0, 0.0, 10.0),
)


def _offsets(fields: Sequence[tuple[str, int, *tuple[object, ...]]]) -> tuple[dict[str, int], int]:
    offsets: dict[str, int] = {}
    position = 0
    for name, size, *_ in fields:
        offsets[name] = position
        position += size
    return offsets, position


BIT, N_BITS = _offsets(BIT_FIELDS)
NUM, N_NUMS = _offsets(NUM_FIELDS)
OBSERVATION_SIZE = N_BITS + N_NUMS
_SCALE = np.concatenate([np.full(size, scale or 1.0, np.float32)
                         for _, size, scale, _, _ in NUM_FIELDS])
_NUM_LOW = np.concatenate([np.full(size, low, np.float32) for _, size, _, low, _ in NUM_FIELDS])
_NUM_HIGH = np.concatenate([np.full(size, high, np.float32)
                            for _, size, _, _, high in NUM_FIELDS])
OBSERVATION_LOW = np.concatenate([np.zeros(N_BITS, np.float32), _NUM_LOW])
OBSERVATION_HIGH = np.concatenate([np.ones(N_BITS, np.float32), _NUM_HIGH])

# ----- the action space ---------------------------------------------------------------------

PASS, CALL, GIVE_NEXT, GIVE_PREV = 0, 1, 2, 3
WISH_NONE = 4           # WISH_NONE + rank - 1 for rank 2..14: 5..17
CARD_BASE = 18          # CARD_BASE + card id: 18..73
PLAY_BASE = 74


def _play_keys() -> list[tuple[str, int, int, int, bool]]:
    """Every combination shape: (type, length, top rank, second rank, holds the Phoenix).

    Single ranks: Mah Jong 1, 2..14, Dragon 15; the Phoenix single is (single, 1, 0, 0, True).
    """
    keys: list[tuple[str, int, int, int, bool]] = [("dog", 1, 0, 0, False)]
    keys += [("single", 1, r, 0, False) for r in range(1, 16)]
    keys.append(("single", 1, 0, 0, True))
    ranks = range(2, 15)
    for phoenix in (False, True):
        keys += [("pair", 2, r, 0, phoenix) for r in ranks]
        keys += [("triple", 3, r, 0, phoenix) for r in ranks]
        keys += [("full_house", 5, t, p, phoenix) for t in ranks for p in ranks if p != t]
        keys += [("stairs", 2 * n, top, 0, phoenix) for n in range(2, 8)
                 for top in range(n + 1, 15)]
        keys += [("straight", n, top, 0, phoenix) for n in range(5, 15) for top in range(n, 15)]
    keys += [("four_bomb", 4, r, 0, False) for r in ranks]
    keys += [("straight_flush", n, top, 0, False) for n in range(5, 14)
             for top in range(n + 1, 15)]
    return keys


PLAY_KEYS = tuple(_play_keys())
_KEY_INDEX = {key: i for i, key in enumerate(PLAY_KEYS)}
N_ACTIONS = PLAY_BASE + len(PLAY_KEYS)


def _holds_mahjong(key: tuple[str, int, int, int, bool]) -> bool:
    """Whether the plays of a key hold the Mah Jong (rank 1): then a wish step follows."""
    kind, length, top, _, _ = key
    return (kind == "single" and top == 1) or (kind == "straight" and top - length + 1 == 1)


_HOLDS_MAHJONG = np.array([False] * PLAY_BASE + [_holds_mahjong(k) for k in PLAY_KEYS])


def action_name(action: int) -> str:
    """A readable name of a discrete action, e.g. "play pair 9 +Phoenix", "card Tj"."""
    if action == PASS:
        return "pass"
    if action == CALL:
        return "call"
    if action in (GIVE_NEXT, GIVE_PREV):
        return "give dragon to " + ("seat+1" if action == GIVE_NEXT else "seat+3")
    if action == WISH_NONE:
        return "wish none"
    if action < CARD_BASE:
        return f"wish {RANKS[action - WISH_NONE - 1]}"
    if action < PLAY_BASE:
        return f"card {CARD_NAMES[action - CARD_BASE]}"
    kind, length, top, second, phoenix = PLAY_KEYS[action - PLAY_BASE]
    name = {1: "Mahjong", 15: "Dragon", 0: "Phoenix" if phoenix else "Dog"}.get(top)
    text = f"play {kind} {name or RANKS[top - 2]}"
    if kind in ("stairs", "straight", "straight_flush"):
        text += f" x{length}"
    if second:
        text += f" over {RANKS[second - 2]}"
    return text + (" +Phoenix" if phoenix and kind != "single" else "")


# ----- encoding -----------------------------------------------------------------------------

def _rank2(combination: str, cards: Sequence[str], phoenix_as: str | None,
           trick: Sequence[str]) -> int:
    """Twice the rank of a combination on the table (a Phoenix single: half above the
    highest other card of its trick, 1.5 when led)."""
    if combination == "single" and cards[0] == "Phoenix":
        return 2 * max((_RANK_OF_NAME[c] for c in trick if c != "Phoenix"), default=1) + 1
    return 2 * _key(combination, tuple(cards), phoenix_as)[2]


@lru_cache(maxsize=1 << 16)
def _key(combination: str, cards: tuple[str, ...], phoenix_as: str | None,
         ) -> tuple[str, int, int, int, bool]:
    """The key of a play option (see `_play_keys`)."""
    phoenix = "Phoenix" in cards
    if combination in ("dog", "single"):
        return (combination, 1, 0 if phoenix else _RANK_OF_NAME[cards[0]], 0, phoenix)
    ranks = [_RANK_OF_NAME[c] for c in cards if c != "Phoenix"]
    if phoenix_as is not None:
        ranks.append(RANKS.index(phoenix_as) + 2)
    top = max(ranks)
    second = 0
    if combination == "full_house":
        top = next(r for r in ranks if ranks.count(r) == 3)
        second = next(r for r in ranks if r != top)
    return (combination, len(cards), top, second, phoenix)


def key_action(option: Message) -> int:
    """The discrete action of a play option (a wire action map with its `combination`)."""
    return PLAY_BASE + _KEY_INDEX[_key(option["combination"], tuple(option["cards"]),
                                       option["phoenix_as"])]


def encode_observation(observation: Message, kind: str | None = None, may_call_tichu: bool = False,
                       must_fulfil_wish: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The (bits, nums) of a wire observation map: bits a uint8 0/1 vector of N_BITS, nums
    the int32 raw values of NUM_FIELDS. `kind` None: the seat is not asked anything."""
    me = observation["seat"]
    ids = CARD_IDS
    on = [BIT["hand"] + ids[c] for c in observation["hand"]]
    on += [BIT["played"] + ids[c] for c in observation["played"]]
    on += [BIT["trick"] + ids[c] for c in observation["trick"]]
    exchange = observation["exchange"]
    if exchange is not None:
        for k in range(3):
            on.append(BIT["given"] + 56 * k + ids[exchange["given"][k]])
            on.append(BIT["received"] + 56 * k + ids[exchange["received"][k]])
    nums = [0] * N_NUMS
    table = observation["table"]
    if table is None:
        on.append(BIT["table_empty"])
    else:
        on.append(BIT["table_type"] + COMBINATIONS.index(table["combination"]))
        on.append(BIT["table_seat"] + (table["seat"] - me) % 4)
        nums[NUM["table_rank2"]] = _rank2(table["combination"], table["cards"],
                                          table["phoenix_as"], observation["trick"])
        nums[NUM["table_length"]] = len(table["cards"])
    if observation["wish"] is not None:
        on.append(BIT["wish"] + RANKS.index(observation["wish"]))
    for s in range(4):
        rel = (s - me) % 4
        if observation["grand_tichu"][s]:
            on.append(BIT["grand_tichu"] + rel)
        if observation["tichu"][s]:
            on.append(BIT["tichu"] + rel)
        nums[NUM["hand_counts"] + rel] = observation["hand_counts"][s]
        nums[NUM["points_taken"] + rel] = observation["points_taken"][s]
    for place, s in enumerate(observation["out_order"]):
        on.append(BIT["out_place"] + 4 * ((s - me) % 4) + place)
    if kind is not None:
        on.append(BIT["kind"] + KINDS.index(kind))
        if kind == "exchange":
            on.append(BIT["step_pick"])
    if may_call_tichu:
        on.append(BIT["may_call_tichu"])
    if must_fulfil_wish:
        on.append(BIT["must_fulfil_wish"])
    team = me & 1
    nums[NUM["trick_points"]] = observation["trick_points"]
    nums[NUM["score_own"]] = observation["scores"][team]
    nums[NUM["score_other"]] = observation["scores"][1 - team]
    nums[NUM["target"]] = observation["target"]
    nums[NUM["round"]] = observation["round"]
    bits = np.zeros(N_BITS, np.uint8)
    bits[on] = 1
    return bits, np.array(nums, np.int32)


_SCORES = slice(NUM["score_own"], NUM["score_other"] + 1)
_TARGET = slice(NUM["target"], NUM["target"] + 1)
assert NUM["score_other"] == NUM["score_own"] + 1


def observation_vector(bits: np.ndarray, nums: np.ndarray) -> np.ndarray:
    """The float32 observation of (bits, nums): the bits as 0/1, then each num scaled and
    clipped to its bounds (OBSERVATION_LOW/HIGH). One row or a batch of rows, computed by
    the same operations either way, so the environment and exported data agree exactly."""
    out = np.empty(bits.shape[:-1] + (OBSERVATION_SIZE,), np.float32)
    out[..., :N_BITS] = bits
    scaled = out[..., N_BITS:]
    values = nums.astype(np.float32)
    np.divide(values, _SCALE, out=scaled)
    np.divide(values[..., _SCORES], np.maximum(values[..., _TARGET], 1.0),
              out=scaled[..., _SCORES])
    np.maximum(scaled, _NUM_LOW, out=scaled)
    np.minimum(scaled, _NUM_HIGH, out=scaled)
    return out


def kind_of(bits: np.ndarray) -> str | None:
    """The decision kind an encoded observation is asked (None: none)."""
    kind = bits[BIT["kind"]:BIT["kind"] + len(KINDS)]
    return KINDS[int(kind.argmax())] if kind.any() else None


class IllegalStep(ValueError):
    """The action is not legal at this step (its mask entry is 0)."""


def advance(bits: np.ndarray, mask: np.ndarray, action: int,
            ) -> tuple[np.ndarray, np.ndarray, bool]:
    """The step after `action`: new (bits, mask) and whether the decision is complete.

    A pure function of the encoded step, shared by `Steps` and the readers of exported
    data, so that the steps of a decision are the same wherever they are rebuilt.
    """
    if not 0 <= action < N_ACTIONS or not mask[action]:
        raise IllegalStep(f"action {action} ({_safe_name(action)}) is not legal at this step")
    kind = kind_of(bits)
    bits, mask = bits.copy(), mask.copy()
    if action == CALL and kind in ("exchange", "play", "bomb"):
        bits[BIT["step_called"]] = 1
        mask[CALL] = 0
        return bits, mask, False
    if kind == "exchange":
        pick = int(bits[BIT["step_pick"]:BIT["step_pick"] + 3].argmax())
        if pick == 2:
            return bits, mask, True
        bits[BIT["picks"] + 56 * pick + action - CARD_BASE] = 1
        bits[BIT["step_pick"] + pick] = 0
        bits[BIT["step_pick"] + pick + 1] = 1
        mask[action] = mask[CALL] = 0
        return bits, mask, False
    if bits[BIT["step_wish"]] or not _HOLDS_MAHJONG[action]:
        return bits, mask, True
    bits[BIT["step_wish"]] = 1
    mask[:] = 0
    mask[WISH_NONE:CARD_BASE] = 1
    return bits, mask, False


def _safe_name(action: int) -> str:
    return action_name(action) if 0 <= action < N_ACTIONS else "out of range"


# ----- the steps of one request -------------------------------------------------------------

class Steps:
    """The steps of one request: `observation` and `mask` now, `step(action)` until `done`,
    then `reply()`, the protocol reply (option or action, call_tichu, wish).

    `step` raises IllegalStep for an action the mask forbids. `explain(action, call, wish)`
    gives the steps that a stated reply takes (used to export recorded decisions).
    """

    def __init__(self, request: Message) -> None:
        self.request = request
        self.kind: str = request["kind"]
        observation = request["observation"]
        self.seat: int = observation["seat"]
        self.bits, self.nums = encode_observation(observation, self.kind,
                                                  request["may_call_tichu"],
                                                  request["must_fulfil_wish"])
        self.mask = np.zeros(N_ACTIONS, np.int8)
        self.groups: dict[int, list[int]] = {}
        self._first_mask()
        self.actions: list[int] = []
        self.done = False

    @property
    def observation(self) -> np.ndarray:
        return observation_vector(self.bits, self.nums)

    def _first_mask(self) -> None:
        request, mask = self.request, self.mask
        if request["options"] is None and self.kind != "exchange":
            raise ValueError("the encoding maps the request's options onto its actions: a "
                             "policy bot must not ask for no_options")
        if self.kind in ("grand_tichu", "tichu"):
            mask[PASS] = mask[CALL] = 1
            return
        if self.kind == "dragon_gift":
            mask[GIVE_NEXT] = mask[GIVE_PREV] = 1
            return
        mask[CALL] = request["may_call_tichu"]
        if self.kind == "exchange":
            mask[[CARD_BASE + CARD_IDS[c] for c in request["observation"]["hand"]]] = 1
            return
        for i, option in enumerate(request["options"]):
            if option["action"] == "pass":
                mask[PASS] = 1
            else:
                self.groups.setdefault(key_action(option), []).append(i)
        mask[list(self.groups)] = 1

    def step(self, action: int) -> None:
        """Take a legal action; IllegalStep otherwise."""
        if self.done:
            raise IllegalStep("the decision is complete: send its reply")
        action = int(action)
        self.bits, self.mask, self.done = advance(self.bits, self.mask, action)
        self.actions.append(action)

    def reply(self) -> Message:
        """The reply the steps make: option (or action for an exchange), call_tichu, wish."""
        if not self.done:
            raise IllegalStep("the decision is not complete yet")
        call = CALL in self.actions and self.kind in ("exchange", "play", "bomb")
        chosen = [a for a in self.actions if not (call and a == CALL)]
        if self.kind == "exchange":
            give = [CARD_NAMES[a - CARD_BASE] for a in chosen]
            return {"option": None, "action": {"action": "exchange", "give": give},
                    "call_tichu": call, "wish": None}
        wish = None
        if len(chosen) == 2:  # a Mah Jong play and its wish
            wish = None if chosen[1] == WISH_NONE else RANKS[chosen[1] - WISH_NONE - 1]
        return {"option": self._option(chosen[0]), "action": None, "call_tichu": call,
                "wish": wish}

    def _option(self, action: int) -> int:
        options = self.request["options"]
        if self.kind in ("grand_tichu", "tichu"):
            return next(i for i, o in enumerate(options) if o["call"] == (action == CALL))
        if self.kind == "dragon_gift":
            to = (self.seat + (1 if action == GIVE_NEXT else 3)) % 4
            return next(i for i, o in enumerate(options) if o["to"] == to)
        if action == PASS:
            return next(i for i, o in enumerate(options) if o["action"] == "pass")
        return min(self.groups[action], key=self._preference)

    def _preference(self, index: int) -> tuple[int, list[int]]:
        """Among options of one key: fewest cards of the hand's four-of-a-kinds, then the
        lowest card ids."""
        hand = self.request["observation"]["hand"]
        ranks = [_RANK_OF_NAME[c] for c in hand if len(c) == 2]
        bombs = {r for r in ranks if ranks.count(r) == 4}
        cards = self.request["options"][index]["cards"]
        return (sum(_RANK_OF_NAME[c] in bombs for c in cards if len(c) == 2),
                sorted(CARD_IDS[c] for c in cards))

    def option_of(self, action: Message) -> int | None:
        """The index of the option equal to a stated action map (None: not an option)."""
        options = self.request["options"]
        if options is None:
            return None
        tag = action["action"]
        for i, option in enumerate(options):
            if option["action"] != tag:
                continue
            if tag == "play":
                if (set(option["cards"]) == set(action["cards"])
                        and option["phoenix_as"] == action.get("phoenix_as")):
                    return i
            elif all(option[k] == v for k, v in action.items() if k != "combination"):
                return i
        return None

    def explain(self, action: Message, call_tichu: bool, wish: str | None) -> list[int]:
        """The steps that make the reply (action map, call_tichu, wish); IllegalStep if the
        action is not legal for this request."""
        steps = [CALL] if call_tichu and self.kind in ("exchange", "play", "bomb") else []
        tag = action["action"]
        if tag in ("grand_tichu", "tichu"):
            steps.append(CALL if action["call"] else PASS)
        elif tag == "give_dragon":
            steps.append(GIVE_NEXT if action["to"] == (self.seat + 1) % 4 else GIVE_PREV)
        elif tag == "exchange":
            steps += [CARD_BASE + CARD_IDS[c] for c in action["give"]]
        elif tag == "pass":
            steps.append(PASS)
        else:
            index = self.option_of(action)
            if index is None:
                raise IllegalStep(f"the play {action['cards']} is not an option")
            steps.append(key_action(self.request["options"][index]))
            if "Mahjong" in action["cards"]:
                steps.append(WISH_NONE if wish is None else WISH_NONE + 1 + RANKS.index(wish))
        bits, mask, done = self.bits, self.mask, False
        for step in steps:
            if done:
                raise IllegalStep("more steps than the decision takes")
            bits, mask, done = advance(bits, mask, step)
        if not done:
            raise IllegalStep("the reply leaves the decision incomplete")
        return steps
