"""The page a person plays one seat on, in the browser (`/play/{id}` of the league).

`play_page` writes the page's frame and no card: the cards come only from the server-sent
events of the seat's own stream, which `assets/play.js` reads (the protocol's messages to
that seat: welcome, requests with their observation, options and events, end). The script
keeps the seat's state from them and draws the table with the live view's markup
(`table_view.viewer_templates`: the same card faces and seats), the person's hand as cards
to select, the legal options of the open request, what happened since the last decision and,
at the end, the result and the replay's link. It answers at the page's answer URL and shows
a refusal's rule. The URLs, the CSRF value and the seat are in the data attributes of
``#play``; every text is escaped (`esc`), since names are chosen by bots' authors.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from arena.presentation.league_views import league_page
from arena.presentation.safe import html_text as esc
from arena.presentation.table_view import viewer_templates

BOMB_CHOICES = {
    "ask": "you are asked when a new play is on the table, and before a trick is taken",
    "every": "you are asked at every chance to bomb out of turn",
    "never": "you are never asked: you bomb on your own turns",
}
"""The bomb windows put to a person, by the choice of the start form (as `arena play human
--bomb-windows`): the server declines the others for them."""


def play_page(game_id: int, title: str, events_url: str, answer_url: str, leave_url: str,
              csrf: str, seat: int, names: Sequence[str], bomb_windows: str | None = None
              ) -> str:
    """The page of seat game `game_id`, for the person at `seat` (`names`: the four seats'
    entrants, by seat; `bomb_windows`: the start form's choice, one of `BOMB_CHOICES`, said
    on the page when given)."""
    data = {"game": str(game_id), "seat": str(seat), "events": events_url,
            "answer": answer_url, "leave": leave_url, "csrf": csrf,
            "names": json.dumps(list(names))}  # JSON: `esc` writes a tab as the text \t
    attributes = " ".join(f'data-{key}="{esc(value)}"' for key, value in data.items())
    body = (f'<h1 id="play-title">{esc(title)}</h1><div id="play" {attributes}>'
            '<p id="play-status" class="live-status" role="status">Connecting to the table'
            '...</p><div id="play-table" class="play-table"></div>'
            + _hand() + _decision() + _log() + _result() + _settings(bomb_windows)
            + "</div>" + viewer_templates())
    return league_page(title, body, ("cards.js", "play.js"))


def _decision() -> str:
    """The open request: what is asked, the refusal of the last answer, the choices."""
    return ('<section id="play-decision" class="play-decision" aria-live="polite" hidden>'
            '<h2 id="play-prompt">Waiting for the other seats</h2>'
            '<p id="play-error" class="play-error" role="alert" hidden></p>'
            '<div id="play-exchange" class="play-exchange" hidden></div>'
            '<div id="play-options" class="play-options"></div>'
            '<div id="play-extra" class="play-extra"></div>'
            '<div id="play-actions" class="play-actions"></div></section>')


def _hand() -> str:
    return ('<section class="play-hand-box"><h2>Your hand <span id="play-hand-count" '
            'class="muted"></span></h2><p class="keys">Tap or click cards to choose them '
            '(Tab to a card, then Enter or Space); the legal plays are listed below.</p>'
            '<div id="play-hand" class="hand my-hand" role="group" '
            'aria-label="Your hand"></div></section>')


def _log() -> str:
    return ('<section class="play-log-box"><h2>Since your last decision</h2>'
            '<ol id="play-log" class="log play-log"></ol></section>')


def _result() -> str:
    return ('<section id="play-result" class="play-result" hidden><h2>The game is over</h2>'
            '<p id="play-result-text"></p><p><a id="play-replay" hidden>Open the replay, '
            'with every hand.</a></p></section>')


def _settings(bomb_windows: str | None) -> str:
    said = BOMB_CHOICES.get(bomb_windows or "")
    note = (f'<p id="play-bomb-windows">Bomb windows ({esc(bomb_windows or "")}): {esc(said)}; '
            '"Skip" in a window declines the rest of its trick\'s.</p>' if said else "")
    return ('<section class="play-settings">' + note + '<p><button type="button" '
            'id="play-leave" class="play-leave">Leave the game (your team forfeits)</button>'
            '</p></section>')
