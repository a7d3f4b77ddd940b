"""What a Python bot imports before each game: the SDK and its ZMTP dealer, without `typing`,
`re`, `logging` or `threading` (protocol/__init__.py says why: a bot starts once per game)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LEFT_OUT = ("typing", "re", "logging", "threading")


def modules_after(code: str) -> set[str]:
    """The modules a fresh interpreter holds after `code` (run in the repository)."""
    listing = "import sys; print(' '.join(sys.modules))"
    result = subprocess.run([sys.executable, "-c", f"{code}\n{listing}"], cwd=ROOT,
                            capture_output=True, text=True, timeout=60, check=True)
    return set(result.stdout.split())


def test_a_bot_s_imports_leave_out_what_only_types_and_the_referee_need():
    before = modules_after("pass")
    assert not before & set(LEFT_OUT), "the interpreter's own start imports them already"
    after = modules_after("import protocol.sdk, protocol.zmtp, protocol.codec")
    assert {"protocol.sdk", "protocol.zmtp", "protocol.codec", "msgpack"} <= after
    assert not after & set(LEFT_OUT), sorted(after & set(LEFT_OUT))

