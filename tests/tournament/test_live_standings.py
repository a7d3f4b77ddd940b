"""The live standings line is fitted in a thread of its own: asking for the line and storing
games go on while a fit is under way, and the line shows the last fit."""

from __future__ import annotations

import threading
import time

import pytest

from arena.ratings.fit import rate
from arena.referee.record import Termination
from arena.tournament.runner import LiveStandings
from arena.tournament.schedule import round_robin
from arena.tournament.store import EntrantRow, GameRow, Store

pytestmark = pytest.mark.timeout(30)

KEYS = ["a@v1", "b@v1", "c@v1"]


def store_game(store: Store, game) -> None:
    winner = 0 if game.teams[0] < game.teams[1] else 1  # a beats b beats c, mostly
    if game.pair_index % 3 == 2:
        winner = 1 - winner
    scores = (1000, 300) if winner == 0 else (300, 1000)
    store.add_game(GameRow(game, scores, winner, 5, Termination.NORMAL, None, None, 1.0,
                           f"records/{game.record_name}"))


def test_the_line_never_waits_for_a_fit_and_storing_goes_on_meanwhile(tmp_path):
    games = round_robin(KEYS, 6, 3)
    started, release = threading.Event(), threading.Event()

    def slow_rate(results, anchor):
        started.set()
        release.wait()
        return rate(results, anchor=anchor)

    with Store(tmp_path / "s.sqlite") as store:
        for key in KEYS:
            name = key.split("@")[0]
            store.register_entrant(EntrantRow(key, name, "v1", "1.0", "python", f"/{name}",
                                              "config", False))
        for game in games[:9]:
            store_game(store, game)
        names = {k: (k.split("@")[0], "v1") for k in KEYS}
        live = LiveStandings(store, KEYS, names, "a", every=0.0, rate=slow_rate)
        try:
            assert live.line() == ""  # nothing fitted yet: the first fit starts now
            assert started.wait(10)
            for game in games[9:]:  # a fit is under way: storing is not held up
                store_game(store, game)
                assert live.line() == ""
            release.set()
            deadline = time.monotonic() + 20
            while not live.line() and time.monotonic() < deadline:
                time.sleep(0.02)
            line = live.line()
        finally:
            release.set()
            live.close()
        assert store.game_count() == len(games)
    assert line.split()[0::2] == ["a", "b", "c"] and line.split()[1] == "+0"
