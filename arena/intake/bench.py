"""`arena bench intake`: what intake and a sandboxed build cost against a plain build.

For each bot folder, three ways of making it runnable, alternating run by run (so that all
three see the same machine mood), each from nothing (a fresh intake folder, no build
reused):

- **plain**: the folder copied (`shutil.copytree`) and its build run there as the caller,
  unsandboxed: what the arena did before intake, and the baseline;
- **intake, none**: `take_bot` at isolation level none (the snapshot with its checks and
  hash, the copy to build in, the build as the caller, the folder made read-only);
- **intake, sandbox**: `take_bot` at level sandbox (the same, the build in the sandbox).

It prints the median wall time of each and their ratios to the plain build, and the
snapshot alone (`take_snapshot`).
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tabulate import tabulate

from arena.intake.snapshot import take_snapshot
from arena.intake.take import IntakePolicy, remove_tree, take_bot
from arena.referee.manifest import load_manifest
from arena.sandbox import Isolation, describe, resolve

WAYS = ("plain", "snapshot", "intake, none", "intake, sandbox")


@dataclass(frozen=True)
class IntakeFigures:
    """Median seconds of each way, by bot."""

    runs: int
    seconds: dict[str, dict[str, float]]
    """Bot name -> way (`WAYS`) -> median seconds."""
    isolation: str

    def lines(self) -> list[str]:
        rows = []
        for bot, by_way in self.seconds.items():
            plain = by_way["plain"]
            rows.append([bot, *(f"{by_way[w]:.3f} s" for w in WAYS),
                         f"{by_way['intake, none'] / plain:.2f}x",
                         f"{by_way['intake, sandbox'] / plain:.2f}x"])
        table = tabulate(rows, headers=["bot", *WAYS, "none / plain", "sandbox / plain"],
                         tablefmt="simple")
        return [self.isolation, f"Median of {self.runs} runs each; the ways alternate run by "
                "run; each from nothing (no build reused).", "", *table.splitlines()]


def bench_intake(folders: list[Path], runs: int = 3) -> IntakeFigures:
    """Time the ways of `WAYS` for each bot folder; SandboxUnavailable without a sandbox,
    IntakeFailed if a bot cannot be taken in."""
    resolve("sandbox")
    seconds = {}
    sources = Path(tempfile.mkdtemp(prefix="arena-bench-sources-"))
    try:
        for folder in folders:
            clean = sources / folder.name  # what a clean checkout holds: nothing built
            shutil.copytree(folder, clean, symlinks=True,  # its own build/ and target/ only
                            ignore=lambda at, names, top=folder: (
                                ["build", "target", "__pycache__"] if Path(at) == top else []))
            seconds[load_manifest(clean).name] = _bench_one(clean, runs)
    finally:
        remove_tree(sources)
    return IntakeFigures(runs, seconds, describe(Isolation.SANDBOX))


def _bench_one(folder: Path, runs: int) -> dict[str, float]:
    ways: dict[str, Callable[[Path], object]] = {
        "plain": lambda scratch: _plain_build(folder, scratch),
        "snapshot": lambda scratch: take_snapshot(folder, scratch),
        "intake, none": lambda scratch: take_bot(folder, IntakePolicy(Isolation.NONE,
                                                                      root=scratch)),
        "intake, sandbox": lambda scratch: take_bot(folder, IntakePolicy(Isolation.SANDBOX,
                                                                         root=scratch)),
    }
    times: dict[str, list[float]] = {way: [] for way in WAYS}
    for k in range(runs):
        for way in WAYS if k % 2 == 0 else reversed(WAYS):
            times[way].append(_timed(ways[way]))
    return {way: statistics.median(t) for way, t in times.items()}


def _timed(make: Callable[[Path], object]) -> float:
    scratch = Path(tempfile.mkdtemp(prefix="arena-bench-intake-"))
    try:
        start = time.perf_counter()
        make(scratch)
        return time.perf_counter() - start
    finally:
        remove_tree(scratch)


def _plain_build(folder: Path, scratch: Path) -> None:
    """The build as before intake: a copy, built in place by the caller, unsandboxed."""
    copy = scratch / folder.name
    shutil.copytree(folder, copy, symlinks=True,
                    ignore=shutil.ignore_patterns(".git", "__pycache__"))
    manifest = load_manifest(copy)
    if manifest.build:
        subprocess.run(manifest.build_argv(), cwd=copy, check=True, capture_output=True,
                       stdin=subprocess.DEVNULL, timeout=600)
