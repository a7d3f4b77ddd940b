"""Shared helpers of the learning-bot tests. They need the train extra: where it is missing
they are skipped saying what to install; under CI (the CI variable set), which must run
them, that is a failure."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from tests.requirements import EXTRAS, missing

ROOT = Path(__file__).resolve().parents[2]
MISSING = [m for m in ("numpy", "gymnasium", "pettingzoo") if importlib.util.find_spec(m) is None]


def require_train() -> None:
    """Call at the top of a test module, before importing numpy and the like."""
    if not MISSING:
        return
    missing(f"the train extra is missing ({', '.join(MISSING)})", EXTRAS, module_level=True)


CARD_FIELDS = ("hand", "played", "trick", "given", "received", "picks")


def cards_in(bits) -> set[int]:
    """Every card id an encoded observation names, in any of its card fields."""
    from protocol.features import BIT, BIT_FIELDS

    sizes = dict(BIT_FIELDS)
    named: set[int] = set()
    for field in CARD_FIELDS:
        start = BIT[field]
        named |= {i % 56 for i in range(sizes[field]) if bits[start + i]}
    return named


def known_cards(events, seat: int) -> set[int]:
    """The cards `seat` may know after the engine `events` (this round's, as the scan in
    tests/referee/test_hidden_cards.py counts them): its deals, the cards it
    received, and every card played."""
    from arena.rules.cards import cards_of

    known: set[int] = set()
    for event in events:
        if event.visible_to not in (-1, seat):
            continue
        if event.kind == "round_start":
            known = set()
        elif event.kind == "deal":
            known |= set(cards_of(event.data["cards"]))
        elif event.kind == "exchange":
            by_giver = event.data["received"]  # indexed by the giving seat
            known |= {by_giver[(seat + k) % 4] for k in (1, 2, 3)}
        elif event.kind in ("play", "trick"):
            known |= set(cards_of(event.data["cards"]))
    return known
