"""`arena bench league`: the league's games per second against `arena tournament` on the same
bots in the same run, and `GET /api/standings` latency under concurrent clients while games
run (README, "Run a league").

The tournament plays a round robin of the bots in this process; the league runs as the
organizer runs it, `arena league serve` in a process of its own on a free port, its games
counted from the standings between two readings `seconds` apart; then `clients` clients ask
for the standings for `seconds`, each on a connection it keeps open (as a browser polling the
table does), and again for `seconds` each request on a new connection, while games go on.

At scale (`entrants`, `stored`): the league's entrants are that many copies of the bots
(renamed, each its own entrant), and its store is seeded, before the server starts, with
`stored` synthetic games among them (`seed_games`: duplicate pairs whose results follow
Bradley-Terry from random true ratings, inserted in one transaction, not played), so that
the standings are those of a league that has run for weeks; then real games run on top.
"""

from __future__ import annotations

import itertools
import json
import random
import re
import selectors
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from arena.errors import ArenaError
from arena.tournament.config import load_config
from arena.tournament.runner import open_store, register_entrants, run_tournament
from arena.tournament.store import Store


@dataclass(frozen=True)
class Latency:
    """Answers to `GET /api/standings` over one window: how many, their median and 99th
    percentile."""

    requests: int
    p50_ms: float
    p99_ms: float

    @classmethod
    def of(cls, times: Sequence[float]) -> Latency:
        """Of the answers' seconds `times`, sorted."""
        if not times:
            raise ArenaError("no request for the standings was answered")
        return cls(len(times), 1000 * times[len(times) // 2],
                   1000 * times[min(len(times) - 1, int(len(times) * 0.99))])

    def text(self) -> str:
        return f"{self.requests} requests, p50 {self.p50_ms:.1f} ms, p99 {self.p99_ms:.1f} ms"


@dataclass(frozen=True)
class LeagueFigures:
    tournament_games: int
    tournament_seconds: float
    league_games: int
    league_seconds: float
    kept: Latency
    """Each client on one connection kept open (as a browser polling the table)."""
    fresh: Latency
    """A new connection per request."""
    clients: int
    entrants: int = 2
    """The league's entrants (the tournament's: the bots given)."""
    stored: int = 0
    """Synthetic games seeded into the league's store before it started."""

    def lines(self) -> list[str]:
        t = self.tournament_games / self.tournament_seconds
        league = self.league_games / self.league_seconds
        return [f"tournament: {self.tournament_games} games in {self.tournament_seconds:.1f} s "
                f"({t:.2f} games/s)",
                f"league:     {self.league_games} games in {self.league_seconds:.1f} s "
                f"({league:.2f} games/s, {league / t:.2f}x the tournament)",
                f"GET /api/standings, {self.entrants} entrants, {self.stored} seeded games, "
                f"{self.clients} concurrent clients while games run:",
                f"  each on a connection kept open: {self.kept.text()}",
                f"  a new connection per request:   {self.fresh.text()}"]


def seed_games(storage: Path, keys: Sequence[str], games: int, seed: int = 0,
               first_pair: int = 0) -> int:
    """Insert `games` synthetic finished games (whole duplicate pairs, the matchups of `keys`
    in turn, pair indexes from `first_pair`) into the store at `storage`, whose entrants
    `keys` are registered; the number inserted. Each pair's results follow Bradley-Terry from true ratings drawn at random
    (sd 150 Elo); scores are plausible, records absent."""
    rng = random.Random(seed)
    strength = {k: rng.gauss(0.0, 150.0) for k in keys}
    matchups = list(itertools.combinations(sorted(keys), 2))
    now = datetime.now(UTC).isoformat(timespec="seconds")
    rows = []
    for n in range(games // 2):
        a, b = matchups[n % len(matchups)]
        pair_index = first_pair + n // len(matchups)
        pair_id = f"{a}~{b}#{pair_index}"
        a_wins = 1.0 / (1.0 + 10.0 ** ((strength[b] - strength[a]) / 400.0))
        for game_index, teams in enumerate(((a, b), (b, a))):
            winner = int((rng.random() < a_wins) != (teams[0] == a))
            scores = [rng.randrange(0, 900, 5)] * 2
            scores[winner] = 1000 + rng.randrange(0, 300, 5)
            rows.append((f"{pair_id}.{game_index}", pair_id, pair_index, game_index,
                         rng.getrandbits(62), *teams, *scores, winner, 8, "normal", 1.0, "",
                         now))
    with Store(storage) as store:
        store.add_synthetic_games(rows)
    return len(rows)


def _copies(folder: Path, bots: Sequence[Path], count: int) -> list[Path]:
    """`count` copies of the bots in turn, each renamed (bench-000, ...): as many entrants."""
    copies = []
    for k in range(count):
        source = bots[k % len(bots)]
        copy = folder / "bots" / f"bench-{k:03d}"
        shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__"))
        manifest = copy / "bot.toml"
        manifest.write_text(re.sub(r'(?m)^name = ".*"$', f'name = "bench-{k:03d}"',
                                   manifest.read_text(), count=1))
        copies.append(copy)
    return copies


def _config(folder: Path, bots: Sequence[Path], target: int, games: int, name: str,
            league: bool, clients: int = 0) -> Path:
    """A tournament config, or a league's (`league`) whose `clients` all come from 127.0.0.1:
    its connection caps let them all in, as a class behind one address would need."""
    entrants = ", ".join(json.dumps(str(b)) for b in bots)
    room = max(256, clients + 64)
    path = folder / f"{name}.toml"
    path.write_text(f"[tournament]\nname = \"{name}\"\nentrants = [{entrants}]\n"
                    f"games_per_matchup = {games}\ntarget = {target}\n"
                    f"storage = \"{name}.sqlite\"\n"
                    + (f"[league]\nbatch_pairs = 8\nconnections = {room}\n"
                       f"connections_per_client = {room}\n" if league else ""))
    return path


def _games(url: str) -> int:
    with urllib.request.urlopen(url + "/api/standings", timeout=30) as response:
        return int(json.loads(response.read())["games"])


def _latency(url: str, clients: int, seconds: float, keep_alive: bool) -> list[float]:
    """Seconds of each answer to `GET /api/standings` from `clients` clients asking again as
    soon as answered, for `seconds`: each on one connection kept open (`keep_alive`, as a
    browser polling the table) or on a new connection per request. The clients are one
    thread's non-blocking sockets, not a thread each: 50 threads parsing answers with
    urllib cost the two cores more than the server did, and the time a thread waited for
    the interpreter's lock counted as the server's (p99 190 to 260 ms against 170 to 180
    ms for the same requests on plain sockets, a server answering fixed bytes)."""
    where = urllib.parse.urlsplit(url)
    address = (where.hostname or "127.0.0.1", where.port or 80)
    request = (f"GET /api/standings HTTP/1.1\r\nHost: {where.netloc}\r\n"
               + ("" if keep_alive else "Connection: close\r\n") + "\r\n").encode()
    selector = selectors.DefaultSelector()
    times: list[float] = []
    end = time.monotonic() + seconds

    def ask(connection: socket.socket | None) -> None:
        if connection is None:
            connection = socket.create_connection(address, timeout=30)
            connection.setblocking(False)
            selector.register(connection, selectors.EVENT_READ)
        selector.modify(connection, selectors.EVENT_READ, _Answer(time.perf_counter()))
        connection.sendall(request)  # a few dozen bytes: the socket's buffer takes them

    for _ in range(clients):
        ask(None)
    waiting = clients
    while waiting:
        ready = selector.select(30)
        if not ready:
            raise ArenaError("the league answered no request for the standings in 30 s")
        for key, _ in ready:
            connection = key.fileobj
            assert isinstance(connection, socket.socket)  # registered above
            answer: _Answer = key.data
            chunk = connection.recv(1 << 18)
            if not chunk:
                raise ArenaError("the league closed a connection before answering")
            if not answer.add(chunk):
                continue
            times.append(time.perf_counter() - answer.started)
            if keep_alive and time.monotonic() < end:
                ask(connection)
                continue
            selector.unregister(connection)
            connection.close()
            if time.monotonic() < end:
                ask(None)
            else:
                waiting -= 1
    selector.close()
    return sorted(times)


class _Answer:
    """The bytes of one HTTP answer as they arrive, until its body is complete."""

    def __init__(self, started: float) -> None:
        self.started = started
        self.data = bytearray()
        self.length: int | None = None
        """Of the whole answer, head and body, once the head is in."""

    def add(self, chunk: bytes) -> bool:
        """Take `chunk`; whether the answer is complete."""
        self.data += chunk
        if self.length is None:
            head_end = self.data.find(b"\r\n\r\n")
            if head_end < 0:
                return False
            head = bytes(self.data[:head_end]).decode("latin-1")
            status, *fields = head.split("\r\n")
            if status.split(" ")[1:2] != ["200"]:
                raise ArenaError(f"the league answered the standings with {status!r}")
            sizes = [f.partition(":")[2] for f in fields
                     if f.partition(":")[0].strip().lower() == "content-length"]
            if not sizes:
                raise ArenaError("the league answered the standings without a length")
            self.length = head_end + 4 + int(sizes[0])
        return len(self.data) >= self.length


def bench_league(bots: Sequence[Path], workers: int = 2, target: int = 200,
                 games: int = 60, seconds: float = 20.0, clients: int = 50,
                 note: Callable[[str], None] = print, entrants: int = 0,
                 stored: int = 0) -> LeagueFigures:
    """The figures of one run (see the module's docstring); `entrants` (0: the bots
    themselves) and `stored`: the league at scale."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-league-") as scratch:
        folder = Path(scratch)
        note(f"tournament: {games} games per matchup, {workers} workers ...")
        summary = run_tournament(load_config(_config(folder, bots, target, games, "t", False)),
                                 workers)
        league_bots = _copies(folder, bots, entrants) if entrants else list(bots)
        config = _config(folder, league_bots, target, 2, "l", True, clients)
        seeded = _seed(config, stored, note) if stored else 0
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        url = f"http://127.0.0.1:{port}"
        log = folder / "serve.log"
        with open(log, "w") as err:
            server = subprocess.Popen([sys.executable, "-m", "arena.cli", "league", "serve",
                                       str(config), "--port", str(port), "-j", str(workers)],
                                      stdout=subprocess.DEVNULL, stderr=err)
        try:
            _wait_for_games(url, server, seeded, log)
            note(f"league: counting its games for {seconds:.0f} s ...")
            first, start = _games(url), time.monotonic()
            time.sleep(seconds)
            last, elapsed = _games(url), time.monotonic() - start
            note(f"standings: {clients} clients for {seconds:.0f} s, each on a connection "
                 "kept open ...")
            kept = Latency.of(_latency(url, clients, seconds, keep_alive=True))
            note(f"standings: {clients} clients for {seconds:.0f} s, a new connection per "
                 "request ...")
            fresh = Latency.of(_latency(url, clients, seconds, keep_alive=False))
        finally:
            server.terminate()
            server.wait(60)
        return LeagueFigures(summary.played, summary.seconds, last - first, elapsed, kept,
                             fresh, clients, len(league_bots), seeded)


def _seed(config: Path, stored: int, note: Callable[[str], None]) -> int:
    """Register the league's entrants in its store and seed it with `stored` games."""
    cfg = load_config(config, sections=frozenset({"league"}))
    started = time.monotonic()
    with open_store(cfg) as store:
        entrants, failures = register_entrants(cfg, store)
    if failures:
        raise ArenaError("; ".join(f.line() for f in failures))
    count = seed_games(cfg.storage, list(entrants), stored)
    note(f"seeded {count} games among {len(entrants)} entrants in "
         f"{time.monotonic() - started:.1f} s")
    return count


def _wait_for_games(url: str, server: subprocess.Popen[bytes], seeded: int,
                    log: Path) -> None:
    """Until the league's table counts a game played by the league itself (the seeded
    games read, and real ones running)."""
    deadline = time.monotonic() + 300
    while True:
        try:
            if _games(url) > seeded:
                return
        except OSError:
            if server.poll() is not None:
                raise ArenaError(f"the league did not start: {log.read_text()}") from None
        if time.monotonic() > deadline:
            raise ArenaError("the league played no game in 300 s")
        time.sleep(0.5)
