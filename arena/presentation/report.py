"""The tournament report: a self-contained static site from a tournament's store.

`ReportBuilder(...).build()` writes into one folder: `index.html` (header facts, standings
with an error-bar chart, the crosstable and LOS matrix as coloured grids, matchups, hand
statistics, the duplicate rating), one page per entrant under `entrants/`, `games.html` (every
game, linking to its replay), `replay.html` (the replay viewer) with one data file per game
under `games/` (the record's events, gzipped and base64-encoded in a script the viewer loads,
so that the site works from `file://` with no server and no network), and `assets/`.

Reportable at any time: it reads the store through its public queries (SQLite in WAL mode, so
a running tournament is not disturbed) and lists only committed games, whose record files are
complete. A builder keeps what it read: rebuilding (`arena report --watch`) reads only the
records of new games and writes only their data files. Pages are replaced atomically.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import os
import re
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.presentation.failures import SeatFailure, seat_failures
from arena.presentation.handstats import GameFacts, game_facts, hand_report
from arena.presentation.notes import INTERVAL_METHOD, full_name, name
from arena.presentation.report_pages import (
    ReportData,
    entrant_page,
    games_page,
    index_page,
    replay_page,
)
from arena.ratings.fit import GameResult
from arena.ratings.individual import TeamResult
from arena.ratings.model import RatingsError
from arena.ratings.standings import Standings, compute_mixed_standings, compute_standings
from arena.tournament.movement import movement
from arena.tournament.records import record_json
from arena.tournament.schedule import mixed_schedule
from arena.tournament.store import Store, StoredGame

ASSETS = ("report.css", "theme.js", "report.js", "cards.js", "replay.js", "live.js",
          "icon.svg")
"""The stylesheet, scripts and icon the pages use (a server serves the same files)."""


_SLUG_KEPT = re.compile(r"[A-Za-z0-9.~@-]")
_SLUG_MAX = 150


def slug(key: str) -> str:
    """A file name and URL fragment for an entrant key or game id, one to one.

    Letters, digits and ``. ~ @ -`` stay (an entrant key ``name@hash`` and a game id
    ``key~key#pair.game`` keep their look), ``_`` is doubled and any other character is
    ``_<hex code>_`` (``#`` is ``_23_``): no '/', no character a URL, an HTML attribute or a
    JavaScript string would read, and two keys never share a file (a lossy slug would let
    an entrant name such as ``a_<hash>_b`` make two games write one replay file). A slug
    longer than 150 characters is cut and ends with a hash of the key, so that it stays a
    valid file name.
    """
    text = "".join(c if _SLUG_KEPT.fullmatch(c) else "__" if c == "_" else f"_{ord(c):x}_"
                   for c in key)
    if len(text) <= _SLUG_MAX:
        return text
    return f"{text[:_SLUG_MAX - 17]}-{hashlib.sha256(key.encode()).hexdigest()[:16]}"


@dataclass(frozen=True)
class BuildResult:
    """What one build wrote."""

    folder: Path
    games: int
    new_games: int
    """Games whose records were read by this build."""
    files: int
    bytes: int
    """Size of the whole report folder."""
    seconds: float


def _isolation_text(value: Any) -> str:
    """The record's isolation field (added by sandboxed arenas) as text."""
    if value is None:
        return "not recorded"
    if isinstance(value, Mapping):
        level = value.get("level") or value.get("name")
        rest = ", ".join(f"{k}={v}" for k, v in value.items() if k not in ("level", "name"))
        return f"{level} ({rest})" if level and rest else str(level or rest)
    return str(value)


def replay_payload(game: StoredGame, record: dict[str, Any],
                   names: Mapping[str, tuple[str, str]]) -> dict[str, Any]:
    """What the replay viewer shows of one game: the record's events (all four hands: after
    the game the record is omniscient) and its outcome, with the public facts of each
    seat's fault (the viewer's last event). Takes the events out of `record`."""
    fault = record.get("fault")
    return {
        "game_id": game.game_id, "pair_id": game.pair_id,
        "seed": None if record.get("seed") is None else str(record["seed"]),  # 64-bit: JS
                                                       # numbers are exact below 2**53 only
        "target": record.get("target"),
        "teams": [" & ".join(full_name(names, k) for k in dict.fromkeys(side))
                  for side in game.sides],  # with mixed partners, both partners' names
        "seats": None if game.partners is None else [full_name(names, k) for k in game.seats],
        "scores": list(game.scores), "winner": game.winner, "rounds": game.rounds,
        "termination": game.termination,
        "fault": None if not fault else {k: fault.get(k) for k in
                                         ("kind", "seat", "message", "round")},
        "failures": [{"seat": f.seat, "kind": f.kind, "round": f.round,
                      "decision": f.decision}
                     for f in seat_failures(game.game_id, record, game.seats)],
        "time_used": record.get("time_used"),
        "isolation": _isolation_text(record.get("isolation")),
        "events": [_without_visibility(e) for e in record["events"]],
    }


def replay_script(game_id: str, payload: Mapping[str, Any]) -> str:
    """The script that hands one game's `replay_payload` to the replay viewer (loaded by a
    ``<script>`` tag, so that it works from ``file://``): the JSON, gzipped and base64-encoded,
    under the game's slug. No JSON in the script: a slug and base64 hold no character that
    ends a string or a script."""
    data = json.dumps(payload, separators=(",", ":")).encode()
    packed = base64.b64encode(gzip.compress(data, 6, mtime=0)).decode()
    return f'tichuReplay.add("{slug(game_id)}", "{packed}");\n'


def _without_visibility(event: dict[str, Any]) -> dict[str, Any]:
    """The event minus who could see it (the replay is omniscient), changed in place: the
    record is read for this build only, and copying a game's events costs a sixth of it."""
    event.pop("visible_to", None)
    return event


def _write(path: Path, text: str | bytes) -> None:
    """Replace `path` atomically (a browser reloading mid-build sees the old or new page)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode() if isinstance(text, str) else text
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


class ReportBuilder:
    """Builds, and rebuilds as games arrive, the report of one tournament store."""

    def __init__(self, storage: Path, out: Path, rating: Mapping[str, Any],
                 games_per_matchup: int | None = None, title: str | None = None,
                 cycles: int | None = None) -> None:
        """`rating`: anchor (key), anchor_elo and prior for the standings;
        `games_per_matchup` (or with mixed partners `cycles`, from the config) lets the
        header count the scheduled games."""
        self.storage, self.out = Path(storage), Path(out)
        self.rating = dict(rating)
        self.games_per_matchup = games_per_matchup
        self.cycles = cycles
        self.title = title
        self.facts: dict[str, GameFacts] = {}
        self.isolation: dict[str, str] = {}
        self.failed: dict[str, list[SeatFailure]] = {}  # game id -> its failed seats

    def build(self, refresh: int | None = None) -> BuildResult:
        """Write the whole site; `refresh` (seconds) makes the pages reload themselves."""
        start = time.monotonic()
        with Store(self.storage, create=False) as store:
            data, new = self._gather(store)
        self._write_pages(data, refresh)
        files, size = _folder_size(self.out)
        return BuildResult(self.out, len(data.games), new, files, size,
                           time.monotonic() - start)

    # ----- reading ---------------------------------------------------------------------------

    def _gather(self, store: Store) -> tuple[ReportData, int]:
        from arena.tournament.runner import labels

        entrants = store.entrants()
        names = labels(store)
        games = store.games()
        new = self._read_new(store, games, names)
        # The tables rank the current version of each bot; a retired version is rated with
        # every version's games, shown on its own page.
        current = [e.key for e in entrants if not e.retired]
        mixed = store.partners() == "mixed"
        results = store.team_results if mixed else store.results
        standings, error = self._standings(results(current), current, mixed)
        everyone = standings
        if len(current) < len(entrants):
            everyone, _ = self._standings(results(), [e.key for e in entrants], mixed)
        anchor = self.rating.get("anchor")
        facts = [self.facts[g.game_id] for g in games if g.game_id in self.facts]
        hands = hand_report((f for f in facts if set(f.seat_entrants()) <= set(current)),
                            anchor)
        all_hands = hands if everyone is standings else hand_report(facts, anchor)
        data = ReportData(
            title=self.title or store.meta("name") or self.storage.stem, entrants=entrants,
            names=names, games=games, standings=standings, standings_error=error,
            hands=hands, failures=store.failures(), header=self._header(store, games, names),
            slug=slug, seat_failures=self.failed, current=frozenset(current),
            all_standings=everyone, all_hands=all_hands)
        return data, new

    def _standings(self, results: Sequence[GameResult] | Sequence[TeamResult],
                   keys: Sequence[str], mixed: bool) -> tuple[Standings | None, str]:
        """The standings of these entrants (individual ratings with mixed partners), or None
        and why there are none."""
        if not results:
            return None, "no games stored yet"
        compute = compute_mixed_standings if mixed else compute_standings
        try:
            return compute(results, entrants=keys, **self.rating), ""  # type: ignore[arg-type]
        except RatingsError as exc:
            return None, str(exc)

    def _read_new(self, store: Store, games: Sequence[StoredGame],
                  names: Mapping[str, tuple[str, str]]) -> int:
        """Read the records not read before: their facts, isolation and replay data file."""
        new = 0
        for game in games:
            if game.game_id in self.facts:
                continue
            try:
                record = record_json(store.record_path(game.record))
            except ArenaError:
                continue  # a record missing or unreadable: the game is listed without it
            self.facts[game.game_id] = game_facts(
                game.pair_id, game.game_index, game.teams, record,
                None if game.partners is None else game.seats)
            self.isolation[game.game_id] = _isolation_text(record.get("isolation"))
            failed = seat_failures(game.game_id, record, game.seats)
            if failed:
                self.failed[game.game_id] = failed
            _write(self.out / "games" / f"{slug(game.game_id)}.js",
                   replay_script(game.game_id, replay_payload(game, record, names)))
            new += 1
        return new

    def _header(self, store: Store, games: Sequence[StoredGame],
                names: Mapping[str, tuple[str, str]]) -> list[tuple[str, str]]:
        pairs = len({g.pair_id for g in games})
        anchor = self.rating.get("anchor")
        isolation: dict[str, int] = {}
        for g in games:
            text = self.isolation.get(g.game_id, "record unreadable")
            isolation[text] = isolation.get(text, 0) + 1
        levels = "; ".join(f"{k} ({v} games)" if len(isolation) > 1 else k
                           for k, v in sorted(isolation.items())) or "not recorded"
        mixed = store.partners() == "mixed"
        where = ("between entrants of groups" if mixed else "on matchups between groups")
        items = [("Tournament", self.title or store.meta("name") or self.storage.stem)]
        if mixed:
            items.append(("Partners", f"{store.meta('movement') or 'mixed partners'}; "
                                      "individual ratings (a team's Elo is the sum of its "
                                      "partners')"))
        items += [("Games", self._games_text(store, games)), ("Pairs", str(pairs)),
                  ("Anchor", f"{name(names, anchor)} = {self.rating.get('anchor_elo', 0.0):g}"
                   if anchor else "none: mean-centred"),
                  ("Prior", f"{self.rating.get('prior', 2.0):g} virtual draws, only {where} "
                            "that never lost to each other"),
                 ("Interval method", INTERVAL_METHOD),
                 ("Isolation", levels),
                 ("Generated", time.strftime("%Y-%m-%d %H:%M:%S %Z"))]
        return items

    def _games_text(self, store: Store, games: Sequence[StoredGame]) -> str:
        text = f"{len(games)} stored"
        if store.partners() == "mixed":
            return text + self._mixed_games_text(store, games)
        if self.games_per_matchup:
            active = [e.key for e in store.entrants() if not e.retired]
            scheduled = len(active) * (len(active) - 1) // 2 * self.games_per_matchup
            pairs = self.games_per_matchup // 2
            done = sum(1 for g in games if set(g.teams) <= set(active) and g.pair_index < pairs)
            state = "complete" if done >= scheduled else "in progress"
            text += f"; {done} of {scheduled} scheduled for the current entrants ({state})"
        return text

    def _mixed_games_text(self, store: Store, games: Sequence[StoredGame]) -> str:
        """How many of the current movement's games are stored (mixed partners)."""
        active = [e.key for e in store.entrants() if not e.retired]
        if not self.cycles or len(active) < 4:
            return ""
        plan = movement(active)
        scheduled = self.cycles * plan.games_per_cycle
        wanted = {g.game_id for g in mixed_schedule(active, self.cycles, 0)}
        done = sum(1 for g in games if g.game_id in wanted)
        state = "complete" if done >= scheduled else "in progress"
        return f"; {done} of {scheduled} scheduled for the current entrants ({state})"

    # ----- writing ---------------------------------------------------------------------------

    def _write_pages(self, data: ReportData, refresh: int | None) -> None:
        for asset in ASSETS:
            source = resources.files("arena.presentation").joinpath("assets", asset)
            _write(self.out / "assets" / asset, source.read_bytes())
        _write(self.out / "index.html", index_page(data, refresh))
        _write(self.out / "games.html", games_page(data, refresh))
        _write(self.out / "replay.html", replay_page(data))
        for entrant in data.entrants:
            _write(self.out / "entrants" / f"{slug(entrant.key)}.html",
                   entrant_page(data, entrant.key, refresh))


def _folder_size(folder: Path) -> tuple[int, int]:
    files = size = 0
    for path in folder.rglob("*"):
        if path.is_file():
            files += 1
            size += path.stat().st_size
    return files, size
