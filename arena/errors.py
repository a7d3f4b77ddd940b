"""The one error hierarchy of Tichu Arena.

`ArenaError` is the root. `ConfigError` is a user's mistake (the CLI exits 2 naming file, key
and problem). `IllegalAction` is raised by the rules engine when an action breaks a rule; the
referee turns it into a recorded forfeit, never a crash.
"""

from __future__ import annotations


class ArenaError(Exception):
    """Root of every error Tichu Arena raises on purpose."""


class ConfigError(ArenaError):
    """A user's configuration or command-line input is wrong."""


class IllegalAction(ArenaError):
    """An action breaks a rule of RULES.md.

    `rule` is a short stable identifier of the broken rule (for example ``"must-follow-wish"``),
    `message` explains it in words for people.
    """

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message
