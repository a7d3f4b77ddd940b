"""The league's quotas under concurrency, at the level of its tables (no server): uploads an
author may have recorded in an hour, uploads being taken in at once, a bot name's owner and
practice games, each checked in the transaction that records what it limits. Many threads,
each with a connection of its own (as the server's threads have), record at once after a
barrier; at most the limit succeed. The control: the same burst through the old two steps
(check, then record) lets every thread through. Uploads refused at intake count toward the
hourly quota (`store_upload`), a 429 counts toward nothing, and a store made before the
refusals' table gets it."""

from __future__ import annotations

import io
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from arena.league.accounts import (
    HOUR,
    Accounts,
    CountedRefusal,
    NotRecorded,
    UploadQuota,
)
from arena.league.config import LeagueConfig, load_league
from arena.league.uploads import BadUpload, refusal_error, store_upload
from arena.sandbox.machine import Isolation
from tests.intake import member, tar_of, tar_with
from tests.league.conftest import bot_copy, write_config

pytestmark = pytest.mark.timeout(120)

BURST = 16
"""Threads recording at once (the attack of issue 46: 16 uploads sent at once)."""
OPEN = UploadQuota(per_hour=10**6, pending=10**6)
"""No quota: what the old `add_upload` recorded under (it checked none)."""

T = TypeVar("T")


def at_once(storage: Path, attempt: Callable[[Accounts, int, threading.Barrier], T],
            threads: int = BURST) -> list[T]:
    """`attempt(accounts, k, barrier)` on `threads` threads, each with a connection of its
    own, opened before any starts; the results, by k. Each attempt waits at the barrier
    before the step that must race."""
    barrier = threading.Barrier(threads, timeout=60)
    results: list[T | BaseException | None] = [None] * threads
    connections = [Accounts(storage) for _ in range(threads)]

    def run(k: int) -> None:
        try:
            results[k] = attempt(connections[k], k, barrier)
        except BaseException as exc:  # handed to the test's thread, which raises it
            results[k] = exc

    workers = [threading.Thread(target=run, args=(k,)) for k in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(90)
    for accounts in connections:
        accounts.close()
    assert not any(worker.is_alive() for worker in workers)
    for result in results:
        if isinstance(result, BaseException):
            raise result
    return results  # type: ignore[return-value]  # every item was set by its thread


def recorded(results: list[int | NotRecorded]) -> list[int]:
    return [r for r in results if not isinstance(r, NotRecorded)]


# ----- uploads -------------------------------------------------------------------------------


def test_uploads_recorded_at_once_stop_at_the_uploads_being_taken_in(tmp_path: Path):
    quota = UploadQuota(per_hour=100, pending=2)
    results = at_once(tmp_path / "l.sqlite", lambda acc, k, barrier: (
        barrier.wait(), acc.add_upload("mallory", "m-bot", f"f{k}", quota))[1])
    assert len(recorded(results)) == 2
    assert [r for r in results if isinstance(r, NotRecorded)] == [NotRecorded.PENDING] * 14
    with Accounts(tmp_path / "l.sqlite") as acc:
        assert len(acc.uploads("m-bot")) == 2


def test_uploads_recorded_at_once_stop_at_the_hourly_quota(tmp_path: Path):
    quota = UploadQuota(per_hour=3, pending=100)
    results = at_once(tmp_path / "l.sqlite", lambda acc, k, barrier: (
        barrier.wait(), acc.add_upload("mallory", "m-bot", f"f{k}", quota))[1])
    assert len(recorded(results)) == 3
    assert set(results) - set(recorded(results)) == {NotRecorded.PER_HOUR}


def test_the_old_two_steps_let_the_same_burst_through(tmp_path: Path):
    """The control: every thread checks the quota (as `_admit` did, before the body was
    read), then records (as the old `add_upload` did, checking no quota): all 16 pass,
    where 2 may. The threads race, and the atomic check is what stops them."""
    quota = UploadQuota(per_hour=100, pending=2)

    def two_steps(acc: Accounts, k: int, barrier: threading.Barrier) -> int | NotRecorded:
        refused = acc.upload_refusal("mallory", "m-bot", quota)
        barrier.wait()  # every check made before any upload is recorded
        return refused if refused is not None else acc.add_upload(
            "mallory", "m-bot", f"f{k}", OPEN)

    results = at_once(tmp_path / "l.sqlite", two_steps)
    assert len(recorded(results)) == BURST > quota.pending


def test_one_name_claimed_at_once_by_many_authors_gets_one_owner(tmp_path: Path):
    quota = UploadQuota(per_hour=100, pending=100)
    results = at_once(tmp_path / "l.sqlite", lambda acc, k, barrier: (
        barrier.wait(), acc.add_upload(f"author{k}", "contested", f"f{k}", quota))[1])
    assert len(recorded(results)) == 1
    with Accounts(tmp_path / "l.sqlite") as acc:
        owner = acc.owner("contested")
        assert [u.author for u in acc.uploads("contested")] == [owner]
    assert results.count(NotRecorded.NAME_TAKEN) == BURST - 1


def test_a_refused_quota_records_nothing_and_counts_nothing(tmp_path: Path):
    """A 429 is not an attempt: an author held at the limit and sending on is back an hour
    after their last counted attempt, not an hour after their last 429."""
    quota = UploadQuota(per_hour=2, pending=100)
    with Accounts(tmp_path / "l.sqlite") as acc:
        assert isinstance(acc.add_upload("gina", "g-bot", "f0", quota), int)
        assert acc.add_refusal("gina", CountedRefusal.ARCHIVE_REFUSED, quota)
        assert acc.attempts_since("gina", 0) == 2
        for k in range(5):
            assert acc.add_upload("gina", "g-bot", f"again{k}", quota) is NotRecorded.PER_HOUR
            assert not acc.add_refusal("gina", CountedRefusal.TOO_LARGE, quota)
        assert acc.attempts_since("gina", 0) == 2
        assert acc.upload_refusal("gina", "g-bot", quota) is NotRecorded.PER_HOUR
        assert acc.upload_refusal("hugo", "h-bot", quota) is None  # the quota is gina's


def test_refusals_counted_at_once_stop_at_the_hourly_quota(tmp_path: Path):
    quota = UploadQuota(per_hour=3, pending=100)
    counted = at_once(tmp_path / "l.sqlite", lambda acc, k, barrier: (
        barrier.wait(), acc.add_refusal("mallory", CountedRefusal.ARCHIVE_REFUSED, quota))[1])
    assert counted.count(True) == 3
    with Accounts(tmp_path / "l.sqlite") as acc:
        assert acc.attempts_since("mallory", 0) == 3
        assert acc.upload_refusal("mallory", "m-bot", quota) is NotRecorded.PER_HOUR


def test_refusals_count_for_an_hour_only(tmp_path: Path):
    quota = UploadQuota(per_hour=1, pending=100)
    with Accounts(tmp_path / "l.sqlite") as acc:
        assert acc.add_refusal("gina", CountedRefusal.NOT_AN_ARCHIVE, quota)
        assert acc.upload_refusal("gina", "g-bot", quota) is NotRecorded.PER_HOUR
        with acc.transaction() as db:  # (SQL in a test: the row made older than an hour)
            db.execute("UPDATE league_refusals SET created = created - ?", (HOUR + 1,))
        assert acc.attempts_since("gina", 0) == 1
        assert acc.upload_refusal("gina", "g-bot", quota) is None


def test_a_store_made_before_the_refusals_table_gets_it(tmp_path: Path):
    with Accounts(tmp_path / "l.sqlite") as acc:
        assert isinstance(acc.add_upload("gina", "g-bot", "f0", OPEN), int)
        with acc.transaction() as db:  # (SQL in a test: a store as made before this table)
            db.execute("DROP TABLE league_refusals")
    with Accounts(tmp_path / "l.sqlite") as acc:
        assert acc.add_refusal("gina", CountedRefusal.TOO_LARGE, OPEN)
        assert acc.attempts_since("gina", 0) == 2
        assert [u.file for u in acc.uploads("g-bot")] == ["f0"]


# ----- practice games ------------------------------------------------------------------------


def test_practice_games_asked_at_once_stop_at_the_daily_limit(tmp_path: Path):
    granted = at_once(tmp_path / "l.sqlite", lambda acc, k, barrier: (
        barrier.wait(), acc.add_practice("pat", "pat-bot@v1", "random@v1", 3, 0.0))[1])
    assert len([g for g in granted if g is not None]) == 3
    with Accounts(tmp_path / "l.sqlite") as acc:
        assert len(acc.practices()) == 3


def test_practice_games_counted_then_recorded_would_pass_the_limit(tmp_path: Path):
    """The control: counted first, then recorded with no limit, all 16 pass where 3 may."""

    def two_steps(acc: Accounts, k: int, barrier: threading.Barrier) -> int | None:
        asked = len([p for p in acc.practices() if p.author == "pat"])
        barrier.wait()
        return acc.add_practice("pat", "pat-bot@v1", "random@v1", 10**6, 0.0) \
            if asked < 3 else None

    assert len([g for g in at_once(tmp_path / "l.sqlite", two_steps) if g is not None]) == BURST


# ----- refusals at intake (store_upload) -----------------------------------------------------


@pytest.fixture
def league_config(tmp_path: Path) -> LeagueConfig:
    return load_league(write_config(tmp_path, uploads_per_hour=3), bots=False)


def _store(config: LeagueConfig, accounts: Accounts, author: str, filename: str,
           data: bytes, quota: UploadQuota) -> int:
    policy = config.tournament.intake_policy(Isolation.NONE)  # (the snapshot check only)
    return store_upload(config, policy, accounts, author, f"{author}-bot", filename,
                        io.BytesIO(data), quota)


def test_uploads_refused_at_intake_count_toward_the_hourly_quota(
        league_config: LeagueConfig, tmp_path: Path):
    quota = UploadQuota(league_config.uploads_per_hour, 2)
    good = tar_of(bot_copy(tmp_path / "b", "rita-bot"), tmp_path / "b.tar.gz").read_bytes()
    escaping = tar_with(tmp_path / "e.tar.gz", (member("../evil"), b"x")).read_bytes()
    too_large = b"\0" * (league_config.upload_bytes + 1)
    with Accounts(league_config.storage) as acc:
        for filename, data, status in [("e.tar.gz", escaping, 400), ("b.txt", good, 400),
                                       ("big.tar", too_large, 413)]:
            with pytest.raises(BadUpload) as refused:
                _store(league_config, acc, "rita", filename, data, quota)
            assert refused.value.status == status and refused.value.kind is not None
        assert acc.attempts_since("rita", 0) == 3 == quota.per_hour
        with pytest.raises(BadUpload) as refused:  # one past the limit: refused as it records
            _store(league_config, acc, "rita", "b.tar.gz", good, quota)
        assert refused.value.status == 429 and "uploads_per_hour" in str(refused.value)
        assert acc.uploads("rita-bot") == []
        assert isinstance(_store(league_config, acc, "sam", "b.tar.gz", good, quota), int)
        kept = [u.file for u in acc.uploads("sam-bot")]
    assert [p.name for p in league_config.uploads.iterdir()] == kept  # no refused one's


def test_an_upload_refused_as_it_is_recorded_leaves_no_file(league_config: LeagueConfig,
                                                            tmp_path: Path):
    """Passed the early check, then another of the author's uploads was recorded first: 429,
    its archive removed, nothing recorded, nothing counted."""
    quota = UploadQuota(per_hour=100, pending=1)
    good = tar_of(bot_copy(tmp_path / "b", "rita-bot"), tmp_path / "b.tar.gz").read_bytes()
    with Accounts(league_config.storage) as acc:
        assert acc.upload_refusal("rita", "rita-bot", quota) is None  # the early check
        assert isinstance(acc.add_upload("rita", "rita-bot", "sent-at-once", quota), int)
        with pytest.raises(BadUpload) as refused:
            _store(league_config, acc, "rita", "b.tar.gz", good, quota)
        assert refused.value.status == 429 and refused.value.kind is None
        assert "counted as each is recorded" in str(refused.value)
        assert [u.file for u in acc.uploads("rita-bot")] == ["sent-at-once"]
        assert acc.attempts_since("rita", 0) == 1
    assert list(league_config.uploads.iterdir()) == []


@pytest.mark.parametrize("refused", list(NotRecorded), ids=str)
def test_every_refusal_of_the_accounts_has_its_status_and_sentence(refused: NotRecorded):
    quota = UploadQuota(per_hour=10, pending=2)
    error = refusal_error(refused, "x-bot", quota)
    assert error.status == (409 if refused is NotRecorded.NAME_TAKEN else 429)
    assert error.kind is None  # no refusal of the accounts counts toward a quota
    assert {NotRecorded.PER_HOUR: "10 uploads", NotRecorded.PENDING: "2 of your uploads",
            NotRecorded.NAME_TAKEN: "another author"}[refused] in str(error)
