"""The `arena` commands about tournaments (registered on the main group by `register`).

Thin click commands over the library: parse arguments, call, print; no game logic here.
"""

from __future__ import annotations

import click


def register(main: click.Group) -> None:
    """Add this module's commands to the `arena` group."""
