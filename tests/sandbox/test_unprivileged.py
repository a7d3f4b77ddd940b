"""Without root, bubblewrap builds the sandbox in a user namespace: the referee runs here as
`nobody` (in a view of this machine where the arena's Python is reachable), takes its bots in
through intake (one with a build, which runs in the unprivileged build sandbox) and the
hostile bots' escapes must fail there too. Limits without root are per process (README,
Security)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.pace import honest_time
from tests.requirements import need_root
from tests.sandbox.conftest import HOSTILE, NOBODY, as_nobody, need_sandbox

pytestmark = pytest.mark.timeout(180)
ROOT = Path(__file__).resolve().parents[2]
ATTACKS = "proc_token,processes,read_folders,write_folders,network,kernel,seccomp,partner,environment"
DRIVER = """
import json, os, sys
from pathlib import Path
from arena.intake import IntakePolicy, take_bot
from arena.referee.match import Entrant, GameSpec, TimeControl, run_game
from arena.sandbox import Isolation, probe

folders = sys.argv[1:3]
policy = IntakePolicy(Isolation.SANDBOX, root=Path(sys.argv[4]))
taken = [take_bot(f, policy) for f in folders]
bots = [Entrant(t.manifest, t.version, source=f) for t, f in zip(taken, folders)]
os.environ.update(TICHU_TEST_ATTACKS=sys.argv[3], TICHU_TEST_FOLDERS=":".join(folders),
                  TICHU_TEST_REFEREE_PID=str(os.getpid()))
record = run_game(GameSpec("unprivileged", 5, tuple(bots), target=100,
                           time=TimeControl(*map(float, sys.argv[5:9]))),
                 isolation=Isolation.SANDBOX)
print(json.dumps({"summary": probe().summary(), "isolation": record.isolation,
                  "termination": record.termination.value, "output": record.bot_output,
                  "built": [t.build is not None and t.build.ok for t in taken],
                  "made": [(t.manifest.folder / "made").is_file() for t in taken]}))
"""


def test_an_unprivileged_referee_sandboxes_its_bots_through_user_namespaces():
    need_sandbox()
    need_root("becoming an unprivileged user for the test")
    work = Path(tempfile.mkdtemp(prefix="tichu-unprivileged-"))
    try:
        folders = [work / "hostile", work / "victim"]
        for folder, name in zip(folders, ("hostile", "victim"), strict=True):
            shutil.copytree(HOSTILE, folder, ignore=shutil.ignore_patterns("__pycache__"))
            manifest = folder / "bot.toml"
            manifest.write_text(manifest.read_text().replace('"hostile"', f'"{name}"'))
        manifest = folders[1] / "bot.toml"  # the victim has a build, run without root
        manifest.write_text(manifest.read_text() + 'build = ["sh", "-c", "id -u > made"]\n')
        for path in [work, *work.rglob("*")]:
            os.chown(path, NOBODY, NOBODY)
        work.chmod(0o755)
        time = honest_time(hello=20.0, decision=5.0, bank=300.0)  # measured as root: alike
        limits = [str(v) for v in (time.hello, time.decision, time.bank, time.grace)]
        done = subprocess.run(
            [*as_nobody(work), sys.executable, "-c", DRIVER, *map(str, folders), ATTACKS,
             str(work / "cache"), *limits],
            capture_output=True, text=True, timeout=150, cwd=ROOT)
        assert done.returncode == 0, done.stderr[-3000:]
        result = json.loads(done.stdout.splitlines()[-1])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    assert "user namespaces" in result["summary"], result["summary"]
    assert result["isolation"] == "sandbox" and result["termination"] == "normal"
    assert result["built"] == [False, True] and result["made"] == [False, True]
    lines = [line for out in result["output"] for line in out.splitlines()
             if line.startswith("ATTACK ")]
    assert len(lines) >= 40, result["output"]
    assert not [line for line in lines if ": BROKEN" in line], lines
