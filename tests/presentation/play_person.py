"""How the tests' person plays a seat game: a fixed, simple way, so that a game is the same
each time (the house bots are seeded) and the test knows which reply each of its clicks must
make. `Person.intended` is that reply; `Windows` is the server's side of the bomb windows (the
person's choice of "ask", "every", "never", as `arena.cli.human.player` offers them), and
`Person.skipping` the page's (after "skip", the rest of the trick's windows are declined)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arena.presentation.seat_view import current_trick, sorted_cards

Message = dict[str, Any]
WISH = "7"


@dataclass(frozen=True)
class Intended:
    """A reply as the page must post it, and whether it is the 'skip' button's."""

    action: Message
    call_tichu: bool = False
    wish: str | None = None
    skip: bool = False


_TRICK_ENDS = ("trick", "dog", "round_start", "round_end")


def trick_over_since(events: list[Message], start: int) -> bool:
    """Whether a trick (or a round) ended in `events` from index `start` on."""
    return any(e["kind"] in _TRICK_ENDS for e in events[start:])


def last_chance(observation: Message, trick: list[Message]) -> bool:
    """Whether every other seat holding cards has passed on the table's combination."""
    plays = [i for i, e in enumerate(trick) if e["kind"] == "play"]
    if not plays:
        return False
    passed = {e["seat"] for e in trick[plays[-1] + 1:] if e["kind"] == "pass"}
    top = observation["table"]["seat"]
    holding = {s for s, n in enumerate(observation["hand_counts"]) if n and s != top}
    return holding <= passed


@dataclass
class Windows:
    """Which bomb windows the server puts to the person, by their choice (the others it
    declines for them), as `arena.cli.human.player.HumanPlayer` does."""

    choice: str = "ask"
    offered_table: Message | None = None
    offered_at: int = 0

    def offers(self, request: Message, events: list[Message]) -> bool:
        if self.choice != "ask":
            return self.choice == "every"
        table = request["observation"]["table"]
        if table["seat"] == request["observation"]["seat"]:
            return False
        fresh = table != self.offered_table or trick_over_since(events, self.offered_at)
        if fresh or last_chance(request["observation"], current_trick(events)):
            self.offered_table, self.offered_at = table, len(events)
            return True
        return False


@dataclass
class Person:
    """The tests' person: no Grand Tichu; Tichu in the first round's Tichu decision, and
    with the second round's exchange; gives its three lowest cards; plays the first legal play offered, else passes; wishes for a 7; bombs at
    its first bomb window, skips the rest of the trick at its second, declines the others;
    gives the Dragon's trick to the next opponent."""

    windows: int = 0
    skip_from: int | None = None

    def skipping(self, events: list[Message]) -> bool:
        """Whether the page declines a bomb window itself: one after "skip", in its trick."""
        if self.skip_from is None:
            return False
        if not trick_over_since(events, self.skip_from):
            return True
        self.skip_from = None
        return False

    def intended(self, request: Message, events: list[Message]) -> Intended:
        """The reply to a request put to the person (`events`: the seat's, so far)."""
        kind, options = request["kind"], request["options"]
        observation = request["observation"]
        if kind == "grand_tichu":
            return Intended(options[0])
        if kind == "tichu":
            return Intended(options[1] if observation["round"] == 1 else options[0])
        if kind == "exchange":  # Tichu called with the second round's exchange
            call = observation["round"] == 2 and request["may_call_tichu"]
            return Intended({"action": "exchange",
                             "give": sorted_cards(observation["hand"])[:3]}, call_tichu=call)
        if kind == "dragon_gift":
            return Intended(options[0])
        if kind == "bomb":
            self.windows += 1
            if self.windows == 1:
                return Intended(options[1])
            if self.windows == 2:
                self.skip_from = len(events)
                return Intended(options[0], skip=True)
            return Intended(options[0])
        play = next((o for o in options if o["action"] == "play"), options[0])
        return Intended(play, wish=WISH if "Mahjong" in play.get("cards", ()) else None)


@dataclass
class Kinds:
    """Which kinds of decision a game put to the person, counted."""

    seen: dict[str, int] = field(default_factory=dict)

    def add(self, request: Message, intended: Intended) -> None:
        kind = request["kind"]
        if kind == "play":
            kind = "lead" if request["observation"]["table"] is None else "follow"
        if intended.wish:
            kind = "wish"
        if intended.skip:
            kind = "skip"
        if intended.call_tichu:
            kind = "call_tichu"
        self.seen[kind] = self.seen.get(kind, 0) + 1
