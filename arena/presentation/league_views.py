"""The league server's pages, one function per page, made of the report's views.

Each takes plain data (strings, numbers, the JSON of the league's API, the rows of `views`)
and returns a whole page, every string escaped (`esc`, `cell`), as `views` does for the
static report. The league's web layer (`arena.league.web.pages`) gathers the data and
answers with these; nothing here knows the league.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import quote

from arena.presentation.charts import rating_line
from arena.presentation.failures import SeatFailure
from arena.presentation.pages import Cell, cell, esc, table
from arena.presentation.safe import html_block
from arena.presentation.table_view import TableState
from arena.presentation.views import GameListRow, live_game, page, replay_viewer

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


# ----- games: lists, replays, games in progress ----------------------------------------------

def game_title(teams: Sequence[str], place: str) -> str:
    """A game as a page names it: "A 1.0 vs B 2.1, game 3.1" (`place`: pair.game)."""
    return f"{teams[0]} vs {teams[1]}, game {place}"


def score_text(scores: Sequence[int]) -> str:
    """Two teams' scores: "450 – 550" (kept on one line by its ``score`` class)."""
    return f"{scores[0]} \u2013 {scores[1]}"


TIME_FORMAT = "%Y-%m-%dT%H:%M:%S%z"
"""How the store writes a game's `finished_at`."""


def short_time(stamp: str, now: datetime) -> str:
    """A time as a list shows it: "just now", "3 min ago" within the hour, "14:02" the same
    day, else "Dec 4 14:02"; the stamp itself if it cannot be read."""
    try:
        then = datetime.strptime(stamp, TIME_FORMAT)
    except ValueError:
        return stamp
    ago = now - then
    if timedelta(0) <= ago < timedelta(minutes=1):
        return "just now"
    if timedelta(0) <= ago < timedelta(hours=1):
        return f"{int(ago.total_seconds() // 60)} min ago"
    when = then.astimezone(now.tzinfo)
    return when.strftime("%H:%M" if when.date() == now.date() else "%b %-d %H:%M")


def games_list(rows: Sequence[GameListRow], now: datetime,
               table_id: str = "games-table") -> str:
    """Games as a table that fits a phone: each game's teams (named with their versions)
    linking to its replay with its place beneath, the score on one line, how it ended, and
    when, a short time (its full stamp as the title)."""
    body = [[Cell(f'<a href="{esc(g.href)}" title="{esc(g.game_id)}">{esc(g.teams[0])} '
                  f'<span class="vs">vs</span> {esc(g.teams[1])}</a><span class="place">'
                  f"game {g.pair}.{g.game}" + (f", {g.rounds} round{'s' * (g.rounds != 1)}"
                                               if g.rounds else "") + "</span>",
                  f"{g.pair:09d}.{g.game}"),
             Cell(f'<span class="score">{esc(score_text(g.scores))}</span>',
                  g.scores[0] - g.scores[1]),
             cell(_ending(g)),
             Cell(f'<time datetime="{esc(g.finished)}" title="{esc(g.finished)}">'
                  f"{esc(short_time(g.finished, now))}</time>", g.finished)] for g in rows]
    return table(["Game", "Score", "Result", "Finished"], body, table_id,
                 numeric=[False, True, False, False])


def _ending(g: GameListRow) -> str:
    """How a listed game ended: who won, or who failed and how."""
    won = f"{g.winner} wins" if g.winner else "no winner"
    if g.termination == "normal":
        return won
    kind = g.termination.replace("_", " ")
    return f"{won}: {kind} by {g.fault}" if g.fault else f"{won} ({kind})"


def games_page(rows: Sequence[GameListRow], now: datetime) -> str:
    """The last games stored, newest first."""
    heading = "The last game" if len(rows) == 1 else f"The last {len(rows)} games"
    return league_page("Games", f"<h1>{heading}</h1>" + games_list(rows, now))


def replay_page(title: str, games_href: str, game: str, data_script: str,
                fault: str = "") -> str:
    """The replay viewer of one finished game, its data from `data_script`, titled `title`;
    `fault`: its fault's last event (`fault_event`), shown by the viewer as its last step.
    It opens on the first hands dealt."""
    body = replay_viewer(games_href, game=game, data_script=data_script, title=title,
                         start="dealt")
    return league_page(title, body + fault, ("cards.js", "replay.js"))


def fault_event(failures: Sequence[SeatFailure], seen: Sequence[bool], names: Sequence[str],
                csrf: str, action: str, commands: Sequence[str] = ()) -> str:
    """What the replay shows as its last event when the game ended by a fault: each failed
    seat's bot, the kind, the round and decision; its output where `seen`, else a form for
    its author's token (posted to `action`); `commands`: the line reproducing it, if any."""
    if not failures:
        return ""
    items = []
    for k, f in enumerate(failures):
        said = (f"Seat {f.seat} ({names[f.seat % len(names)]}) forfeits: "
                f"{f.kind.replace('_', ' ')} in round {f.round}, decision {f.decision}"
                + (f": {f.message}" if seen[k] else "."))
        output = (f'<pre class="output">{html_block(f.output)}</pre>' if f.output else
                  '<p class="empty">It wrote nothing to stdout or stderr.</p>') \
            if seen[k] else ""
        command = commands[k] if k < len(commands) else ""
        # the line that reproduces the failure on the author's machine (failures.py's)
        reproduce = f'<p class="reproduce"><code>{esc(command)}</code></p>' if command else ""
        items.append(f'<div class="fault" data-seat="{f.seat}"><p class="fault-said">'
                     f"{esc(said)}</p>{output}{reproduce}</div>")
    private = "" if all(seen) else _output_form(csrf, action)
    return (f'<template id="fault-event">{"".join(items)}{private}</template>')


def _output_form(csrf: str, action: str) -> str:
    """The form showing a failed bot's author its output on the replay (their token)."""
    return ('<form method="post" class="output-form" id="output-form" action="'
            f'{esc(action)}"><p>The bot\'s output is shown to its author only.</p>'
            f'<input type="hidden" name="csrf" value="{esc(csrf)}">' + _TOKEN_FIELD +
            '<p><button type="submit">Show my bot\'s output</button></p></form>')


def live_page(title: str, page_title: str, state: TableState, events_url: str,
              replay_href: str, after: str = "") -> str:
    """A game in progress (`views.live_game`), then `after` (HTML: a view's)."""
    return league_page(page_title, live_game(title, state, events_url, replay_href) + after,
                       ("live.js",))


def live_over(teams: Sequence[str], scores: Sequence[int], winner: int | None,
              failures: Sequence[SeatFailure], replay_href: str) -> str:
    """How a game watched live ended, on one line: the final score, the winner (or whose
    bot failed, and how), and the link to its replay."""
    said = (f"The game is over: {teams[0]} {score_text(scores)} {teams[1]}; "
            + (f"{teams[winner]} wins." if winner is not None else "no winner."))
    for f in failures:
        said += (f" Seat {f.seat} ({teams[f.seat % 2]}) forfeited: "
                 f"{f.kind.replace('_', ' ')} in round {f.round}, decision {f.decision}.")
    return (f'<span id="live-over">{esc(said)}</span> <a id="live-replay" '
            f'href="{esc(replay_href)}">Open the replay, with every hand.</a>')


@dataclass(frozen=True)
class LiveRow:
    """One game in progress, as the live list shows it."""

    game_id: str
    href: str
    teams: tuple[str, str]
    """Each team's entrant, named with its version."""
    place: str
    """Its pair and game, "3.1"."""
    round: int
    scores: tuple[int, int]


def live_list_page(games: Sequence[LiveRow]) -> str:
    """The games in progress, each linking to its live page."""
    body = [[Cell(f'<a href="{esc(g.href)}" title="{esc(g.game_id)}">{esc(g.teams[0])} '
                  f'<span class="vs">vs</span> {esc(g.teams[1])}</a><span class="place">'
                  f"game {esc(g.place)}</span>", g.game_id),
             cell(f"round {g.round}" if g.round else "dealing", g.round),
             Cell(f'<span class="score">{esc(score_text(g.scores))}</span>',
                  g.scores[0] - g.scores[1])] for g in games]
    listing = table(["Game", "Round", "Score"], body, "live-games",
                    numeric=[False, True, True])
    return league_page("Live games", "<h1>Games in progress</h1>" + (
        listing if games else '<p class="empty">None right now: reload in a moment.</p>'))


def not_live_page(game_id: str, replay_href: str) -> str:
    """The answer (404, as `error_page` writes one) to a game's live page when the game is
    neither in progress nor stored: a real link to where its replay will be."""
    return league_page("Not in progress", f"<h1>404</h1><p>Game {esc(game_id)} is not in "
                       "progress, and no finished game has that id yet. If it has just ended, "
                       f'<a id="replay-link" href="{esc(replay_href)}">its replay</a> opens '
                       'in a moment; the games being played are on <a href="/live">the live '
                       "list</a>.</p>")


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
             opponents: Sequence[str], practice_per_day: int, signed_in: bool,
             now: datetime, partners: Sequence[str] | None = None) -> str:
    """A bot's page from its JSON (`GET /api/bots/{name}`, a log shown wherever an upload
    has one): its uploads, versions, rating charts, opponents, failures, `recent` games,
    and for an uploaded bot the practice form (`opponents` to choose from) and, unless
    `signed_in`, the form showing its author the build logs. `now`: for the games' times.
    `partners`: the house bots, offered as partners by the form to play this bot in the
    browser (None: the bot is not active, no such form)."""
    name = bot["name"]
    parts = [f"<h1>{esc(name)}</h1><p>Author: {esc(bot['author'])}</p>",
             bot_uploads(bot["uploads"]), bot_versions(bot["versions"]),
             bot_charts(name, bot["versions"]), bot_opponents(bot["opponents"]),
             bot_failures(bot["versions"], bot["failures"]), "<h2>Recent games</h2>",
             games_list(recent, now)]
    if bot["uploads"]:
        parts.append(practice_form(name, csrf, opponents, practice_per_day))
    if partners is not None:
        parts.append(play_form(name, csrf, opponents, partners, practice_per_day))
    if bot["uploads"] and not signed_in:
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


def play_form(name: str, csrf: str, opponents: Sequence[str], partners: Sequence[str],
              per_day: int) -> str:
    """The form to play a game in the browser, at a seat of a table with bots: against bot
    `name` (or another of `opponents`), with a partner of `partners` (the house bots) or one
    of the author's own bots. The token is asked once per browser: a cookie keeps it."""
    against = "".join(f'<option value="{esc(o)}">{esc(o)}</option>' for o in (name, *opponents))
    chosen = next((p for p in partners if p != name), None)  # a bot never partners itself
    with_ = "".join(f'<option value="{esc(p)}"{" selected" if p == chosen else ""}>{esc(p)}'
                    "</option>" for p in partners)
    windows = "".join(f'<option value="{w}">{w}</option>' for w in ("ask", "every", "never"))
    return ('<h2>Play it yourself</h2><p>Sit at the table in your browser: you play one seat, '
            "a bot of your choice is your partner, and the opponent's bot plays the other "
            f"two seats. It counts as a practice game (at most {per_day} a day).</p>"
            '<form method="post" action="/play" id="play-form">'
            f'<input type="hidden" name="csrf" value="{esc(csrf)}">'
            f'<p><label>Opponent <select name="opponent">{against}</select></label></p>'
            f'<p><label>Partner <select name="partner">{with_}</select></label> '
            '<label>or one of your bots <input type="text" name="own_partner" '
            'autocomplete="off"></label></p>'
            f'<p><label>Bomb windows <select name="bomb_windows">{windows}</select></label>'
            "</p>"
            '<p><label>Token (needed once in this browser) <input type="password" '
            'name="token" autocomplete="off"></label></p>'
            '<p><button type="submit">Play</button></p></form>')


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
