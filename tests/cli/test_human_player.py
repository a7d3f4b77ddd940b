"""The human seat's player, in whole games in-process: a person at a pseudo-terminal
(`tests.cli.typist`) answers its prompts, three heuristic bots play the other seats, and
the in-process harness checks every reply as the referee does (an illegal one raises)."""

from __future__ import annotations

import os
import random
import re
import threading
from collections import Counter

import pytest

from arena.cli.human.player import Console, HumanPlayer
from arena.referee.inprocess import load_bot, play_local_game
from arena.rules.cards import card_name
from tests.cli.typist import Screen, Typist
from tests.referee.conftest import ROOT

pytestmark = pytest.mark.timeout(300)

KINDS = {"Grand Tichu?": "grand_tichu", "Exchange:": "exchange", "Tichu?": "tichu",
         "You lead": "lead", "Your turn": "play", "Bomb now?": "bomb", "Dragon:": "dragon_gift",
         "Wish": "wish"}


def kind_of(prompt: str) -> str:
    return next(kind for start, kind in KINDS.items() if prompt.startswith(start))


def play_in_process(seed: int, policy, seat: int = 0, target: int = 300,
                    bomb_windows: str = "ask") -> tuple[Typist, object]:
    """One game with the person at `seat`; the typist (its transcript) and the game."""
    master, slave = os.openpty()
    console = Console(os.ttyname(slave))
    make = load_bot(ROOT / "bots" / "heuristic")
    bots = [HumanPlayer(console, bomb_windows) if s == seat else make(seed * 4 + s)
            for s in range(4)]
    outcome: dict[str, object] = {}

    def game() -> None:
        try:
            outcome["game"] = play_local_game(seed, bots, target, wire_bytes=True)
        except BaseException as exc:  # shown by the test, after the typist stops
            outcome["error"] = exc
        finally:
            console.close()
            os.close(slave)

    thread = threading.Thread(target=game, daemon=True)
    thread.start()
    typist = Typist(master, policy)
    try:
        typist.run()
    finally:
        thread.join(60)
        os.close(master)
    if "error" in outcome:
        raise outcome["error"]
    return typist, outcome["game"]


class CarelessPerson:
    """Answers as a careless person might: an option by number, or its cards typed by name in
    any case, and now and then something illegal, which must be refused with a reason."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.kinds: Counter[str] = Counter()
        self.refusals_due: list[str] = []  # what the next screen must refuse, and why
        self.typed: list[str] = []  # plays typed by name and accepted
        self.options: dict[int, str] = {}  # the options and hand shown last (a refusal
        self.hand: list[str] = []          # shows only its reason)

    def __call__(self, screen: Screen, typist: Typist) -> str:
        if self.refusals_due:
            reason = self.refusals_due.pop()
            assert f"Not allowed: {reason}" in screen.text, screen.text[-1500:]
        kind = kind_of(screen.prompt)
        self.kinds[kind] += 1
        self.options = screen.options() or self.options
        self.hand = screen.hand() or self.hand
        rng = self.rng
        if kind in ("grand_tichu", "tichu"):
            return rng.choice(["", "n", "1", "no", "N"] * 4 + ["y"])
        if kind == "exchange":
            hand = self.hand
            if rng.random() < 0.2:
                self.refusals_due.append("give exactly three cards")
                return " ".join(hand[:2])
            return " ".join(c.upper() if rng.random() < 0.3 else c for c in rng.sample(hand, 3))
        if kind == "wish":
            return rng.choice(["", "8", "a", "10", "q"])
        if kind == "dragon_gift":
            return rng.choice(["1", "2"])
        return self._play(kind)

    def _play(self, kind: str) -> str:
        rng = self.rng
        options = self.options
        if kind == "bomb" and rng.random() < 0.6:
            return rng.choice(["", "", "skip"])
        if kind != "bomb" and rng.random() < 0.1:
            held = set(self.hand)
            missing = next(card_name(c) for c in rng.sample(range(52), 52)
                           if card_name(c) not in held)
            self.refusals_due.append(f"you do not hold {missing}")
            return missing
        number = rng.choice(sorted(options))
        cards = options[number]
        if rng.random() < 0.4 and cards not in ("pass", "no bomb") and "=" not in cards:
            self.typed.append(cards)
            return cards.lower() if rng.random() < 0.5 else cards
        return str(number)


def test_a_careless_person_plays_whole_games_and_every_illegal_answer_is_refused():
    kinds: Counter[str] = Counter()
    typed = 0
    # games until the person has met every decision kind (a bomb window and a Dragon gift
    # come only with some deals: seed 11 gave both, with these bots)
    for seed in [11, *range(40)]:
        person = CarelessPerson(seed)
        typist, game = play_in_process(seed, person, seat=seed % 4)
        assert game.over
        assert not person.refusals_due
        assert "Your team wins" in typist.text() or "Your team loses" in typist.text()
        kinds += person.kinds
        typed += len(person.typed)
        if set(kinds) == set(KINDS.values()):
            break
    assert set(kinds) == set(KINDS.values()), kinds  # every decision kind, and the wish
    assert typed > 5


def passive(skip: bool = False):
    """A person who never bombs: passes or leads the first option, declines every call and
    every bomb window (with 'skip' if `skip`)."""

    def answer(screen: Screen, typist: Typist) -> str:
        kind = kind_of(screen.prompt)
        if kind == "exchange":
            return " ".join(screen.hand()[:3])
        if kind in ("play", "lead", "dragon_gift"):
            return "1"
        return "skip" if kind == "bomb" and skip else ""
    return answer


TRICK_ENDS = ("takes the trick", "gives it to", "the Dog hands the lead", "== Round")


def windows(typist: Typist) -> list[Screen]:
    return [s for s in typist.screens if kind_of(s.prompt) == "bomb"]


def test_bomb_windows_are_offered_as_the_setting_says():
    # seed 4: seat 0 keeps a bomb for a whole round; the game is the same whatever the
    # setting (a declined window is no event), so the windows offered can be compared
    typists, scores = {}, {}
    for setting in ("every", "ask", "never"):
        typists[setting], game = play_in_process(4, passive(), bomb_windows=setting)
        scores[setting] = game.scores
    offered = {setting: windows(typist) for setting, typist in typists.items()}
    assert scores["every"] == scores["ask"] == scores["never"]
    assert len(offered["never"]) == 0 < len(offered["ask"]) < len(offered["every"])
    assert any("played by seat 0" in s.text for s in offered["every"])
    assert not any("played by seat 0" in s.text for s in offered["ask"])  # not on its own
    assert any("the last chance" in s.text for s in offered["ask"])
    # "ask": never twice the same table in a trick, but for the last chance
    last = None
    for screen in typists["ask"].screens:
        if any(end in screen.text for end in TRICK_ENDS):
            last = None
        if kind_of(screen.prompt) != "bomb":
            continue
        table = re.search(r"Bomb window: on the table (.*?), ", screen.text)[1]
        assert table != last or "the last chance" in screen.text
        last = table


def test_skip_declines_the_bomb_windows_until_the_trick_ends():
    typist, _ = play_in_process(4, passive(skip=True), bomb_windows="every")
    skipped = False
    assert windows(typist)
    for screen in typist.screens:
        if any(end in screen.text for end in TRICK_ENDS):
            skipped = False
        if kind_of(screen.prompt) == "bomb":
            assert not skipped, screen.text
            skipped = True
