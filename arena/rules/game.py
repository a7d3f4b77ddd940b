"""The Tichu game: a pure state machine from a seed to a finished game to the target score.

`Game` asks seats for decisions (`to_act`, `decision`), applies their actions (`apply`,
raising `IllegalAction` naming the broken rule), keeps the log of events with who may see
each one, and builds each seat's `observation`. No I/O, no clock; the only randomness is the
deal, drawn from the game's seed and the round number (`deal_order`), so a game is replayed
exactly from its seed and its list of actions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar, cast

from arena.rules import moves
from arena.rules.actions import (
    PASS,
    Action,
    CallTichu,
    Decision,
    DecisionKind,
    Exchange,
    ExchangeOptions,
    GiveDragon,
    GrandTichu,
    OnlyPass,
    Pass,
    Play,
    PlayOptions,
)
from arena.rules.cards import (
    DOG_BIT,
    DRAGON_BIT,
    FULL_DECK,
    MAHJONG,
    MAHJONG_BIT,
    points,
    rank_mask,
)
from arena.rules.combos import DOG_T, FOUR_T, SINGLE_T, Combination, beats, classify
from arena.rules.deal import deal_order
from arena.rules.errors import IllegalAction
from arena.rules.events import DATA_KEYS, PUBLIC, Event, RoundEvents
from arena.rules.observation import Observation
from arena.rules.position import Position

DEFAULT_TARGET = 1000
GRAND_TICHU_BONUS = 200
TICHU_BONUS = 100
DOUBLE_VICTORY_POINTS = 200

# The phases as module constants: an enum member's attribute look-up goes through
# EnumType.__getattr__ (Python 3.11), a dozen times slower than a global.
_GRAND_TICHU, _EXCHANGE, _TICHU, _PLAY, _BOMB, _DRAGON_GIFT = (
    DecisionKind.GRAND_TICHU, DecisionKind.EXCHANGE, DecisionKind.TICHU, DecisionKind.PLAY,
    DecisionKind.BOMB, DecisionKind.DRAGON_GIFT)
_GT_OPTIONS = (GrandTichu(False), GrandTichu(True))
_TICHU_OPTIONS = (CallTichu(False), CallTichu(True))
# The options of a PLAY or BOMB decision (OnlyPass is a PlayOptions by registration only,
# which a type checker does not follow).
_TurnOptions = PlayOptions | OnlyPass


def team_of(seat: int) -> int:
    """Team 0 is seats 0 and 2, team 1 is seats 1 and 3."""
    return seat & 1


class Game:
    """One game of Tichu to `target` points; see the module docstring."""

    # the card points in each seat's `won` (observations read it), None once `won`
    # changed: counted again when next read, not at each trick of self-play
    _points_taken: tuple[int, int, int, int] | None

    def __init__(self, seed: int, target: int = DEFAULT_TARGET,
                 dealer: Callable[[int, int], list[int]] = deal_order) -> None:
        """A new game, dealt and waiting for the Grand Tichu decisions of round 1.

        `dealer(seed, round_number)` gives each round's deck order (see `deal_order`, the
        default); tests inject their own to set up concrete card situations.
        """
        self.seed = seed
        self.target = target
        self._dealer = dealer
        self.scores = [0, 0]
        self.round_number = 0
        # Every event logged, a flat tuple each (see `log`); `_events` holds the first of
        # them built as Events: most self-play reads no event, the referee none but once a
        # game, so `events` builds them when read.
        self._log: list[tuple[Any, ...]] = []
        self._events: list[Event] = []
        self._round_start = 0  # where this round's events begin among all of them
        self.actions: list[tuple[int, Action]] = []
        self.winner: int | None = None  # winning team once over
        self.phase: DecisionKind | None = None
        self._cache: dict[int, Decision] = {}  # decisions of the phases but PLAY, by seat
        # The decision of the seat on turn in PLAY once built; None in every other phase
        # (every play and pass resets it), so that `apply` needs no phase check.
        self._current: Decision | None = None
        self._start_round()

    # ----- public interface -------------------------------------------------------------

    @classmethod
    def replay(cls, seed: int, actions: Iterable[tuple[int, Action]],
               target: int = DEFAULT_TARGET,
               dealer: Callable[[int, int], list[int]] = deal_order) -> Game:
        """The game reached by applying `actions` ((seat, action) pairs) to a new game."""
        game = cls(seed, target, dealer)
        for seat, action in actions:
            game.apply(seat, action)
        return game

    @property
    def events(self) -> list[Event]:
        """Every event so far, in order, with who may see each (the list grows as the game
        goes on; do not change it)."""
        if len(self._events) < len(self._log):
            self._build_events()
        return self._events

    @property
    def log(self) -> list[tuple[Any, ...]]:
        """Every event so far as the flat tuple it is logged as, ``(kind, seat, visible_to,
        *values)`` with the values of its `Event.data` in the order of `DATA_KEYS[kind]`:
        `events[i]` is built from `log[i]`. For a reader that converts each event itself
        and needs no `Event` built (the referee's wire feed). The list grows as the game goes
        on; do not change it."""
        return self._log

    @property
    def over(self) -> bool:
        return self.phase is None

    def to_act(self) -> tuple[int, ...]:
        """The seats whose decision is awaited now (several in the simultaneous phases)."""
        phase = self.phase
        if phase is _PLAY:
            return _ONE_SEAT[self.turn]
        if phase is _BOMB:
            return _ONE_SEAT[self._window[0]]
        if phase is _DRAGON_GIFT:
            return _ONE_SEAT[self.table_seat]
        if phase is None:
            return ()
        return _SEATS_IN[self._waiting]

    def decision(self, seat: int) -> Decision:
        """The decision `seat` must make now; IllegalAction('not-your-turn') if none."""
        if self.phase is _PLAY:
            if seat != self.turn:
                raise IllegalAction("not-your-turn", f"seat {seat} has no decision to make now")
            decision = self._current
            if decision is None:
                if (not self.hands[seat] & self._beaters
                        and not (self._may_call | self._bomb_seats) >> seat & 1):
                    decision = _ONLY_PASS[seat]  # no card beats the single: a forced pass
                else:
                    decision = self._turn_decision(seat)
                self._current = decision
            return decision
        decision = self._cache.get(seat)  # (emptied whenever a phase but PLAY begins)
        if decision is not None:
            return decision
        if seat in self.to_act():
            decision = self._build_decision(seat)
        else:
            raise IllegalAction("not-your-turn", f"seat {seat} has no decision to make now")
        self._cache[seat] = decision
        return decision

    def apply(self, seat: int, action: Action) -> None:
        """Apply `seat`'s action; IllegalAction (naming the rule) leaves the game unchanged."""
        decision = self._current  # the decision of the turn, once asked for (else None)
        if decision is not None and seat == self.turn:
            # The commonest actions, a pass or a play exactly as the options gave it:
            # nothing to check but that a pass is allowed. (No `cast`, a call, on the
            # engine's hottest path: the ignores below say what the types cannot.)
            options: _TurnOptions = decision.options  # type: ignore[assignment]  # PLAY or BOMB
            if action is PASS and options.can_pass:
                self._pass(seat)
                self.actions.append(_PASSED[seat])
                return
            if action is options.taken and action is not None:
                self._play(seat, options.taken_combination, 0, False)  # type: ignore[arg-type]  # set with taken
                self.actions.append((seat, action))
                return
        else:
            decision = self.decision(seat)
        kind = decision.kind
        if getattr(action, "call_tichu", False) and not decision.may_call_tichu:
            raise IllegalAction("tichu-not-allowed", "Tichu may only be called by a seat that "
                                "has played no card and has called neither Tichu nor Grand Tichu")
        elif kind is _PLAY or kind is _BOMB:
            self._apply_turn(seat, decision, action)
        elif kind is _GRAND_TICHU:
            self._choose_simultaneous(seat, _expect(action, GrandTichu, kind))
        elif kind is _EXCHANGE:
            given = action  # the options' own Exchange is legal as it is
            if given is not cast(ExchangeOptions, decision.options).taken:
                given = self._check_exchange(seat, action)
            self._choose_simultaneous(seat, given)
        elif kind is _TICHU:
            self._choose_simultaneous(seat, _expect(action, CallTichu, kind))
        else:
            self._give_dragon(seat, _expect(action, GiveDragon, kind))
        self.actions.append((seat, action))

    def observation(self, seat: int) -> Observation:
        """What `seat` may know now: its own cards and the public state, nothing hidden."""
        h0, h1, h2, h3 = self.hands
        given, received = self._exchanged[seat]
        return _new(Observation, (
            seat, self.round_number, self.phase, self.to_act(), self.hands[seat],
            (h0.bit_count(), h1.bit_count(), h2.bit_count(), h3.bit_count()),
            tuple(self.grand_tichu), tuple(self.tichu), tuple(self.out_order), self.wish,
            self.table, self.table_seat if self.table is not None else -1, self.trick,
            points(self.trick), self.played_cards, given, received,
            self._points_taken or self._count_points_taken(),
            (self.scores[0], self.scores[1]), self.target,
            RoundEvents(self, seat, self._round_start, len(self._log))))

    def position(self) -> Position:
        """The round as it stands, every hand included (see `Position`); ValueError outside
        the phases of play (PLAY, BOMB, DRAGON_GIFT)."""
        phase = self.phase
        if phase is not _PLAY and phase is not _BOMB and phase is not _DRAGON_GIFT:
            raise ValueError(f"no position in phase {phase}: only in a regular turn, a bomb "
                             "window or a Dragon gift")
        h0, h1, h2, h3 = self.hands
        w0, w1, w2, w3 = self.won
        g0, g1, g2, g3 = self.grand_tichu
        t0, t1, t2, t3 = self.tichu
        table = self.table
        gift = phase is _DRAGON_GIFT
        return _new(Position, (
            self.round_number, (self.scores[0], self.scores[1]), self.target, (h0, h1, h2, h3),
            (w0, w1, w2, w3), (g0, g1, g2, g3), (t0, t1, t2, t3), tuple(self.out_order),
            self.wish, table, self.table_seat if table is not None else -1, self.trick, phase,
            -1 if gift else self.turn, 0 if gift or table is None else self._to_pass,
            self.to_act()[0]))

    @classmethod
    def from_position(cls, position: Position, seed: int = 0,
                      dealer: Callable[[int, int], list[int]] = deal_order) -> Game:
        """A game in `position` (a round in play, every hand known), asking `position.to_act`.

        It plays on exactly as the game the position was read from would (`position()`), to
        this round's end and then, dealt by `dealer(seed, round_number)`, to the target. It
        has no history: its log, actions and observations' round events start here, and its
        observations show no exchange. ValueError if the position's cards are not the 56
        cards, each once, or its seat asked cannot be asked.
        """
        game = cls.__new__(cls)
        game.seed = seed
        game.target = position.target
        game._dealer = dealer
        game.scores = [position.scores[0], position.scores[1]]
        game.round_number = position.round_number
        game._log = []
        game._events = []
        game._round_start = 0
        game.actions = []
        game.winner = None
        game._cache = {}
        game._current = None
        game._enter(position)
        return game

    def _count_points_taken(self) -> tuple[int, int, int, int]:
        """The card points in each seat's `won`, counted now and kept until it changes."""
        w0, w1, w2, w3 = self.won
        taken = self._points_taken = (points(w0), points(w1), points(w2), points(w3))
        return taken

    # ----- rounds -------------------------------------------------------------------------

    def _start_round(self) -> None:
        self.round_number += 1
        self._exchanged: list[tuple[tuple[int, ...], tuple[int, ...]]] = [((), ())] * 4
        self.played_cards = 0
        self._scores_before = tuple(self.scores)
        self._deck = self._dealer(self.seed, self.round_number)
        # (deal_order shuffles the 56 cards, so only an injected dealer needs the check)
        if self._dealer is not deal_order and sorted(self._deck) != _DECK:
            raise ValueError("a dealer must return the 56 cards, each once")
        deck = self._deck
        self.hands = [sum(map(_CARD_BIT.__getitem__, deck[14 * s:14 * s + 8])) for s in range(4)]
        self.grand_tichu = [False] * 4
        self.tichu = [False] * 4
        self._may_call = 0b1111  # seats that have played no card and called nothing
        self.won = [0, 0, 0, 0]
        self._points_taken = (0, 0, 0, 0)
        self.out_order: list[int] = []
        self.wish = 0
        self.table: Combination | None = None
        self.table_seat = -1
        self.trick = 0
        self.turn = -1
        self._to_pass = 0  # (see _play)
        self._window: list[int] = []
        self._gather_after_window = False
        self._round_over_after_gift = False
        self._bombs: list[list[Combination]] = [[], [], [], []]
        self._bomb_seats = 0  # seats holding any bomb, as a bitmask
        self._top_bomb = [-1, -1, -1, -1]  # per seat: _bomb_strength of its best bomb, or -1
        self._round_start = len(self._log)
        self._emit("round_start", -1, PUBLIC, self.round_number, self._scores_before)
        for s in range(4):
            self._emit("deal", s, s, self.hands[s])
        self._begin_simultaneous(_GRAND_TICHU, range(4))

    def _begin_simultaneous(self, phase: DecisionKind, seats: Iterable[int]) -> None:
        self.phase = phase
        self._pending = tuple(seats)  # all asked
        self._waiting = sum(1 << s for s in self._pending)  # those yet to choose, a bitmask
        self._chosen: dict[int, Action] = {}
        self._cache.clear()

    def _choose_simultaneous(self, seat: int, action: Action) -> None:
        self._chosen[seat] = action
        self._waiting &= ~(1 << seat)
        self._cache.pop(seat, None)
        if self._waiting:
            return
        chosen = self._chosen  # the phase's own type of action each (see `apply`)
        if self.phase is _GRAND_TICHU:
            self._finish_grand_tichu(cast("dict[int, GrandTichu]", chosen))
        elif self.phase is _EXCHANGE:
            self._finish_exchange(cast("dict[int, Exchange]", chosen))
        else:
            self._finish_tichu_window(cast("dict[int, CallTichu]", chosen))

    def _finish_grand_tichu(self, chosen: dict[int, GrandTichu]) -> None:
        for s in range(4):
            self.grand_tichu[s] = chosen[s].call
            if chosen[s].call:
                self._may_call &= ~(1 << s)
            self._emit("grand_tichu", s, PUBLIC, chosen[s].call)
        for s in range(4):
            rest = sum(map(_CARD_BIT.__getitem__, self._deck[14 * s + 8:14 * s + 14]))
            self.hands[s] |= rest
            self._emit("deal", s, s, rest)
        self._begin_simultaneous(_EXCHANGE, range(4))

    def _finish_exchange(self, chosen: dict[int, Exchange]) -> None:
        for s in range(4):
            if chosen[s].call_tichu:
                self._call_tichu(s)
        hands = self.hands
        received = [[0, 0, 0, 0] for _ in range(4)]  # received[seat][giver]
        for s in range(4):
            a, b, c = chosen[s].give
            hands[s] &= ~(_CARD_BIT[a] | _CARD_BIT[b] | _CARD_BIT[c])
            received[(s + 1) % 4][s] = a
            received[(s + 2) % 4][s] = b
            received[(s + 3) % 4][s] = c
        for s in range(4):
            got = received[s]
            by_order = (got[(s + 1) % 4], got[(s + 2) % 4], got[(s + 3) % 4])
            hands[s] |= _CARD_BIT[by_order[0]] | _CARD_BIT[by_order[1]] | _CARD_BIT[by_order[2]]
            given = tuple(chosen[s].give)
            self._emit("exchange", s, s, tuple(got), given)
            self._exchanged[s] = (given, by_order)
        eligible = [s for s in range(4) if not self.grand_tichu[s] and not self.tichu[s]]
        if eligible:
            self._begin_simultaneous(_TICHU, eligible)
        else:
            self._start_play()

    def _finish_tichu_window(self, chosen: dict[int, CallTichu]) -> None:
        for s in self._pending:
            if chosen[s].call:
                self._call_tichu(s)
        self._start_play()

    def _start_play(self) -> None:
        self._active = 0b1111  # the seats still holding cards
        self._leads: list[list[Combination] | None] = [None, None, None, None]
        self._leads_hand = [0, 0, 0, 0]  # the hand each seat's list of leads is for
        for s in range(4):
            self._refresh_bombs(s)
        leader = next(s for s in range(4) if self.hands[s] >> MAHJONG & 1)
        self._new_trick(leader)

    def _enter(self, position: Position) -> None:
        """Set this round's state to `position` (see `from_position`)."""
        hands = self.hands = list(position.hands)
        parts = (*hands, *position.won, position.trick)
        gone = position.trick | position.won[0] | position.won[1] | position.won[2] | position.won[3]
        if (sum(p.bit_count() for p in parts) != 56
                or hands[0] | hands[1] | hands[2] | hands[3] | gone != FULL_DECK):
            raise ValueError("a position must hold the 56 cards, each once, in the hands, the "
                             "gathered cards and the trick")
        self._exchanged = [((), ())] * 4
        self.played_cards = gone
        self._scores_before = (self.scores[0], self.scores[1])
        self.grand_tichu = list(position.grand_tichu)
        self.tichu = list(position.tichu)
        self._may_call = sum(1 << s for s in range(4) if hands[s].bit_count() == 14
                             and not self.grand_tichu[s] and not self.tichu[s])
        self.won = list(position.won)
        self._count_points_taken()
        self.out_order = list(position.out_order)
        self.wish = position.wish
        self.table = table = position.table
        self.table_seat = position.table_seat
        self.trick = position.trick
        self._beaters = (moves.SINGLE_BEATERS[table.rank] if table is not None
                         and table.type is SINGLE_T else FULL_DECK)
        self._active = sum(1 << s for s in range(4) if hands[s])
        self._leads = [None, None, None, None]
        self._leads_hand = [0, 0, 0, 0]
        self._bombs = [[], [], [], []]
        self._bomb_seats = 0
        self._top_bomb = [-1, -1, -1, -1]
        for s in range(4):
            self._refresh_bombs(s)
        self.turn = position.turn
        self._to_pass = position.to_pass
        self._gather_after_window = not position.to_pass
        self._round_over_after_gift = len(position.out_order) >= 3
        self._window = []
        self.phase = phase = position.phase
        seat = position.to_act
        if phase is _BOMB and table is not None:
            order = _FROM[position.turn]
            strength = _bomb_strength(table) if table.type >= FOUR_T else 0
            self._window = [seat] + _above(order[order.index(seat) + 1:], self._top_bomb, strength)
            if self._top_bomb[seat] <= strength:
                raise ValueError(f"seat {seat} holds no bomb that beats the table")
        elif phase is _DRAGON_GIFT and table is not None and table.cards == DRAGON_BIT:
            if seat != position.table_seat:
                raise ValueError(f"the Dragon's player, seat {position.table_seat}, gives it")
        elif phase is not _PLAY or seat != position.turn or not hands[seat]:
            raise ValueError(f"seat {seat} cannot be asked in phase {phase} of this position")

    def _new_trick(self, leader: int) -> None:
        self.table = None
        self.table_seat = -1
        self.trick = 0
        self._beaters = FULL_DECK  # (see _play; the seat on turn holds a card)
        self.turn = leader
        self.phase = _PLAY
        self._current = None
        if self._cache:  # (mostly empty: it holds the decisions of the other phases)
            self._cache.clear()

    def _call_tichu(self, seat: int) -> None:
        self._current = None  # (may_call_tichu changes)
        self.tichu[seat] = True
        self._may_call &= ~(1 << seat)
        self._emit("tichu", seat, PUBLIC)

    # ----- decisions ----------------------------------------------------------------------

    def _build_decision(self, seat: int) -> Decision:
        """The decision of any phase but a regular turn (`_turn_decision`)."""
        phase = self.phase
        may_call = (phase is not _GRAND_TICHU and phase is not _DRAGON_GIFT
                    and phase is not _TICHU and bool(self._may_call >> seat & 1))
        if phase is _BOMB:
            bombs = _beating(self._bombs[seat], self.table)  # type: ignore[arg-type]  # after a play
            return _new(Decision, (seat, _BOMB, PlayOptions(bombs, True), may_call, False))
        if phase is _GRAND_TICHU:
            return _GT_DECISIONS[seat]
        if phase is _EXCHANGE:
            return _new(Decision, (seat, phase, ExchangeOptions(self.hands[seat]), may_call, False))
        if phase is _TICHU:
            return _TICHU_DECISIONS[seat]
        opponents = (GiveDragon((seat + 1) % 4), GiveDragon((seat + 3) % 4))
        return Decision(seat, _DRAGON_GIFT, opponents)  # (the one phase left)

    def _turn_decision(self, seat: int) -> Decision:
        hand = self.hands[seat]
        table = self.table
        if table is None:
            combos = self._lead_options(seat, hand)
        else:  # moves.follow_options, with the bombs the game keeps track of
            if table.type is SINGLE_T:  # the commonest table, without the dispatch
                combos = moves.singles(hand, table)
            else:
                combos = moves.follows_in_kind(hand, table)
            if self._bomb_seats >> seat & 1:
                combos = combos + _beating(self._bombs[seat], table)
        forced = False
        if self.wish:
            wished = _RANK_MASK[self.wish]
            if hand & wished:
                fulfilling = _holding_any(combos, wished)
                if fulfilling:
                    combos, forced = fulfilling, True
        may_call = self._may_call >> seat & 1 == 1
        if not combos and not may_call:  # nothing beats the table: passing is all there is
            return _ONLY_PASS[seat]
        can_pass = table is not None and not forced
        return _new(Decision, (seat, _PLAY, PlayOptions(combos, can_pass), may_call, forced))

    def _lead_options(self, seat: int, hand: int) -> list[Combination]:
        """`moves.lead_options(hand)`, generated once per seat and round and then filtered as
        cards leave the hand: a hand's leads are the leads of any hand holding it that use
        only its cards, in the same order (`moves.lead_options` promises it)."""
        leads = self._leads[seat]
        if leads is None:
            leads = _LEADS.get(hand)
            if leads is None:
                if len(_LEADS) >= _LEADS_KEPT:
                    _LEADS.clear()
                leads = _LEADS[hand] = moves.lead_options(hand)
        elif self._leads_hand[seat] != hand:
            # (the cards gone since, a positive int: a negative one, ~hand, costs a copy in
            # two's complement at every `&`)
            leads = _holding_none(leads, self._leads_hand[seat] & ~hand)
        else:
            return leads
        self._leads[seat] = leads
        self._leads_hand[seat] = hand
        return leads

    def _refresh_bombs(self, seat: int) -> None:
        bombs = self._bombs[seat] = moves.bombs(self.hands[seat], None)
        if bombs:
            self._bomb_seats |= 1 << seat
            self._top_bomb[seat] = max(map(_bomb_strength, bombs))
        else:
            self._bomb_seats &= ~(1 << seat)
            self._top_bomb[seat] = -1

    # ----- validation ---------------------------------------------------------------------

    def _check_exchange(self, seat: int, action: Action) -> Exchange:
        action = _expect(action, Exchange, _EXCHANGE)
        give = tuple(action.give) if isinstance(action.give, (tuple, list)) else ()
        if len(give) != 3:
            raise IllegalAction("exchange-three-cards", "give exactly one card to each other seat")
        if len(set(give)) != 3:
            raise IllegalAction("exchange-distinct-cards", "the three cards given must differ")
        for c in give:
            if not (_is_int(c) and 0 <= c < 56 and self.hands[seat] >> c & 1):
                raise IllegalAction("card-not-held", f"seat {seat} does not hold card {c}")
        return Exchange(give, action.call_tichu)

    def _check_play(self, seat: int, decision: Decision, action: Play) -> Combination:
        """The combination `action` forms if it is legal now; IllegalAction naming the rule."""
        cards = action.cards
        if not _is_int(cards) or cards <= 0 or cards >> 56:
            raise IllegalAction("not-a-card-set", "cards must name one or more of the 56 cards")
        if not _is_int(action.phoenix_as) or not _is_int(action.wish):
            raise IllegalAction("not-a-rank", "phoenix_as and wish must be whole numbers")
        if action.wish and not 2 <= action.wish <= 14:
            raise IllegalAction("wish-rank", "a wish names one rank from 2 to 14 (or 0 for none)")
        if action.wish and not cards & MAHJONG_BIT:
            raise IllegalAction("wish-without-mahjong", "only a play holding the Mah Jong may wish")
        if cards & ~self.hands[seat]:
            raise IllegalAction("card-not-held", f"seat {seat} does not hold every card played")
        table = self.table
        combo = classify(cards, action.phoenix_as, table)  # raises if no combination
        if decision.kind is _BOMB and combo.type < FOUR_T:
            raise IllegalAction("bomb-window-takes-bombs", "out of turn only a bomb may be played")
        if table is not None:
            if combo.type is DOG_T:
                raise IllegalAction("dog-only-as-lead", "the Dog may only be led")
            if not beats(combo, table):
                raise IllegalAction("does-not-beat-table", "a play must be the same type and "
                                    "size as the table and higher, or a bomb that beats it")
        if decision.must_fulfil_wish and not cards & rank_mask(self.wish):
            raise IllegalAction("must-fulfil-wish", f"a play holding the wished rank {self.wish} "
                                "is possible, so one must be made")
        return combo

    # ----- turns ---------------------------------------------------------------------------

    def _apply_turn(self, seat: int, decision: Decision, action: Action) -> None:
        # (No `cast`, a call: every decision of a bomb window comes here.)
        options: _TurnOptions = decision.options  # type: ignore[assignment]  # PLAY or BOMB
        if isinstance(action, Pass):
            if not options.can_pass:
                if decision.must_fulfil_wish:
                    raise IllegalAction("must-fulfil-wish", f"seat {seat} can play the wished "
                                        f"rank {self.wish} and must do so")
                raise IllegalAction("leader-must-play", "the leader of a trick may not pass")
            if action.call_tichu:
                self._call_tichu(seat)
            if decision.kind is _BOMB:
                self._decline_bomb()
            else:
                self._pass(seat)
            return
        if not isinstance(action, Play):
            raise IllegalAction("wrong-decision",
                                f"a {decision.kind.value} decision takes Play or Pass")
        combo = options.combination_of(action)
        if combo is None:  # not the option taken last: check it rule by rule
            combo = self._check_play(seat, decision, action)
        if action.call_tichu:
            self._call_tichu(seat)
        self._play(seat, combo, action.wish, out_of_turn=decision.kind is _BOMB)

    def _play(self, seat: int, combo: Combination, wish: int, out_of_turn: bool) -> None:
        self._current = None
        cards = combo.cards
        hand = self.hands[seat] = self.hands[seat] ^ cards  # (held: see _check_play)
        self.played_cards |= cards
        self._may_call &= _OTHER_SEATS[seat]
        if self._bomb_seats >> seat & 1:
            self._refresh_bombs(seat)
        self._log.append(("play", seat, PUBLIC, cards, combo, out_of_turn))
        if self.wish and cards & _RANK_MASK[self.wish]:
            self._emit("wish_fulfilled", seat, PUBLIC, self.wish)
            self.wish = 0
        if wish:
            self.wish = wish
            self._emit("wish", seat, PUBLIC, wish)
        self.table = combo
        # The cards that could beat the table as singles (all, on any other table): a seat
        # holding none of them has a forced pass (see `decision`).
        self._beaters = moves.SINGLE_BEATERS[combo.rank] if combo.type is SINGLE_T else FULL_DECK
        self.table_seat = seat
        self.trick |= cards
        if not hand:
            self._active &= ~(1 << seat)
            self.out_order.append(seat)
            self._emit("out", seat, PUBLIC, len(self.out_order))
            if self._round_over():
                return
        if combo.type is DOG_T:
            self._dog(seat)
            return
        # The seats that must pass for the trick to end: every other one still holding cards
        # (none goes out before the next play).
        self._to_pass = self._active & _OTHER_SEATS[seat]
        if self._bomb_seats:
            self._before_turn(_NEXT_ACTIVE[self._active][seat], False)
        else:  # _before_turn without bombs, inlined
            self.turn = _NEXT_ACTIVE[self._active][seat]
            self.phase = _PLAY

    def _pass(self, seat: int) -> None:
        to_pass = self._to_pass = self._to_pass & _OTHER_SEATS[seat]
        self._log.append(_PASS_LOGGED[seat])
        if self._bomb_seats:
            self._before_turn(_NEXT_ACTIVE[self._active][seat], not to_pass)
            return
        self.turn = _NEXT_ACTIVE[self._active][seat]  # _before_turn without bombs, inlined
        self._current = None
        if not to_pass:
            self._gather()

    def _dog(self, seat: int) -> None:
        partner = (seat + 2) % 4
        receiver = partner if self.hands[partner] else self._next_active(partner)
        self._emit("dog", seat, PUBLIC, receiver)
        self.won[receiver] |= DOG_BIT  # (no points: `_points_taken` stands)
        self._new_trick(receiver)

    def _before_turn(self, nxt: int, gather: bool) -> None:
        """Open the bomb window before the next regular turn (or before gathering)."""
        self.turn = nxt
        self._current = None
        if self._bomb_seats:
            table = self.table
            strength = _bomb_strength(table) if table.type >= FOUR_T else 0  # type: ignore[arg-type, union-attr]  # after a play
            top = self._top_bomb
            window = _above(_FROM[nxt], top, strength)
            if window:
                self._cache.clear()
                self._gather_after_window = gather
                self._window = window
                self.phase = _BOMB
                return
        if gather:
            self._gather()
        else:
            self.phase = _PLAY

    def _decline_bomb(self) -> None:
        self._window.pop(0)
        self._cache.clear()
        if not self._window:
            self._after_window()

    def _after_window(self) -> None:
        if self._gather_after_window:
            self._gather()
        else:
            self.phase = _PLAY

    def _gather(self) -> None:
        winner = self.table_seat
        if self.table.cards == DRAGON_BIT:  # type: ignore[union-attr]  # the trick's last play
            self.phase = _DRAGON_GIFT
            self._cache.clear()
            return
        self._take_trick(winner, winner)
        self._new_trick(winner if self.hands[winner] else self._next_active(winner))

    def _give_dragon(self, seat: int, action: GiveDragon) -> None:
        if action.to not in ((seat + 1) % 4, (seat + 3) % 4):
            raise IllegalAction("dragon-to-opponent", "the Dragon trick must go to an opponent")
        self._take_trick(seat, action.to)
        if self._round_over_after_gift:
            self._score_round()
        else:
            self._new_trick(seat if self.hands[seat] else self._next_active(seat))

    def _take_trick(self, winner: int, taker: int) -> None:
        self.won[taker] |= self.trick
        self._points_taken = None
        self._emit("trick", winner, PUBLIC, taker, self.trick, points(self.trick))
        self.trick = 0

    def _next_active(self, seat: int) -> int:
        return _NEXT_ACTIVE[self._active][seat]

    # ----- end of round and game -----------------------------------------------------------

    def _round_over(self) -> bool:
        """End the round if the last play ended it; True if it did."""
        out = self.out_order
        if len(out) == 2 and team_of(out[0]) == team_of(out[1]):
            self._score_round()
            return True
        if len(out) < 3:
            return False
        table = self.table
        assert table is not None  # (the play that ended the round)
        if table.cards == DRAGON_BIT:  # the last trick's Dragon is still given away
            self._round_over_after_gift = True
            self.phase = _DRAGON_GIFT
            self._cache.clear()
            return True
        self._take_trick(self.table_seat, self.table_seat)
        self._score_round()
        return True

    def _score_round(self) -> None:
        out = self.out_order
        first = out[0]
        card_points = [0, 0]
        double = len(out) == 2
        if double:
            card_points[team_of(first)] = DOUBLE_VICTORY_POINTS
        else:
            last = next(s for s in range(4) if self.hands[s])
            self.won[first] |= self.won[last]
            self.won[last] = 0
            self._points_taken = None
            card_points[1 - team_of(last)] += points(self.hands[last])
            for s in range(4):
                card_points[team_of(s)] += points(self.won[s])
        calls = [0, 0]
        for s in range(4):
            bonus = GRAND_TICHU_BONUS if self.grand_tichu[s] else TICHU_BONUS if self.tichu[s] else 0
            calls[team_of(s)] += bonus if s == first else -bonus
        for t in (0, 1):
            self.scores[t] += card_points[t] + calls[t]
        self._emit("round_end", -1, PUBLIC, tuple(card_points), tuple(calls), double,
                   tuple(out), tuple(self.scores))
        self._cache.clear()
        high = max(self.scores)
        if high >= self.target and self.scores[0] != self.scores[1]:
            self.winner = 0 if self.scores[0] > self.scores[1] else 1
            self.phase = None
            self._emit("game_end", -1, PUBLIC, tuple(self.scores), self.winner)
        else:
            self._start_round()

    def _emit(self, *entry: Any) -> None:
        """Log an event: its kind, seat and visible_to, then its data in the order of
        DATA_KEYS[kind] (the arguments are the log's entry as they come)."""
        self._log.append(entry)

    def _build_events(self) -> None:
        """Build the logged events not built yet, in order, into `events`."""
        events = self._events
        append = events.append
        for entry in self._log[len(events):]:
            kind = entry[0]
            append(_new(Event, (kind, entry[1], entry[2], dict(zip(DATA_KEYS[kind], entry[3:], strict=True)))))


# Decision(...) without the named tuple's __new__, a Python function: about half the cost.
_new = tuple.__new__


def _next_seat(active: int, seat: int) -> int:
    """The next seat after `seat` in play order among the seats in `active` (a bitmask);
    `seat` itself when no other is active."""
    for k in (1, 2, 3):
        s = (seat + k) % 4
        if active >> s & 1:
            return s
    return seat


_ONE_SEAT = ((0,), (1,), (2,), (3,))
_OTHER_SEATS = (0b1110, 0b1101, 0b1011, 0b0111)  # by seat: the other seats, as a bitmask
_SEATS_IN = [tuple(s for s in range(4) if mask >> s & 1) for mask in range(16)]  # by bitmask
_PASS_LOGGED = tuple(("pass", seat, PUBLIC) for seat in range(4))  # (see _emit)
_PASSED = tuple((seat, PASS) for seat in range(4))  # a pass in `actions`, the commonest
_FROM = [tuple((seat + k) % 4 for k in range(4)) for seat in range(4)]  # the seats in play order


# The filters of the functions called per decision, apart: a comprehension that reads a
# local makes it a cell, built on every call of the function holding it (Python 3.11).

def _beating(bombs: list[Combination], table: Combination) -> list[Combination]:
    """The bombs of `bombs` that beat `table`."""
    return [b for b in bombs if beats(b, table)]


def _holding_any(combos: list[Combination], cards: int) -> list[Combination]:
    """The combinations of `combos` holding any of `cards`."""
    return [c for c in combos if c.cards & cards]


def _holding_none(combos: list[Combination], cards: int) -> list[Combination]:
    """The combinations of `combos` holding none of `cards`."""
    return [c for c in combos if not c.cards & cards]


def _above(seats: tuple[int, ...], top: list[int], strength: int) -> list[int]:
    """The seats of `seats` (in that order) whose `top` is above `strength`."""
    return [s for s in seats if top[s] > strength]


def _bomb_strength(bomb: Combination) -> int:
    """A bomb's order among bombs, above 0 (what beats any other combination): by length,
    then rank (`combos.beats`)."""
    return bomb.length * 16 + int(bomb.rank)


# The leads of the hands met last, shared by all games (lists never changed, as every list
# of options): a search plays the same hands out again and again (`from_position`), and
# generating a hand's leads costs more than the rest of its turn.
_LEADS: dict[int, list[Combination]] = {}
_LEADS_KEPT = 64
_CARD_BIT = [1 << c for c in range(56)]
_DECK = list(range(56))
_NEXT_ACTIVE = [[_next_seat(active, seat) for seat in range(4)] for active in range(16)]
_RANK_MASK = [rank_mask(r) if r >= 2 else 0 for r in range(15)]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_A = TypeVar("_A", GrandTichu, Exchange, CallTichu, GiveDragon)


def _expect(action: Action, cls: type[_A], kind: DecisionKind) -> _A:
    if not isinstance(action, cls):
        raise IllegalAction("wrong-decision", f"a {kind.value} decision takes {cls.__name__}, "
                            f"not {type(action).__name__}")
    return action


# The decisions that are the same every time for a seat, built once.
_GT_DECISIONS = tuple(Decision(s, _GRAND_TICHU, _GT_OPTIONS) for s in range(4))
_TICHU_DECISIONS = tuple(Decision(s, _TICHU, _TICHU_OPTIONS) for s in range(4))
# The decision of a seat that can only pass (about a third of all decisions), built once.
_ONLY_PASS = tuple(Decision(s, _PLAY, OnlyPass()) for s in range(4))


