"""Ratings: pure functions from game results to Elo tables that say how sure they are.

It owns the Bradley-Terry fits, intervals and incremental Elo (`fit`), the counts and the
`Standings` bundle (`standings`) and the sequential probability ratio test on pairs (`sprt`).
It works on plain results, so it may import only `arena.errors`: never the referee (a record
is read by the tournament's store, which hands results here), the tournament or anything
above, and never click.
"""
