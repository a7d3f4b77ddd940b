"""Shared helpers of the tests of the bundled bots (and of the other tests that run a bot of
another language): toolchain checks that skip (or, under CI, fail) with what to install, and
entrants from bot folders, taken in as a tournament takes them."""

from __future__ import annotations

import glob
import shutil
from pathlib import Path

from arena.intake import IntakePolicy, take_bot
from arena.referee.match import Entrant
from arena.sandbox import resolve
from tests.requirements import missing

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "bots"
JARS = Path("/usr/share/java")
CRATES = Path("/usr/share/cargo/registry")  # Debian's librust-*-dev packages
SETUP = "scripts/setup-bots.sh (run by `make test` as root on Debian) installs them"

TOOLCHAINS = {
    "python": ([], [], ""),
    "node": (["node", "npm"], [], "Node.js 20+ and npm"),
    "c": (["cc", "make"], [Path("/usr/include/zmq.h"), Path("/usr/include/msgpack.h")],
          "a C compiler, make, libzmq3-dev and libmsgpack-dev"),
    "cpp": (["c++", "make"], [Path("/usr/include/zmq.hpp"), Path("/usr/include/msgpack.hpp")],
            "a C++ compiler, make, cppzmq-dev and libmsgpack-cxx-dev"),
    "java": (["javac", "java"], [JARS / "jeromq.jar", JARS / "msgpack-core.jar"],
             "a JDK (javac), libjeromq-java and libmsgpack-java"),
    # the sandbox of a build sees the system's cargo, and the crates' sources Debian installs
    "rust": (["cargo"], [Path("/usr/bin/cargo"), *(CRATES / f"{crate}-*" for crate in
                                                    ("zmq", "rmp-serde", "serde_derive"))],
             "cargo, librust-zmq-dev, librust-rmp-serde-dev and "
             "librust-serde+serde-derive-dev"),
}


def need(language: str) -> None:
    """Skip the test if `language`'s toolchain is missing, saying what to install; under CI
    (the CI variable set) fail instead, since CI must run every bot's tests."""
    programs, files, what = TOOLCHAINS[language]
    absent = [p for p in programs if shutil.which(p) is None]
    absent += [str(f) for f in files if not glob.glob(str(f))]  # a path, or a pattern
    if absent:
        missing(f"{language} bots need {what}: missing {', '.join(absent)}", SETUP)


def entrant(folder: Path) -> Entrant:
    """The bot of `folder` as a tournament takes it in: a snapshot, built in the sandbox
    where the machine gives one."""
    ready = take_bot(folder, IntakePolicy(resolve("auto")))
    return Entrant(ready.manifest, ready.version, source=str(folder))
