"""The person's side of a game: a bot of the Python SDK whose decisions are asked at the
terminal.

At each request it shows what happened since the person's last decision, the round as the
seat sees it (`arena.presentation.seat_view`) and the legal options, numbered; it reads an
answer (`answers.interpret`), refuses anything illegal with the reason and asks again, asks
for the wish when a play holds the Mah Jong, and replies. Bomb windows are offered as the
`bomb_windows` setting says (see `BOMB_WINDOWS`).
"""

from __future__ import annotations

import os
from typing import Any

from arena import __version__
from arena.cli.human.answers import (
    Ambiguous,
    Answer,
    Command,
    Refused,
    interpret,
    rank_of,
)
from arena.faults import LEFT_EXIT
from arena.presentation.seat_view import (
    BombWindows,
    Seats,
    current_trick,
    event_lines,
    last_chance,
    option_lines,
    option_text,
    play_text,
    state_lines,
    trick_over_since,  # noqa: F401 (moved to seat_view: still importable from here)
)
from protocol.sdk import Bot, pass_turn

Message = dict[str, Any]

BOMB_WINDOWS = {
    "ask": "you are offered a chance to bomb out of turn when you hold a bomb that beats "
           "the table, once per combination played (not on your own) and once more before "
           "the trick is gathered; Enter declines, 'skip' declines the rest of the trick's",
    "every": "you are offered every chance to bomb out of turn, before each turn, whenever "
             "you hold a bomb that beats the table; Enter declines, 'skip' declines the rest "
             "of the trick's",
    "never": "chances to bomb out of turn are declined for you; you bomb on your own turns, "
             "where your bombs are among the plays offered",
}
"""How bomb windows are offered to the person. The referee opens one (PROTOCOL.md section
6) before every turn while a combination lies on the table, and before the trick is
gathered, for each seat holding a bomb that beats it: a seat that keeps a bomb is asked
about four times a trick, forty times a round, mostly about a table it has declined already.
"ask" offers a window only when something new lies on the table or the trick is about to
be gathered, the moments a person would bomb; the others are declined without asking."""
HELP = """\
Answer with the number of an option, or type the cards to play by name: 9s 9t, Tj Qj Kj
(case does not matter; 10 for T; mj, do, ph, dr for Mahjong, Dog, Phoenix, Dragon; the
Phoenix standing for a rank as ph=9, where the cards allow several).
  pass or p    pass (where passing is allowed)
  tichu        add it to a play, a pass or the exchange to call Tichu with it: 3 tichu
  show         show the table again
  skip         in a bomb window: no bomb, and no more windows until this trick ends
  quit         leave the game (your team forfeits)
Cards are written rank then suit: ranks 2-9, T, J, Q, K, A; suits j (Jade), s (Sword),
p (Pagoda), t (Star). Exchange: three cards, in the order shown (next seat, partner, the
seat before you). Grand Tichu and Tichu: y or n (Enter: no)."""

LEGEND = """\
Cards are written rank then suit: ranks 2-9, T (ten), J, Q, K, A.
Suits: j Jade, s Sword, p Pagoda, t Star (Tj is the ten of Jade).
Specials (type them as mj, do, ph, dr):
  Mahjong  the 1: its holder leads the first trick, and may wish for a rank
  Dog      led alone: it passes the lead to your partner
  Phoenix  a single half a rank above the one it beats, or a wild card; -25 points
  Dragon   the highest single: +25 points, its trick given to an opponent
Points: each 5 scores 5, each ten and king 10."""
"""Shown beneath the person's first hand of a game: what each letter and special means."""


class Console:
    """The person's terminal, opened by its path (the bot process's own standard input is
    /dev/null, and its output goes to the game's log, as every bot's)."""

    def __init__(self, path: str) -> None:
        fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
        self._input = open(fd, encoding="utf-8", errors="replace")  # noqa: SIM115 (kept open for the game)
        self._output = open(os.dup(fd), "w", encoding="utf-8", errors="replace")  # noqa: SIM115 (as above)

    def say(self, text: str = "") -> None:
        self._output.write(text + "\n")
        self._output.flush()

    def close(self) -> None:
        self._input.close()
        self._output.close()

    def ask(self, prompt: str) -> str:
        """One line typed after `prompt`, stripped; EOFError at the end of input (Ctrl-D)."""
        self._output.write(prompt)
        self._output.flush()
        line = self._input.readline()
        if not line:
            raise EOFError
        return line.strip()


class HumanPlayer(Bot):
    """A seat played by the person at `console`."""

    name = "human"
    version = __version__

    def __init__(self, console: Console, bomb_windows: str = "ask") -> None:
        if bomb_windows not in BOMB_WINDOWS:
            raise ValueError(f"bomb_windows: one of {', '.join(BOMB_WINDOWS)}")
        self.console = console
        self.bomb_windows = bomb_windows
        self.seats = Seats(0, ["?"] * 4)
        self.shown = 0  # how many of this game's events the person has been shown
        self.windows = BombWindows(bomb_windows)
        self.legend_due = True  # the legend goes with the game's first hand

    def on_welcome(self, welcome: Message) -> None:
        settings = welcome["settings"]
        self.seats = seats = Seats(self.seat, settings["names"])
        self.shown = 0
        self.windows = BombWindows(self.bomb_windows)
        self.legend_due = True
        partner, left, right = (self.seat + 2) % 4, (self.seat + 1) % 4, (self.seat + 3) % 4
        self.console.say(f"Tichu, a game to {settings['target']}. You play seat {self.seat}; "
                         f"your partner is seat {partner} ({seats.names[partner]}); your "
                         f"opponents are seats {left} and {right} ({seats.names[left]}, "
                         f"{seats.names[right]}). Play goes 0, 1, 2, 3. Type ? for help.")
        self.console.say(f"Bomb windows: {BOMB_WINDOWS[self.bomb_windows]}.")

    def on_end(self, end: Message) -> None:
        self._show_events()
        if end["reason"] != "game_over":
            self.console.say("The game was stopped before its end.")
            return
        ours = self.seat & 1
        won = "Your team wins" if end["winner"] == ours else "Your team loses"
        scores = end["scores"]
        self.console.say(f"{won}: {scores[ours]} to {scores[1 - ours]}.")

    def decide(self, request: Message) -> Message:
        trick = current_trick(self.events)
        if request["kind"] == "bomb" and not self._offers_window(request, trick):
            return pass_turn()
        self._show_events()
        if request["kind"] == "bomb":
            self._show_window(request, trick)
        else:
            self._show_table(request, trick)
        try:
            return self._answer(request, trick)
        except EOFError:
            self.console.say("\nEnd of input: you leave the game, and your team forfeits.")
            raise SystemExit(LEFT_EXIT) from None

    # ----- showing ----------------------------------------------------------------------------

    def _show_events(self) -> None:
        lines = event_lines(self.events[self.shown:], self.seats)
        self.shown = len(self.events)
        for line in lines:
            self.console.say("  " + line)

    def _show_table(self, request: Message, trick: list[Message]) -> None:
        self.console.say("")
        for line in state_lines(request["kind"], request["observation"], trick, self.seats):
            self.console.say(line)
        if self.legend_due:
            self.legend_due = False
            self.console.say(LEGEND)
        if request["options"] is not None:
            for line in option_lines(request["kind"], request["options"], self.seats):
                self.console.say(line)

    def _show_window(self, request: Message, trick: list[Message]) -> None:
        """A bomb window, in short (`show` shows the whole table)."""
        obs = request["observation"]
        table = obs["table"]
        when = (f"everyone else has passed: the last chance before "
                f"{self.seats.who(table['seat'])} takes the trick" if last_chance(obs, trick)
                else f"played by {self.seats.who(table['seat'])}")
        self.console.say(f"Bomb window: on the table "
                         f"{play_text(table['cards'], table['combination'], table['phoenix_as'])}"
                         f", {when} ({obs['trick_points']} points in the trick)")
        for line in option_lines("bomb", request["options"], self.seats):
            self.console.say(line)

    # ----- asking -----------------------------------------------------------------------------

    def _answer(self, request: Message, trick: list[Message]) -> Message:
        while True:
            text = self.console.ask(_prompt(request))
            try:
                answer = interpret(text, request, trick)
            except Refused as refusal:
                self.console.say(f"Not allowed: {refusal}. Try again (? for help).")
                continue
            if isinstance(answer, Answer):
                return answer.reply(self._wish() if answer.wants_wish else None)
            if isinstance(answer, Ambiguous):
                self.console.say("Those cards can be played in more than one way; type the "
                                 "number of the one you mean:")
                for number in answer.numbers:
                    option = request["options"][number - 1]
                    self.console.say(f"  {number}) {option_text(option, self.seats)}")
                continue
            if self._command(answer, request, trick):
                return pass_turn()

    def _command(self, command: Command, request: Message, trick: list[Message]) -> bool:
        """Carry out a command; True if it declines the request (a skipped bomb window)."""
        if command.name == "help":
            self.console.say(HELP)
        elif command.name == "show":
            self._show_table(request, trick)
        elif command.name == "skip":
            if request["kind"] == "bomb":
                self.windows.skip(self.events)
                return True
            self.console.say("skip declines bomb windows only; this is not one")
        elif command.name == "quit":
            self._leave()
        return False

    def _leave(self) -> None:
        """Leave the game if the person confirms it: the process exits with LEFT_EXIT, and
        the referee records that the seat left the game (a forfeit, not a crash)."""
        if self.console.ask("Leave the game? Your team forfeits it. y/n> ").lower() in ("y", "yes"):
            self.console.say("You leave the game.")
            raise SystemExit(LEFT_EXIT)

    def _wish(self) -> str | None:
        while True:
            text = self.console.ask("Wish for a rank? 2-9, T, J, Q, K or A (Enter: no wish)> ")
            if not text:
                return None
            rank = rank_of(text)
            if rank is not None:
                return rank
            self.console.say(f"Not allowed: {text!r} is not a rank. Try again.")

    def _offers_window(self, request: Message, trick: list[Message]) -> bool:
        """Whether this bomb window is put to the person (see BOMB_WINDOWS); one that is not
        is declined without asking."""
        return self.windows.offers(request, self.events, trick)


def _prompt(request: Message) -> str:
    kind = request["kind"]
    seat = request["observation"]["seat"]
    tichu = ", tichu to call Tichu with it" if request["may_call_tichu"] else ""
    if kind == "grand_tichu":
        return "Grand Tichu? y/n (Enter: no)> "
    if kind == "tichu":
        return "Tichu? y/n (Enter: no)> "
    if kind == "exchange":
        return (f"Exchange: give three cards, to seat {(seat + 1) % 4}, to your partner "
                f"(seat {(seat + 2) % 4}), to seat {(seat + 3) % 4}{tichu}> ")
    if kind == "bomb":
        return (f"Bomb now? a number or cards (Enter: no bomb; skip: none this trick; show: "
                f"the table{tichu})> ")
    if kind == "dragon_gift":
        return "Dragon: give the trick to which opponent? 1 or 2> "
    lead = request["observation"]["table"] is None
    return (f"{'You lead' if lead else 'Your turn'}: a number, cards"
            f"{'' if lead else ' or pass'}{tichu}> ")
