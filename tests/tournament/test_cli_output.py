"""`arena standings` and `arena sprt` output in every format, over a store of known games."""

from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner

from arena.cli.main import main
from arena.referee.record import Termination
from arena.tournament.schedule import round_robin
from arena.tournament.store import EntrantRow, GameRow, Store
from tests.tournament.conftest import write_config

pytestmark = pytest.mark.timeout(60)

FORMATS = ["terminal", "markdown", "html", "csv", "json"]
KEYS = ["heuristic@h1", "other@o1", "random@r1"]


@pytest.fixture
def config(tmp_path, two_bots):
    """A config whose store holds 6 pairs per matchup: heuristic beats random 5 pairs to 1
    (one split), other is between; one timeout by random."""
    path = write_config(tmp_path, ["random", "heuristic"])
    strength = {"heuristic@h1": 2, "other@o1": 1, "random@r1": 0}
    with Store(tmp_path / "t.sqlite") as store:
        for key in KEYS:
            name, version = key.split("@")
            store.register_entrant(EntrantRow(key, name, version, "1.0", "python",
                                              f"/bots/{name}", "config", False))
        timed_out = False
        for game in round_robin(KEYS, 6, 1):
            teams = game.teams
            winner = 0 if strength[teams[0]] > strength[teams[1]] else 1
            if game.pair_index == 5 and game.game_index == 1:
                winner = 1 - winner  # the stronger loses one game: a split pair
            termination, seat = Termination.NORMAL, None
            if not timed_out and teams[0] == "random@r1":  # random (seat 0) was losing anyway
                termination, seat, timed_out = Termination.TIMEOUT, 0, True
            scores = (1000, 400) if winner == 0 else (400, 1000)
            store.add_game(GameRow(game, scores, winner, 6, termination, seat,
                                   "slow" if seat is not None else None, 1.0, "r"))
    return path


def invoke(*args: str):
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("fmt", FORMATS)
def test_standings_in_every_format(config, fmt):
    out = invoke("standings", str(config), "--format", fmt)
    if fmt == "json":
        rows = json.loads(out)["standings"]["standings"]
        assert [r["name"] for r in rows] == ["heuristic", "other", "random"]
        assert rows[2]["elo"] == 0.0 and rows[0]["elo"] > rows[1]["elo"] > 0
        assert rows[2]["forfeits"]["timeout"] == 1 and rows[0]["games"] == 24
    elif fmt == "csv":
        rows = list(csv.DictReader(io.StringIO(out)))
        assert [r["name"] for r in rows] == ["heuristic", "other", "random"]
        assert rows[2]["timeout"] == "1"
    else:
        marker = {"terminal": "Rank", "markdown": "|---", "html": "<table>"}[fmt]
        assert marker in out
        for text in ("heuristic", "random", "Elo", "Win %", "Margin", "timeout"):
            assert text in out
        assert out.index("heuristic") < out.index("other") < out.index("random")


@pytest.mark.parametrize("fmt", FORMATS)
def test_matrix_and_matchups_in_every_format(config, fmt):
    out = invoke("standings", str(config), "--matrix", "--matchups", "--format", fmt)
    if fmt == "json":
        data = json.loads(out)
        assert set(data) == {"standings", "matrix", "matchups"}
        assert data["matrix"]["head_to_head"]["heuristic@h1"]["random@r1"] == [11, 1]
        first = data["matchups"]["matchups"][0]
        assert (first["a"], first["b"]) == ("heuristic@h1", "other@o1")
        assert (first["both_won"], first["split"], first["both_lost"]) == (5, 1, 0)
    elif fmt == "csv":
        assert "entrant,opponent,wins,losses,los" in out
        assert "a,b,pairs,both_lost,split,both_won" in out
    else:
        for text in ("Head to head", "Likelihood of superiority", "Both won", "Split",
                     "Elo diff"):
            assert text in out
        assert "11-1" in out


def test_standings_from_the_store_path_and_with_options(config, tmp_path):
    out = invoke("standings", str(tmp_path / "t.sqlite"), "--anchor", "heuristic",
                 "--anchor-elo", "1000", "--format", "json")
    rows = json.loads(out)["standings"]["standings"]
    assert rows[0]["name"] == "heuristic" and rows[0]["elo"] == 1000.0
    centred = json.loads(invoke("standings", str(config), "--anchor", "", "--format",
                                "json"))["standings"]
    assert centred["anchor"] is None


def test_standings_of_an_unknown_anchor_or_missing_store_fail_clearly(config, tmp_path):
    result = CliRunner().invoke(main, ["standings", str(config), "--anchor", "nobody"])
    assert result.exit_code == 2 and "no entrant named 'nobody'" in result.output
    result = CliRunner().invoke(main, ["standings", str(tmp_path / "none.sqlite")])
    assert result.exit_code == 2 and "no tournament store" in result.output


@pytest.mark.parametrize("fmt", FORMATS)
def test_sprt_on_stored_pairs_in_every_format(config, fmt):
    result = CliRunner().invoke(main, ["sprt", "heuristic", "random", "--tournament",
                                       str(config), "--elo0", "0", "--elo1", "100",
                                       "--alpha", "0.1", "--beta", "0.1", "--format", fmt])
    assert result.exit_code in (0, 3), result.output
    if fmt == "json":
        data = json.loads(result.output)
        assert data["entrant"] == "heuristic@h1" and data["opponent"] == "random@r1"
        assert data["pairs"] >= 1 and data["decision"] in ("H0", "H1", "continue")
        assert (data["decision"] == "continue") == (result.exit_code == 3)
    elif fmt == "csv":
        assert result.output.startswith("entrant,opponent,elo0,elo1")
    else:
        assert "Decision" in result.output and "heuristic" in result.output


def test_sprt_refuses_equal_hypotheses_and_unknown_entrants(config):
    result = CliRunner().invoke(main, ["sprt", "heuristic", "random", "--tournament",
                                       str(config), "--elo0", "10", "--elo1", "5"])
    assert result.exit_code == 2 and "--elo1" in result.output
    result = CliRunner().invoke(main, ["sprt", "heuristic", "nobody", "--tournament",
                                       str(config)])
    assert result.exit_code == 2 and "no entrant named 'nobody'" in result.output
