"""The schedule: every matchup, duplicate pairs with swapped seats on the same seed,
deterministic; each pair dealt from its own id, so that no two pairs share a seed; with
mixed partners every foursome of the movement each cycle, the partnerships swapping seats;
the dispatcher hands each pair out once, keeping workers on their matchup (or foursome)."""

from __future__ import annotations

import hashlib
import hmac

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.tournament.schedule import (
    Deals,
    Dispatcher,
    dealt_as_stored,
    matchups,
    missing,
    mixed_schedule,
    new_secret,
    pair_games,
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
        assert first.seed == second.seed == pair_seed(5, first.pair_id)
        assert first.teams == tuple(reversed(second.teams))
    assert len({g.game_id for g in games}) == len(games)


def test_schedule_is_deterministic_and_no_two_pairs_share_a_seed():
    assert round_robin(KEYS, 2, 9) == round_robin(list(reversed(KEYS)), 2, 9)
    seeds = {(g.pair_id, g.seed) for g in round_robin(KEYS, 2, 9)}
    assert len(seeds) == len({seed for _, seed in seeds}) == 6  # 3 matchups, 2 pairs each
    assert pair_seed(9, "a@1~b@2#0") != pair_seed(10, "a@1~b@2#0")
    assert 0 <= pair_seed(9, "a@1~b@2#0") < 2**63


def test_a_pair_seed_is_the_documented_digest_of_its_id_the_same_in_every_version():
    """What README states, and fixed numbers: a resumed run (or a league restarted by a newer
    arena) must deal its pairs exactly as before."""
    key = bytes(range(32))
    digest = hmac.new(key, b"tichu-arena/pair/a@1~b@2#0", "sha256").digest()
    assert Deals.secret(key).pair_seed("a@1~b@2#0") == int.from_bytes(digest[:8], "big") >> 1
    digest = hashlib.sha256(b"tichu-arena/pair/7/a@1~b@2#0").digest()
    assert pair_seed(7, "a@1~b@2#0") == int.from_bytes(digest[:8], "big") >> 1
    assert Deals.secret(key).pair_seed("a@1~b@2#0") == 2013482324086109468
    assert Deals.secret(key).pair_seed("a@1+c@3~b@2+d@4#5") == 8362811348228006330
    assert Deals.fixed(7).pair_seed("a@1~b@2#0") == 3633853560788329493


def test_every_part_of_a_pair_s_identity_changes_its_seed():
    deals = Deals.secret(bytes(32))
    first = pair_games(("a@1", "b@1"), 0, deals)
    assert first[0].seed == first[1].seed  # the two games of a pair: the same deals
    others = [pair_games(("a@2", "b@1"), 0, deals),  # a new version of a (a league upload)
              pair_games(("a@1", "c@1"), 0, deals),  # another opponent
              pair_games(("a@1", "b@1"), 1, deals),  # the next pair
              pair_games(("a@1", "b@1"), 0, deals, ("c@1", "d@1")),  # with partners
              pair_games(("a@1", "b@1"), 0, deals, ("d@1", "c@1")),
              pair_games(("a@1", "b@1"), 0, Deals.secret(bytes(31) + b"\1"))]  # a new store
    assert len({first[0].seed, *(pair[0].seed for pair in others)}) == 1 + len(others)


def test_a_late_entrant_leaves_every_scheduled_seed_as_it_was():
    deals = Deals.secret(new_secret())
    before = {g.game_id: g.seed for g in round_robin(KEYS, 3, deals)}
    after = {g.game_id: g.seed for g in round_robin([*KEYS, "d@4"], 3, deals)}
    assert before.items() <= after.items() and len(after) == 2 * len(before)
    fresh = {seed for game, seed in after.items() if game not in before}
    assert fresh.isdisjoint(before.values())  # the late entrant's pairs: deals of their own


KEY = st.from_regex(r"[a-z][a-z0-9_.-]{0,5}@[0-9a-f]{1,4}", fullmatch=True)


@settings(max_examples=60, deadline=None)
@given(keys=st.sets(KEY, min_size=2, max_size=9), pairs=st.integers(1, 12),
       secret=st.binary(min_size=16, max_size=32) | st.integers(0, 2**63 - 1))
def test_no_two_pairs_of_a_schedule_share_a_seed_and_the_two_games_of_a_pair_do(
        keys, pairs, secret):
    deals = Deals.secret(secret) if isinstance(secret, bytes) else Deals.fixed(secret)
    games = round_robin(keys, pairs, deals)
    if len(keys) >= 4:
        games += mixed_schedule(keys, 2, deals)
    seeds: dict[str, set[int]] = {}
    for game in games:
        seeds.setdefault(game.pair_id, set()).add(game.seed)
    assert all(len(s) == 1 for s in seeds.values())  # a pair's two games: one seed
    every = [seed for s in seeds.values() for seed in s]
    assert len(every) == len(set(every))  # no seed twice across pairs


def test_thousands_of_pairs_of_a_large_round_robin_and_movement_all_differ():
    keys = [f"bot{n:02d}@{n:x}" for n in range(40)]
    games = round_robin(keys, 6, Deals.secret(new_secret())) + \
        mixed_schedule(keys[:13], 30, Deals.fixed(1))
    seeds = {g.pair_id: g.seed for g in games}
    assert len(seeds) == 780 * 6 + 39 * 30 and len(set(seeds.values())) == len(seeds)


def test_a_resumed_schedule_gets_the_same_seeds_for_the_same_game_ids():
    secret = new_secret()
    whole = round_robin(KEYS, 4, Deals.secret(secret))
    assert round_robin(KEYS, 4, Deals.secret(bytes(secret))) == whole
    assert round_robin(KEYS, 4, Deals.secret(secret), first_pair=2) == whole[12:]
    mixed = mixed_schedule(FIVE, 3, Deals.secret(secret))
    assert mixed_schedule(FIVE, 3, Deals.secret(bytes(secret)), first_cycle=1) == mixed[10:]


def test_a_half_stored_pair_is_completed_on_its_stored_deals():
    """A store half played by an older arena (one seed per pair index): its missing game is
    dealt what its stored game was, and every other game its own pair's seed."""
    games = round_robin(["a@1", "b@2"], 2, 3)
    stored = {games[0].game_id: 12345}  # game 0 of pair 0, dealt otherwise
    todo = dealt_as_stored(missing(games, set(stored)), stored)
    assert [(g.game_id, g.seed) for g in todo] == [
        (games[1].game_id, 12345), (games[2].game_id, games[2].seed),
        (games[3].game_id, games[3].seed)]
    assert dealt_as_stored(games, {g.game_id: g.seed for g in games}) == games


def test_secret_deals_are_the_same_for_the_same_secret_and_unrelated_to_any_public_seed():
    secret = new_secret()
    assert len(secret) * 8 >= 128
    games = round_robin(KEYS, 4, Deals.secret(secret))
    assert games == round_robin(KEYS, 4, Deals.secret(bytes(secret)))  # a resumed run
    assert {g.seed for g in games}.isdisjoint(
        g.seed for g in round_robin(KEYS, 4, Deals.secret(new_secret())))
    public = {pair_seed(base, g.pair_id) for base in range(1000) for g in games}
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
        assert first.seed == second.seed == pair_seed(5, first.pair_id)
        a, b, c, d = first.seat_keys
        assert len({a, b, c, d}) == 4
        assert second.seat_keys == (b, a, d, c)  # each partnership on the other side
        assert first.pair_id == f"{a}+{c}~{b}+{d}#{first.pair_index}"
        assert first.record_name == f"{a}+{c}/{b}+{d}/{first.pair_index:05d}-0"
    assert len({g.game_id for g in games}) == len(games)
    assert [g.pair_index for g in games[:10]] == [0] * 10  # cycle by cycle
    cycles = [{g.lineup for g in games if g.pair_index == k} for k in (0, 1)]
    assert cycles[0] != cycles[1]  # each cycle relabels the entrants
    assert len({g.seed for g in games}) == len(pairs) == 10  # every foursome: its own deals


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
