"""A flood against a league server on this machine, and what a second client gets meanwhile
(docs/explanation/security.md, "The league: what one client can take"): loopback
only, bounded in count and time, stopping by itself.

One address (the attacker) opens COUNT connections as fast as it can, each either sending
half a request's headers and nothing more (slowloris) or asking for `/events` (streams),
and holds them for HOLD seconds; another address (the client) asks for `/api/standings`
on a new connection every 0.1 s from the start to the end. Printed: what became of the
attacker's connections, and the client's answers and latencies.

    .venv/bin/python scripts/flood.py PORT [--kind slowloris|streams] [--count 1100]
        [--attacker 127.0.0.3] [--client 127.0.0.2] [--hold 20]

The attacker needs COUNT open files of its own (`ulimit -n`). Linux routes all of
127.0.0.0/8 to the loopback, so the two addresses are two clients to the server.
"""

from __future__ import annotations

import argparse
import ipaddress
import selectors
import socket
import statistics
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

HALF = b"GET /api/standings HTTP/1.1\r\nHost: league\r\nX-Slow: "
STREAM = b"GET /events HTTP/1.1\r\nHost: league\r\n\r\n"
ASK = b"GET /api/standings HTTP/1.1\r\nHost: league\r\nConnection: close\r\n\r\n"
MOST_CONNECTIONS = 5000
MOST_SECONDS = 120.0


@dataclass
class Client:
    """The second client's answers: (seconds since the start, latency, outcome)."""

    address: str
    port: int
    start: float
    answers: list[tuple[float, float, str]] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        while not self.stop.is_set():
            began = time.monotonic()
            outcome = ask(self.address, self.port)
            self.answers.append((began - self.start, time.monotonic() - began, outcome))
            self.stop.wait(max(0.0, 0.1 - (time.monotonic() - began)))


def ask(address: str, port: int) -> str:
    """The status of one request on a new connection, or the error that came instead."""
    try:
        with socket.socket() as sock:
            sock.settimeout(10)
            sock.bind((address, 0))
            sock.connect(("127.0.0.1", port))
            sock.sendall(ASK)
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
        return data.split(b" ", 2)[1].decode() if data.startswith(b"HTTP/") else "no answer"
    except OSError as exc:
        return type(exc).__name__


def open_flood(address: str, port: int, count: int, send: bytes
               ) -> tuple[list[socket.socket], Counter[str]]:
    """`count` connections from `address`, each sent `send`; those that failed, by error."""
    opened, failed = [], Counter[str]()
    for _ in range(count):
        sock = socket.socket()
        sock.settimeout(5)
        try:
            sock.bind((address, 0))
            sock.connect(("127.0.0.1", port))
            sock.sendall(send)
        except OSError as exc:
            failed[type(exc).__name__] += 1
            sock.close()
            continue
        sock.setblocking(False)
        opened.append(sock)
    return opened, failed


def fates(opened: list[socket.socket], seen: dict[socket.socket, str]) -> Counter[str]:
    """What became of each connection so far: the status first answered (and "+closed"
    once the server closed it), a reset, or "held" (nothing yet)."""
    selector = selectors.DefaultSelector()
    for sock in opened:
        if not seen.get(sock, "").endswith(("closed", "reset")):
            selector.register(sock, selectors.EVENT_READ)
    for key, _ in selector.select(timeout=0.2) if selector.get_map() else []:
        sock = key.fileobj
        assert isinstance(sock, socket.socket)
        try:
            data = sock.recv(65536)
        except OSError:
            seen[sock] = seen.get(sock, "held") + " reset"
            continue
        if data.startswith(b"HTTP/"):
            seen[sock] = data.split(b" ", 2)[1].decode()
        if not data:
            seen[sock] = seen.get(sock, "nothing") + "+closed"
    selector.close()
    return Counter(seen.get(sock, "held") for sock in opened)


def summary(client: Client, since: float, until: float) -> str:
    answers = [a for a in client.answers if since <= a[0] < until]
    if not answers:
        return "no request"
    outcomes = Counter(outcome for _, _, outcome in answers)
    latencies = sorted(latency * 1000 for _, latency, outcome in answers if outcome == "200")
    text = f"{len(answers)} requests: {dict(outcomes)}"
    if latencies:
        p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
        text += (f"; latency of the 200s p50 {statistics.median(latencies):.1f} ms, p99 "
                 f"{p99:.1f} ms, max {latencies[-1]:.1f} ms")
    return text


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("port", type=int)
    parser.add_argument("--kind", choices=("slowloris", "streams"), default="slowloris")
    parser.add_argument("--count", type=int, default=1100)
    parser.add_argument("--attacker", default="127.0.0.3")
    parser.add_argument("--client", default="127.0.0.2")
    parser.add_argument("--hold", type=float, default=20.0)
    args = parser.parse_args(argv)
    for address in (args.attacker, args.client):
        if not ipaddress.ip_address(address).is_loopback:
            parser.error(f"{address} is not a loopback address: this floods this machine only")
    if not 0 < args.count <= MOST_CONNECTIONS or not 0 < args.hold <= MOST_SECONDS:
        parser.error(f"at most {MOST_CONNECTIONS} connections for {MOST_SECONDS:g} s")
    start = time.monotonic()
    client = Client(args.client, args.port, start)
    thread = threading.Thread(target=client.run, daemon=True)
    thread.start()
    time.sleep(2.0)  # the client's requests before the flood
    began = time.monotonic() - start
    opened, failed = open_flood(args.attacker, args.port, args.count,
                                HALF if args.kind == "slowloris" else STREAM)
    print(f"{args.kind}: {len(opened)} of {args.count} connections from {args.attacker} "
          f"opened in {time.monotonic() - start - began:.1f} s; failed: {dict(failed)}")
    seen: dict[socket.socket, str] = {}
    ends = time.monotonic() + args.hold
    while time.monotonic() < ends:
        counts = fates(opened, seen)
        print(f"  at {time.monotonic() - start - began:5.1f} s: {dict(counts)}")
        time.sleep(max(0.0, min(2.0, ends - time.monotonic())))
    ended = time.monotonic() - start
    for sock in opened:
        sock.close()
    time.sleep(2.0)
    client.stop.set()
    thread.join()
    print(f"{args.client} before the flood: {summary(client, 0, began)}")
    print(f"{args.client} during the flood: {summary(client, began, ended)}")
    print(f"{args.client} after the flood:  {summary(client, ended, float('inf'))}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
