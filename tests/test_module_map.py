"""The map of the code cannot drift: each package's docstring names every module and
subpackage it holds, everything it names as a file or folder of its own exists, and every
test folder tests a package (tests/__init__.py says how the tests are laid out).

In a package docstring a module is written with its file name in backquotes (`match.py`) and
a folder with a trailing slash (`templates/`); other backquoted names (a function, another
package's module as `arena.referee.peers`) are not files of the package and are not checked.
The docstrings are read from the source, so that no package (nor the `train` extra) is
imported."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = sorted(init.parent for top in ("arena", "protocol")
                  for init in (ROOT / top).rglob("__init__.py"))
NAMED_FILE = re.compile(r"`([A-Za-z0-9_]+\.(?:py|md))`")
NAMED_FOLDER = re.compile(r"`([A-Za-z0-9_-]+)/`")

TESTS = ROOT / "tests"
NOT_A_PACKAGE = {"bots": "the bundled bots of bots/", "soak": "the whole arena, killed at random",
                 "docs": "the documentation of README.md and docs/"}
"""Test folders that test no package of their own name (tests/__init__.py)."""


def docstring(package: Path) -> str:
    text = ast.get_docstring(ast.parse((package / "__init__.py").read_text()))
    assert text, f"{package.relative_to(ROOT)}/__init__.py has no docstring"
    return text


def modules(package: Path) -> list[str]:
    """The package's modules (every .py file but __init__.py) and its subpackages."""
    return sorted([f.name for f in package.glob("*.py") if f.name != "__init__.py"]
                  + [f"{d.name}/" for d in package.iterdir() if (d / "__init__.py").is_file()])


def test_the_packages_are_found():
    found = {p.relative_to(ROOT).as_posix() for p in PACKAGES}
    assert {"arena", "arena/rules", "arena/referee", "arena/cli", "protocol"} <= found


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_docstring_names_every_module_of_its_package(package: Path):
    text = docstring(package)
    missing = [m for m in modules(package) if f"`{m}`" not in text]
    assert not missing, (f"{package.relative_to(ROOT)}/__init__.py: the docstring names no "
                         f"{', '.join(missing)} (write each as `name.py` or `folder/`)")


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_file_and_folder_the_docstring_names_exists(package: Path):
    text = docstring(package)
    named = NAMED_FILE.findall(text) + [f"{d}/" for d in NAMED_FOLDER.findall(text)]
    gone = [n for n in named if not (package / n.rstrip("/")).exists()]
    assert not gone, (f"{package.relative_to(ROOT)}/__init__.py names what is not there: "
                      f"{', '.join(gone)}")


def test_every_test_folder_tests_a_package_of_its_name():
    folders = [d for d in TESTS.iterdir() if d.is_dir() and d.name != "__pycache__"]
    packages = {p.name for p in PACKAGES if p.parent.name == "arena"} | {"protocol"}
    strays = [d.name for d in folders if d.name not in packages | set(NOT_A_PACKAGE)]
    assert not strays, f"tests/ folders with no package of their name: {strays}"
    assert set(NOT_A_PACKAGE) <= {d.name for d in folders}


def test_every_test_folder_is_a_package():
    folders = [d for d in TESTS.iterdir() if d.is_dir() and d.name != "__pycache__"]
    assert all((d / "__init__.py").is_file() for d in folders), \
        [d.name for d in folders if not (d / "__init__.py").is_file()]


def test_no_test_file_repeats_its_folders_name():
    repeated = [f.relative_to(TESTS).as_posix() for f in TESTS.glob("*/test_*.py")
                if f.name.startswith(f"test_{f.parent.name}_")]
    assert not repeated, f"drop the folder's name from: {repeated}"
