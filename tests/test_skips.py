"""No test skips but through `tests/requirements.py`, which turns a missing part into a failure
under CI and makes every other skip say why it is legitimate: a `pytest.skip`, `importorskip` or
`skipif` anywhere else could hide a part that CI never ran. (A strict `xfail` is no skip: it
runs, and fails once the open problem it names is fixed.)"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
HELPER = TESTS / "requirements.py"
SKIPPING = {"skip", "skipif", "importorskip"}


def skips(path: Path) -> list[tuple[int, str]]:
    """(line, name) of every pytest skip in a module: a call, a mark or a decorator."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not (isinstance(node, ast.Attribute) and node.attr in SKIPPING):
            continue
        owner = node.value
        if isinstance(owner, ast.Attribute) and owner.attr == "mark":
            owner = owner.value
        if isinstance(owner, ast.Name) and owner.id == "pytest":
            found.append((node.lineno, node.attr))
    return sorted(found)


def test_every_skip_goes_through_the_requirements_helper():
    found = [f"{path.relative_to(TESTS.parent)}:{line} {name}"
             for path in sorted(TESTS.rglob("*.py")) if path != HELPER
             for line, name in skips(path)]
    assert found == [], "skip through tests/requirements.py (missing or not_applicable)"


def test_the_check_finds_a_skip_in_each_form(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("import pytest\n"
                      "m = pytest.importorskip('x')\n"
                      "@pytest.mark.skipif(True, reason='r')\n"
                      "def f():\n"
                      "    pytest.skip('why')\n"
                      "pytestmark = pytest.mark.skip\n")
    assert skips(sample) == [(2, "importorskip"), (3, "skipif"), (5, "skip"), (6, "skip")]
