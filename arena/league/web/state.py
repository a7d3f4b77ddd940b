"""What the endpoints share, built once by `make_app` and reached from a request.

`ServedLeague` is what the web layer needs of the running league (`server.League` has it):
the web layer declares it here so that it never imports the server. `WebState` holds the
league with what is derived from its config once (the path scrubber, the upload quota, the
event streams' registry); `shared(request)` finds it in `request.app.state`.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from starlette.requests import Request

from arena.intake import IntakePolicy
from arena.league.accounts import Accounts, UploadQuota
from arena.league.config import LeagueConfig
from arena.league.limits import EventStreams
from arena.league.practice import Practice, practice_storage
from arena.league.privacy import PathScrubber
from arena.league.seats import SeatGames
from arena.league.standings import StandingsCache
from arena.league.uploads import IntakeQueue
from arena.tournament.store import Store

PENDING_PER_AUTHOR = 2
"""Uploads of one author being taken in at once, at most (429 beyond)."""
EVENT_SECONDS = 15.0
"""A comment line on the events stream at least this often (proxies close a silent one)."""


class ServedLeague(Protocol):
    """What the web layer uses of the running league (`arena.league.server.League`)."""

    config: LeagueConfig
    policy: IntakePolicy
    standings: StandingsCache
    """The last table of the standings, kept ready."""
    intake: IntakeQueue
    """Where a received upload goes to be taken in."""
    practice: Practice
    """The authors' unrated practice games."""
    seats: SeatGames
    """The practice games with a person at a seat (`/play`)."""
    live: Path
    """The folder of the spectators' files of the games in progress."""
    stopping: threading.Event
    """Set when the server stops: the event streams end."""

    def active(self) -> list[str]:
        """The keys of the entrants in the live table."""

    def set_disabled(self, name: str, disabled: bool) -> bool:
        """The organizer's disable or enable of bot `name`; False if it is no upload's."""

    def rebuild(self, name: str, upload_id: int | None = None, version: str | None = None
                ) -> int | None:
        """The organizer's rebuild of one of bot `name`'s uploads; the upload's id."""


@dataclass
class WebState:
    """The league served and what every endpoint derives from its config."""

    league: ServedLeague
    scrub: PathScrubber = field(init=False)
    """Takes the server's own paths out of a text shown to anyone."""
    quota: UploadQuota = field(init=False)
    streams: EventStreams = field(init=False)
    """The three event streams' caps, lifetime and heartbeat (`limits.py`)."""

    def __post_init__(self) -> None:
        config = self.league.config
        self.scrub = PathScrubber.for_league(self.league.policy.root, config.uploads,
                                             config.storage)
        self.quota = UploadQuota(config.uploads_per_hour, PENDING_PER_AUTHOR)
        self.streams = EventStreams(config.limits, self.league.stopping, EVENT_SECONDS)

    @property
    def config(self) -> LeagueConfig:
        return self.league.config

    @property
    def storage(self) -> Path:
        """The league's store (the rated games, the entrants, the accounts' tables)."""
        return self.league.config.storage

    @property
    def practice_store(self) -> Path:
        """The store of the practice games, apart from the rated ones."""
        return practice_storage(self.league.config)

    @property
    def house(self) -> set[str]:
        """The names of the league's own entrants (the config's)."""
        return {m.name for m in self.league.config.tournament.entrants}

    def accounts(self) -> Accounts:
        """The authors, their tokens, uploads and practice games (open it with `with`)."""
        return Accounts(self.storage)

    def read_store(self, path: Path | None = None) -> Store:
        """The league's store (or the one at `path`), read only."""
        return Store(self.storage if path is None else path, read_only=True)


def shared(request: Request) -> WebState:
    """The state of the application serving `request`."""
    state = request.app.state.web
    assert isinstance(state, WebState), "make_app puts the WebState in app.state.web"
    return state


def server_url(request: Request) -> str:
    """The league's URL as this client reached it, for the commands its pages print."""
    return str(request.base_url).rstrip("/")
