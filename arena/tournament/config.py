"""Tournament configs: a TOML file under `tournaments/`, read and checked before anything starts.

```toml
[tournament]
name = "demo"                 # optional; default: the file's stem
entrants = [                  # bot folders, relative to this file; one line per entrant
    "../bots/random",
    "../bots/heuristic",
]
games_per_matchup = 20        # even: games come in duplicate pairs
# partners = "mixed"          # optional; "fixed" (default): each entrant partners a copy of
                              # itself, a round robin of matchups. "mixed": four different
                              # entrants a game, every entrant partnering every other (the
                              # movement of arena.tournament.movement; needs 4 entrants or
                              # more, and `cycles` instead of games_per_matchup)
# cycles = 4                  # with partners = "mixed": times the movement is played, each
                              # foursome one duplicate pair per cycle (default 4)
target = 1000                 # score that ends a game
# seed = 1                    # optional; fixes the deals (reproducible, but public: anyone who
                              # knows it can compute every hand). Default: secret deals, from
                              # 256 random bits made with the store and kept in it
concurrency = 0               # worker processes; 0 = the number of cores (-j overrides)
skip_unbuildable = false      # optional; true: leave out (and name) the bots that cannot be
                              # built; false: such bots stop the run before it starts
                              # (--skip-unbuildable overrides)
pin_cpus = true               # optional; each worker and its bots on a CPU of their own
                              # (arena.referee.placement; --no-pin overrides)
# cluster = "tcp://HOST:8786"  # optional; play the games on this Dask cluster's workers
                              # ("local:N": N worker processes here; needs the cluster
                              # extra; --cluster overrides). Default: local worker processes
isolation = "auto"            # optional; "sandbox": refuse to run without a sandbox per
                              # bot process; "none": no sandbox; "auto": where the machine
                              # gives one (`arena doctor` says what it gives)
storage = "demo.sqlite"       # the SQLite store, relative to this file (holds the secret:
                              # keep it, and the records, out of every bot folder)
records = "demo.records"      # optional; record files; default: storage name + ".records"

[time]                        # optional; seconds, as arena.referee.match.TimeControl
hello = 10.0                  # to start and say hello
decision = 5.0                # for each decision
bank = 300.0                  # for all of one seat's decisions in a game
grace = 0.2                   # slack past a limit before it counts

[ratings]                     # optional
anchor = "random"             # entrant (bot name) held at anchor_elo; "" = mean-centred
anchor_elo = 0.0              # the anchor's rating
prior = 2.0                   # virtual draws, only on matchups where a rating would be infinite

[limits]                      # optional; the ceiling of every bot process's limits: a
                              # bot.toml's [limits] may only lower them; 0 = no ceiling
                              # (arena.sandbox.ResourceLimits says what each one limits)
memory_mb = 4096              # memory of the bot's processes together
cpu_seconds = 600             # CPU time over a process's life
processes = 256               # processes and threads at once
open_files = 256              # per process
disk_mb = 256                 # its private scratch space (/tmp in the sandbox)

[intake]                      # optional; what a bot folder (or archive) may hold at intake
files = 10000                 # files, folders and links
megabytes = 200               # bytes of its files together
archive_ratio = 100           # an archive's unpacked size over its packed size, at most
# folder = "bots.cache"       # optional; where snapshots and builds are kept, relative to
                              # this file. Default: $ARENA_CACHE, else
                              # ~/.cache/tichu-arena (shared by every run of this user)

[build]                       # optional; the build step of every bot, in the sandbox; each
                              # limit a whole number >= 1 (arena.sandbox.BuildLimits)
wall_seconds = 1200           # wall-clock time; the build is killed when it is up
cpu_seconds = 600             # CPU time of the build
memory_mb = 4096              # memory of the build, its /tmp included
processes = 256               # processes and threads at once
disk_mb = 1024                # what the build may write: its folder's growth and its /tmp
network = false               # true: a bot whose bot.toml says build_network = true gets the
                              # network for its build (npm install, pip install...); false:
                              # such a bot is refused. No other bot's build ever gets it
```

Every mistake is a `ConfigError` naming the file, the key and the problem; bot folders are
checked too (each must hold a valid `bot.toml`), so a bad config starts nothing.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from arena.errors import ConfigError
from arena.intake import DEFAULT_INTAKE_LIMITS, IntakeLimits, IntakePolicy
from arena.referee.manifest import BotManifest, limits_from, load_manifest, read_toml
from arena.referee.match import TimeControl
from arena.sandbox import (
    DEFAULT_BUILD_LIMITS,
    DEFAULT_LIMITS,
    REQUESTS,
    BuildLimits,
    Isolation,
    ResourceLimits,
)

_TOURNAMENT_KEYS = {"name", "entrants", "games_per_matchup", "target", "seed", "concurrency",
                    "pin_cpus", "storage", "records", "skip_unbuildable", "isolation",
                    "cluster", "partners", "cycles"}
PARTNERS = ("fixed", "mixed")
"""Who partners whom: each entrant a copy of itself, or every entrant every other."""
_TIME_KEYS = ("hello", "decision", "bank", "grace")
_RATINGS_KEYS = {"anchor", "anchor_elo", "prior"}
_MAX_SEED = 2**63 - 1


@dataclass(frozen=True)
class RatingsConfig:
    """How the standings are anchored and regularised."""

    anchor: str | None = "random"
    """Bot name (or entrant key) held at `anchor_elo`; None centres the mean rating."""
    anchor_elo: float = 0.0
    prior: float = 2.0


@dataclass(frozen=True)
class TournamentConfig:
    """A checked tournament config; paths are absolute."""

    path: Path
    name: str
    entrants: tuple[BotManifest, ...]
    """The configured bot folders' manifests, in config order."""
    games_per_matchup: int
    """Even: each matchup plays games_per_matchup / 2 duplicate pairs."""
    target: int
    seed: int | None
    """A fixed base seed (public deals), or None: secret deals from the store's secret."""
    concurrency: int
    """Worker processes; 0 means the number of cores."""
    storage: Path
    records: Path
    time: TimeControl
    ratings: RatingsConfig
    limits: ResourceLimits = DEFAULT_LIMITS
    """The ceiling of every entrant's limits (its bot.toml may only lower them)."""
    pin_cpus: bool = True
    """Each worker process and its bots on one CPU of their own (`arena.referee.placement`)."""
    skip_unbuildable: bool = False
    """Leave out the entrants that cannot be built (else they stop the run before it starts)."""
    isolation: str = "auto"
    """What the run asks of bot isolation: 'auto', 'sandbox' (or refuse to run), 'none'."""
    cluster: str | None = None
    """The Dask cluster that plays the games ('local:N', 'tcp://HOST:PORT'), or None: local
    worker processes."""
    intake: IntakeLimits = DEFAULT_INTAKE_LIMITS
    """What a bot folder may hold ([intake])."""
    intake_folder: Path | None = None
    """Where snapshots and builds are kept; None: intake's default (`default_root`)."""
    build: BuildLimits = DEFAULT_BUILD_LIMITS
    """The limits of every bot's build ([build])."""
    build_network: bool = False
    """Whether a bot whose build asks for the network gets it ([build] network)."""
    partners: str = "fixed"
    """'fixed': each entrant partners a copy of itself (a round robin of matchups); 'mixed':
    every game seats four different entrants (`arena.tournament.movement`)."""
    cycles: int = 4
    """With mixed partners: how many times the movement is played."""

    @property
    def mixed(self) -> bool:
        return self.partners == "mixed"

    @property
    def pairs_per_matchup(self) -> int:
        return self.games_per_matchup // 2

    def with_limits(self, manifest: BotManifest) -> BotManifest:
        """`manifest` with its own limits under this tournament's ceiling."""
        return manifest.with_ceiling(self.limits)

    def intake_policy(self, isolation: Isolation) -> IntakePolicy:
        """How this tournament's bots are taken in, built at `isolation`."""
        policy = IntakePolicy(isolation, self.intake, self.build, self.build_network)
        if self.intake_folder is not None:
            policy = replace(policy, root=self.intake_folder)
        return policy

    def workers(self, override: int | None = None) -> int:
        """Workers to run: `override` (-j) if given, else the config's, else the core count."""
        wanted = override if override else self.concurrency
        return wanted if wanted > 0 else available_cores()


def available_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def load_config(path: str | Path, bots: bool = True,
                sections: frozenset[str] = frozenset()) -> TournamentConfig:
    """Read and check a tournament config; ConfigError naming file, key and problem.

    `sections`: further top-level tables the file may hold, read by the caller (the
    league's [league], `arena.league.config`).

    `bots=False` is for reading results (standings, report, export): the entrants' folders
    are not opened, so a folder deleted or renamed since the games were played does not
    stop anyone reading them; the config's `entrants` is then empty."""
    path = Path(path).resolve()
    if not path.is_file():
        raise ConfigError(f"{path}: no such tournament config")
    data = read_toml(path)
    _known(path, data, "", {"tournament", "time", "ratings", "limits", "intake", "build",
                            *sections})
    section = _table(path, data, "tournament", required=True)
    _known(path, section, "tournament.", _TOURNAMENT_KEYS)
    name = _get(path, section, "tournament.name", str, path.stem)
    games = _get(path, section, "tournament.games_per_matchup", int, 10)
    if games < 2 or games % 2:
        raise ConfigError(f"{path}: key 'tournament.games_per_matchup': must be an even number "
                          f"of at least 2 (games come in duplicate pairs), not {games}")
    target = _get(path, section, "tournament.target", int, 1000)
    if target < 1:
        raise ConfigError(f"{path}: key 'tournament.target': must be at least 1, not {target}")
    seed = _get(path, section, "tournament.seed", int, None)
    if seed is not None and not 0 <= seed <= _MAX_SEED:
        raise ConfigError(f"{path}: key 'tournament.seed': must be between 0 and 2**63-1")
    concurrency = _get(path, section, "tournament.concurrency", int, 0)
    if concurrency < 0:
        raise ConfigError(f"{path}: key 'tournament.concurrency': must be 0 (one worker per "
                          f"core) or more, not {concurrency}")
    pin_cpus = _get(path, section, "tournament.pin_cpus", bool, True)
    skip = _get(path, section, "tournament.skip_unbuildable", bool, False)
    storage = _relative_path(path, section, "tournament.storage", f"{path.stem}.sqlite")
    records = _relative_path(path, section, "tournament.records", f"{storage.name}.records")
    isolation = _get(path, section, "tournament.isolation", str, "auto")
    if isolation not in REQUESTS:
        raise ConfigError(f"{path}: key 'tournament.isolation': must be one of "
                          f"{', '.join(map(repr, REQUESTS))}, not {isolation!r}")
    cluster = _get(path, section, "tournament.cluster", str, None)
    problem = None if cluster is None else address_problem(cluster)
    if problem:
        raise ConfigError(f"{path}: key 'tournament.cluster': {problem}")
    entrants = _entrants(path, section) if bots else ()
    for manifest in entrants:
        check_outside(path, manifest, storage, records)
    partners, cycles = _partners(path, section)
    intake, intake_folder = _intake(path, data)
    build, build_network = _build(path, data)
    return TournamentConfig(path, name, entrants, games, target, seed,
                            concurrency, storage, records, _time(path, data),
                            _ratings(path, data),
                            limits_from(path, data.get("limits", {}), "limits"), pin_cpus,
                            skip_unbuildable=skip, isolation=isolation, cluster=cluster,
                            intake=intake, intake_folder=intake_folder, build=build,
                            build_network=build_network, partners=partners, cycles=cycles)


def _partners(path: Path, section: dict[str, Any]) -> tuple[str, int]:
    """tournament.partners and, for mixed partners, tournament.cycles (each key only where it
    means something)."""
    partners = _get(path, section, "tournament.partners", str, "fixed")
    if partners not in PARTNERS:
        raise ConfigError(f"{path}: key 'tournament.partners': must be one of "
                          f"{', '.join(map(repr, PARTNERS))}, not {partners!r}")
    if partners == "fixed":
        if "cycles" in section:
            raise ConfigError(f"{path}: key 'tournament.cycles': only for partners = "
                              "\"mixed\" (fixed partners play games_per_matchup)")
        return partners, 4
    if "games_per_matchup" in section:
        raise ConfigError(f"{path}: key 'tournament.games_per_matchup': with partners = "
                          "\"mixed\" there are no matchups; say how many times the movement "
                          "is played with `cycles`")
    cycles = _get(path, section, "tournament.cycles", int, 4)
    if cycles < 1:
        raise ConfigError(f"{path}: key 'tournament.cycles': must be at least 1, not {cycles}")
    if len(section.get("entrants", [])) < 4:
        raise ConfigError(f"{path}: key 'tournament.entrants': mixed partners need at least "
                          f"four entrants (a game seats four different ones), not "
                          f"{len(section['entrants'])}")
    return partners, cycles


def _intake(path: Path, data: dict[str, Any]) -> tuple[IntakeLimits, Path | None]:
    """[intake]: what a bot folder may hold, and where snapshots are kept."""
    section = _table(path, data, "intake", required=False)
    _known(path, section, "intake.", {"files", "megabytes", "archive_ratio", "folder"})
    base = DEFAULT_INTAKE_LIMITS
    limits = replace(base,
                     files=_count(path, section, "intake.files", base.files),
                     bytes=_count(path, section, "intake.megabytes",
                                  base.bytes // 2**20) * 2**20,
                     archive_ratio=_count(path, section, "intake.archive_ratio",
                                          base.archive_ratio))
    folder = (_relative_path(path, section, "intake.folder", "") if "folder" in section
              else None)
    return limits, folder


def _build(path: Path, data: dict[str, Any]) -> tuple[BuildLimits, bool]:
    """[build]: the limits of every bot's build, and whether a build may have the network."""
    section = _table(path, data, "build", required=False)
    names = [f.name for f in fields(BuildLimits) if f.name != "output_kb"]
    _known(path, section, "build.", {*names, "network"})
    values = {name: _count(path, section, f"build.{name}", getattr(DEFAULT_BUILD_LIMITS, name))
              for name in names}
    return (replace(DEFAULT_BUILD_LIMITS, **values),
            _get(path, section, "build.network", bool, False))


def _count(path: Path, section: dict[str, Any], key: str, default: int) -> int:
    value = _get(path, section, key, int, default)
    if value < 1:
        raise ConfigError(f"{path}: key '{key}': must be a whole number of at least 1, not "
                          f"{value}")
    return value


_LOCAL = "local:"
_ADDRESS = re.compile(r"^(?:(?:tcp|tls)://)?[A-Za-z0-9_.\-]+:\d{1,5}$|"
                      r"^(?:(?:tcp|tls)://)?\[[0-9A-Fa-f:]+\]:\d{1,5}$")


def address_problem(address: str) -> str | None:
    """What is wrong with a cluster address (None: nothing): 'local:N' (N worker processes on
    this machine) or a Dask scheduler's 'tcp://HOST:PORT' ('tls://...', or 'HOST:PORT')."""
    if address.startswith(_LOCAL):
        count = address[len(_LOCAL):]
        if not count.isdigit() or int(count) < 1:
            return f"'local:N' needs a number of worker processes N >= 1, not {address!r}"
        return None
    if not _ADDRESS.match(address):
        return ("must be 'local:N' (N worker processes on this machine) or a Dask scheduler's "
                f"address such as 'tcp://HOST:8786', not {address!r}")
    return None


def check_outside(path: Path, manifest: BotManifest, storage: Path, records: Path) -> None:
    """ConfigError if the store or the records are inside a bot folder: a bot may read its
    own folder, and the store holds the deal secret, the records every hand played."""
    for key, where in (("storage", storage), ("records", records)):
        if where.is_relative_to(manifest.folder):
            raise ConfigError(f"{path}: key 'tournament.{key}': {where} is inside the folder "
                              f"of the bot {manifest.name!r}, which that bot can read; put it "
                              "outside every bot folder")


def _entrants(path: Path, section: dict[str, Any]) -> tuple[BotManifest, ...]:
    folders = section.get("entrants")
    if not isinstance(folders, list) or not folders:
        raise ConfigError(f"{path}: key 'tournament.entrants': must be a non-empty list of bot "
                          "folders (relative to the config file)")
    manifests: list[BotManifest] = []
    for k, folder in enumerate(folders):
        key = f"tournament.entrants[{k}]"
        if not isinstance(folder, str) or not folder:
            raise ConfigError(f"{path}: key '{key}': must be a bot folder path, not {folder!r}")
        try:
            manifest = load_manifest(path.parent / folder)
        except ConfigError as exc:
            raise ConfigError(f"{path}: key '{key}': {exc}") from None
        for other in manifests:
            if other.folder == manifest.folder:
                raise ConfigError(f"{path}: key '{key}': {folder!r} is listed twice")
            if other.name == manifest.name:
                raise ConfigError(f"{path}: key '{key}': bot name {manifest.name!r} is also "
                                  f"the name of {other.folder}; entrant names must differ")
        manifests.append(manifest)
    return tuple(manifests)


def _time(path: Path, data: dict[str, Any]) -> TimeControl:
    section = _table(path, data, "time", required=False)
    _known(path, section, "time.", set(_TIME_KEYS))
    default = TimeControl()
    values = []
    for key in _TIME_KEYS:
        value = _get(path, section, f"time.{key}", float, getattr(default, key))
        if value <= 0 and key != "grace" or value < 0:
            raise ConfigError(f"{path}: key 'time.{key}': must be a positive number of "
                              f"seconds, not {value}")
        values.append(value)
    return TimeControl(*values)


def _ratings(path: Path, data: dict[str, Any]) -> RatingsConfig:
    section = _table(path, data, "ratings", required=False)
    _known(path, section, "ratings.", _RATINGS_KEYS)
    anchor = _get(path, section, "ratings.anchor", str, "random") or None
    prior = _get(path, section, "ratings.prior", float, 2.0)
    if prior < 0:
        raise ConfigError(f"{path}: key 'ratings.prior': must not be negative, not {prior}")
    return RatingsConfig(anchor, _get(path, section, "ratings.anchor_elo", float, 0.0), prior)


def _table(path: Path, data: dict[str, Any], key: str, required: bool) -> dict[str, Any]:
    if key not in data:
        if required:
            raise ConfigError(f"{path}: missing table [{key}]")
        return {}
    if not isinstance(data[key], dict):
        raise ConfigError(f"{path}: key '{key}': must be a table ([{key}])")
    return data[key]


def _known(path: Path, data: dict[str, Any], prefix: str, known: set[str]) -> None:
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(f"{path}: unknown key '{prefix}{unknown[0]}' (known: "
                          f"{', '.join(sorted(known))})")


def _get(path: Path, data: dict[str, Any], key: str, kind: type, default: Any) -> Any:
    name = key.rsplit(".", 1)[-1]
    if name not in data:
        return default
    value = data[name]
    ok = isinstance(value, kind) and (kind is bool or not isinstance(value, bool))
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value, ok = float(value), True
    if not ok:
        raise ConfigError(f"{path}: key '{key}': must be {_KIND_NAMES[kind]}, not {value!r}")
    return value


_KIND_NAMES = {int: "an integer", float: "a number", str: "a string", bool: "true or false"}


def _relative_path(path: Path, section: dict[str, Any], key: str, default: str) -> Path:
    value = _get(path, section, key, str, default)
    if not value:
        raise ConfigError(f"{path}: key '{key}': must be a non-empty path")
    return (path.parent / value).resolve()


# The checks of a config's keys, for configs that extend a tournament's (the league's).
known_keys = _known
get_key = _get
get_table = _table
count_key = _count
