"""The league server's pages, one function per page, made of the report's views.

Each takes plain data (strings, numbers, the JSON of the league's API, the rows of `views`)
and returns a whole page, every string escaped (`esc`, `cell`), as `views` does for the
static report. The league's web layer (`arena.league.web.pages`) gathers the data and
answers with these; nothing here knows the league.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import quote

from arena.presentation.charts import rating_line
from arena.presentation.pages import cell, esc, table
from arena.presentation.safe import html_block
from arena.presentation.table_view import TableState
from arena.presentation.views import GameListRow, games_table, live_game, page, replay_viewer

LEAGUE_NAV = [("/", "Leaderboard"), ("/games", "Games"), ("/live", "Live"),
              ("/upload", "Upload")]
LEAGUE_JS = """// The live leaderboard: each `standings` event's data is the table's new HTML.
(function () {
  var board = document.getElementById("leaderboard");
  if (!board || !window.EventSource) { return; }
  var source = new EventSource(board.getAttribute("data-events"));
  source.addEventListener("standings", function (event) {
    var data = JSON.parse(event.data);
    board.innerHTML = data.html;
    board.setAttribute("data-version", String(data.version));
    var games = document.getElementById("games-count");
    if (games) { games.textContent = String(data.games); }
  });
})();
"""
"""The script of `index_page` (served as `/assets/league.js`)."""
_TOKEN_FIELD = ('<p><label>Token <input type="password" name="token" required '
                'autocomplete="off"></label></p>')


def league_page(title: str, body: str, scripts: Sequence[str] = ()) -> str:
    """A page of the league: the report's shell, the league's links, `report.js` and
    `scripts` (file names in `/assets`)."""
    return page(title, body, assets="/assets", nav=LEAGUE_NAV, scripts=("report.js", *scripts))


def error_page(status: int, message: str) -> str:
    """An error as a page: its status and the sentence saying what went wrong."""
    return page("Error", f"<h1>{status}</h1><p>{esc(message)}</p>", assets="/assets",
                nav=LEAGUE_NAV)


def index_page(name: str, games: int, version: int, board: str, notes: Iterable[str]) -> str:
    """The live leaderboard of the league `name`: `board` is the table's HTML (a view's),
    replaced by `league.js` from each event of `/events`."""
    body = (f"<h1>{esc(name)}: the live leaderboard</h1>"
            f'<p><span id="games-count">{games}</span> games played; the table '
            "updates itself as games finish.</p>"
            f'<section id="leaderboard" data-events="/events" '
            f'data-version="{version}">{board}</section>'
            + "".join(f"<p class=\"note\">{esc(n)}</p>" for n in notes))
    return league_page(f"{name}: leaderboard", body, ("league.js",))


def games_page(rows: Sequence[GameListRow]) -> str:
    """The last games stored, newest first."""
    return league_page("Games", f"<h1>The last {len(rows)} games</h1>" + games_table(rows))


def replay_page(title: str, games_href: str, game: str, data_script: str) -> str:
    """The replay viewer of one finished game, its data from `data_script`."""
    body = replay_viewer(games_href, game=game, data_script=data_script)
    return league_page(title, body, ("replay.js",))


def live_page(title: str, page_title: str, state: TableState, events_url: str,
              replay_href: str, after: str = "") -> str:
    """A game in progress (`views.live_game`), then `after` (HTML: a view's)."""
    return league_page(page_title, live_game(title, state, events_url, replay_href) + after,
                       ("live.js",))


def live_list_page(games: Sequence[str]) -> str:
    """The games in progress, each linking to its live page."""
    items = "".join(f'<li><a href="/live/{quote(g, safe="")}">{esc(g)}</a></li>'
                    for g in games)
    return league_page("Live games", "<h1>Games in progress</h1>" + (
        f'<ul id="live-games">{items}</ul>' if items else
        '<p class="empty">None right now: reload in a moment.</p>'))


def practice_status(status: str, said: str, replay: str | None) -> str:
    """A practice game's status line: `said` what it is doing, `replay` its link once over."""
    return (f'<p id="practice-status" data-status="{esc(status)}">Unrated: it '
            f"counts in no table.{esc(said)}"
            + (f' <a href="{esc(replay)}">Open the replay</a>.' if replay else "") + "</p>")


def upload_page(csrf: str) -> str:
    """The upload form (the author's token, the bot's name, its archive)."""
    body = ('<h1>Upload a bot</h1><form method="post" action="/upload" '
            'enctype="multipart/form-data" id="upload-form">'
            f'<input type="hidden" name="csrf" value="{esc(csrf)}">' + _TOKEN_FIELD +
            '<p><label>Bot name <input type="text" name="name" required></label></p>'
            '<p><label>Archive (.tar.gz, .tgz, .tar, .zip) <input type="file" '
            'name="archive" required></label></p>'
            '<p><button type="submit">Upload</button></p></form>')
    return league_page("Upload a bot", body)


def uploaded_page(upload: int, name: str) -> str:
    """The upload form's answer: the upload was received; its bot's page follows it."""
    return league_page("Uploaded", f"<h1>Upload {upload} received</h1><p>Follow it on "
                                   f"<a href=\"/bots/{quote(name)}\">its bot's page"
                                   "</a>.</p>")


# ----- a bot's page --------------------------------------------------------------------------

def bot_page(bot: Mapping[str, Any], recent: Sequence[GameListRow], csrf: str,
             opponents: Sequence[str], practice_per_day: int, signed_in: bool) -> str:
    """A bot's page from its JSON (`GET /api/bots/{name}`, a log shown wherever an upload
    has one): its uploads, versions, rating charts, opponents, failures, `recent` games,
    and for an uploaded bot the practice form (`opponents` to choose from) and, unless
    `signed_in`, the form showing its author the build logs."""
    name = bot["name"]
    parts = [f"<h1>{esc(name)}</h1><p>Author: {esc(bot['author'])}</p>",
             bot_uploads(bot["uploads"]), bot_versions(bot["versions"]),
             bot_charts(name, bot["versions"]), bot_opponents(bot["opponents"]),
             bot_failures(bot["versions"], bot["failures"]), "<h2>Recent games</h2>",
             games_table(recent)]
    if bot["uploads"]:
        parts.append(practice_form(name, csrf, opponents, practice_per_day))
        if not signed_in:
            parts.append(sign_in_form(name, csrf))
    return league_page(name, "".join(parts))


def bot_uploads(uploads: Sequence[Mapping[str, Any]]) -> str:
    """A bot's uploads, newest first, each with its status, reason, log and command."""
    parts = ["<h2>Uploads</h2>"]
    if not uploads:
        parts.append("<p>None: a house bot, from the league's config.</p>")
    for u in reversed(uploads):
        parts.append(f'<div class="upload" id="upload-{u["id"]}"><p>Upload {u["id"]}: '
                     f'<strong class="status">{esc(u["status"])}</strong>'
                     + (f" at {esc(u['stage'])}: {esc(u['reason'])}" if u["reason"] else "")
                     + "</p>"
                     + (f'<pre class="output">{html_block(u["log"])}</pre>' if u["log"]
                        else "")
                     + (f"<p>Reproduce it on your machine: <code>{esc(u['command'])}</code>"
                        "</p>" if u["command"] else "") + "</div>")
    return "".join(parts)


def bot_versions(versions: Sequence[Mapping[str, Any]]) -> str:
    """A bot's versions, each with its state, rating and failures."""
    items = []
    for v in versions:
        failures = ", ".join(f"{kind.replace('_', ' ')} {count}"
                             for kind, count in sorted(v["failures"].items()))
        items.append(f"<li>{esc(v['version'])} {esc(v['hash'][:8])}: "
                     + ("active" if v["active"] else "retired" if v["retired"] else
                        "inactive")
                     + f", {_rating_words(v['standing'])}"
                     + (f", games forfeited: {esc(failures)}" if failures else "") + "</li>")
    return "<h2>Versions</h2><ul>" + "".join(items) + "</ul>"


def _rating_words(standing: Mapping[str, Any] | None) -> str:
    """A version's rating in words, or "no rating yet" (not in the table, or no games)."""
    if not standing or not standing.get("rating_text") or not standing.get("games"):
        return "no rating yet"
    return (f"rating {esc(standing['rating_text'])} ({esc(standing['interval_text'])}) "
            f"over {standing['games']} games")


def bot_charts(name: str, versions: Sequence[Mapping[str, Any]]) -> str:
    """Each version's rating over its games, with the 95% interval (none: no chart)."""
    parts = []
    for v in versions:
        chart = rating_line([(p["games"], p["rating"], p["interval"] or math.inf)
                             for p in v["history"]],
                            f"{name} {v['version']} {v['hash'][:8]}: rating over games")
        if chart:
            parts.append(f"<h2>Rating over time: {esc(v['version'])} "
                         f"{esc(v['hash'][:8])}</h2><figure>{chart}<figcaption>Elo after "
                         "each number of games, with its 95% interval.</figcaption>"
                         "</figure>")
    return "".join(parts)


def bot_opponents(opponents: Sequence[Mapping[str, Any]]) -> str:
    """Games, wins and win share against each opponent met."""
    return "<h2>Against each opponent</h2>" + table(
        ["Opponent", "Games", "Wins", "Win %"],
        [[cell(o["opponent"]), cell(o["games"]), cell(o["wins"]),
          cell(f"{100 * o['wins'] / o['games']:.0f}", o["wins"] / o["games"])]
         for o in opponents if o["games"]],
        "opponents-table", numeric=[False, True, True, True])


def bot_failures(versions: Sequence[Mapping[str, Any]],
                 recent: Sequence[Mapping[str, Any]]) -> str:
    """The failures of all a bot's versions by kind, then the newest, each with its round,
    decision, stderr (to its author) and the command that replays it."""
    kinds: dict[str, int] = {}
    for v in versions:
        for kind, count in v["failures"].items():
            kinds[kind] = kinds.get(kind, 0) + count
    if not kinds:
        return "<h2>Failures</h2><p>None.</p>"
    return ("<h2>Failures</h2><p>Games forfeited, by kind: " + ", ".join(
        f"{esc(k.replace('_', ' '))} {n}" for k, n in sorted(kinds.items())) + ".</p>"
        + "".join(_failure(f) for f in recent))


def _failure(failure: Mapping[str, Any]) -> str:
    """One failure: what, where and when, its output, and how to reproduce it."""
    output = failure["output"]
    return (f'<div class="failure"><p><a href="{esc(failure["replay"])}">'
            f'{esc(failure["game"])}</a>, {esc(failure["version"])} at seat '
            f'{failure["seat"]}: <strong>{esc(failure["kind"].replace("_", " "))}</strong> '
            f'in round {failure["round"]}, decision {failure["decision"]}: '
            f'{esc(failure["message"])}</p>'
            + (f'<pre class="output">{html_block(output)}</pre>' if output else "")
            + '<p>Replay it to your bot on your machine (your token in ARENA_TOKEN): '
            f'<code>{esc(failure["reproduce"])}</code></p></div>')


def sign_in_form(name: str, csrf: str) -> str:
    """The form showing the bot's author its build logs (their token needed)."""
    return ('<h2>Your build logs</h2><p>Build logs and the commands that reproduce a '
            "failure are shown to the bot's author only.</p>"
            f'<form method="post" action="/bots/{esc(quote(name))}" id="sign-in-form">'
            f'<input type="hidden" name="csrf" value="{esc(csrf)}">' + _TOKEN_FIELD +
            '<p><button type="submit">Show my logs</button></p></form>')


def practice_form(name: str, csrf: str, opponents: Sequence[str], per_day: int) -> str:
    """The form asking for a practice game of bot `name` (its author's token needed)."""
    options = "".join(f'<option value="{esc(o)}">{esc(o)}</option>' for o in opponents)
    return ('<h2>Practice game</h2><p>An unrated game of this bot\'s active version '
            "against an entrant of your choice, to watch live; it counts in no table "
            f"(at most {per_day} a day).</p>"
            '<form method="post" action="/practice" id="practice-form">'
            f'<input type="hidden" name="csrf" value="{esc(csrf)}">'
            f'<input type="hidden" name="bot" value="{esc(name)}">' + _TOKEN_FIELD +
            f'<p><label>Opponent <select name="opponent">{options}</select></label></p>'
            '<p><button type="submit">Play a practice game</button></p></form>')
