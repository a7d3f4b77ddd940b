"""Presentation: what people read. Standings, matchup, matrix and SPRT tables in every format
(`tables.py`, with the notes and number formats of `notes.py`), summaries of game records
(`summary.py`) and their play by play (`replay.py`), a bot's failures with the end of its
own output (`failures.py`), hand-level statistics from the records (`handstats.py`), one
seat's view of a game being played, for a person at that seat (`seat_view.py`, the human
seat's), and the web report: a static site with standings, grids, entrant pages, the games
list and a replay viewer (`report.py` gathers, `report_pages.py` turns its data into the
views' rows, `charts.py` draws SVG; the stylesheet and scripts are in `assets/`). The views
that write HTML are shared with the league server's pages: `views.py` (the page shell with
its themes, the leaderboard, games, failures, the replay viewer, a game in progress),
`table_view.py` (cards, the four seats around the trick, the public view of a game being
played) and `pages.py` (sortable tables, grids); the league's own pages, one function each,
are `league_views.py`, and the page a person plays a seat on is `play_views.py` (drawn by
`assets/play.js` from the seat's own messages; it draws cards with `assets/cards.js`, as the
replay viewer does). Every string a bot or its author controls is escaped for its output by
`safe.py` (terminal, markdown, CSV, HTML).
`arena bench report` (`bench.py`) measures the report on a synthetic tournament of real
engine games.

It may import ratings, the tournament's store, the referee's records and the rules engine;
never the CLI or click: the CLI decides where the text goes.
"""
