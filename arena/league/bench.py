"""`arena bench league`: the league's games per second against `arena tournament` on the same
bots in the same run, and `GET /api/standings` latency under concurrent clients while games
run (README, "Run a league").

The tournament plays a round robin of the bots in this process; the league runs as the
organizer runs it, `arena league serve` in a process of its own on a free port, its games
counted from the standings between two readings `seconds` apart; then `clients` threads ask
for the standings for `seconds`, each request on a new connection, while games go on.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.errors import ArenaError
from arena.tournament.config import load_config
from arena.tournament.runner import run_tournament


@dataclass(frozen=True)
class LeagueFigures:
    tournament_games: int
    tournament_seconds: float
    league_games: int
    league_seconds: float
    requests: int
    p50_ms: float
    p99_ms: float
    clients: int

    def lines(self) -> list[str]:
        t = self.tournament_games / self.tournament_seconds
        league = self.league_games / self.league_seconds
        return [f"tournament: {self.tournament_games} games in {self.tournament_seconds:.1f} s "
                f"({t:.2f} games/s)",
                f"league:     {self.league_games} games in {self.league_seconds:.1f} s "
                f"({league:.2f} games/s, {league / t:.2f}x the tournament)",
                f"GET /api/standings, {self.clients} concurrent clients while games run: "
                f"{self.requests} requests, p50 {self.p50_ms:.1f} ms, p99 {self.p99_ms:.1f} ms"]


def _config(folder: Path, bots: Sequence[Path], target: int, games: int, name: str,
            league: bool) -> Path:
    entrants = ", ".join(json.dumps(str(b)) for b in bots)
    path = folder / f"{name}.toml"
    path.write_text(f"[tournament]\nname = \"{name}\"\nentrants = [{entrants}]\n"
                    f"games_per_matchup = {games}\ntarget = {target}\n"
                    f"storage = \"{name}.sqlite\"\n"
                    + ("[league]\nbatch_pairs = 8\n" if league else ""))
    return path


def _games(url: str) -> int:
    with urllib.request.urlopen(url + "/api/standings", timeout=30) as response:
        return int(json.loads(response.read())["games"])


def _latency(url: str, clients: int, seconds: float) -> list[float]:
    times: list[float] = []
    lock = threading.Lock()
    end = time.monotonic() + seconds

    def ask() -> None:
        while time.monotonic() < end:
            start = time.perf_counter()
            with urllib.request.urlopen(url + "/api/standings", timeout=30) as response:
                response.read()
            with lock:
                times.append(time.perf_counter() - start)

    threads = [threading.Thread(target=ask) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sorted(times)


def bench_league(bots: Sequence[Path], workers: int = 2, target: int = 200,
                 games: int = 60, seconds: float = 20.0, clients: int = 50,
                 note: Callable[[str], None] = print) -> LeagueFigures:
    """The figures of one run (see the module's docstring)."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-league-") as scratch:
        folder = Path(scratch)
        note(f"tournament: {games} games per matchup, {workers} workers ...")
        summary = run_tournament(load_config(_config(folder, bots, target, games, "t", False)),
                                 workers)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        url = f"http://127.0.0.1:{port}"
        config = _config(folder, bots, target, 2, "l", True)
        log = folder / "serve.log"
        with open(log, "w") as err:
            server = subprocess.Popen([sys.executable, "-m", "arena.cli", "league", "serve",
                                       str(config), "--port", str(port), "-j", str(workers)],
                                      stdout=subprocess.DEVNULL, stderr=err)
        try:
            deadline = time.monotonic() + 120
            while True:
                try:
                    if _games(url) > 0:
                        break
                except OSError:
                    if server.poll() is not None:
                        raise ArenaError(f"the league did not start: {log.read_text()}"
                                         ) from None
                if time.monotonic() > deadline:
                    raise ArenaError("the league played no game in 120 s")
                time.sleep(0.2)
            note(f"league: counting its games for {seconds:.0f} s ...")
            first, start = _games(url), time.monotonic()
            time.sleep(seconds)
            last, elapsed = _games(url), time.monotonic() - start
            note(f"standings: {clients} clients for {seconds:.0f} s ...")
            times = _latency(url, clients, seconds)
        finally:
            server.terminate()
            server.wait(60)
        if not times:
            raise ArenaError("no request for the standings was answered")
        return LeagueFigures(summary.played, summary.seconds, last - first, elapsed,
                             len(times), 1000 * times[len(times) // 2],
                             1000 * times[min(len(times) - 1, int(len(times) * 0.99))],
                             clients)
