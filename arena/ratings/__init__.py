"""Ratings: pure functions from game results to Elo tables that say how sure they are.

It owns the Bradley-Terry fits, intervals and incremental Elo (`fit.py`), the graphs of games
played and won that say what can be rated (`graph.py`), the counts, fallbacks, notes and the
`Standings` bundle (`standings.py`), the same standings kept up as games arrive
(`tally.py`: per-matchup counts and warm-started fits, for the league's live table), the
sequential probability ratio test on pairs (`sprt.py`), means with pair-clustered intervals and the duplicate-score rating
(`duplicate.py`), the width an interval will have before the games are played
(`planning.py`: a closed form of the fit's, for a tournament's plan), and for mixed partners
the individual ratings of team results (`individual.py`) and the synergy of each partnership
(`synergy.py`). It works on plain results, so it may import only `arena.errors` and
`arena.faults` (the forfeit kinds it counts): never the referee (a record is read by the
tournament's store or the presentation, which hand results here), the tournament or anything
above, and never click.
"""
