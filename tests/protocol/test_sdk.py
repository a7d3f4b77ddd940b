"""The Python SDK over a real ZeroMQ socket, against a scripted referee (expect -> respond)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import zmq

from arena.referee import wire
from arena.rules import Game
from protocol import sdk
from protocol.codec import ProtocolError, decode, encode

ROOT = Path(__file__).resolve().parents[2]
VECTORS = {v["name"]: v["message"]
           for v in json.loads((ROOT / "protocol" / "vectors" / "messages.json").read_text())}
WELCOME = VECTORS["welcome"]


class ScriptedReferee:
    """A bound ROUTER socket that expects bot messages and sends scripted ones."""

    def __init__(self) -> None:
        self.context = zmq.Context()
        self.sock = self.context.socket(zmq.ROUTER)
        self.sock.setsockopt(zmq.LINGER, 0)
        self.sock.bind("tcp://127.0.0.1:0")
        self.endpoint = self.sock.getsockopt_string(zmq.LAST_ENDPOINT)
        self.peers: dict[bytes, int] = {}

    def expect(self, kind: str, timeout_ms: int = 5000) -> tuple[bytes, dict]:
        assert self.sock.poll(timeout_ms), f"no {kind} from the bot"
        frames = self.sock.recv_multipart()
        assert len(frames) == 2, "one identity frame and one payload frame, no delimiter"
        message = decode(frames[1], "bot")
        assert message["type"] == kind
        return frames[0], message

    def send(self, peer: bytes, message: dict) -> None:
        self.sock.send_multipart([peer, encode(message, "referee")])

    def close(self) -> None:
        self.sock.close()
        self.context.term()


@pytest.fixture
def referee():
    peer = ScriptedReferee()
    yield peer
    peer.close()


def _run_in_thread(bot, endpoint, token="tok"):
    result = {}
    thread = threading.Thread(target=lambda: result.setdefault(
        "status", sdk.run(bot, endpoint, token)), daemon=True)
    thread.start()
    return thread, result


@pytest.mark.timeout(20)
def test_sdk_bot_plays_a_scripted_session(referee):
    seen = []

    class Recorder(sdk.Bot):
        name, version = "recorder", "9.9"

        def decide(self, request):
            seen.append(request["kind"])
            if request["kind"] == "exchange":
                return sdk.exchange(request["observation"]["hand"][:3])
            return sdk.choose(0)

    bot = Recorder()
    thread, result = _run_in_thread(bot, referee.endpoint, "secret")
    peer, hello = referee.expect("hello")
    assert (hello["token"], hello["name"], hello["version"], hello["protocol"]) == \
        ("secret", "recorder", "9.9", 1)
    referee.send(peer, WELCOME)
    for name in ("request_grand_tichu", "request_exchange", "request_play"):
        request = VECTORS[name]
        referee.send(peer, request)
        _, reply = referee.expect("reply")
        assert reply["id"] == request["id"]
    referee.send(peer, VECTORS["events"])
    referee.send(peer, VECTORS["end_game_over"])
    thread.join(5)
    assert result["status"] == 0
    assert seen == ["grand_tichu", "exchange", "play"]
    assert bot.seat == WELCOME["seat"]
    assert bot.events[-1]["kind"] == "game_end"
    expected = sum(len(VECTORS[n]["events"]) for n in ("request_grand_tichu", "request_exchange",
                                                       "request_play", "events", "end_game_over"))
    assert len(bot.events) == expected


@pytest.mark.timeout(20)
@pytest.mark.parametrize("stop", ["reject", "error_timeout"])
def test_sdk_bot_exits_when_stopped(referee, stop):
    thread, result = _run_in_thread(lambda request: sdk.choose(0), referee.endpoint)
    peer, _ = referee.expect("hello")
    referee.send(peer, VECTORS[stop])
    thread.join(5)
    assert result["status"] == 1


def test_sdk_refuses_a_malformed_reply_from_the_bot():
    session = sdk.Session(sdk.FunctionBot(lambda request: {"option": "first"}), "tok")
    session.handle(WELCOME)
    with pytest.raises(ProtocolError):
        session.handle(VECTORS["request_play"])


def test_sdk_requires_welcome_first():
    session = sdk.Session(sdk.FunctionBot(lambda request: sdk.choose(0)), "tok")
    with pytest.raises(ProtocolError):
        session.handle(VECTORS["request_play"])


def test_run_without_endpoint_exits_2(monkeypatch):
    monkeypatch.delenv(sdk.ENDPOINT_VAR, raising=False)
    assert sdk.run(lambda request: sdk.choose(0)) == 2


@pytest.mark.timeout(30)
def test_random_bot_process_follows_the_start_up_contract(referee):
    env = {**os.environ, "TICHU_ENDPOINT": referee.endpoint, "TICHU_TOKEN": "seat-token"}
    proc = subprocess.Popen([sys.executable, "bot.py"], cwd=ROOT / "bots" / "random", env=env,
                            stdin=subprocess.DEVNULL)
    try:
        peer, hello = referee.expect("hello", 15000)
        assert hello["token"] == "seat-token" and hello["name"] == "random"
        referee.send(peer, WELCOME)
        referee.send(peer, VECTORS["request_play"])
        _, reply = referee.expect("reply")
        assert 0 <= reply["option"] < len(VECTORS["request_play"]["options"])
        referee.send(peer, VECTORS["end_game_over"])
        assert proc.wait(10) == 0
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.timeout(60)
def test_four_sdk_bots_play_a_whole_game_over_one_router(referee):
    """A miniature referee: one ROUTER, four SDK bots, the engine and arena.referee.wire."""
    from arena.referee.inprocess import load_bot

    heuristic, random_ = load_bot(ROOT / "bots" / "heuristic"), load_bot(ROOT / "bots" / "random")
    threads = [_run_in_thread((heuristic if s % 2 == 0 else random_)(s), referee.endpoint,
                              f"token-{s}") for s in range(4)]
    seat_of: dict[bytes, int] = {}
    peer_of: dict[int, bytes] = {}
    for _ in range(4):
        peer, hello = referee.expect("hello")
        seat = int(hello["token"].split("-")[1])
        seat_of[peer], peer_of[seat] = seat, peer
        referee.send(peer, wire.welcome_message(seat, "g", 300, ["h", "r", "h", "r"], 10000, 1000,
                                                1 << 20, True))
    game, sent, request_id = Game(4, 300), [0] * 4, 0
    while not game.over:
        pending = {}
        for seat in game.to_act():
            decision = game.decision(seat)
            events = wire.events_for(seat, game.events[sent[seat]:])
            sent[seat] = len(game.events)
            referee.send(peer_of[seat], wire.request_message(
                decision, game.observation(seat), events, request_id, 1000))
            pending[request_id] = (seat, decision)
            request_id += 1
        while pending:
            peer, reply = referee.expect("reply")
            seat, decision = pending.pop(reply["id"])
            assert seat_of[peer] == seat
            game.apply(seat, wire.action_from_reply(reply, decision))
    for seat in range(4):
        events = wire.events_for(seat, game.events[sent[seat]:])
        referee.send(peer_of[seat], wire.end_message(game.scores, game.winner, events))
    for thread, result in threads:
        thread.join(5)
        assert result["status"] == 0


def test_sdk_asks_for_the_bank_only_for_a_bot_that_lists_it_and_sets_bank_ms():
    class Banked(sdk.Bot):
        capabilities = ("bank",)

        def decide(self, request):
            return sdk.choose(0)

    plain = sdk.Session(sdk.FunctionBot(lambda request: sdk.choose(0)), "tok")
    assert "bank" not in plain.hello()["capabilities"]  # the SDK does not ask by itself
    bot = Banked()
    session = sdk.Session(bot, "tok")
    assert "bank" in session.hello()["capabilities"]
    session.handle(VECTORS["welcome_bank"])
    assert bot.bank_ms == VECTORS["welcome_bank"]["limits"]["bank_ms"] == 300000
    session.handle(VECTORS["end_more_games"])
    session.handle(WELCOME)  # a referee that does not announce the bank: none is presumed
    assert bot.bank_ms is None
