"""League configs: a tournament config (its entrants are the house bots) with a [league] table.

Every key of a tournament config means what it means there (`arena.tournament.config`: the
store, the time control, the limits, intake, the build); `tournaments/league.toml` documents
each one. The [league] table:

```toml
[league]
upload_megabytes = 20         # the largest upload (413 above it)
uploads_per_hour = 10         # per author in any hour, uploads refused at intake (too large,
                              # not an archive, refused by the snapshot check) included (429
                              # above it; a 429 itself counts toward nothing)
intakes = 1                   # uploads taken in (built and checked) at once
placement_pairs = 2           # duplicate pairs a new version plays against each active entrant
                              # before the general schedule
batch_pairs = 2               # pairs given to each worker per round of the scheduler
check_games = 1               # games of check-bot an upload plays against the random bot
check_target = 200            # their target score
practice_per_day = 5          # practice games an author may ask for in 24 hours (429 above);
                              # a game at a seat in the browser (/play) counts as one too
human_games = 2               # games with a person at a seat (/play) at once (429 above)
human_decision_seconds = 600  # a person's time for each decision at a seat in the browser
human_reconnect_seconds = 300 # a seat with no page open this long while asked is left
                              # (the game ends as left, a forfeit)
games_per_minute = 60         # optional; at most this many rated games start a minute (default:
                              # no limit, each worker starts its next batch at once)
uploads = "league.uploads"    # optional; where uploads are kept, relative to this file
                              # (default: storage name + ".uploads")
connections = 256             # open connections at once, in total (503 beyond)
connections_per_client = 16   # open connections at once from one client address (429 beyond)
streams = 64                  # event streams open at once, in total (503 beyond)
streams_per_client = 4        # event streams open at once per client address (429 beyond)
header_seconds = 10           # a request's headers must arrive within this (408 past it)
body_seconds = 120            # its body, within this of its headers (408 past it)
stream_minutes = 10           # an event stream ends after this (the browser reconnects)
proxies = []                  # reverse proxies in front (none: exposed directly); their
                              # connections count only in the totals, and streams count per
                              # the address they forward; nginx here: ["127.0.0.1", "::1"]
```

The web server's limits (`ServerLimits`, enforced by `limits.py`) keep it reachable when
exposed directly, without a proxy: a flood from one address is refused at once.

Every mistake is a `ConfigError` naming the file, the key and the problem.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.errors import ConfigError
from arena.referee.manifest import read_toml
from arena.tournament.config import (
    TournamentConfig,
    count_key,
    get_key,
    get_table,
    known_keys,
    load_config,
)

_LEAGUE_KEYS = {"upload_megabytes", "uploads_per_hour", "intakes", "placement_pairs",
                "batch_pairs", "check_games", "check_target", "uploads",
                "practice_per_day", "games_per_minute", "human_games",
                "human_decision_seconds", "human_reconnect_seconds", "connections",
                "connections_per_client", "streams", "streams_per_client", "header_seconds",
                "body_seconds", "stream_minutes", "proxies"}


@dataclass(frozen=True)
class ServerLimits:
    """What the web server lets clients hold (`limits.py`): the [league] keys of these names.
    README, Security, "The league: what one client can take", lists and measures them."""

    connections: int = 256
    """Open connections at once, in total; another is answered 503 and closed."""
    connections_per_client: int = 16
    """Open connections at once from one client address; another is answered 429."""
    streams: int = 64
    """Event streams (`/events`, `/live/ID/events`, `/practice/ID/events`) open at once."""
    streams_per_client: int = 4
    """Event streams open at once per client address; another is answered 429."""
    header_seconds: float = 10.0
    """A request's headers arrive within this of the connection or the last response."""
    body_seconds: float = 120.0
    """A request's body arrives within this of its headers (20 MB at 170 KB/s)."""
    stream_minutes: float = 10.0
    """An event stream ends after this; the browser's EventSource reconnects by itself."""
    proxies: tuple[str, ...] = ()
    """Addresses (or networks) of reverse proxies: exempt from the per-client caps, and the
    address they forward (X-Forwarded-For) is the client's for the streams. None by default:
    a league exposed directly trusts no address, 127.0.0.1 included (a local user)."""


def _server_limits(file: Path, section: dict[str, Any]) -> ServerLimits:
    """The [league] table's server limits; ConfigError naming file, key and problem."""
    default = ServerLimits()
    counts = {key: count_key(file, section, f"league.{key}", getattr(default, key))
              for key in ("connections", "connections_per_client", "streams",
                          "streams_per_client")}
    for part, whole in (("connections_per_client", "connections"),
                        ("streams_per_client", "streams"), ("streams", "connections")):
        if counts[part] > counts[whole]:
            raise ConfigError(f"{file}: key 'league.{part}': must be at most league.{whole} "
                              f"({counts[whole]}), not {counts[part]}")
    times = {key: get_key(file, section, f"league.{key}", float, getattr(default, key))
             for key in ("header_seconds", "body_seconds", "stream_minutes")}
    for key, value in times.items():
        if not 0 < value < 1e6:
            raise ConfigError(f"{file}: key 'league.{key}': must be a number above 0 (and "
                              f"below a million), not {value}")
    return ServerLimits(**counts, **times, proxies=_proxies(file, section, default.proxies))


def _proxies(file: Path, section: dict[str, Any], default: tuple[str, ...]
             ) -> tuple[str, ...]:
    value = section.get("proxies", list(default))
    if not isinstance(value, list):
        raise ConfigError(f"{file}: key 'league.proxies': must be a list of addresses, not "
                          f"{value!r}")
    for entry in value:
        if not isinstance(entry, str) or not _is_network(entry):
            raise ConfigError(f"{file}: key 'league.proxies': {entry!r} is not an IP address "
                              "or network (e.g. \"127.0.0.1\" or \"10.0.0.0/8\")")
    return tuple(value)


def _is_network(text: str) -> bool:
    try:
        ipaddress.ip_network(text, strict=False)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class LeagueConfig:
    """A checked league config: its tournament part and its [league] table."""

    tournament: TournamentConfig
    upload_bytes: int = 20 * 2**20
    uploads_per_hour: int = 10
    intakes: int = 1
    placement_pairs: int = 2
    batch_pairs: int = 2
    check_games: int = 1
    check_target: int = 200
    practice_per_day: int = 5
    """Unrated practice games an author may ask for in any 24 hours (`practice.py`)."""
    human_games: int = 2
    """Games with a person at a seat in the browser at once, at most (`seats.py`)."""
    human_decision_seconds: int = 600
    """A person's time for each decision at a seat in the browser."""
    human_reconnect_seconds: int = 300
    """How long a seat asked a decision may have no page open before it is left."""
    games_per_minute: int | None = None
    """At most this many rated games start a minute (`scheduler.Pace`); None: no limit."""
    uploads: Path = Path()
    """Where uploaded archives are kept (one file per upload, named by its id)."""
    limits: ServerLimits = field(default_factory=ServerLimits)
    """The web server's caps and deadlines (`limits.py`)."""

    @property
    def path(self) -> Path:
        return self.tournament.path

    @property
    def storage(self) -> Path:
        return self.tournament.storage


def load_league(path: str | Path, bots: bool = True) -> LeagueConfig:
    """Read and check a league config; ConfigError naming file, key and problem."""
    tournament = load_config(path, bots, sections=frozenset({"league"}))
    file = tournament.path
    data = read_toml(file)
    section: dict[str, Any] = get_table(file, data, "league", required=False)
    known_keys(file, section, "league.", _LEAGUE_KEYS)
    if tournament.mixed:
        raise ConfigError(f"{file}: key 'tournament.partners': a league plays fixed partners "
                          "(each entrant partnering a copy of itself)")
    if tournament.seed is not None:
        raise ConfigError(f"{file}: key 'tournament.seed': a league plays secret deals only "
                          "(its authors must not be able to compute the hands); remove it")
    uploads = get_key(file, section, "league.uploads", str, f"{tournament.storage.name}.uploads")
    if not uploads:
        raise ConfigError(f"{file}: key 'league.uploads': must be a non-empty path")
    return LeagueConfig(
        tournament,
        upload_bytes=count_key(file, section, "league.upload_megabytes", 20) * 2**20,
        uploads_per_hour=count_key(file, section, "league.uploads_per_hour", 10),
        intakes=count_key(file, section, "league.intakes", 1),
        placement_pairs=count_key(file, section, "league.placement_pairs", 2),
        batch_pairs=count_key(file, section, "league.batch_pairs", 2),
        check_games=count_key(file, section, "league.check_games", 1),
        check_target=count_key(file, section, "league.check_target", 200),
        practice_per_day=count_key(file, section, "league.practice_per_day", 5),
        human_games=count_key(file, section, "league.human_games", 2),
        human_decision_seconds=count_key(file, section, "league.human_decision_seconds", 600),
        human_reconnect_seconds=count_key(file, section, "league.human_reconnect_seconds",
                                          300),
        games_per_minute=(count_key(file, section, "league.games_per_minute", 1)
                          if "games_per_minute" in section else None),
        uploads=(file.parent / uploads).resolve(),
        limits=_server_limits(file, section))
