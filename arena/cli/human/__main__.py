"""`python -m arena.cli.human --terminal PATH`: the person's program of the human seat, started
by the referee for that seat (`arena play human BOT`); it plays one game at the terminal."""

from __future__ import annotations

import argparse
import sys

from arena.cli.human.player import BOMB_WINDOWS, Console, HumanPlayer
from protocol.sdk import run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arena.cli.human", description=__doc__)
    parser.add_argument("--terminal", required=True, help="The terminal's path (/dev/pts/3).")
    parser.add_argument("--bomb-windows", choices=tuple(BOMB_WINDOWS), default="ask")
    args = parser.parse_args(argv)
    try:
        console = Console(args.terminal)
    except OSError as exc:
        print(f"human: cannot open the terminal {args.terminal}: {exc}", file=sys.stderr)
        return 2
    return run(HumanPlayer(console, args.bomb_windows))


if __name__ == "__main__":
    sys.exit(main())
