"""Replays of game records: every round's hands, exchange, calls and tricks, play by play.

`build_replay(record, seat=None)` turns a record's events into a `Replay`: a value per round
(`RoundReplay`) holding the hands dealt, the Grand Tichu decisions, the exchange, the hands
after it, the Tichu calls made before the first play, and each `Trick` as a list of `Step`s
(plays, bombs, passes, calls, wishes, the Dog's hand-over, seats going out) with how the
trick ended (gathered, given away with the Dragon, or left on the table by a double
victory). With `seat`, the replay holds only what that seat could see when the game was
played: its own cards and exchange, and the public events; every other seat's cards are
None ("hidden"). `render_replay` writes it as text.

The record's events are the referee's own, each tagged with who could see it, so a seat's
view is exactly the events sent to that seat.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from arena.presentation.safe import terminal
from arena.presentation.summary import team_lines
from arena.referee.record import GameRecord
from arena.rules import PUBLIC
from arena.rules.cards import parse_card

Cards = tuple[str, ...]


class StepKind(Enum):
    """The closed set of things a trick's play-by-play shows."""

    PLAY = "play"                      # a play on the seat's regular turn (a lead included)
    BOMB = "bomb"                      # a bomb played out of turn, in a bomb window
    PASS = "pass"
    TICHU = "tichu"                    # a Tichu call made with a play, pass or bomb decision
    WISH = "wish"                      # the Mah Jong's player wishes a rank
    WISH_FULFILLED = "wish_fulfilled"
    DOG = "dog"                        # the Dog hands the lead to seat `to`
    OUT = "out"                        # the seat played its last card: finished `place`


@dataclass(frozen=True)
class Step:
    """One thing that happened in a trick, in order."""

    kind: StepKind
    seat: int
    cards: Cards = ()
    """The cards played (PLAY, BOMB), ascending."""
    combination: str = ""
    """The combination's wire name, e.g. ``"full_house"`` (PLAY, BOMB)."""
    phoenix_as: str | None = None
    """The rank the Phoenix stands for in the combination, if it holds the Phoenix."""
    rank: str | None = None
    """The wished rank (WISH, WISH_FULFILLED)."""
    to: int | None = None
    """The seat that receives the lead (DOG)."""
    place: int | None = None
    """1 for the first seat out (OUT)."""


@dataclass
class Trick:
    """One trick: who led it, what happened, and how it ended."""

    number: int
    leader: int
    steps: list[Step] = field(default_factory=list)
    winner: int | None = None
    """The seat of the trick's last play, once gathered (None: the Dog's trick, or one left
    on the table when the round ended by a double victory or the game was stopped)."""
    taker: int | None = None
    """The seat that took the cards: the winner, or the opponent given a Dragon trick."""
    cards: Cards = ()
    points: int = 0


@dataclass(frozen=True)
class RoundEnd:
    """The score of a round, as its `round_end` event says."""

    out_order: tuple[int, ...]
    double_victory: bool
    card_points: tuple[int, int]
    calls: tuple[int, int]
    scores: tuple[int, int]


@dataclass
class RoundReplay:
    """One round, as the chosen view saw it; None in a per-seat tuple means hidden."""

    number: int
    scores_before: tuple[int, int]
    first_eight: list[Cards | None] = field(default_factory=lambda: [None] * 4)
    last_six: list[Cards | None] = field(default_factory=lambda: [None] * 4)
    grand_tichu: list[bool] | None = None
    """The four Grand Tichu decisions; None if the round stopped before they were known."""
    given: list[Cards | None] = field(default_factory=lambda: [None] * 4)
    """What each seat gave at the exchange: to seat+1, its partner, seat+3."""
    received: list[Cards | None] = field(default_factory=lambda: [None] * 4)
    """What each seat received: from seat+1, its partner, seat+3."""
    tichu_before_play: list[int] = field(default_factory=list)
    """Seats that called Tichu with the exchange or in the window after it."""
    tricks: list[Trick] = field(default_factory=list)
    end: RoundEnd | None = None

    def hand_after_exchange(self, seat: int) -> Cards | None:
        """The 14 cards `seat` held when play began; None if hidden in this view."""
        first, last = self.first_eight[seat], self.last_six[seat]
        given, received = self.given[seat], self.received[seat]
        if first is None or last is None or given is None or received is None:
            return None
        held = (set(first) | set(last) | set(received)) - set(given)
        return tuple(sorted(held, key=parse_card))


@dataclass
class Replay:
    """A game record as rounds of play by play, from every seat's view or from one seat's."""

    record: GameRecord
    seat: int | None
    """The seat whose view this is; None: every seat's cards are shown."""
    rounds: list[RoundReplay] = field(default_factory=list)

    def seat_name(self, seat: int) -> str:
        """Who played `seat` as the record names it (escape it for a terminal)."""
        return self.record.seat_name(seat)


def build_replay(record: GameRecord, seat: int | None = None) -> Replay:
    """The replay of `record`, seen by `seat` (0..3), or by an onlooker seeing all (None)."""
    if seat is not None and seat not in range(4):
        raise ValueError(f"seat {seat}: a seat is 0..3")
    builder = _Builder(Replay(record, seat))
    for event in record.events:
        if seat is None or event["visible_to"] in (PUBLIC, seat):
            builder.take(event)
    return builder.replay


class _Builder:
    """Folds the record's events, in order, into rounds and tricks."""

    def __init__(self, replay: Replay) -> None:
        self.replay = replay
        self.trick: Trick | None = None  # the trick being played, if any

    @property
    def round(self) -> RoundReplay:
        return self.replay.rounds[-1]

    def take(self, event: dict[str, Any]) -> None:
        kind = event["kind"]
        if kind == "round_start":
            self.replay.rounds.append(RoundReplay(event["round"], tuple(event["scores"])))
            self.trick = None
        elif kind in _ROUND_EVENTS:
            _ROUND_EVENTS[kind](self.round, event)
        elif kind == "tichu" and not self.round.tricks:
            self.round.tichu_before_play.append(event["seat"])
        elif kind == "play":
            self._play(event)
        elif kind == "trick":
            self._gathered(event)
        elif kind == "round_end":
            self.round.end = RoundEnd(tuple(event["out_order"]), event["double_victory"],
                                      tuple(event["card_points"]), tuple(event["calls"]),
                                      tuple(event["scores"]))
            self.trick = None
        elif kind in _STEP_OF:
            self._step(_STEP_OF[kind](event))
            if kind == "dog":
                self.trick = None

    def _play(self, event: dict[str, Any]) -> None:
        if self.trick is None:
            self.trick = Trick(len(self.round.tricks) + 1, event["seat"])
            self.round.tricks.append(self.trick)
        kind = StepKind.BOMB if event["out_of_turn"] else StepKind.PLAY
        self.trick.steps.append(Step(kind, event["seat"], tuple(event["cards"]),
                                     event["combination"], event["phoenix_as"]))

    def _step(self, step: Step) -> None:
        if self.trick is None:  # a call before a lead: it belongs to the trick it opens
            self.trick = Trick(len(self.round.tricks) + 1, step.seat)
            self.round.tricks.append(self.trick)
        self.trick.steps.append(step)

    def _gathered(self, event: dict[str, Any]) -> None:
        trick = self.trick if self.trick is not None else self.round.tricks[-1]
        trick.winner, trick.taker = event["seat"], event["taker"]
        trick.cards, trick.points = tuple(event["cards"]), event["points"]
        self.trick = None


def _deal(round_: RoundReplay, event: dict[str, Any]) -> None:
    seat = event["seat"]
    cards = tuple(event["cards"])
    if round_.first_eight[seat] is None:
        round_.first_eight[seat] = cards
    else:
        round_.last_six[seat] = cards


def _grand_tichu(round_: RoundReplay, event: dict[str, Any]) -> None:
    if round_.grand_tichu is None:
        round_.grand_tichu = [False] * 4
    round_.grand_tichu[event["seat"]] = event["call"]


def _exchange(round_: RoundReplay, event: dict[str, Any]) -> None:
    round_.given[event["seat"]] = tuple(event["given"])
    round_.received[event["seat"]] = tuple(event["received"])


_ROUND_EVENTS = {"deal": _deal, "grand_tichu": _grand_tichu, "exchange": _exchange}
_STEP_OF = {
    "pass": lambda e: Step(StepKind.PASS, e["seat"]),
    "tichu": lambda e: Step(StepKind.TICHU, e["seat"]),
    "wish": lambda e: Step(StepKind.WISH, e["seat"], rank=e["rank"]),
    "wish_fulfilled": lambda e: Step(StepKind.WISH_FULFILLED, e["seat"], rank=e["rank"]),
    "dog": lambda e: Step(StepKind.DOG, e["seat"], to=e["to"]),
    "out": lambda e: Step(StepKind.OUT, e["seat"], place=e["place"]),
}


# ----- text ---------------------------------------------------------------------------------

COMBINATION_WORDS = {
    "dog": "the Dog", "single": "single", "pair": "pair", "stairs": "stairs",
    "triple": "triple", "full_house": "full house", "straight": "straight",
    "four_bomb": "bomb: four of a kind", "straight_flush": "bomb: straight flush",
}
_PLACES = {1: "first", 2: "second", 3: "third", 4: "fourth"}


def render_replay(replay: Replay, rounds: Iterable[int] | None = None) -> list[str]:
    """The replay as lines of text; `rounds` picks round numbers (default: every round)."""
    wanted = None if rounds is None else set(rounds)
    lines = _header(replay)
    for round_ in replay.rounds:
        if wanted is None or round_.number in wanted:
            lines += [""] + _round_lines(replay, round_)
    return lines


def _header(replay: Replay) -> list[str]:
    record = replay.record
    view = ("every seat's cards shown" if replay.seat is None else
            f"what seat {replay.seat} ({terminal(replay.seat_name(replay.seat))}) could see: "
            "its own cards and the public events")
    return [f"Game {terminal(record.game_id)}, seed {record.seed}, target {record.target}",
            *team_lines(record), f"  view: {view}"]


def _round_lines(replay: Replay, round_: RoundReplay) -> list[str]:
    before = round_.scores_before
    lines = [f"Round {round_.number} (score before it {before[0]}:{before[1]})"]
    lines += _hands(replay, round_)
    lines += _calls_and_exchange(replay, round_)
    for trick in round_.tricks:
        lines += _trick_lines(trick, finished=round_.end is not None)
    lines += _end_lines(round_)
    return lines


def _cards(cards: Cards | None) -> str:
    return " ".join(cards) if cards else "-"


def _seats(replay: Replay) -> list[int]:
    return list(range(4)) if replay.seat is None else [replay.seat]


def _hands(replay: Replay, round_: RoundReplay) -> list[str]:
    lines = ["  Cards dealt (the first 8, on which Grand Tichu is decided | the other 6):"]
    for seat in _seats(replay):
        lines.append(f"    seat {seat}: {_cards(round_.first_eight[seat])} | "
                     f"{_cards(round_.last_six[seat])}")
    if replay.seat is not None:
        lines.append("    the other seats' cards are hidden in this view")
    return lines


def _calls_and_exchange(replay: Replay, round_: RoundReplay) -> list[str]:
    lines = []
    if round_.grand_tichu is not None:
        callers = [s for s in range(4) if round_.grand_tichu[s]]
        lines.append("  Grand Tichu: " + (", ".join(f"seat {s} calls" for s in callers)
                                          if callers else "nobody calls"))
    shown = [s for s in _seats(replay) if round_.given[s] is not None]
    if shown:
        lines.append("  Exchange (one card to each other seat):")
    for seat in shown:
        given, received = round_.given[seat], round_.received[seat]
        assert given is not None and received is not None  # (an exchange seen: both)
        to = ", ".join(f"{c} to seat {(seat + 1 + i) % 4}" for i, c in enumerate(given))
        got = ", ".join(f"{c} from seat {(seat + 1 + i) % 4}" for i, c in enumerate(received))
        lines += [f"    seat {seat} gives {to}", f"           receives {got}"]
    if shown:
        lines.append("  Cards when play begins:")
        lines += [f"    seat {s}: {_cards(round_.hand_after_exchange(s))}" for s in shown]
    if round_.tichu_before_play:
        lines.append("  Tichu before the first play: "
                     + ", ".join(f"seat {s} calls" for s in round_.tichu_before_play))
    return lines


def _trick_lines(trick: Trick, finished: bool) -> list[str]:
    lines = [f"  Trick {trick.number}, led by seat {trick.leader}:"]
    lines += [f"    {_step_text(step)}" for step in trick.steps]
    if trick.taker is None:
        if trick.steps and trick.steps[-1].kind is not StepKind.DOG:
            lines.append("    the trick is not gathered: " + ("the round ends first (double "
                         "victory)" if finished else "the game stopped"))
    else:
        if trick.taker == trick.winner:
            lines.append(f"    seat {trick.winner} takes the trick: {trick.points} points")
        else:
            lines.append(f"    seat {trick.winner} won the trick with the Dragon and gives it "
                         f"to seat {trick.taker}: {trick.points} points")
    return lines


def _step_text(step: Step) -> str:
    who = f"seat {step.seat}"
    kind = step.kind
    if kind in (StepKind.PLAY, StepKind.BOMB):
        if step.combination == "dog":
            return f"{who} leads the Dog"
        words = COMBINATION_WORDS.get(step.combination, step.combination)
        phoenix = f", the Phoenix as {step.phoenix_as}" if step.phoenix_as else ""
        verb = "bombs out of turn with" if kind is StepKind.BOMB else "plays"
        return f"{who} {verb} {_cards(step.cards)} ({words}{phoenix})"
    if kind is StepKind.PASS:
        return f"{who} passes"
    if kind is StepKind.TICHU:
        return f"{who} calls Tichu"
    if kind is StepKind.WISH:
        return f"{who} wishes for the rank {step.rank}"
    if kind is StepKind.WISH_FULFILLED:
        return f"{who} fulfils the wish for the rank {step.rank}"
    if kind is StepKind.DOG:
        return f"the Dog hands the lead to seat {step.to}"
    place = step.place
    assert place is not None  # (the one field of an OUT step)
    return f"{who} is out ({_PLACES.get(place, place)})"


def _end_lines(round_: RoundReplay) -> list[str]:
    end = round_.end
    if end is None:
        return ["  The round was not finished (the game stopped here)."]
    out = ", ".join(f"seat {s}" for s in end.out_order)
    how = (f"double victory for team {end.out_order[0] & 1}" if end.double_victory
           else f"seat {_last(end.out_order)} is last")
    cards, calls, scores = end.card_points, end.calls, end.scores
    return [f"  Round {round_.number} ends: out in the order {out}; {how}",
            f"    card points {cards[0]}:{cards[1]}, calls {calls[0]:+}:{calls[1]:+}, "
            f"round {cards[0] + calls[0]}:{cards[1] + calls[1]}, score {scores[0]}:{scores[1]}"]


def _last(out_order: tuple[int, ...]) -> int:
    return next(s for s in range(4) if s not in out_order)
