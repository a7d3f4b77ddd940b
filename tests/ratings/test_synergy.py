"""Partnership synergy: a pair that does better (or worse) together than its ratings predict
is found, with an interval holding its true synergy, and flagged on its side. In a field
without synergy, flags are as rare as the Bonferroni bound promises (5% of tournaments)."""

from __future__ import annotations

import csv
import io
import math
import random

import pytest

from arena.presentation.tables import synergy_table
from arena.ratings.individual import fit_individual, rated_team_pairs
from arena.ratings.synergy import bonferroni, normal_quantile, synergies
from tests.ratings.mixed import evenly, simulate_mixed
from tests.ratings.test_individual import every_split

pytestmark = pytest.mark.timeout(300)


def table_of(results, anchor: str, prior: float = 2.0):
    pairs = rated_team_pairs(results)
    return synergies(pairs, fit_individual(pairs, anchor=anchor), prior=prior)


def test_the_flag_is_the_two_sided_bonferroni_bound():
    assert normal_quantile(0.975) == pytest.approx(1.959964, abs=1e-5)
    assert bonferroni(1) == pytest.approx(1.959964, abs=1e-5)
    assert bonferroni(10) == pytest.approx(2.807034, abs=1e-5)  # 1 - 0.05 / 20


def test_a_planted_synergy_is_found_and_flagged():
    true = evenly(6, 200.0)
    keys = sorted(true)
    planted = frozenset(keys[1:3])
    results = simulate_mixed(true, 8, random.Random(11), synergy={planted: 300.0})
    table = table_of(results, keys[0])
    (flagged,) = table.flagged
    assert {flagged.a, flagged.b} == planted and flagged.elo > 0
    assert abs(flagged.elo - 300.0) <= flagged.interval
    assert flagged.wins > flagged.expected  # they won more together than ratings predict
    assert flagged.games == 2 * 2 * 8  # 2 foursomes a cycle (6 entrants), 2 games each
    assert table.threshold == pytest.approx(bonferroni(15))
    assert table.pairs[0] is flagged  # highest z first


def test_a_pair_that_does_worse_together_is_flagged_below():
    # The mirror of the planted synergy above: two partners lose 300 Elo together (two of
    # the stronger ones, whose team wins often enough for the loss to show). The flag is
    # two-sided (|z| beyond the bound): this pair's z is far below minus the bound, so a
    # flag on one side only (z beyond the bound) would leave it out, and the table's worse
    # side would be empty.
    true = evenly(6, 200.0)
    keys = sorted(true)
    planted = frozenset(keys[3:5])
    results = simulate_mixed(true, 8, random.Random(11), synergy={planted: -300.0})
    table = table_of(results, keys[0])
    (flagged,) = table.flagged
    assert {flagged.a, flagged.b} == planted and flagged.elo < 0
    assert flagged.z < -table.threshold  # flagged for |z|: z itself is below every bound
    assert abs(flagged.elo + 300.0) <= flagged.interval
    assert flagged.wins < flagged.expected  # they won less together than ratings predict
    assert table.pairs[-1] is flagged  # lowest z last
    others = [s for s in table.pairs if s is not flagged]
    assert all(abs(s.z) <= table.threshold and not s.flagged for s in others)
    rows = {(row["a"], row["b"]): row for row in csv.DictReader(io.StringIO(
        synergy_table(table, fmt="csv")))}
    assert rows[(flagged.a, flagged.b)]["flagged"] == "True"
    assert [r for r in rows.values() if r["flagged"] == "True"] == [rows[(flagged.a, flagged.b)]]
    line = next(x for x in synergy_table(table).splitlines() if x.startswith(
        f"{flagged.a} & {flagged.b}"))
    assert line.endswith("FLAGGED: below")


def test_a_field_without_synergy_is_flagged_as_rarely_as_promised():
    true = evenly(6, 200.0)
    rng = random.Random(5)
    flagged = sum(bool(table_of(simulate_mixed(true, 4, rng), "e00").flagged)
                  for _ in range(40))
    assert flagged <= 5  # about 2 expected; 6 or more would happen in 1.4% of such tests


def test_a_perfect_record_together_stays_finite_with_the_prior():
    # {a, b} won all four of its games; the other splits are even
    results = every_split([[(True, True)] * 2, [(True, False)] * 2, [(False, True)] * 2])
    table = table_of(results, "d")
    ab = next(s for s in table.pairs if {s.a, s.b} == {"a", "b"})
    assert ab.games == 4 and ab.wins == 4 and math.isfinite(ab.elo) and ab.elo > 0
    assert 0.0 < ab.expected < 4.0
    unshrunk = next(s for s in table_of(results, "d", prior=0.5).pairs
                    if {s.a, s.b} == {"a", "b"})
    assert unshrunk.elo > ab.elo  # the prior pulls toward 0


def test_a_field_where_every_team_splits_its_pairs_has_no_synergy():
    # Every team of every split won one game of each pair and lost the other: by symmetry
    # every rating and every synergy is 0, and the prior's virtual games (half won) keep it
    # so; each partnership played 4 games, won 2 and was expected to win 2.
    results = every_split([[(True, False)] * 2] * 3)
    for prior in (2.0, 5.0):
        table = table_of(results, "d", prior=prior)
        assert len(table.pairs) == 6 and table.prior == prior
        for s in table.pairs:
            assert s.elo == pytest.approx(0.0, abs=1e-6) and s.z == pytest.approx(0.0, abs=1e-6)
            assert (s.games, s.wins) == (4, 2) and s.expected == pytest.approx(2.0)
            assert not s.flagged and s.interval > 0


def test_a_synergy_does_not_depend_on_which_team_of_a_pair_comes_first():
    # A pair's comparison is its first game's team 0 minus team 1: listing each pair's games
    # the other way round turns every comparison around, and must leave every figure as it
    # was (a synergy weighted by the side its pair sat on would not).
    true = evenly(6, 200.0)
    keys = sorted(true)
    results = simulate_mixed(true, 4, random.Random(11), synergy={frozenset(keys[1:3]): 300.0})
    turned = [g for k in range(0, len(results), 2) for g in (results[k + 1], results[k])]
    assert [g.pair_id for g in turned[::2]] == [g.pair_id for g in results[::2]]
    want = {(s.a, s.b): s for s in table_of(results, keys[0]).pairs}
    got = {(s.a, s.b): s for s in table_of(turned, keys[0]).pairs}
    assert got.keys() == want.keys() and len(want) == 15
    assert any(abs(s.elo) > 50.0 for s in want.values())  # a synergy that is not 0
    for key, s in want.items():
        t = got[key]
        assert (t.elo, t.interval, t.z, t.expected) == pytest.approx(
            (s.elo, s.interval, s.z, s.expected), rel=1e-6, abs=1e-6)
        assert (t.games, t.wins, t.flagged) == (s.games, s.wins, s.flagged)
