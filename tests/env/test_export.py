"""`arena export`: the decisions of real refereed games (bot processes, a tournament store),
one row per asked decision, holding only what the seat could see, in the environment's
encoding and steps."""

from __future__ import annotations

import gzip
import json
import sqlite3

import pytest
from click.testing import CliRunner

from tests.env.conftest import ROOT, cards_in, known_cards, require_train

require_train()

import numpy as np  # noqa: E402

from arena.cli.main import main  # noqa: E402
from arena.env.dataset import load, step_arrays  # noqa: E402
from arena.referee import wire  # noqa: E402
from arena.rules import Game  # noqa: E402
from arena.rules.cards import cards_of  # noqa: E402
from arena.tournament.records import read_record  # noqa: E402
from protocol.features import KINDS, N_BITS, Steps  # noqa: E402
from tests.pace import honest_time, time_table  # noqa: E402

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """A finished tournament: random against heuristic, one duplicate pair to 300."""
    folder = tmp_path_factory.mktemp("export")
    config = folder / "t.toml"
    config.write_text(f"""[tournament]
entrants = ["{ROOT / 'bots/random'}", "{ROOT / 'bots/heuristic'}"]
games_per_matchup = 2
target = 300
seed = 5
storage = "t.sqlite"

{time_table(honest_time(hello=10.0, decision=3.0, bank=60.0))}""")
    result = CliRunner().invoke(main, ["tournament", str(config), "-j", "2", "--no-standings"])
    assert result.exit_code == 0, result.output
    return config


def records(config):
    db = config.parent / "t.sqlite"
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT team0, team1, record FROM games ORDER BY pair_index, "
                            "game_id").fetchall()
    return [(team0, team1, read_record(config.parent / path), config.parent / path)
            for team0, team1, path in rows]


def export(config, *args):
    out = config.parent / "out.npz"
    result = CliRunner().invoke(main, ["export", str(config), "-o", str(out), *args])
    return result, out


def replay_to_rows(record, data, game_index):
    """(row, engine game just before the row's decision, the request the seat got)."""
    game = Game(record.seed, record.target)
    rows = iter(np.flatnonzero(data["game"] == game_index))
    row = next(rows, None)
    for i, d in enumerate(record.decisions):
        decision = game.decision(d["seat"])
        if row is not None and data["decision"][row] == i:
            yield row, game, wire.request_message(decision, game.observation(d["seat"]), [],
                                                  0, 0)
            row = next(rows, None)
        game.apply(d["seat"], wire.action_from_reply(
            {"option": None, "action": d["action"], "call_tichu": d["call_tichu"],
             "wish": d["wish"]}, decision))
    assert row is None, "a row matches no decision of its record"


def test_export_writes_a_row_per_asked_decision_of_the_chosen_entrant(store):
    result, out = export(store, "--entrant", "heuristic")
    assert result.exit_code == 0, result.output
    assert "decisions/s" in result.output and "per 1,000 games" in result.output
    assert json.loads(out.with_suffix(".schema.json").read_text())["format"] == 1
    data = load(out)
    games = records(store)
    assert len(data["game_id"]) == len(games) == 2
    for g, (team0, _team1, record, _) in enumerate(games):
        heuristic_team = 0 if team0.startswith("heuristic@") else 1
        asked = [i for i, d in enumerate(record.decisions)
                 if d["seat"] & 1 == heuristic_team and not d.get("auto")]
        mine = data["game"] == g
        assert data["decision"][mine].tolist() == asked
        assert set(data["seat"][mine] & 1) == {heuristic_team}
        assert (data["won"][mine] == int(record.winner == heuristic_team)).all()
        assert (data["score_own"][mine] == record.scores[heuristic_team]).all()
    assert all(key.startswith("heuristic@") for key in data["entrants"][data["entrant"]])
    assert set(KINDS[k] for k in data["kind"]) >= {"grand_tichu", "exchange", "play"}


def test_exported_rows_name_only_cards_the_seat_could_see(store):
    result, out = export(store)
    assert result.exit_code == 0, result.output
    data = load(out)
    x, masks, actions, step_rows = step_arrays(data)
    step_bits = (x[:, :N_BITS] > 0).astype(np.uint8)
    scanned = 0
    for g, (_, _, record, _) in enumerate(records(store)):
        for row, game, _ in replay_to_rows(record, data, g):
            seat = int(data["seat"][row])
            known = known_cards(game.events, seat)
            named = set(np.flatnonzero(np.unpackbits(data["cards"][row])))
            for bits in [data["bits"][row], *step_bits[step_rows == row]]:
                named |= cards_in(bits)
            assert named <= known, f"row {row} (seat {seat}) names hidden cards {named - known}"
            hand = set(np.flatnonzero(data["bits"][row][:56]))
            assert hand == set(cards_of(game.observation(seat).hand))
            scanned += 1
    assert scanned == len(data["seat"]) > 200


def test_exported_steps_are_the_steps_the_environment_and_a_bot_take(store):
    result, out = export(store, "--games", "1")
    assert result.exit_code == 0, result.output
    data = load(out)
    x, masks, actions, step_rows = step_arrays(data)
    _, _, record, _ = records(store)[0]
    for row, _, request in replay_to_rows(record, data, 0):
        steps = Steps(request)
        for k in np.flatnonzero(step_rows == row):
            assert np.array_equal(steps.observation, x[k])
            assert np.array_equal(steps.mask.astype(bool), masks[k])
            steps.step(actions[k])
        assert steps.done
        option = data["option"][row]
        if data["canonical"][row] and option >= 0:
            assert steps.reply()["option"] == option


def test_export_errors_name_the_problem(store, tmp_path):
    unknown, _ = export(store, "--entrant", "nobody")
    assert unknown.exit_code == 2 and "no entrant named 'nobody'" in unknown.output
    missing = CliRunner().invoke(main, ["export", str(tmp_path / "none.sqlite")])
    assert missing.exit_code == 2 and "no tournament store" in missing.output
    _, _, record, path = records(store)[1]
    data = json.loads(gzip.decompress(path.read_bytes()))
    original = path.read_bytes()
    play = next(d for d in data["decisions"] if d["action"]["action"] == "play")
    play["action"]["cards"] = ["Dragon"] if "Dragon" not in play["action"]["cards"] else ["Dog"]
    path.write_bytes(gzip.compress(json.dumps(data).encode()))
    try:
        broken, _ = export(store)
    finally:
        path.write_bytes(original)
    assert broken.exit_code == 1 and path.name in broken.output
    assert "re-simulation differs" in broken.output


def test_without_the_train_extra_export_says_what_to_install(store, monkeypatch):
    import sys

    monkeypatch.delitem(sys.modules, "arena.env.export")
    monkeypatch.setitem(sys.modules, "numpy", None)  # as if numpy were not installed
    result, _ = export(store)
    assert result.exit_code == 1 and "train extra" in result.output
    assert "pip install -e '.[train]'" in result.output


def test_a_mixed_partner_export_takes_the_seats_of_the_chosen_entrant_alone(tmp_path):
    # four different entrants a game: the heuristic's rows are those of its own seat
    config = tmp_path / "m.toml"
    listed = ", ".join(f'"{ROOT / "bots" / b}"' for b in ("random", "heuristic",
                                                          "heuristic-twin", "signal-a"))
    config.write_text(f"""[tournament]
entrants = [{listed}]
partners = "mixed"
cycles = 1
target = 150
seed = 5
storage = "t.sqlite"

{time_table(honest_time(hello=10.0, decision=3.0, bank=60.0))}""")
    played = CliRunner().invoke(main, ["tournament", str(config), "-j", "2", "--no-standings"])
    assert played.exit_code == 0, played.output
    result, out = export(config, "--entrant", "heuristic")
    assert result.exit_code == 0, result.output
    data = load(out)
    assert len(data["game_id"]) == 6  # the heuristic plays every foursome of 4 entrants
    assert all(key.startswith("heuristic@") for key in data["entrants"][data["entrant"]])
    with sqlite3.connect(tmp_path / "t.sqlite") as conn:
        seats = {g: (t0, t1, p0, p1) for g, t0, t1, p0, p1 in conn.execute(
            "SELECT game_id, team0, team1, partner0, partner1 FROM games")}
    for game, seat in zip(data["game"], data["seat"], strict=True):
        assert seats[str(data["game_id"][game])][seat].startswith("heuristic@")
