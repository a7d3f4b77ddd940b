"""The views of the web pages, shared by the static report and the league server.

These functions are the project's templates: each takes plain data (strings, numbers, the
small frozen rows below) and returns HTML in which every text is escaped (`esc`, that is
`safe.html_text`), the equivalent of Jinja2 templates with autoescape on. They are plain
Python so that the static report needs nothing beyond the core install; the league server
calls the same functions for its live pages, so the two never hold two copies of a view.

- `page`: the shell of every page: the stylesheet and the theme script (light and dark,
  following the system until the toggle in the header chooses, remembered by the browser),
  the header with the navigation, the body;
- `leaderboard`: the standings table, from `LeaderboardRow`s;
- `games_table`: a list of games, from `GameListRow`s, each linking to its replay;
- `failures_section`: a bot's failures by kind, each with the end of its own output;
- `replay_viewer`: the replay viewer, which `assets/replay.js` fills from a game's data
  (all four hands: a finished game);
- `live_game` and `live_fragment`: a game in progress, public information only (no hand of
  any seat); `assets/live.js` replaces the table with each fragment the server pushes.

The card table itself (cards, seats, trick) is `table_view`'s.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.presentation.failures import SeatFailure
from arena.presentation.notes import number
from arena.presentation.pages import Cell, cell, esc, link, table
from arena.presentation.table_view import (
    TableState,
    card_symbols,
    public_table,
    table_html,
    viewer_templates,
)

BRAND = "Tichu Arena"


# ----- the page shell -----------------------------------------------------------------------

def page(title: str, body: str, *, assets: str, nav: Sequence[tuple[str, str]] = (),
         refresh: int | None = None, scripts: Sequence[str] = ()) -> str:
    """A whole page. `assets`: the URL of the folder holding `report.ASSETS` (the stylesheet,
    the scripts, the icon; relative in the static report, absolute on a server); `nav`: (href, label) links, the
    first also the brand's; `scripts`: file names in `assets` run at the end of the body;
    `refresh` (seconds) makes the page reload itself."""
    meta = f'<meta http-equiv="refresh" content="{int(refresh)}">' if refresh else ""
    links = "".join(f'<a href="{esc(href)}">{esc(label)}</a>' for href, label in nav)
    home = f'<a class="brand" href="{esc(nav[0][0])}">' if nav else '<span class="brand">'
    js = "".join(f'<script src="{esc(assets)}/{esc(s)}"></script>' for s in scripts)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<meta name="color-scheme" content="light dark">{meta}<title>{esc(title)}</title>'
            f'<link rel="icon" type="image/svg+xml" href="{esc(assets)}/icon.svg">'
            f'<link rel="stylesheet" href="{esc(assets)}/report.css">'
            f'<script src="{esc(assets)}/theme.js"></script></head><body>'
            f'<header class="site">{home}<svg class="logo" aria-hidden="true"><use '
            f'href="#brand-mark"></use></svg>{esc(BRAND)}{"</a>" if nav else "</span>"}'
            f'<nav>{links}</nav><button type="button" id="theme-toggle" class="theme-toggle" '
            f'title="Switch between the light and the dark theme">Theme</button></header>'
            f'{_BRAND_MARK}<main>{body}</main>{js}</body></html>\n')


_BRAND_MARK = ('<svg class="sprite" aria-hidden="true" focusable="false"><symbol '
               'id="brand-mark" viewBox="0 0 24 24"><rect x="3" y="4" width="11" height="16" '
               'rx="2" transform="rotate(-12 8.5 12)" fill="#15803d"/><rect x="10" y="4" '
               'width="11" height="16" rx="2" transform="rotate(10 15.5 12)" '
               'fill="#dc2626"/></symbol></svg>')


def report_nav(root: str) -> list[tuple[str, str]]:
    """The static report's links, from a page `root` away from its top folder."""
    return [(f"{root}/index.html", "Standings"), (f"{root}/games.html", "Games"),
            (f"{root}/replay.html", "Replay viewer")]


# ----- the leaderboard ----------------------------------------------------------------------

@dataclass(frozen=True)
class LeaderboardRow:
    """One entrant's line of the standings, as it is shown."""

    rank: int | None
    """None: not ranked (no rated games)."""
    shared: bool
    """The rank is shared with a neighbour (shown as ``=3``)."""
    name: str
    href: str
    """Its page."""
    version: str
    rating: float | None
    rating_text: str
    """The rating as shown (a bound is marked, e.g. ``≥ 180``)."""
    interval: float | None
    """The 95% interval's half width (sorts the column)."""
    interval_text: str
    games: int
    wins: int
    win_rate: float | None
    margin: float | None
    """Mean score margin per game."""
    forfeits: int
    author: str = ""
    """Who uploaded it (the league: the "author" column)."""
    incremental: float | None = None
    """The K-factor Elo (the report: the "incremental" column)."""
    order: str = ""
    """Whether this entrant's place above the next is settled, or what it would take (the
    league: the "order" column)."""


LEADERBOARD_EXTRAS = ("author", "incremental", "order")


def leaderboard(rows: Sequence[LeaderboardRow], table_id: str = "standings-table",
                extras: Collection[str] = ()) -> str:
    """The standings as a table that sorts by any column; `extras` adds the optional columns
    (`LEADERBOARD_EXTRAS`): Author after Entrant, K-Elo and Order vs next at the end."""
    unknown = set(extras) - set(LEADERBOARD_EXTRAS)
    if unknown:
        raise ValueError(f"no leaderboard column {sorted(unknown)}")
    author, incremental, order = (k in extras for k in LEADERBOARD_EXTRAS)
    headers = ["Rank", "Entrant", *(["Author"] if author else []), "Version", "Elo",
               "±95% CI", "Games", "Wins", "Win %", "Margin", "Forfeits",
               *(["K-Elo"] if incremental else []), *(["Order vs next"] if order else [])]
    numeric = [True, False, *([False] if author else []), False, True, True, True, True, True,
               True, True, *([True] if incremental else []), *([False] if order else [])]
    # at a phone's width the table keeps what ranks (rank, entrant with its author beneath,
    # rating, interval, games with the forfeits beneath, order): the columns a reader finds
    # on the bot's page go
    minor = {"Author", "Version", "Wins", "Win %", "Margin", "Forfeits", "K-Elo"}
    kinds = ["minor" if h in minor else "" for h in headers]
    body = [_leaderboard_cells(r, author, incremental, order) for r in rows]
    return table(headers, body, table_id, numeric=numeric, kinds=kinds)


def _leaderboard_cells(r: LeaderboardRow, author: bool, incremental: bool,
                       order: bool) -> list[Cell]:
    rank = "-" if r.rank is None else ("=" if r.shared else "") + str(r.rank)
    played = r.games > 0
    name = link(r.href, r.name)
    if author:  # shown beneath the name only where the Author column is hidden (report.css)
        name = Cell(f'{name.html}<span class="stacked">{esc(r.author)}</span>', name.sort)
    cells = [cell(rank, r.rank), name]
    cells += [cell(r.author)] if author else []
    cells += [cell(r.version), cell(r.rating_text, r.rating),
              cell(r.interval_text, r.interval), _games_cell(r), cell(r.wins),
              cell(number(100 * r.win_rate) if played and r.win_rate is not None else "",
                   r.win_rate if played else None),
              cell(number(r.margin, signed=True) if played else "", r.margin),
              _forfeits_cell(r)]
    cells += [cell(number(r.incremental), r.incremental)] if incremental else []
    cells += [cell(r.order)] if order else []
    return cells


def _games_cell(r: LeaderboardRow) -> Cell:
    """The games played, and beneath them at a phone's width (where the Forfeits column is
    hidden) how many were forfeited, flagged, if any: a bot that crashes half its games
    must not look normal on a phone."""
    if not r.forfeits:
        return cell(r.games)
    return Cell(f'{r.games}<span class="stacked forfeited">{r.forfeits} forfeited</span>',
                r.games, title=_forfeits_title(r))


def _forfeits_title(r: LeaderboardRow) -> str:
    share = f" ({number(100 * r.forfeits / r.games, 0)}%)" if r.games else ""
    return f"{r.forfeits} of its {r.games} games forfeited{share}"


def _forfeits_cell(r: LeaderboardRow) -> Cell:
    """The games an entrant forfeited, flagged when there are any (report.css: `forfeited`),
    with their share of its games in the cell's title."""
    if not r.forfeits:
        return cell(r.forfeits)
    return Cell(f'<span class="forfeited">{r.forfeits}</span>', r.forfeits,
                title=_forfeits_title(r))


# ----- games --------------------------------------------------------------------------------

@dataclass(frozen=True)
class GameListRow:
    """One game of a list, as it is shown: by its place, `#pair.game` (its teams are the next
    columns; the whole id, two entrant keys long, would fill a phone's width with one
    column), the id itself in the link's title."""

    game_id: str
    href: str
    """Its replay."""
    pair: int
    game: int
    """0 or 1: the first or second game of its duplicate pair."""
    teams: tuple[str, str]
    scores: tuple[int, int]
    winner: str
    """The winning entrant's name, "" for none."""
    rounds: int
    termination: str
    fault: str
    """Who failed and how, "" for none."""
    seconds: float
    finished: str


GAME_HEADERS = ["Game", "Pair", "Team 0 (seats 0, 2)", "Team 1 (seats 1, 3)", "Score",
                "Winner", "Rounds", "Termination", "Fault", "Seconds", "Finished"]
GAME_NUMERIC = [False, True, False, False, True, False, True, False, False, True, False]


def games_table(rows: Iterable[GameListRow], table_id: str = "games-table") -> str:
    """Games as a table that sorts by any column, each linking to its replay."""
    body = [[Cell(f'<a href="{esc(g.href)}" title="{esc(g.game_id)}">#{g.pair}.{g.game}</a>',
                  f"{g.pair:09d}.{g.game}"), cell(g.pair), cell(g.teams[0]), cell(g.teams[1]),
             cell(f"{g.scores[0]}-{g.scores[1]}", g.scores[0] - g.scores[1]), cell(g.winner),
             cell(g.rounds), cell(g.termination), cell(g.fault),
             cell(f"{g.seconds:.1f}", g.seconds), cell(g.finished)] for g in rows]
    return table(GAME_HEADERS, body, table_id, numeric=GAME_NUMERIC)


# ----- a bot's failures ---------------------------------------------------------------------

def failures_section(counts: Mapping[str, int], kinds: Iterable[str],
                     failures: Sequence[tuple[SeatFailure, str]]) -> str:
    """A bot's games forfeited by kind (every kind in `kinds`, zeros included), then each
    failure, linked (the href beside it) to its replay, with the end of the bot's output."""
    rows = [[cell(kind), cell(counts.get(kind, 0))] for kind in kinds]
    listing = "".join(_failure_item(f, href) for f, href in failures)
    return ('<section id="entrant-failures"><h2>Failures by kind</h2>'
            + table(["Kind", "Games forfeited"], rows, "failures-table", numeric=[False, True])
            + (f'<ul class="failures">{listing}</ul>' if listing
               else "<p>No game forfeited.</p>")
            + "</section>")


def _failure_item(f: SeatFailure, href: str) -> str:
    output = (f'<pre class="output" title="the end of the bot\'s output">{esc(f.output)}</pre>'
              if f.output else '<p class="empty">It wrote nothing to stdout or stderr.</p>')
    return (f'<li><a href="{esc(href)}">{esc(f.game_id)}</a>: {esc(f.kind)} by seat {f.seat} '
            f"at round {f.round}, decision {f.decision}: {esc(f.message)}{output}</li>")


# ----- games on the table -------------------------------------------------------------------

_CONTROLS = (("round", -1, "◀ Round", "Previous round (p)"),
             ("trick", -1, "◀ Trick", "Previous trick (↑)"),
             ("event", -1, "◀", "Previous event (←)"), ("event", 1, "▶", "Next event (→)"),
             ("trick", 1, "Trick ▶", "Next trick (↓)"), ("round", 1, "Round ▶", "Next round (n)"))


def replay_viewer(games_href: str, game: str | None = None, data_script: str | None = None,
                  title: str = "", start: str = "") -> str:
    """The replay viewer's body (with the scripts `cards.js` and `replay.js` on the page).
    By default it shows the game named by the URL's fragment, whose data it loads from
    ``games/<fragment>.js`` (the static report); a server names the game (`game`, the id
    its data gives) and the script URL that holds it (`data_script`). A `title` is kept
    (else the script writes one from the data); `start` "dealt" opens on the first hands
    dealt (else on the first event)."""
    source = (f' data-game="{esc(game)}"' if game else "") + (
        f' data-script="{esc(data_script)}"' if data_script else "") + (
        f' data-start="{esc(start)}"' if start else "")
    heading = (f'<h1 id="replay-title" data-fixed="">{esc(title)}</h1>' if title else
               '<h1 id="replay-title">Replay</h1>')
    buttons = "".join(f'<button type="button" data-seek="{kind}" data-direction="{step}" '
                      f'title="{esc(label)}" aria-label="{esc(label)}">{mark}</button>'
                      for kind, step, mark, label in _CONTROLS)
    return (heading + '<div id="replay-meta"></div>'
            f'<div class="controls" id="replay-controls" hidden>{buttons}</div>'
            '<p class="keys">Keys: <kbd>→</kbd>/<kbd>←</kbd> next/previous event, '
            '<kbd>↓</kbd>/<kbd>↑</kbd> next/previous trick, <kbd>n</kbd>/<kbd>p</kbd> next/'
            'previous round, <kbd>Home</kbd>/<kbd>End</kbd> start/end.</p>'
            f'<div id="replay" tabindex="0"{source}><p class="empty">Choose a game from the '
            f'<a href="{esc(games_href)}">games list</a>.</p></div>' + viewer_templates())


def live_fragment(events: Iterable[Mapping[str, Any]], labels: Sequence[str]) -> str:
    """The table of a game in progress after `events` (its record's events so far, each
    with its ``visible_to``), public information only: what a server pushes to `live_game`'s
    page at each trick (one line of HTML, fit for a server-sent event's data)."""
    return table_html(public_table(events, labels))


def live_game(title: str, state: TableState, events_url: str, replay_href: str) -> str:
    """The body of a page showing a game in progress, public information only (`state`:
    `table_view.public_table`'s). With `live.js` on the page it subscribes to the
    server-sent events at `events_url`: a ``table`` event's data replaces the table (a
    `live_fragment`), an ``end`` event says the game is over and links to `replay_href`,
    where the full replay with every hand opens."""
    return (f'<h1 id="live-title">{esc(title)}</h1>'
            f'<div id="live" data-events="{esc(events_url)}" data-replay="{esc(replay_href)}">'
            '<p class="live-status" id="live-status">Live: what every seat sees (no hand is '
            'shown while the game runs).</p>'
            f'<div id="live-table">{table_html(state)}</div></div>{card_symbols()}')
