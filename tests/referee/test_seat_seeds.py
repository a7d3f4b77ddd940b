"""Reproducible bots: each seat's seed in `welcome` (the `seed` capability, PROTOCOL.md 5.2)."""

from __future__ import annotations

import hashlib
import json
import random

import pytest
from click.testing import CliRunner

from arena.cli.main import main
from arena.referee import wire
from arena.referee.inprocess import load_bot, play_local_game
from arena.rules import Game, deal_order
from protocol import codec, sdk
from protocol.codec import ProtocolError
from tests.pace import play_options
from tests.referee.conftest import ROOT


def game_of(path) -> tuple[list, list]:
    """A record's events and its decisions without their latencies (all that may differ)."""
    record = json.loads(path.read_text())
    decisions = [{k: v for k, v in d.items() if k != "latency_ms"} for d in record["decisions"]]
    return record["events"], decisions


@pytest.mark.timeout(120)
def test_arena_play_twice_with_the_same_seed_and_random_bots_plays_the_same_game(tmp_path):
    runner = CliRunner()
    paths = [tmp_path / f"game{i}.json" for i in range(2)]
    for path in paths:
        result = runner.invoke(main, ["play", str(ROOT / "bots" / "random"),
                                      str(ROOT / "bots" / "random"), "--seed", "9", "--target",
                                      "300", "--record", str(path), *play_options()])
        assert result.exit_code == 0, result.output
    assert game_of(paths[0]) == game_of(paths[1])
    events, decisions = game_of(paths[0])
    assert len(decisions) > 100


def test_the_seat_seed_is_fixed_by_game_seed_game_id_and_seat_and_differs_otherwise():
    seeds = {(g, i, s): wire.seat_seed(g, i, s) for g in (0, 1, 7) for i in ("a", "b")
             for s in range(4)}
    assert all(0 <= v < 2**31 for v in seeds.values())
    assert len(set(seeds.values())) == len(seeds)
    assert all(wire.seat_seed(*key) == value for key, value in seeds.items())


def test_the_seat_seed_is_not_the_seed_of_any_deal():
    for game_seed in range(20):
        deal_keys = {int.from_bytes(hashlib.sha256(f"tichu-arena/deal/{game_seed}/{r}".encode())
                                    .digest()[:16], "big") for r in range(1, 6)}
        for seat in range(4):
            seat_seed = wire.seat_seed(game_seed, "g", seat)
            assert seat_seed != game_seed and seat_seed not in deal_keys
            assert seat_seed not in {k & 0x7FFFFFFF for k in deal_keys}
            assert deal_order(seat_seed, 1) != deal_order(game_seed, 1)


def test_welcome_carries_a_seed_only_for_a_bot_that_asked():
    plain = wire.welcome_message(0, "g", 1000, ["a"] * 4, 1, 1, 1, True)
    seeded = wire.welcome_message(0, "g", 1000, ["a"] * 4, 1, 1, 1, True, seed=5)
    assert "seed" not in codec.validate(plain) and codec.validate(seeded)["seed"] == 5
    assert list(codec.validate(seeded))[-1] == "seed"
    with pytest.raises(ProtocolError, match="bad_value"):
        codec.validate({**seeded, "seed": 2**31})


def test_the_sdk_asks_for_a_seed_and_seeds_rng_and_the_random_module():
    class Probe(sdk.Bot):
        def decide(self, request):
            return sdk.choose(0)

    bot = Probe()
    session = sdk.Session(bot, "t")
    assert "seed" in session.hello()["capabilities"]
    welcome = wire.welcome_message(1, "g", 1000, ["a"] * 4, 1, 1, 1, True, seed=12345)
    session.handle(welcome)
    assert bot.seed == 12345 and bot.rng.random() == random.Random(12345).random()
    function_bot = sdk.FunctionBot(lambda request: sdk.choose(0))
    sdk.Session(function_bot, "t").handle(welcome)
    assert random.random() == random.Random(12345).random()


def test_in_process_games_of_the_random_bot_are_reproducible_from_the_game_seed():
    make = load_bot(ROOT / "bots" / "random")
    games = [play_local_game(3, [make(None) for _ in range(4)], target=300) for _ in range(2)]
    assert games[0].events == games[1].events
    assert Game(3).events[:5] == games[0].events[:5]
