"""The rules engine's one error: an action that breaks a rule.

It is not an `arena.errors.ArenaError` because the rules engine imports nothing of the project;
the referee catches it by name and turns it into a recorded forfeit.
"""

from __future__ import annotations


class IllegalAction(ValueError):
    """An action breaks a rule of RULES.md.

    `rule` is a short stable identifier of the broken rule (for example ``"must-follow-wish"``),
    `message` explains it in words for people.
    """

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message
