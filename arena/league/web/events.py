"""The three event streams (server-sent events): the leaderboard's table, a game in
progress and a practice game. They share their caps, lifetime and heartbeat
(`limits.EventStreams`, in the `WebState`): a stream yields "" for a tick with nothing new.

A game's spectators' file is rewritten every half second and removed as the game ends, so
its last tricks are only in the stored record: a game's stream plays them from there
(`over_ticks`) before its `end`, which says the final score and the winner.
"""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from typing import Any
from urllib.parse import quote

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import StreamingResponse

from arena.league.accounts import PracticeStatus
from arena.league.web import queries
from arena.league.web.queries import Finished
from arena.league.web.state import WebState, shared
from arena.presentation.league_views import live_over
from arena.presentation.views import live_fragment


async def events(request: Request) -> StreamingResponse:
    """The leaderboard: a `standings` event with each new table."""
    state = shared(request)
    return state.streams.response(request, standings_ticks(state))


async def standings_ticks(state: WebState) -> AsyncGenerator[str, None]:
    seen = -1
    while True:
        table = state.league.standings.table
        yield table.event if table.version != seen else ""
        seen = table.version


async def live_stream(request: Request) -> StreamingResponse:
    """A game in progress: a `table` event at each change; once it is over, its last tricks
    (`over_ticks`), then `end` with how it ended. `?seen=N`: the page shows N events."""
    state = shared(request)
    seen = request.query_params.get("seen", "")
    return state.streams.response(request, live_ticks(
        state, request.path_params["game_id"], int(seen) if seen.isdigit() else None))


async def live_ticks(state: WebState, game_id: str, seen: int | None = None
                     ) -> AsyncGenerator[str, None]:
    labels, _ = await run_in_threadpool(queries.live_labels, state, game_id)
    shown = seen
    while True:
        events = await run_in_threadpool(queries.live_events, state, game_id)
        if events is None:
            break
        new = len(events) != shown
        shown = len(events)
        yield f"event: table\ndata: {live_fragment(events, labels)}\n\n" if new else ""
    replay = f"/games/{quote(game_id, safe='')}"
    # a game this stream never saw in progress is waited for no longer than one look
    async for tick in over_ticks(lambda: queries.finished_events(state, game_id), shown,
                                 labels, replay, STORED_WAIT if shown is not None else 0.0):
        yield tick


STORED_WAIT = 60.0
"""How long a stream waits for a game that left its spectators' file to be stored (its
worker hands it on at once; a cluster's, with its batch)."""
STEP_TICKS = 2
"""Ticks (`limits.POLL_SECONDS` each) between two steps of a game's last tricks."""
LAST_STEPS = 12
"""The most steps of a game's end a stream plays (the rest is skipped over)."""
_STEP_KINDS = frozenset(("trick", "dog", "round_end", "game_end"))


async def over_ticks(finished: Callable[[], Finished | None], shown: int | None,
                     labels: Sequence[str], replay: str, wait: float = STORED_WAIT
                     ) -> AsyncGenerator[str, None]:
    """A game's end for a stream that has shown its first `shown` public events: the
    stored game's events after them, a trick at a time (the spectators' file is removed as
    the game ends, so its last half second of play is only in the record), then `end`
    with the final score and the winner or the fault, and the link to `replay`. The game
    is looked for in the store for `wait` seconds at most."""
    deadline = time.monotonic() + wait
    while (found := await run_in_threadpool(finished)) is None:
        if time.monotonic() > deadline:
            yield "event: end\ndata: over\n\n"
            return
        yield ""
    stored, events, failures = found
    for k in last_steps(events, shown):
        yield f"event: table\ndata: {live_fragment(events[:k + 1], labels)}\n\n"
        for _ in range(STEP_TICKS - 1):
            yield ""
    over = live_over((labels[0], labels[1]), stored.scores, stored.winner, failures, replay)
    yield f"event: end\ndata: {over}\n\n"


def last_steps(events: Sequence[Mapping[str, Any]], shown: int | None) -> list[int]:
    """The indices of the events after the first `shown` (None: unknown) at which a game's
    end is drawn: each trick gathered, each round's end, the game's end, and its last event;
    at most `LAST_STEPS` of them, the last ones."""
    start = 0 if shown is None else min(shown, len(events))
    steps = [k for k in range(start, len(events)) if events[k]["kind"] in _STEP_KINDS]
    if len(events) > start and (not steps or steps[-1] != len(events) - 1):
        steps.append(len(events) - 1)
    return steps[-LAST_STEPS:]


async def practice_stream(request: Request) -> StreamingResponse:
    """A practice game: a `table` event at each change; once it is over, its last tricks
    and `end` with how it ended (`over_ticks`); `end` alone if it failed or is gone."""
    state = shared(request)
    return state.streams.response(
        request, practice_ticks(state, request.path_params["practice"]))


async def practice_ticks(state: WebState, practice: int) -> AsyncGenerator[str, None]:
    shown = None
    while True:
        row, events = await run_in_threadpool(queries.practice_events, state, practice)
        if row is None or row.status.final:
            break
        new = len(events) != shown
        shown = len(events)
        yield (f"event: table\ndata: {live_fragment(events, queries.practice_labels(row))}"
               "\n\n") if new else ""
    if row is None or row.status is not PracticeStatus.DONE or not row.game_id:
        yield "event: end\ndata: over\n\n"
        return
    game_id = row.game_id
    async for tick in over_ticks(
            lambda: queries.finished_events(state, game_id, state.practice_store), shown,
            queries.practice_labels(row), f"/practice/{practice}/replay"):
        yield tick
