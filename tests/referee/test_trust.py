"""The referee's trust boundary, attacked by hostile bots that are real processes.

A seat belongs to the process started for it: an impostor, a stranger or a bot's extra
connections cost nobody a seat. No message bends the referee: an endless multi-part
message, an oversized or costly hello, msgpack bombs and connection floods cost it a bounded
amount of memory (measured: the peak RSS of a referee process of its own, against a baseline
game in the same test) and end with the sender forfeiting. Every fault is charged to the seat
whose own bytes, process or time caused it, and to no other.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import subprocess
import sys
from collections.abc import Callable, Iterator

import pytest

from arena.referee import peers
from arena.referee.match import GameSpec, Match, TimeControl, run_game
from arena.referee.record import Termination
from arena.sandbox import Isolation
from tests.pace import honest_time, pace
from tests.processes import bot_processes
from tests.referee.conftest import HERE, ROOT, entrant
from tests.sandbox.conftest import need_sandbox

pytestmark = pytest.mark.timeout(120)
HOSTILE = HERE / "bots" / "hostile"
FAULTY = HERE / "bots" / "faulty"
THINKER = HERE / "bots" / "thinker"
MIB = 1024  # ru_maxrss is in KiB


def predictable_tokens(monkeypatch) -> None:
    """Stand for a token that leaked: the seats' tokens are `seat-token-0`... in the order the
    processes start (seat order)."""
    counter = iter(range(1000))
    monkeypatch.setattr(secrets, "token_hex", lambda n=None: f"seat-token-{next(counter)}")


def referee_child(attack: str, **env: str) -> dict:
    """One game (random bot vs hostile bot) in a referee process of its own: its outcome and
    the referee's peak RSS."""
    child_env = dict(os.environ, TICHU_TEST_ATTACK=attack, **env)
    time = honest_time()
    limits = [str(v) for v in (time.hello, time.decision, time.bank, time.grace)]
    done = subprocess.run(
        [sys.executable, "-m", "tests.referee.referee_child", str(ROOT / "bots" / "random"),
         str(HOSTILE), *limits], cwd=ROOT, env=child_env, capture_output=True, text=True,
        timeout=100)
    assert done.returncode == 0, done.stderr[-2000:]
    assert not bot_processes(HOSTILE), "a hostile process was left behind"
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def baseline_rss() -> int:
    quiet = referee_child("none")
    assert quiet["termination"] == "normal", quiet
    return quiet["maxrss_kib"]


@pytest.mark.parametrize("attack, env, said", [
    ("multipart", {}, "over the maximum 16384"),  # 256 MiB of 64 KiB frames, "more" set
    ("multipart", {"TICHU_TEST_FRAME_BYTES": "1000"}, "over the maximum 16384"),
    ("bomb_wide", {}, "over the maximum 16384"),  # a million empty maps in 1 MiB
    ("bomb_small_wide", {}, "longer than a message may hold"),
    ("bomb_deep", {}, "nested deeper"),
    ("bomb_declared", {}, "longer than a message may hold"),  # 2**32-1 items declared
    ("oversize_hello", {}, "over the maximum 16384"),
    ("nul_hello", {}, "over the maximum 16384"),
    # 30 connections at once, then a 1 MiB bomb on each: the ninth connection decides
    ("connection_flood", {}, "opened more than 8 connections to the referee"),
])
def test_no_message_bends_the_referee_and_the_sender_forfeits(baseline_rss, attack, env, said):
    result = referee_child(attack, **env)
    assert result["termination"] == "protocol_violation", result
    assert result["seat"] in (1, 3) and result["winner"] == 0, "the hostile bot forfeits"
    assert said in result["message"]
    assert result["maxrss_kib"] <= baseline_rss + 64 * MIB, (
        f"the referee grew from {baseline_rss} KiB to {result['maxrss_kib']} KiB")


@pytest.mark.parametrize("nuls", [4000, 1000000])
def test_a_hello_of_nul_characters_is_its_senders_forfeit_and_no_text_grows(
        monkeypatch, random_bot, nuls):
    monkeypatch.setenv("TICHU_TEST_ATTACK", "nul_hello")
    monkeypatch.setenv("TICHU_TEST_NULS", str(nuls))
    record = run_game(GameSpec("nul", 1, (random_bot, entrant(HOSTILE)), time=honest_time()))
    assert record.termination is Termination.PROTOCOL_VIOLATION, record.fault
    assert record.fault.seat in (1, 3) and record.winner == 0
    assert len(record.fault.message) <= 1000
    assert len(json.dumps(record.to_json())) < 200000
    rejects = [line for out in record.bot_output for line in out.splitlines()
               if "hostile: got reject" in line]
    assert all(int(line.split(" of ")[1].split()[0]) <= 1200 for line in rejects), rejects
    assert not bot_processes(HOSTILE)


@pytest.mark.parametrize("transport", ["tcp", "ipc"])
def test_an_impostor_hello_with_another_seats_token_is_the_impostors_forfeit(
        monkeypatch, random_bot, transport):
    predictable_tokens(monkeypatch)
    monkeypatch.setenv("TICHU_TEST_ATTACK", "impostor")
    monkeypatch.setenv("TICHU_TEST_VICTIM_TOKEN", "seat-token-0")  # seat 0's: the random bot
    record = run_game(GameSpec("impostor", 1, (random_bot, entrant(HOSTILE)), time=honest_time()),
                      transport)
    assert record.termination is Termination.PROTOCOL_VIOLATION, record.fault
    assert record.fault.seat in (1, 3) and record.winner == 0
    assert "the token of seat 0" in record.fault.message
    assert not bot_processes(HOSTILE)


CLOSED_UNREAD = "hostile: stranger closed after 0 bytes from the referee"


@contextlib.contextmanager
def stranger(endpoint: str, token: str) -> Iterator[Callable[[], str]]:
    """A process the referee did not start, connected, its greeting and hello sent, for the
    block; the block gets a function that waits for the stranger's last word (how many bytes
    of the referee's it read before its connection was closed)."""
    env = dict(os.environ, TICHU_ENDPOINT=endpoint, TICHU_TOKEN=token,
               TICHU_TEST_ATTACK="stranger")
    with subprocess.Popen([sys.executable, str(HOSTILE / "bot.py")], env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          text=True) as process:
        try:
            assert process.stdout.readline().strip() == "hostile: stranger connected"
            yield lambda: process.stdout.readline().strip()
        finally:
            process.kill()


@pytest.mark.parametrize("isolation", [Isolation.NONE, Isolation.SANDBOX])
def test_a_stranger_with_a_stolen_token_is_closed_unread_and_costs_nobody_a_seat(
        monkeypatch, random_bot, faulty_bot, isolation):
    """Unsandboxed, the connection is traced to no seat's process; sandboxed, it came to the
    referee's own endpoint, which no bot can reach: either way it is closed before a byte of
    it is read (the referee sends its greeting to every connection it reads)."""
    if isolation is Isolation.SANDBOX:
        need_sandbox()
    predictable_tokens(monkeypatch)
    monkeypatch.delenv("TICHU_TEST_FAULT", raising=False)
    with Match(random_bot, faulty_bot, isolation=isolation) as match, \
            stranger(match.socket.endpoint, "seat-token-0") as last_word:
        record = match.play(GameSpec("stranger", 1, (random_bot, faulty_bot), target=100,
                                     time=honest_time()))
        said = last_word()  # while the referee's endpoint is still open
    assert record.termination is Termination.NORMAL, record.fault
    assert said == CLOSED_UNREAD


def test_a_bot_exiting_before_hello_is_charged_with_its_own_exit_not_a_strangers_rejection(
        monkeypatch, random_bot, faulty_bot):
    monkeypatch.setenv("TICHU_TEST_FAULT", "exit_at_start")
    with Match(random_bot, faulty_bot) as match, stranger(match.socket.endpoint,
                                                          "not-a-token"):
        record = match.play(GameSpec("exit", 1, (random_bot, faulty_bot), time=honest_time()))
    assert record.termination is Termination.START_FAILURE, record.fault
    assert record.fault.seat in (1, 3) and record.winner == 0
    assert record.fault.details["exit_code"] == 3
    assert "reject" not in record.fault.message


def hostile_game(monkeypatch, random_bot, attack: str, isolation: Isolation, **env: str):
    """A game of the random bot (seats 0, 2) against the hostile bot, at `isolation`."""
    if isolation is Isolation.SANDBOX:
        need_sandbox()
    monkeypatch.setenv("TICHU_TEST_ATTACK", attack)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    record = run_game(GameSpec(attack, 1, (random_bot, entrant(HOSTILE)), target=100,
                               time=honest_time()), isolation=isolation)
    assert record.isolation == isolation.value
    assert not bot_processes(HOSTILE)
    return record


@pytest.mark.parametrize("isolation", [Isolation.SANDBOX, Isolation.NONE])
@pytest.mark.parametrize("attack, said", [
    ("second_hello", "a second hello, on another connection"),
    ("hello_again", "a hello message while"),
])
def test_a_second_hello_is_its_senders_protocol_violation(monkeypatch, random_bot, isolation,
                                                          attack, said):
    record = hostile_game(monkeypatch, random_bot, attack, isolation)
    assert record.termination is Termination.PROTOCOL_VIOLATION, record.fault
    assert record.fault.seat in (1, 3) and record.winner == 0
    assert said in record.fault.message, record.fault.message


@pytest.mark.parametrize("isolation", [Isolation.SANDBOX, Isolation.NONE])
def test_a_ninth_connection_of_a_bot_is_its_protocol_violation(monkeypatch, random_bot,
                                                                isolation):
    record = hostile_game(monkeypatch, random_bot, "extra_connections", isolation,
                          TICHU_TEST_CONNECTIONS="9")
    assert record.termination is Termination.PROTOCOL_VIOLATION, record.fault
    assert record.fault.seat in (1, 3) and record.winner == 0
    assert record.fault.message == "opened more than 8 connections to the referee"


@pytest.mark.parametrize("isolation", [Isolation.SANDBOX, Isolation.NONE])
def test_eight_connections_of_a_bot_are_allowed(monkeypatch, random_bot, isolation):
    """The control of the ninth: the same bot with one connection fewer plays its game."""
    record = hostile_game(monkeypatch, random_bot, "extra_connections", isolation,
                          TICHU_TEST_CONNECTIONS="8")
    assert record.termination is Termination.NORMAL, record.fault


@pytest.mark.parametrize("transport", ["tcp", "ipc"])
def test_extra_idle_connections_of_a_bot_cost_nobody_a_seat(monkeypatch, random_bot,
                                                            transport):
    monkeypatch.setenv("TICHU_TEST_ATTACK", "extra_connections")
    record = run_game(GameSpec("extra", 1, (random_bot, entrant(HOSTILE)), target=100,
                               time=honest_time()), transport)
    assert record.termination is Termination.NORMAL, record.fault


def test_when_both_entrants_fail_at_the_start_neither_is_charged(monkeypatch, tmp_path,
                                                                 faulty_bot):
    silent = tmp_path / "silent"
    silent.mkdir()
    (silent / "bot.py").write_text("import time\nwhile True:\n    time.sleep(3600)\n")
    (silent / "bot.toml").write_text('name = "silent"\nversion = "1"\nlanguage = "python"\n'
                                     'command = ["python", "bot.py"]\n')
    monkeypatch.setenv("TICHU_TEST_FAULT", "exit_at_start")
    # the faulty bot's exit comes before the hello time, an honest start-up's at this pace
    time = honest_time()
    record = run_game(GameSpec("both", 1, (entrant(silent), faulty_bot), time=time))
    assert record.winner is None and record.fault.seat is None, record.fault
    faults = {f["seat"]: f["kind"] for f in record.fault.details["faults"]}
    assert faults == {0: "handshake_failure", 1: "start_failure", 2: "handshake_failure",
                      3: "start_failure"}
    assert not bot_processes(silent) and not bot_processes(FAULTY)


def test_once_the_time_bank_is_spent_a_reply_within_the_grace_is_a_timeout(
        monkeypatch, faulty_bot, random_bot):
    # every reply takes 0.2 s (or twenty of the slowest honest replies measured, if more),
    # well within decision + grace, but the bank is two and a half replies: the honest seats,
    # a few replies each before the faulty ones' third, keep within it
    now = pace()
    delay = max(0.2, 20 * now.decision)
    monkeypatch.setenv("TICHU_TEST_FAULT", "slow_all")
    monkeypatch.setenv("TICHU_TEST_FAULT_AT", "1")
    monkeypatch.setenv("TICHU_TEST_DELAY", str(delay))
    time = TimeControl(hello=now.hello_limit(), decision=10 * delay, bank=2.5 * delay,
                       grace=now.grace_limit(0.3))
    record = run_game(GameSpec("bank", 1, (random_bot, faulty_bot), target=100, time=time))
    assert record.termination is Termination.TIMEOUT, record.fault
    assert record.fault.seat in (1, 3) and record.winner == 0
    assert record.time_used[record.fault.seat] >= time.bank


def test_a_decision_that_timed_out_counts_in_the_time_used(monkeypatch, faulty_bot,
                                                           random_bot):
    monkeypatch.setenv("TICHU_TEST_FAULT", "hang")
    now = pace()
    time = TimeControl(hello=now.hello_limit(), decision=now.decision_limit(0.5),
                       bank=now.bank_limit(), grace=now.grace_limit(0.1))
    record = run_game(GameSpec("hang", 1, (random_bot, faulty_bot), time=time))
    assert record.termination is Termination.TIMEOUT
    assert record.time_used[record.fault.seat] >= time.decision + time.grace


def test_a_late_reply_of_an_innocent_seat_does_not_forfeit_its_next_game(monkeypatch):
    """A non-acting seat crashes while a multi_game seat thinks: the thinker's reply arrives
    after the game's end, during the next game's start; it is ignored, not a violation."""
    # the thinker thinks 0.4 s, or ten of the slowest honest replies measured, if more, and
    # the crash comes a quarter of that after the faulty seat's reply: within the thinking,
    # and far within the honest decision limit (twenty of those replies, at least 2 s)
    think = max(0.4, 10 * pace().decision)
    monkeypatch.setenv("TICHU_TEST_FAULT", "crash_later")
    monkeypatch.setenv("TICHU_TEST_FAULT_AT", "3")
    monkeypatch.setenv("TICHU_TEST_DELAY", str(think / 4))
    monkeypatch.setenv("TICHU_TEST_THINK", str(think))
    thinker, faulty = entrant(THINKER), entrant(FAULTY)
    for _attempt in range(4):  # until the crash falls while the thinker thinks
        with Match(thinker, faulty) as match:
            first = match.play(GameSpec("late-1", 1, (thinker, faulty), time=honest_time()),
                               last=False)
            second = match.play(GameSpec("late-2", 1, (thinker, faulty), time=honest_time()))
        if any("ended while I answered" in out for out in second.bot_output):
            break  # (the reused thinkers' output tails hold what they said after game 1)
        if second.fault is None or second.fault.seat not in (1, 3):
            break  # a thinker was charged: wrong, whatever the timing
    else:
        pytest.fail("the crash never fell while the thinker was thinking")
    assert first.termination is Termination.CRASH and first.fault.seat in (1, 3), first.fault
    assert second.termination is Termination.CRASH, second.fault
    assert second.fault.seat in (1, 3) and second.winner == 0
    assert not bot_processes(THINKER) and not bot_processes(FAULTY)


def _untraceable_game_with_a_stolen_token(monkeypatch, random_bot, faulty_bot, isolation):
    """A game where no connection can be traced to its process (no /proc) and a stranger
    connects to the referee's endpoint with seat 0's token: (record, the stranger's last
    word, or None where the referee may read and keep its connection)."""
    def untraceable(sock, roots):
        raise peers.OwnerUnknown("no /proc here")
    monkeypatch.setattr(peers, "connection_owner", untraceable)
    predictable_tokens(monkeypatch)
    monkeypatch.delenv("TICHU_TEST_FAULT", raising=False)
    with Match(random_bot, faulty_bot, isolation=isolation) as match, \
            stranger(match.socket.endpoint, "seat-token-0") as last_word:
        record = match.play(GameSpec("leak", 1, (random_bot, faulty_bot), time=honest_time()))
        return record, last_word() if isolation is Isolation.SANDBOX else None


def test_where_no_process_can_be_traced_a_token_presented_twice_voids_the_game(
        monkeypatch, random_bot, faulty_bot):
    """Without /proc (another OS), the token alone names a seat: a stolen token cannot be
    told from the real one, so the game is void, and nobody is charged."""
    record, _ = _untraceable_game_with_a_stolen_token(monkeypatch, random_bot, faulty_bot,
                                                      Isolation.NONE)
    assert record.termination is Termination.HARNESS_FAULT, record.fault
    assert record.winner is None and "leaked" in record.fault.message


def test_sandboxed_a_stranger_with_a_stolen_token_costs_nobody_anything(
        monkeypatch, random_bot, faulty_bot):
    """Sandboxed bots reach the referee only through the listener handed out of their own
    sandbox, so whatever connects to the referee's own endpoint is a stranger, closed unread,
    even where connections cannot be traced and it holds a seat's token."""
    need_sandbox()
    record, said = _untraceable_game_with_a_stolen_token(monkeypatch, random_bot, faulty_bot,
                                                         Isolation.SANDBOX)
    assert record.termination is Termination.NORMAL, record.fault
    assert said == CLOSED_UNREAD
