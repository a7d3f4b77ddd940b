"""A failed rebuild, against a real server: the organizer rebuilds a bot's active version
after the machine's toolchain broke; the new build fails, the build from before is put back
and the version stays active and in the live table, playing on, and its bot page shows the
failure with its log's tail. A rebuild cut by a kill -9 of the server is undone at its next
start."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from tests.league.conftest import bot_copy, request, served, wait_for

WORKS = "#!/bin/sh\necho the toolchain builds\n"
BROKEN = "#!/bin/sh\necho the toolchain is gone: reinstall it >&2\nexit 3\n"
HANGS = "#!/bin/sh\nexec sleep 600\n"
INTAKE = '[intake]\nfolder = "intake"\n'


def toolchain(folder: Path, monkeypatch: pytest.MonkeyPatch, script: str) -> Path:
    """The machine's build tool `arena-test-build` (running `script`), on the PATH of the
    servers started after: a test breaks and mends it by writing it again."""
    tool = folder / "toolchain" / "bin" / "arena-test-build"
    tool.parent.mkdir(parents=True)
    tool.write_text(script)
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tool.parent}{os.pathsep}{os.environ['PATH']}")
    return tool


def ivy_bot(folder: Path) -> Path:
    return bot_copy(folder / "ivy-bot", "ivy-bot", extra='build = ["arena-test-build"]\n')


def test_a_failed_rebuild_keeps_the_version_from_before(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch):
    tool = toolchain(tmp_path, monkeypatch, WORKS)
    with served(tmp_path, INTAKE) as league:
        token = league.invite("ivy")
        organizer = league.organizer()
        upload = league.upload(ivy_bot(tmp_path), token)
        assert upload.returncode == 0, upload.stdout + upload.stderr
        wait_for("ivy-bot playing", lambda: league.standings().get("ivy-bot", {}).get("games"))
        before = league.get("/api/bots/ivy-bot")["uploads"][-1]

        tool.write_text(BROKEN)
        status, body = request(league.url + "/api/bots/ivy-bot/rebuild", b"", organizer,
                               "POST")
        assert status == 202 and body["upload"] == before["id"], body
        after = wait_for("the rebuild done", lambda: (
            (u := league.get(body["url"], token))["status"] in ("active", "failed")
            and u["updated"] > before["updated"] and u))
        assert after["status"] == "active" and after["entrant"] == before["entrant"], after
        assert after["stage"] == "build" and "rebuild failed" in after["reason"], after
        assert "the toolchain is gone: reinstall it" in after["log"], after
        page = league.signed_in("ivy-bot", token)
        assert "rebuild failed" in page and "the toolchain is gone: reinstall it" in page
        public = league.get("/bots/ivy-bot")  # the log is the author's alone
        assert "rebuild failed" in public and "the toolchain is gone" not in public

        played = league.standings().get("ivy-bot", {}).get("games", 0)
        row = wait_for("ivy-bot playing on", lambda: (
            (r := league.standings().get("ivy-bot", {})).get("games", 0) > played and r))
        assert row["key"] == before["entrant"] and not row["failures"], row


def test_rebuilding_a_failed_upload_of_the_active_bytes_keeps_them_playing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """An upload that failed for the machine's sake (its toolchain broken), the same bytes
    uploaded again once it was fixed and active: the organizer's rebuild of the failed one,
    the toolchain broken again, fails, and the active version's build (the same one) is not
    lost under its games: they go on with no failure."""
    tool = toolchain(tmp_path, monkeypatch, BROKEN)
    with served(tmp_path, INTAKE) as league:
        token = league.invite("ivy")
        organizer = league.organizer()
        bot = ivy_bot(tmp_path)
        assert league.upload(bot, token).returncode == 1  # failed: the toolchain is broken
        tool.write_text(WORKS)
        again = league.upload(bot, token)
        assert again.returncode == 0, again.stdout + again.stderr
        failed, active = league.get("/api/bots/ivy-bot")["uploads"]
        assert (failed["status"], failed["entrant"], active["status"]) == (
            "failed", None, "active"), (failed, active)
        wait_for("ivy-bot playing", lambda: league.standings().get("ivy-bot", {}).get("games"))

        tool.write_text(BROKEN)
        status, body = request(league.url + f"/api/bots/ivy-bot/rebuild?upload={failed['id']}",
                               b"", organizer, "POST")
        assert status == 202 and body["upload"] == failed["id"], body
        after = wait_for("the rebuild done", lambda: (
            (u := league.get(body["url"], token))["status"] in ("active", "failed")
            and u["updated"] > failed["updated"] and u))
        assert after["status"] == "failed" and "the toolchain is gone" in after["log"], after
        assert league.get(f"/api/uploads/{active['id']}")["status"] == "active"
        played = league.standings().get("ivy-bot", {}).get("games", 0)
        row = wait_for("ivy-bot playing on", lambda: (
            (r := league.standings().get("ivy-bot", {})).get("games", 0) > played + 2 and r))
        assert row["key"] == active["entrant"] and not row["failures"], row


def test_a_rebuild_cut_by_kill_9_is_undone_at_the_next_start(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch):
    """The server killed (-9) while the organizer's rebuild of a bot's active version builds
    (its build set aside meanwhile), the toolchain broken by the next start: that start puts
    the build from before back, saying so, and leaves nothing set aside on disk; the version
    is active again with that build and plays on (it is not built anew, which would fail)."""
    tool = toolchain(tmp_path, monkeypatch, WORKS)
    with served(tmp_path, INTAKE) as league:
        assert league.upload(ivy_bot(tmp_path), league.invite("ivy")).returncode == 0
        wait_for("ivy-bot playing", lambda: league.standings().get("ivy-bot", {}).get("games"))
        before = league.get("/api/bots/ivy-bot")["uploads"][-1]

        tool.write_text(HANGS)
        status, body = request(league.url + "/api/bots/ivy-bot/rebuild", b"",
                               league.organizer(), "POST")
        assert status == 202 and body["upload"] == before["id"], body
        wait_for("the rebuild building", lambda: league.get(body["url"])["status"] == "building")
        builds = tmp_path / "intake" / "builds"
        assert list(builds.glob("*.aside")), list(builds.iterdir())  # the build set aside
        league.stop(signal.SIGKILL)

        tool.write_text(BROKEN)
        league.start()
        after = wait_for("the upload taken in again", lambda: (
            (u := league.get(body["url"]))["status"] in ("active", "failed") and u))
        assert after["status"] == "active" and after["entrant"] == before["entrant"], after
        assert "rebuild was cut short" in league.log(), league.log()
        assert not list(builds.glob("*.aside*")), list(builds.iterdir())
        played = league.standings().get("ivy-bot", {}).get("games", 0)
        row = wait_for("ivy-bot playing on", lambda: (
            (r := league.standings().get("ivy-bot", {})).get("games", 0) > played and r))
        assert row["key"] == before["entrant"] and not row["failures"], row
