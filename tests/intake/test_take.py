"""`take_bot`: a bot folder made a runnable, built copy, or refused at the stage that fails,
with the reason and the build's output; the network only where the bot asks and the run
allows; nothing half-built left; stale scratch swept."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from arena.intake import IntakeFailed, IntakePolicy, take_bot
from arena.intake.take import STALE_SECONDS
from arena.sandbox import BuildLimits, Isolation, resolve
from tests.tournament.conftest import copy_bot

pytestmark = pytest.mark.timeout(120)


def policy(tmp_path: Path, **options) -> IntakePolicy:
    return IntakePolicy(resolve("auto"), root=tmp_path / "cache", **options)


def with_build(bot: Path, build: str, *extra: str) -> Path:
    manifest = bot / "bot.toml"
    manifest.write_text(manifest.read_text() + f"build = {build}\n" + "".join(extra))
    return bot


def refusal(source: Path, taken_with: IntakePolicy):
    with pytest.raises(IntakeFailed) as refused:
        take_bot(source, taken_with)
    return refused.value.failure


def test_a_bot_without_a_build_runs_from_its_snapshot(tmp_path):
    bot = copy_bot("random", tmp_path / "random")
    ready = take_bot(bot, policy(tmp_path))
    assert ready.manifest.folder == ready.snapshot.folder != bot
    assert ready.version == ready.snapshot.digest[:16] and ready.build is None
    assert (ready.manifest.folder / "bot.py").read_bytes() == (bot / "bot.py").read_bytes()


def test_each_stage_that_fails_is_named_with_its_reason(tmp_path):
    missing = refusal(tmp_path / "nowhere", policy(tmp_path))
    assert missing.stage == "snapshot" and "nowhere" in missing.reason

    bad = copy_bot("random", tmp_path / "bad")
    (bad / "bot.toml").write_text('name = "bad"\n')
    manifest = refusal(bad, policy(tmp_path))
    assert manifest.stage == "manifest" and f"{bad}/bot.toml" in manifest.reason

    failing = with_build(copy_bot("random", tmp_path / "failing", name="failing"),
                         '["sh", "-c", "echo step one; echo no such header >&2; exit 4"]')
    build = refusal(failing, policy(tmp_path))
    assert build.stage == "build" and "failed (exit code 4)" in build.reason
    assert "step one" in build.output and "no such header" in build.output
    builds = tmp_path / "cache" / "builds"
    assert not [p for p in builds.iterdir() if p.is_dir()], "a failed build was kept"

    nothing = with_build(copy_bot("random", tmp_path / "nothing", name="nothing"), '["true"]')
    manifest_text = (nothing / "bot.toml").read_text()
    (nothing / "bot.toml").write_text(manifest_text.replace('["python", "bot.py"]',
                                                            '["build/bot"]'))
    command = refusal(nothing, policy(tmp_path))
    assert command.stage == "command" and "'build/bot' is not an executable file" in \
        command.reason


def test_a_build_over_its_wall_time_fails_naming_the_limit(tmp_path):
    slow = with_build(copy_bot("random", tmp_path / "slow", name="slow"), '["sleep", "600"]')
    failure = refusal(slow, policy(tmp_path, build=BuildLimits(wall_seconds=2)))
    assert failure.stage == "build" and "wall time limit 2 s exceeded" in failure.reason


def test_a_build_asking_for_the_network_is_refused_unless_the_run_allows_it(tmp_path):
    asking = with_build(copy_bot("random", tmp_path / "asking", name="asking"), '["true"]',
                        "build_network = true\n")
    failure = refusal(asking, policy(tmp_path))
    assert failure.stage == "build" and "build_network = true" in failure.reason
    assert "--allow-build-network" in failure.reason
    assert take_bot(asking, policy(tmp_path, build_network=True)).build.ok


def test_a_killed_takes_scratch_is_swept_once_a_day_old(tmp_path):
    snapshots = tmp_path / "cache" / "snapshots"
    old, fresh = snapshots / ".incoming-old", snapshots / ".incoming-fresh"
    for scratch in (old, fresh):
        (scratch / "half").mkdir(parents=True)
    past = time.time() - STALE_SECONDS - 60
    os.utime(old, (past, past))
    take_bot(copy_bot("random", tmp_path / "random"), policy(tmp_path))
    assert not old.exists() and fresh.exists()


def test_a_bot_taken_at_level_none_is_built_by_the_caller_in_the_copy(tmp_path):
    bot = with_build(copy_bot("random", tmp_path / "random"), '["sh", "-c", "id -u > who"]')
    ready = take_bot(bot, IntakePolicy(Isolation.NONE, root=tmp_path / "cache"))
    assert (ready.manifest.folder / "who").read_text().strip() == str(os.getuid())
    assert not (bot / "who").exists()


def test_a_build_made_at_level_none_is_not_reused_by_a_sandboxed_run(tmp_path):
    """A build at level none ran the bot's code unconfined: a sandboxed run builds anew."""
    bot = with_build(copy_bot("random", tmp_path / "random"), '["sh", "-c", "echo x > made"]')
    unconfined = IntakePolicy(Isolation.NONE, root=tmp_path / "cache")
    assert take_bot(bot, unconfined).build is not None
    assert take_bot(bot, unconfined).build is None  # reused at the same level
    sandboxed = policy(tmp_path)
    if sandboxed.isolation is Isolation.SANDBOX:
        assert take_bot(bot, sandboxed).build is not None  # built anew, in the sandbox
        assert take_bot(bot, unconfined).build is None  # which serves every level
