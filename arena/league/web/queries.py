"""The data the API and the pages share: a bot's, pages of games, one game, an upload, a
practice game, a game in progress; each as the viewer asking may see it (`privacy.py`).

Plain functions of the `WebState` (blocking: an endpoint runs them in a thread, or is a
thread's itself), returning JSON-ready values or the rows of the report's views.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any
from urllib.parse import quote

from starlette.exceptions import HTTPException

from arena.errors import ArenaError
from arena.league.accounts import PracticeRow, PracticeStatus, Upload
from arena.league.privacy import (
    HIDDEN,
    PUBLIC,
    Viewer,
    game_view,
    seat_messages_view,
    seat_owners,
    upload_view,
)
from arena.league.web.state import WebState
from arena.presentation.failures import (
    SeatFailure,
    failures_of,
    reproduce_command,
    seat_failures,
)
from arena.presentation.league_views import LiveRow
from arena.presentation.notes import full_name, name
from arena.presentation.views import GameListRow
from arena.referee.record import GameRecord, Termination
from arena.referee.seatstream import seat_stream
from arena.rules import PUBLIC as PUBLIC_EVENT
from arena.tournament.records import record_json
from arena.tournament.runner import labels
from arena.tournament.store import Store, StoredGame

MAX_FAILURES_LISTED = 10
"""The most recent failures a bot's JSON lists, each with its round, decision and command."""
MAX_GAMES_PAGE = 200
"""The most games one page of `GET /api/games` (or `/games`) lists."""
Found = tuple[StoredGame, dict[str, Any] | None]
"""A stored game and its record (None: its record file cannot be read)."""


def bot_data(state: WebState, name: str, viewer: Viewer = PUBLIC, server: str = ""
             ) -> dict[str, Any] | None:
    """Bot `name`'s JSON (`GET /api/bots/{name}`); None if the league has no such bot.
    `server`: the league's URL, for the commands that reproduce its failures."""
    with state.accounts() as acc, state.read_store() as store:
        uploads = acc.uploads(name)
        versions = [e for e in store.entrants() if e.name == name]
        owner = acc.owner(name)
        failures = store.failures()
        met = opponents(store, [e.key for e in versions])
        history = {e.key: acc.ratings(e.key) for e in versions}
        keys = [e.key for e in versions]
        recent = failures_of(store, keys, store.failed_games(keys, 3 * MAX_FAILURES_LISTED))
    if not uploads and not versions:
        return None
    active = set(state.league.active())
    table = {r["key"]: r for r in state.league.standings.table.rows}
    return {
        "name": name, "author": owner or "house",
        "versions": [{"key": e.key, "version": e.bot_version, "hash": e.version,
                      "language": e.language, "active": e.key in active,
                      "retired": e.retired, "failures": failures.get(e.key, {}),
                      "standing": table.get(e.key),
                      "history": [{"games": g, "rating": r,
                                   "interval": h if math.isfinite(h) else None}
                                  for g, r, h in history[e.key]]} for e in versions],
        "uploads": [upload_view(u, viewer, state.scrub) for u in uploads],
        "opponents": met,
        "failures": [failure_json(state, f, viewer.sees(owner), server)
                     for f in recent[:MAX_FAILURES_LISTED]]}


def failure_json(state: WebState, failure: SeatFailure, shows_output: bool, server: str
                 ) -> dict[str, Any]:
    """One failure of a bot as its JSON lists it: its stderr only if `shows_output`."""
    output = state.scrub(failure.output) if shows_output else HIDDEN if failure.output else ""
    return {"game": failure.game_id, "version": failure.entrant, "seat": failure.seat,
            "kind": failure.kind, "round": failure.round, "decision": failure.decision,
            "message": state.scrub(failure.message), "output": output,
            "replay": f"/games/{quote(failure.game_id, safe='')}",
            "reproduce": reproduce_command(failure.game_id, failure.seat, server or None)}


def opponents(store: Store, keys: list[str]) -> list[dict[str, Any]]:
    """Games and wins of the bot's versions (`keys`) against each other bot, by name."""
    totals: dict[str, list[int]] = {}
    for opponent, games, wins in store.opponents(keys):
        entry = totals.setdefault(opponent.split("@")[0], [0, 0])
        entry[0] += games
        entry[1] += wins
    return [{"opponent": name, "games": g, "wins": w} for name, (g, w) in sorted(totals.items())]


def games_of(state: WebState, bot_name: str | None, after: int, limit: int,
             game_id: str | None = None, newest: bool = False, path: Path | None = None
             ) -> list[tuple[int, StoredGame]]:
    """Stored games after the cursor `after`, oldest first (`newest`: the last `limit`
    stored, newest first); `path`: of that store (the practice games')."""
    if not (state.storage if path is None else path).exists():
        return []
    with state.read_store(path) as store:
        return store.games_page(after, limit, bot_name, game_id, newest)


def game_json(state: WebState, rowid: int, g: StoredGame) -> dict[str, Any]:
    """A stored game as the API lists it (`cursor`: its place in the store)."""
    return {"id": g.game_id, "cursor": rowid, "pair": g.pair_id, "pair_index": g.pair_index,
            "game_index": g.game_index, "teams": list(g.teams), "scores": list(g.scores),
            "winner": g.winner, "rounds": g.rounds, "termination": g.termination,
            "fault_seat": g.fault_seat, "fault_message": state.scrub(g.fault_message or "")
            or None,
            "seconds": g.seconds, "finished_at": g.finished_at,
            "url": f"/api/games/{quote(g.game_id, safe='')}",
            "replay": f"/games/{quote(g.game_id, safe='')}"}


def one_game(state: WebState, game_id: str, path: Path | None = None) -> Found | None:
    """The stored game `game_id` and its record (of the store at `path`); None: no such."""
    listed = games_of(state, None, 0, 1, game_id, path=path)
    if not listed:
        return None
    found = listed[0][1]
    with state.read_store(path) as store:
        try:
            record = record_json(store.record_path(found.record))
        except ArenaError:
            record = None
    return found, record


def record_view(state: WebState, record: dict[str, Any] | None, viewer: Viewer
                ) -> dict[str, Any] | None:
    """A record as `viewer` may see it (`privacy.game_view`); None stays None."""
    if record is None:
        return None
    with state.accounts() as acc:
        owners = acc.authors_of()
    return game_view(record, owners, viewer, state.scrub)


def seat_owner(state: WebState, record: dict[str, Any], seat: int) -> str | None:
    """The author of the bot at `seat` in `record` (None: a house bot)."""
    with state.accounts() as acc:
        owners = acc.authors_of()
    return seat_owners(record, owners)[seat]


def seat_messages(state: WebState, record: dict[str, Any], seat: int) -> dict[str, Any]:
    """What `seat` was sent in the game of `record` (`arena.referee.seatstream`), scrubbed of
    the server's paths; ArenaError if the record does not replay. Only for a viewer who
    sees that seat's bot."""
    stream = seat_stream(GameRecord.from_json(record), seat,
                         state.league.config.tournament.time)  # (an older record's)
    return seat_messages_view(stream.to_json(), state.scrub)


def upload_row(state: WebState, upload: int) -> Upload | None:
    with state.accounts() as acc:
        return acc.upload(upload)


def game_rows(state: WebState, listed: list[tuple[int, StoredGame]]) -> list[GameListRow]:
    """Stored games as the rows of the report's games table, by entrant name."""
    with state.read_store() as store:
        names = labels(store)
    rows = []
    for _, g in listed:
        teams = tuple(full_name(names, k) for k in g.teams)
        winner = "" if g.winner is None else name(names, g.teams[g.winner])
        rows.append(GameListRow(g.game_id, f"/games/{quote(g.game_id, safe='')}",
                                g.pair_index, g.game_index, (teams[0], teams[1]),
                                g.scores, winner, g.rounds, g.termination,
                                "" if g.fault_seat is None else
                                f"seat {g.fault_seat}: {state.scrub(g.fault_message or '')}",
                                g.seconds, g.finished_at))
    return rows


def replay_names(state: WebState, path: Path | None = None) -> dict[str, tuple[str, str]]:
    """The entrants' names and versions of a store's games, for the replay's data."""
    with state.read_store(path) as store:
        return labels(store)


def game_names(state: WebState, game_id: str) -> tuple[str, str, str] | None:
    """A stored game's teams, each named with its version, and its place ("3.1");
    None: no such game stored."""
    listed = games_of(state, None, 0, 1, game_id)
    if not listed:
        return None
    game = listed[0][1]
    names = replay_names(state)
    return (full_name(names, game.teams[0]), full_name(names, game.teams[1]),
            f"{game.pair_index}.{game.game_index}")


def failures_seen(state: WebState, game_id: str, viewer: Viewer
                  ) -> tuple[list[SeatFailure], list[bool]]:
    """The seats charged with a fault in a stored game, their texts scrubbed of the server's
    paths, and for each whether `viewer` may see its bot's output (`Viewer.sees`): an output
    the viewer may not see is left out ("")."""
    listed = games_of(state, None, 0, 1, game_id)
    if not listed or not Termination(listed[0][1].termination).is_bot_fault:
        return [], []  # (its record is not read)
    found = one_game(state, game_id)
    if found is None or not found[1]:
        return [], []
    stored, record = found[0], found[1]
    with state.accounts() as acc:
        owners = seat_owners(record, acc.authors_of())
    failures, allowed = [], []
    for f in seat_failures(game_id, record, stored.seats):
        sees = viewer.sees(owners[f.seat]) if f.seat < len(owners) else viewer.organizer
        failures.append(SeatFailure(f.game_id, f.seat, f.kind, state.scrub(f.message),
                                    f.round, f.decision,
                                    state.scrub(f.output) if sees else "",
                                    f.entrant))
        allowed.append(sees)
    return failures, allowed


Finished = tuple[StoredGame, list[dict[str, Any]], list[SeatFailure]]
"""A finished game as stored, its public events, and its seats' faults (public facts: no
message, no output)."""


def finished_events(state: WebState, game_id: str, path: Path | None = None
                    ) -> Finished | None:
    """A finished game as it was stored (of the store at `path`), its public events (the
    events its spectators' file held) and its faults; None: not stored (yet), or its record
    lost."""
    found = one_game(state, game_id, path)
    if found is None or not found[1]:
        return None
    stored, record = found[0], found[1]
    events = [e for e in record.get("events", []) if e.get("visible_to") == PUBLIC_EVENT]
    failures = [SeatFailure(f.game_id, f.seat, f.kind, "", f.round, f.decision, "", f.entrant)
                for f in seat_failures(game_id, record, stored.seats)]
    return stored, events, failures


# ----- games in progress -----------------------------------------------------------------------

def live_events(state: WebState, game_id: str) -> list[dict[str, Any]] | None:
    """The public events so far of a game in progress (None: not in progress)."""
    if "/" in game_id or game_id.startswith("."):
        return None
    try:
        return list(json.loads((state.league.live / f"{game_id}.json").read_text()))
    except (OSError, ValueError):
        return None


def live_rows(state: WebState) -> list[LiveRow]:
    """The games in progress, each with its teams named with their versions, and its round
    and score so far."""
    names = replay_names(state) if state.storage.exists() else {}
    rows = []
    for path in sorted(state.league.live.glob("*.json")):
        game_id = path.name.removesuffix(".json")
        events = live_events(state, game_id)
        if events is None:  # over meanwhile
            continue
        keys, place = game_keys(game_id)
        starts = [e for e in events if e.get("kind") == "round_start"]
        scored = [e for e in events if e.get("kind") in ("round_start", "round_end")]
        rows.append(LiveRow(game_id, f"/live/{quote(game_id, safe='')}",
                            (full_name(names, keys[0]), full_name(names, keys[1])), place,
                            starts[-1]["round"] if starts else 0,
                            tuple(scored[-1]["scores"]) if scored else (0, 0)))
    return rows


def game_keys(game_id: str) -> tuple[tuple[str, str], str]:
    """The entrant keys of teams 0 and 1 of a league game, from its id, and its place in
    its matchup ("3.1")."""
    sides, _, place = game_id.rpartition("#")
    first, _, second = sides.partition("~")
    return ((first, second) if place.endswith(".0") else (second, first)), place


def live_labels(state: WebState, game_id: str) -> tuple[list[str], str]:
    """The names (with versions) at seats 0-3 of a league game, and its title."""
    (a, b), place = game_keys(game_id)
    names = replay_names(state) if state.storage.exists() else {}
    team0, team1 = full_name(names, a), full_name(names, b)
    return [team0, team1, team0, team1], f"{team0} vs {team1}, game {place}"


# ----- practice games --------------------------------------------------------------------------

def practice_json(row: PracticeRow) -> dict[str, Any]:
    """A practice game's status as the API gives it, with its links."""
    return {**row.public(), "url": f"/api/practice/{row.id}",
            "page": f"/practice/{row.id}", "replay": f"/practice/{row.id}/replay"}


def practice_row(state: WebState, practice: int) -> PracticeRow | None:
    with state.accounts() as acc:
        return acc.practice(practice)


def practice_data(state: WebState, practice: int, viewer: Viewer) -> dict[str, Any] | None:
    """A practice game's status and, once over, its game as `viewer` may see it."""
    row = practice_row(state, practice)
    if row is None:
        return None
    data = {**practice_json(row), "reason": state.scrub(row.reason)}
    found = one_game(state, row.game_id, state.practice_store) \
        if row.status is PracticeStatus.DONE and row.game_id else None
    if found is not None:
        data["game"] = {**game_json(state, 0, found[0]), "url": data["url"],
                        "replay": data["replay"],
                        "record": record_view(state, found[1], viewer)}
    return data


def practice_record(state: WebState, practice: int) -> dict[str, Any] | None:
    """The record of a practice game over and kept; None if there is none (yet)."""
    row = practice_row(state, practice)
    if row is None or row.status is not PracticeStatus.DONE or not row.game_id:
        return None
    found = one_game(state, row.game_id, state.practice_store)
    return None if found is None else found[1]


def practice_events(state: WebState, practice: int
                    ) -> tuple[PracticeRow | None, list[dict[str, Any]]]:
    """A practice game as stored, and its public events so far ([]: none yet)."""
    row = practice_row(state, practice)
    path = None if row is None else state.league.practice.live_file(row)
    if path is None:
        return row, []
    try:
        return row, list(json.loads(path.read_text()))
    except (OSError, ValueError):  # not started yet, or being rewritten
        return row, []


def practice_labels(row: PracticeRow) -> list[str]:
    """The bots' names at seats 0-3 of a practice game: the author's version is team 0."""
    mine, theirs = row.entrant.split("@")[0], row.opponent.split("@")[0]
    return [mine, theirs, mine, theirs]


def practice_game(state: WebState, practice: int) -> tuple[StoredGame, dict[str, Any]]:
    """A practice game over and kept, and its record; HTTPException 404 if it is not."""
    row = practice_row(state, practice)
    found = None if row is None or row.status is not PracticeStatus.DONE or not row.game_id \
        else one_game(state, row.game_id, state.practice_store)
    if found is None or not found[1]:
        raise HTTPException(404, f"practice game {practice} is not over (or not kept): "
                                 f"/practice/{practice} shows it")
    return found[0], found[1]
