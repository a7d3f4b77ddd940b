"""The quotas against a real server, as an attacker tries them: one author sends 16
uploads at once (16 connections on loopback, each body held back by its last byte until all
are sent, then finished together). At most `PENDING_PER_AUTHOR` (2) are taken in and the
rest get 429; with the hour nearly used up, at most what is left of it. The control: some of
the 429s came from the check made as each upload is recorded, so those uploads had passed
the check made before the body is read, which the old code stopped at (it let 10 of 16
through). Uploads refused at intake (an archive the snapshot check refuses: 400; too large:
413) count toward the hourly quota; a 429 counts toward nothing.

Practice games asked for at once stop at `league.practice_per_day` (3 here).

The uploads' bot has a build that waits for a file `go` in its build folder (at most 120 s)
and then fails: an upload stays "being taken in" until the test lets it go, whatever the
machine's speed, and leaves nothing running."""

from __future__ import annotations

import contextlib
import http.client
import json
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from arena.league.accounts import PENDING
from arena.league.app import PENDING_PER_AUTHOR
from tests.intake import member, tar_of, tar_with
from tests.league.conftest import League, bot_copy, database, multipart, request, served, wait_for

BURST = 16
PER_HOUR = 3
"""This module's league's `uploads_per_hour`."""
PRACTICE_PER_DAY = 3
"""This module's league's `practice_per_day`."""
GATE = ('build = ["sh", "-c", "n=0; while [ ! -e go ] && [ $n -lt 600 ]; do sleep 0.2; '
        'n=$((n+1)); done; exit 3"]\n')
"""A build that waits for a file `go` in its folder (at most 120 s), then fails."""
LATE = "counted as each is recorded"
"""What a 429 given as the upload was recorded says (the one given before the body is read
does not)."""

Answer = tuple[int, dict[str, Any]]


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Iterator[League]:
    """A league of its own (its hourly quota is this module's; one house bot: no games), its
    bot cache in its folder, where `release` finds the gated builds."""
    with served(tmp_path_factory.mktemp("burst"), f"practice_per_day = {PRACTICE_PER_DAY}\n"
                '[intake]\nfolder = "intake"\n',
                uploads_per_hour=PER_HOUR, house=("random",)) as served_league:
        yield served_league


def archive(tmp_path: Path, name: str) -> dict[str, str | tuple[str, bytes]]:
    """The form fields of an upload of the gated bot `name`."""
    packed = tar_of(bot_copy(tmp_path / name, name, extra=GATE), tmp_path / f"{name}.tar.gz")
    return {"name": name, "archive": (packed.name, packed.read_bytes())}


def post(league: League, token: str, fields: dict[str, str | tuple[str, bytes]]) -> Answer:
    body, kind = multipart(fields)
    return request(league.url + "/api/bots", body, {
        "Content-Type": kind, "Authorization": f"Bearer {token}"}, "POST")


def burst(league: League, token: str, fields: dict[str, str | tuple[str, bytes]]) -> list[Answer]:
    """`BURST` copies of one upload sent at once."""
    body, kind = multipart(fields)
    return at_once(league, "/api/bots", body, kind, token)


def at_once(league: League, path: str, body: bytes, kind: str, token: str) -> list[Answer]:
    """`BURST` copies of one POST sent at once: each connection sends all but the last byte
    of its body, and once all have, each sends its last byte and reads its answer."""
    barrier = threading.Barrier(BURST, timeout=60)

    def send(_: int) -> Answer:
        connection = http.client.HTTPConnection("127.0.0.1", league.port, timeout=60)
        try:
            connection.putrequest("POST", path)
            for header, value in (("Content-Type", kind), ("Content-Length", str(len(body))),
                                  ("Authorization", f"Bearer {token}")):
                connection.putheader(header, value)
            connection.endheaders()
            connection.send(body[:-1])
            barrier.wait()
            connection.send(body[-1:])
            response = connection.getresponse()
            return response.status, json.loads(response.read())
        finally:
            connection.close()

    with ThreadPoolExecutor(BURST) as pool:
        return list(pool.map(send, range(BURST)))


def counted(league: League, author: str) -> tuple[int, int]:
    """(uploads recorded, refusals counted) of `author`."""
    with database(league.folder / "league.sqlite") as db:
        uploads = db.execute("SELECT count(*) FROM league_uploads WHERE author = ?",
                             (author,)).fetchone()[0]
        refusals = db.execute("SELECT count(*) FROM league_refusals WHERE author = ?",
                              (author,)).fetchone()[0]
    return uploads, refusals


def stored_files(league: League) -> tuple[list[str], list[str]]:
    """(the files in the uploads folder, the files the uploads recorded name)."""
    with database(league.folder / "league.sqlite") as db:
        files = [row[0] for row in db.execute("SELECT file FROM league_uploads")]
    return sorted(p.name for p in (league.folder / "league.sqlite.uploads").iterdir()), \
        sorted(files)


@contextlib.contextmanager
def released(league: League, *authors: str) -> Iterator[None]:
    """After the block, every gated build is let go (and fails) until none of `authors`'
    uploads is being taken in: the next test finds the intake idle."""
    try:
        yield
    finally:
        def idle() -> bool:
            for folder in (league.folder / "intake" / "builds").glob("*"):
                with contextlib.suppress(OSError):  # (a folder a finished build removes)
                    (folder / "go").touch()
            marks = ", ".join("?" for _ in PENDING)
            with database(league.folder / "league.sqlite") as db:
                return not db.execute(f"SELECT count(*) FROM league_uploads WHERE author IN "
                                      f"({', '.join('?' for _ in authors)}) AND status IN "
                                      f"({marks})", (*authors, *PENDING)).fetchone()[0]
        wait_for("the gated uploads failed", idle)


def test_sixteen_uploads_at_once_take_two_in_and_429_the_rest(league: League, tmp_path):
    token = league.invite("mallory")
    with released(league, "mallory"):
        answers = burst(league, token, archive(tmp_path, "mallory-bot"))
        statuses = sorted(status for status, _ in answers)
        assert statuses == [202] * PENDING_PER_AUTHOR + [429] * (BURST - PENDING_PER_AUTHOR), \
            answers
        refusals = [body["error"] for status, body in answers if status == 429]
        assert all("still being taken in" in text for text in refusals), refusals
        # The control: these passed the check before the body was read, as the old code's
        # admissions past the quota did; the attack really overlapped on the server.
        assert PENDING_PER_AUTHOR + sum(LATE in text for text in refusals) > PENDING_PER_AUTHOR
        assert counted(league, "mallory") == (PENDING_PER_AUTHOR, 0)  # a 429 counts nothing
        files, recorded = stored_files(league)
        assert files == recorded  # a refused upload's archive is removed


def test_a_burst_in_the_last_upload_of_the_hour_takes_one_in(league: League, tmp_path):
    token = league.invite("trudy")
    escaping = tar_with(tmp_path / "escape.tar.gz", (member("../evil"), b"x"))
    with released(league, "trudy"):
        for _ in range(PER_HOUR - 1):
            status, body = post(league, token, {"name": "trudy-bot", "archive": (
                escaping.name, escaping.read_bytes())})
            assert status == 400 and "refused" in body["error"], body
        answers = burst(league, token, archive(tmp_path, "trudy-bot"))
        assert sorted(status for status, _ in answers) == [202] + [429] * (BURST - 1), answers
        assert all("uploads_per_hour" in body["error"] for status, body in answers
                   if status == 429)
        assert counted(league, "trudy") == (1, PER_HOUR - 1)


def test_archives_refused_at_intake_count_toward_the_hourly_quota(league: League, tmp_path):
    """rita: a refused archive (400) and one too large (413) count; her next upload fills the
    hour (202), the one after is one past it (429), with one upload recorded of 3 allowed.
    The control: sam, with no refusal, has the same two uploads taken."""
    rita, sam = league.invite("rita"), league.invite("sam")
    escaping = tar_with(tmp_path / "escape.tar.gz", (member("../evil"), b"x"))
    big = ("big.tar", b"\0" * (2 * 2**20))
    ritas, sams = archive(tmp_path, "rita-bot"), archive(tmp_path, "sam-bot")
    with released(league, "rita", "sam"):
        assert post(league, rita, {"name": "rita-bot", "archive": (
            escaping.name, escaping.read_bytes())})[0] == 400
        assert post(league, rita, {"name": "rita-bot", "archive": big})[0] == 413
        assert counted(league, "rita") == (0, 2)
        assert post(league, rita, ritas)[0] == 202  # the limit
        status, body = post(league, rita, ritas)
        assert status == 429 and "uploads_per_hour" in body["error"], body  # one past it
        status, body = post(league, rita, {"name": "rita-bot", "archive": (
            escaping.name, escaping.read_bytes())})
        assert status == 429, body  # refused before its archive is looked at: not counted
        assert counted(league, "rita") == (1, 2)
        for _ in range(2):  # the control
            status, body = post(league, sam, sams)
            assert status == 202, body
        assert counted(league, "sam") == (2, 0)


def test_sixteen_practice_games_asked_at_once_get_the_daily_limit(league: League, tmp_path):
    """No check comes before the one that records (`Accounts.add_practice`); the control is
    tests/league/test_quotas.py's (counted, then recorded, all 16 pass)."""
    token = league.invite("paula")
    packed = tar_of(bot_copy(tmp_path / "paula-bot", "paula-bot"), tmp_path / "p.tar.gz")
    status, body = post(league, token, {"name": "paula-bot", "archive": (
        packed.name, packed.read_bytes())})
    assert status == 202, body
    wait_for("paula-bot in the table", lambda: "paula-bot" in league.standings())
    ask = json.dumps({"bot": "paula-bot", "opponent": "random"}).encode()
    answers = at_once(league, "/api/practice", ask, "application/json", token)
    assert sorted(status for status, _ in answers) == [202] * PRACTICE_PER_DAY + [429] * (
        BURST - PRACTICE_PER_DAY), answers
    assert all("practice_per_day" in body["error"] for status, body in answers
               if status == 429)
    with database(league.folder / "league.sqlite") as db:
        rows = db.execute("SELECT count(*) FROM league_practice WHERE author = 'paula'")
        assert rows.fetchone()[0] == PRACTICE_PER_DAY
