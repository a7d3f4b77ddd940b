"""Benchmarks: scripts that print speed figures (never timed unit tests)."""

from __future__ import annotations

import random
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import zmq

from arena import wire
from arena.manifest import folder_hash, load_manifest
from arena.referee import Entrant, GameSpec, Match, run_game
from arena.rules import Game
from arena.selfplay import play_game, random_player
from protocol import codec


@dataclass(frozen=True)
class EngineFigures:
    """Throughput of the rules engine with four random players in one process."""

    games: int
    rounds: int
    decisions: int
    seconds: float

    def lines(self) -> list[str]:
        s = self.seconds
        return [
            f"games:      {self.games} in {s:.2f} s",
            f"games/s:    {self.games / s:.1f}",
            f"rounds/s:   {self.rounds / s:.0f}  ({self.rounds / self.games:.1f} rounds per game)",
            f"decisions/s: {self.decisions / s:.0f}  ({self.decisions / self.games:.0f} per game)",
        ]


def bench_engine(games: int, seed: int = 0) -> EngineFigures:
    """Play `games` full games to 1000 with four uniformly random legal players."""
    rng = random.Random(seed)
    players = [random_player(rng) for _ in range(4)]
    rounds = decisions = 0
    start = time.perf_counter()
    for i in range(games):
        _, summary = play_game(seed + i, players)
        rounds += summary.rounds
        decisions += summary.decisions
    return EngineFigures(games, rounds, decisions, time.perf_counter() - start)


@dataclass(frozen=True)
class TransportFigures:
    """(a) raw ZeroMQ round trip, (b) the referee's decision round trip, (c) full games/s."""

    raw_median_us: float
    raw_p90_us: float
    request_bytes: int
    referee_median_us: float
    referee_p90_us: float
    referee_wall_us: float
    games: int
    games_per_s: float
    decisions_per_game: float
    asked_per_game: float

    def lines(self) -> list[str]:
        ratio = self.referee_median_us / self.raw_median_us
        return [
            f"(a) raw pyzmq round trip, {self.request_bytes}-byte request between two processes:"
            f" median {self.raw_median_us:.0f} us, p90 {self.raw_p90_us:.0f} us",
            f"(b) referee decision round trip, trivial Python bot: median "
            f"{self.referee_median_us:.0f} us, p90 {self.referee_p90_us:.0f} us "
            f"({ratio:.2f}x raw); wall time per decision {self.referee_wall_us:.0f} us",
            f"(c) full games to 1000, four random Python bot processes (started once): "
            f"{self.games} games, "
            f"{self.games_per_s:.2f} games/s, {self.decisions_per_game:.0f} decisions per game, "
            f"{self.asked_per_game:.0f} of them asked over the wire (the others passed by the "
            f"referee: auto_pass)",
        ]


def bench_transport(games: int = 3, round_trips: int = 2000, seed: int = 0) -> TransportFigures:
    """Measure (a), (b) and (c) of TransportFigures in one run on this machine."""
    request = _typical_request(seed)
    raw = _raw_round_trips(request, round_trips)
    trivial = _entrant(Path(__file__).parent / "benchbots" / "trivial")
    start = time.perf_counter()
    record = run_game(GameSpec("bench-trivial", seed, (trivial, trivial), target=300))
    wall = time.perf_counter() - start
    latencies = sorted(d["latency_ms"] * 1000 for d in record.decisions)
    rand = _entrant(Path(__file__).resolve().parent.parent / "bots" / "random")
    decisions = asked = 0
    start = time.perf_counter()
    with Match(rand, rand) as match:  # processes start once and play every game (multi_game)
        for i in range(games):
            spec = GameSpec(f"bench-random-{i}", seed + i, (rand, rand))
            played = match.play(spec, last=i == games - 1).decisions
            decisions += len(played)
            asked += sum(1 for d in played if not d.get("auto"))
    seconds = time.perf_counter() - start
    return TransportFigures(
        _percentile(raw, 50), _percentile(raw, 90), len(request),
        _percentile(latencies, 50), _percentile(latencies, 90),
        wall / max(1, len(record.decisions)) * 1e6, games, games / seconds, decisions / games,
        asked / games)


def _entrant(folder: Path) -> Entrant:
    manifest = load_manifest(folder)
    return Entrant(manifest, folder_hash(folder))


def _typical_request(seed: int) -> bytes:
    """A request of median size among those a game of random players asks (with the events
    each carries): a typical size and shape."""
    game = Game(seed, 300)
    player = random_player(random.Random(seed))
    sent = [0, 0, 0, 0]
    requests = []
    while not game.over:
        seat = game.to_act()[0]
        decision = game.decision(seat)
        if not decision.only_pass:
            events = wire.events_for(seat, game.events[sent[seat]:])
            sent[seat] = len(game.events)
            requests.append(codec.pack(wire.request_message(
                decision, game.observation(seat), events, len(requests), 1000)))
        game.apply(seat, player(decision))
    return sorted(requests, key=len)[len(requests) // 2]


def _raw_round_trips(request: bytes, count: int) -> list[float]:
    context = zmq.Context.instance()
    sock = context.socket(zmq.ROUTER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.bind("tcp://127.0.0.1:0")
    endpoint = sock.getsockopt_string(zmq.LAST_ENDPOINT)
    peer = subprocess.Popen([sys.executable, "-m", "arena.benchbots.echo_peer", endpoint, "40"])
    try:
        identity, _ = sock.recv_multipart()
        times = []
        for _ in range(count):
            start = time.perf_counter()
            sock.send_multipart([identity, request])
            sock.recv_multipart()
            times.append((time.perf_counter() - start) * 1e6)
        sock.send_multipart([identity, b"stop"])
        peer.wait(timeout=5)
    finally:
        if peer.poll() is None:
            peer.kill()
            peer.wait()
        sock.close()
    return sorted(times)


def _percentile(sorted_values: list[float], pct: float) -> float:
    if not sorted_values:
        return 0.0
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * pct / 100))]
