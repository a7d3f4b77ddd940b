"""Each kind of bot failure, triggered by a deliberately broken bot, becomes the right recorded
termination and a forfeit of its entrant; the referee goes on and no process is left behind.

The honest side's time limits come from the machine's pace now (tests.pace), and a bot that
must be late is late by a multiple of the limit it breaks, or forever: a test fails for the
fault it names, never because the machine is busy."""

from __future__ import annotations

import pytest

from arena.referee.manifest import BotManifest
from arena.referee.match import Entrant, GameSpec, Match, TimeControl, run_game
from arena.referee.record import Termination
from tests.pace import honest_time, pace
from tests.processes import bot_processes
from tests.referee.conftest import HERE, ROOT

pytestmark = pytest.mark.timeout(120)
FAULTY = HERE / "bots" / "faulty"


def play_faulty(monkeypatch, faulty_bot, random_bot, fault: str, at: int = 5,
                time: TimeControl | None = None, **env: str):
    monkeypatch.setenv("TICHU_TEST_FAULT", fault)
    monkeypatch.setenv("TICHU_TEST_FAULT_AT", str(at))
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    record = run_game(GameSpec(f"fault-{fault}", 1, (random_bot, faulty_bot),
                               time=time or honest_time()))
    assert not bot_processes(FAULTY), "a bot process was left behind"
    assert not bot_processes(ROOT / "bots" / "random"), "a bot process was left behind"
    return record


def assert_forfeit_by_faulty(record, kind: Termination) -> None:
    assert record.termination is kind
    assert record.fault is not None and record.fault.kind is kind
    assert record.fault.seat in (1, 3), "the faulty entrant sits at seats 1 and 3"
    assert record.winner == 0, "the offending entrant forfeits"


def test_a_bot_that_cannot_be_started_is_a_start_failure(random_bot, tmp_path):
    manifest = BotManifest(tmp_path, "ghost", "1", "none", ("./no-such-program",))
    record = run_game(GameSpec("start", 1, (Entrant(manifest, "x"), random_bot),
                               time=honest_time()))
    assert record.termination is Termination.START_FAILURE
    assert record.fault.seat == 0 and record.winner == 1
    assert "no-such-program" in record.fault.message
    assert not bot_processes(ROOT / "bots" / "random")


def test_a_bot_that_exits_at_start_is_a_start_failure_with_exit_code_and_output(
        monkeypatch, faulty_bot, random_bot):
    record = play_faulty(monkeypatch, faulty_bot, random_bot, "exit_at_start")
    assert_forfeit_by_faulty(record, Termination.START_FAILURE)
    assert record.fault.details["exit_code"] == 3
    assert "exiting at start" in record.fault.details["output"]


def test_a_bot_that_never_says_hello_is_a_handshake_failure(monkeypatch, faulty_bot, random_bot):
    # a hello time the honest bots' start-up keeps within at this pace; the faulty one never
    time = honest_time()
    record = play_faulty(monkeypatch, faulty_bot, random_bot, "no_hello", time=time)
    assert_forfeit_by_faulty(record, Termination.HANDSHAKE_FAILURE)
    assert record.fault.message == f"no valid hello within {time.hello:g} s of its start"


def test_a_hello_with_a_wrong_token_is_rejected_and_the_seat_fails_its_handshake(
        monkeypatch, faulty_bot, random_bot):
    # a hello time its start-up keeps within, as an honest one's: the failure is the token's,
    # not a late hello
    record = play_faulty(monkeypatch, faulty_bot, random_bot, "wrong_token")
    assert_forfeit_by_faulty(record, Termination.HANDSHAKE_FAILURE)
    assert record.fault.message == "said hello with a wrong token"


def test_an_unsupported_protocol_version_is_a_handshake_failure(monkeypatch, faulty_bot,
                                                                 random_bot):
    record = play_faulty(monkeypatch, faulty_bot, random_bot, "wrong_version")
    assert_forfeit_by_faulty(record, Termination.HANDSHAKE_FAILURE)
    assert "unsupported protocol version 99" in record.fault.message


def test_a_crash_is_recorded_with_exit_code_and_the_tail_of_stderr(monkeypatch, faulty_bot,
                                                                    random_bot):
    record = play_faulty(monkeypatch, faulty_bot, random_bot, "crash", at=6)
    assert_forfeit_by_faulty(record, Termination.CRASH)
    assert record.fault.details["exit_code"] == 7
    assert "crashing on purpose" in record.fault.details["output"]
    assert record.fault.decision >= 5


def tight_control(decision: float, grace: float, fresh: bool = False) -> TimeControl:
    """Honest hello and bank, and a decision limit and grace that are `decision` and `grace`
    on an idle machine, or what the honest bots need at the pace now (`fresh`: measured
    again now), if more."""
    now = pace(fresh=fresh)
    return TimeControl(hello=now.hello_limit(), decision=now.decision_limit(decision),
                       bank=now.bank_limit(), grace=now.grace_limit(grace))


def test_a_hanging_bot_times_out_with_its_overrun(monkeypatch, faulty_bot, random_bot):
    time = tight_control(0.5, 0.1)
    record = play_faulty(monkeypatch, faulty_bot, random_bot, "hang", time=time)
    assert_forfeit_by_faulty(record, Termination.TIMEOUT)
    assert record.fault.details["overrun"] >= time.grace - 0.0005  # kept to the millisecond


def test_a_reply_just_inside_the_grace_margin_is_accepted(monkeypatch, faulty_bot, random_bot):
    # past the decision limit by a quarter of the grace: three quarters of it (0.45 s on an
    # idle machine, and as many honest replies' worth as the pace needs) are left for the
    # bot's wake-up and the transport
    time = tight_control(0.3, 0.6, fresh=True)
    delay = time.decision + time.grace / 4
    record = play_faulty(monkeypatch, faulty_bot, random_bot, "slow", time=time,
                         TICHU_TEST_DELAY=str(delay))
    assert record.termination is Termination.NORMAL, (record.fault, time, delay)


def test_a_reply_past_the_grace_margin_is_a_timeout(monkeypatch, faulty_bot, random_bot):
    time = tight_control(0.2, 0.1)
    delay = 3 * (time.decision + time.grace)
    record = play_faulty(monkeypatch, faulty_bot, random_bot, "slow", time=time,
                         TICHU_TEST_DELAY=str(delay))
    assert_forfeit_by_faulty(record, Termination.TIMEOUT)


def test_the_time_bank_limits_a_seat_over_the_whole_game(monkeypatch, faulty_bot, random_bot):
    # a bank of 0.3 s, or twenty of the slowest replies measured, if more: the honest seats,
    # a handful of replies each before the faulty one's fifth decision, keep within it (and
    # the test lasts about a bank); the slow reply takes twice the bank, and half the
    # decision limit, so that it is the bank that runs out (the referee stops it there)
    now = pace()
    bank = max(0.3, now.decision_limit(0.0))
    delay = 2 * bank
    time = TimeControl(hello=now.hello_limit(), decision=2 * delay, bank=bank,
                       grace=now.grace_limit(0.05))
    record = play_faulty(monkeypatch, faulty_bot, random_bot, "slow", time=time,
                         TICHU_TEST_DELAY=str(delay))
    assert_forfeit_by_faulty(record, Termination.TIMEOUT)
    assert record.fault.details["overrun"] > 0


@pytest.mark.parametrize("fault, code", [("garbage", "not_msgpack"),
                                         ("truncated", "not_msgpack"),
                                         ("multi_frame", "wrong_type")])
def test_malformed_messages_are_protocol_violations_with_the_offending_bytes(
        monkeypatch, faulty_bot, random_bot, fault, code):
    record = play_faulty(monkeypatch, faulty_bot, random_bot, fault)
    assert_forfeit_by_faulty(record, Termination.PROTOCOL_VIOLATION)
    assert record.fault.details["protocol_error"] == code
    assert record.fault.details["data"]


def test_garbage_bytes_are_shown_in_the_record(monkeypatch, faulty_bot, random_bot):
    record = play_faulty(monkeypatch, faulty_bot, random_bot, "garbage")
    assert record.fault.details["data"].startswith(b"\xc1\xc1 this".hex())


def test_a_reply_to_an_unknown_request_id_is_a_protocol_violation(monkeypatch, faulty_bot,
                                                                  random_bot):
    record = play_faulty(monkeypatch, faulty_bot, random_bot, "unknown_id")
    assert_forfeit_by_faulty(record, Termination.PROTOCOL_VIOLATION)
    assert "a reply to request" in record.fault.message


def test_an_oversize_message_is_refused_and_the_bot_forfeits(monkeypatch, faulty_bot,
                                                             random_bot):
    record = play_faulty(monkeypatch, faulty_bot, random_bot, "oversize")
    # a 2 MiB frame: the referee's transport reads its header and refuses it there, unread
    assert_forfeit_by_faulty(record, Termination.PROTOCOL_VIOLATION)
    assert record.fault.details["protocol_error"] == "oversize"
    assert record.fault.message == ("oversize: a message of 2097152 bytes or more, over the "
                                    "maximum 16384")


def test_an_illegal_play_is_an_illegal_action_forfeit(monkeypatch, faulty_bot, random_bot):
    for at in range(8, 40):  # the first decision from `at` on that is a play
        monkeypatch.setenv("TICHU_TEST_FAULT_AT", str(at))
        record = play_faulty(monkeypatch, faulty_bot, random_bot, "illegal", at=at)
        if record.termination is not Termination.NORMAL:
            break
    assert_forfeit_by_faulty(record, Termination.ILLEGAL_ACTION)
    assert record.fault.message.startswith("card-not-held")
    assert record.fault.details["action"]["action"]["cards"]


def test_the_next_game_of_a_match_restarts_a_crashed_bot(monkeypatch, faulty_bot, random_bot):
    monkeypatch.setenv("TICHU_TEST_FAULT", "crash")
    monkeypatch.setenv("TICHU_TEST_FAULT_AT", "3")
    with Match(random_bot, faulty_bot) as match:
        first = match.play(GameSpec("m1", 1, (random_bot, faulty_bot), time=honest_time()),
                           last=False)
        second = match.play(GameSpec("m2", 1, (faulty_bot, random_bot), time=honest_time()))
    assert first.termination is second.termination is Termination.CRASH, (first.fault,
                                                                           second.fault)
    assert not bot_processes(FAULTY)
