"""A tournament of mixed partners end to end: five entrants (the bundled Python bots and the
signalling pair of the demo), four different ones a game, from the command line; killed with SIGKILL in the middle, it resumes without losing or replaying a
game, and `arena standings` shows individual ratings with their intervals and the synergy of
every partnership (every format), `arena report` a synergy section."""

from __future__ import annotations

import base64
import gzip
import json
import signal
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import main
from arena.tournament.movement import movement
from arena.tournament.records import read_record
from tests.tournament.conftest import copy_bot, game_rows, write_config
from tests.tournament.test_run import _start, _wait_for_games, no_bots_left

pytestmark = pytest.mark.timeout(300)

NAMES = ["random", "heuristic", "heuristic-twin", "signal-a", "signal-b"]


def mixed_config(folder: Path, cycles: int) -> tuple[Path, list[Path]]:
    bots = [copy_bot(name, folder / name) for name in NAMES]
    path = write_config(folder, NAMES, target=150)
    path.write_text(path.read_text().replace("games_per_matchup = 2\n",
                                             f'partners = "mixed"\ncycles = {cycles}\n'))
    return path, bots


def pair_rows(db: Path) -> dict[str, list[tuple]]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT pair_id, game_index, team0, team1, partner0, partner1, "
                            "seed, record FROM games").fetchall()
    pairs: dict[str, list[tuple]] = {}
    for row in rows:
        pairs.setdefault(row[0], []).append(row)
    return pairs


def test_a_mixed_tournament_runs_resumes_after_a_kill_and_rates_individuals(tmp_path):
    config, bots = mixed_config(tmp_path, cycles=2)
    total = 2 * movement(["a", "b", "c", "d", "e"]).games_per_cycle  # 2 cycles of 10 games
    db = tmp_path / "t.sqlite"
    proc = _start(config)
    _wait_for_games(db, 3, proc, limit=120.0)
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    assert no_bots_left(*bots), "bot processes outlived the killed runner"
    stored = game_rows(db)
    assert 3 <= len(stored) < total
    result = CliRunner().invoke(main, ["tournament", str(config), "-j", "1"])
    assert result.exit_code == 0, result.output
    assert f"{total - len(stored)} games played" in result.output
    rows = game_rows(db)
    assert len(rows) == total and set(stored) <= set(rows)  # nothing lost, nothing replayed

    # every pair: four different entrants, the same seed, the partnerships swapped
    pairs = pair_rows(db)
    assert len(pairs) == total // 2
    for games in pairs.values():
        first, second = sorted(games, key=lambda r: r[1])
        seats = (first[2], first[3], first[4], first[5])
        assert len(set(seats)) == 4 and first[6] == second[6]
        assert (second[2], second[3], second[4], second[5]) == (seats[1], seats[0], seats[3],
                                                                seats[2])
        record = read_record(tmp_path / first[7])
        assert [e.name for e in record.seat_entrants()] == [k.split("@")[0] for k in seats]
    # each entrant partnered each other once per cycle and played as often as the others
    partnered: dict[frozenset, int] = {}
    for games in pairs.values():
        first = games[0]
        for team in ((first[2], first[4]), (first[3], first[5])):
            partnered[frozenset(team)] = partnered.get(frozenset(team), 0) + 1
    assert len(partnered) == 10 and set(partnered.values()) == {2}

    # the standings: individual ratings with intervals, then the synergy of each partnership
    shown = CliRunner().invoke(main, ["standings", str(config)])
    assert shown.exit_code == 0, shown.output
    assert "Partners: mixed partners: 5 foursomes per cycle" in shown.output
    assert "±95% CI" in shown.output and "Individual ratings (mixed partners)" in shown.output
    assert "Partnership synergy" in shown.output and "Flagged: |z|" in shown.output
    data = json.loads(CliRunner().invoke(main, ["standings", str(config), "--format",
                                                "json"]).output)
    assert data["standings"]["ratings"] == "individual"
    rated = {row["name"]: row for row in data["standings"]["standings"]}
    assert set(rated) == set(NAMES) and rated["random"]["anchor"]
    assert all(row["games"] == 16 for row in rated.values())  # 8 pairs each, of 10
    assert all(row["ci95"] for name, row in rated.items() if name != "random"
               and not row["bound"])
    assert len(data["synergy"]["synergy"]) == 10
    for fmt in ("markdown", "html", "csv"):
        out = CliRunner().invoke(main, ["standings", str(config), "--format", fmt, "--matrix"])
        assert out.exit_code == 0 and "heuristic" in out.output, (fmt, out.output)

    report = CliRunner().invoke(main, ["report", str(config), "-o", str(tmp_path / "site")])
    assert report.exit_code == 0, report.output
    index = (tmp_path / "site" / "index.html").read_text()
    assert 'id="synergy"' in index and "Partnership synergy" in index
    assert f"{total} of {total} scheduled for the current entrants (complete)" in index
    # the replay names each seat's own entrant, and both partners of each team
    script = next((tmp_path / "site" / "games").glob("*.js")).read_text()
    packed = script.split('"')[3]
    payload = json.loads(gzip.decompress(base64.b64decode(packed)))
    assert len(payload["seats"]) == 4 and len({n.split()[0] for n in payload["seats"]}) == 4
    assert all(" & " in team for team in payload["teams"])
    assert no_bots_left(*bots, wait=2.0)
