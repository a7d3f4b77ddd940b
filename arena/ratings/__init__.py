"""Ratings: pure functions from game results to Elo tables that say how sure they are.

One model rates every tournament (`model.py`): Bradley-Terry over teams compared pair by pair,
the prior only where the estimate does not exist, pair-clustered intervals, and the
`RatingFit` a fit gives. Its small dense linear algebra is `linalg.py`; the bootstrap over
pairs that cross-checks its intervals is `bootstrap.py`. Fixed partners (`fit.py`: rated
games, each pair a comparison of teams (a, a) and (b, b), incremental Elo) and mixed partners
(`individual.py`: individual ratings of team results) turn games into its comparisons.
`synergy.py` fits each partnership's synergy.

Around the model: the graphs of games played and won that say what can be rated
(`graph.py`). The counts, fallbacks, notes and the `Standings` bundle, one loop for both kinds
of partners (`standings.py`). The same standings kept up as games arrive (`tally.py`:
per-matchup counts and warm-started fits, for the league's live table). The sequential
probability ratio test on pairs (`sprt.py`). Means with pair-clustered intervals and the
duplicate-score rating (`duplicate.py`). The width an interval will have before the games are
played (`planning.py`: a closed form of the fit's, for a tournament's plan).

It works on plain results, so it may import only `arena.errors` and `arena.faults` (the
forfeit kinds it counts). It never imports the referee (a record is read by the tournament's
store or the presentation, which hand results here), the tournament or anything above, nor
click.
"""
