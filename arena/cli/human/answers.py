"""What a person types at a decision, turned into a protocol reply, or refused with the
reason.

An answer is an option's number (from 1, as `arena.presentation.seat_view` lists them), or
cards typed by name, or a word: ``pass`` (``p``), ``y``/``n`` at a Grand Tichu or Tichu
decision; the word ``tichu`` with a play, pass, bomb or exchange calls Tichu with it, where
the request allows. Cards are named as on the wire (``9s``, ``Tj``, ``Phoenix``) with some
slack: any case, ``10`` for ``T``, and the specials by their first letters (``mj`` or
``ma``, ``do``, ``ph``, ``dr``); ``ph=9`` is the Phoenix standing for a 9, where the cards
typed can be played in more than one way (else the person is shown those ways to choose). Typed cards are looked up among the request's options (the
referee's list of legal actions is the authority); cards that match none are explained with
the rule they break, checked as the rules engine checks them (`arena.rules`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arena.presentation.seat_view import a_rank
from arena.rules import ComboType, IllegalAction
from arena.rules.cards import RANK_CHARS, parse_card, parse_cards, rank_mask
from arena.rules.combos import Combination, beats, classify

Message = dict[str, Any]

COMMANDS = {"?": "help", "help": "help", "show": "show", "quit": "quit", "skip": "skip"}
"""Words that are not answers: show the help, show the table again, leave the game, and
(in a bomb window) decline every window until the trick ends."""
_SPECIALS = {"mahjong": "Mahjong", "mj": "Mahjong", "dog": "Dog", "phoenix": "Phoenix",
             "ph": "Phoenix", "dragon": "Dragon", "dr": "Dragon"}
_CARD = re.compile(r"(10|[2-9tjqka])([jspt])", re.IGNORECASE)
_YES, _NO = ("y", "yes", "call"), ("n", "no")


class Refused(Exception):
    """An answer that is not allowed, or not understood; its message says why."""


@dataclass(frozen=True)
class Command:
    """A word that is not an answer (`COMMANDS`)."""

    name: str


@dataclass(frozen=True)
class Ambiguous:
    """Typed cards that several options play (the Phoenix standing for different ranks):
    the numbers (from 1) of those options."""

    numbers: tuple[int, ...]


@dataclass(frozen=True)
class Answer:
    """A reply for the SDK: an option's index (from 0) or an action map, and the free flags.
    `wants_wish`: the play holds the Mah Jong, so a wish is to be asked before replying."""

    option: int | None = None
    action: Message | None = None
    call_tichu: bool = False
    wants_wish: bool = False

    def reply(self, wish: str | None = None) -> Message:
        return {"option": self.option, "action": self.action, "call_tichu": self.call_tichu,
                "wish": wish}


def interpret(text: str, request: Message, trick: Sequence[Message] = ()
              ) -> Answer | Command | Ambiguous:
    """The answer `text` gives to `request` (`trick`: the events of the trick being played,
    to tell what a Phoenix on the table stands for); Refused, with the reason, if it is not
    allowed or not understood."""
    words = text.replace(",", " ").split()
    if len(words) == 1 and words[0].lower() in COMMANDS:
        return Command(COMMANDS[words[0].lower()])
    call_tichu = _tichu_word(words, request)
    kind = request["kind"]
    if kind in ("grand_tichu", "tichu"):
        return _call_decision(words, request, call_tichu)
    if kind == "exchange":
        return Answer(action={"action": "exchange", "give": _exchange(words, request)},
                      call_tichu=call_tichu)
    if not words:
        if kind == "bomb":
            return Answer(option=0)  # Enter declines the window
        raise Refused("type the number of an option, or the cards to play")
    if len(words) == 1 and words[0].isdigit():
        return _numbered(int(words[0]), request, call_tichu)
    if kind == "dragon_gift":
        raise Refused("type 1 or 2: the number of the seat's option")
    if len(words) == 1 and words[0].lower() in ("p", "pass"):
        return _pass(request, call_tichu)
    return _cards(words, request, trick, call_tichu)


def _tichu_word(words: list[str], request: Message) -> bool:
    """Whether the answer calls Tichu (the word is then taken out of `words`)."""
    if request["kind"] == "tichu" or "tichu" not in (w.lower() for w in words):
        return False
    words[:] = [w for w in words if w.lower() != "tichu"]
    if not request["may_call_tichu"]:
        raise Refused("you may not call Tichu now: only before you play your first card, "
                      "and only once per round (a Grand Tichu counts)")
    return True


def _call_decision(words: list[str], request: Message, call_tichu: bool) -> Answer:
    word = " ".join(words).lower()
    if word in ("", *_NO):
        return Answer(option=0)
    if word in _YES or (request["kind"] == "tichu" and word == "tichu"):
        return Answer(option=1)
    if word.isdigit():
        return _numbered(int(word), request, call_tichu)
    raise Refused("answer y (call) or n (no call), or 1 or 2; Enter: no call")


def _numbered(number: int, request: Message, call_tichu: bool) -> Answer:
    options = request["options"] or []
    if not 1 <= number <= len(options):
        raise Refused(f"there is no option {number}: choose 1 to {len(options)}")
    option = options[number - 1]
    if call_tichu and option["action"] in ("grand_tichu", "tichu"):
        raise Refused("the word tichu goes with a play, a pass or the exchange")
    return Answer(option=number - 1, call_tichu=call_tichu,
                  wants_wish="Mahjong" in option.get("cards", ()))


def _pass(request: Message, call_tichu: bool) -> Answer:
    options = request["options"]
    if options and options[0]["action"] == "pass":
        return Answer(option=0, call_tichu=call_tichu)
    wish = request["observation"]["wish"]
    if request["must_fulfil_wish"]:
        raise Refused(f"you may not pass: the wish for {a_rank(wish)} is in force and you "
                      f"can play {a_rank(wish)}, so you must")
    raise Refused("you may not pass: you lead this trick, so you must play")


# ----- cards --------------------------------------------------------------------------------

def card_of(word: str) -> str:
    """The card a typed word names (see the module docstring); Refused if none."""
    special = _SPECIALS.get(word.lower())
    if special is None and len(word) >= 2:
        special = next((name for name in ("Mahjong", "Dog", "Phoenix", "Dragon")
                        if name.lower().startswith(word.lower())), None)
    if special is not None:
        return special
    match = _CARD.fullmatch(word)
    if match is None:
        raise Refused(f"{word!r} is not a card: a card is its rank (2-9, T or 10, J, Q, K, A) "
                      "and suit (j, s, p, t), like 9s or Tj, or Mahjong, Dog, Phoenix, Dragon")
    rank = "T" if match[1] == "10" else match[1].upper()
    return rank + match[2].lower()


def typed_cards(words: Sequence[str]) -> list[str]:
    cards = [card_of(w) for w in words]
    twice = sorted({c for c in cards if cards.count(c) > 1})
    if twice:
        raise Refused(f"{' '.join(twice)} typed twice")
    return cards


def _not_held(cards: Sequence[str], request: Message) -> None:
    missing = [c for c in cards if c not in request["observation"]["hand"]]
    if missing:
        raise Refused(f"you do not hold {' '.join(missing)}")


def _exchange(words: list[str], request: Message) -> list[str]:
    cards = typed_cards(words)
    seat = request["observation"]["seat"]
    if len(cards) != 3:
        raise Refused(f"give exactly three cards, in this order: to seat {(seat + 1) % 4}, to "
                      f"your partner (seat {(seat + 2) % 4}), to seat {(seat + 3) % 4}")
    _not_held(cards, request)
    return cards


def _cards(words: list[str], request: Message, trick: Sequence[Message],
           call_tichu: bool) -> Answer | Ambiguous:
    phoenix_as = _phoenix_rank(words)
    cards = typed_cards(words)
    wanted = set(cards)
    matches = [i for i, option in enumerate(request["options"] or [], 1)
               if option["action"] == "play" and set(option["cards"]) == wanted
               and phoenix_as in (None, option["phoenix_as"])]
    if len(matches) > 1:
        return Ambiguous(tuple(matches))
    if matches:
        return _numbered(matches[0], request, call_tichu)
    _not_held(cards, request)
    if phoenix_as is not None and any(set(o.get("cards", ())) == wanted
                                      for o in request["options"]):
        raise Refused(f"the Phoenix cannot stand for {phoenix_as} in these cards")
    raise Refused(why_not(cards, request, trick))


def _phoenix_rank(words: list[str]) -> str | None:
    """The rank a word ``Phoenix=5`` (``ph=5``) gives the Phoenix, if one does (the word
    is then left as the card alone)."""
    rank = None
    for i, word in enumerate(words):
        if "=" not in word:
            continue
        card, _, typed = word.partition("=")
        if card_of(card) != "Phoenix":
            raise Refused(f"{word!r}: only the Phoenix stands for a rank (Phoenix=5)")
        rank = rank_of(typed)
        if rank is None:
            raise Refused(f"{typed!r} is not a rank: 2-9, T or 10, J, Q, K, A")
        words[i] = card
    return rank


def rank_of(text: str) -> str | None:
    """The rank typed (2-9, T or 10, J, Q, K, A, any case), None if it is none."""
    rank = "T" if text == "10" else text.upper()
    return rank if len(rank) == 1 and rank in RANK_CHARS else None


def why_not(cards: Sequence[str], request: Message, trick: Sequence[Message] = ()) -> str:
    """Why playing `cards` (held) is not among the legal options now: the rule broken, in
    the order the rules engine checks them."""
    table = _table(request["observation"]["table"], trick)
    mask = parse_cards(cards)
    combos = _combinations(mask, table)
    if isinstance(combos, str):
        return combos
    if request["kind"] == "bomb" and not any(c.is_bomb for c in combos):
        return "out of turn only a bomb may be played (four of a kind, or a straight flush)"
    if table is not None:
        if any(c.type is ComboType.DOG for c in combos):
            return "the Dog may only be led, on an empty table"
        if not any(beats(c, table) for c in combos):
            shown = request["observation"]["table"]
            return (f"it does not beat {' '.join(shown['cards'])} ({_words(shown)}): play the "
                    "same combination with as many cards and higher, or a bomb")
    wish = request["observation"]["wish"]
    if request["must_fulfil_wish"] and not mask & rank_mask(RANK_CHARS.index(wish) + 2):
        return (f"the wish for {a_rank(wish)} is in force and you can fulfil it: your play "
                f"must hold {a_rank(wish)}")
    return "it is not a legal play now"


def _words(table: Message) -> str:
    return table["combination"].replace("_", " ")


def _combinations(mask: int, table: Combination | None) -> list[Combination] | str:
    """The combinations `mask` can form (the Phoenix standing for any rank), or why none."""
    if mask.bit_count() < 2 or not mask & (1 << parse_card("Phoenix")):
        try:
            return [classify(mask, 0, table)]
        except IllegalAction as exc:
            return exc.message
    found = []
    for rank in range(2, 15):
        try:
            found.append(classify(mask, rank, table))
        except IllegalAction:
            continue
    return found or "these cards form no combination, whatever the Phoenix stands for"


def _table(table: Message | None, trick: Sequence[Message]) -> Combination | None:
    """The combination on the table, as the rules engine compares it (a Phoenix single
    stands half a rank above the single it was played on, found in `trick`)."""
    if table is None:
        return None
    phoenix_as = RANK_CHARS.index(table["phoenix_as"]) + 2 if table["phoenix_as"] else 0
    below = None
    if table["cards"] == ["Phoenix"]:
        plays = [e for e in trick if e["kind"] == "play"]
        if len(plays) >= 2:
            below = classify(parse_cards(plays[-2]["cards"]), 0, None)
    return classify(parse_cards(table["cards"]), phoenix_as, below)
