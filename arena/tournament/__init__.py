"""The tournament: config -> schedule -> games played by workers -> store, resumable.

It owns tournament configs (`config.py`), the round robin of duplicate pairs (`schedule.py`),
with mixed partners the movement of foursomes that its cycles play (`movement.py`), the worker
processes that play them (`workers.py`) or the Dask cluster that does
(`cluster.py`: the only importer of Dask, the cluster extra), the SQLite store and its game
writer (`store.py`), record files, written, read and linked to their stored games
(`records.py`), the run lock that keeps one run per store (`lock.py`), progress lines
(`progress.py`), the runner that ties them together (`runner.py`), the runner of sequential
tests between two entrants (`sprt_runner.py`), a run's plan (`plan.py`: what it would play,
how long here, how sure; it plays nothing), and `arena bench coordinator` and `game-cost` (`bench.py`: the
coordinator's own work on synthetic leagues; each language's share of a game's seconds, the
plan's defaults). Its entrants come in through `arena.intake`
(every run, the coordinator and each cluster worker). It may import intake, the referee, the
rules engine, ratings (for the live standings line and a plan's intervals), `protocol` and
`arena.errors`; not presentation or the CLI, and never click.
"""
