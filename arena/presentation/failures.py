"""A bot's failures as its author needs them to fix the bot: which game, what kind of fault,
when (round and decision), the referee's message, and the end of the bot's own output (its
stderr: the traceback, the failed assertion), which the record keeps per seat.

Shown by `arena failures`, under `arena replay`, on the entrant's page of the web report,
and by `arena practice` and a practice game's page (`practice_verdict`).
The output is the bot's text: every place that shows it escapes it (`safe.terminal` for a
terminal, `pages.esc` for a page) and shows at most `OUTPUT_LINES` lines.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.errors import ArenaError
from arena.presentation.safe import terminal
from arena.referee.record import Termination
from arena.tournament.records import record_json
from arena.tournament.store import Store, StoredGame

OUTPUT_LINES = 15  # of a failed seat's output, shown with its failure
OUTPUT_CHARS = 2000  # and at most this many characters of them


@dataclass(frozen=True)
class SeatFailure:
    """One seat's fault in one game."""

    game_id: str
    seat: int
    kind: str
    """The fault's kind (a bot-fault termination: crash, timeout, ...)."""
    message: str
    round: int
    decision: int
    """How many decisions had been applied when it happened."""
    output: str
    """The end of the seat's output (stdout and stderr), as it wrote it; "" if none."""
    entrant: str = ""
    """The entrant key of the failed seat (its team's, with fixed partners)."""


def last_lines(text: str | None) -> str:
    """The last `OUTPUT_LINES` lines of `text` (at most `OUTPUT_CHARS` characters)."""
    return "\n".join((text or "").strip()[-OUTPUT_CHARS:].splitlines()[-OUTPUT_LINES:])


def seat_failures(game_id: str, record: Mapping[str, Any],
                  teams: Sequence[str] = ("", "")) -> list[SeatFailure]:
    """The seats charged with a fault in a game record (its JSON form): the forfeiting seat,
    or each failed seat of a game void because seats of both teams failed together; none
    for a normal end or a fault of the harness. `teams`: the entrant keys of teams 0 and 1,
    or of each seat 0 to 3 (`StoredGame.seats`: with mixed partners, the only way to name
    the seat's own entrant)."""
    fault = record.get("fault")
    if not fault or not Termination(record["termination"]).is_bot_fault:
        return []
    outputs = record.get("bot_output") or [""] * 4
    details = fault.get("details") or {}
    charged = ([fault] if fault.get("seat") is not None else
               [f for f in details.get("faults", []) if f.get("seat") is not None])
    return [SeatFailure(game_id, f["seat"], f.get("kind", fault["kind"]),
                        f.get("message", ""), fault.get("round", 0), fault.get("decision", 0),
                        last_lines(outputs[f["seat"]]), teams[f["seat"] % len(teams)])
            for f in charged]


def failures_of(store: Store, keys: Iterable[str],
                games: Iterable[StoredGame] | None = None) -> list[SeatFailure]:
    """Every failure of the entrants `keys` in the store's `games` (default: all of them, in
    schedule order); a game whose record cannot be read is listed from its row, without
    output."""
    wanted = set(keys)
    found: list[SeatFailure] = []
    for game in store.games() if games is None else games:
        if not wanted & set(game.seats) or not Termination(game.termination).is_bot_fault:
            continue
        try:
            record = record_json(store.record_path(game.record))
        except ArenaError:
            if game.fault_seat is not None and game.seats[game.fault_seat] in wanted:
                found.append(SeatFailure(game.game_id, game.fault_seat, game.termination,
                                         game.fault_message or "", 0, 0,
                                         "(the game's record cannot be read)",
                                         game.seats[game.fault_seat]))
            continue
        found += [f for f in seat_failures(game.game_id, record, game.seats)
                  if f.entrant in wanted]
    return found


BOT_FOLDER = "BOT_FOLDER"
"""Where a command shown to an author names their own bot (we never know their path)."""


def reproduce_command(game: str, seat: int, server: str | None = None,
                      bot_folder: str = BOT_FOLDER) -> str:
    """The `arena reproduce` command that replays a failed seat's game to the author's bot:
    `game` is a league game's id (with the league's URL `server`) or a record file."""
    words = ["arena", "reproduce", game, bot_folder, "--seat", str(seat)]
    return shlex.join(words + (["--server", server] if server else []))


def failure_lines(failure: SeatFailure, label: str = "", command: str = "") -> list[str]:
    """A failure for a terminal, escaped: a heading line, the output a line each, then the
    `command` that reproduces it, if any."""
    who = f"{label}, seat {failure.seat}" if label else f"seat {failure.seat}"
    lines = [terminal(f"{failure.game_id}: {failure.kind} by {who} at round {failure.round}, "
                      f"decision {failure.decision}: {failure.message}")]
    lines += output_lines(failure.output, failure.seat)
    return lines + ([terminal(f"  reproduce it: {command}")] if command else [])


def output_lines(output: str, seat: int) -> list[str]:
    """A seat's output under its failure: a line saying what it is, then each line escaped."""
    if not output:
        return [f"  seat {seat} wrote nothing to stdout or stderr"]
    return ([f"  seat {seat}'s output, last lines:"]
            + [f"  | {terminal(line)}" for line in output.splitlines()])


def record_failure_lines(record: Any) -> list[str]:
    """The output of each failed seat of a `GameRecord` (for `arena replay`), escaped."""
    data = {"termination": record.termination.value,
            "fault": None if record.fault is None else {
                "kind": record.fault.kind.value, "seat": record.fault.seat,
                "message": record.fault.message, "round": record.fault.round,
                "decision": record.fault.decision, "details": record.fault.details},
            "bot_output": record.bot_output, "entrants": []}
    lines: list[str] = []
    for failure in seat_failures(record.game_id, data):
        lines += output_lines(failure.output, failure.seat)
    return lines


def game_failures(game: Mapping[str, Any]) -> list[SeatFailure]:
    """The seats charged with a fault in a game as the league's API answers it: from its
    `record` (as the viewer may see it), or from its `termination` and `fault_seat` if it
    has none (then without round, decision or output)."""
    teams = game.get("teams") or ("", "")
    record = game.get("record")
    if isinstance(record, Mapping) and record.get("termination"):
        return seat_failures(str(game.get("id", "")), record, teams)
    seat, kind = game.get("fault_seat"), game.get("termination")
    if not isinstance(seat, int) or kind not in _BOT_FAULT_KINDS:
        return []
    return [SeatFailure(str(game.get("id", "")), seat, str(kind),
                        str(game.get("fault_message") or ""), 0, 0, "",
                        teams[seat % len(teams)])]


_BOT_FAULT_KINDS = frozenset(t.value for t in Termination if t.is_bot_fault)


def practice_failures(game: Mapping[str, Any]
                      ) -> tuple[list[SeatFailure], list[SeatFailure]]:
    """The failures of a practice game (its `game` in `GET /api/practice/ID`): the author's
    version's (team 0: seats 0 and 2), then the opponent's."""
    found = game_failures(game)
    return [f for f in found if f.seat % 2 == 0], [f for f in found if f.seat % 2 == 1]


def fault_said(failure: SeatFailure) -> str:
    """A failure in words: its kind, its round and decision when known, its message."""
    when = f" in round {failure.round} (decision {failure.decision})" \
        if failure.round or failure.decision else ""
    return f"{failure.kind.replace('_', ' ')}{when}: {failure.message}"


def practice_verdict(game: Mapping[str, Any]) -> str:
    """What a practice game's page says of its end: whose bot failed and how, or ""."""
    mine, theirs = practice_failures(game)
    said = [f"Your bot failed: {fault_said(mine[0])}."] if mine else []
    if theirs:
        said.append(f"The opponent's bot failed{' too' if mine else ''}: "
                    f"{fault_said(theirs[0])}" + ("." if mine else "; yours did not."))
    return " ".join(said)
