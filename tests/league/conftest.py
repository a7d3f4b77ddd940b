"""A league served by a real `arena league serve` process for the tests of this folder, and
the helpers that talk to it (standard library HTTP only: what any client has).

A league's server plays games for as long as it is up, so each server costs CPU for its whole
life: the tests of this folder share one (`league`, per test process) wherever they need no
server of their own, and each uses names of its own (authors, bots) instead of a fresh
server; a server plays one game at a time (`-j 1`) unless its test is about more, and at most
`GAMES_PER_MINUTE` games a minute unless its test wants games in play at every moment (a
league of 100-point games played back to back took 1.6 of this machine's 2 cores)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec
import pytest

from arena.league.models import Error
from arena.league.openapi import find_operation

if TYPE_CHECKING:  # imported where used: most tests of this folder talk to a server process
    import httpx2 as httpx
    from starlette.testclient import TestClient

    from arena.league import server

ROOT = Path(__file__).resolve().parents[2]
ARENA = [sys.executable, "-m", "arena.cli"]
PRACTICE_PER_DAY = 3
"""The shared league's `practice_per_day` (test_practice asks for one more)."""
WAIT = 180.0
"""The longest a test waits for the league to get somewhere (a bound against a hang, not a
timing assertion)."""


@contextlib.contextmanager
def database(path: Path) -> Iterator[sqlite3.Connection]:
    """A connection to a running league's SQLite file, closed after the block: a test process
    keeps none open while the server is killed and started again (an open connection shares
    its process's view of the store's WAL index with the next one)."""
    db = sqlite3.connect(path)
    try:
        yield db
    finally:
        db.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


GAMES_PER_MINUTE = 30
"""The test leagues' `games_per_minute`: a game every 2 s (each takes a fraction of one),
enough for what the tests wait for, at 0.11 of a core where games back to back took 1.6
(tests/league: 127 s of CPU at 60 a minute, 110 s at 30, the same wall time)."""

HOUSE = ("random", "heuristic")
"""A league's house bots (bundled bots)."""


def write_config(folder: Path, isolation: str = "auto", extra: str = "",
                 uploads_per_hour: int = 40, house: tuple[str, ...] = HOUSE,
                 games_per_minute: int | None = GAMES_PER_MINUTE) -> Path:
    """A small league: the random and heuristic bots as house entrants (or `house`: with one,
    the league plays no game until an upload is taken in), short games, at most
    `games_per_minute` (None: games back to back); `extra`: more lines at the end (in its
    `[league]` table, unless they open a table of their own)."""
    pace = "" if games_per_minute is None else f"games_per_minute = {games_per_minute}\n"
    config = folder / "league.toml"
    entrants = ", ".join(f'"{ROOT / "bots" / name}"' for name in house)
    config.write_text(f"""
[tournament]
name = "test-league"
entrants = [{entrants}]
target = 100
storage = "league.sqlite"
isolation = "{isolation}"
pin_cpus = false

[league]
uploads_per_hour = {uploads_per_hour}
upload_megabytes = 1
placement_pairs = 1
batch_pairs = 1
check_games = 1
check_target = 100
""" + pace + extra)
    return config


def unstarted_league(folder: Path, uploads_per_hour: int = 40, extra: str = ""
                     ) -> server.League:
    """A league's parts from `write_config(folder, ...)`, not started: its store and tables
    made, no thread running. The fast tests serve it through Starlette's TestClient, where
    an upload is only recorded (its status stays 'received': no intake runs)."""
    from arena.league.accounts import Accounts
    from arena.league.config import load_league
    from arena.league.server import League as Served
    from arena.sandbox import Isolation
    from arena.tournament.runner import open_store

    config = load_league(write_config(folder, "none", extra, uploads_per_hour))
    with open_store(config.tournament):
        pass
    Accounts(config.storage).close()
    league = Served(config, 1, Isolation.NONE, say=lambda _: None)
    league.live.mkdir(parents=True)
    return league


def arena(*args: str, timeout: float = WAIT, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARENA, *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, **kwargs)


def arena_here(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """`arena ARGS` run in this process (click's CliRunner), as `arena` would run it: its
    output and exit status, without a Python start and the CLI's imports (a fifth of a second
    of CPU each). For the commands that are clients of the server (`league invite`, `upload`):
    the server itself always runs as a process of its own. A command that crashes raises its
    exception here, with its traceback, where a process would exit 1."""
    from click.testing import CliRunner

    from arena.cli.main import main

    result = CliRunner().invoke(main, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return subprocess.CompletedProcess(["arena", *map(str, args)], result.exit_code,
                                       result.stdout, result.stderr)


def request(url: str, data: bytes | None = None, headers: dict[str, str] | None = None,
            method: str | None = None) -> tuple[int, Any]:
    """(status, parsed JSON or text) of one request; never raises on an HTTP status. An answer
    of the API is checked against /openapi.json first (`check_answer`)."""
    req = urllib.request.Request(url, data=data, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(req, timeout=60) as response:
            body, status, kind = response.read(), response.status, response.headers
    except urllib.error.HTTPError as exc:
        body, status, kind = exc.read(), exc.code, exc.headers
    check_answer(urllib.parse.urlsplit(url).path, req.get_method(), status, body,
                 kind.get("content-type", ""))
    text = body.decode()
    return status, json.loads(text) if "json" in kind.get("content-type", "") else text


def check_answer(path: str, method: str, status: int, body: bytes, content_type: str) -> None:
    """AssertionError unless an answer of `/api/...` (or another path /openapi.json
    documents: a seat's answer and leave) is what /openapi.json says: a status it
    lists for that path and method, with JSON that decodes strictly into that status's model
    (`arena.league.openapi`: every field documented, none left out, none more). A path or
    method it does not list must be an Error, 404 or 405. Other paths are not checked."""
    path = urllib.parse.unquote(path)
    if method.upper() == "HEAD" or not (path.startswith("/api/") or
                                        find_operation(path, method) is not None):
        return
    where = f"{method} {path} answered {status}"
    assert "application/json" in content_type, f"{where} with {content_type!r}, not JSON"
    operation = find_operation(path, method)
    if operation is None:
        assert status in (404, 405), f"{where}, for a path and method /openapi.json lacks"
        model: type[msgspec.Struct] = Error
    else:
        answer = operation.answers.get(status)
        assert answer is not None, \
            f"{where}, a status /openapi.json does not list for {method} {operation.path}"
        model = answer.model
    try:
        msgspec.json.decode(body, type=model, strict=True)
    except msgspec.ValidationError as exc:
        raise AssertionError(f"{where} with a body that is not its schema's {model.__name__}:"
                             f" {exc}: {body[:500]!r}") from None


def schema_checked(client: TestClient) -> TestClient:
    """`client` with each answer it gets checked against /openapi.json (`check_answer`)."""
    def check(response: httpx.Response) -> None:
        if response.request.url.path.startswith("/api/"):
            response.read()
            check_answer(response.request.url.path, response.request.method,
                         response.status_code, response.content,
                         response.headers.get("content-type", ""))

    client.event_hooks["response"].append(check)
    return client


def multipart(fields: dict[str, str | tuple[str, bytes]]) -> tuple[bytes, str]:
    boundary = "testboundary7d93a"
    parts = []
    for name, value in fields.items():
        if isinstance(value, tuple):
            parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; '
                         f'filename="{value[0]}"\r\n\r\n'.encode() + value[1] + b"\r\n")
        else:
            parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"'
                         f"\r\n\r\n{value}\r\n".encode())
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), \
        f"multipart/form-data; boundary={boundary}"


def wait_for(what: str, check: Callable[[], Any], timeout: float = WAIT) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"the league never got to: {what}")
        time.sleep(0.2)


def bot_copy(folder: Path, name: str, body: str | None = None, extra: str = "") -> Path:
    """A copy of the random bot named `name` (its bot.py replaced by `body` if given)."""
    shutil.copytree(ROOT / "bots" / "random", folder, ignore=shutil.ignore_patterns(
        "__pycache__"))
    manifest = (folder / "bot.toml").read_text().replace('name = "random"', f'name = "{name}"')
    (folder / "bot.toml").write_text(manifest + extra)
    if body is not None:
        (folder / "bot.py").write_text(body)
    return folder


class _PortTaken(Exception):
    """The server could not bind its port: another process took it after `free_port`."""


@dataclass
class League:
    folder: Path
    config: Path
    port: int
    process: subprocess.Popen[str] | None = None
    options: tuple[str, ...] = ()
    """More options of `arena league serve`."""
    jobs: int = 1
    """Game workers (`-j`): one keeps a game in play at all times, which is what a test waits
    for; each more is another game's CPU for as long as the server is up."""
    _logged: int = 0  # the server log's length when the running server was started

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Starts the server; on another port if its port was taken meanwhile (`free_port`
        only found it free: another test's server may bind it first)."""
        for _ in range(5):
            self._logged = self._log_size()
            with open(self.folder / "serve.log", "a") as log:
                self.process = subprocess.Popen(
                    [*ARENA, "league", "serve", str(self.config), "--port", str(self.port),
                     "-j", str(self.jobs), *self.options], cwd=ROOT, stdout=subprocess.DEVNULL,
                    stderr=log, text=True, start_new_session=True)
            try:
                wait_for("serving", self.up, 60)
                return
            except _PortTaken:
                self.port = free_port()
        raise AssertionError(f"no free port in 5 tries: {self.log()}")

    def up(self) -> bool:
        """Our own server answers (checked alive first: another server on the port would
        answer too)."""
        assert self.process is not None
        if self.process.poll() is not None:
            if "address already in use" in self.log()[self._logged:]:
                raise _PortTaken
            raise AssertionError(self.log())
        try:
            return request(self.url + "/api/standings")[0] == 200
        except OSError:
            return False

    def _log_size(self) -> int:
        path = self.folder / "serve.log"
        return len(path.read_text()) if path.exists() else 0

    def log(self) -> str:
        return (self.folder / "serve.log").read_text()

    def stop(self, sig: int = signal.SIGTERM) -> int:
        assert self.process is not None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, sig) if sig == signal.SIGKILL else \
                self.process.send_signal(sig)
        code = self.process.wait(60)
        self.process = None
        return code

    def get(self, path: str, token: str | None = None) -> Any:
        """The answer to GET `path` (200 asserted), sent with `token` if given."""
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        status, body = request(self.url + path, headers=headers)
        assert status == 200, (path, status, body)
        return body

    def signed_in(self, bot: str, token: str) -> str:
        """The bot's page as its author (or the organizer) sees it: its sign-in form sent
        with `token`, and the CSRF cookie and field the page set."""
        with urllib.request.urlopen(f"{self.url}/bots/{bot}", timeout=60) as response:
            cookie = response.headers["set-cookie"].split(";")[0]
        csrf = cookie.partition("=")[2]
        body = urllib.parse.urlencode({"csrf": csrf, "token": token}).encode()
        status, page = request(f"{self.url}/bots/{bot}", body, {
            "Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"}, "POST")
        assert status == 200, (status, page)
        return str(page)

    def invite(self, author: str) -> str:
        result = arena_here("league", "invite", self.config, author)
        assert result.returncode == 0, result.stderr
        return result.stdout.strip()

    def organizer(self, name: str = "olga") -> dict[str, str]:
        """The header of a new organizer token (`arena league invite --organizer`)."""
        result = arena_here("league", "invite", self.config, name, "--organizer")
        assert result.returncode == 0, result.stderr
        return {"Authorization": f"Bearer {result.stdout.strip()}"}

    def upload(self, path: Path, token: str, *extra: str) -> subprocess.CompletedProcess[str]:
        return arena_here("upload", path, "--server", self.url, "--token", token, *extra)

    def standings(self) -> dict[str, dict[str, Any]]:
        return {row["name"]: row for row in self.get("/api/standings")["standings"]}


@contextlib.contextmanager
def served(folder: Path, extra: str = "", isolation: str = "auto", uploads_per_hour: int = 40,
           house: tuple[str, ...] = HOUSE, options: tuple[str, ...] = (),
           jobs: int = 1) -> Iterator[League]:
    """A league served from `folder` (`write_config`'s, with `extra` lines) while the block
    runs; stopped after it, if still up, and stopped cleanly (exit 0) if the block ended
    without an error."""
    config = write_config(folder, isolation, extra, uploads_per_hour, house)
    league = League(folder, config, free_port(), options=options, jobs=jobs)
    league.start()
    try:
        yield league
    finally:
        code = league.stop() if league.process is not None else 0
    assert code == 0, league.log()


SHARED = f"""practice_per_day = {PRACTICE_PER_DAY}

[intake]
folder = "intake"
"""
"""The shared league's config lines: test_practice's daily limit, and a bot cache of its own
(test_rebuild finds its bot's build in there)."""


@pytest.fixture(scope="package")
def league(tmp_path_factory: pytest.TempPathFactory) -> Iterator[League]:
    """The league the tests of this folder share (one per test process, stopped after its last
    test of this folder). A test may stop and start it again, or kill it (-9) and start it
    again: the next test finds it up."""
    with served(tmp_path_factory.mktemp("league"), SHARED) as shared:
        yield shared
