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
    a, b = record.entrants
    lines = [f"Game {terminal(record.game_id)}, seed {record.seed}, target {record.target}",
             f"  team 0 (seats 0, 2): {terminal(a.name)} {terminal(a.version)}",
             f"  team 1 (seats 1, 3): {terminal(b.name)} {terminal(b.version)}", ""]
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


def outcome(record: GameRecord) -> str:
    """Who won and how the game ended, in one line (two for a fault)."""
    names = [terminal(e.name) for e in record.entrants]
    if record.termination is Termination.NORMAL:
        return (f"Winner: team {record.winner} ({names[record.winner]})\n"
                f"Termination: normal (played to the target)")
    fault = record.fault
    if record.winner is None:
        return f"No winner: {record.termination.value}: {terminal(fault.message) if fault else ''}"
    where = f" at round {fault.round}, decision {fault.decision}" if fault else ""
    return (f"Winner: team {record.winner} ({names[record.winner]}) by forfeit\n"
            f"Termination: {record.termination.value} by seat {fault.seat} "
            f"({names[fault.seat & 1]}){where}: {terminal(fault.message)}")
