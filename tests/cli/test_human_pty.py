"""`arena play human BOT` as a person plays it: the command runs on a pseudo-terminal (its
controlling terminal, as in a shell), a typist answers every prompt to the end of the game,
typing cards by name now and then and some illegal answers, which must be refused with
their reason; then the game's record replays with `arena replay`."""

from __future__ import annotations

import fcntl
import os
import re
import struct
import subprocess
import sys
import termios

import pytest
from click.testing import CliRunner

from arena.cli.main import main
from arena.rules.cards import card_name
from tests.cli.typist import Screen, Typist
from tests.pace import play_options
from tests.processes import TAG_VAR, bot_processes
from tests.referee.conftest import ROOT

pytestmark = pytest.mark.timeout(600)


class Person:
    """Plays simply (the first option, Enter for no call and no bomb), but types cards by
    name at every third turn, and once each: a card not held, too few cards to exchange, and
    a card that does not beat the table."""

    def __init__(self) -> None:
        self.turns = 0
        self.typed: list[str] = []
        self.tried: dict[str, str] = {}  # what illegal answer was typed, by what it tests
        self.due: str | None = None  # the refusal the next screen must show
        self.options: dict[int, str] = {}
        self.hand: list[str] = []

    def __call__(self, screen: Screen, typist: Typist) -> str:
        if self.due is not None:
            assert f"Not allowed: {self.due}" in screen.text, screen.text[-2000:]
            self.due = None
        self.options = screen.options() or self.options
        self.hand = screen.hand() or self.hand
        prompt = screen.prompt
        if prompt.startswith("Exchange"):
            return self._illegal("exchange", "give exactly three cards",
                                 " ".join(self.hand[:2])) or " ".join(self.hand[:3])
        if prompt.startswith(("You lead", "Your turn")):
            return self._turn(screen)
        if prompt.startswith("Dragon"):
            return "1"
        return ""  # no Grand Tichu, no Tichu, no bomb, no wish

    def _illegal(self, what: str, reason: str, answer: str) -> str | None:
        if what in self.tried:
            return None
        self.tried[what] = answer
        self.due = reason
        return answer

    def _turn(self, screen: Screen) -> str:
        self.turns += 1
        missing = next(card_name(c) for c in range(52) if card_name(c) not in self.hand)
        answer = self._illegal("not held", f"you do not hold {missing}", missing)
        if answer:
            return answer
        below = self._below_the_table(screen)
        if below:
            answer = self._illegal("does not beat", "it does not beat", below)
            if answer:
                return answer
        singles = [cards for n, cards in sorted(self.options.items())
                   if re.fullmatch(r"[2-9TJQKA][jspt]", cards)]
        if singles and self.turns % 3 == 0:
            self.typed.append(singles[0])
            return singles[0].upper()  # typed by name, in the wrong case
        return "1"

    def _below_the_table(self, screen: Screen) -> str | None:
        """A held card lower than a single card on the table, if there is one."""
        table = re.search(r"To beat: ([2-9TJQKA])[jspt] \(single\)", screen.text)
        if table is None:
            return None
        order = "23456789TJQKA"
        return next((c for c in self.hand if c[0] in order
                     and order.index(c[0]) < order.index(table[1])), None)


def human_processes() -> list[int]:
    """Pids of the running test's human-seat programs still alive (not zombies)."""
    tag = f"{TAG_VAR}={os.environ.get(TAG_VAR, '')}".encode()
    pids = []
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{name}/cmdline", "rb") as cmdline:
                if b"arena.cli.human" not in cmdline.read():
                    continue
            with open(f"/proc/{name}/environ", "rb") as environ:
                if tag not in environ.read().split(b"\0"):
                    continue
            with open(f"/proc/{name}/stat") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] != "Z":
                    pids.append(int(name))
        except OSError:
            continue
    return pids


def play_on_a_terminal(args: list[str], policy) -> tuple[Typist, int]:
    """Run `arena ARGS` with a pseudo-terminal as its controlling terminal, answered by
    `policy`; the typist and the exit status."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 120, 0, 0))

    def controlling_terminal() -> None:  # in the child: a session of its own, this terminal
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    proc = subprocess.Popen([sys.executable, "-m", "arena.cli.main", *args], stdin=slave,
                            stdout=slave, stderr=slave, start_new_session=True,
                            preexec_fn=controlling_terminal, cwd=ROOT)
    os.close(slave)
    typist = Typist(master, policy)
    try:
        typist.run()
        return typist, proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)


def test_a_person_plays_a_whole_game_at_a_terminal_and_the_record_replays(tmp_path):
    record = tmp_path / "game.json"
    person = Person()
    typist, status = play_on_a_terminal(
        ["play", "human", str(ROOT / "bots" / "heuristic"), "--human-seat", "1", "--seed",
         "21", "--record", str(record), *play_options()], person)
    text = typist.text()
    assert status == 0, text[-3000:]
    assert "You play seat 1; your partner is seat 3 (heuristic)" in text
    assert set(person.tried) == {"exchange", "not held", "does not beat"}, person.tried
    assert person.due is None
    assert person.typed, "no card was typed by name"
    for card in person.typed:  # accepted, and played
        assert f"seat 1 (you) plays {card} (single)" in text
    assert re.search(r"Your team (wins|loses): \d+ to \d+", text)
    assert "Termination: normal (played to the target)" in text
    assert "human 0.1.0 at seat 1 (a guest of the organizer's, unsandboxed)" in text
    assert not bot_processes(ROOT / "bots" / "heuristic") and not human_processes()

    replayed = CliRunner().invoke(main, ["replay", str(record), "--seat", "1"])
    assert replayed.exit_code == 0, replayed.output
    assert "what seat 1 (human) could see" in replayed.output
    assert "identical events, game finished" in replayed.output


def test_a_human_seat_needs_a_terminal():
    result = subprocess.run([sys.executable, "-m", "arena.cli.main", "play", "human",
                             str(ROOT / "bots" / "random")], stdin=subprocess.DEVNULL,
                            capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 2
    assert "a human seat needs a terminal" in result.stderr


def test_one_human_seat_at_most_and_a_seat_only_with_a_human():
    runner = CliRunner()
    both = runner.invoke(main, ["play", "human", "human"])
    assert both.exit_code == 2
    assert "only one seat can be human" in both.output
    seat = runner.invoke(main, ["play", str(ROOT / "bots" / "random"),
                                str(ROOT / "bots" / "random"), "--human-seat", "2"])
    assert seat.exit_code == 2
    assert "needs `human` as BOT_A or BOT_B" in seat.output


def test_ctrl_c_at_a_prompt_leaves_the_game_recorded_as_left_not_interrupted(tmp_path):
    """Ctrl-C is the person leaving: the game is recorded, the person's team forfeits it as
    `left` (not a crash, not an unrecorded interruption), and every process it started is
    stopped."""
    def interrupt(screen: Screen, typist: Typist) -> str:
        assert human_processes()  # the person's program, asking
        return "\x03"  # the terminal's interrupt character: SIGINT to the foreground job

    record = tmp_path / "game.json"
    typist, status = play_on_a_terminal(["play", "human", str(ROOT / "bots" / "random"),
                                         "--record", str(record)], interrupt)
    text = typist.text()
    assert status == 3, text[-2000:]
    assert len(typist.answers) == 1
    assert "Winner: team 1 (random) by forfeit" in text
    assert re.search(r"Termination: left by seat 0 \(human\) at round 1, decision \d+: left "
                     r"the game \(forfeit\): pressed Ctrl-C", text), text[-2000:]
    assert "crash" not in text.lower() and "interrupted" not in text
    assert_left(record, 0)
    assert not bot_processes(ROOT / "bots" / "random") and not human_processes()


def assert_left(record, seat: int) -> None:
    """The record says the seat left the game and its team forfeits (read back as any)."""
    from arena.referee.record import Termination
    from arena.tournament.records import read_record

    game = read_record(record)
    assert game.termination is Termination.LEFT and game.termination.is_bot_fault
    assert game.fault is not None and game.fault.seat == seat
    assert game.fault.message.startswith("left the game (forfeit)")
    assert game.winner == 1 - (seat & 1)


def test_leaving_with_ctrl_d_forfeits_the_game_for_the_persons_team(tmp_path):
    def leave(screen: Screen, typist: Typist) -> str:
        return "\x04"  # end of input

    record = tmp_path / "game.json"
    typist, status = play_on_a_terminal(["play", str(ROOT / "bots" / "random"), "human",
                                         "--record", str(record)], leave)
    text = typist.text()
    assert status == 3, text[-2000:]
    assert "End of input: you leave the game, and your team forfeits." in text
    assert "Winner: team 0 (random) by forfeit" in text
    assert "Termination: left by seat 1 (human)" in text and "crash" not in text.lower()
    assert_left(record, 1)
    assert not bot_processes(ROOT / "bots" / "random") and not human_processes()


def test_quit_leaves_the_game_and_the_legend_came_with_the_first_hand(tmp_path):
    """`quit`, confirmed, leaves the game (recorded as left); the suit legend was shown once,
    beneath the first hand, before the first prompt."""
    def leave(screen: Screen, typist: Typist) -> str:
        return "y" if screen.prompt.startswith("Leave the game?") else "quit"

    record = tmp_path / "game.json"
    typist, status = play_on_a_terminal(["play", "human", str(ROOT / "bots" / "random"),
                                         "--record", str(record)], leave)
    text = typist.text()
    assert status == 3, text[-2000:]
    hand = text.index("Your hand (8):")
    legend = text.index("Suits: j Jade, s Sword, p Pagoda, t Star")
    assert hand < legend < text.index("Grand Tichu? y/n"), text[:3000]
    assert text.count("Suits: j Jade") == 1
    for special in ("Mahjong  the 1", "Dog      led alone", "Phoenix  a single",
                    "Dragon   the highest single"):
        assert special in text
    assert "You leave the game." in text and "Termination: left by seat 0 (human)" in text
    assert ("exit status 3: the game did not end normally: human (seat 0) left the game "
            "(forfeit)") in text
    assert_left(record, 0)
    assert not bot_processes(ROOT / "bots" / "random") and not human_processes()
