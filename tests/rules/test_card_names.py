"""The table-driven card set -> names conversion against the card-by-card definition."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.rules.cards import (
    DOG,
    DRAGON,
    FULL_DECK,
    MAHJONG,
    PHOENIX,
    card,
    card_name,
    card_names,
    cards_of,
    parse_card,
    parse_cards,
    points,
    points_of,
    rank_mask,
)
from tests.rules.helpers import cards

card_sets = st.integers(min_value=0, max_value=FULL_DECK)


@given(card_sets)
def test_card_names_are_the_names_of_the_cards_ascending(cards: int) -> None:
    assert card_names(cards) == [card_name(c) for c in cards_of(cards)]


@given(card_sets)
def test_card_names_round_trip(cards: int) -> None:
    assert parse_cards(card_names(cards)) == cards


def test_card_names_edges() -> None:
    assert card_names(0) == []
    assert card_names(FULL_DECK)[0] == "2j"
    assert card_names(FULL_DECK)[-4:] == ["Mahjong", "Dog", "Phoenix", "Dragon"]
    assert len(card_names(FULL_DECK)) == 56


def test_the_engine_and_the_protocol_name_and_order_the_cards_alike() -> None:
    from protocol.schema import CARD_NAMES

    assert list(CARD_NAMES) == [card_name(c) for c in range(56)]


def test_an_unknown_or_repeated_card_name_is_refused_naming_it() -> None:
    with pytest.raises(ValueError, match="^not a card: '1j'$"):
        parse_card("1j")
    with pytest.raises(ValueError, match="^card listed twice: '7s'$"):
        parse_cards(["7s", "8s", "7s"])


# Known answers from the module docstring's encoding and the rule book's card points
# (RULES.md, section 1: 5 is worth 5, T and K 10, the Dragon 25, the Phoenix -25).
RANKS = "23456789TJQKA"
SUIT_LETTERS = "jspt"
POINTS_BY_RANK = {"5": 5, "T": 10, "K": 10}


def test_a_suited_card_is_four_times_its_rank_above_two_plus_its_suit() -> None:
    assert (card(2, 0), card(2, 3), card(10, 2), card(14, 3)) == (0, 3, 34, 51)
    for rank in range(2, 15):
        for suit in range(4):
            c = card(rank, suit)
            assert card_name(c) == RANKS[rank - 2] + SUIT_LETTERS[suit]
            assert parse_card(card_name(c)) == c
        assert rank_mask(rank) == sum(1 << card(rank, suit) for suit in range(4))
    assert [card_name(c) for c in (MAHJONG, DOG, PHOENIX, DRAGON)] == [
        "Mahjong", "Dog", "Phoenix", "Dragon"]
    assert (MAHJONG, DOG, PHOENIX, DRAGON) == (52, 53, 54, 55)


def test_card_points_follow_the_rule_book_and_the_deck_holds_100() -> None:
    expected = {}
    for name in card_names(FULL_DECK):
        expected[name] = POINTS_BY_RANK.get(name[0], 0) if len(name) == 2 else {
            "Dragon": 25, "Phoenix": -25}.get(name, 0)
    for name, value in expected.items():
        assert points_of(parse_card(name)) == value, name
        assert points(parse_cards([name])) == value, name
    assert points(FULL_DECK) == 100
    assert points(cards("5j 5t Tp Ks Dragon Phoenix 2j Mahjong Dog")) == 30
    assert points(cards("Kj Kp Kt Ks Dragon")) == 65
    assert points(0) == 0


def test_the_cards_of_a_set_ascend_and_any_bit_is_a_card() -> None:
    assert cards_of(FULL_DECK) == list(range(56))
    assert cards_of(0) == []
    assert cards_of(1 << 3 | 1 << 55) == [3, 55]
    assert cards_of(1 << 60 | 1 << 56 | 1 << 3) == [3, 56, 60]  # past the deck: the bits
    assert cards_of(1 << 64 | 1) == [0, 64]


def test_anything_but_a_card_name_is_refused() -> None:
    for name in ("", "2J", "Jade", "Tj ", None, 7, ("Tj",)):
        with pytest.raises(ValueError, match="^not a card: "):
            parse_card(name)  # type: ignore[arg-type]  # (refused at run time too)
    with pytest.raises(ValueError):
        parse_card(["Tj"])  # type: ignore[arg-type]  # unhashable: refused, not TypeError


def test_bits_past_the_deck_name_no_card() -> None:
    # The names stop at the Dragon (card 55): a higher bit is no card of the deck.
    assert card_names(FULL_DECK | 1 << 56 | 1 << 63) == card_names(FULL_DECK)
    assert card_names(1 << 70 | 1 << 9 | 1 << 40) == ["4s", "Qj"]
    assert card_names(1 << 56) == []
