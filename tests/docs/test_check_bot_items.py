"""docs/reference/check-bot.md lists every item of check-bot's checklist, as the checker's
code names them (arena/botkit/check.py)."""

from __future__ import annotations

import re

from tests.docs.pages import DOCS, ROOT

CHECKER = ROOT / "arena" / "botkit" / "check.py"
PAGE = DOCS / "reference" / "check-bot.md"


def items_in_code() -> set[str]:
    source = CHECKER.read_text()
    found = set(re.findall(r'(?:_Probe|_check|_add|CheckItem)\(\s*"([a-z_-]+)"', source))
    if '"build-command"' in source:
        found |= {"command", "build-command"}
    return found


def items_on_page() -> set[str]:
    table = PAGE.read_text().split("## The items", 1)[1].split("\n## ", 1)[0]
    return {name for row in re.findall(r"^\| (`.*?) \|", table, re.M)
            for name in re.findall(r"`([a-z_-]+)`", row)}


def test_the_page_lists_every_item_of_the_checklist():
    assert {"hello", "games", "dragon_gift"} <= items_in_code()
    assert items_on_page() == items_in_code()
