"""The movement of mixed partners: every two entrants partner equally often and face each
other twice as often, every entrant plays as often as every other, four different entrants
a game; exact for every field the tests can afford (4 to 24 entrants), deterministic."""

from __future__ import annotations

import itertools

import pytest

from arena.tournament.movement import cycle_movement, movement

pytestmark = pytest.mark.timeout(120)


def keys(n: int) -> list[str]:
    return [f"e{k:02d}@v" for k in range(n)]


@pytest.mark.parametrize("n", range(4, 25))
def test_every_two_entrants_partner_equally_often_and_face_each_other_twice_as_often(n):
    plan = movement(keys(n))
    assert plan.exact
    pairs = list(itertools.combinations(sorted(keys(n)), 2))
    partners, opponents = plan.partner_counts(), plan.opponent_counts()
    assert {partners[p] for p in pairs} == {plan.partner_times}
    assert {opponents[p] for p in pairs} == {2 * plan.partner_times}
    assert sum(partners.values()) == 2 * plan.pairs_per_cycle  # nothing else partnered
    played = {k: 0 for k in keys(n)}
    for foursome, times in zip(plan.foursomes, plan.times, strict=True):
        seated = [k for team in foursome for k in team]
        assert len(set(seated)) == 4 and all(team == tuple(sorted(team)) for team in foursome)
        for k in seated:
            played[k] += times
    assert set(played.values()) == {plan.partner_times * (n - 1)}


@pytest.mark.parametrize("n, times", [(4, 1), (5, 1), (6, 2), (7, 2), (8, 1), (9, 2), (12, 1),
                                      (13, 1), (14, 2)])
def test_a_cycle_is_as_short_as_the_field_allows(n, times):
    # n(n-1)/4 foursomes hold every partnership once only when 4 divides n(n-1); on Z_9 no
    # cyclic movement does (an exhaustive search), so 9 entrants partner twice a cycle
    plan = movement(keys(n))
    assert plan.partner_times == times
    assert plan.pairs_per_cycle == times * n * (n - 1) // 4


def test_the_movement_depends_only_on_the_field_and_its_key_order():
    assert movement(keys(7)) == movement(reversed(keys(7)))
    renamed = movement([f"z{k}@w" for k in range(7)])
    assert [tuple(tuple(int(k[1:3]) for k in t) for t in f) for f in movement(keys(7)).foursomes] \
        == [tuple(tuple(int(k[1]) for k in t) for t in f) for f in renamed.foursomes]


def test_fewer_than_four_entrants_have_no_movement():
    with pytest.raises(ValueError, match="at least four entrants"):
        movement(keys(3))


def test_the_movement_describes_itself():
    text = movement(keys(6)).describe()
    assert text == ("mixed partners: 15 foursomes per cycle (30 games); each entrant partners "
                    "every other 2 times and faces every other 4 times, in 20 games per cycle")


@pytest.mark.parametrize("n", [5, 8])
def test_each_cycle_is_balanced_and_partnerships_meet_other_partnerships_over_cycles(n):
    # with each pair partnering once a cycle, a movement seats a partnership against one
    # partnership only; relabelled cycles let its synergy be told from that one's
    faced: dict[tuple, set] = {}
    for cycle in range(6):
        plan = cycle_movement(keys(n), cycle)
        assert plan.partner_counts() == movement(keys(n)).partner_counts()
        assert set(plan.opponent_counts().values()) == {2}
        for first, second in plan.foursomes:
            faced.setdefault(first, set()).add(second)
            faced.setdefault(second, set()).add(first)
    assert cycle_movement(keys(n), 0) == movement(keys(n))
    assert cycle_movement(keys(n), 3) == cycle_movement(reversed(keys(n)), 3)
    assert sum(len(v) > 1 for v in faced.values()) > len(faced) // 2
