"""The league's schedule policy (arena.league.scheduler): placement first, games where the
order is least settled, nobody starved, each pair index once, half-stored pairs completed on
their stored deals, every pair dealt afresh."""

from __future__ import annotations

import itertools
import time

from arena.league.scheduler import LeagueSource, Pace, choose, overlap, stored_pairs
from arena.tournament.schedule import Deals

DEALS = Deals.secret(bytes(32))


def test_overlap_runs_from_settled_to_the_same_rating():
    assert overlap((0.0, 10.0), (100.0, 10.0)) == 0.0
    assert overlap((0.0, 10.0), (0.0, 10.0)) == 1.0
    assert 0.0 < overlap((0.0, 10.0), (10.0, 10.0)) < 1.0
    assert overlap(None, (0.0, 1.0)) == 1.0


def test_a_new_entrant_is_placed_first():
    pairs = {("a", "b"): 10, ("a", "c"): 10, ("b", "c"): 10}
    assert choose(["a", "b", "c", "d"], pairs, {}, placement_pairs=2) in {
        ("a", "d"), ("b", "d"), ("c", "d")}


def test_placement_comes_before_the_lighter_weight_of_a_settled_matchup():
    """Where fewest weighted pairs would pick another matchup, a matchup still placing wins:
    a~b has one pair of two but settled intervals (weight 2 x 2), b~c two pairs and
    overlapping ones (weight 3 x 1)."""
    pairs = {("a", "b"): 1, ("b", "c"): 2, ("a", "c"): 2}
    ratings = {"a": (1500.0, 10.0), "b": (1000.0, 10.0), "c": (1000.0, 10.0)}
    assert choose(["a", "b", "c"], pairs, ratings, placement_pairs=2) == ("a", "b")
    assert choose(["a", "b", "c"], pairs, ratings, placement_pairs=1) == ("b", "c")  # control


def test_unsettled_neighbours_get_more_games_and_no_one_starves():
    ratings = {"a": (0.0, 50.0), "b": (20.0, 50.0), "c": (900.0, 50.0)}
    pairs: dict[tuple[str, str], int] = {}
    for _ in range(300):
        m = choose(["a", "b", "c"], pairs, ratings, placement_pairs=2)
        assert m is not None
        pairs[m] = pairs.get(m, 0) + 1
    assert pairs[("a", "b")] > 1.5 * pairs[("a", "c")]
    assert min(pairs.values()) >= 50


def test_the_source_hands_each_pair_index_out_once_and_completes_half_pairs():
    done = {"a@1~b@1#0.0": 5, "a@1~b@1#0.1": 5, "a@1~b@1#1.0": 7}
    following, half = stored_pairs(done)
    assert following == {("a@1", "b@1"): 2}
    assert [(g.pair_index, g.game_index, g.seed) for g in half[("a@1", "b@1")]] == [(1, 1, 7)]
    source = LeagueSource(["a@1", "b@1", "c@1"], DEALS, following, half, dict, 1, 2,
                          lambda: False)
    placing = source.next(0) + source.next(1)  # c@1 is new: its placement first
    assert {p[0].matchup for p in placing} == {("a@1", "c@1"), ("b@1", "c@1")}, placing
    assert [(p[0].game_id) for p in source.next(0)] == ["a@1~b@1#1.1"]
    handed = [g.game_id for w in itertools.islice(itertools.cycle([0, 1]), 20)
              for pair in source.next(w) for g in pair]
    assert len(handed) == len(set(handed))
    assert not set(handed) & done.keys()
    assert source.next(0) and LeagueSource(["a@1", "b@1"], DEALS, {}, {}, dict, 1, 1,
                                           lambda: True).next(0) == []


def test_the_pace_spaces_the_batches_by_their_games_share_of_a_minute():
    pace = Pace(per_minute=600)  # a tenth of a second a game
    source = LeagueSource(["a@1", "b@1"], DEALS, {}, {}, dict, 1, 2, lambda: False, pace)
    before = time.monotonic()
    assert len(source.next(0)) == 2  # two pairs: four games
    first = pace.next_start
    assert before + 0.4 <= first <= time.monotonic() + 0.4
    source.next(1)  # waits for the first batch's share, then books its own
    assert time.monotonic() >= first and pace.next_start >= first + 0.4


def test_a_paced_worker_waits_until_the_league_stops_or_changes():
    pace = Pace(per_minute=1)
    pace.started(2)  # the next batch in two minutes
    looks = []

    def stop() -> bool:
        looks.append(time.monotonic())
        return len(looks) > 3

    source = LeagueSource(["a@1", "b@1"], DEALS, {}, {}, dict, 1, 1, stop, pace)
    assert source.next(0) == []  # stopped while waiting: no batch
    assert len(looks) >= 4 and looks[-1] - looks[0] >= 2 * Pace.POLL
    assert Pace(None).wait(lambda: False) is None  # no limit: no wait


def test_every_pair_the_league_hands_out_is_dealt_afresh():
    """Across matchups, versions and restarts no seed comes twice, except to the two games
    of a pair; a pair of a new version is not dealt what the old version's pair was."""
    active = ["a@1", "a@2", "b@1", "c@1"]  # a@2: a new upload of a
    stored = {"a@1~b@1#0.0": DEALS.pair_seed("a@1~b@1#0"),
              "a@1~b@1#0.1": DEALS.pair_seed("a@1~b@1#0")}
    following, half = stored_pairs(stored)
    source = LeagueSource(active, DEALS, following, half, dict, 1, 3, lambda: False)
    pairs = [pair for w in itertools.islice(itertools.cycle([0, 1]), 30)
             for pair in source.next(w)]
    restarted = LeagueSource(active, DEALS, source.pairs, {}, dict, 1, 3, lambda: False)
    pairs += [pair for _ in range(10) for pair in restarted.next(0)]
    assert len(pairs) == 120 and all(len({g.seed for g in pair}) == 1 for pair in pairs)
    seeds = [pair[0].seed for pair in pairs] + [stored["a@1~b@1#0.0"]]
    assert len(seeds) == len(set(seeds))
    assert {pair[0].matchup for pair in pairs} >= {("a@1", "b@1"), ("a@2", "b@1")}
    assert all(pair[0].seed == DEALS.pair_seed(pair[0].pair_id) for pair in pairs)


def test_after_a_restart_placement_comes_before_the_pairs_stored_half():
    """A restart finds pairs stored half: of the field (b~c), of a retired version (a@1) and
    of the new version's own placement (a@2~c). The new version's placement is handed out
    first, its own half pair leading; the field's half pair next; the retired version's
    never. Before the fix the field's half pairs went first, the new version waiting."""
    stored = {"b@1~c@1#4.0": 1, "a@1~b@1#7.1": 2, "a@2~c@1#0.0": 3,
              **{f"b@1~c@1#{k}.{g}": 9 for k in range(4) for g in (0, 1)}}
    following, half = stored_pairs(stored)
    assert set(half) == {("b@1", "c@1"), ("a@1", "b@1"), ("a@2", "c@1")}
    source = LeagueSource(["a@2", "b@1", "c@1"], DEALS, following, half, dict, 2, 1,
                          lambda: False)
    handed = [[g.game_id for pair in source.next(w % 2) for g in pair] for w in range(8)]
    assert all(ids[0].startswith("a@2~") for ids in handed[:4]), handed  # 2 pairs each
    assert ["a@2~c@1#0.1"] in handed[:4], handed  # its own half pair, completed
    assert handed[4] == ["b@1~c@1#4.1"], handed  # then the field's half pair
    assert not any("a@1" in g for ids in handed for g in ids), handed


def test_a_half_pair_is_played_when_no_placement_is_due():
    following, half = stored_pairs({"a@1~b@1#2.0": 5, "a@1~b@1#0.0": 1, "a@1~b@1#0.1": 1,
                                    "a@1~b@1#1.0": 4, "a@1~b@1#1.1": 4})
    source = LeagueSource(["a@1", "b@1"], DEALS, following, half, dict, 2, 1, lambda: False)
    assert [g.game_id for pair in source.next(0) for g in pair] == ["a@1~b@1#2.1"]
    assert [g.game_id for pair in source.next(0) for g in pair] == ["a@1~b@1#3.0",
                                                                    "a@1~b@1#3.1"]
