"""SQL lives in the store and the accounts only: every other module asks them a question by a
method (issue 47). A statement anywhere else, or a call that runs one, fails this test."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HOMES = {Path("arena/tournament/store.py"), Path("arena/league/accounts.py")}
STATEMENT = re.compile(r"^\s*(SELECT |INSERT INTO |UPDATE \w+ SET |DELETE FROM |CREATE (TABLE|"
                       r"INDEX) |DROP TABLE |ALTER TABLE |PRAGMA |BEGIN\b)")
RUNNERS = {"execute", "executemany", "executescript"}


def sql_outside_its_homes(root: Path) -> list[str]:
    """Each `file:line` of `root`'s arena/ and protocol/ that runs or holds a SQL statement
    outside the store and the accounts."""
    found = []
    for path in sorted([*root.glob("arena/**/*.py"), *root.glob("protocol/**/*.py")]):
        relative = path.relative_to(root)
        if relative in HOMES:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr in RUNNERS:
                found.append(f"{relative}:{node.lineno} calls {node.func.attr}()")
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                    STATEMENT.match(node.value):
                found.append(f"{relative}:{node.lineno} holds {node.value[:40]!r}")
    return found


def test_no_sql_outside_the_store_and_the_accounts() -> None:
    assert sql_outside_its_homes(ROOT) == []


def test_the_check_finds_a_statement_and_a_call(tmp_path: Path) -> None:
    module = tmp_path / "arena" / "web.py"
    module.parent.mkdir()
    module.write_text('ROWS = "SELECT * FROM games"\n\n\ndef f(db):\n    db.execute(ROWS)\n')
    assert sql_outside_its_homes(tmp_path) == [
        "arena/web.py:1 holds 'SELECT * FROM games'", "arena/web.py:5 calls execute()"]
