"""Hand statistics from records: known answers on hand-made event logs, and the duplicate
score of shared deals."""

from __future__ import annotations

import math

import pytest

from arena.presentation.handstats import game_facts, hand_report, team_rounds
from arena.ratings.duplicate import DealScore, clustered_mean, duplicate_ratings
from arena.tournament.records import record_json


def end(card_points, calls, out_order, double=False):
    scores = [card_points[0] + calls[0], card_points[1] + calls[1]]
    return {"kind": "round_end", "card_points": card_points, "calls": calls,
            "double_victory": double, "out_order": out_order, "scores": scores}


def record(rounds, decisions=()):
    """A record of the given rounds: each is (events within the round, round_end event)."""
    events = []
    for k, (inside, last) in enumerate(rounds, start=1):
        events.append({"kind": "round_start", "round": k, "scores": [0, 0]})
        events += inside
        events.append(last)
    return {"events": events, "decisions": list(decisions)}


ROUNDS = [
    # Seat 0 calls Tichu and goes out first; seat 1 calls Grand Tichu and fails; seat 3 bombs.
    ([{"kind": "grand_tichu", "seat": 1, "call": True}, {"kind": "tichu", "seat": 0},
      {"kind": "play", "seat": 3, "cards": ["8j", "8s", "8p", "8t"],
       "combination": "four_bomb"}],
     end([60, 40], [100, -200], [0, 1, 3])),
    # A double victory of team 1 (seats 1 and 3 out first and second).
    ([], end([200, 0][::-1], [0, 0], [1, 3], double=True)),
]


def test_team_rounds_split_card_points_double_victories_and_calls():
    zero, one = team_rounds(record(ROUNDS))
    assert (zero[0].card_points, zero[0].calls, zero[0].total) == (60, 100, 160)
    assert (zero[0].tichu_calls, zero[0].tichu_made, zero[0].first_out) == (1, 1, True)
    assert (one[0].grand_calls, one[0].grand_made, one[0].bombs, one[0].calls) == (1, 0, 1, -200)
    assert (one[1].card_points, one[1].double_victory, one[1].total) == (0, 200, 200)
    assert one[1].double_for and zero[1].double_against and not zero[1].double_for
    assert zero[1].opponent_total == 200 and zero[1].total == 0


def test_hand_report_aggregates_per_entrant_with_latencies_without_automatic_passes():
    decisions = [{"seat": 0, "latency_ms": 2.0}, {"seat": 2, "latency_ms": 4.0},
                 {"seat": 0, "latency_ms": 0.0, "auto": True}, {"seat": 1, "latency_ms": 9.0}]
    facts = game_facts("p1", 0, ("a", "b"), record(ROUNDS, decisions))
    report = hand_report([facts])
    a, b = report.entrants["a"], report.entrants["b"]
    assert (a.games, a.rounds) == (1, 2)
    assert a.points.value == pytest.approx(80.0) and b.points.value == pytest.approx(20.0)
    assert a.card_points.value == pytest.approx(30.0)
    assert a.margin.value == pytest.approx(60.0) and b.margin.value == pytest.approx(-60.0)
    assert a.tichu_success == 1.0 and b.grand_success == 0.0 and a.grand_success is None
    assert (a.double_for, a.double_against, b.double_for) == (0, 1, 1)
    assert a.first_out.value == pytest.approx(0.5) and b.bombs == 1
    assert (a.decisions, a.latency_mean_ms) == (2, pytest.approx(3.0))
    assert a.latency_p99_ms == pytest.approx(2.0 + 0.99 * 2.0)
    assert math.isnan(a.points.interval)  # one pair: no spread to measure


def test_the_duplicate_score_cancels_the_deal():
    # Both games deal the same cards: in game 0, a (team 0) gains 50 on the deal; in game 1,
    # a (now team 1, with b's former cards) loses 10. a gained (50 - 10) / 2 = 20 per deal.
    first = record([([], end([75, 25], [0, 0], [0, 1, 2]))])
    second = record([([], end([55, 45], [0, 0], [0, 1, 2]))])
    report = hand_report([game_facts("p", 0, ("a", "b"), first),
                          game_facts("p", 1, ("b", "a"), second)])
    (score,) = report.deal_scores
    assert (score.a, score.b, score.points, score.deals) == ("a", "b", 20.0, 1)


def test_duplicate_ratings_recover_additive_strengths():
    true = {"a": 30.0, "b": 10.0, "c": -40.0}
    scores = [DealScore(f"{x}{y}{k}", x, y, true[x] - true[y] + noise, 10)
              for x, y in (("a", "b"), ("a", "c"), ("b", "c"))
              for k, noise in enumerate((-4.0, 4.0))]
    fit = duplicate_ratings(scores, reference="c")
    for key, value in true.items():
        assert fit.strength[key] == pytest.approx(value - true["c"])
    assert fit.interval["c"] == 0.0 and fit.interval["a"] > 0
    centred = duplicate_ratings(scores)
    assert sum(centred.strength.values()) == pytest.approx(0.0)
    assert centred.strength["a"] - centred.strength["b"] == pytest.approx(20.0)


def test_clustered_mean_widens_for_correlated_clusters():
    independent = clustered_mean([[x] for x in (1.0, -1.0) * 20])
    clustered = clustered_mean([[1.0] * 10, [-1.0] * 10, [1.0] * 10, [-1.0] * 10])
    assert independent.value == clustered.value == 0.0
    assert clustered.interval > 2 * independent.interval


def test_a_record_file_that_is_not_one_is_refused(tmp_path):
    from arena.errors import ArenaError

    bad = tmp_path / "x.json"
    bad.write_text("{}")
    with pytest.raises(ArenaError, match="not a game record"):
        record_json(bad)
