"""What a test needs that a machine may lack, in one place: every skip of the tests goes
through here (`tests/test_skips.py` checks that no other module skips).

- `missing`: a part that the project's set-up provides is not there: a program or system
  package that `scripts/setup-bots.sh` installs, a Python package of the `test` or `train`
  extra, root (which `make test` runs as in CI), a sandbox. On a developer's machine the test
  is skipped, saying what is missing and how to get it; under CI (the CI variable set, as CI
  services set it: CI=true) it fails, since CI installs every part and must run every test.
- `not_applicable`: the test cannot apply to this machine for a reason no set-up changes (a
  platform feature absent by design, such as a second CPU); its reason says why, and it is
  skipped under CI too.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import shutil
from types import ModuleType
from typing import NoReturn

import pytest

SETUP = "scripts/setup-bots.sh (run by `make test` as root on Debian) installs it"
EXTRAS = "pip install -e '.[test,train]' (`make test` does) installs it"
AS_ROOT = "`make test` runs as root in CI, where it must run"


def missing(problem: str, remedy: str, module_level: bool = False) -> NoReturn:
    """Skip the test (or the whole module), saying what is missing and `remedy`; under CI,
    fail it instead."""
    message = f"{problem}; {remedy}"
    if os.environ.get("CI"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message, allow_module_level=module_level)


def not_applicable(why: str) -> NoReturn:
    """Skip a test that cannot apply to this machine; `why` says why that is legitimate."""
    pytest.skip(f"not applicable on this machine: {why}")


def need_programs(*names: str, what: str, remedy: str = SETUP) -> None:
    """The programs `names` on PATH (`what` names the package or toolchain)."""
    absent = [name for name in names if shutil.which(name) is None]
    if absent:
        missing(f"{what} is needed: {', '.join(absent)} not found on PATH", remedy)


def need_module(name: str, remedy: str = EXTRAS) -> ModuleType:
    """The Python module `name`, imported (in place of `pytest.importorskip`)."""
    if importlib.util.find_spec(name) is None:
        missing(f"the Python package {name} is not installed", remedy)
    return importlib.import_module(name)


def need_root(purpose: str) -> None:
    """Root, for `purpose` (such as becoming another user, or a uid per bot process)."""
    if os.geteuid() != 0:
        missing(f"{purpose} needs root", AS_ROOT)
