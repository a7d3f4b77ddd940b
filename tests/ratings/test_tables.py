"""The tables in each format: terminal, markdown, HTML, CSV and JSON."""

from __future__ import annotations

import csv
import io
import json
import random

import pytest

from arena.presentation.tables import (
    FORMATS,
    matchup_table,
    matrix_tables,
    sprt_table,
    standings_table,
)
from arena.ratings.fit import GameResult
from arena.ratings.sprt import sprt
from arena.ratings.standings import compute_standings, pair_outcomes
from tests.ratings.helpers import simulate

LABELS = {"random": ("Random", "1.0"), "a": ("Alpha <b>", "2.1"), "b": ("Beta", "0.3")}


@pytest.fixture(scope="module")
def results():
    games = simulate({"random": 0.0, "a": 200.0, "b": 100.0}, 12, random.Random(4))
    games.append(GameResult("f1", ("a", "b"), (0, 300), 1, forfeit=(0, "timeout")))
    games.append(GameResult("h1", ("a", "b"), (0, 0), None, harness_fault=True))
    return games


@pytest.fixture(scope="module")
def standings(results):
    return compute_standings(results, anchor="random", bootstrap=30, seed=1)


def rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_standings_terminal(standings, results):
    text = standings_table(standings, LABELS)
    lines = text.splitlines()
    assert lines[0].split()[:6] == ["Rank", "Entrant", "Version", "Elo", "±95%", "CI"]
    assert "timeout" in lines[0] and "crash" not in lines[0]  # only kinds that happened
    first = standings.ranking()[0]
    assert lines[2].split()[0] == "1" and LABELS[first][0].split()[0] in lines[2]
    assert f"{standings.fit.elo[first]:.1f}" in lines[2]
    assert lines[4].split()[1:5] == ["Random", "1.0", "0.0", "anchor"]
    notes = text[text.index("Notes:"):]
    assert "K-Elo: classic incremental Elo" in notes and "Margin: mean of own" in notes
    # the harness-faulted game of a and b: unrated, and counted as such
    assert "Void" in lines[0] and "Harness faults" in lines[0]
    assert "Void: games left out of the rating" in notes
    assert "Void" not in standings_table(compute_standings(
        [r for r in results if not r.harness_fault], anchor="random"), LABELS)


def test_standings_markdown(standings):
    lines = standings_table(standings, LABELS, "markdown").splitlines()
    assert lines[0].startswith("|") and "Elo" in lines[0] and set(lines[1]) <= set("|-: ")
    assert len([line for line in lines if line.startswith("|")]) == 2 + 3
    assert any(line.startswith("- K-Elo") for line in lines)


def test_standings_html_escapes_names(standings):
    text = standings_table(standings, LABELS, "html")
    assert text.startswith("<table>") and text.count("<tr>") == 1 + 3
    assert '<ul class="notes">' in text
    assert "Alpha &lt;b&gt;" in text and "Alpha <b>" not in text


def test_standings_csv_carries_numbers_and_every_forfeit_kind(standings):
    table = rows(standings_table(standings, LABELS, "csv"))
    assert [r["entrant"] for r in table] == list(standings.ranking())
    a = next(r for r in table if r["entrant"] == "a")
    assert float(a["elo"]) == pytest.approx(standings.fit.elo["a"], abs=1e-3)
    assert float(a["ci95"]) == pytest.approx(standings.fit.interval("a"), abs=1e-3)
    assert a["bound"] == "" and a["scale"] == "anchor Random = 0.0"
    assert (a["timeout"], a["crash"], a["handshake_failure"]) == ("1", "0", "0")
    assert int(a["games"]) == 2 * 12 * 2 + 1 and a["void_games"] == "1"
    assert a["harness_voided"] == "1"
    assert float(a["boot_low"]) < float(a["elo"]) < float(a["boot_high"])


def test_standings_json(standings):
    data = json.loads(standings_table(standings, LABELS, "json"))
    assert data["anchor"] == "random" and data["prior"] == 2.0
    assert data["bootstrap_replicates"] == 30
    by_key = {row["entrant"]: row for row in data["standings"]}
    assert by_key["random"]["elo"] == 0.0
    assert [row["rank"] for row in data["standings"]] == [1, 2, 3]
    assert by_key["a"]["forfeits"]["timeout"] == 1 and by_key["a"]["name"] == "Alpha <b>"
    assert by_key["b"]["win_pct"] == pytest.approx(100 * standings.stats["b"].win_rate, abs=1e-3)


@pytest.mark.parametrize("fmt", ["terminal", "markdown", "html"])
def test_matrix_tables_human(standings, fmt):
    text = matrix_tables(standings, LABELS, fmt)
    assert "Head to head" in text and "Likelihood of superiority" in text
    order = standings.ranking()
    won, lost = standings.head_to_head[(order[0], order[1])]
    assert f"{won}-{lost}" in text
    assert f"{100 * standings.fit.los(order[0], order[1]):.0f}" in text


def test_matrix_tables_machine(standings):
    long = rows(matrix_tables(standings, LABELS, "csv"))
    assert len(long) == 3 * 2
    data = json.loads(matrix_tables(standings, LABELS, "json"))
    assert data["ranking"] == list(standings.ranking())
    assert data["head_to_head"]["a"]["random"] == list(standings.head_to_head[("a", "random")])
    assert data["los"]["a"]["b"] + data["los"]["b"]["a"] == pytest.approx(1.0, abs=1e-3)
    for row in long:
        assert float(row["los"]) == pytest.approx(standings.fit.los(row["entrant"],
                                                                     row["opponent"]), abs=1e-4)


@pytest.mark.parametrize("fmt", FORMATS)
def test_matchup_table_every_format(standings, fmt):
    text = matchup_table(standings.matchups, LABELS, fmt)
    m = standings.matchups[0]
    if fmt == "json":
        first = json.loads(text)["matchups"][0]
        assert (first["a"], first["both_won"], first["split"]) == (m.a, m.both_won, m.split)
    elif fmt == "csv":
        first = rows(text)[0]
        assert float(first["elo_difference"]) == pytest.approx(m.elo_difference, abs=1e-3)
        assert int(first["both_lost"]) == m.both_lost
    else:
        assert "Both lost" in text and "Split" in text and "Both won" in text
        assert f"{m.elo_difference:+.1f}" in text and f"{m.interval:.1f}" in text


def test_matchup_counts_the_forfeit_as_an_incomplete_pair(standings):
    (ab,) = [m for m in standings.matchups if {m.a, m.b} == {"a", "b"}]
    assert ab.incomplete == 1 and ab.pairs == 12


@pytest.mark.parametrize("fmt", FORMATS)
def test_sprt_table_every_format(results, fmt):
    result = sprt(pair_outcomes(results, "a", "random"), 0.0, 100.0)
    text = sprt_table(result, "a", "random", LABELS, fmt)
    if fmt == "json":
        assert json.loads(text)["decision"] == result.decision.value
    elif fmt == "csv":
        assert rows(text)[0]["pairs"] == str(result.pairs)
    else:
        assert result.decision.value in text and "Alpha" in text


def test_unknown_format_is_refused(standings):
    with pytest.raises(ValueError):
        standings_table(standings, LABELS, "xml")


def test_missing_labels_fall_back_to_keys(standings):
    assert "random" in standings_table(standings, None)


def test_a_perfect_record_shows_one_lower_bound_in_the_table_and_its_note():
    """A rating with no estimate (x won every pair) is shown as the one-sided bound its
    record supports, the same figure the note under the table gives (not a second, prior-set
    "bound"); the prior-set figure is named in the note as the one it is ranked at."""
    from tests.ratings.helpers import single_games

    games = (single_games("x", "y", 8, 0) + single_games("y", "z", 5, 5, tag="b")
             + single_games("x", "z", 4, 0, tag="c"))
    s = compute_standings(games, anchor="y")
    text = standings_table(s)
    row = next(line for line in text.splitlines() if line.split()[1:2] == ["x"])
    shown = next(cell for cell in row.split() if cell.startswith("≥"))
    assert f"x (12-0): at least +{shown[1:]} (ranked at +" in " ".join(text.split())
    assert "one-sided" in row
    data = json.loads(standings_table(s, None, "json"))["standings"]
    x = next(r for r in data if r["entrant"] == "x")
    assert round(x["confidence_bound"], 1) == float(shown[1:]) != round(x["elo"], 1)
