"""Known-answer deals: a game's deals never change, whatever machine or Python runs it."""

from __future__ import annotations

import hashlib

from arena.rules import deal_order


def test_deal_order_gives_the_known_decks():
    assert deal_order(0, 1) == [
        31, 22, 34, 47, 16, 41, 25, 39, 45, 43, 17, 35, 8, 23, 1, 30, 27, 15, 55, 44, 37, 20,
        21, 19, 18, 9, 53, 50, 5, 7, 3, 24, 11, 40, 29, 26, 49, 13, 36, 10, 2, 4, 33, 6, 48,
        42, 28, 14, 12, 46, 51, 54, 0, 32, 52, 38]
    assert deal_order(2**64 + 7, 13)[:8] == [2, 18, 46, 17, 51, 28, 30, 20]


def test_deal_order_of_1500_rounds_hashes_to_the_known_digest():
    digest = hashlib.sha256()
    for seed in range(300):
        for round_number in range(1, 6):
            digest.update(bytes(deal_order(seed, round_number)))
    assert digest.hexdigest() == (
        "6b7e58b43cdb1d9f1a0ee9ce5cd79211dcc7c58261e9f93d6e319e7a307d03a3")
