"""The live standings: fitted once per new game (never per request) and kept ready.

`StandingsCache` refits on its own thread when the store holds more games than at its last
fit (the league wakes it as each game is stored), and keeps the result as a `Table`: the
JSON rows of `GET /api/standings`, the leaderboard's HTML (the report's own view,
`arena.presentation.views.leaderboard`, with its author and order columns) and each entrant's
rating and interval for the scheduler. A request reads the last `Table`: no query, no fit.

The order column says, between each entrant and the next one down, whether their order is
settled (the 95% interval of their difference excludes 0) or about how many more pairs of
their matchup it would take (the interval shrinks as one over the square root of the games).
"""

from __future__ import annotations

import functools
import json
import logging
import math
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from arena.league.accounts import Accounts
from arena.presentation.notes import standings_notes
from arena.presentation.report_pages import leaderboard_rows
from arena.presentation.views import leaderboard
from arena.ratings.fit import RatingsError
from arena.ratings.standings import Standings, compute_standings
from arena.tournament.config import TournamentConfig
from arena.tournament.runner import labels
from arena.tournament.store import Store

logger = logging.getLogger(__name__)

REFIT_SECONDS = 1.0
"""The least time between two fits: a finished game shows within about this much."""


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

    def json(self) -> dict[str, Any]:
        return {"games": self.games, "version": self.version, "standings": list(self.rows),
                "notes": list(self.notes)}

    @functools.cached_property
    def body(self) -> bytes:
        """`json()` encoded, once per fit: what every request for the table is sent."""
        return json.dumps(self.json(), separators=(",", ":")).encode()

    @functools.cached_property
    def event(self) -> str:
        """The table as one server-sent event (the leaderboard's new HTML), once per fit."""
        data = json.dumps({"version": self.version, "games": self.games, "html": self.html})
        return f"event: standings\ndata: {data}\n\n"


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
    """The last fit of the active entrants' standings, refitted on a thread of its own."""

    def __init__(self, config: TournamentConfig, authors: Callable[[], Mapping[str, str]],
                 active: Callable[[], list[str]], href: Callable[[str], str],
                 on_change: Callable[[Table], None] | None = None) -> None:
        self.config = config
        self.authors = authors
        self.active = active
        self.href = href
        self.on_change = on_change
        self.table = Table()
        self._publish(self.table)
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="arena-standings", daemon=True)
        self._fitted: tuple[int, tuple[str, ...]] | None = None
        self._kept: dict[str, int] = {}  # entrant: its games at its last rating kept

    def start(self) -> None:
        self._thread.start()

    def wake(self) -> None:
        """A game was stored (or the entrants changed): refit soon."""
        self._wake.set()

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        self._thread.join(10)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(2.0)
            self._wake.clear()
            started = time.monotonic()
            try:
                self.refresh()
            except Exception:  # a fit that fails is logged; the last table stays
                logger.exception("the standings could not be fitted")
            # at most one fit per REFIT_SECONDS: the fit holds the interpreter while it runs,
            # and the requests are served by the same process
            self._stop.wait(max(0.0, REFIT_SECONDS - (time.monotonic() - started)))

    def refresh(self) -> bool:
        """Refit if the store holds new games or the active entrants changed; True if so."""
        keys = tuple(self.active())
        with Store(self.config.storage, read_only=True) as store:
            count = store.game_count()
            if self._fitted == (count, keys):
                return False
            names = labels(store)
            results = store.results(keys)
            anchor = self.config.ratings.anchor
            anchors = [k for k in keys if names.get(k, ("", ""))[0] == anchor]
            failures = store.failures()
            pairs = _pairs(store)
        self._fitted = (count, keys)
        try:
            s = compute_standings(results, entrants=keys,
                                  anchor=anchors[0] if anchors else None,
                                  anchor_elo=self.config.ratings.anchor_elo,
                                  prior=self.config.ratings.prior)
        except RatingsError:
            self._publish(Table(self.table.version + 1, count, html=Table().html))
            return True
        authors = self.authors()
        rows, _ = leaderboard_rows(s, names, self.href)
        order = list(s.ranking())
        json_rows, shown = [], []
        for key, row in zip(s.entrants, rows, strict=True):
            position = order.index(key) if key in order else None
            below = order[position + 1] if position is not None and position + 1 < len(
                order) else None
            text = "" if below is None else order_text(
                s, key, below, pairs.get(tuple(sorted((key, below))), 0))
            author = authors.get(row.name, "house")
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
        self._history(json_rows)
        html = leaderboard(shown, extras=("author", "order"))
        self._publish(Table(self.table.version + 1, count, tuple(json_rows),
                            tuple(standings_notes(s, names)), html, ratings))
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
        table.body, table.event  # noqa: B018 (encoded here, once, not by a request)
        self.table = table
        if self.on_change is not None:
            self.on_change(table)


def _replace(row: Any, **changes: Any) -> Any:
    from dataclasses import replace
    return replace(row, **changes)


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else round(value, 1)


def _pairs(store: Store) -> dict[tuple[str, ...], int]:
    """Complete pairs stored per matchup (keys in key order)."""
    counts: dict[tuple[str, ...], int] = {}
    for team0, team1, n in store.db.execute(
            "SELECT team0, team1, count(*) FROM games WHERE game_index = 1 GROUP BY pair_id"):
        key = tuple(sorted((team0, team1)))
        counts[key] = counts.get(key, 0) + n
    return counts
