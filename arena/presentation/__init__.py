"""Presentation: what people read. Standings, matchup, matrix and SPRT tables in every format
(`tables`, with the notes and number formats of `notes`), summaries of game records
(`summary`) and their play by play (`replay`), hand-level statistics from the records
(`handstats`) and the web report: a static site with standings, grids, entrant pages, the
games list and a replay viewer (`report` gathers, `report_pages` and `pages` write HTML,
`charts` draws SVG; the stylesheet and scripts are in `assets/`). Every string a bot or its
author controls is escaped for its output by `safe` (terminal, markdown, CSV, HTML).

It may import ratings, the tournament's store, the referee's records and the rules engine;
never the CLI or click: the CLI decides where the text goes.
"""
