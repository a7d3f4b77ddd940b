"""What one seat knows of the round in play, read from the protocol's requests and events.

The public facts (calls, plays and passes, tricks and who took them, the Dog, the wish, who
is out, the cards each seat holds), the seat's own cards and exchange, and what follows for
the hands it cannot see: the cards it gave each other seat are still in that seat's hand
until played (`held`), and a seat that did not fulfil the wish on its regular turn when a
natural card of the wished rank would have been a legal play holds none (`void`).
`position(hands)` is the round as the engine's `Position`, with the hidden hands filled in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from arena.rules import DecisionKind, Position
from arena.rules.cards import DOG_BIT, FULL_DECK, parse_card, rank_mask
from arena.rules.combos import SINGLE_T, Combination, classify
from arena.rules.position import next_seat

RANKS = "23456789TJQKA"
PHASES = {"play": DecisionKind.PLAY, "bomb": DecisionKind.BOMB,
          "dragon_gift": DecisionKind.DRAGON_GIFT}
"""The request kinds that are decisions of play, and their engine phases."""

Message = Mapping[str, Any]


def card_set(names: Iterable[str]) -> int:
    """The card set of wire card names."""
    cards = 0
    for name in names:
        cards |= 1 << parse_card(name)
    return cards


def rank_value(text: str | None) -> int:
    """A wire rank ("2".."A") as 2..14; 0 for none."""
    return RANKS.index(text) + 2 if text else 0


def rank_text(rank: int) -> str:
    return RANKS[rank - 2]


class Knowledge:
    """One seat's knowledge of the current round; `read` each request as it comes."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.target = 1000
        self.scores = (0, 0)
        self.start_round(0, (0, 0))

    def start_round(self, number: int, scores: Sequence[int]) -> None:
        """Forget the last round: a new one begins, the team totals `scores` before it."""
        self.round_number = number
        self.scores = (scores[0], scores[1])
        self.hand = 0
        self.counts = (0, 0, 0, 0)
        self.grand_tichu: tuple[bool, ...] = (False, False, False, False)
        self.tichu = [False, False, False, False]
        self.given: tuple[int, int, int] | None = None  # to seat+1, the partner, seat+3
        self.received: tuple[int, int, int] | None = None  # from seat+1, the partner, seat+3
        self.won = [0, 0, 0, 0]
        self.table: Combination | None = None
        self.table_seat = -1
        self.trick = 0
        self.last = -1  # the seat of the last play or pass of the trick
        self.passed = 0  # the seats that passed since the last play, a bitmask
        self.wish = 0
        self.out_order: list[int] = []
        self.played = 0
        self.held = [0, 0, 0, 0]  # cards a seat surely holds (this seat gave them)
        self.void = [0, 0, 0, 0]  # cards a seat surely does not hold

    # ----- reading ------------------------------------------------------------------------------

    def read(self, request: Message) -> None:
        """Take in a request: its events, in order, then its observation (the truth on
        everything it states)."""
        for event in request.get("events") or ():
            self.observe(event)
        self.take_observation(request["observation"])

    def take_observation(self, obs: Message) -> None:
        if obs["round"] != self.round_number:
            self.start_round(obs["round"], obs["scores"])
        self.target = obs["target"]
        self.scores = (obs["scores"][0], obs["scores"][1])
        self.hand = card_set(obs["hand"])
        counts = obs["hand_counts"]
        self.counts = (counts[0], counts[1], counts[2], counts[3])
        self.grand_tichu = tuple(obs["grand_tichu"])
        self.tichu = list(obs["tichu"])
        self.out_order = list(obs["out_order"])
        self.wish = rank_value(obs["wish"])
        self.played = card_set(obs["played"])
        exchange = obs.get("exchange")
        if exchange and self.given is None:
            self._exchanged(exchange["given"], exchange["received"])

    def observe(self, event: Message) -> None:
        """Take in one event."""
        kind = event["kind"]
        if kind == "play":
            self._play(event)
        elif kind == "pass":
            self._pass(event["seat"])
        elif kind == "trick":
            self.won[event["taker"]] |= card_set(event["cards"])
            self._new_trick()
        elif kind == "dog":
            self.won[event["to"]] |= DOG_BIT
            self._new_trick()
        elif kind == "wish":
            self.wish = rank_value(event["rank"])
        elif kind == "wish_fulfilled":
            self.wish = 0
        elif kind == "round_start":
            self.start_round(event["round"], event["scores"])
        elif kind == "exchange":
            self._exchanged(event["given"], event["received"])
        elif kind == "tichu":
            self.tichu[event["seat"]] = True

    def _exchanged(self, given: Sequence[str], received: Sequence[str]) -> None:
        a, b, c = (parse_card(name) for name in given)
        self.given = (a, b, c)
        x, y, z = (parse_card(name) for name in received)
        self.received = (x, y, z)
        for k, card in enumerate(self.given):
            self.held[(self.seat + 1 + k) & 3] |= 1 << card

    def _play(self, event: Message) -> None:
        seat = event["seat"]
        cards = card_set(event["cards"])
        wish = self.wish
        if wish and not event.get("out_of_turn") and not cards & rank_mask(wish):
            self._did_not_fulfil(seat, wish)
        self.table = classify(cards, rank_value(event.get("phoenix_as")), self.table)
        self.table_seat = seat
        self.trick |= cards
        self.played |= cards
        self.held[seat] &= ~cards
        self.last = seat
        self.passed = 0

    def _pass(self, seat: int) -> None:
        if self.wish:
            self._did_not_fulfil(seat, self.wish)
        self.last = seat
        self.passed |= 1 << seat

    def _did_not_fulfil(self, seat: int, wish: int) -> None:
        """`seat` made a regular play or pass without the wished rank: where a natural card
        of that rank would have been a legal play (on an empty table, or as a single on a
        lower single), it holds none."""
        table = self.table
        if table is None or (table.type is SINGLE_T and table.rank < wish):
            self.void[seat] |= rank_mask(wish)

    def _new_trick(self) -> None:
        self.table = None
        self.table_seat = -1
        self.trick = 0
        self.passed = 0

    # ----- what follows -----------------------------------------------------------------------

    @property
    def partner(self) -> int:
        return self.seat ^ 2

    def unseen(self) -> int:
        """The cards in the hands of the other seats: neither this seat's nor played."""
        return FULL_DECK & ~self.hand & ~self.played

    def position(self, kind: str, hands: Sequence[int]) -> Position:
        """The round at this seat's decision of `kind` (play, bomb, dragon_gift), with
        `hands` (this seat's own and three others) filled in."""
        phase = PHASES[kind]
        h0, h1, h2, h3 = hands
        active = (h0 > 0) | (h1 > 0) << 1 | (h2 > 0) << 2 | (h3 > 0) << 3
        table = self.table
        turn, to_pass = self.seat, 0
        if phase is DecisionKind.DRAGON_GIFT:
            turn = -1
        elif table is not None:
            to_pass = active & ~(1 << self.table_seat) & ~self.passed
            if phase is DecisionKind.BOMB:
                turn = next_seat(active, self.last)
        g0, g1, g2, g3 = self.grand_tichu
        t0, t1, t2, t3 = self.tichu
        w0, w1, w2, w3 = self.won
        return Position(self.round_number, self.scores, self.target, (h0, h1, h2, h3),
                        (w0, w1, w2, w3), (g0, g1, g2, g3), (t0, t1, t2, t3),
                        tuple(self.out_order), self.wish, table,
                        self.table_seat if table is not None else -1, self.trick, phase, turn,
                        to_pass, self.seat)
