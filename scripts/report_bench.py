"""Size and build time of the web report (`arena report`), for a store given on the command
line, or for a synthetic tournament of about 10,000 games (10 entrants, 45 matchups, 111 pairs
each; 300 distinct real engine games, their records reused for the rest):

    .venv/bin/python scripts/report_bench.py [STORE.sqlite] [--games N]

Prints the store's games, the report's files and megabytes, and the seconds of a first build
(every record read) and of a rebuild with nothing new (what `--watch` does each time).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.presentation.report import ReportBuilder  # noqa: E402
from arena.tournament.store import Store  # noqa: E402
from tests.presentation.synthetic import fill_store  # noqa: E402


def synthetic(folder: Path, games: int) -> Path:
    keys = [f"bot{k}@v{k}" for k in range(10)]
    pairs = max(1, round(games / 2 / 45))
    store = folder / "synthetic.sqlite"
    start = time.monotonic()
    stored = fill_store(store, keys, pairs, strong={"bot1@v1", "bot2@v2"}, distinct=300,
                        anchor="bot0", durable=False)
    print(f"synthetic store: {stored} games in {time.monotonic() - start:.0f} s", flush=True)
    return store


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("store", nargs="?")
    parser.add_argument("--games", type=int, default=10_000)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="arena-report-bench-"))
    store = Path(args.store) if args.store else synthetic(folder, args.games)
    with Store(store, create=False) as s:
        anchor = s.meta("anchor")
        key = next((e.key for e in s.entrants() if e.name == anchor), None)
    builder = ReportBuilder(store, folder / "site", {"anchor": key, "anchor_elo": 0.0,
                                                     "prior": 2.0})
    first = builder.build()
    print(f"first build: {first.games} games, {first.files} files, {first.bytes / 1e6:.1f} MB, "
          f"{first.seconds:.1f} s", flush=True)
    again = builder.build()
    print(f"rebuild, nothing new: {again.seconds:.1f} s ({again.new_games} records read)")
    print(f"report: {folder / 'site' / 'index.html'}")


if __name__ == "__main__":
    main()
