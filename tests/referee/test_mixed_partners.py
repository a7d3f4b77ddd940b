"""Games of mixed partners: four different entrants, one process each, and what a bot is told
of them (PROTOCOL.md 5.2, "Partners"): `settings.names` names each seat's entrant, so a bot
learns its partner's name (and its opponents'); the messages are those of protocol 1, valid
for a bot of any version of it, and a game of fixed partners is told as before."""

from __future__ import annotations

import shutil

import pytest

from arena.referee.match import GameSpec, Match, run_game
from arena.referee.record import GameRecord, Termination, resimulate
from arena.sandbox import Isolation
from protocol import codec
from tests.pace import honest_time
from tests.referee.conftest import HERE, ROOT, entrant
from tests.referee.test_hidden_cards import frames_of

pytestmark = pytest.mark.timeout(120)


def spy(folder, name: str):
    """A copy of the spy bot (it writes every frame it receives) named `name`."""
    shutil.copytree(HERE / "bots" / "spy", folder)
    toml = folder / "bot.toml"
    toml.write_text(toml.read_text().replace('name = "spy"', f'name = "{name}"'))
    return entrant(folder)


def welcomes(folder) -> dict[int, dict]:
    """Each seat's welcome, from the frames the spies wrote."""
    found = {}
    for log in folder.glob("*.frames"):
        for message in frames_of(log):
            if message["type"] == "welcome":
                found[message["seat"]] = message
    return found


def test_each_seat_is_told_its_partners_and_opponents_entrant_names(tmp_path, monkeypatch):
    frames = tmp_path / "frames"
    frames.mkdir()
    monkeypatch.setenv("TICHU_TEST_SPY_DIR", str(frames))
    a, b, c, d = (spy(tmp_path / n, n) for n in ("north", "east", "south", "west"))
    spec = GameSpec("mixed", 5, (a, b), target=300, time=honest_time(), partners=(c, d))
    record = run_game(spec, isolation=Isolation.NONE)  # unsandboxed: the spies write here
    assert record.termination is Termination.NORMAL, record.fault
    told = welcomes(frames)
    assert sorted(told) == [0, 1, 2, 3]
    for seat, welcome in told.items():
        assert codec.validate(welcome, "referee") == welcome  # protocol 1, as it always was
        names = welcome["settings"]["names"]
        assert names == ["north", "east", "south", "west"]
        partner = names[(seat + 2) % 4]
        assert partner != names[seat]  # a different entrant, and the bot knows which
    assert [e.name for e in record.seat_entrants()] == ["north", "east", "south", "west"]
    assert [record.seat_name(s) for s in range(4)] == ["north", "east", "south", "west"]
    again = GameRecord.from_json(record.to_json())
    assert again.seats == record.seats
    resimulate(again)


def test_a_game_of_fixed_partners_is_told_and_recorded_as_before(tmp_path, monkeypatch):
    frames = tmp_path / "frames"
    frames.mkdir()
    monkeypatch.setenv("TICHU_TEST_SPY_DIR", str(frames))
    a, b = spy(tmp_path / "a", "north"), spy(tmp_path / "b", "east")
    record = run_game(GameSpec("fixed", 5, (a, b), target=300, time=honest_time()),
                      isolation=Isolation.NONE)
    assert record.termination is Termination.NORMAL, record.fault
    for welcome in welcomes(frames).values():
        assert welcome["settings"]["names"] == ["north", "east", "north", "east"]
    assert "seats" not in record.to_json() and record.seats is None


def test_a_match_of_mixed_partners_seats_each_entrant_where_the_spec_says(tmp_path):
    # the two games of a pair: each partnership on the other side in the second
    bots = [entrant(ROOT / "bots" / "random")] + \
        [spy(tmp_path / n, n) for n in ("east", "south", "west")]
    first = GameSpec("g0", 3, (bots[0], bots[1]), target=100, time=honest_time(),
                     partners=(bots[2], bots[3]))
    second = GameSpec("g1", 3, (bots[1], bots[0]), target=100, time=honest_time(),
                      partners=(bots[3], bots[2]))
    with Match(bots[0], bots[1], isolation=Isolation.NONE, partners=(bots[2], bots[3])) as match:
        assert [c.entrant.name for c in match.seat_conns(first)] == \
            ["random", "east", "south", "west"]
        assert [c.entrant.name for c in match.seat_conns(second)] == \
            ["east", "random", "west", "south"]
        other = GameSpec("x", 3, (bots[0], bots[2]), partners=(bots[1], bots[3]))
        assert [c.entrant.name for c in match.seat_conns(other)] == \
            ["random", "south", "east", "west"]
        with pytest.raises(ValueError, match="not between this match's entrants"):
            match.seat_conns(GameSpec("y", 3, (bots[0], bots[1])))
