"""What one seat sees of a game, as text for a person playing it (`arena play human`).

Built from the protocol's own maps (a request's observation and options, the events a seat
receives), so it shows exactly what the seat may know: the hand sorted by strength and
grouped by rank, the current trick with who played what, the combination to beat, the calls,
the card points each seat has taken, the cards each seat has left, the wish, the scores; the
events since the seat's last decision, one line each; and the legal options, numbered from 1.

The names it shows come from the referee's `welcome` (entrant names, checked at intake) and
are escaped for the terminal all the same.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from arena.presentation.replay import COMBINATION_WORDS
from arena.presentation.safe import terminal
from arena.rules.cards import RANK_CHARS, SUIT_LETTERS

Message = dict[str, Any]
_SPECIAL_STRENGTH = {"Dog": 0.0, "Mahjong": 1.0, "Phoenix": 14.5, "Dragon": 15.0}
_PLACES = {1: "first", 2: "second", 3: "third", 4: "fourth"}
_TRICK_ENDS = ("trick", "dog", "round_start", "round_end")
_IN_A_TRICK = ("play", "pass", "wish", "wish_fulfilled", "out", "tichu")


# ----- cards --------------------------------------------------------------------------------

def strength(card: str) -> float:
    """A card's place in a sorted hand: the Dog, the Mah Jong, 2 to A, the Phoenix, the
    Dragon (suits, which never rank, in the wire's order within a rank)."""
    special = _SPECIAL_STRENGTH.get(card)
    if special is not None:
        return special
    return RANK_CHARS.index(card[0]) + 2 + SUIT_LETTERS.index(card[1]) / 10


def sorted_cards(cards: Iterable[str]) -> list[str]:
    return sorted(cards, key=strength)


def cards_text(cards: Iterable[str]) -> str:
    """Cards sorted by strength, separated by spaces."""
    return " ".join(sorted_cards(cards)) or "-"


def hand_text(cards: Iterable[str]) -> str:
    """A hand sorted by strength, cards of one rank together and ranks set apart."""
    groups: list[list[str]] = []
    for card in sorted_cards(cards):
        if groups and _rank(groups[-1][-1]) == _rank(card):
            groups[-1].append(card)
        else:
            groups.append([card])
    return "   ".join(" ".join(group) for group in groups) or "(no cards)"


def a_rank(rank: str) -> str:
    """A rank with its article: ``a 9``, ``an 8``, ``an A``."""
    return f"an {rank}" if rank in ("8", "A") else f"a {rank}"


def _rank(card: str) -> str:
    return card if card in _SPECIAL_STRENGTH else card[0]


def play_text(cards: Sequence[str], combination: str | None, phoenix_as: str | None) -> str:
    """A play as people say it: ``9s 9t (pair)``, ``5p Phoenix (pair, the Phoenix as 5)``."""
    if combination == "dog":
        return "the Dog"
    words = COMBINATION_WORDS.get(combination or "", combination or "")
    phoenix = f", the Phoenix as {phoenix_as}" if phoenix_as else ""
    return f"{cards_text(cards)} ({words}{phoenix})"


# ----- seats --------------------------------------------------------------------------------

class Seats:
    """How the seats are named to the person at `me`: "you", and the others by number."""

    def __init__(self, me: int, names: Sequence[str]) -> None:
        self.me = me
        self.names = [terminal(n) for n in names]

    def who(self, seat: int) -> str:
        """``seat 0 (you)``, ``seat 2 (partner)``, ``seat 1``."""
        role = self.role(seat)
        return f"seat {seat} ({role})" if seat == self.me or role == "partner" else f"seat {seat}"

    def role(self, seat: int) -> str:
        if seat == self.me:
            return "you"
        return "partner" if seat == (self.me + 2) % 4 else "opponent"

    def player(self, seat: int) -> str:
        """``you``, ``heuristic, partner``, ``heuristic, opponent``."""
        if seat == self.me:
            return "you"
        return f"{self.names[seat]}, {self.role(seat)}"


# ----- events -------------------------------------------------------------------------------

def event_lines(events: Iterable[Message], seats: Seats) -> list[str]:
    """What happened, one line per event that a person needs to see (a Grand Tichu
    declined is not shown, nor the cards dealt: the hand is)."""
    lines = []
    for event in events:
        line = _event_line(event, seats)
        if line:
            lines.append(line)
    return lines


def _event_line(event: Message, seats: Seats) -> str:
    kind = event["kind"]
    who = seats.who(event["seat"]) if "seat" in event else ""
    if kind == "round_start":
        a, b = event["scores"]
        return f"== Round {event['round']} begins (score {a}:{b}) =="
    if kind == "grand_tichu":
        return f"{who} calls Grand Tichu" if event["call"] else ""
    if kind == "tichu":
        return f"{who} calls Tichu"
    if kind == "exchange":
        return _exchange_line(event, seats)
    if kind == "play":
        verb = "bombs out of turn with" if event["out_of_turn"] else (
            "leads" if event["combination"] == "dog" else "plays")
        return f"{who} {verb} {play_text(event['cards'], event['combination'], event['phoenix_as'])}"
    if kind == "pass":
        return f"{who} passes"
    if kind == "wish":
        return f"{who} wishes for {a_rank(event['rank'])}"
    if kind == "wish_fulfilled":
        return f"{who} fulfils the wish for {a_rank(event['rank'])}"
    if kind == "dog":
        return f"the Dog hands the lead to {seats.who(event['to'])}"
    if kind == "trick":
        return _trick_line(event, seats)
    if kind == "out":
        return f"{who} is out ({_PLACES.get(event['place'], event['place'])})"
    if kind == "round_end":
        return _round_end_line(event, seats)
    if kind == "game_end":
        a, b = event["scores"]
        return f"== Game over: team {event['winner']} wins, {a}:{b} =="
    return ""


def _exchange_line(event: Message, seats: Seats) -> str:
    me = event["seat"]
    given = ", ".join(f"{c} to {seats.who((me + 1 + i) % 4)}"
                      for i, c in enumerate(event["given"]))
    received = ", ".join(f"{c} from {seats.who((me + 1 + i) % 4)}"
                         for i, c in enumerate(event["received"]))
    return f"exchange: you gave {given}; you received {received}"


def _trick_line(event: Message, seats: Seats) -> str:
    winner, taker, points = event["seat"], event["taker"], event["points"]
    if taker == winner:
        return f"{seats.who(winner)} takes the trick ({points} points)"
    return (f"{seats.who(winner)} won the trick with the Dragon and gives it to "
            f"{seats.who(taker)} ({points} points)")


def _round_end_line(event: Message, seats: Seats) -> str:
    cards, calls, scores = event["card_points"], event["calls"], event["scores"]
    double = ", a double victory" if event["double_victory"] else ""
    return (f"== Round over{double}: card points {cards[0]}:{cards[1]}, calls "
            f"{calls[0]:+}:{calls[1]:+}; score {scores[0]}:{scores[1]} ==")


def current_trick(events: Iterable[Message]) -> list[Message]:
    """The events of the trick being played (plays, passes, calls, wish, seats going out),
    in order: those since the last trick was gathered, the Dog played or a round began."""
    trick: list[Message] = []
    for event in events:
        kind = event["kind"]
        if kind in _TRICK_ENDS:
            trick = []
        elif kind in _IN_A_TRICK and (kind != "tichu" or trick):
            trick.append(event)
    return trick


# ----- the state of the round ---------------------------------------------------------------

def state_lines(kind: str, observation: Message, trick: Sequence[Message], seats: Seats
                ) -> list[str]:
    """The round as the seat sees it at a decision of `kind`: scores, the seats' cards,
    points and calls, then (once play has begun) the wish, the trick so far and what is to
    beat, and the hand."""
    obs = observation
    me = seats.me
    ours, theirs = obs["scores"][me & 1], obs["scores"][1 - (me & 1)]
    lines = [f"Round {obs['round']}: score {ours} (your team) : {theirs} (theirs), "
             f"target {obs['target']}",
             f"  {'seat':<5}{'player':<28}{'cards':>5}{'points':>8}  calls"]
    for seat in range(4):
        lines.append(f"  {seat:<5}{seats.player(seat):<28}{obs['hand_counts'][seat]:>5}"
                     f"{obs['points_taken'][seat]:>8}  {_calls(obs, seat)}".rstrip())
    if kind in ("play", "bomb", "dragon_gift"):
        if obs["wish"] is not None:
            lines.append(f"Wish in force: {obs['wish']} (whoever can play "
                         f"{a_rank(obs['wish'])} on their turn must)")
        lines += _trick_lines(obs, trick, seats)
    lines.append(f"Your hand ({len(obs['hand'])}):  {hand_text(obs['hand'])}")
    return lines


def _calls(obs: Message, seat: int) -> str:
    calls = []
    if obs["grand_tichu"][seat]:
        calls.append("Grand Tichu")
    if obs["tichu"][seat]:
        calls.append("Tichu")
    if seat in obs["out_order"]:
        calls.append(f"out {_PLACES[obs['out_order'].index(seat) + 1]}")
    return ", ".join(calls)


def _trick_lines(obs: Message, trick: Sequence[Message], seats: Seats) -> list[str]:
    table = obs["table"]
    if table is None:
        return ["Trick: the table is empty"]
    steps = [f"    {line}" for line in event_lines(trick, seats)]
    return [f"Trick so far ({obs['trick_points']} points):", *steps,
            f"To beat: {play_text(table['cards'], table['combination'], table['phoenix_as'])}"
            f", played by {seats.who(table['seat'])}"]


# ----- options ------------------------------------------------------------------------------

def option_text(option: Message, seats: Seats) -> str:
    """One option of a request, as a person reads it."""
    action = option["action"]
    if action == "pass":
        return "pass"
    if action == "play":
        return play_text(option["cards"], option.get("combination"), option["phoenix_as"])
    if action == "grand_tichu":
        return "call Grand Tichu (+200 or -200)" if option["call"] else "no Grand Tichu"
    if action == "tichu":
        return "call Tichu (+100 or -100)" if option["call"] else "no Tichu"
    if action == "give_dragon":
        return f"give the trick to {seats.who(option['to'])}"
    return terminal(str(option))


def option_lines(kind: str, options: Sequence[Message], seats: Seats) -> list[str]:
    """The numbered options (from 1). Plays are grouped by combination, several to a line,
    since a lead can offer a hundred; the other kinds take a line each."""
    if kind not in ("play", "bomb"):
        return [f"  {i}) {option_text(option, seats)}" for i, option in enumerate(options, 1)]
    lines: list[str] = []
    groups: dict[str, list[str]] = {}
    for i, option in enumerate(options, 1):
        if option["action"] == "pass":
            lines.append(f"  {i}) " + ("no bomb" if kind == "bomb" else "pass"))
            continue
        group = COMBINATION_WORDS.get(option.get("combination") or "", "play")
        groups.setdefault(group, []).append(f"{i}) {_short_play(option)}")
    for group, entries in groups.items():
        lines += _wrapped(f"  {group}:", entries)
    return lines


def _short_play(option: Message) -> str:
    """An option's cards, the Phoenix with the rank it stands for: ``5p Phoenix=5``."""
    phoenix_as = option["phoenix_as"]
    return " ".join(f"Phoenix={phoenix_as}" if card == "Phoenix" and phoenix_as else card
                    for card in sorted_cards(option["cards"]))


def _wrapped(head: str, entries: list[str], width: int = 96) -> list[str]:
    lines, line = [], head
    for entry in entries:
        if len(line) + 3 + len(entry) > width and line != head:
            lines.append(line)
            line = " " * len(head)
        line += "   " + entry
    lines.append(line)
    return lines


class BombWindows:
    """Which bomb windows are put to a person, as `choice` says ("ask", "every" or "never":
    `arena.cli.human.player.BOMB_WINDOWS` says what each means); the others are declined
    for them. `skip` declines the rest of the current trick's."""

    def __init__(self, choice: str) -> None:
        self.choice = choice
        self.skip_from: int | None = None  # 'skip' said at this event: no window this trick
        self.offered: Message | None = None  # the table of the last window offered,
        self.offered_at = 0                   # when (events seen then)

    def skip(self, events: Sequence[Message]) -> None:
        """No more windows until the trick (or the round) ends."""
        self.skip_from = len(events)

    def offers(self, request: Message, events: Sequence[Message],
               trick: Sequence[Message]) -> bool:
        """Whether the window `request` is put to the person, who has seen `events`."""
        if self.choice == "never":
            return False
        if self.skip_from is not None:
            if trick_over_since(events, self.skip_from):
                self.skip_from = None
            else:
                return False
        if self.choice == "every":
            return True
        obs = request["observation"]
        table = obs["table"]
        if table["seat"] == obs["seat"]:
            return False  # on its own play, a bomb would only take its own trick
        fresh = table != self.offered or trick_over_since(events, self.offered_at)
        if fresh or last_chance(obs, trick):
            self.offered, self.offered_at = table, len(events)
            return True
        return False


def trick_over_since(events: Sequence[Message], start: int) -> bool:
    """Whether a trick ended (or a round) in `events` from index `start` on."""
    return any(e["kind"] in _TRICK_ENDS for e in events[start:])


def last_chance(observation: Message, trick: Sequence[Message]) -> bool:
    """Whether a bomb window is the last before the trick is gathered: every other seat
    holding cards has passed on the combination on the table."""
    last_play = max((i for i, e in enumerate(trick) if e["kind"] == "play"), default=None)
    if last_play is None:
        return False
    passed = {e["seat"] for e in trick[last_play + 1:] if e["kind"] == "pass"}
    top = observation["table"]["seat"]
    holding = {s for s, n in enumerate(observation["hand_counts"]) if n and s != top}
    return holding <= passed


_TRICK_ENDS = ("trick", "dog", "round_start", "round_end")
