"""CPU placement: a pinned process and everything it starts run on one CPU; tournament
workers each take a CPU of their own, unless told not to."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest
from click.testing import CliRunner

from arena.cli.main import main
from arena.referee.placement import claim_cpu, cpu_for_worker, pinned, usable_cpus
from tests.requirements import not_applicable
from tests.tournament.conftest import copy_bot, write_config

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(autouse=True)
def _two_cpus() -> None:
    if len(usable_cpus()) < 2:
        not_applicable("placing processes on CPUs of their own needs two usable CPUs, and "
                       "this machine (or this process's affinity) gives one")


def _affinity_of_child() -> set[int]:
    out = subprocess.run([sys.executable, "-c", "import os; print(*os.sched_getaffinity(0))"],
                         capture_output=True, text=True, check=True).stdout
    return {int(c) for c in out.split()}


def test_workers_get_a_cpu_each_unless_there_are_more_workers_than_cpus():
    cpus = usable_cpus()
    assert [cpu_for_worker(i, len(cpus)) for i in range(len(cpus))] == cpus
    assert cpu_for_worker(0, len(cpus) + 1) is None


def test_pinned_confines_threads_and_children_then_gives_the_cpus_back(tmp_path):
    before = set(usable_cpus())
    seen = {}
    with pinned(directory=tmp_path) as cpu:
        assert cpu in before
        assert os.sched_getaffinity(0) == {cpu}
        thread = threading.Thread(target=lambda: seen.update(thread=os.sched_getaffinity(0)))
        thread.start()
        thread.join()
        assert seen["thread"] == {cpu}
        assert _affinity_of_child() == {cpu}
    assert os.sched_getaffinity(0) == before
    assert _affinity_of_child() == before
    with pinned(False, directory=tmp_path) as cpu:
        assert cpu is None and os.sched_getaffinity(0) == before


_HOLDER = """
import sys, time
from pathlib import Path
from arena.referee.placement import claim_cpu
claims = [claim_cpu(int(c), Path(sys.argv[1])) for c in sys.argv[2:]]
print(*[c.cpu for c in claims], flush=True)
sys.stdin.read()  # hold the claims until the parent closes stdin
"""


def _holder(directory, cpus):
    proc = subprocess.Popen([sys.executable, "-c", _HOLDER, str(directory), *map(str, cpus)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert [int(c) for c in proc.stdout.readline().split()] == list(cpus)
    return proc


def _end(holder):
    holder.communicate()  # closes its stdin (it then ends) and its stdout


def test_a_cpu_claimed_by_another_process_is_not_claimed_again_until_it_ends(tmp_path):
    cpus = usable_cpus()
    holder = _holder(tmp_path, [cpus[0]])
    try:
        claim = claim_cpu(cpus[0], tmp_path)
        assert claim is not None and claim.cpu != cpus[0]  # the preferred CPU was taken
        claim.release()
    finally:
        _end(holder)
    claim = claim_cpu(cpus[0], tmp_path)
    assert claim is not None and claim.cpu == cpus[0]  # freed when its holder ended
    claim.release()


def test_with_every_cpu_claimed_a_run_goes_unpinned(tmp_path):
    holder = _holder(tmp_path, usable_cpus())
    try:
        assert claim_cpu(None, tmp_path) is None
        with pinned(directory=tmp_path) as cpu:
            assert cpu is None and os.sched_getaffinity(0) == set(usable_cpus())
    finally:
        _end(holder)


def _cpus_reporting_bot(folder):
    """A copy of the random bot that writes the CPUs it may run on, named by its token."""
    bot = copy_bot("random", folder, name=folder.name)
    script = bot / "bot.py"
    script.write_text('import os, pathlib\npathlib.Path(os.environ["TEST_CPUS_DIR"], '
                      'os.environ["TICHU_TOKEN"]).write_text(" ".join(map(str, '
                      'sorted(os.sched_getaffinity(0)))))\n' + script.read_text())
    return bot


@pytest.mark.parametrize("flag", ["--pin", "--no-pin"])
def test_tournament_workers_and_their_bots_are_pinned_to_a_cpu_each(tmp_path, monkeypatch,
                                                                    flag):
    _cpus_reporting_bot(tmp_path / "random")
    _cpus_reporting_bot(tmp_path / "other")
    reports = tmp_path / "cpus"
    reports.mkdir()
    monkeypatch.setenv("TEST_CPUS_DIR", str(reports))
    config = write_config(tmp_path, ["random", "other"], games=4, target=100)
    # unsandboxed: the bots write their CPUs to a folder of the test
    config.write_text(config.read_text().replace("[tournament]",
                                                 '[tournament]\nisolation = "none"'))
    result = CliRunner().invoke(main, ["tournament", str(config), "-j", "2", flag,
                                       "--no-standings"])
    assert result.exit_code == 0, result.output
    seen = [{int(c) for c in p.read_text().split()} for p in reports.iterdir()]
    # each worker that got a pair starts a set of four bot processes for its first game and
    # another for its second: 16 in all. On a busy machine one worker may play both pairs
    # before the other asks; its second set then plays the next pair's first game: 12
    assert len(seen) in (12, 16)
    if flag == "--pin":
        # each on a CPU of its worker's own, unless other arena processes of this user (other
        # runs, other tests) hold every free CPU: then its worker runs unpinned
        pinned = [cpus for cpus in seen if len(cpus) == 1]
        assert all(cpus == set(usable_cpus()) for cpus in seen if len(cpus) != 1)
        assert len(set().union(*pinned)) <= 2
    else:
        assert all(cpus == set(usable_cpus()) for cpus in seen)
