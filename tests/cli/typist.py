"""A person at a pseudo-terminal, for the tests of the human seat: it reads what is written
to the terminal until a prompt (a line ending in "> " that waits for input) and types the
answer a policy gives, until the other end closes the terminal."""

from __future__ import annotations

import os
import re
import select
import time
from collections.abc import Callable
from dataclasses import dataclass, field

PROMPT_END = "> "
HAND = re.compile(r"Your hand \(\d+\):  (.*)")
OPTION = re.compile(r"(\d+)\) (.+?)(?=   \d+\) |$)")


@dataclass
class Screen:
    """What the terminal showed since the last answer, and the prompt that ends it."""

    text: str
    prompt: str

    def hand(self) -> list[str]:
        """The cards of the last hand shown (the hand is shown before each decision but
        bomb windows and the wish; then it is the last hand shown)."""
        found = HAND.findall(self.text)
        return found[-1].split() if found else []

    def options(self) -> dict[int, str]:
        """The numbered options shown (after the hand, or a bomb window's table): number ->
        what follows it (cards, or words)."""
        lines = self.text.splitlines()
        start = max((i for i, line in enumerate(lines)
                     if line.startswith(("Your hand (", "Bomb window:"))), default=0)
        return {int(n): what.strip() for line in lines[start + 1:]
                for n, what in OPTION.findall(line)}


Policy = Callable[[Screen, "Typist"], str]


@dataclass
class Typist:
    """Answers the prompts written to the terminal whose master end is `master`."""

    master: int
    policy: Policy
    transcript: list[str] = field(default_factory=list)
    answers: list[tuple[str, str]] = field(default_factory=list)  # (prompt, answer)
    screens: list[Screen] = field(default_factory=list)

    def run(self, silence: float = 600.0) -> None:
        """Answer prompts until the terminal closes; AssertionError if nothing is written
        for `silence` seconds (a hang, not a slow machine: a game's turns take far less)."""
        pending = ""
        last = time.monotonic()
        while True:
            ready, _, _ = select.select([self.master], [], [], 1.0)
            if not ready:
                assert time.monotonic() - last < silence, "the terminal went silent:\n" + \
                    "".join(self.transcript)[-3000:]
                continue
            try:
                data = os.read(self.master, 65536)
            except OSError:  # EIO: every process holding the terminal has closed it
                return
            if not data:
                return
            last = time.monotonic()
            text = data.decode("utf-8", "replace")
            self.transcript.append(text)
            pending += text
            if pending.endswith(PROMPT_END):
                prompt = pending.rsplit("\n", 1)[-1]
                screen = Screen(pending, prompt)
                self.screens.append(screen)
                answer = self.policy(screen, self)
                self.answers.append((prompt, answer))
                os.write(self.master, answer.encode() + b"\n")
                pending = ""

    def text(self) -> str:
        return "".join(self.transcript)
