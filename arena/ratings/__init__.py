"""Ratings: pure functions from game results to Elo tables that say how sure they are.

One model rates every tournament (`model.py`): Bradley-Terry over teams compared pair by
pair, with the prior only where the estimate does not exist, pair-clustered intervals and
the `RatingFit` a fit gives; its small dense linear algebra is `linalg.py`, and the
bootstrap over pairs that cross-checks its intervals is `bootstrap.py`.
Fixed partners (`fit.py`: which games are rated, each pair a comparison of teams (a, a) and
(b, b), incremental Elo) and mixed partners (`individual.py`: the individual ratings of team
results) turn games into the model's comparisons; `synergy.py` fits each partnership's
synergy. The graphs of games played and won that say what can be rated are in `graph.py`;
the counts, fallbacks, notes and the `Standings` bundle, one loop for both kinds of
partners, in `standings.py`; the same standings kept up as games arrive (`tally.py`:
per-matchup counts and warm-started fits, for the league's live table); the sequential
probability ratio test on pairs (`sprt.py`); means with pair-clustered intervals and the
duplicate-score rating (`duplicate.py`); the width an interval will have before the games
are played (`planning.py`: a closed form of the fit's, for a tournament's plan). It works on
plain results, so it may import only `arena.errors` and `arena.faults` (the forfeit kinds
it counts): never the referee (a record is read by the tournament's store or the
presentation, which hand results here), the tournament or anything above, and never click.
"""
