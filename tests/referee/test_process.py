"""Bot processes: stopping one never hangs, an interrupted start leaves no process, and a
game's record keeps all a bot wrote, its last words after `end` included. Real processes,
real signals."""

from __future__ import annotations

import os
import random
import signal
import statistics
import sys
import threading
import time

import pytest

from arena.referee.match import GameSpec, run_game
from arena.referee.process import BotProcess
from arena.referee.record import Termination
from arena.sandbox import Isolation
from tests.pace import honest_time
from tests.processes import bot_processes
from tests.referee.conftest import ROOT, entrant
from tests.sandbox.conftest import need_sandbox

pytestmark = pytest.mark.timeout(120)


@pytest.mark.timeout(60)  # the hang this guards against lasted as long as the escaped child
def test_stopping_a_bot_whose_child_left_its_group_and_holds_its_output_does_not_hang(
        tmp_path):
    mark = f"tichu-escaped-{os.getpid()}"
    script = (f"echo started; setsid sh -c 'sleep 300 # {mark}' & sleep 300")
    bot = BotProcess(["sh", "-c", script], tmp_path, dict(os.environ), "escaper",
                     isolation=Isolation.NONE)
    try:
        bot.start()
        deadline = time.monotonic() + 10
        while "started" not in bot.output_tail() and time.monotonic() < deadline:
            time.sleep(0.01)
        bot.stop(grace=0.2)  # returned only once the escaped child exited, 300 s later
        assert "started" in bot.output_tail()
        assert bot.exit_code() is not None
    finally:
        _kill_marked(mark)


def test_a_signal_during_the_start_of_a_bot_leaves_no_process(tmp_path):
    """SIGUSR1 (its handler raises, as Ctrl-C's does) lands at a random moment of starts."""
    class Interrupted(BaseException):
        pass

    def interrupt(signum, frame):
        raise Interrupted

    previous = signal.signal(signal.SIGUSR1, interrupt)
    main = threading.get_ident()
    try:
        durations = []
        for _ in range(5):
            begin = time.perf_counter()
            _start_and_stop(tmp_path)
            durations.append(time.perf_counter() - begin)
        span = statistics.median(durations)
        interrupted = 0
        for _ in range(300):
            timer = threading.Timer(random.uniform(0, span), signal.pthread_kill,
                                    (main, signal.SIGUSR1))
            bot = BotProcess(["sleep", "60"], tmp_path, dict(os.environ), "started",
                             isolation=Isolation.NONE)
            try:
                timer.start()
                bot.start()
                timer.join()
            except Interrupted:
                interrupted += 1
                timer.join()
            bot.stop(grace=0.0)
            if bot_processes(tmp_path):
                break
        assert interrupted, "no start was interrupted: the test proved nothing"
        assert not bot_processes(tmp_path), "an interrupted start left its process running"
    finally:
        signal.signal(signal.SIGUSR1, previous)
        for pid in bot_processes(tmp_path):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("isolation", [Isolation.NONE, Isolation.SANDBOX])
def test_the_record_keeps_what_a_bot_writes_after_end(tmp_path, isolation):
    if isolation is Isolation.SANDBOX:
        need_sandbox()
    folder = tmp_path / "farewell"
    folder.mkdir()
    (folder / "bot.py").write_text((ROOT / "bots" / "random" / "bot.py").read_text())
    (folder / "run.sh").write_text('"$@"\nsleep 0.2\necho "farewell, written after end"\n')
    (folder / "bot.toml").write_text(f'name = "farewell"\nversion = "1"\nlanguage = "python"\n'
                                     f'command = ["sh", "run.sh", "{sys.executable}", '
                                     f'"bot.py"]\n')
    bot = entrant(folder)
    record = run_game(GameSpec("farewell", 3, (bot, entrant(ROOT / "bots" / "random")),
                               target=100, time=honest_time()), isolation=isolation)
    assert record.termination is Termination.NORMAL, record.fault
    assert all("farewell, written after end" in record.bot_output[seat] for seat in (0, 2))
    assert not bot_processes(folder)


def _start_and_stop(folder) -> None:
    bot = BotProcess(["sleep", "60"], folder, dict(os.environ), "timing",
                     isolation=Isolation.NONE)
    bot.start()
    bot.stop(grace=0.0)


def _kill_marked(mark: str) -> None:
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if mark.encode() in f.read():
                    os.kill(int(pid), signal.SIGKILL)
        except OSError:
            continue
