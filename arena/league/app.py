"""The league's web application (Starlette): `make_app` assembles the routes of the web
layer (`arena.league.web`) and its middleware around the league it serves.

Every page is made of the static report's views (`arena.presentation.views`, and the
league's pages of `arena.presentation.league_views`), which escape every string they are
given; the report's stylesheet and scripts are served from its own assets folder. The
leaderboard on `/` updates itself from the server-sent events of `/events` (`league.js`):
each event carries the table's new HTML, made by the same view.

Errors are JSON (`{"error": ...}`, a sentence a person can act on) with their status: 400 a
bad request or archive, 401 no token, 403 a token that is not (or no longer) valid, 404, 409
a bot name that is another author's, 411 no length, 413 too large, 429 too many uploads. The
upload form of `/upload` carries a CSRF token (a random value in a SameSite=Strict cookie and
in the form, compared in constant time) besides the author's token. Every response carries
the security headers of `web.middleware.SECURITY_HEADERS` (a content security policy that
allows no inline script, no framing, no sniffing, no referrer).
"""

from __future__ import annotations

import functools
from importlib import resources

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp

from arena.league.guards import BodyLimit
from arena.league.web import api, events, pages, play
from arena.league.web.errors import http_error, server_error
from arena.league.web.intake import body_limit
from arena.league.web.middleware import SecurityHeaders, StandingsFirst
from arena.league.web.state import PENDING_PER_AUTHOR, ServedLeague, WebState

__all__ = ["PENDING_PER_AUTHOR", "make_app", "routes"]


def routes() -> list[BaseRoute]:
    """Every route of the league's application, in the order they are matched."""
    assets = StaticFiles(directory=str(resources.files("arena.presentation") / "assets"))
    return [
        Route("/openapi.json", api.openapi),
        Route("/api/standings", api.standings),
        Route("/api/bots", api.post_bot, methods=["POST"]),
        Route("/api/bots/{name}", api.bot),
        Route("/api/bots/{name}/{action}", api.admin, methods=["POST"]),
        Route("/api/practice", api.post_practice, methods=["POST"]),
        Route("/api/practice/{practice:id}", api.practice_status),
        Route("/api/practice/{practice:id}/seats/{seat:int}/messages",
              api.practice_seat_messages),
        Route("/api/uploads/{upload:id}", api.upload_status),
        Route("/api/games", api.games),
        Route("/api/games/{game_id:path}/seats/{seat:int}/messages", api.seat_messages),
        Route("/api/games/{game_id:path}", api.game),
        Route("/", pages.index),
        Route("/events", events.events),
        Route("/games", pages.games_page),
        Route("/games/{game_id:path}", pages.game_page, methods=["GET"]),
        Route("/games/{game_id:path}", pages.signed_in_game_page, methods=["POST"]),
        Route("/replays/{game_id:path}", pages.replay_data),
        Route("/live", pages.live_list),
        Route("/live/{game_id}/events", events.live_stream),
        Route("/live/{game_id}", pages.live_page),
        Route("/bots/{name}", pages.bot_page, methods=["GET"]),
        Route("/bots/{name}", pages.signed_in_bot_page, methods=["POST"]),
        Route("/practice", pages.practice_form, methods=["POST"]),
        Route("/practice/{practice:id}", pages.practice_page),
        Route("/practice/{practice:id}/events", events.practice_stream),
        Route("/practice/{practice:id}/replay", pages.practice_replay),
        Route("/practice/{practice:id}/replay.js", pages.practice_replay_data),
        Route("/play", play.play_form, methods=["POST"]),
        Route("/play/{practice:id}", play.play_page),
        Route("/play/{practice:id}/events", play.play_events),
        Route("/play/{practice:id}/answer", play.play_answer, methods=["POST"]),
        Route("/play/{practice:id}/leave", play.play_leave, methods=["POST"]),
        Route("/upload", pages.upload_page, methods=["GET"]),
        Route("/upload", pages.upload_form, methods=["POST"]),
        Route("/assets/league.js", pages.league_js),
        Mount("/assets", assets),
    ]


def make_app(league: ServedLeague) -> ASGIApp:
    """The application serving `league`: the routes, with the state they share in
    `app.state.web`, inside the body limit, the security headers and `StandingsFirst`."""
    app = Starlette(routes=routes(), exception_handlers={HTTPException: http_error,
                                                        Exception: server_error})
    app.state.web = WebState(league)
    guarded = SecurityHeaders(BodyLimit(app, functools.partial(body_limit, league.config)))
    return StandingsFirst(guarded, league)
