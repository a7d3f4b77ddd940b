"""One seat's messages in a recorded game, rebuilt: what `arena reproduce` replays to a bot.

The referee sends a seat its welcome, then one request per decision of its own, each with
the events the seat may see since its last request, then an end. `seat_stream` rebuilds that
sequence from a game record with the referee's own code: the engine replays the seed and the
recorded actions (as `record.resimulate` does), `packing.EventFeed` hands the seat its
events, and `packing.request_bytes` packs each request as `match._GameRun._ask` does, with
the request id, deadline and options the referee gave. Each request carries the reply the
record holds for it and the time the seat had for it.

A stream is built for a bot that said every capability (options, `seed`, `bank`); `fitted`
shapes it for the capabilities of a bot's hello, as the referee would have. Passes made for
an `auto_pass` seat are left out as the referee left them out. A stream holds only what the
seat was sent: its own cards, seed and private events, and the public events; never the
game's seed, which would deal every hand.

The deadlines come from the record's time control and its latencies, rounded to the
microsecond: when a seat's bank was nearly spent, a deadline may differ by a millisecond.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from arena.errors import ArenaError
from arena.referee import packing, wire
from arena.referee.match import TimeControl
from arena.referee.record import GameRecord, Termination
from arena.rules import Game, IllegalAction
from protocol import codec, schema

Message = dict[str, Any]
_IN_PLAY = (Termination.TIMEOUT, Termination.CRASH, Termination.ILLEGAL_ACTION,
            Termination.PROTOCOL_VIOLATION, Termination.LEFT, Termination.HARNESS_FAULT,
            Termination.INTERRUPTED)
"""The endings that may come once the seats are welcomed (a start or hello failure comes
before any welcome)."""


@dataclass(frozen=True)
class SeatMessage:
    """One message the referee sent the seat, and for a request what came of it."""

    message: Message
    """The message as the referee sent it (its wire map)."""
    decision: int | None = None
    """For a request: its number among the game's decisions (0 first), as faults count."""
    reply: Message | None = None
    """For a request: the recorded answer (action, call_tichu, wish, latency_ms); None for
    the failing request, which got no valid answer."""
    allowed_ms: int | None = None
    """For a request: the milliseconds the seat had to answer, grace included within its
    bank (past them, the referee judged a timeout)."""


@dataclass(frozen=True)
class SeatStream:
    """What one seat of a recorded game was sent, and how the game ended for it."""

    game_id: str
    seat: int
    name: str
    """The seat's bot."""
    time_control: dict[str, float]
    """The game's time control in seconds: hello, decision, bank, grace."""
    termination: str
    """How the game ended (a `Termination` value)."""
    fault: dict[str, Any] | None
    """This seat's own fault (kind, seat, message, round, decision, details), if it had one."""
    failing: int | None
    """The decision this seat failed at (its last request, unanswered), if it failed at one."""
    messages: tuple[SeatMessage, ...]
    output: str = ""
    """The seat's recorded stderr (its tail)."""

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SeatStream:
        """A stream from its JSON (`to_json`); ArenaError if it is not one."""
        try:
            fields = dict(data)
            fields["messages"] = tuple(SeatMessage(**m) for m in data["messages"])
            return cls(**fields)
        except (TypeError, KeyError) as exc:
            raise ArenaError(f"not a seat's messages: {exc}") from None

    def fitted(self, capabilities: list[str]) -> list[Message]:
        """The messages as the referee sends them to a bot whose hello said `capabilities`."""
        return [fitted(m.message, capabilities) for m in self.messages]


def fitted(message: Message, capabilities: list[str]) -> Message:
    """A message of a stream (built for every capability) as sent to a bot whose hello said
    `capabilities`: no options with `no_options`, no seed without `seed`, no bank without
    `bank` (each key keeps its place, so the bytes are the referee's)."""
    out = dict(message)
    with_options = "no_options" not in capabilities
    if out["type"] == "welcome":
        out["options"] = with_options
        if "seed" not in capabilities:
            out.pop("seed", None)
        if "bank" not in capabilities:
            out["limits"] = {k: v for k, v in out["limits"].items() if k != "bank_ms"}
    elif out["type"] == "request" and not with_options:
        out["options"] = None
    return out


def seat_stream(record: GameRecord, seat: int, default: TimeControl | None = None
                ) -> SeatStream:
    """The messages `seat` was sent in the game of `record`, rebuilt (see the module
    docstring); ArenaError if the record's actions do not replay. `default`: the time
    control of a record older than its `time_control` (else the referee's default)."""
    control = TimeControl(**record.time_control) if record.time_control else \
        default or TimeControl()
    fault = seat_fault(record, seat)
    messages: list[SeatMessage] = []
    failing = None
    if record.fault is None or record.fault.kind in _IN_PLAY:  # else no seat was welcomed
        messages.append(SeatMessage(_welcome(record, seat, control)))
        game, feed, requests = _requests(record, seat, control)
        messages += requests
        last = _last_message(record, seat, fault, game, feed, control, requests)
        if last is not None:
            messages.append(last)
            failing = last.decision
    return SeatStream(record.game_id, seat, record.seat_name(seat),
                      dataclasses.asdict(control), record.termination.value, fault, failing,
                      tuple(messages), record.bot_output[seat])


def seat_fault(record: GameRecord, seat: int) -> dict[str, Any] | None:
    """The fault `seat` was charged with in `record` (alone, or with a seat of the other
    team), as a JSON map; None if it had none."""
    fault = record.fault
    if fault is None or not record.termination.is_bot_fault:
        return None
    base = {"seat": seat, "round": fault.round, "decision": fault.decision}
    if fault.seat == seat:
        return {"kind": fault.kind.value, "message": fault.message, **base,
                "details": fault.details}
    both = fault.details.get("faults", []) if fault.seat is None else []  # both teams failed
    for each in both:
        if isinstance(each, dict) and each.get("seat") == seat:
            details = {k: v for k, v in each.items() if k not in ("seat", "kind", "message")}
            return {"kind": each["kind"], "message": each.get("message", ""), **base,
                    "details": details}
    return None


def failed_seats(record: GameRecord) -> list[int]:
    """The seats charged with a fault in `record`."""
    return [seat for seat in range(4) if seat_fault(record, seat) is not None]


def _welcome(record: GameRecord, seat: int, control: TimeControl) -> Message:
    names = [record.seat_name(s) for s in range(4)]
    return wire.welcome_message(
        seat, record.game_id, record.target, names, _ms(control.hello), _ms(control.decision),
        codec.MAX_MESSAGE_BYTES, True, wire.seat_seed(record.seed, record.game_id, seat),
        wire.bank_limit_ms(control.bank))


def _requests(record: GameRecord, seat: int, control: TimeControl
              ) -> tuple[Game, packing.EventFeed, list[SeatMessage]]:
    """Replay the record; the game at its end, its event feed, and the seat's requests."""
    game = Game(record.seed, record.target)
    feed = packing.EventFeed(game)
    used = 0.0
    out = []
    for i, d in enumerate(record.decisions):
        decision = game.decision(d["seat"])
        if d["seat"] == seat and not d.get("auto"):
            message, allowed = _request(game, feed, seat, d["id"], control, used)
            reply = {k: d[k] for k in ("action", "call_tichu", "wish", "latency_ms")}
            out.append(SeatMessage(message, i, reply, allowed))
            used += d["latency_ms"] / 1000
        try:
            game.apply(d["seat"], wire.action_from_reply(
                {"option": None, "action": d["action"], "call_tichu": d["call_tichu"],
                 "wish": d["wish"]}, decision))
        except IllegalAction as exc:
            raise ArenaError(f"the record does not replay at decision {i} (seat "
                             f"{d['seat']}): {exc}") from None
    return game, feed, out


def _request(game: Game, feed: packing.EventFeed, seat: int, request_id: int,
             control: TimeControl, used: float) -> tuple[Message, int]:
    """The request the referee sent `seat` now (`match._GameRun._ask`), and the
    milliseconds it allowed for the answer."""
    left = control.bank - used
    limit = max(0.0, min(control.decision, left))
    data = packing.request_bytes(game.decision(seat), game.observation(seat),
                                 feed.unsent_bytes(seat), request_id, _ms(limit), True)
    allowed = max(0.0, min(limit + control.grace, left))
    return codec.unpack(data), _ms(allowed)


def _last_message(record: GameRecord, seat: int, fault: dict[str, Any] | None, game: Game,
                  feed: packing.EventFeed, control: TimeControl,
                  requests: list[SeatMessage]) -> SeatMessage | None:
    """What ended the game for `seat`: the request it failed at (if the open request was its
    own), else the `end` every seat still playing was sent (None for an offender)."""
    if fault is not None:
        if game.phase is None or game.to_act()[0] != seat:
            return None  # it failed while another seat was asked
        used = sum((m.reply or {}).get("latency_ms", 0.0) for m in requests) / 1000
        request_id = fault["details"].get("request_id")  # (a crash's fault names none)
        if not isinstance(request_id, int):
            request_id = record.decisions[-1]["id"] + 1 if record.decisions else 0
        message, allowed = _request(game, feed, seat, request_id, control, used)
        return SeatMessage(message, len(record.decisions), None, allowed)
    if record.termination is Termination.NORMAL:
        end = wire.end_message(game.scores, game.winner, feed.unsent(seat))
    else:
        end = wire.end_message(None, None, feed.unsent(seat), "aborted")
    return SeatMessage(end)


def _ms(seconds: float) -> int:
    return max(0, int(seconds * 1000))


# ----- a reply to one of the stream's requests: what it does, and whether it may -------------


def reply_action(request: Message, reply: Message) -> Message | None:
    """What a (decoded) reply to `request` does, in the record's form (action, call_tichu,
    wish) so that it compares with the recorded one; None if it names no option offered."""
    option = reply.get("option")
    if option is not None:
        options = request.get("options")
        if not isinstance(options, list) or not 0 <= option < len(options):
            return None
        action = {k: v for k, v in options[option].items() if k != "combination"}
    else:
        action = dict(reply["action"])
        if action.get("action") == "play":
            action = {"action": "play", "cards": wire.cards_text(wire.cards_mask(
                action["cards"])), "phoenix_as": action.get("phoenix_as")}
    return {"action": action, "call_tichu": bool(reply.get("call_tichu")),
            "wish": reply.get("wish")}


def illegal(request: Message, reply: Message) -> str | None:
    """Why a (decoded) reply to `request` is not a legal answer, in the referee's words; None
    if it is legal. Judged from the request alone (its options, hand and flags)."""
    done = reply_action(request, reply)
    if done is None:
        offered = len(request.get("options") or [])
        return f"option {reply.get('option')} does not exist ({offered} options were offered)"
    action = done["action"]
    tag = action.get("action")
    kind = request["kind"]
    if tag not in schema.KIND_ACTIONS[kind]:
        return f"a {kind} request takes a {' or '.join(schema.KIND_ACTIONS[kind])} action, " \
               f"not {tag}"
    if done["call_tichu"] and not request["may_call_tichu"]:
        return "this request does not offer a Tichu call (may_call_tichu is false)"
    if done["wish"] is not None and "Mahjong" not in action.get("cards", []):
        return "only a play holding the Mah Jong may wish"
    if kind == "exchange":
        give = action.get("give", [])
        held = set(request["observation"]["hand"])
        return None if len(set(give)) == 3 and set(give) <= held else \
            "an exchange gives three different cards of the seat's own hand"
    legal = [{k: v for k, v in o.items() if k != "combination"} for o in request["options"]]
    return None if action in legal else f"{describe(done)} is not among the legal actions"


def describe(done: Message) -> str:
    """A reply's action (`reply_action`'s form, or a recorded one) in a few words."""
    action = done["action"]
    tag = action.get("action")
    if tag == "play":
        phoenix = f" (Phoenix as {action['phoenix_as']})" if action.get("phoenix_as") else ""
        text = f"play {' '.join(action['cards'])}{phoenix}"
    elif tag == "exchange":
        text = f"exchange {' '.join(action['give'])}"
    elif tag in ("grand_tichu", "tichu"):
        text = f"{'call' if action['call'] else 'no'} {tag.replace('_', ' ')}"
    elif tag == "give_dragon":
        text = f"give the Dragon to seat {action['to']}"
    else:
        text = str(tag)
    return text + (" calling Tichu" if done.get("call_tichu") else "") + (
        f" wishing {done['wish']}" if done.get("wish") else "")
