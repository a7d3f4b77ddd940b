"""The card table, as HTML: cards drawn as cards, the four seats around the trick.

One copy of the markup, used three ways:

- `table_html(TableState)` writes a table with its data (a game in progress, pushed to a
  league page trick by trick);
- the replay viewer (`assets/replay.js`) clones the same markup from `<template>`s that
  `viewer_templates()` writes (`table_html` of an empty table, `play_html`, every card's
  face from `card_html`) and fills the slots marked ``data-slot``, so the static report's
  viewer and the live pages look alike and cannot drift apart;
- `public_table(events, teams)` folds a game's events into the `TableState` of what every
  seat may know (public events only: no hand of any seat, the cards each seat has left).

A card is a ``<span class="card ...">`` with its wire name in ``data-card``, its rank and
symbol in the corner (what shows of a card in a fanned hand) and a larger symbol, inline
SVG from `card_symbols()` (a sprite written once per page), coloured by its suit: Jade green, Sword slate, Pagoda blue, Star red; the four specials each have
their own face (Mah Jong a "1" and a one-of-circles tile, the Dog a paw, the Phoenix a
flame, the Dragon a gold serpent on red). No font, image or script from outside.

Every text here is escaped with `safe.html_text` (`esc`): seat labels carry bot-chosen
names. The markup holds no line break, so a fragment fits one server-sent event's data line.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.presentation.replay import COMBINATION_WORDS
from arena.presentation.safe import html_text as esc
from arena.presentation.seat_view import sorted_cards
from arena.rules import PUBLIC
from arena.rules.cards import RANK_CHARS, SUIT_LETTERS

SUIT_NAMES = {"j": "Jade", "s": "Sword", "p": "Pagoda", "t": "Star"}
SPECIAL_NAMES = {"Mahjong": "Mah Jong", "Dog": "Dog", "Phoenix": "Phoenix", "Dragon": "Dragon"}
ALL_CARDS = tuple(sorted_cards([r + s for r in RANK_CHARS for s in SUIT_LETTERS]
                               + list(SPECIAL_NAMES)))
"""The 56 cards in the order a hand is sorted: Dog, Mah Jong, 2 to A (suits within a rank
in the wire's order), Phoenix, Dragon."""
POSITIONS = {0: "south", 1: "east", 2: "north", 3: "west"}
"""Where each seat sits at the drawn table; play goes round 0, 1, 2, 3 counter-clockwise
as drawn, the way a real table is seen from seat 0."""
_BOMBS = ("four_bomb", "straight_flush")
_HAND_SIZE = 14
_FIRST_DEAL = 8

# Symbols on a 24x24 grid; the four suits and the Dog take the card's colour
# (currentColor), the Mah Jong, Phoenix and Dragon are drawn in their own colours.
_SYMBOLS = {
    "suit-j": '<path fill-rule="evenodd" d="M12 2a10 10 0 1 0 0 20a10 10 0 1 0 0-20zm0 6.3a3.7 '
              '3.7 0 1 1 0 7.4a3.7 3.7 0 1 1 0-7.4z"/>',
    "suit-s": '<path d="M12 .5l3.4 4.2v10.4H8.6V4.7z"/><rect x="4.5" y="14.6" width="15" '
              'height="3.2" rx="1.4"/><rect x="10.4" y="17.4" width="3.2" height="3.8"/>'
              '<circle cx="12" cy="21.6" r="2.1"/>',
    "suit-p": '<rect x="11.3" y="1" width="1.4" height="3"/><path d="M5 7.2h14l-3-3.2H8z'
              'M3 13h18l-3.6-3.4H6.6zM1.6 19h20.8l-3.2-3H4.8z"/><rect x="9" y="7" width="6" '
              'height="3"/><rect x="7.4" y="12.8" width="9.2" height="3.4"/><path fill-rule='
              '"evenodd" d="M6 18.8h12V23H6zm4.8 1.2h2.4V23h-2.4z"/>',
    "suit-t": '<path d="M12 1.5l2.9 7.1 7.6.6-5.8 4.9 1.8 7.5L12 17.6l-6.5 4 1.8-7.5-5.8-4.9 '
              '7.6-.6z"/>',
    "sp-mahjong": '<rect x="3.5" y="1.5" width="17" height="21" rx="3" fill="#fffdf5" '
                  'stroke="#0f766e" stroke-width="1.6"/><circle cx="12" cy="12" r="6.2" '
                  'fill="#0f766e"/><circle cx="12" cy="12" r="4.2" fill="#fffdf5"/><circle '
                  'cx="12" cy="12" r="2.6" fill="#dc2626"/>',
    "sp-dog": '<ellipse cx="12" cy="16.2" rx="5.6" ry="4.6"/><ellipse cx="5" cy="10.2" rx="2.3" '
              'ry="2.9" transform="rotate(-20 5 10.2)"/><ellipse cx="9.4" cy="5.4" rx="2.3" '
              'ry="3"/><ellipse cx="14.6" cy="5.4" rx="2.3" ry="3"/><ellipse cx="19" cy="10.2" '
              'rx="2.3" ry="2.9" transform="rotate(20 19 10.2)"/>',
    "sp-phoenix": '<path fill="#ea580c" d="M12 1c1.6 4.2 7 6.6 7 13a7 7 0 0 1-14 0c0-3.2 1.6-5.4 '
                  '3.2-7 0 2.2.9 3.7 2.3 4.4C10.1 7.8 11 4.2 12 1z"/><path fill="#facc15" '
                  'd="M12 10.6c1.1 2.2 3.4 3.2 3.4 6a3.4 3.4 0 0 1-6.8 0c0-1.9 1.6-3.2 3.4-6z"/>',
    "sp-dragon": '<path d="M5 21c-3.5-3.2-.6-7.8 4-7.6 4.4.2 7.4-2.6 5-6.4" fill="none" '
                 'stroke="#facc15" stroke-width="3.2" stroke-linecap="round"/><path '
                 'fill="#facc15" d="M11.2 8.4l3-6.4 7 3.4-2.6 1.4 1.6 2.6-4.4-.6-2 2.4z"/>'
                 '<circle cx="16.6" cy="4.9" r=".9" fill="#7f1d1d"/><path fill="#facc15" '
                 'd="M6.6 13.8l-.6-2.6 2.4 1.6zM10.6 13.4l.4-2.8 1.8 2.2zM14.4 11.4l1.4-2.4.8 '
                 '2.6z"/>',
}


# ----- cards --------------------------------------------------------------------------------

def card_symbols() -> str:
    """The SVG sprite every card's symbol points at: write it once in a page that shows
    cards (it draws nothing itself)."""
    symbols = "".join(f'<symbol id="{k}" viewBox="0 0 24 24">{v}</symbol>'
                      for k, v in _SYMBOLS.items())
    return f'<svg class="sprite" aria-hidden="true" focusable="false">{symbols}</svg>'


def card_name(card: str) -> str:
    """A card as people say it: ``7 of Jade``, ``Mah Jong``."""
    if card in SPECIAL_NAMES:
        return SPECIAL_NAMES[card]
    rank = "10" if card[0] == "T" else card[0]
    return f"{rank} of {SUIT_NAMES.get(card[1:], card[1:])}"


def card_html(card: str) -> str:
    """One card drawn as a card (see the module docstring); any text is escaped, so an
    unknown card shows as its name on a plain face."""
    label = esc(card_name(card))
    if card in SPECIAL_NAMES:
        key = card.lower()
        index = "1" if card == "Mahjong" else ""
        return (f'<span class="card special sp-{key}" data-card="{esc(card)}" role="img" '
                f'aria-label="{label}" title="{label}"><b class="rank">{index}</b>'
                f'<svg class="pip" aria-hidden="true"><use href="#sp-{key}"></use></svg>'
                f'<small class="name">{label}</small></span>')
    suit = card[1:] if card[1:] in SUIT_NAMES else ""
    if len(card) != 2 or not suit or card[0] not in RANK_CHARS:
        return f'<span class="card" data-card="{esc(card)}" title="{label}">{label}</span>'
    rank = "10" if card[0] == "T" else card[0]
    return (f'<span class="card suit-{suit}" data-card="{esc(card)}" role="img" '
            f'aria-label="{label}" title="{label}"><b class="rank">{rank}</b>'
            f'<svg class="pip" aria-hidden="true"><use href="#suit-{suit}"></use></svg>'
            f'<svg class="face" aria-hidden="true"><use href="#suit-{suit}"></use></svg></span>')


def cards_html(cards: Iterable[str], sort: bool = True) -> str:
    """Cards side by side, sorted as a hand unless `sort` is False."""
    shown = _sorted(cards) if sort else list(cards)
    return "".join(card_html(c) for c in shown)


def backs_html(count: int) -> str:
    """`count` cards face down (a hand the viewer may not see)."""
    return '<span class="card back" aria-hidden="true"></span>' * max(0, count)


def _sorted(cards: Iterable[str]) -> list[str]:
    known = [c for c in cards if c in ALL_CARDS]
    return sorted_cards(known) + [c for c in cards if c not in ALL_CARDS]


# ----- the table's data ---------------------------------------------------------------------

@dataclass(frozen=True)
class SeatState:
    """One seat at the table."""

    label: str
    """Who sits there (a bot's name: escaped when written)."""
    hand: tuple[str, ...] | None = None
    """The cards it holds; None when the viewer may not see them (a game in progress)."""
    cards_left: int = 0
    points: int = 0
    """Card points in the tricks it has taken this round."""
    grand_tichu: bool = False
    tichu: bool = False
    place: int | None = None
    """1 for the first seat out this round, None while it still plays."""
    exchange: tuple[tuple[str, ...], tuple[str, ...]] | None = None
    """(given, received) at the exchange, when the viewer may see it."""


@dataclass(frozen=True)
class TrickPlay:
    """One play or pass of the current trick."""

    seat: int
    cards: tuple[str, ...] = ()
    """Empty for a pass."""
    combination: str = ""
    phoenix_as: str | None = None
    out_of_turn: bool = False

    @property
    def is_pass(self) -> bool:
        return not self.cards

    @property
    def is_bomb(self) -> bool:
        return self.combination in _BOMBS


@dataclass(frozen=True)
class TableState:
    """What the table shows at one moment of a game."""

    seats: tuple[SeatState, SeatState, SeatState, SeatState]
    round: int = 0
    trick_number: int = 0
    scores: tuple[int, int] = (0, 0)
    wish: str | None = None
    trick: tuple[TrickPlay, ...] = ()
    trick_end: str = ""
    """How the last trick ended (shown until the next play), else empty."""
    to_move: int | None = None
    """The seat that acted last (highlighted), if any."""
    over: bool = False


def empty_table(labels: Sequence[str] = ("", "", "", "")) -> TableState:
    s0, s1, s2, s3 = (SeatState(label) for label in labels)
    return TableState((s0, s1, s2, s3))


# ----- the table's markup -------------------------------------------------------------------

def table_html(state: TableState) -> str:
    """The four seats around the trick; a seat whose hand is None shows its cards face
    down. The element ids (``table``, ``seat-0`` .. ``seat-3``, ``trick``) are one per
    page."""
    seats = "".join(_seat_html(seat, state.seats[seat], state.to_move == seat)
                    for seat in (2, 3, 1, 0))
    return f'<div class="felt" id="table">{seats}{_trick_html(state)}</div>'


def _hidden(shown: bool) -> str:
    return "" if shown else " hidden"


def _seat_html(seat: int, s: SeatState, moving: bool) -> str:
    hand = cards_html(s.hand) if s.hand is not None else backs_html(s.cards_left)
    count = len(s.hand) if s.hand is not None else s.cards_left
    given, received = s.exchange or ((), ())
    classes = f"seat {POSITIONS[seat]}" + (" to-move" if moving else "") + (
        " hidden-hand" if s.hand is None else "")
    return (f'<section class="{classes}" id="seat-{seat}" data-seat="{seat}">'
            f'<header><span class="seat-no">Seat {seat}</span> <span class="seat-name" '
            f'data-slot="name">{esc(s.label)}</span> <span class="badges">'
            f'<span class="badge grand" data-slot="grand"{_hidden(s.grand_tichu)}>Grand Tichu'
            f'</span><span class="badge tichu" data-slot="tichu"{_hidden(s.tichu)}>Tichu</span>'
            f'<span class="badge out" data-slot="out"{_hidden(s.place is not None)}>out #'
            f'<span data-slot="place">{esc(s.place or "")}</span></span></span></header>'
            f'<div class="hand" data-slot="hand">{hand}</div>'
            f'<div class="seat-stats"><span><b class="count" data-slot="count">{count}</b> '
            f'cards left</span><span><b class="taken" data-slot="taken">{s.points}</b> points '
            f'taken</span></div>'
            f'<div class="exchange" data-slot="exchange"{_hidden(s.exchange is not None)}>'
            f'Exchange: gave <span class="cards" data-slot="given">{cards_html(given, False)}'
            f'</span> got <span class="cards" data-slot="received">'
            f'{cards_html(received, False)}</span></div></section>')


def _trick_html(state: TableState) -> str:
    plays = "".join(play_html(p, k == _top(state.trick)) for k, p in enumerate(state.trick))
    trick = f"trick {state.trick_number}" if state.trick_number else ""
    return (f'<section class="trick" id="trick"><header>'
            f'<span data-slot="round">{f"Round {state.round}" if state.round else ""}</span> '
            f'<span data-slot="trick-number">{trick}</span> '
            f'<span class="scores">score <b data-slot="scores">{state.scores[0]} : '
            f'{state.scores[1]}</b></span> <span class="wish" data-slot="wish"'
            f'{_hidden(state.wish is not None)}>wish: <b data-slot="wish-rank">'
            f'{esc(state.wish or "")}</b></span></header>'
            f'<ol class="plays" data-slot="plays">{plays}</ol>'
            f'<p class="trick-end" data-slot="trick-end"{_hidden(bool(state.trick_end))}>'
            f'{esc(state.trick_end)}</p></section>')


def _top(trick: Sequence[TrickPlay]) -> int:
    """The index of the play to beat (the last that was not a pass), or -1."""
    return max((k for k, p in enumerate(trick) if not p.is_pass), default=-1)


def play_tag(play: TrickPlay) -> str:
    """The words beside a play: its combination, the Phoenix's rank, a bomb."""
    if play.is_pass:
        return "pass"
    words = COMBINATION_WORDS.get(play.combination, play.combination)
    if play.combination == "dog":
        words = "the Dog"
    if play.phoenix_as:
        words += f", Phoenix as {play.phoenix_as}"
    if play.out_of_turn:
        words += ", out of turn"
    return words


def play_html(play: TrickPlay, top: bool = False) -> str:
    """One line of the trick: the seat, its cards (or "pass"), what they make."""
    classes = "pass" if play.is_pass else "play" + (" bomb" if play.is_bomb else "") + (
        " top" if top else "")
    return (f'<li class="{classes}" data-seat="{play.seat}"><span class="who" '
            f'data-slot="who">Seat {play.seat}</span><span class="cards" data-slot="cards">'
            f'{cards_html(play.cards)}</span><span class="tag" data-slot="tag">'
            f'{esc(play_tag(play))}</span></li>')


def viewer_templates() -> str:
    """What the replay viewer clones: every card face (in hand order, which is how the
    viewer sorts), the table, one line of a trick, and the combinations' words, with the
    symbols the cards use."""
    faces = "".join(card_html(c) for c in ALL_CARDS)
    words = "".join(f'<span data-combination="{esc(k)}">{esc(v)}</span>'
                    for k, v in COMBINATION_WORDS.items())
    return (card_symbols()
            + f'<template id="card-faces">{faces}</template>'
            + f'<template id="combination-words">{words}</template>'
            + f'<template id="table-template">{table_html(empty_table())}</template>'
            + f'<template id="play-template">{play_html(TrickPlay(0, ("2j",), "single"))}'
              "</template>")


# ----- what every seat may know -------------------------------------------------------------

@dataclass
class _Public:
    """The fold's running state (mutable; `public_table` returns a frozen `TableState`)."""

    labels: list[str]
    round: int = 0
    scores: tuple[int, int] = (0, 0)
    left: list[int] = field(default_factory=lambda: [0] * 4)
    points: list[int] = field(default_factory=lambda: [0] * 4)
    grand: list[bool] = field(default_factory=lambda: [False] * 4)
    tichu: list[bool] = field(default_factory=lambda: [False] * 4)
    places: list[int | None] = field(default_factory=lambda: [None] * 4)
    decided: int = 0
    trick: list[TrickPlay] = field(default_factory=list)
    tricks: int = 0
    trick_end: str = ""
    gathered: bool = False
    """The last event gathered a trick (its number stays shown until the next play)."""
    wish: str | None = None
    mover: int | None = None
    over: bool = False


def public_table(events: Iterable[Mapping[str, Any]], labels: Sequence[str]) -> TableState:
    """The table as every seat sees it after `events` (a game record's events, in order, each
    with its ``visible_to``): only public events are read, so no seat's hand shows, only
    how many cards each has left. `labels` names the four seats."""
    p = _Public(list(labels))
    for event in events:
        if event.get("visible_to") != PUBLIC:
            continue
        if event["kind"] == "round_start":
            p = _Public(p.labels, round=event["round"], scores=tuple(event["scores"]),
                        left=[_FIRST_DEAL] * 4)
        else:
            _take(p, event)
    seats = [SeatState(p.labels[s], None, p.left[s], p.points[s], p.grand[s], p.tichu[s],
                       p.places[s]) for s in range(4)]
    number = p.tricks + (0 if p.gathered or not p.round else 1)
    return TableState((seats[0], seats[1], seats[2], seats[3]), p.round, number, p.scores,
                      p.wish, tuple(p.trick), p.trick_end, p.mover, p.over)


def _take(p: _Public, e: Mapping[str, Any]) -> None:
    """Fold one public event (not a round's start) into `p`."""
    kind = e["kind"]
    if p.trick_end and kind != "trick":
        p.trick, p.trick_end, p.gathered = [], "", False
    p.mover = e.get("seat")
    if kind == "grand_tichu":
        p.grand[e["seat"]] = bool(e["call"])
        p.decided += 1
        if p.decided == 4:  # then every seat is dealt its last six cards
            p.left = [_HAND_SIZE] * 4
    elif kind == "tichu":
        p.tichu[e["seat"]] = True
    elif kind in ("play", "pass"):
        _play(p, e)
    elif kind in ("wish", "wish_fulfilled"):
        p.wish = e["rank"] if kind == "wish" else None
    elif kind == "out":
        p.places[e["seat"]] = e["place"]
    elif kind in ("trick", "dog"):
        _trick_over(p, e)
    elif kind in ("round_end", "game_end"):
        _ended(p, e)


def _play(p: _Public, e: Mapping[str, Any]) -> None:
    seat = e["seat"]
    if e["kind"] == "pass":
        p.trick.append(TrickPlay(seat))
        return
    cards = tuple(e["cards"])
    p.left[seat] = max(0, p.left[seat] - len(cards))
    p.trick.append(TrickPlay(seat, cards, e["combination"], e.get("phoenix_as"),
                             bool(e.get("out_of_turn"))))


def _trick_over(p: _Public, e: Mapping[str, Any]) -> None:
    """A trick gathered, or the Dog's hand-over (which ends its trick too)."""
    seat = e["seat"]
    if e["kind"] == "dog":
        p.trick_end = f"Seat {seat} leads the Dog: the lead goes to seat {e['to']}."
        return
    taker = e["taker"]
    p.points[taker] += e["points"]
    p.tricks += 1
    p.gathered = True
    p.trick_end = (f"Seat {seat} takes the trick ({e['points']} points)." if taker == seat
                   else f"Seat {seat} wins with the Dragon and gives the trick "
                        f"({e['points']} points) to seat {taker}.")


def _ended(p: _Public, e: Mapping[str, Any]) -> None:
    """A round's end, or the game's: the scores, said where the last trick's end was."""
    p.scores = tuple(e["scores"])
    p.over = e["kind"] == "game_end"
    score = f"{p.scores[0]} : {p.scores[1]}"
    if not p.over:
        p.trick_end = f"Round {p.round} ends: the score is {score}."
        return
    winner = e.get("winner")
    won = f"; {p.labels[winner]} wins" if winner in (0, 1) else ""
    p.trick_end = f"The game is over: {score}{won}."
