"""Presentation: what people read. Standings, matchup, matrix and SPRT tables in every format
(`tables`), summaries of game records (`summary`) and their play by play (`replay`).

It may import ratings, the tournament's store, the referee's records and the rules engine;
never the CLI or click: the CLI decides where the text goes.
"""
