"""docs/reference/exit-statuses.md lists every status each `arena` command can exit with
beyond 0, 1 and 2, as the command's code names them (`tests/docs/exits.py`)."""

from __future__ import annotations

import re

from tests.docs.exits import commands, statuses
from tests.docs.pages import DOCS

PAGE = DOCS / "reference" / "exit-statuses.md"


def documented() -> dict[str, set[int]]:
    """Each command's own statuses, from the page's table of them."""
    found: dict[str, set[int]] = {}
    for command, status in re.findall(r"^\| `(arena [a-z -]+)` \| (\d+) \|", PAGE.read_text(),
                                      re.M):
        found.setdefault(command, set()).add(int(status))
    return found


def test_the_page_lists_the_statuses_the_code_exits_with():
    in_code = {name: found for name, command in commands().items()
               if (found := statuses(command))}
    assert documented() == in_code


def test_the_scan_finds_the_statuses_it_is_known_to():
    every = commands()
    assert statuses(every["arena play"]) == {3, 4}
    assert statuses(every["arena check-bot"]) == {4}
    assert statuses(every["arena replay"]) == set()
