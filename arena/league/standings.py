"""The live standings: made once per new game (never per request), off the server's process.

`StandingsCache` asks a process of its own (`python -m arena.league.standings`, `serve`) for
a new table when the league wakes it (as each game is stored, or the entrants change), at
most once per `REFIT_SECONDS`. That process keeps every game it has read counted
(`arena.ratings.tally.Tally`: per matchup, what its pairs came to), reads only the games
stored since (`Store.results_after`), and fits warm-started from its last fit: the cost of a
table grows with the entrants, not with the games stored, and no fit holds the server's
interpreter while requests wait. It sends back a `Table`: the JSON of `GET /api/standings`,
already encoded, the leaderboard's HTML (the report's own view,
`arena.presentation.views.leaderboard`, with its author and order columns) and each
entrant's rating and interval for the scheduler. A request is sent the last `Table`'s bytes:
no query, no fit, no encoding.

After each fit the standings process also writes the table to a file beside the store
(`snapshot_path`, replaced whole: `save_snapshot`), and a server starting on that store serves
it (`load_snapshot`, marked as from before the restart) until its own first table arrives:
on a big store that first read of every game takes seconds, and the leaderboard is never
empty meanwhile.

The order column says, between each entrant and the next one down, whether their order is
settled (the 95% interval of their difference excludes 0) or about how many more pairs of
their matchup it would take (the interval shrinks as one over the square root of the games).
"""

from __future__ import annotations

import functools
import json
import logging
import math
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from arena.errors import ArenaError
from arena.league.accounts import Accounts
from arena.presentation.notes import left_out_note, standings_notes
from arena.presentation.report_pages import leaderboard_rows
from arena.presentation.views import leaderboard
from arena.ratings.model import RatingsError
from arena.ratings.standings import Standings
from arena.ratings.tally import Tally
from arena.tournament.config import TournamentConfig
from arena.tournament.runner import labels
from arena.tournament.store import Store

logger = logging.getLogger(__name__)

REFIT_SECONDS = 1.0
"""The least time between two fits: a finished game shows within about this much."""
NICE = 5
"""The standings process's niceness: on a busy machine the server's answers and the games
come first, and the table may take a little longer to change (a fit of 100 entrants takes
about a second of CPU)."""


@dataclass(frozen=True)
class Table:
    """One fit of the live standings, as everything shows it."""

    version: int = 0
    """Counts the fits: a page's events say the table changed by it."""
    games: int = 0
    rows: tuple[dict[str, Any], ...] = ()
    notes: tuple[str, ...] = ()
    html: str = '<p class="empty" id="no-standings">No standings yet: no games played.</p>'
    ratings: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    """Entrant key -> (rating, half-width of its 95% interval), for the scheduler."""
    stale: bool = False
    """The table the last run left (`load_snapshot`), served until this run's first."""

    def json(self) -> dict[str, Any]:
        return {"games": self.games, "version": self.version, "standings": list(self.rows),
                "notes": list(self.notes), "stale": self.stale}

    @functools.cached_property
    def body(self) -> bytes:
        """`json()` encoded, once per fit: what every request for the table is sent."""
        return json.dumps(self.json(), separators=(",", ":")).encode()

    @functools.cached_property
    def event(self) -> str:
        """The table as one server-sent event (the leaderboard's new HTML), once per fit."""
        data = json.dumps({"version": self.version, "games": self.games, "html": self.html})
        return f"event: standings\ndata: {data}\n\n"


STALE_NOTE = ("From before the restart: these are the standings the last run left, updating "
              "(the stored games are being read again).")
SNAPSHOT_FORMAT = 1


def snapshot_path(storage: Path) -> Path:
    """The file beside the store that holds the last table (`save_snapshot`)."""
    return storage.with_name(storage.name + ".standings.json")


def save_snapshot(storage: Path, table: Table) -> None:
    """Write `table` to `snapshot_path(storage)`, whole or not at all (a temporary file
    renamed over it: a server reading it, or a kill -9 meanwhile, sees the old or the new)."""
    path = snapshot_path(storage)
    data = {"format": SNAPSHOT_FORMAT, "version": table.version, "games": table.games,
            "rows": list(table.rows), "notes": list(table.notes), "html": table.html,
            "ratings": {k: list(v) for k, v in table.ratings.items()}}
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        temporary.write_text(json.dumps(data, separators=(",", ":")))
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def load_snapshot(storage: Path) -> Table | None:
    """The table the last run on `storage` left, marked stale (its notes and HTML say it is
    from before the restart); None if there is none, or it cannot be read (logged)."""
    path = snapshot_path(storage)
    try:
        data = json.loads(path.read_text())
        if data.get("format") != SNAPSHOT_FORMAT:
            raise ValueError(f"format {data.get('format')!r}, not {SNAPSHOT_FORMAT}")
        return Table(
            int(data["version"]), int(data["games"]), tuple(data["rows"]),
            (STALE_NOTE, *data["notes"]),
            f'<p class="stale" id="standings-stale">{STALE_NOTE}</p>{data["html"]}',
            {k: (float(r), float(h)) for k, (r, h) in data["ratings"].items()}, stale=True)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        logger.warning("%s: the last standings cannot be read (%s); the table starts empty",
                       path, exc)
        return None


def order_text(s: Standings, a: str, b: str, pairs: int) -> str:
    """Whether `a`'s place above `b` is settled, or about how many more pairs it needs."""
    fit = s.fit_of(a)
    if fit is None or fit is not s.fit_of(b):
        return ""
    diff, half = fit.difference(a, b)
    if not math.isfinite(half):
        return "settled" if math.isinf(diff) else ""
    if abs(diff) > half:
        return "settled"
    if diff == 0:
        return "tied"
    more = max(1, math.ceil(max(pairs, 1) * ((half / abs(diff)) ** 2 - 1)))
    return f"~{more} more pairs"


class StandingsCache:
    """The last table of the active entrants' standings, made by a process of its own.

    A thread here waits (holding nothing: it reads a pipe) while the standings process
    (`TableMaker`, `python -m arena.league.standings`) reads the new games, counts them and
    fits; the table comes back whole, its JSON already encoded, and requests are served it.
    The process ends with the server (it exits at the end of its input, however the server
    ended) and is started again should it die.
    """

    def __init__(self, config: TournamentConfig, authors: Callable[[], Mapping[str, str]],
                 active: Callable[[], list[str]],
                 on_change: Callable[[Table], None] | None = None) -> None:
        self.config = config
        self.authors = authors
        self.active = active
        self.on_change = on_change
        self.table = load_snapshot(config.storage) or Table()
        self._publish(self.table)
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="arena-standings", daemon=True)
        self._child: _Child | None = None
        self._kept: dict[str, int] = {}  # entrant: its games at its last rating kept

    def start(self) -> None:
        self._thread.start()

    def wake(self) -> None:
        """A game was stored (or the entrants changed): refit soon."""
        self._wake.set()

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        self._thread.join(30)
        if self._child is not None:
            self._child.close()

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(2.0)
            self._wake.clear()
            started = time.monotonic()
            try:
                self.refresh()
            except Exception:  # a fit that fails is logged; the last table stays
                logger.exception("the standings could not be fitted")
            # a fit at most every REFIT_SECONDS, and never more than half the time: the
            # games need the CPU more than the table needs to change twice a second
            elapsed = time.monotonic() - started
            self._stop.wait(max(REFIT_SECONDS, elapsed) - elapsed)

    def refresh(self) -> bool:
        """Refit if the store holds new games or the active entrants changed; True if so."""
        if self._child is None or not self._child.alive():
            self._child = _Child()
        request = Request(self.config.storage, tuple(self.active()), dict(self.authors()),
                          self.table.version + 1, self.config.ratings.anchor,
                          self.config.ratings.anchor_elo, self.config.ratings.prior)
        table = self._child.ask(request)
        if table is None:
            return False
        self._history(list(table.rows))
        self._publish(table)
        return True

    def _history(self, rows: list[dict[str, Any]]) -> None:
        """Keep each entrant's rating when its games grew by a tenth (or 2) since the last
        kept: the history of its bot page, a few dozen points however long it plays."""
        kept = []
        for row in rows:
            last = self._kept.get(row["key"], 0)
            if row["rating"] is not None and row["games"] >= max(last + 2, last * 1.1):
                self._kept[row["key"]] = row["games"]
                kept.append((row["key"], row["games"], row["rating"],
                             row["interval"] if row["interval"] is not None else math.inf))
        if kept:
            with Accounts(self.config.storage) as accounts:
                accounts.add_ratings(kept)

    def _publish(self, table: Table) -> None:
        table.body, table.event  # noqa: B018 (encoded once, not by a request)
        self.table = table
        if self.on_change is not None:
            self.on_change(table)


# ----- the standings process ------------------------------------------------------------------

@dataclass(frozen=True)
class Request:
    """What the standings process is asked: the table of these entrants, if it changed."""

    storage: Path
    keys: tuple[str, ...]
    """The active entrants."""
    authors: Mapping[str, str]
    """Bot name -> its author (house bots: absent)."""
    version: int
    """The version the new table gets."""
    anchor: str | None
    anchor_elo: float
    prior: float


def bot_href(key: str) -> str:
    """An entrant's bot page."""
    return f"/bots/{key.split('@')[0]}"


class TableMaker:
    """The standings process's state: the games read so far, counted (`Tally`), and the
    last table's games and entrants (the same again: no new table)."""

    def __init__(self) -> None:
        self.tally = Tally()
        self.rowid = 0
        self.count = 0
        self.fitted: tuple[int, tuple[str, ...]] | None = None

    def make(self, request: Request) -> Table | None:
        """The table, or None if no game was stored and the entrants are the same."""
        with Store(request.storage, read_only=True) as store:
            self.rowid, count, results = store.results_after(self.rowid)
            self.tally.add(results)
            self.count += count
            if self.fitted == (self.count, request.keys):
                return None
            names = labels(store)
            failures = store.failures()
            retired = {e.key for e in store.entrants() if e.retired}
        self.fitted = (self.count, request.keys)
        anchors = [k for k in request.keys if names.get(k, ("", ""))[0] == request.anchor]
        try:
            s = self.tally.standings(request.keys, anchor=anchors[0] if anchors else None,
                                     anchor_elo=request.anchor_elo, prior=request.prior)
        except RatingsError:
            return Table(request.version, self.count, html=Table().html)
        left = self.left_out(request.keys, retired, names)
        return _table(s, names, request, failures, self.tally.complete_pairs(), self.count,
                      () if left is None else (left,))

    def left_out(self, keys: tuple[str, ...], retired: set[str],
                 names: Mapping[str, tuple[str, str]]) -> str | None:
        """The note saying how many games of the listed entrants the table leaves out:
        against retired versions, and against bots taken out of it (None: no game)."""
        others = set(names) - set(keys)
        against = self.tally.games_against(keys, others & retired)
        removed = self.tally.games_against(keys, others - retired)
        return left_out_note(against, removed)


def _table(s: Standings, names: Mapping[str, tuple[str, str]], request: Request,
           failures: Mapping[str, Mapping[str, int]], pairs: Mapping[tuple[str, str], int],
           games: int, more_notes: tuple[str, ...] = ()) -> Table:
    rows, _ = leaderboard_rows(s, names, bot_href)
    order = list(s.ranking())
    position = {key: k for k, key in enumerate(order)}
    json_rows, shown = [], []
    for key, row in zip(s.entrants, rows, strict=True):
        at = position.get(key)
        below = order[at + 1] if at is not None and at + 1 < len(order) else None
        text = "" if below is None else order_text(
            s, key, below, pairs.get((min(key, below), max(key, below)), 0))
        author = request.authors.get(row.name, "house")
        shown.append(_replace(row, author=author, order=text))
        json_rows.append({
            "key": key, "name": row.name, "author": author, "version": row.version,
            "rank": row.rank, "rating": _finite(row.rating), "rating_text": row.rating_text,
            "interval": _finite(row.interval), "interval_text": row.interval_text,
            "games": row.games, "wins": row.wins, "forfeits": row.forfeits,
            "failures": failures.get(key, {}), "order_vs_next": text})
    ratings = {}
    for key in s.entrants:
        fit = s.fit_of(key)
        if fit is not None and math.isfinite(fit.elo[key]):
            half = fit.interval(key) if fit.anchor != key else 0.0
            ratings[key] = (fit.elo[key], half if math.isfinite(half) else math.inf)
    html = leaderboard(shown, extras=("author", "order"))
    table = Table(request.version, games, tuple(json_rows),
                  (*standings_notes(s, names), *more_notes), html, ratings)
    table.body, table.event  # noqa: B018 (encoded here, in the standings process)
    return table


class _Child:
    """The standings process, seen from the server: one request at a time, over pipes
    (length-prefixed pickles, as `arena.tournament.cluster` talks to its referee process)."""

    def __init__(self) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "arena.league.standings"],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def alive(self) -> bool:
        return self.process.poll() is None

    def ask(self, request: Request) -> Table | None:
        """The process's answer; ArenaError if it failed (its error is on the server's
        error output) or ended."""
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            _send(self.process.stdin, request)
            answer = _receive(self.process.stdout)
        except (OSError, EOFError):
            raise ArenaError(f"the standings process ended (exit code "
                             f"{self.process.poll()})") from None
        if isinstance(answer, str):
            raise ArenaError(f"the standings process failed: {answer}")
        return answer

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _send(stream: IO[bytes], value: Any) -> None:
    data = pickle.dumps(value)
    stream.write(len(data).to_bytes(8, "big") + data)
    stream.flush()


def _receive(stream: IO[bytes]) -> Any:
    head = stream.read(8)
    if len(head) < 8:
        raise EOFError
    data = stream.read(int.from_bytes(head, "big"))
    return pickle.loads(data)


def serve() -> None:
    """The standings process: answer each request (`TableMaker.make`) until the end of its
    input (the server closed it, or died); a failure is answered with its message."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C is the server's to handle
    os.nice(NICE)
    maker = TableMaker()
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        try:
            request = _receive(stdin)
        except EOFError:
            return
        try:
            answer: Table | str | None = maker.make(request)
        except Exception as exc:
            logger.exception("the standings could not be made")
            answer = f"{type(exc).__name__}: {exc}"
            maker = TableMaker()  # read everything again next time
        if isinstance(answer, Table):
            try:
                save_snapshot(request.storage, answer)
            except OSError as exc:  # the table is still served; only a restart misses it
                logger.warning("the standings could not be kept for a restart: %s", exc)
        try:
            _send(stdout, answer)
        except BrokenPipeError:
            return


def _replace(row: Any, **changes: Any) -> Any:
    from dataclasses import replace
    return replace(row, **changes)


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else round(value, 1)


if __name__ == "__main__":  # the standings process (see `StandingsCache`)
    from arena.league.standings import serve as main  # its classes, not __main__'s

    main()
