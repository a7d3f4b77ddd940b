"""The one error hierarchy of Tichu Arena.

`ArenaError` is the root. `ConfigError` is a user's mistake (the CLI exits 2 naming file, key
and problem). Two errors of the layers below stand outside it, because those layers import
nothing of the project: `arena.rules.IllegalAction` (an action breaks a rule; the referee turns
it into a recorded forfeit, never a crash) and `protocol.ProtocolError` (a malformed message).
Both are `ValueError`s.
"""

from __future__ import annotations


class ArenaError(Exception):
    """Root of every error Tichu Arena raises on purpose."""


class ConfigError(ArenaError):
    """A user's configuration or command-line input is wrong."""
