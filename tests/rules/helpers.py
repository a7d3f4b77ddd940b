"""Helpers for the rules tests: deal exact hands, drive a game through its public API.

Hands are written as card names (`arena.rules.cards.parse_card`), e.g. "Tj Ts Mahjong".
`deal` turns four desired hands (after the exchange) into a dealer and the exchange that
produces them, so a test names the cards each seat plays with and nothing else.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from arena.rules import (
    PASS,
    CallTichu,
    DecisionKind,
    Exchange,
    Game,
    GrandTichu,
    Pass,
    Play,
)
from arena.rules.cards import cards_of, parse_card, parse_cards
from arena.rules.moves import bombs

SPECIALS = ("Mahjong", "Dog", "Phoenix", "Dragon")


def cards(text: str) -> int:
    """The card set named by space-separated card names (ValueError on a card named twice)."""
    return parse_cards(text.split())


@dataclass(frozen=True)
class Deal:
    """A deck order for `Game`'s dealer and the exchange that turns it into `hands`."""

    deck: list[int]
    hands: list[int]            # each seat's 14 cards after the exchange
    exchanges: list[Exchange]   # the exchange each seat makes (without a Tichu call)

    def dealer(self) -> Callable[[int, int], list[int]]:
        return lambda seed, round_number: list(self.deck)


def deal(*named: str) -> Deal:
    """A deal whose hands after the exchange hold the named cards, filled up to 14 each.

    The four specials must be placed by name. Filler cards are spread so that no seat gets a
    bomb it was not given by name (checked), and each seat receives three filler cards in the
    exchange where it can, so named cards are dealt directly.
    """
    assert len(named) == 4
    hands = [cards(h) for h in named]
    assert sum(h.bit_count() for h in hands) == (hands[0] | hands[1] | hands[2] | hands[3]).bit_count()
    assert all(h.bit_count() <= 14 for h in hands)
    for name in SPECIALS:
        assert any(h >> parse_card(name) & 1 for h in hands), f"place the {name} by name"
    final = _fill(hands)
    recv = [_received(final[t], hands[t]) for t in range(4)]  # recv[t][k]: from giver k
    givers = [[g for g in range(4) if g != t] for t in range(4)]
    dealt = []
    exchanges = []
    for s in range(4):
        gives = []
        for i in range(3):
            t = (s + 1 + i) % 4
            gives.append(recv[t][givers[t].index(s)])
        got = sum(1 << c for c in recv[s])
        dealt.append((final[s] & ~got) | sum(1 << c for c in gives))
        exchanges.append(Exchange(tuple(gives)))
    deck = []
    for s in range(4):
        deck += cards_of(dealt[s])
    assert sorted(deck) == list(range(56))
    return Deal(deck, final, exchanges)


def _fill(hands: list[int]) -> list[int]:
    """Complete the hands with the unnamed cards, so that no seat holds an unnamed bomb."""
    used = hands[0] | hands[1] | hands[2] | hands[3]
    leftover = [c for c in range(52) if not used >> c & 1]
    for attempt in range(1000):
        random.Random(attempt).shuffle(leftover)
        final = list(hands)
        it = iter(leftover)
        for s in range(4):
            for _ in range(14 - hands[s].bit_count()):
                final[s] |= 1 << next(it)
        if all(b.cards & ~hands[s] == 0 for s in range(4) for b in bombs(final[s], None)):
            return final
    raise AssertionError("no filler without an unnamed bomb")


def _received(final: int, named: int) -> list[int]:
    filler = cards_of(final & ~named)
    rest = cards_of(final & named)
    return (filler + rest)[:3]


def start(d: Deal, *, grand: Iterable[int] = (), tichu_with_exchange: Iterable[int] = (),
          tichu: Iterable[int] = (), target: int = 1000, seed: int = 0) -> Game:
    """A game on deal `d`, driven through Grand Tichu, exchange and Tichu window to play."""
    game = Game(seed, target, dealer=d.dealer())
    finish_opening(game, d, grand=grand, tichu_with_exchange=tichu_with_exchange, tichu=tichu)
    return game


def finish_opening(game: Game, d: Deal, *, grand: Iterable[int] = (),
                   tichu_with_exchange: Iterable[int] = (), tichu: Iterable[int] = ()) -> None:
    """Drive a round from its Grand Tichu decisions to the first play."""
    grand, with_ex, tichu = set(grand), set(tichu_with_exchange), set(tichu)
    assert game.phase is DecisionKind.GRAND_TICHU
    for s in range(4):
        game.apply(s, GrandTichu(s in grand))
    assert game.phase is DecisionKind.EXCHANGE
    for s in range(4):
        game.apply(s, d.exchanges[s]._replace(call_tichu=s in with_ex))
    if game.phase is DecisionKind.TICHU:
        for s in game.to_act():
            game.apply(s, CallTichu(s in tichu))
    assert game.phase is DecisionKind.PLAY
    for s in range(4):
        assert game.observation(s).hand == d.hands[s]


def play(game: Game, seat: int, text: str, phoenix_as: int = 0, wish: int = 0,
         call_tichu: bool = False) -> None:
    """`seat` plays the named cards on its regular turn."""
    assert game.phase is DecisionKind.PLAY, game.phase
    assert game.to_act() == (seat,), (game.to_act(), seat)
    game.apply(seat, Play(cards(text), phoenix_as, wish, call_tichu))


def pass_turn(game: Game, seat: int) -> None:
    """`seat` passes on its regular turn."""
    assert game.phase is DecisionKind.PLAY, game.phase
    assert game.to_act() == (seat,), (game.to_act(), seat)
    game.apply(seat, PASS)


def table(game: Game):
    return game.observation(0).table


def others_pass(game: Game) -> None:
    """Every regular turn passes and every bomb is declined until the trick is gathered."""
    while game.phase in (DecisionKind.PLAY, DecisionKind.BOMB) and table(game) is not None:
        game.apply(game.to_act()[0], PASS)


def lead_out(game: Game, seat: int, plays: Sequence[str]) -> None:
    """`seat` leads each play in turn and every other seat passes it."""
    for text in plays:
        decline_window(game)
        play(game, seat, text)
        others_pass(game)


def events(game: Game, kind: str) -> list:
    return [e for e in game.events if e.kind == kind]


def last_round_end(game: Game):
    return events(game, "round_end")[-1]


def decline_window(game: Game) -> list[int]:
    """Decline every bomb offered now; the seats asked, in order."""
    asked = []
    while game.phase is DecisionKind.BOMB:
        seat = game.to_act()[0]
        asked.append(seat)
        game.apply(seat, Pass())
    return asked
