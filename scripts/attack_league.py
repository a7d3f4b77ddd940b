"""A second, independent try at the attacks of issue 46 against a running league (kept apart
from the test suite): seen deals, racing quotas, unbounded bodies, floods, plain-text 500s
and leaked stderr or paths. It prints, for each attack, whether the league stopped it or it
got through, with the evidence, and exits 1 if any got through (or if an author or the
organizer no longer sees what is theirs to see: the rows marked BROKEN).

Written from the issue, README ("Run a league", "Security") and /openapi.json alone.

    .venv/bin/python scripts/attack_league.py --url http://127.0.0.1:8000 --token TOKEN \
        [--token2 OTHER_AUTHOR] [--organizer ORG_TOKEN] [--pid SERVER_PID]
    .venv/bin/python scripts/attack_league.py --start small    # or --start CONFIG

`--start` sets up a fresh league as README says (`arena league invite`, `arena league serve`,
an upload), attacks it, then stops it and removes its folder. `small` is 100-point games of
the random and heuristic bots, at most 60 a minute; a CONFIG is copied into a new folder.
Its server gets a soft RLIMIT_NOFILE of 1024, a login's default (`--server-nofile`).
All traffic goes to 127.0.0.x; every loop is bounded in count and time, and a watchdog ends
the run after `--max-seconds`.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import enum
import gzip
import http.client
import io
import json
import os
import re
import resource
import secrets
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import urllib.parse
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
THIRTY = "123456789012345678901234567890"
"""A 30-digit number: past every integer column and C long."""
MB = 1024 * 1024
READ_LIMIT = 8 * MB
"""The most of one answer's body the harness reads."""


class Result(enum.Enum):
    """What became of one attack (or one check that an author still sees their own data)."""

    STOPPED = "stopped"
    THROUGH = "GOT THROUGH"
    OK = "ok"
    BROKEN = "BROKEN"
    INCONCLUSIVE = "inconclusive"
    SKIPPED = "skipped"


FAILING = (Result.THROUGH, Result.BROKEN)


@dataclass
class Finding:
    attack: str
    result: Result
    evidence: str


@dataclass
class Answer:
    """One HTTP answer: status 0 when the connection failed (the error is the body)."""

    status: int
    ctype: str
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def json(self) -> Any:
        try:
            return json.loads(self.body)
        except ValueError:
            return None

    def json_error(self) -> bool:
        """A 4xx answer whose body is JSON `{"error": ..., ...}`."""
        data = self.json()
        return (400 <= self.status < 500 and "json" in self.ctype
                and isinstance(data, dict) and isinstance(data.get("error"), str))

    def brief(self) -> str:
        return f"{self.status} {self.ctype.split(';')[0] or '-'} {self.text[:90]!r}"


@dataclass
class Harness:
    host: str
    port: int
    token: str
    token2: str | None
    organizer: str | None
    race_token: str
    refuse_token: str | None
    pid: int | None
    uploads_per_hour: int
    known_paths: list[str]
    nonce: str = field(default_factory=lambda: secrets.token_hex(3))
    texts: list[tuple[str, str]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    spy: str = ""
    spy_games: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def mark(self) -> str:
        return f"ATKMARK{self.nonce}"

    def add(self, attack: str, result: Result, evidence: str) -> None:
        self.findings.append(Finding(attack, result, evidence))
        print(f"  [{result.value}] {attack}: {evidence}", flush=True)

    def keep(self, source: str, text: str) -> None:
        with self.lock:
            self.texts.append((source, text[:200_000]))


def say(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


# ---------------------------------------------------------------- HTTP


def call(h: Harness, method: str, path: str, body: bytes | None = None,
         headers: dict[str, str] | None = None, token: str | None = None,
         timeout: float = 30.0, source: str | None = None) -> Answer:
    """One request on a connection of its own; never raises."""
    conn = http.client.HTTPConnection(h.host, h.port, timeout=timeout,
                                      source_address=(source, 0) if source else None)
    sent = dict(headers or {})
    if token:
        sent["Authorization"] = f"Bearer {token}"
    try:
        conn.request(method, path, body=body, headers=sent)
        response = conn.getresponse()
        answer = Answer(response.status, response.getheader("content-type") or "",
                        response.read(READ_LIMIT))
    except (OSError, http.client.HTTPException) as exc:
        answer = Answer(0, "", f"{type(exc).__name__}: {exc}".encode())
    finally:
        conn.close()
    h.keep(f"{method} {path}" + (" [token]" if token else ""), answer.text)
    return answer


def get_json(h: Harness, path: str, token: str | None = None) -> Any:
    answer = call(h, "GET", path, token=token)
    return answer.json() if answer.status == 200 else None


def multipart(fields: dict[str, str | tuple[str, bytes]]) -> tuple[bytes, str]:
    boundary = f"atk{secrets.token_hex(8)}"
    parts = []
    for name, value in fields.items():
        if isinstance(value, tuple):
            parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; '
                         f'filename="{value[0]}"\r\nContent-Type: application/gzip\r\n\r\n'
                         .encode() + value[1] + b"\r\n")
        else:
            parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"'
                         f"\r\n\r\n{value}\r\n".encode())
    return (b"".join(parts) + f"--{boundary}--\r\n".encode(),
            f"multipart/form-data; boundary={boundary}")


def upload(h: Harness, token: str, name: str, archive: bytes, timeout: float = 60.0) -> Answer:
    body, kind = multipart({"name": name, "archive": (f"{name}.tar.gz", archive)})
    return call(h, "POST", "/api/bots", body, {"Content-Type": kind}, token, timeout)


def quoted(path: str) -> str:
    return urllib.parse.quote(path, safe="")


# ---------------------------------------------------------------- bots

SPY = '''"""A random bot that prints its hand to stderr, and plays an illegal reply against the
heuristic bot (so that a game of it ends in a fault whose details can be looked for)."""

import random
import sys

from protocol.sdk import Bot, act, choose, exchange, run

MARK = "{mark}"


class Spy(Bot):
    name = "{name}"
    version = "1.0.{n}"

    def __init__(self):
        self.rng = random.Random()
        self.names = []
        self.told = False

    def on_welcome(self, welcome):
        self.names = list(welcome.get("settings", {{}}).get("names", []))
        self.told = False
        print(MARK, "welcome", self.names, file=sys.stderr, flush=True)

    def decide(self, request):
        hand = (request.get("observation") or {{}}).get("hand")
        if not self.told:
            print(MARK, "my hand", hand, file=sys.stderr, flush=True)
            self.told = True
        if "heuristic" in self.names and {fault}:
            return act({{"action": "play", "cards": [MARK + "-illegal"]}})
        if request["kind"] == "exchange":
            return exchange(self.rng.sample(request["observation"]["hand"], 3))
        if request["kind"] in ("grand_tichu", "tichu"):
            return choose(0)
        return choose(self.rng.randrange(len(request["options"])))


if __name__ == "__main__":
    sys.exit(run(Spy()))
'''

CRASH = '''import sys
print("{mark} about to fail", file=sys.stderr, flush=True)
raise RuntimeError("{mark}: this bot fails on purpose at its start")
'''


def manifest(name: str, n: int = 0) -> str:
    return (f'name = "{name}"\nversion = "1.0.{n}"\nlanguage = "python"\n'
            f'command = ["python", "bot.py"]\ndescription = "attack harness bot {n}"\n')


def archive(files: dict[str, str]) -> bytes:
    """A .tar.gz of a bot folder's `files` (at the archive's top, as bot.toml must be)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o644
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def spy_archive(h: Harness, name: str, n: int = 0, fault: bool = True) -> bytes:
    code = SPY.format(mark=h.mark, name=name, n=n, fault="True" if fault else "False")
    return archive({"bot.toml": manifest(name, n), "bot.py": code})


def wait_upload(h: Harness, upload_id: int, token: str, seconds: float) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    last: dict[str, Any] = {}
    while time.monotonic() < deadline:
        last = get_json(h, f"/api/uploads/{upload_id}", token) or last
        if last.get("status") in ("active", "failed", "retired"):
            return last
        time.sleep(1.0)
    return last


def games_of(h: Harness, bot: str, pages: int = 5) -> list[dict[str, Any]]:
    games: list[dict[str, Any]] = []
    after: Any = None
    for _ in range(pages):
        query = f"/api/games?bot={quoted(bot)}&limit=200" + (f"&after={after}" if after else "")
        page = get_json(h, query)
        if not page or not page.get("games"):
            break
        games += page["games"]
        after = page.get("next")
        if not after:
            break
    return games


def set_up_bots(h: Harness) -> str | None:
    """Uploads the spy bot (and a bot that fails its check) with --token and waits for the
    spy's games; returns the crashing upload's reason, or None."""
    h.spy = f"atk-spy-{h.nonce}"
    say(f"uploading the spy bot {h.spy}")
    answer = upload(h, h.token, h.spy, spy_archive(h, h.spy))
    if answer.status != 202:
        say(f"the spy's upload was refused: {answer.brief()}")
        return None
    status = wait_upload(h, answer.json()["id"], h.token, 150)
    say(f"spy upload: {status.get('status')} {str(status.get('reason', ''))[:200]}")
    if status.get("status") != "active":
        return None
    crash = f"atk-crash-{h.nonce}"
    files = {"bot.toml": manifest(crash), "bot.py": CRASH.format(mark=h.mark)}
    answer = upload(h, h.token, crash, archive(files))
    reason = None
    if answer.status == 202:
        crashed = wait_upload(h, answer.json()["id"], h.token, 120)
        call(h, "GET", f"/api/uploads/{answer.json()['id']}")
        call(h, "GET", f"/api/bots/{crash}")
        call(h, "GET", f"/bots/{crash}")
        reason = json.dumps(crashed)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        games = games_of(h, h.spy)
        opponents = {name for g in games for name in g.get("pair", "").split("~")}
        if len(games) >= 4 and any(o.startswith("heuristic@") for o in opponents):
            break
        time.sleep(2.0)
    h.spy_games = [g["id"] for g in games_of(h, h.spy)]
    say(f"the spy has {len(h.spy_games)} games stored")
    return reason


# ---------------------------------------------------------------- 5. plain-text 500s


def stream_probe(h: Harness, path: str, seconds: float = 5.0) -> tuple[Result, str]:
    """An event stream's path: a 4xx, a stream that ends cleanly or stays open is stopped; a
    5xx or a stream cut mid-way (no closing chunk) got through."""
    conn = http.client.HTTPConnection(h.host, h.port, timeout=seconds)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        if response.status != 200:
            body = response.read(READ_LIMIT).decode("utf-8", "replace")
            h.keep(f"GET {path}", body)
            result = Result.STOPPED if 400 <= response.status < 500 else Result.THROUGH
            return result, f"{response.status} {body[:80]!r}"
        try:
            body = response.read(READ_LIMIT).decode("utf-8", "replace")
        except http.client.IncompleteRead as exc:
            return Result.THROUGH, f"200, then the stream broke mid-way ({exc!r:.80})"
        except TimeoutError:
            return Result.STOPPED, "200, a stream still open after 5 s"
        return Result.STOPPED, f"200, a stream that ended cleanly: {body[:80]!r}"
    except (OSError, http.client.HTTPException) as exc:
        return Result.THROUGH, f"the connection failed: {exc!r:.100}"
    finally:
        conn.close()


def judge_api(answer: Answer) -> Result:
    if answer.status == 429:
        return Result.INCONCLUSIVE
    return Result.STOPPED if answer.json_error() else Result.THROUGH


def deep_bodies(h: Harness) -> list[tuple[str, bytes]]:
    spy = json.dumps(h.spy or "nobot")
    return [
        ("2,000 nested arrays (4,000 bytes)", b"[" * 2000 + b"]" * 2000),
        ("an object whose bot is 1,990 nested arrays",
         b'{"bot": ' + b"[" * 1990 + b"]" * 1990 + b"}"),
        ("a JSON list", b"[]"),
        ("a JSON string", b'"random"'),
        ("a JSON number", b"12"),
        ("JSON null", b"null"),
        ("bot and opponent numbers", b'{"bot": 1, "opponent": 2}'),
        ("bot a list, opponent an object", b'{"bot": ["a"], "opponent": {"b": 1}}'),
        ("version a number", b'{"bot": %s, "opponent": "random", "version": 12}' % spy.encode()),
        ("version a 1e400 float",
         b'{"bot": %s, "opponent": "random", "version": 1e400}' % spy.encode()),
        ("version a 30-digit number",
         b'{"bot": %s, "opponent": "random", "version": %s}' % (spy.encode(), THIRTY.encode())),
        ("bot null", b'{"bot": null, "opponent": null}'),
        ("NaN", b'{"bot": NaN}'),
        ("invalid UTF-8", b'{"bot": "\xff\xfe"}'),
        ("truncated JSON", b'{"bot": '),
    ]


def attack_errors(h: Harness) -> None:
    say("5. plain-text 500s")
    gets = [f"/api/games?after={THIRTY}", f"/api/games?limit={THIRTY}",
            f"/api/games?after=-{THIRTY}", "/api/games?after=abc", f"/api/uploads/{THIRTY}",
            f"/api/uploads/-{THIRTY}", f"/api/practice/{THIRTY}", f"/api/games/{THIRTY}",
            f"/api/bots/{'x' * 300}"]
    held: list[str] = []
    failed: list[str] = []
    busy: list[str] = []

    def sort(label: str, answer: Answer) -> None:
        bucket = {Result.STOPPED: held, Result.THROUGH: failed}.get(judge_api(answer), busy)
        bucket.append(f"{label} -> {answer.brief()}")

    for path in gets:
        sort(f"GET {path[:60]}", call(h, "GET", path, token=h.token))
    if h.organizer and h.spy:
        path = f"/api/bots/{h.spy}/rebuild?upload={THIRTY}"
        sort(f"POST {path}", call(h, "POST", path, b"", token=h.organizer))
    report_list(h, "5a a 30-digit number in ?after=, ?limit= and id paths", held, failed,
                busy)
    stream_failed: list[str] = []
    stream_held: list[str] = []
    for path in (f"/practice/{THIRTY}/events", f"/practice/{THIRTY}", f"/live/{THIRTY}",
                 f"/practice/{THIRTY}/replay"):
        result, evidence = stream_probe(h, path)
        (stream_held if result is Result.STOPPED else stream_failed).append(
            f"GET {path} -> {evidence}")
    report_list(h, "5b a 30-digit id in page and event-stream paths", stream_held,
                stream_failed)
    for bucket in (held, failed, busy):
        bucket.clear()
    for label, body in deep_bodies(h):
        sort(label, call(h, "POST", "/api/practice", body,
                         {"Content-Type": "application/json"}, h.token))
    report_list(h, "5c deep nesting and odd JSON types to POST /api/practice", held, failed,
                busy)


def report_list(h: Harness, attack: str, held: list[str], failed: list[str],
                unsure: list[str] | None = None) -> None:
    if failed:
        h.add(attack, Result.THROUGH, f"{len(failed)} of {len(held) + len(failed)} not a JSON "
              f"4xx: " + " | ".join(failed))
    elif unsure:
        h.add(attack, Result.INCONCLUSIVE, "429 (a quota answered first): " + " | ".join(unsure))
    else:
        h.add(attack, Result.STOPPED, f"all {len(held)} answered a 4xx: " + " | ".join(held[:4]))


# ---------------------------------------------------------------- 3. body limits


def memory_kb(pid: int | None) -> tuple[int, int] | None:
    """(VmRSS, VmHWM) of `pid` in kB, or None."""
    if pid is None:
        return None
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    values = dict(re.findall(r"^(VmRSS|VmHWM):\s+(\d+) kB", text, re.M))
    return int(values.get("VmRSS", 0)), int(values.get("VmHWM", 0))


def listening_pid(port: int) -> int | None:
    """The process holding the listening socket of 127.0.0.1:port (or any address), from
    /proc: the server's process when it runs on this machine."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                cols = line.split()
                if cols[3] == "0A" and int(cols[1].rsplit(":", 1)[1], 16) == port:
                    inodes.add(f"socket:[{cols[9]}]")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            for fd in (entry / "fd").iterdir():
                with contextlib.suppress(OSError):
                    if os.readlink(fd) in inodes:
                        return int(entry.name)
    return None


@dataclass
class Flood:
    """What one oversized body did: bytes sent before the server answered or closed."""

    sent: int = 0
    answer: str = ""
    closed: str = ""
    rss_before: int = 0
    rss_peak: int = 0
    seconds: float = 0.0

    def sample(self, pid: int | None, hwm_before: int | None = None) -> None:
        """Takes the server's RSS into the peak; with `hwm_before`, also its high-water mark
        if that rose since (a peak between two samples)."""
        memory = memory_kb(pid)
        if memory:
            self.rss_peak = max(self.rss_peak, memory[0])
            if hwm_before is not None and memory[1] > hwm_before:
                self.rss_peak = max(self.rss_peak, memory[1])

    def grew_mb(self) -> float:
        return (self.rss_peak - self.rss_before) / 1024


def read_answer(sock: socket.socket, wait: float) -> str:
    """What the server sent back within `wait` seconds (its first line and a bit)."""
    sock.settimeout(wait)
    data = b""
    with contextlib.suppress(OSError):
        while len(data) < 65536:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
            if b"\r\n\r\n" in data and len(data) > data.index(b"\r\n\r\n") + 4:
                break
    return data.decode("latin-1")


def framed(data: bytes, chunked: bool) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data) if chunked else data


def send_body(h: Harness, head: bytes, preamble: bytes, tail: bytes, limit: int,
              seconds: float, chunked: bool = True) -> Flood:
    """Sends `head`, then a body (preamble, `limit` bytes of filler, tail), chunked or as the
    Content-Length of `head` says, stopping as soon as the server answers or closes; samples
    the server's RSS as it goes."""
    flood = Flood()
    memory = memory_kb(h.pid)
    flood.rss_before = flood.rss_peak = memory[0] if memory else 0
    filler = framed(b"0123456789abcdef" * 65536, chunked)  # 1 MiB
    sock = socket.create_connection((h.host, h.port), timeout=10)
    selector = selectors.DefaultSelector()
    selector.register(sock, selectors.EVENT_READ)
    start = time.monotonic()
    try:
        sock.sendall(head + framed(preamble, chunked))
        while flood.sent < limit and time.monotonic() - start < seconds:
            if selector.select(0):
                break
            try:
                sock.sendall(filler)
            except OSError as exc:
                flood.closed = f"{type(exc).__name__} after {flood.sent // MB} MiB"
                break
            flood.sent += MB
            flood.sample(h.pid)
        else:
            with contextlib.suppress(OSError):
                sock.sendall(framed(tail, chunked) + (b"0\r\n\r\n" if chunked else b""))
        flood.answer = read_answer(sock, 60 if flood.sent >= limit else 10)
    except OSError as exc:
        flood.closed = flood.closed or f"{type(exc).__name__}: {exc}"
    finally:
        selector.close()
        sock.close()
    flood.seconds = time.monotonic() - start
    time.sleep(1.0)
    flood.sample(h.pid, memory[1] if memory else 0)
    return flood


EARLY = 64 * MB
"""An answer (or a close) before this many bytes of an oversized body is an early refusal: the
kernel's socket buffers on loopback hold up to about 36 MiB the server never read."""


def judge_flood(h: Harness, attack: str, flood: Flood) -> None:
    first = flood.answer.split("\r\n", 1)[0] or "(no answer)"
    growth = f"{flood.grew_mb():.0f} MB" if h.pid else "unknown (no --pid)"
    evidence = (f"sent {flood.sent / MB:.0f} MiB in {flood.seconds:.1f} s before the server "
                f"answered or closed; answer {first!r}; {flood.closed or 'not closed early'}; "
                f"server RSS {flood.rss_before / 1024:.0f} MB -> peak {flood.rss_peak / 1024:.0f}"
                f" MB (growth {growth})")
    late = flood.sent >= EARLY or (h.pid is not None and flood.grew_mb() >= 64)
    h.add(attack, Result.THROUGH if late else Result.STOPPED, evidence)


def attack_bodies(h: Harness, limit_mb: int, seconds: float) -> None:
    say(f"3. oversized bodies (up to {limit_mb} MiB each)")
    boundary = f"atk{h.nonce}"
    form = f"multipart/form-data; boundary={boundary}"
    preamble = (f'--{boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\n'
                f'atk-big-{h.nonce}\r\n--{boundary}\r\nContent-Disposition: form-data; '
                f'name="archive"; filename="big.tar.gz"\r\nContent-Type: application/gzip'
                "\r\n\r\n").encode()
    tail = f"\r\n--{boundary}--\r\n".encode()
    json_parts = (b'{"bot": "', b'"}')
    cases = [("3a chunked body to POST /api/practice", "/api/practice", "application/json",
              json_parts, True),
             ("3b chunked multipart upload to POST /api/bots", "/api/bots", form,
              (preamble, tail), True),
             ("3c chunked multipart upload to the form's POST /upload", "/upload", form,
              (preamble, tail), True),
             (f"3d multipart upload of a true {limit_mb} MiB Content-Length to POST /api/bots",
              "/api/bots", form, (preamble, tail), False)]
    if h.organizer and h.spy:
        cases.append(("3e chunked body to an organizer's POST /api/bots/NAME/enable",
                      f"/api/bots/{h.spy}/enable", "application/json", json_parts, True))
    for attack, path, kind, (first, last), chunked in cases:
        token = h.organizer if "organizer" in attack else h.token
        length = ("Transfer-Encoding: chunked" if chunked else
                  f"Content-Length: {len(first) + limit_mb * MB + len(last)}")
        head = (f"POST {path} HTTP/1.1\r\nHost: {h.host}:{h.port}\r\n"
                f"Authorization: Bearer {token}\r\nContent-Type: {kind}\r\n{length}\r\n\r\n"
                ).encode()
        judge_flood(h, attack, send_body(h, head, first, last, limit_mb * MB, seconds, chunked))


# ---------------------------------------------------------------- 4. floods


@dataclass
class Probe:
    """The second client's requests (from another address) while a flood holds."""

    answers: list[tuple[float, str]] = field(default_factory=list)
    fds_peak: int = 0
    """The most descriptors the server's process held at one of the probes."""

    def run(self, h: Harness, source: str, stop: threading.Event, every: float = 0.5) -> None:
        while not stop.is_set():
            with contextlib.suppress(OSError, TypeError):
                self.fds_peak = max(self.fds_peak, len(os.listdir(f"/proc/{h.pid}/fd")))
            began = time.monotonic()
            answer = call(h, "GET", "/api/standings", timeout=3.0, source=source)
            verdict = "200" if answer.status == 200 else answer.brief()[:80]
            self.answers.append((began, verdict))
            stop.wait(max(0.0, every - (time.monotonic() - began)))

    def between(self, start: float, end: float) -> list[str]:
        return [verdict for at, verdict in self.answers if start <= at <= end]


def open_many(h: Harness, count: int, request: bytes, seconds: float
              ) -> tuple[list[socket.socket], list[str]]:
    """Up to `count` connections from 127.0.0.1, each sent `request`; the errors met."""
    socks: list[socket.socket] = []
    errors: list[str] = []
    deadline = time.monotonic() + seconds
    for _ in range(count):
        if time.monotonic() > deadline:
            errors.append("time up while opening")
            break
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.settimeout(3.0)
            sock.bind(("127.0.0.1", 0))
            sock.connect((h.host, h.port))
            sock.sendall(request)
            sock.setblocking(False)
            socks.append(sock)
        except OSError as exc:
            errors.append(type(exc).__name__)
            sock.close()
    return socks, errors


def hold(socks: list[socket.socket], seconds: float, keep_alive: bytes | None
         ) -> dict[str, int]:
    """Keeps the connections for `seconds`, reading what comes (a stream's events, a refusal)
    and, if `keep_alive`, sending it on each every 5 s (a slowloris's next header line);
    returns how each connection fared: its first answer line, or closed."""
    fate: dict[socket.socket, str] = {}
    selector = selectors.DefaultSelector()
    for sock in socks:
        selector.register(sock, selectors.EVENT_READ)
    end = time.monotonic() + seconds
    next_push = time.monotonic() + 5.0
    while time.monotonic() < end:
        for key, _ in selector.select(timeout=0.5):
            sock = key.fileobj  # type: ignore[assignment]  # only sockets are registered
            try:
                data = sock.recv(65536)
            except OSError as exc:
                data, fate[sock] = b"", fate.get(sock, f"reset ({type(exc).__name__})")
            if data and sock not in fate:
                fate[sock] = data.split(b"\r\n", 1)[0].decode("latin-1")[:40]
            if not data:
                fate[sock] = fate.get(sock, "closed by the server") + " (closed)"
                selector.unregister(sock)
        if keep_alive and time.monotonic() > next_push:
            next_push += 5.0
            for sock in socks:
                with contextlib.suppress(OSError):
                    sock.send(keep_alive)
    selector.close()
    counts: dict[str, int] = defaultdict(int)
    for sock in socks:
        counts[fate.get(sock, "no answer, still open")] += 1
    return dict(counts)


def flood_once(h: Harness, attack: str, request: bytes, keep_alive: bytes | None,
               count: int, seconds: float) -> tuple[dict[str, int], Probe, str]:
    """Opens `count` connections from 127.0.0.1 sending `request`, holds them `seconds` while
    a client on 127.0.0.2 asks GET /api/standings every 0.5 s, then closes them all; judges
    whether that client was answered, and returns how the attacker's connections fared."""
    probe, stop = Probe(), threading.Event()
    thread = threading.Thread(target=probe.run, args=(h, "127.0.0.2", stop), daemon=True)
    before = probe_baseline(h)
    thread.start()
    socks: list[socket.socket] = []
    try:
        opened_at = time.monotonic()
        socks, errors = open_many(h, count, request, 60.0)
        held_at = time.monotonic()
        fates = hold(socks, seconds, keep_alive)
        held_until = time.monotonic()
    finally:
        for sock in socks:
            sock.close()
        stop.set()
        thread.join(10)
    during = probe.between(held_at, held_until)
    opening = probe.between(opened_at, held_at)
    answered = sum(1 for v in during if v == "200")
    failures = sorted({v for v in during + opening if v != "200"})[:3]
    errs = {e: errors.count(e) for e in set(errors)}
    opened = (f"opened {len(socks)} of {count} in {held_at - opened_at:.1f} s (errors "
              f"{errs or 'none'}); their fate after {seconds:.0f} s: {fates}")
    evidence = (f"the client on 127.0.0.2: {answered} of {len(during)} answered 200 while held,"
                f" {sum(1 for v in opening if v == '200')} of {len(opening)} while opening"
                + (f"; failures: {failures}" if failures else "")
                + (f"; the server held up to {probe.fds_peak} descriptors (its limit "
                   f"{open_files_limit(h.pid)})" if probe.fds_peak else "") + "; " + opened)
    if before != 200 or not during:
        h.add(attack, Result.INCONCLUSIVE, f"baseline probe answered {before}; " + evidence)
    else:
        h.add(attack, Result.THROUGH if answered < 0.9 * len(during) else Result.STOPPED,
              evidence)
    settle(h)
    return fates, probe, opened


def judge_cap(h: Harness, attack: str, held: int, count: int, opened: str) -> None:
    """More than half of one address's flood still held by the server at the end: no cap per
    client (nor, for half-sent headers, a time limit shorter than the hold)."""
    h.add(attack, Result.THROUGH if held > count / 2 else Result.STOPPED,
          f"{held} of {count} connections from one address still held at the end; " + opened)


def open_files_limit(pid: int | None) -> str:
    with contextlib.suppress(OSError):
        found = re.search(r"^Max open files\s+(\S+)", Path(f"/proc/{pid}/limits").read_text(),
                          re.M)
        return found.group(1) if found else "?"
    return "?"


def probe_baseline(h: Harness) -> int:
    return call(h, "GET", "/api/standings", timeout=5.0, source="127.0.0.2").status


def settle(h: Harness, seconds: float = 30.0) -> None:
    """Waits (bounded) until the server answers again after a flood."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and probe_baseline(h) != 200:
        time.sleep(1.0)


def attack_floods(h: Harness, count: int, seconds: float) -> None:
    say(f"4. floods of {count} connections from 127.0.0.1, held {seconds:.0f} s")
    host = f"Host: {h.host}:{h.port}\r\n"
    half = f"GET /api/standings HTTP/1.1\r\n{host}User-Agent: atk\r\n".encode()
    fates, _, opened = flood_once(h, f"4a slowloris, {count} half-sent headers: is another "
                                  "client answered", half, b"X-a: b\r\n", count, seconds)
    judge_cap(h, "4b slowloris: capped per address, or timed out", fates.get(
        "no answer, still open", 0), count, opened)
    events = f"GET /events HTTP/1.1\r\n{host}Accept: text/event-stream\r\n\r\n".encode()
    fates, _, opened = flood_once(h, f"4c {count} GET /events streams: is another client "
                                  "answered", events, None, count, seconds)
    judge_cap(h, "4d event streams capped per address", fates.get("HTTP/1.1 200 OK", 0),
              count, opened)


# ---------------------------------------------------------------- 2. quotas


def attack_race(h: Harness, count: int = 16) -> None:
    say(f"2. quota race: {count} uploads at once by one author")
    name = f"atk-race-{h.nonce}"
    bodies = [spy_archive(h, name, n + 1, fault=False) for n in range(count)]
    barrier = threading.Barrier(count, timeout=30)
    statuses: list[int] = [0] * count

    def one(i: int) -> None:
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait()
        statuses[i] = upload(h, h.race_token, name, bodies[i], timeout=90).status

    threads = [threading.Thread(target=one, args=(i,), daemon=True) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    accepted = statuses.count(202)
    tally = {s: statuses.count(s) for s in sorted(set(statuses))}
    evidence = (f"{accepted} of {count} accepted (202) where 'two still being taken in' allows "
                f"2; statuses {tally}")
    h.add("2a quota race", Result.THROUGH if accepted > 2 else Result.STOPPED, evidence)


def attack_refusals(h: Harness) -> None:
    """Uploads refused at intake (not an archive) should count toward the hourly quota: the
    one after `uploads_per_hour` of them is a 429."""
    if not h.refuse_token:
        h.add("2b refused uploads count toward the hourly quota", Result.SKIPPED,
              "needs an author of its own (--token2)")
        return
    tries = min(h.uploads_per_hour + 1, 61)
    say(f"2b. {tries} uploads of a bad archive by one author (uploads_per_hour "
        f"{h.uploads_per_hour})")
    statuses = []
    for _ in range(tries):
        answer = upload(h, h.refuse_token, f"atk-bad-{h.nonce}", b"not an archive at all")
        statuses.append(answer.status)
        if answer.status == 429:
            break
    tally = {s: statuses.count(s) for s in sorted(set(statuses))}
    if 429 in statuses:
        h.add("2b refused uploads count toward the hourly quota", Result.STOPPED,
              f"429 at bad upload {len(statuses)} (uploads_per_hour {h.uploads_per_hour}); "
              f"statuses {tally}")
    else:
        h.add("2b refused uploads count toward the hourly quota", Result.THROUGH,
              f"{tries} bad uploads in a row, none refused with 429 (uploads_per_hour "
              f"{h.uploads_per_hour}); statuses {tally}")


# ---------------------------------------------------------------- 6. privacy


def replay_data(h: Harness, game_id: str) -> Any:
    """The replay viewer's data of a game (base64 of gzipped JSON in /replays/ID.js)."""
    answer = call(h, "GET", f"/replays/{quoted(game_id)}.js")
    found = re.search(r'"([A-Za-z0-9+/=]{40,})"', answer.text)
    if answer.status != 200 or not found:
        return None
    with contextlib.suppress(ValueError, OSError):
        data = json.loads(gzip.decompress(base64.b64decode(found.group(1))))
        h.keep(f"replay data of {game_id}", json.dumps(data))
        return data
    return None


def faulted(record: dict[str, Any]) -> bool:
    return bool(record.get("fault_seat") is not None or record.get("fault")
                or (record.get("record") or {}).get("fault"))


def spy_records(h: Harness, token: str | None, limit: int = 12) -> dict[str, str]:
    """The spy's game records as `token` (None: anyone) gets them, as text, by game id: a few
    normal games and every faulted one among the first 40."""
    texts: dict[str, str] = {}
    normal = 0
    for game_id in h.spy_games[:40]:
        answer = call(h, "GET", f"/api/games/{quoted(game_id)}", token=token)
        data = answer.json() or {}
        if faulted(data) or normal < limit:
            texts[game_id] = answer.text
            normal += 0 if faulted(data) else 1
    return texts


def excerpt(text: str, needle: str, before: int = 60, after: int = 100) -> str:
    at = text.find(needle)
    return repr(text[max(0, at - before):at + after]) if at >= 0 else "(not found)"


def leaks(texts: dict[str, str], needle: str) -> list[str]:
    return [game_id for game_id, text in texts.items() if needle in text]


def fault_shown(h: Harness) -> str:
    """The public fault fields of the first faulted spy game, shortened."""
    for game_id in h.spy_games[:40]:
        data = get_json(h, f"/api/games/{quoted(game_id)}") or {}
        if faulted(data):
            record = data.get("record") or {}
            shown = {"fault_message": data.get("fault_message"), "fault": record.get("fault")}
            return f"{game_id}: {json.dumps(shown)[:300]}"
    return "no faulted game of the spy found"


def attack_privacy(h: Harness) -> None:
    say("6. privacy of stderr and of the failing decision")
    if not h.spy_games:
        h.add("6a stderr in public records", Result.INCONCLUSIVE, "the spy bot has no games")
        return
    public = spy_records(h, None)
    stderr = leaks(public, f"{h.mark} my hand")
    illegal = leaks(public, f"{h.mark}-illegal")
    h.add("6a a seat's stderr in GET /api/games/ID without a token",
          Result.THROUGH if stderr else Result.STOPPED,
          f"{len(stderr)} of {len(public)} public records of the spy hold its stderr"
          + (f", e.g. {excerpt(public[stderr[0]], h.mark + ' my hand')}" if stderr else ""))
    quote = excerpt(public[illegal[0]], f"{h.mark}-illegal") if illegal else fault_shown(h)
    h.add("6b the failing decision's details in the public record",
          Result.THROUGH if illegal else Result.STOPPED,
          f"{len(illegal)} public records quote the spy's illegal reply: {quote}")
    pages = {"replay data": json.dumps(replay_data(h, h.spy_games[0])),
             "bot page": call(h, "GET", f"/bots/{h.spy}").text,
             "bot API": call(h, "GET", f"/api/bots/{h.spy}").text,
             "replay page": call(h, "GET", f"/games/{quoted(h.spy_games[0])}").text}
    shown = [where for where, text in pages.items() if h.mark in text]
    h.add("6c stderr in the public replay data and pages", Result.THROUGH if shown
          else Result.STOPPED, f"the spy's stderr mark found in: {shown or 'none of'} "
          f"{sorted(pages)}")
    privacy_by_token(h)
    privacy_practice(h)


def privacy_by_token(h: Harness) -> None:
    own = spy_records(h, h.token, limit=4)
    seen = leaks(own, f"{h.mark} my hand")
    h.add("6d the author sees their own bot's stderr (their token)",
          Result.OK if seen else Result.BROKEN,
          f"{len(seen)} of {len(own)} records fetched with the author's token hold it")
    if h.token2:
        other = spy_records(h, h.token2, limit=4)
        seen = leaks(other, f"{h.mark} my hand")
        h.add("6e another author's token reads the spy's stderr",
              Result.THROUGH if seen else Result.STOPPED,
              f"{len(seen)} of {len(other)} records fetched with --token2 hold it")
    if h.organizer:
        org = spy_records(h, h.organizer, limit=4)
        seen = leaks(org, f"{h.mark} my hand")
        h.add("6f the organizer sees a bot's stderr (their token)",
              Result.OK if seen else Result.BROKEN,
              f"{len(seen)} of {len(org)} records fetched with --organizer hold it")


def privacy_practice(h: Harness) -> None:
    body = json.dumps({"bot": h.spy, "opponent": "random"}).encode()
    answer = call(h, "POST", "/api/practice", body, {"Content-Type": "application/json"},
                  h.token)
    data = answer.json() or {}
    if answer.status != 202 or "id" not in data:
        h.add("6g a practice game's stderr", Result.INCONCLUSIVE,
              f"no practice game: {answer.brief()}")
        return
    path = f"/api/practice/{data['id']}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        state = get_json(h, path, h.token) or {}
        if state.get("status") in ("done", "failed"):
            break
        time.sleep(1.0)
    public = call(h, "GET", path).text
    own = call(h, "GET", path, token=h.token).text
    h.add("6g a practice game's stderr without a token",
          Result.THROUGH if h.mark in public else Result.STOPPED,
          f"GET {path} without a token {'holds' if h.mark in public else 'lacks'} the "
          f"spy's stderr; with the author's token it {'holds' if h.mark in own else 'lacks'}"
          " it")


SYSTEM = ("/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/etc/", "/dev/", "/proc/", "/sys/",
          "/run/")
PATH = re.compile(r"(?<![\w:/.%-])/[\w.@~+-]+(?:/[\w.@~+-]+)+")


def server_path(h: Harness, candidate: str) -> str | None:
    """The part of `candidate` that is a path of the server's machine (a known folder of the
    league, or an existing path outside the system's folders), or None."""
    for known in h.known_paths:
        if candidate.startswith(known):
            return candidate
    parts = candidate.rstrip(".:,;").split("/")
    for end in range(len(parts), 2, -1):
        prefix = "/".join(parts[:end])
        if os.path.exists(prefix):
            return None if prefix.startswith(SYSTEM) else prefix
    return None


def attack_paths(h: Harness) -> None:
    """Looks in every answer the harness got for absolute paths of the server's machine."""
    found: dict[str, set[str]] = defaultdict(set)
    with h.lock:
        texts = list(h.texts)
    for source, text in texts:
        for match in PATH.findall(text):
            path = server_path(h, match)
            if path:
                found[path].add(source.split("?")[0][:60])
    if not found:
        h.add("6h the server's absolute paths in answers", Result.STOPPED,
              f"none in {len(texts)} answers (known: {h.known_paths or 'none given'})")
        return
    shown = [f"{path} (in {', '.join(sorted(where)[:2])})" for path, where in
             sorted(found.items(), key=lambda item: -len(item[1]))[:5]]
    h.add("6h the server's absolute paths in answers", Result.THROUGH,
          f"{len(found)} paths in {len(texts)} answers, e.g. " + "; ".join(shown))


# ---------------------------------------------------------------- 1. seen deals


@dataclass
class Game:
    id: str
    pair: str
    pair_index: int
    matchup: str
    started: float
    finished: float
    seed: Any
    hands: set[frozenset[str]]
    """The first eight cards dealt to each seat in each round."""


def dealt(events: list[Any]) -> set[frozenset[str]]:
    """Each seat's first eight cards of each round, from a list of events."""
    hands: dict[tuple[int, int], list[str]] = defaultdict(list)
    round_no = 0
    for event in events:
        if not isinstance(event, dict):
            continue
        if event.get("kind") == "round_start":
            round_no += 1
        elif event.get("kind") == "deal" and isinstance(event.get("cards"), list):
            hands[(round_no, event.get("seat", -1))] += [str(c) for c in event["cards"]]
    return {frozenset(cards[:8]) for cards in hands.values() if len(cards) >= 8}


def event_lists(data: Any, depth: int = 0) -> Iterator[list[Any]]:
    """Every list of events (dicts with a "kind") inside `data`."""
    if depth > 8:
        return
    if isinstance(data, list):
        if data and all(isinstance(e, dict) and "kind" in e for e in data[:5]):
            yield data
        else:
            for item in data:
                yield from event_lists(item, depth + 1)
    elif isinstance(data, dict):
        for value in data.values():
            yield from event_lists(value, depth + 1)


def when(stamp: str | None) -> float:
    try:
        return datetime.strptime(stamp or "", "%Y-%m-%dT%H:%M:%S%z").timestamp()
    except ValueError:
        return float("nan")


def all_games(h: Harness, most: int) -> list[dict[str, Any]]:
    games: list[dict[str, Any]] = []
    after: Any = None
    for _ in range(most // 200 + 1):
        page = get_json(h, "/api/games?limit=200" + (f"&after={after}" if after else ""))
        if not page or not page.get("games"):
            break
        games += page["games"]
        after = page.get("next")
        if not after or len(games) >= most:
            break
    return games[:most]


def published_game(h: Harness, summary: dict[str, Any], replays: bool) -> Game:
    """One game's dealt hands as published: its record (GET /api/games/ID) and, if `replays`,
    its replay viewer's data."""
    data = get_json(h, f"/api/games/{quoted(summary['id'])}") or {}
    record = data.get("record") or {}
    hands = set().union(*(dealt(events) for events in event_lists(data)))
    if replays:
        hands |= set().union(*(dealt(events) for events in
                               event_lists(replay_data(h, summary["id"]))))
    finished = when(summary.get("finished_at"))
    pair = str(summary.get("pair", summary["id"].rsplit(".", 1)[0]))
    return Game(summary["id"], pair, int(summary.get("pair_index", -1)),
                pair.rsplit("#", 1)[0], finished - float(summary.get("seconds") or 0),
                finished, record.get("seed"), hands)


def seen_before(games: list[Game]) -> list[str]:
    """Games dealt a hand that another pair's game had published before they started (its
    finish second, plus one, before this game's start)."""
    shown: dict[frozenset[str], list[Game]] = defaultdict(list)
    for game in games:
        for hand in game.hands:
            shown[hand].append(game)
    found = []
    for game in games:
        for hand in game.hands:
            earlier = [g for g in shown[hand] if g.pair != game.pair
                       and g.finished + 1 <= game.started]
            if earlier:
                first = min(earlier, key=lambda g: g.finished)
                found.append(f"{game.id} (started {time.strftime('%H:%M:%S', time.localtime(game.started))})"
                             f" was dealt {sorted(hand)} published by {first.id} at "
                             f"{time.strftime('%H:%M:%S', time.localtime(first.finished))}")
                break
    return found


def shared_across_matchups(games: list[Game]) -> list[str]:
    """Pair indexes whose deals or seeds are the same in different matchups."""
    by_index: dict[int, dict[str, Game]] = defaultdict(dict)
    for game in games:
        by_index[game.pair_index].setdefault(game.matchup, game)
    found = []
    for index, firsts in sorted(by_index.items()):
        matchups = list(firsts.values())
        for i, one in enumerate(matchups):
            for other in matchups[i + 1:]:
                same_seed = one.seed is not None and one.seed == other.seed
                if same_seed or one.hands & other.hands:
                    found.append(f"pair {index}: {one.pair} and {other.pair} "
                                 f"({'the same seed' if same_seed else 'a shared hand'})")
    return found


def attack_deals(h: Harness, most: int, replays: int) -> None:
    say("1. seen deals: every published record")
    summaries = all_games(h, most)
    games = [published_game(h, s, i < replays) for i, s in enumerate(summaries)]
    with_hands = [g for g in games if g.hands]
    matchups = {g.matchup for g in with_hands}
    base = (f"{len(games)} games read ({len(with_hands)} with dealt hands published, "
            f"{len(matchups)} matchups, replay data of {min(replays, len(games))})")
    if len(matchups) < 2:
        h.add("1a a deal published before a later game was dealt it", Result.INCONCLUSIVE,
              base + ": fewer than two matchups to compare")
        return
    seen = seen_before(with_hands)
    h.add("1a a deal published before a later game was dealt it",
          Result.THROUGH if seen else Result.STOPPED,
          base + f"; {len(seen)} games dealt a hand published earlier by another pair"
          + (f", e.g. {seen[0]}" if seen else ""))
    shared = shared_across_matchups(games)
    h.add("1b pair k of different matchups share a seed or a deal",
          Result.THROUGH if shared else Result.STOPPED,
          f"{len(shared)} pairs of matchups share pair k's seed or deal"
          + (f", e.g. {'; '.join(shared[:2])}" if shared else ""))


# ---------------------------------------------------------------- a league of our own

CONFIG = """# A small league for scripts/attack_league.py: the bundled random and heuristic bots,
# 100-point games, at most 60 rated games a minute.
[tournament]
name = "attack-league"
entrants = [{entrants}]
target = 100
storage = "league.sqlite"
pin_cpus = false

[league]
uploads_per_hour = {uploads_per_hour}
upload_megabytes = 1
placement_pairs = 1
batch_pairs = 1
check_games = 1
check_target = 100
practice_per_day = 10
games_per_minute = 60

[intake]
folder = "intake"
"""


def arena_command() -> list[str]:
    beside = Path(sys.executable).parent / "arena"
    return [str(beside)] if beside.exists() else [sys.executable, "-m", "arena.cli"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Started:
    """A league this harness started (`--start`), stopped and removed at the end."""

    folder: Path
    config: Path
    port: int
    process: subprocess.Popen[bytes] | None = None
    tokens: dict[str, str] = field(default_factory=dict)
    keep: bool = False

    def invite(self, author: str, organizer: bool = False) -> str:
        extra = ["--organizer"] if organizer else []
        result = subprocess.run([*arena_command(), "league", "invite", str(self.config),
                                 author, *extra], cwd=ROOT, capture_output=True, text=True,
                                timeout=120, env=self.env())
        if result.returncode != 0:
            raise SystemExit(f"arena league invite failed: {result.stderr}")
        return result.stdout.strip()

    def serve(self, nofile: int) -> None:
        options = [] if shutil.which("bwrap") else ["--allow-unsandboxed"]

        def limit() -> None:
            if nofile:
                hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
                resource.setrlimit(resource.RLIMIT_NOFILE, (min(nofile, hard), hard))

        with open(self.folder / "serve.log", "ab") as log:
            self.process = subprocess.Popen(
                [*arena_command(), "league", "serve", str(self.config), "--port",
                 str(self.port), "-j", "1", *options], cwd=ROOT, stdout=log, stderr=log,
                preexec_fn=limit, start_new_session=True, env=self.env())

    def env(self) -> dict[str, str]:
        """The environment of the league's commands: its bot cache in its own folder, so that
        nothing of it outlives the run."""
        return {**os.environ, "ARENA_CACHE": str(self.folder / "cache")}

    def log_tail(self) -> str:
        with contextlib.suppress(OSError):
            return (self.folder / "serve.log").read_text()[-3000:]
        return ""

    def stop(self) -> None:
        """Stops the server (SIGTERM; its process group killed if it is not gone in 60 s),
        then removes its folder unless kept."""
        try:
            if self.process is not None and self.process.poll() is None:
                self.process.send_signal(signal.SIGTERM)
                try:
                    self.process.wait(60)
                except subprocess.TimeoutExpired:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(self.process.pid, signal.SIGKILL)
                    self.process.wait(30)
        finally:
            if not self.keep:
                shutil.rmtree(self.folder, ignore_errors=True)
        if self.process is not None:
            say(f"the league stopped (exit {self.process.returncode})")


def start_league(config: str, nofile: int, keep: bool, uploads_per_hour: int) -> Started:
    """A fresh league in a new folder, as README says: invite the authors, serve it."""
    folder = Path(tempfile.mkdtemp(prefix="attack-league-"))
    target = folder / "league.toml"
    if config and Path(config).is_file():
        text = Path(config).read_text()
        base = Path(config).resolve().parent
        text = re.sub(r'"(\.\./[^"]+|\./[^"]+)"', lambda m: f'"{(base / m.group(1)).resolve()}"',
                      text)
        target.write_text(text)
    else:
        entrants = ", ".join(f'"{ROOT / "bots" / name}"' for name in ("random", "heuristic"))
        target.write_text(CONFIG.format(entrants=entrants, uploads_per_hour=uploads_per_hour))
    league = Started(folder, target, free_port(), keep=keep)
    for author in ("alice", "bob", "carol"):
        league.tokens[author] = league.invite(author)
    league.tokens["olga"] = league.invite("olga", organizer=True)
    league.serve(nofile)
    say(f"serving {target} on port {league.port} (server RLIMIT_NOFILE {nofile or 'inherited'})")
    return league


# ---------------------------------------------------------------- the run


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", help="the league, http://127.0.0.x:PORT")
    parser.add_argument("--token", help="an author's token")
    parser.add_argument("--token2", help="another author's token (2b, 6e)")
    parser.add_argument("--organizer", help="an organizer's token (5a, 6f)")
    parser.add_argument("--race-token", help="the author of the quota race (default --token)")
    parser.add_argument("--pid", type=int, help="the server's process (default: found by port)")
    parser.add_argument("--uploads-per-hour", type=int, default=10,
                        help="the league's uploads_per_hour (2b; --start knows it)")
    parser.add_argument("--start", metavar="CONFIG",
                        help="start a fresh league of CONFIG ('small': a built-in small one)")
    parser.add_argument("--server-nofile", type=int, default=1024,
                        help="--start: the server's RLIMIT_NOFILE soft limit, a login's "
                             "default (0: inherit this process's)")
    parser.add_argument("--keep", action="store_true", help="--start: keep its folder")
    parser.add_argument("--connections", type=int, default=1100)
    parser.add_argument("--hold", type=float, default=15.0, help="seconds a flood is held")
    parser.add_argument("--body-mb", type=int, default=256, help="MiB of each oversized body")
    parser.add_argument("--games", type=int, default=400, help="records read for attack 1")
    parser.add_argument("--replays", type=int, default=60, help="replay data read for 1")
    parser.add_argument("--max-seconds", type=int, default=420, help="the watchdog")
    parser.add_argument("--only", default="123456", help="the attacks to run, e.g. 15")
    args = parser.parse_args(argv)
    if not args.start and not (args.url and args.token):
        parser.error("give --url and --token, or --start CONFIG")
    args.body_mb = min(args.body_mb, 300)
    return args


def loopback(url: str) -> tuple[str, int]:
    parsed = urllib.parse.urlsplit(url)
    host = parsed.hostname or ""
    if not host.startswith("127.") or parsed.scheme != "http":
        raise SystemExit(f"{url}: this harness attacks only http://127.0.0.x")
    return host, parsed.port or 80


def raise_nofile(want: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))


def known_paths(started: Started | None) -> list[str]:
    cache = os.environ.get("ARENA_CACHE") or os.path.expanduser("~/.cache/tichu-arena")
    paths = [str(ROOT), cache]
    if started:
        paths.append(str(started.folder))
    return paths


def harness_for(args: argparse.Namespace, started: Started | None) -> Harness:
    if started:
        args.url = f"http://127.0.0.1:{started.port}"
        tokens = started.tokens
        args.token, args.token2 = tokens["alice"], tokens["bob"]
        args.organizer, args.race_token = tokens["olga"], tokens["carol"]
    host, port = loopback(args.url)
    return Harness(host, port, args.token, args.token2, args.organizer,
                   args.race_token or args.token, args.token2, args.pid,
                   args.uploads_per_hour, known_paths(started))


def wait_up(h: Harness, started: Started | None, seconds: float = 90.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if started and started.process and started.process.poll() is not None:
            raise SystemExit(f"the server exited: {started.log_tail()}")
        if call(h, "GET", "/api/standings", timeout=5).status == 200:
            return
        time.sleep(0.5)
    raise SystemExit("the league never answered GET /api/standings")


def run_attacks(h: Harness, args: argparse.Namespace) -> None:
    only = args.only
    if "6" in only or "1" in only or "5" in only:
        set_up_bots(h)
    steps: list[tuple[str, Callable[[], None]]] = [
        ("5", lambda: attack_errors(h)),
        ("6", lambda: attack_privacy(h)),
        ("3", lambda: attack_bodies(h, args.body_mb, 90.0)),
        ("4", lambda: attack_floods(h, args.connections, args.hold)),
        ("2", lambda: attack_race(h)),
        ("2", lambda: attack_refusals(h)),
        ("1", lambda: attack_deals(h, args.games, args.replays)),
        ("6", lambda: attack_paths(h)),
    ]
    for key, step in steps:
        if key in only:
            step()


def table(findings: list[Finding]) -> str:
    width = max([len(f.attack) for f in findings] + [6])
    lines = [f"{'attack':<{width}}  {'result':<12}  evidence", "-" * (width + 60)]
    for f in findings:
        lines.append(f"{f.attack:<{width}}  {f.result.value:<12}  {f.evidence}")
    return "\n".join(lines)


class Watchdog(Exception):
    """The run passed --max-seconds."""


def on_alarm(signum: int, frame: Any) -> None:
    raise Watchdog("the run passed --max-seconds: the attacks after this one were not run")


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    raise_nofile(args.connections + 512)
    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(args.max_seconds)
    started = None
    h: Harness | None = None
    began = time.monotonic()
    try:
        if args.start:
            started = start_league("" if args.start == "small" else args.start,
                                   args.server_nofile, args.keep, 12)
            args.uploads_per_hour = configured_quota(started.config, args.uploads_per_hour)
        h = harness_for(args, started)
        wait_up(h, started)
        h.pid = h.pid or listening_pid(h.port)
        say(f"attacking {args.url} (server pid {h.pid}, harness nonce {h.nonce})")
        run_attacks(h, args)
    except Watchdog as exc:
        if h is None:
            raise SystemExit(str(exc)) from None
        h.add("the harness", Result.INCONCLUSIVE, str(exc))
    finally:
        signal.alarm(0)
        if started:
            started.stop()
    print(f"\nattack_league.py: {len(h.findings)} checks in {time.monotonic() - began:.0f} s "
          f"against {args.url}\n")
    print(table(h.findings))
    through = [f for f in h.findings if f.result in FAILING]
    print(f"\n{len(through)} got through (or broke an author's view), "
          f"{sum(f.result is Result.STOPPED for f in h.findings)} stopped")
    return 1 if through else 0


def configured_quota(config: Path, default: int) -> int:
    import tomllib

    with contextlib.suppress(OSError, ValueError):
        league = tomllib.loads(config.read_text()).get("league", {})
        return int(league.get("uploads_per_hour", default))
    return default


if __name__ == "__main__":
    sys.exit(main())
