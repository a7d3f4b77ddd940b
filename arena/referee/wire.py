"""Engine <-> wire conversion: pure functions between `arena.rules` values and protocol maps.

The referee and the in-process harness (`arena.referee.inprocess`) build every message a bot receives
here, and turn every reply back into an engine `Action`. Maps are the plain dicts of
protocol/PROTOCOL.md (card sets as ascending lists of card names, ranks as one character,
None for "none"); pass them through `protocol.codec.encode` to put them on the wire.
The rules engine itself never imports zmq or msgpack.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any, cast

from arena.rules import (
    PASS,
    PUBLIC,
    Action,
    CallTichu,
    Combination,
    ComboType,
    Decision,
    DecisionKind,
    Event,
    Exchange,
    GiveDragon,
    GrandTichu,
    IllegalAction,
    Observation,
    Pass,
    Play,
)
from arena.rules.actions import PlayOptions
from arena.rules.cards import RANK_CHARS, card_name, card_names, parse_card
from arena.rules.events import DATA_KEYS
from protocol.schema import COMBINATIONS, INT32, KIND_ACTIONS

Message = dict[str, Any]
# Members read once: reading one off its Enum class is a Python-level call in Python 3.11.
_EXCHANGE, _GRAND_TICHU = DecisionKind.EXCHANGE, DecisionKind.GRAND_TICHU
_PLAY, _BOMB = DecisionKind.PLAY, DecisionKind.BOMB

# ----- values -------------------------------------------------------------------------------


def cards_text(cards: int) -> list[str]:
    """A card set as its wire list: card names ascending by card id."""
    return card_names(cards)


def cards_mask(names: Iterable[str]) -> int:
    """The card set of a wire list of card names (already validated by the codec)."""
    mask = 0
    for name in names:
        mask |= 1 << parse_card(name)
    return mask


def rank_text(rank: int) -> str | None:
    """A rank 2..14 as its wire character "2".."A"; 0 (none) as None."""
    return RANK_CHARS[rank - 2] if rank else None


def rank_value(text: str | None) -> int:
    """A wire rank character as 2..14; None as 0."""
    return RANK_CHARS.index(text) + 2 if text is not None else 0


def combination_name(combo: Combination) -> str:
    """The wire name of a combination's type, e.g. "full_house"."""
    return _COMBINATION_NAMES[combo.type]


_COMBINATION_NAMES = {t: COMBINATIONS[t] for t in ComboType}


# ----- events -------------------------------------------------------------------------------


def event_map(event: Event) -> Message:
    """The wire map of one engine event."""
    data = event.data
    return entry_map((event.kind, event.seat, event.visible_to,
                      *[data[key] for key in DATA_KEYS.get(event.kind, ())]))


def entry_map(entry: tuple[Any, ...]) -> Message:
    """The wire map of one event as the engine logs it (`Game.log`: kind, seat, visible_to,
    then the values of its data in `DATA_KEYS` order), no `Event` built: the referee's feed
    converts every event of a game so."""
    kind = entry[0]
    seat = entry[1]
    out: Message = {"kind": kind}
    if seat >= 0:
        out["seat"] = seat
    # the common kinds first: passes, plays and tricks are nine events in ten
    if kind == "pass":
        return out
    if kind == "play":
        combo = entry[4]
        out.update(cards=cards_text(entry[3]), combination=combination_name(combo),
                   phoenix_as=rank_text(combo.phoenix_as), out_of_turn=entry[5])
    elif kind == "trick":
        out.update(taker=entry[3], cards=cards_text(entry[4]), points=entry[5])
    elif kind == "round_start":
        out.update(round=entry[3], scores=list(entry[4]))
    elif kind == "deal":
        out["cards"] = cards_text(entry[3])
    elif kind == "grand_tichu":
        out["call"] = entry[3]
    elif kind == "exchange":
        out.update(given=[card_name(c) for c in entry[4]], received=_received(seat, entry[3]))
    elif kind in ("wish", "wish_fulfilled"):
        out["rank"] = rank_text(entry[3])
    elif kind == "dog":
        out["to"] = entry[3]
    elif kind == "out":
        out["place"] = entry[3]
    elif kind == "round_end":
        out.update(card_points=list(entry[3]), calls=list(entry[4]), double_victory=entry[5],
                   out_order=list(entry[6]), scores=list(entry[7]))
    elif kind == "game_end":
        out.update(scores=list(entry[3]), winner=entry[4])
    return out


def _received(seat: int, by_giver: Sequence[int]) -> list[str]:
    """Cards received, from seat+1, seat+2, seat+3 in that order (the order of `give`)."""
    return [card_name(by_giver[(seat + k) % 4]) for k in (1, 2, 3)]


def visible(seat: int, event: Event) -> bool:
    """Whether `seat` may see `event`."""
    return event.visible_to == PUBLIC or event.visible_to == seat


def events_for(seat: int, events: Iterable[Event]) -> list[Message]:
    """The wire maps of the events `seat` may see, in order."""
    return [event_map(e) for e in events if visible(seat, e)]


# ----- observation and options --------------------------------------------------------------


def observation_map(obs: Observation) -> Message:
    """The wire map of a seat's observation (its own cards and the public state)."""
    exchange = None
    if obs.exchange_given:
        exchange = {"given": [card_name(c) for c in obs.exchange_given],
                    "received": [card_name(c) for c in obs.exchange_received]}
    table = None
    if obs.table is not None:
        table = {"seat": obs.table_seat, "cards": cards_text(obs.table.cards),
                 "combination": combination_name(obs.table),
                 "phoenix_as": rank_text(obs.table.phoenix_as)}
    return {
        "seat": obs.seat, "round": obs.round_number, "hand": cards_text(obs.hand),
        "hand_counts": list(obs.hand_counts), "grand_tichu": list(obs.grand_tichu),
        "tichu": list(obs.tichu), "out_order": list(obs.out_order), "wish": rank_text(obs.wish),
        "table": table, "trick": cards_text(obs.trick), "trick_points": obs.trick_points,
        "played": cards_text(obs.played), "points_taken": list(obs.points_taken),
        "exchange": exchange, "scores": list(obs.scores), "target": obs.target,
    }


def option_maps(decision: Decision) -> list[Message] | None:
    """The wire options of a decision, indexable by a reply; None for EXCHANGE (stated)."""
    kind = decision.kind
    if kind is DecisionKind.EXCHANGE:
        return None
    # (each kind's options are of its one action type; PLAY and BOMB's a PlayOptions)
    if kind is DecisionKind.GRAND_TICHU:
        return [{"action": "grand_tichu", "call": o.call}
                for o in cast("Sequence[GrandTichu]", decision.options)]
    if kind is DecisionKind.TICHU:
        return [{"action": "tichu", "call": o.call}
                for o in cast("Sequence[CallTichu]", decision.options)]
    if kind is DecisionKind.DRAGON_GIFT:
        return [{"action": "give_dragon", "to": o.to}
                for o in cast("Sequence[GiveDragon]", decision.options)]
    options = cast(PlayOptions, ordered_options(decision))
    out: list[Message] = [PASS_OPTION] if options.can_pass else []
    out += [play_map(c) for c in options.combinations]
    return out


def ordered_options(decision: Decision) -> Sequence[Action]:
    """A decision's options in the order the wire lists them (PROTOCOL.md 6), which is the
    order a reply's `option` index counts in.

    For PLAY and BOMB: pass first where allowed, then the plays by combination type (dog,
    single, pair, stairs, triple, full house, straight, four of a kind, straight flush: the
    order of `ComboType`), then rank (the comparison key: top card of stairs and straights,
    the triple of a full house, x.5 for a Phoenix single), then number of cards, then the
    card set as the number sum(2**id) (the highest card id decides first), then the rank the
    Phoenix stands for. That is `Combination`'s own field order, so a plain sort gives it
    (tests/referee/test_option_order.py holds it). Other kinds keep the engine's order:
    no call before call, the next opponent before the other. Cached: a request and its
    reply look the same decision up.
    """
    options = decision.options
    if type(options) is not PlayOptions and not isinstance(options, PlayOptions):
        return options
    return PlayOptions(play_order(options), options.can_pass)


def play_order(options: PlayOptions) -> list[Combination]:
    """The combinations of PLAY or BOMB options in wire order (`ordered_options`): a plain
    sort of the engine's, compared in C. Cached for the last few decisions (a request and
    its reply), by the id of the engine's options: hashing a Decision would hash its kind,
    an Enum member, through a Python-level call."""
    cached = _ORDERED.get(id(options))
    if cached is not None and cached[0] is options:
        return cached[1]
    ordered = sorted(options.combinations)
    if len(_ORDERED) >= 8:
        _ORDERED.clear()
    _ORDERED[id(options)] = (options, ordered)  # holding `options`: its id stays its own
    return ordered


_ORDERED: dict[int, tuple[PlayOptions, list[Combination]]] = {}


PASS_OPTION: Message = {"action": "pass"}  # the wire option of a pass (callers only read it)


# Cached plays and card sets (here and in `packing`): a few games' worth. Within a hand the
# same ones recur in every request; across games few do (random deals), so a larger cache
# only grows: at 1 << 16 plays a long match's referee kept ~300 KB more per game for some
# 200 games.
WORKING_SET = 1 << 12


@lru_cache(maxsize=WORKING_SET)
def play_map(combo: Combination) -> Message:
    """The wire option of one combination (cached: the same combinations recur all game;
    callers only read the map)."""
    return {"action": "play", "cards": cards_text(combo.cards),
            "phoenix_as": rank_text(combo.phoenix_as), "combination": combination_name(combo)}


# ----- messages -----------------------------------------------------------------------------


def request_message(decision: Decision, obs: Observation, events: list[Message],
                    request_id: int, deadline_ms: int, with_options: bool = True) -> Message:
    """The request for `decision`, carrying `events` (the seat's events not yet sent)."""
    return {
        "type": "request", "id": request_id, "kind": decision.kind.value,
        "deadline_ms": deadline_ms, "may_call_tichu": decision.may_call_tichu,
        "must_fulfil_wish": decision.must_fulfil_wish, "observation": observation_map(obs),
        "options": option_maps(decision) if with_options else None, "events": events,
    }


def welcome_message(seat: int, game_id: str, target: int, names: Sequence[str],
                    hello_ms: int, decision_ms: int, max_message_bytes: int,
                    with_options: bool, seed: int | None = None,
                    bank_ms: int | None = None) -> Message:
    """The referee's answer to an accepted hello; `seed` (the seat's `seat_seed`) only for a
    bot that asked for the `seed` capability, `bank_ms` (`limits.bank_ms`: the seat's time
    bank for the game, `bank_limit_ms`) only for one that asked for `bank`. Without either,
    the bytes are those of a welcome before the capabilities existed."""
    limits = {"hello_ms": hello_ms, "decision_ms": decision_ms,
              "max_message_bytes": max_message_bytes}
    if bank_ms is not None:
        limits["bank_ms"] = bank_ms
    message = {"type": "welcome", "protocol": 1, "seat": seat, "options": with_options,
               "settings": {"game": game_id, "target": target, "names": list(names)},
               "limits": limits}
    if seed is not None:
        message["seed"] = seed
    return message


def bank_limit_ms(bank_s: float) -> int:
    """A time bank of `bank_s` seconds as `limits.bank_ms` announces it: whole milliseconds,
    rounded down (a bot that spends what it was told never overspends), at most 2**31-1 (the
    wire's bound, some 24 days: a larger bank is announced as that, which no game reaches)."""
    if bank_s >= INT32 / 1000:
        return INT32
    return max(0, int(bank_s * 1000))


def seat_seed(game_seed: int, game_id: str, seat: int) -> int:
    """A seat's seed for its bot's own randomness in one game (`welcome.seed`), 0..2**31-1.

    The same game seed, game id and seat give the same seed, so a game of deterministic
    bots replays exactly. It is an HMAC-SHA-256 under a label of its own, which no deal uses:
    it tells a bot nothing about the deal (the deal comes from the game seed, which a seat
    seed does not reveal) and nothing about the other seats' seeds.
    """
    digest = hmac.new(b"tichu-arena/seat-seed", f"{game_seed}/{game_id}/{seat}".encode(),
                      hashlib.sha256).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def end_message(scores: Sequence[int] | None, winner: int | None, events: list[Message],
                reason: str = "game_over", more_games: bool = False) -> Message:
    """The message that ends a game: the final events and the result (None if aborted).

    `more_games`: another game follows in this session (only for a bot that said
    `multi_game` at hello); its `welcome` comes next.
    """
    return {"type": "end", "reason": reason, "scores": list(scores) if scores else None,
            "winner": winner, "events": events, "more_games": more_games}


def error_message(code: str, message: str, rule: str | None = None,
                  request_id: int | None = None) -> Message:
    """The message that tells a bot why it is being stopped."""
    return {"type": "error", "code": code, "message": message[:1000], "rule": rule,
            "id": request_id}


# ----- replies ------------------------------------------------------------------------------


def action_from_reply(reply: Message, decision: Decision, options_sent: bool = True) -> Action:
    """The engine action a validated reply states for `decision`.

    Raises IllegalAction (rule "option-out-of-range", "no-options", "wrong-decision",
    "tichu-not-allowed" or "wish-not-allowed") when the reply cannot be an action for this
    decision; whether the action is legal is then for `Game.apply` to check.
    """
    chosen = None
    option = reply["option"]
    options = decision.options
    if (type(options) is PlayOptions and option is not None and options_sent
            and not reply["call_tichu"] and reply["wish"] is None
            and (decision.kind is _PLAY or decision.kind is _BOMB)):
        # the common reply: an option of a PLAY or BOMB (a pass or a play, both of which it
        # takes), free flags unset: nothing else to check
        return _play_option(option, options)
    if option is not None:
        chosen = _chosen_option(option, decision, options_sent)
        tag = _tag_of(chosen, decision.kind)
    else:
        tag = reply["action"]["action"]
    # keyed by the kind's wire name, its `_value_`: hashing an Enum member is a Python-level
    # call, and the reply of every decision looks its kind up
    actions = KIND_ACTIONS[decision.kind._value_]
    if tag not in actions:
        allowed = " or ".join(actions)
        raise IllegalAction("wrong-decision", f"a {decision.kind.value} request takes "
                            f"a {allowed} action, not {tag}")
    call, wish = reply["call_tichu"], reply["wish"]
    if call and not decision.may_call_tichu:
        raise IllegalAction("tichu-not-allowed", "this request does not offer a Tichu call "
                            "(may_call_tichu is false)")
    if wish is not None and tag != "play":
        raise IllegalAction("wish-not-allowed", "only a play holding the Mah Jong may wish")
    if chosen is None:
        return _action(reply["action"], call, wish)
    if isinstance(chosen, Play):  # an option has its free flags unset
        return chosen if wish is None and not call else \
            Play(chosen.cards, chosen.phoenix_as, rank_value(wish), call)
    if isinstance(chosen, Pass):
        return chosen if not call else Pass(True)  # the engine's own PASS when it can be
    return chosen


def _chosen_option(index: int, decision: Decision, options_sent: bool) -> Action:
    """Option `index` of the request's list: for a PLAY or BOMB, taken from the engine's own
    options (`Game.apply` then applies it without checking it again)."""
    if not options_sent or decision.kind is _EXCHANGE:
        raise IllegalAction("no-options", "no options were sent with this request: state the "
                            "action explicitly")
    options = decision.options
    if type(options) is not PlayOptions and not isinstance(options, PlayOptions):
        if index >= len(options):
            raise _out_of_range(index, len(options))
        return options[index]
    return _play_option(index, options)


def _play_option(index: int, options: PlayOptions) -> Action:
    """Option `index` of a PLAY or BOMB request's list: the engine's own option."""
    can_pass = options.can_pass
    if can_pass and not index:
        return PASS  # (the engine's options[0] where a pass is allowed)
    ordered = play_order(options)
    if index >= len(ordered) + can_pass:
        raise _out_of_range(index, len(ordered) + can_pass)
    # the engine's index of that very combination: `index` compares by identity first
    return options[options.combinations.index(ordered[index - can_pass]) + can_pass]


def _out_of_range(index: int, offered: int) -> IllegalAction:
    return IllegalAction("option-out-of-range", f"option {index} does not exist ({offered} "
                         "options were offered)")


def _tag_of(action: Action, kind: DecisionKind) -> str:
    if isinstance(action, Play):
        return "play"
    if isinstance(action, Pass):
        return "pass"
    if isinstance(action, GiveDragon):
        return "give_dragon"
    return "grand_tichu" if kind is _GRAND_TICHU else "tichu"


def _action(m: Message, call: bool, wish: str | None) -> Action:
    tag = m["action"]
    if tag == "play":
        return Play(cards_mask(m["cards"]), rank_value(m["phoenix_as"]), rank_value(wish), call)
    if tag == "pass":
        return Pass(call)
    if tag == "exchange":
        give = tuple(parse_card(c) for c in m["give"])  # (three: the schema checked)
        return Exchange(cast("tuple[int, int, int]", give), call)
    if tag == "grand_tichu":
        return GrandTichu(m["call"])
    if tag == "tichu":
        return CallTichu(m["call"])
    return GiveDragon(m["to"])


def action_map(action: Action) -> Message:
    """The explicit wire form of an engine action, without its free flags (call, wish)."""
    if isinstance(action, Play):
        return {"action": "play", "cards": cards_text(action.cards),
                "phoenix_as": rank_text(action.phoenix_as)}
    if isinstance(action, Pass):
        return {"action": "pass"}
    if isinstance(action, Exchange):
        return {"action": "exchange", "give": [card_name(c) for c in action.give]}
    if isinstance(action, GrandTichu):
        return {"action": "grand_tichu", "call": action.call}
    if isinstance(action, CallTichu):
        return {"action": "tichu", "call": action.call}
    return {"action": "give_dragon", "to": action.to}
