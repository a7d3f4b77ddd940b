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
practice_per_day = 5          # practice games an author may ask for in 24 hours (429 above)
games_per_minute = 60         # optional; at most this many rated games start a minute (default:
                              # no limit, each worker starts its next batch at once)
uploads = "league.uploads"    # optional; where uploads are kept, relative to this file
                              # (default: storage name + ".uploads")
```

Every mistake is a `ConfigError` naming the file, the key and the problem.
"""

from __future__ import annotations

from dataclasses import dataclass
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
                "practice_per_day", "games_per_minute"}


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
    games_per_minute: int | None = None
    """At most this many rated games start a minute (`scheduler.Pace`); None: no limit."""
    uploads: Path = Path()
    """Where uploaded archives are kept (one file per upload, named by its id)."""

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
        games_per_minute=(count_key(file, section, "league.games_per_minute", 1)
                          if "games_per_minute" in section else None),
        uploads=(file.parent / uploads).resolve())
