"""Move generation on concrete hands: `lead_options` and `follow_options`."""

from __future__ import annotations

from arena.rules.combos import ComboType, classify
from arena.rules.moves import follow_options, lead_options
from tests.rules.helpers import cards

T = ComboType


def keys(options) -> set[tuple[int, int]]:
    return {(c.cards, c.phoenix_as) for c in options}


def on(text: str, phoenix_as: int = 0):
    return classify(cards(text), phoenix_as, None)


def has(options, text: str, phoenix_as: int = 0) -> bool:
    return (cards(text), phoenix_as) in keys(options)


def test_lead_options_include_every_combination_type():
    hand = cards("Mahjong 2j 3s 4p 5t 5j 6s 6p 7t 7j 7s 7p Dog Phoenix")
    leads = lead_options(hand)
    kinds = {c.type for c in leads}
    assert {T.DOG, T.SINGLE, T.PAIR, T.STAIRS, T.TRIPLE, T.FULL_HOUSE, T.STRAIGHT,
            T.FOUR_BOMB} <= kinds
    assert has(leads, "Mahjong 2j 3s 4p 5t")
    assert has(leads, "Mahjong 2j 3s 4p 5t 6s 7t")
    assert has(leads, "7j 7s 7p 7t")


def test_led_phoenix_single_is_one_and_a_half():
    [phoenix] = [c for c in lead_options(cards("Phoenix 9j")) if c.cards == cards("Phoenix")]
    assert phoenix.rank == 1.5


def test_phoenix_completes_pairs_triples_stairs_full_houses_and_straights():
    hand = cards("Phoenix 3j 3s 4p 6j 6s 6p 8t 9j Tj Qs")
    leads = lead_options(hand)
    assert has(leads, "4p Phoenix", 4)
    assert has(leads, "3j 3s Phoenix", 3)
    assert has(leads, "3j 3s 4p Phoenix", 4)
    assert has(leads, "6j 6s 6p 4p Phoenix", 4)
    assert has(leads, "3j 3s 6j 6s Phoenix", 6)
    assert has(leads, "8t 9j Tj Phoenix Qs", 11)


def test_phoenix_never_stands_for_the_1_in_generated_straights():
    leads = lead_options(cards("Phoenix 2j 3s 4p 5t 9j"))
    assert all(c.phoenix_as != 1 for c in leads)
    assert not has(leads, "Phoenix 2j 3s 4p 5t", 1)
    assert has(leads, "Phoenix 2j 3s 4p 5t", 6)


def test_phoenix_is_never_generated_in_a_bomb():
    hand = cards("Phoenix 7j 7s 7p 2s 3s 4s 5s")
    assert all(not c.cards & cards("Phoenix") for c in lead_options(hand) if c.is_bomb)
    assert not any(c.is_bomb for c in lead_options(hand))


def test_four_of_a_kind_plus_phoenix_is_not_generated_as_a_full_house():
    hand = cards("Phoenix 9j 9s 9p 9t")
    full_houses = [c for c in lead_options(hand) if c.type is T.FULL_HOUSE]
    assert full_houses == []


def test_mahjong_starts_the_longest_straight_one_to_ace():
    hand = cards("Mahjong 2j 3s 4p 5t 6j 7s 8p 9t Tj Js Qp Kt Aj")
    longest = max((c for c in lead_options(hand) if c.type is T.STRAIGHT), key=lambda c: c.length)
    assert (longest.length, longest.rank, longest.cards) == (14, 14, hand)


def test_straight_flush_is_generated_as_a_bomb_only():
    hand = cards("4t 5t 6t 7t 8t")
    leads = lead_options(hand)
    sf = [c for c in leads if c.cards == hand]
    assert [c.type for c in sf] == [T.STRAIGHT_FLUSH]


def test_follow_options_must_match_type_and_length_and_be_higher():
    hand = cards("9j 9s Tp Tt Jj 2s 3p 4t 5j 6s 7p")
    follows = follow_options(hand, on("8j 8s"))
    assert keys(follows) == {(cards("9j 9s"), 0), (cards("Tp Tt"), 0)}
    straights = follow_options(hand, on("2j 3s 4p 5t 6j"))
    assert all(c.type is T.STRAIGHT and c.length == 5 and c.rank > 6 for c in straights)
    assert has(straights, "3p 4t 5j 6s 7p")


def test_follow_options_include_bombs_that_beat_the_table():
    hand = cards("5j 5s 5p 5t 9s")
    follows = follow_options(hand, on("Aj"))
    assert has(follows, "5j 5s 5p 5t")
    assert not has(follow_options(hand, on("6j 6s 6p 6t")), "5j 5s 5p 5t")
    assert has(follow_options(hand, on("4j 4s 4p 4t")), "5j 5s 5p 5t")


def test_phoenix_single_follows_half_above_and_never_on_the_dragon():
    follows = follow_options(cards("Phoenix 3j"), on("Aj"))
    [phoenix] = follows
    assert phoenix.rank == 14.5
    assert follow_options(cards("Phoenix 3j"), on("Dragon")) == []


def test_only_bombs_follow_the_dragon():
    hand = cards("Aj As Ap At Phoenix 9j")
    follows = follow_options(hand, on("Dragon"))
    assert [c.type for c in follows] == [T.FOUR_BOMB]


def test_nothing_follows_the_dog():
    assert follow_options(cards("Aj As Ap At Dragon"), on("Dog")) == []


def test_mahjong_is_not_a_follow_on_a_single():
    assert follow_options(cards("Mahjong"), on("Phoenix")) == []


def test_dog_and_dragon_are_never_generated_in_combinations():
    hand = cards("Dog Dragon Mahjong 2j 3s 4p 5t")
    for c in lead_options(hand):
        if c.length > 1:
            assert not c.cards & cards("Dog Dragon")


def test_equal_straight_flush_is_not_a_follow():
    assert follow_options(cards("2j 3j 4j 5j 6j"), on("2s 3s 4s 5s 6s")) == []
    assert keys(follow_options(cards("2j 3j 4j 5j 6j 7j"), on("2s 3s 4s 5s 6s"))) == {
        (cards("2j 3j 4j 5j 6j 7j"), 0), (cards("3j 4j 5j 6j 7j"), 0)}


def test_the_phoenix_completes_a_followed_triple_and_a_full_house_pair():
    # RULES.md: the Phoenix stands for any rank 2..14 in a combination. On a triple of 5s,
    # 7j 7s and the Phoenix make a triple of 7s (the only one of the hand above the 5s).
    hand = cards("7j 7s Phoenix 2j")
    follows = [c for c in follow_options(hand, classify(cards("5j 5s 5p"), 0, None))
               if c.type is ComboType.TRIPLE]
    assert [(c.cards, c.phoenix_as) for c in follows] == [(cards("7j 7s Phoenix"), 7)]
    # 5j 5s 5p 9j and the Phoenix: one full house, the Phoenix a 9 (no other pair or triple),
    # as a lead and on 3s over 2s.
    hand = cards("5j 5s 5p 9j Phoenix")
    houses = [c for c in lead_options(hand) if c.type is ComboType.FULL_HOUSE]
    assert [(c.cards, c.phoenix_as) for c in houses] == [(hand, 9)]
    table = classify(cards("3j 3s 3p 2j 2s"), 0, None)
    houses = [c for c in follow_options(hand, table) if c.type is ComboType.FULL_HOUSE]
    assert [(c.cards, c.phoenix_as) for c in houses] == [(hand, 9)]


def test_a_straight_follows_only_with_a_higher_top():
    # On 3 to 7, the hand's 3 to 7 ties (not higher: RULES.md) and its 4 to 8 beats it.
    table = classify(cards("3j 4j 5j 6j 7s"), 0, None)
    hand = cards("3s 4s 5s 6s 7j 8j")
    straights = [c for c in follow_options(hand, table) if c.type is ComboType.STRAIGHT]
    assert [c.cards for c in straights] == [cards("4s 5s 6s 7j 8j")]
