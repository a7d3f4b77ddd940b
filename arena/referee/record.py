"""Game records: everything one refereed game produced, as JSON, and re-simulated exactly.

A record holds the seed, the entrants and their versions (with mixed partners, each seat's
in `seats`; and the seat a guest played, if one did: `arena play human`), every decision
(seat, request id,
kind, the action in wire form, latency; `"auto": true` on a pass the referee made for an
`auto_pass` seat that had nothing else to do), every event in wire form with who could see it,
the scores per round, how the game ended, the isolation its bot processes ran under, and the
game's time control.
`resimulate` replays the seed and the actions through the rules engine and checks that the
same events come out. Record files are written and read by `arena.tournament.records`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any

from arena.errors import ArenaError
from arena.faults import ForfeitKind
from arena.referee import wire
from arena.referee.packing import EventFeed
from arena.rules import Game, IllegalAction
from protocol.schema import MAX_MESSAGE_CHARS, clip  # a fault's message is its error.message

RECORD_FORMAT = 1


class Termination(Enum):
    """How a game ended (closed set): normally, by one of the bot faults of
    `arena.faults.ForfeitKind` (each under its name and value), by the harness's own failure,
    or stopped by the user."""

    NORMAL = "normal"
    START_FAILURE = ForfeitKind.START_FAILURE.value
    HANDSHAKE_FAILURE = ForfeitKind.HANDSHAKE_FAILURE.value
    TIMEOUT = ForfeitKind.TIMEOUT.value
    CRASH = ForfeitKind.CRASH.value
    PROTOCOL_VIOLATION = ForfeitKind.PROTOCOL_VIOLATION.value
    ILLEGAL_ACTION = ForfeitKind.ILLEGAL_ACTION.value
    LEFT = ForfeitKind.LEFT.value
    HARNESS_FAULT = "harness_fault"          # the referee's own failure: nobody's fault
    INTERRUPTED = "interrupted"              # stopped by the user (Ctrl-C)

    @property
    def is_bot_fault(self) -> bool:
        """Whether a bot is charged with this ending: it is one of the forfeit kinds."""
        return self._value_ in _BOT_FAULTS


_BOT_FAULTS = frozenset(kind.value for kind in ForfeitKind)

MAX_DETAIL_CHARS = 4000   # of each string in a fault's details


@dataclass(frozen=True)
class Fault:
    """Who failed, when and why. `details` holds kind-specific facts (exit code, overrun, ...).

    `seat` is None when no seat is charged: a harness fault, an interruption, or seats of
    both teams failing together (each seat's fault is then in `details["faults"]`). The
    message and every string in the details are cut to a bounded length, since they may
    quote a bot.
    """

    kind: Termination
    seat: int | None
    message: str
    round: int
    decision: int  # how many decisions had been applied
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "message", clip(self.message, MAX_MESSAGE_CHARS))
        object.__setattr__(self, "details", _clipped(self.details))

    @property
    def team(self) -> int | None:
        return None if self.seat is None else self.seat & 1


@dataclass(frozen=True)
class EntrantInfo:
    """One team's (or, with mixed partners, one seat's) entrant as the record names it."""

    name: str
    version: str
    folder: str


@dataclass(frozen=True)
class GuestInfo:
    """The seat a guest played in place of its team's entrant (`arena.referee.match.Guest`:
    the organizer's own program, a person at the terminal), unsandboxed and under a time
    control of its own; its name and version."""

    seat: int
    name: str
    version: str


@dataclass
class GameRecord:
    """One refereed game; see the module docstring."""

    game_id: str
    seed: int
    target: int
    entrants: tuple[EntrantInfo, EntrantInfo]  # team 0's, team 1's (mixed: seats 0 and 1)
    decisions: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    round_scores: list[tuple[int, int]] = field(default_factory=list)
    scores: tuple[int, int] = (0, 0)
    winner: int | None = None
    rounds: int = 0
    termination: Termination = Termination.NORMAL
    fault: Fault | None = None
    time_used: list[float] = field(default_factory=lambda: [0.0] * 4)
    bot_output: list[str] = field(default_factory=lambda: [""] * 4)
    seconds: float = 0.0
    isolation: str = "none"
    """How the bot processes were isolated: "sandbox" or "none" (arena.sandbox.Isolation)."""
    guest: GuestInfo | None = None
    """The seat played by a guest, if one was (always unsandboxed); None in a tournament."""
    seats: tuple[EntrantInfo, ...] | None = None
    """With mixed partners, the entrant of each seat, 0 to 3 (partners are then different
    entrants); None (and absent from the file): each team is one entrant's two copies."""
    time_control: dict[str, float] | None = None
    """The game's time control in seconds (hello, decision, bank, grace), so that a seat's
    messages can be rebuilt exactly (`arena.referee.seatstream`); None in older records."""

    def seat_entrants(self) -> tuple[EntrantInfo, ...]:
        """The entrant of each seat, 0 to 3."""
        if self.seats is not None:
            return self.seats
        return (self.entrants[0], self.entrants[1], self.entrants[0], self.entrants[1])

    def seat_name(self, seat: int) -> str:
        """Who played `seat`: the guest at its seat, else that seat's entrant."""
        guest = self.guest
        return guest.name if guest is not None and guest.seat == seat else \
            self.seat_entrants()[seat].name

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        if self.seats is None:
            del data["seats"]  # a record of fixed partners is as it always was
        if self.time_control is None:
            del data["time_control"]  # an older record, read and written again
        data["format"] = RECORD_FORMAT
        data["termination"] = self.termination.value
        if self.fault is not None:
            data["fault"]["kind"] = self.fault.kind.value
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameRecord:
        if data.get("format") != RECORD_FORMAT:
            raise ArenaError(f"unsupported record format {data.get('format')!r}")
        data = dict(data)
        data.pop("format")
        data["entrants"] = tuple(EntrantInfo(**e) for e in data["entrants"])
        if data.get("seats") is not None:
            data["seats"] = tuple(EntrantInfo(**e) for e in data["seats"])
        data["termination"] = Termination(data["termination"])
        data["round_scores"] = [tuple(s) for s in data["round_scores"]]
        data["scores"] = tuple(data["scores"])
        if data.get("guest") is not None:
            data["guest"] = GuestInfo(**data["guest"])
        if data["fault"] is not None:
            fault = dict(data["fault"])
            fault["kind"] = Termination(fault["kind"])
            data["fault"] = Fault(**fault)
        return cls(**data)


def resimulate(record: GameRecord) -> Game:
    """Replay the record's seed and actions through the engine; ArenaError if events differ."""
    game = Game(record.seed, record.target)
    for i, d in enumerate(record.decisions):
        try:
            decision = game.decision(d["seat"])
            game.apply(d["seat"], wire.action_from_reply(
                {"option": None, "action": d["action"], "call_tichu": d["call_tichu"],
                 "wish": d["wish"]}, decision))
        except IllegalAction as exc:
            raise ArenaError(f"re-simulation differs from the record at decision {i} "
                             f"(seat {d['seat']}): {exc}") from None
    replayed = EventFeed(game).recorded()  # as the referee wrote them
    if replayed != record.events:
        pairs = zip(replayed, record.events, strict=False)  # one may be longer: then min()
        first = next((i for i, (a, b) in enumerate(pairs) if a != b),
                     min(len(replayed), len(record.events)))
        raise ArenaError(f"re-simulation differs from the record at event {first}")
    return game


def _clipped(value: Any, depth: int = 0) -> Any:
    """`value` with every string cut to MAX_DETAIL_CHARS (and nothing nested past 8 levels)."""
    if isinstance(value, str):
        return clip(value, MAX_DETAIL_CHARS)
    if depth > 8:
        return clip(repr(value), 100)
    if isinstance(value, dict):
        return {clip(str(k), 100): _clipped(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clipped(v, depth + 1) for v in value]
    return value
