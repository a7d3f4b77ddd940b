"""Learning bots: a PettingZoo environment over the rules engine, training data exported from
stored games, and the readers of that data.

`tichu_v0.py` is the AEC environment (agents seat_0..seat_3); `export.py` turns a
tournament's stored game records into rows of encoded decisions; `dataset.py` reads them
back; `bench.py` is `arena bench env`, the environment's steps/s and its overhead over the
bare engine. Every observation is built from the protocol's own request maps
(`arena.referee.wire`) and encoded by `protocol.features`, exactly as a policy bot encodes
what it receives, so what was trained is what plays.

It may import `arena.rules`, `arena.referee`, `arena.tournament`, `arena.errors`,
`protocol`, and the optional `train` extra (numpy, gymnasium, pettingzoo), which nothing
else in `arena` imports (the CLI only lazily, for `arena export` and `arena bench env`).
Importing this package itself loads none of them.
"""
