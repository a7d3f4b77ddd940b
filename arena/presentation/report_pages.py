"""The pages of the web report (see `arena.presentation.report`, which gathers the data): the
report's data turned into the plain rows of `views`, whose views write them."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.faults import ForfeitKind
from arena.presentation.charts import Bar, error_bars, shade
from arena.presentation.failures import SeatFailure
from arena.presentation.handstats import HandReport, HandStats
from arena.presentation.notes import (
    column_notes,
    full_name,
    name,
    number,
    shown_rating,
    standings_notes,
    synergy_notes,
)
from arena.presentation.pages import Cell, cell, esc, facts, grid, link, notes, table
from arena.presentation.views import (
    GameListRow,
    LeaderboardRow,
    failures_section,
    games_table,
    leaderboard,
    page,
    replay_viewer,
    report_nav,
)
from arena.ratings.duplicate import Mean
from arena.ratings.model import Bound
from arena.ratings.standings import Standings
from arena.ratings.synergy import Synergy
from arena.tournament.store import EntrantRow, StoredGame

MATCHUP_NOTE = ("Fit Elo diff: the difference of the two fitted ratings, from every game of the "
                "tournament (not this matchup's games alone), with its 95% interval; LOS: the "
                "probability that the first entrant is the stronger.")
HAND_NOTE = ("Per round, from the entrant's side (both its seats; with mixed partners, its "
             "team's, shared with its partner, but for the decision time, its own), with "
             "pair-clustered 95% "
             "intervals: points = card points + double victories (200) + call bonuses (net: a "
             "failed call costs its bonus); margin = own minus opponent's points. Tichu and "
             "Grand Tichu: calls per round and the share made good (the caller went out "
             "first). First out: share of rounds a seat of the entrant went out first. "
             "Decision time: the bot's latency as the referee measured it, automatic passes "
             "left out.")
DUPLICATE_NOTE = ("Duplicate rating: the two games of a pair deal the same cards in each "
                  "round, the entrants swapped; a deal's duplicate score is what an entrant "
                  "gained over its opponent with the same cards (the luck of the deal "
                  "cancelled). Strengths in points per deal are fitted to every pair by least "
                  "squares, with pair-clustered 95% intervals: a second measure of strength, "
                  "beside the Elo of game wins.")


@dataclass(frozen=True)
class ReportData:
    """Everything the pages show, gathered once per build."""

    title: str
    entrants: Sequence[EntrantRow]
    names: Mapping[str, tuple[str, str]]
    games: Sequence[StoredGame]
    standings: Standings | None
    standings_error: str
    hands: HandReport
    failures: Mapping[str, Mapping[str, int]]
    header: Sequence[tuple[str, str]]
    slug: Callable[[str], str]
    seat_failures: Mapping[str, Sequence[SeatFailure]] = field(default_factory=dict)
    """Per game id, the seats charged with a fault, with the end of their output."""
    current: frozenset[str] | None = None
    """The current version of each bot (None: every entrant): the only ones the tables of the
    index rank; `standings` and `hands` hold their games alone."""
    all_standings: Standings | None = None
    """Every version's standings, for a retired version's own page (None: as `standings`)."""
    all_hands: HandReport | None = None

    def is_current(self, key: str) -> bool:
        return self.current is None or key in self.current

    def standings_of(self, key: str) -> Standings | None:
        """The standings that rate `key`: the current ones, or every version's if retired."""
        if self.is_current(key) or self.all_standings is None:
            return self.standings
        return self.all_standings

    def hands_of(self, key: str) -> HandReport:
        return self.hands if self.is_current(key) or self.all_hands is None else self.all_hands

    def entrant_href(self, key: str, root: str = ".") -> str:
        return f"{root}/entrants/{self.slug(key)}.html"

    def replay_href(self, game_id: str, root: str = ".") -> str:
        return f"{root}/replay.html#{self.slug(game_id)}"


def _frame(title: str, body: str, root: str, refresh: int | None,
           scripts: Sequence[str] = ("report.js",)) -> str:
    """A report page: `root` is the relative path to the report's top folder."""
    return page(title, body, assets=f"{root}/assets", nav=report_nav(root), refresh=refresh,
                scripts=scripts)


def _figure(mean: Mean | None, digits: int = 1, scale: float = 1.0) -> Cell:
    if mean is None:
        return cell("", None)
    half = "" if math.isnan(mean.interval) else f" ± {mean.interval * scale:.{digits}f}"
    return cell(f"{number(mean.value * scale, digits)}{half}", mean.value)


def _share(value: float | None) -> Cell:
    return cell("" if value is None else f"{100 * value:.0f}%", value)


# ----- index -------------------------------------------------------------------------------

def index_page(data: ReportData, refresh: int | None) -> str:
    parts = [f"<h1>{esc(data.title)}</h1>", facts(data.header)]
    if data.standings is None:
        parts.append(f'<p class="empty" id="no-standings">No standings yet: '
                     f"{esc(data.standings_error)}.</p>")
    elif data.standings.individual:
        s = data.standings
        parts += [_standings_section(data, s), _synergy_section(data, s),
                  _grids_section(data, s)]
    else:
        s = data.standings
        parts += [_standings_section(data, s), _grids_section(data, s),
                  _matchups_section(data, s)]
    parts += [_retired_section(data), _hands_section(data), _duplicate_section(data),
              f'<p><a href="games.html">All {len(data.games)} games, with their replays</a></p>']
    return _frame(f"{data.title}: standings", "".join(parts), ".", refresh)


def leaderboard_rows(s: Standings, names: Mapping[str, tuple[str, str]],
                     href: Callable[[str], str]) -> tuple[list[LeaderboardRow], list[Bar]]:
    """The standings as the leaderboard's rows, and the chart's bars (the report's index and
    the league's live table, `arena.league`); `href`: an entrant key's page."""
    ranks = s.ranks()
    rows, bars = [], []
    for key in s.entrants:
        fit = s.fit_of(key)
        stats = s.stats.get(key)
        rank = ranks.get(key)
        bound = fit.bounds.get(key) if fit else None
        elo = fit.elo[key] if fit else None
        half = fit.interval(key) if fit and not bound and fit.anchor != key else None
        limit = fit.confidence_bounds.get(key) if fit and bound else None
        ci = "anchor" if fit and fit.anchor == key else number(half) if half is not None else (
            ("one-sided" if bound in (Bound.LOWER, Bound.UPPER) and limit is not None else
             "prior-set") if bound and elo is not None and math.isfinite(elo) else "")
        rows.append(LeaderboardRow(
            rank=rank.position if rank else None, shared=bool(rank and rank.shared),
            name=name(names, key), href=href(key),
            version=names.get(key, ("", ""))[1], rating=elo,
            rating_text="" if elo is None else shown_rating(elo, bound, limit),
            interval=half, interval_text=ci, games=stats.games if stats else 0,
            wins=stats.wins if stats else 0, win_rate=stats.win_rate if stats else None,
            margin=stats.score_margin if stats else None,
            forfeits=sum(stats.forfeits.values()) if stats else 0,
            incremental=s.incremental.get(key)))
        if fit:
            bars.append(Bar(name(names, key), fit.elo[key], half, bound, fit.anchor == key))
    return rows, bars


def _standings_section(data: ReportData, s: Standings) -> str:
    rows, bars = leaderboard_rows(s, data.names, data.entrant_href)
    chart = error_bars(bars, "Ratings with their 95% intervals")
    text = standings_notes(s, data.names) + column_notes(s, False, data.names)
    table_html = leaderboard(rows, extras=("incremental",))
    return (f'<section id="standings"><h2>Standings</h2>{table_html}'
            f'<figure>{chart}<figcaption>Elo with 95% intervals; an arrow marks a rating set '
            f"by the prior (a bound); the hollow point is the anchor.</figcaption></figure>"
            f"{notes(text)}</section>")


def _grids_section(data: ReportData, s: Standings) -> str:
    order = s.ranking()
    labels = [full_name(data.names, k) for k in order]
    h2h, cross, los = s.head_to_head, [], []
    for a in order:
        row_h, row_l = [], []
        for b in order:
            won, lost = h2h.get((a, b), (0, 0))
            played = won + lost
            row_h.append((f"{won}-{lost}" if played else "", won / played if played else None))
            p = s.los(a, b) if a != b else math.nan
            row_l.append(("" if math.isnan(p) else f"{100 * p:.0f}", None if math.isnan(p) else p))
        cross.append(row_h)
        los.append(row_l)
    head = ("Head to head: row's team's wins-losses against a team of column"
            if s.individual else "Head to head: row's wins-losses against column")
    return ('<section id="grids"><h2>Crosstable and LOS</h2>'
            + grid(labels, cross, "crosstable", head)
            + grid(labels, los, "los-matrix",
                   "Likelihood of superiority, %: row stronger than column")
            + "</section>")


def _synergy_rows(data: ReportData, pairs: Sequence[Synergy], root: str) -> list[list[Cell]]:
    rows = []
    for p in pairs:
        flag = "" if not p.flagged else ("flagged: above" if p.elo > 0 else "flagged: below")
        rows.append([link(data.entrant_href(p.a, root), name(data.names, p.a), p.a),
                     link(data.entrant_href(p.b, root), name(data.names, p.b), p.b),
                     cell(p.games), cell(f"{p.wins}-{p.games - p.wins}", p.wins),
                     cell(number(p.expected), p.expected),
                     cell(number(p.elo, signed=True), p.elo),
                     cell(number(p.interval), p.interval),
                     cell(number(p.z, 2, signed=True), p.z),
                     cell(flag, 1 if p.flagged else 0,
                          "font-weight: bold; color: var(--alert)" if p.flagged else "")])
    return rows


SYNERGY_HEADERS = ["Partner", "Partner", "Games", "Won-lost", "Expected wins", "Synergy Elo",
                   "±95% CI", "z", "Flag"]
SYNERGY_NUMERIC = [False, False] + [True] * 6 + [False]


def _synergy_section(data: ReportData, s: Standings) -> str:
    table_ = s.synergy
    if table_ is None:
        return ""
    flagged = [f"Flagged: {name(data.names, p.a)} & {name(data.names, p.b)}, "
               f"{number(p.elo, signed=True)} ± {number(p.interval)} Elo together (z "
               f"{number(p.z, 2, signed=True)})." for p in table_.flagged]
    return ('<section id="synergy"><h2>Partnership synergy</h2>'
            + table(SYNERGY_HEADERS, _synergy_rows(data, table_.pairs, "."), "synergy-table",
                    numeric=SYNERGY_NUMERIC)
            + notes(flagged + synergy_notes(table_)) + "</section>")


def _bound_mark(fit: Any, a: str, b: str, diff: float) -> str:
    """"≥" or "≤" when the difference a - b is set by the prior (one of them is a bound and
    they are not in the same group of bounds), else ""."""
    if fit.bounds.get(a) == fit.bounds.get(b):
        return ""
    return "≥" if diff > 0 else "≤"


def _matchups_section(data: ReportData, s: Standings) -> str:
    rows = []
    for m in s.matchups:
        mark = _bound_mark(s.fit_of(m.a), m.a, m.b, m.elo_difference)
        rows.append([link(data.entrant_href(m.a), full_name(data.names, m.a), m.a),
                     link(data.entrant_href(m.b), full_name(data.names, m.b), m.b),
                     cell(m.pairs), cell(m.both_lost), cell(m.split), cell(m.both_won),
                     cell(f"{m.wins}-{m.losses}", m.wins),
                     cell(number(100 * m.score), m.score),
                     cell(mark + number(m.elo_difference, signed=True), m.elo_difference),
                     cell("" if mark else number(m.interval), None if mark else m.interval),
                     cell(number(100 * m.los), m.los, shade(m.los))])
    headers = ["Entrant", "Opponent", "Pairs", "Both lost", "Split", "Both won", "Games",
               "Score %", "Fit Elo diff", "±95% CI", "LOS %"]
    numeric = [False, False] + [True] * 9
    return (f'<section id="matchups"><h2>Matchups</h2>'
            f'{table(headers, rows, "matchups-table", numeric=numeric)}'
            f"{notes([MATCHUP_NOTE])}</section>")


def _hand_row(data: ReportData, key: str, h: HandStats, root: str = ".") -> list[Cell]:
    failures = sum(data.failures.get(key, {}).values())
    return [link(data.entrant_href(key, root), name(data.names, key)), cell(h.games),
            cell(h.rounds), _figure(h.points), _figure(h.card_points),
            _figure(h.double_victory_points), _figure(h.call_points), _figure(h.margin),
            _figure(h.tichu_calls, 3), _share(h.tichu_success), _figure(h.grand_calls, 3),
            _share(h.grand_success), cell(h.double_for), cell(h.double_against),
            _figure(h.first_out, 1, 100.0), cell(h.bombs), cell(h.decisions),
            cell(number(h.latency_mean_ms, 2), h.latency_mean_ms),
            cell(number(h.latency_p99_ms, 2), h.latency_p99_ms), cell(failures)]


HAND_HEADERS = ["Entrant", "Games", "Rounds", "Points/round", "Card points", "Double victory",
                "Call bonuses", "Margin/round", "Tichu calls/round", "Tichu made",
                "Grand Tichu calls/round", "Grand Tichu made", "Double victories for",
                "Double victories against", "First out %", "Bombs", "Decisions",
                "Mean decision ms", "p99 decision ms", "Failures"]


def _retired_section(data: ReportData) -> str:
    """The older versions left out of the tables, each a link to its own page."""
    retired = [e for e in data.entrants if not data.is_current(e.key)]
    if not retired:
        return ""
    links = ", ".join(link(data.entrant_href(e.key), full_name(data.names, e.key)).html
                      for e in retired)
    return (f'<p id="retired">Older versions, replaced by a newer one and left out of these '
            f"tables (each has its page, rated with every version's games): {links}.</p>")


def _hands_section(data: ReportData) -> str:
    rows = [_hand_row(data, k, h) for k, h in data.hands.entrants.items()]
    if not rows:
        return ""
    numeric = [False] + [True] * (len(HAND_HEADERS) - 1)
    return (f'<section id="hands"><h2>Hand statistics</h2>'
            f'{table(HAND_HEADERS, rows, "hands-table", numeric=numeric)}'
            f"{notes([HAND_NOTE])}</section>")


def _duplicate_section(data: ReportData) -> str:
    dup = data.hands.duplicate
    if dup is None:
        return ""
    order = sorted(dup.strength, key=lambda k: -dup.strength[k])
    rows = [[cell(k + 1), link(data.entrant_href(key), name(data.names, key)),
             cell(number(dup.strength[key], signed=True), dup.strength[key]),
             cell("reference" if key == dup.reference else number(dup.interval[key]),
                  dup.interval[key])] for k, key in enumerate(order)]
    ref = f"{name(data.names, dup.reference)} = 0" if dup.reference else "mean-centred"
    return ('<section id="duplicate"><h2>Duplicate rating: points per deal</h2>'
            + table(["Rank", "Entrant", "Points per deal", "±95% CI"], rows, "duplicate-table",
                    numeric=[True, False, True, True])
            + notes([DUPLICATE_NOTE, f"{dup.pairs} pairs, {dup.deals} shared deals; {ref}."])
            + "</section>")


# ----- games -------------------------------------------------------------------------------

def _game_rows(data: ReportData, games: Sequence[StoredGame], root: str) -> list[GameListRow]:
    rows = []
    for g in games:
        a, b = (" & ".join(full_name(data.names, k) for k in dict.fromkeys(side))
                for side in g.sides)  # with mixed partners, both partners
        winner = "" if g.winner is None else " & ".join(
            name(data.names, k) for k in dict.fromkeys(g.sides[g.winner]))
        fault = "" if g.fault_seat is None else f"seat {g.fault_seat}: {g.fault_message or ''}"
        rows.append(GameListRow(g.game_id, data.replay_href(g.game_id, root), g.pair_index,
                                g.game_index, (a, b), (g.scores[0], g.scores[1]), winner,
                                g.rounds, g.termination, fault, g.seconds, g.finished_at))
    return rows


def games_page(data: ReportData, refresh: int | None) -> str:
    body = (f"<h1>{esc(data.title)}: games</h1>{facts(data.header)}"
            + games_table(_game_rows(data, data.games, ".")))
    return _frame(f"{data.title}: games", body, ".", refresh)


def replay_page(data: ReportData) -> str:
    return _frame(f"{data.title}: replay", replay_viewer("games.html"), ".", None,
                  ("cards.js", "replay.js"))


# ----- entrants ----------------------------------------------------------------------------

def entrant_page(data: ReportData, key: str, refresh: int | None) -> str:
    root = ".."
    entrant = next(e for e in data.entrants if e.key == key)
    parts = [f"<h1>{esc(full_name(data.names, key))}</h1>",
             facts([("Entrant", key), ("Bot version", entrant.bot_version),
                    ("Language", entrant.language), ("Folder", entrant.folder),
                    ("Status", "retired (a newer version replaced it)" if entrant.retired
                     else "current")], "entrant-facts")]
    parts.append(_entrant_rating(data, key))
    hands = data.hands_of(key).entrants.get(key)
    if hands is not None:
        numeric = [False] + [True] * (len(HAND_HEADERS) - 1)
        parts.append('<section id="entrant-hands"><h2>Hand statistics</h2>'
                     + table(HAND_HEADERS, [_hand_row(data, key, hands, root)],
                             "entrant-hands-table", numeric=numeric)
                     + notes([HAND_NOTE]) + "</section>")
    parts.append(_entrant_failures(data, key, root))
    mine = [g for g in data.games if key in g.seats]
    parts.append(f'<section id="entrant-games"><h2>Games ({len(mine)})</h2>'
                 + games_table(_game_rows(data, mine, root), "entrant-games-table")
                 + "</section>")
    return _frame(f"{data.title}: {name(data.names, key)}", "".join(parts), root, refresh)


def _entrant_rating(data: ReportData, key: str) -> str:
    s = data.standings_of(key)
    fit = s.fit_of(key) if s else None
    if s is None or fit is None:
        return '<section id="entrant-rating"><h2>Rating</h2><p>No rated games yet.</p></section>'
    bound = fit.bounds.get(key)
    limit = fit.confidence_bounds.get(key) if bound else None
    text = shown_rating(fit.elo[key], bound, limit)
    if not bound and fit.anchor != key:
        text += f" ± {number(fit.interval(key))}"
    lines = [f"Elo {text}" + (" (the anchor)" if fit.anchor == key else "")]
    if bound in (Bound.LOWER, Bound.UPPER) and limit is not None and math.isfinite(fit.elo[key]):
        lines.append(f"No estimate: its group never lost (or never won) a game against the "
                     f"entrants outside it. {text} is the one-sided 95% bound its record alone "
                     f"supports; it is ranked at {number(fit.elo[key], signed=True)}, a "
                     "figure set by the prior.")
    if s.individual:
        return ('<section id="entrant-rating"><h2>Rating</h2>' + notes(lines)
                + _entrant_partners(data, s, key) + "</section>")
    rows = [_entrant_matchup(data, fit, key, m) for m in s.matchups if key in (m.a, m.b)]
    return ('<section id="entrant-rating"><h2>Rating</h2>' + notes(lines)
            + table(["Opponent", "Pairs", "Both won", "Split", "Both lost", "Score %",
                     "Fit Elo diff", "LOS %"], rows, "entrant-matchups",
                    numeric=[False] + [True] * 7) + "</section>")


def _entrant_partners(data: ReportData, s: Standings, key: str) -> str:
    """Mixed partners: the entrant's partnerships, with their synergy."""
    mine = [p for p in (s.synergy.pairs if s.synergy else ()) if key in (p.a, p.b)]
    if not mine:
        return ""
    return ("<h3>Partnerships</h3>"
            + table(SYNERGY_HEADERS, _synergy_rows(data, mine, ".."), "entrant-synergy",
                    numeric=SYNERGY_NUMERIC))


def _entrant_matchup(data: ReportData, fit: Any, key: str, m: Any) -> list[Cell]:
    """One matchup row from `key`'s side; a difference set by the prior is marked."""
    mine = m.a == key
    other = m.b if mine else m.a
    diff = m.elo_difference if mine else -m.elo_difference
    mark = _bound_mark(fit, key, other, diff)
    return [link(data.entrant_href(other, ".."), full_name(data.names, other)),
            cell(m.pairs), cell(m.both_won if mine else m.both_lost), cell(m.split),
            cell(m.both_lost if mine else m.both_won),
            cell(number(100 * (m.score if mine else 1 - m.score)),
                 m.score if mine else 1 - m.score),
            cell(mark + number(diff, signed=True), diff),
            cell(number(100 * (m.los if mine else 1 - m.los)), m.los if mine else 1 - m.los)]


def _entrant_failures(data: ReportData, key: str, root: str) -> str:
    mine = [(f, data.replay_href(f.game_id, root)) for g in data.games
            for f in data.seat_failures.get(g.game_id, ()) if f.entrant == key]
    return failures_section(data.failures.get(key, {}), [kind.value for kind in ForfeitKind],
                            mine)
