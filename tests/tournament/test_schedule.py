"""The schedule: every matchup, duplicate pairs with swapped seats on the same seed,
deterministic; with mixed partners every foursome of the movement each cycle, the
partnerships swapping seats; the dispatcher hands each pair out once, keeping workers on
their matchup (or foursome)."""

from __future__ import annotations

import pytest

from arena.tournament.schedule import (
    Deals,
    Dispatcher,
    matchups,
    missing,
    mixed_schedule,
    new_secret,
    pair_seed,
    round_robin,
)

pytestmark = pytest.mark.timeout(30)

KEYS = ["c@3", "a@1", "b@2"]


def test_round_robin_covers_every_matchup_with_pairs_of_swapped_seats_on_one_seed():
    games = round_robin(KEYS, pairs=3, deals=Deals.fixed(5))
    assert len(games) == 3 * 3 * 2
    assert matchups(KEYS) == [("a@1", "b@2"), ("a@1", "c@3"), ("b@2", "c@3")]
    pairs: dict[str, list] = {}
    for game in games:
        pairs.setdefault(game.pair_id, []).append(game)
    assert len(pairs) == 9
    for first, second in pairs.values():
        assert first.seed == second.seed == pair_seed(5, first.pair_index)
        assert first.teams == tuple(reversed(second.teams))
    assert len({g.game_id for g in games}) == len(games)


def test_schedule_is_deterministic_and_every_matchup_sees_the_same_deals():
    assert round_robin(KEYS, 2, 9) == round_robin(list(reversed(KEYS)), 2, 9)
    seeds = {(g.pair_index, g.seed) for g in round_robin(KEYS, 2, 9)}
    assert len(seeds) == 2  # pair k has one seed across matchups
    assert pair_seed(9, 0) != pair_seed(10, 0) and 0 <= pair_seed(9, 0) < 2**63


def test_secret_deals_are_the_same_for_the_same_secret_and_unrelated_to_any_public_seed():
    secret = new_secret()
    assert len(secret) * 8 >= 128
    games = round_robin(KEYS, 4, Deals.secret(secret))
    assert games == round_robin(KEYS, 4, Deals.secret(bytes(secret)))  # a resumed run
    assert {g.seed for g in games}.isdisjoint(
        g.seed for g in round_robin(KEYS, 4, Deals.secret(new_secret())))
    public = {pair_seed(base, k) for base in range(1000) for k in range(4)}
    assert {g.seed for g in games}.isdisjoint(public)
    assert all(0 <= g.seed < 2**63 for g in games)
    with pytest.raises(ValueError):
        Deals.secret(b"short")


def test_pairs_fill_evenly_across_matchups():
    games = round_robin(KEYS, 2, 1)
    assert [g.pair_index for g in games[:6]] == [0] * 6


def test_missing_keeps_schedule_order():
    games = round_robin(KEYS, 2, 1)
    done = {games[0].game_id, games[3].game_id}
    assert missing(games, done) == [g for g in games if g.game_id not in done]


def test_dispatcher_hands_each_pair_once_in_batches_of_one_matchup_with_affinity():
    games = round_robin(KEYS, 8, 1)  # 3 matchups of 8 pairs
    dispatcher = Dispatcher(games, workers=2, max_batch=3)
    handed = [dispatcher.next(0), dispatcher.next(1)]
    assert handed[0][0][0].matchup != handed[1][0][0].matchup
    while batch := dispatcher.next(0):
        handed.append(batch)
    assert dispatcher.next(1) == []
    for batch in handed:
        assert 1 <= len(batch) <= 3 and len({p[0].matchup for p in batch}) == 1
    assert sorted(g.game_id for b in handed for p in b for g in p) == sorted(
        g.game_id for g in games)
    # worker 0 stayed on its matchup until it was done, then took the next one
    matchups_of_0 = [handed[0][0][0].matchup] + [b[0][0].matchup for b in handed[2:]]
    assert matchups_of_0[:3] == [handed[0][0][0].matchup] * 3


def test_batches_shrink_so_that_the_last_pairs_spread_over_the_workers():
    dispatcher = Dispatcher(round_robin(["a@1", "b@2"], 6, 1), workers=2, max_batch=8)
    assert [len(dispatcher.next(w)) for w in (0, 1, 0, 1, 0)] == [3, 2, 1, 0, 0]


def test_dispatcher_gives_a_half_played_pair_only_its_missing_game():
    games = round_robin(["a@1", "b@2"], 1, 1)
    (pair,) = Dispatcher(missing(games, {games[0].game_id})).next(0)
    assert [g.game_index for g in pair] == [1]


FIVE = ["e@5", "d@4", "c@3", "b@2", "a@1"]


def test_mixed_partners_play_every_foursome_each_cycle_partnerships_swapping_seats():
    games = mixed_schedule(FIVE, cycles=2, deals=Deals.fixed(5))
    assert len(games) == 2 * 5 * 2  # 5 foursomes of 5 entrants, a pair each, per cycle
    pairs: dict[str, list] = {}
    for game in games:
        pairs.setdefault(game.pair_id, []).append(game)
    for first, second in pairs.values():
        assert first.seed == second.seed == pair_seed(5, first.pair_index)
        a, b, c, d = first.seat_keys
        assert len({a, b, c, d}) == 4
        assert second.seat_keys == (b, a, d, c)  # each partnership on the other side
        assert first.pair_id == f"{a}+{c}~{b}+{d}#{first.pair_index}"
        assert first.record_name == f"{a}+{c}/{b}+{d}/{first.pair_index:05d}-0"
    assert len({g.game_id for g in games}) == len(games)
    assert [g.pair_index for g in games[:10]] == [0] * 10  # cycle by cycle
    cycles = [{g.lineup for g in games if g.pair_index == k} for k in (0, 1)]
    assert cycles[0] != cycles[1]  # each cycle relabels the entrants
    assert {(g.pair_index, g.seed) for g in games} == {(k, pair_seed(5, k)) for k in (0, 1)}


def test_mixed_schedule_is_deterministic_and_needs_four_entrants():
    assert mixed_schedule(FIVE, 2, 9) == mixed_schedule(sorted(FIVE), 2, 9)
    assert mixed_schedule(FIVE, 3, 9)[20:] == mixed_schedule(FIVE, 3, 9, first_cycle=2)
    with pytest.raises(ValueError, match="at least four"):
        mixed_schedule(FIVE[:3], 1, 9)


def test_dispatcher_hands_out_pairs_of_one_foursome_per_batch():
    games = mixed_schedule(FIVE, 4, 1)
    dispatcher = Dispatcher(games, workers=1, max_batch=3)
    handed = []
    while batch := dispatcher.next(0):
        handed.append(batch)
    for batch in handed:
        assert len({p[0].lineup for p in batch}) == 1
    assert sorted(g.game_id for b in handed for p in b for g in p) == sorted(
        g.game_id for g in games)
