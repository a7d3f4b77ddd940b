"""The table-driven card set -> names conversion against the card-by-card definition."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.rules.cards import FULL_DECK, card_name, card_names, cards_of, parse_card, parse_cards

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
