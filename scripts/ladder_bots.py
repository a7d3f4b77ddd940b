"""The search bot at each budget of the ladder (docs/bots.md, "The ladder"), as bot folders.

A tournament's entrants need names of their own, and a sandboxed bot sees only its own
folder, so each budget is a copy of bots/search whose bot.toml names it `search-<MS>ms` and
runs it with `--budget-ms <MS>`: tournaments/ladder/search-<MS>ms/ (git-ignored; rewritten
by each run, so that it is the bot of the checkout).

    .venv/bin/python scripts/ladder_bots.py [MS ...]     # default: 1 10 100
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEARCH = ROOT / "bots" / "search"
LADDER = ROOT / "tournaments" / "ladder"
BUDGETS = (1, 10, 100)


def write_variant(budget_ms: int, parent: Path = LADDER) -> Path:
    """The folder of the search bot thinking at most `budget_ms` per decision."""
    folder = parent / f"search-{budget_ms}ms"
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(SEARCH, folder, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = (SEARCH / "bot.toml").read_text()
    manifest = re.sub(r'(?m)^name = ".*"$', f'name = "search-{budget_ms}ms"', manifest)
    manifest = re.sub(r'(?m)^command = .*$', 'command = ["python", "bot.py", "--budget-ms", '
                      f'"{budget_ms}"]', manifest)
    (folder / "bot.toml").write_text(manifest)
    return folder


def main(argv: list[str]) -> int:
    budgets = [int(a) for a in argv] or list(BUDGETS)
    for budget in budgets:
        print(write_variant(budget).relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
