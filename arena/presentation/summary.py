"""Human-readable summaries of game records: a table of the rounds and the game's outcome.

The play by play of a record is `arena.presentation.replay`. Text for a terminal: what a bot
or its author wrote (names, versions, fault messages) is escaped (`safe.terminal`).
"""

from __future__ import annotations

from typing import Any

from tabulate import tabulate

from arena.presentation.failures import record_failure_lines
from arena.presentation.safe import terminal
from arena.referee.record import GameRecord, Termination

ROUND_HEADERS = ["round", "card points", "call bonuses", "double victory", "calls made",
                 "score"]


def round_rows(record: GameRecord) -> list[list[Any]]:
    """One row per finished round (see ROUND_HEADERS): number, card points, call bonuses,
    whether it was a double victory, who called what and whether it was made, the score."""
    rows = []
    calls: list[tuple[int, str]] = []
    number = 0
    for event in record.events:
        kind = event["kind"]
        if kind == "round_start":
            number, calls = event["round"], []
        elif kind == "grand_tichu" and event["call"]:
            calls.append((event["seat"], "Grand Tichu"))
        elif kind == "tichu":
            calls.append((event["seat"], "Tichu"))
        elif kind == "round_end":
            first = event["out_order"][0] if event["out_order"] else None
            made = [f"seat {seat} {call} {'made' if seat == first else 'failed'}"
                    for seat, call in calls]
            cards, bonus = event["card_points"], event["calls"]
            rows.append([number, f"{cards[0]}:{cards[1]}", f"{bonus[0]:+}:{bonus[1]:+}",
                         "yes" if event["double_victory"] else "no",
                         ", ".join(made) or "none", f"{event['scores'][0]}:{event['scores'][1]}"])
    return rows


def summary(record: GameRecord) -> str:
    """The readable summary `arena play` and `arena replay` print."""
    lines = [f"Game {terminal(record.game_id)}, seed {record.seed}, target {record.target}",
             *team_lines(record), ""]
    rows = round_rows(record)
    if rows:
        lines.append("Points are written team 0:team 1.")
        lines.append(tabulate(rows, headers=ROUND_HEADERS, tablefmt="simple"))
        lines.append("")
    auto = sum(1 for d in record.decisions if d.get("auto"))
    passed = f" ({auto} passed by the referee: auto_pass)" if auto else ""
    lines.append(f"Final score {record.scores[0]}:{record.scores[1]} after {record.rounds} "
                 f"rounds and {len(record.decisions)} decisions{passed}, in "
                 f"{record.seconds:.2f} s")
    lines.append(outcome(record))
    lines += record_failure_lines(record)  # the failed bot's own last words: its stderr
    used = ", ".join(f"seat {s}: {t:.3f} s" for s, t in enumerate(record.time_used))
    lines.append(f"Time used: {used}")
    return "\n".join(lines)


def team_lines(record: GameRecord) -> list[str]:
    """Who played each team: its entrant, and the guest at its seat if one sat in it."""
    lines = []
    for team, entrant in enumerate(record.entrants):
        who = f"{terminal(entrant.name)} {terminal(entrant.version)}"
        guest = record.guest
        if guest is not None and guest.seat & 1 == team:
            who = (f"{terminal(guest.name)} {terminal(guest.version)} at seat {guest.seat} (a "
                   f"guest of the organizer's, unsandboxed), {who} at seat {guest.seat ^ 2}")
        lines.append(f"  team {team} (seats {team}, {team + 2}): {who}")
    return lines


def team_name(record: GameRecord, team: int) -> str:
    """A team's name for a line: its entrant's, and the guest's with it if one sat in it."""
    name = terminal(record.entrants[team].name)
    guest = record.guest
    if guest is not None and guest.seat & 1 == team:
        return f"{terminal(guest.name)} and {name}"
    return name


def outcome(record: GameRecord) -> str:
    """Who won and how the game ended, in one line (two for a fault)."""
    names = [team_name(record, team) for team in (0, 1)]
    winner, fault = record.winner, record.fault
    if record.termination is Termination.NORMAL:
        assert winner is not None  # (a game played to the target has a winner)
        return (f"Winner: team {winner} ({names[winner]})\n"
                f"Termination: normal (played to the target)")
    if winner is None:
        return f"No winner: {record.termination.value}: {terminal(fault.message) if fault else ''}"
    assert fault is not None and fault.seat is not None  # (a forfeit names the seat at fault)
    where = f" at round {fault.round}, decision {fault.decision}"
    return (f"Winner: team {winner} ({names[winner]}) by forfeit\n"
            f"Termination: {record.termination.value} by seat {fault.seat} "
            f"({terminal(record.seat_name(fault.seat))}){where}: {terminal(fault.message)}")
