"""RULES.md "Combinations" and the Phoenix/Mah Jong/Dragon shapes: `classify` and `beats`."""

from __future__ import annotations

import pytest

from arena.rules import IllegalAction
from arena.rules.combos import ComboType, beats, classify
from tests.rules.helpers import cards

T = ComboType


def combo(text: str, phoenix_as: int = 0, on=None):
    return classify(cards(text), phoenix_as, on)


def rejected(text: str, phoenix_as: int = 0, on=None) -> str:
    with pytest.raises(IllegalAction) as info:
        combo(text, phoenix_as, on)
    return info.value.rule


@pytest.mark.parametrize("text, kind, rank, length", [
    ("7j", T.SINGLE, 7, 1),
    ("7j 7s", T.PAIR, 7, 2),
    ("5j 5s 6p 6t", T.STAIRS, 6, 4),
    ("7j 7s 8j 8s 9p 9t", T.STAIRS, 9, 6),
    ("Qj Qs Qp", T.TRIPLE, 12, 3),
    ("Qj Qs Qp 3j 3s", T.FULL_HOUSE, 12, 5),
    ("3j 3s 3p Qj Qs", T.FULL_HOUSE, 3, 5),
    ("2j 3s 4p 5t 6j", T.STRAIGHT, 6, 5),
    ("9j Ts Jp Qt Kj As", T.STRAIGHT, 14, 6),
    ("8j 8s 8p 8t", T.FOUR_BOMB, 8, 4),
    ("2s 3s 4s 5s 6s", T.STRAIGHT_FLUSH, 6, 5),
    ("9p Tp Jp Qp Kp Ap", T.STRAIGHT_FLUSH, 14, 6),
])
def test_every_combination_type_is_classified(text, kind, rank, length):
    c = combo(text)
    assert (c.type, c.rank, c.length, c.cards) == (kind, rank, length, cards(text))


@pytest.mark.parametrize("text", [
    "7j 8s", "7j 7s 8p", "5j 5s 7p 7t", "2j 3s 4p 5t", "2j 3s 4p 5t 7j",
    "Qj Qs Qp 3j 3s 3p", "5j 5s 5p 6j 6s 6p", "Jj Qs Kp At 2j",
])
def test_cards_forming_no_combination_are_rejected(text):
    assert rejected(text) == "not-a-combination"


def test_higher_single_beats_lower_single():
    assert beats(combo("9j"), combo("8s"))
    assert not beats(combo("8j"), combo("8s"))
    assert not beats(combo("7j"), combo("8s"))


def test_higher_pair_beats_lower_pair_and_types_must_match():
    assert beats(combo("9j 9s"), combo("8s 8p"))
    assert not beats(combo("8j 8t"), combo("8s 8p"))
    assert not beats(combo("9j 9s 9p"), combo("8s 8p"))
    assert not beats(combo("Aj"), combo("8s 8p"))


def test_stairs_beat_stairs_of_the_same_number_of_pairs_with_a_higher_top_pair():
    low = combo("5j 5s 6p 6t")
    assert beats(combo("6j 6s 7p 7t"), low)
    assert not beats(combo("5p 5t 6j 6s"), low)
    assert not beats(combo("7j 7s 8p 8t 9j 9s"), low), "3 pairs do not beat 2 pairs"


def test_higher_triple_beats_lower_triple():
    assert beats(combo("Kj Ks Kp"), combo("Qj Qs Qp"))
    assert not beats(combo("Jj Js Jp"), combo("Qj Qs Qp"))


def test_full_house_beats_full_house_with_a_higher_triple():
    low = combo("8j 8s 8p Aj As")
    assert beats(combo("9j 9s 9p 2j 2s"), low)
    assert not beats(combo("7j 7s 7t Kj Ks"), low)


def test_straight_beats_straight_of_the_same_length_with_higher_top():
    low = combo("2j 3s 4p 5t 6j")
    assert beats(combo("3j 4s 5p 6t 7j"), low)
    assert not beats(combo("3j 4s 5p 6t 7j 8s"), low), "lengths must match"
    assert not beats(combo("2s 3j 4j 5j 6p"), low)


def test_no_wrap_around_ace_is_only_high():
    assert rejected("Qj Ks As 2p 3t") == "not-a-combination"
    assert rejected("Kj As 2p 3t 4j") == "not-a-combination"


def test_four_of_a_kind_bomb_beats_any_non_bomb_and_a_lower_four_of_a_kind():
    bomb = combo("3j 3s 3p 3t")
    for other in ("Dragon", "Aj As", "Aj As Ap", "9j Ts Jp Qt Kj As",
                  "Kj Ks Kp Aj As", "Qj Qs Kj Ks Aj As"):
        assert beats(bomb, combo(other))
    assert beats(combo("4j 4s 4p 4t"), bomb)
    assert not beats(bomb, combo("4j 4s 4p 4t"))


def test_straight_flush_beats_any_four_of_a_kind_and_shorter_straight_flushes():
    flush = combo("2s 3s 4s 5s 6s")
    assert beats(flush, combo("Aj As Ap At"))
    assert beats(flush, combo("9j Ts Jp Qt Kj"))
    assert beats(combo("2j 3j 4j 5j 6j 7j"), combo("8s 9s Ts Js Qs"))
    assert beats(combo("3p 4p 5p 6p 7p"), flush)
    assert not beats(combo("Aj As Ap At"), flush)


def test_bombs_compare_by_number_of_cards_first_then_rank():
    assert beats(combo("2j 3j 4j 5j 6j 7j"), combo("9s Ts Js Qs Ks"))
    assert not beats(combo("9s Ts Js Qs Ks"), combo("2j 3j 4j 5j 6j 7j"))
    assert beats(combo("2j 3j 4j 5j 6j"), combo("Aj As Ap At"))
    assert beats(combo("Aj As Ap At"), combo("Kj Ks Kp Kt"))


def test_equal_bombs_do_not_beat_each_other():
    assert not beats(combo("2s 3s 4s 5s 6s"), combo("2j 3j 4j 5j 6j"))
    assert not beats(combo("2j 3j 4j 5j 6j"), combo("2s 3s 4s 5s 6s"))


@pytest.mark.parametrize("text", ["2j", "Dog", "Mahjong", "Dragon", "Phoenix", "7j 7s",
                                  "2j 3s 4p 5t 6j", "8j 8s 8p 8t", "2s 3s 4s 5s 6s"])
def test_anything_may_be_played_on_an_empty_table(text):
    assert beats(combo(text), None)


def test_straight_flush_is_always_a_bomb_never_a_plain_straight():
    flush = combo("4t 5t 6t 7t 8t")
    assert flush.type is T.STRAIGHT_FLUSH
    assert not beats(combo("5j 6s 7p 8t 9j"), flush), "a higher plain straight is no answer"
    assert beats(flush, combo("5j 6s 7p 8t 9j")), "it beats plain straights as a bomb"


# ----- Mah Jong ------------------------------------------------------------------------------

def test_mahjong_is_a_single_of_rank_1_beaten_by_any_2():
    mj = combo("Mahjong")
    assert (mj.type, mj.rank) == (T.SINGLE, 1)
    assert beats(combo("2j"), mj)
    assert not beats(mj, combo("2j"))


@pytest.mark.parametrize("top", range(5, 15))
def test_mahjong_counts_as_1_and_starts_a_straight_of_any_length(top):
    ranks = "23456789TJQKA"[: top - 1]
    text = "Mahjong " + " ".join(r + "jspt"[i % 4] for i, r in enumerate(ranks))
    c = combo(text)
    assert (c.type, c.rank, c.length) == (T.STRAIGHT, top, top)


def test_mahjong_straight_of_one_suit_is_not_a_bomb():
    assert combo("Mahjong 2j 3j 4j 5j").type is T.STRAIGHT


def test_mahjong_is_no_pair_or_stairs_partner():
    assert rejected("Mahjong Phoenix", 2) == "phoenix-rank-forms-nothing"
    assert rejected("Mahjong 2j 2s") == "not-a-combination"


# ----- Phoenix -------------------------------------------------------------------------------

def test_phoenix_single_is_half_above_the_single_it_is_played_on():
    on_eight = combo("Phoenix", on=combo("8j"))
    assert on_eight.rank == 8.5
    assert beats(on_eight, combo("8j"))
    assert beats(combo("9s"), on_eight)
    assert not beats(combo("8s"), on_eight)


def test_phoenix_led_is_one_and_a_half():
    led = combo("Phoenix")
    assert led.rank == 1.5
    assert beats(combo("2j"), led)
    assert not beats(combo("Mahjong"), led)


def test_phoenix_single_beats_an_ace():
    assert beats(combo("Phoenix", on=combo("At")), combo("At"))


def test_phoenix_single_is_beaten_by_the_dragon():
    phoenix = combo("Phoenix", on=combo("At"))
    assert beats(combo("Dragon"), phoenix)


def test_phoenix_can_never_be_played_on_the_dragon():
    assert rejected("Phoenix", on=combo("Dragon")) == "phoenix-on-dragon"


@pytest.mark.parametrize("text, stated, kind, rank", [
    ("7j Phoenix", 7, T.PAIR, 7),
    ("7j 7s Phoenix", 7, T.TRIPLE, 7),
    ("5j 5s 6p Phoenix", 6, T.STAIRS, 6),
    ("5j Phoenix 6p 6t", 5, T.STAIRS, 6),
    ("8j 8s 8p 3j Phoenix", 3, T.FULL_HOUSE, 8),
    ("8j 8s 3p 3j Phoenix", 8, T.FULL_HOUSE, 8),
    ("8j 8s 3p 3j Phoenix", 3, T.FULL_HOUSE, 3),
    ("2j 3s Phoenix 5t 6j", 4, T.STRAIGHT, 6),
    ("Tj Js Qp Kt Phoenix", 14, T.STRAIGHT, 14),
    ("Tj Js Qp Kt Phoenix", 9, T.STRAIGHT, 13),
    ("Mahjong 2j 3s 4p Phoenix", 5, T.STRAIGHT, 5),
    ("Phoenix 3s 4p 5t 6j", 2, T.STRAIGHT, 6),
])
def test_phoenix_stands_for_the_stated_rank_in_combinations(text, stated, kind, rank):
    c = combo(text, stated)
    assert (c.type, c.rank, c.phoenix_as) == (kind, rank, stated)


def test_phoenix_rank_statement_that_forms_no_combination_is_rejected():
    assert rejected("7j Phoenix", 8) == "phoenix-rank-forms-nothing"
    assert rejected("2j 3s Phoenix 5t 6j", 7) == "phoenix-rank-forms-nothing"
    assert rejected("5j 5s 6p Phoenix", 5) == "phoenix-rank-forms-nothing"


def test_phoenix_in_a_combination_must_state_a_rank():
    assert rejected("7j Phoenix") == "phoenix-rank-missing"
    with pytest.raises(IllegalAction) as info:
        combo("7j Phoenix")
    assert info.value.message == "a Phoenix in a combination must state a rank from 2 to 14"


def test_phoenix_never_stands_for_the_1():
    assert rejected("2j 3s 4p 5t Phoenix", 1) == "phoenix-rank-missing"
    assert rejected("Mahjong Phoenix", 1) == "phoenix-rank-missing"


def test_phoenix_never_stands_above_the_ace():
    assert rejected("Tj Js Qp Kt Phoenix", 15) == "phoenix-rank-missing"


def test_phoenix_single_states_no_rank():
    assert rejected("Phoenix", 7) == "phoenix-rank-stated-for-single"


def test_a_stated_rank_without_the_phoenix_is_rejected():
    assert rejected("7j 7s", 7) == "phoenix-rank-without-phoenix"


def test_phoenix_is_never_part_of_a_bomb():
    assert rejected("7j 7s 7p Phoenix", 7) == "phoenix-rank-forms-nothing"
    flushy = combo("2s 3s 4s 5s Phoenix", 6)
    assert flushy.type is T.STRAIGHT and not flushy.is_bomb


def test_four_of_a_kind_plus_phoenix_is_not_a_full_house():
    for stated in range(2, 15):
        with pytest.raises(IllegalAction):
            combo("9j 9s 9p 9t Phoenix", stated)


# ----- Dog and Dragon ------------------------------------------------------------------------

def test_dog_is_only_played_alone():
    assert combo("Dog").type is T.DOG
    assert rejected("Dog 2j") == "special-card-alone"


def test_dragon_is_a_single_only_the_highest_single():
    dragon = combo("Dragon")
    assert dragon.type is T.SINGLE
    assert beats(dragon, combo("At"))
    assert beats(dragon, combo("Phoenix", on=combo("At")))
    assert rejected("Dragon Phoenix", 14) == "special-card-alone"
    assert rejected("Tj Js Qp Kt Dragon") == "special-card-alone"


def test_the_special_cards_refusals_say_the_rule_in_words():
    """A bot's author reads the words in its forfeit (the rule id alone is for programs):
    each refusal says the rule it applies, as RULES.md puts it."""
    for text, on, words in [
            ("Dog 2j", None, "the Dog and the Dragon are only played alone"),
            ("Tj Js Qp Kt Dragon", None, "the Dog and the Dragon are only played alone"),
            ("Phoenix", combo("Dragon"), "the Phoenix can never be played on the Dragon")]:
        with pytest.raises(IllegalAction) as info:
            combo(text, 0, on)
        assert info.value.message == words
        assert str(info.value) == f"{info.value.rule}: {words}"


def test_dragon_is_only_beaten_by_bombs():
    dragon = combo("Dragon")
    assert not beats(combo("At"), dragon)
    assert beats(combo("2j 2s 2p 2t"), dragon)
    assert beats(combo("2j 3j 4j 5j 6j"), dragon)


def test_nothing_beats_the_dog_not_even_a_bomb():
    dog = combo("Dog")
    assert not beats(combo("2j"), dog)
    assert not beats(combo("2j 2s 2p 2t"), dog)


def test_empty_play_is_rejected():
    with pytest.raises(IllegalAction) as info:
        classify(0, 0, None)
    assert info.value.rule == "empty-play"


def test_a_set_that_forms_nothing_is_rejected_in_words_naming_the_phoenix_rank_stated():
    with pytest.raises(IllegalAction) as plain:
        combo("7j 8s")
    assert plain.value.message == "these cards form no combination"
    with pytest.raises(IllegalAction) as phoenix:
        combo("7j 9s Phoenix", 8)
    assert phoenix.value.rule == "phoenix-rank-forms-nothing"
    assert phoenix.value.message == "these cards form no combination with the Phoenix as 8"
