"""The three event streams (server-sent events): the leaderboard's table, a game in
progress and a practice game. They share their caps, lifetime and heartbeat
(`limits.EventStreams`, in the `WebState`): a stream yields "" for a tick with nothing new.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import StreamingResponse

from arena.league.web import queries
from arena.league.web.state import WebState, shared
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
    """A game in progress: a `table` event at each change, `end` once it is over."""
    state = shared(request)
    return state.streams.response(request, live_ticks(state, request.path_params["game_id"]))


async def live_ticks(state: WebState, game_id: str) -> AsyncGenerator[str, None]:
    labels = queries.seat_labels(game_id)
    shown = None
    while True:
        events = await run_in_threadpool(queries.live_events, state, game_id)
        if events is None:
            yield "event: end\ndata: over\n\n"
            return
        new = len(events) != shown
        shown = len(events)
        yield f"event: table\ndata: {live_fragment(events, labels)}\n\n" if new else ""


async def practice_stream(request: Request) -> StreamingResponse:
    """A practice game: a `table` event at each change, `end` once it is over (or gone)."""
    state = shared(request)
    return state.streams.response(
        request, practice_ticks(state, request.path_params["practice"]))


async def practice_ticks(state: WebState, practice: int) -> AsyncGenerator[str, None]:
    shown = None
    while True:
        row, events = await run_in_threadpool(queries.practice_events, state, practice)
        if row is None or row.status.final:
            yield "event: end\ndata: over\n\n"
            return
        new = len(events) != shown
        shown = len(events)
        yield (f"event: table\ndata: {live_fragment(events, queries.practice_labels(row))}"
               "\n\n") if new else ""
