"""The tournament: config -> schedule -> games played by workers -> store, resumable.

It owns tournament configs (`config`), the round robin of duplicate pairs (`schedule`), the
worker processes that play them (`workers`) or the Dask cluster that does (`cluster`: the
only importer of Dask, the cluster extra), the SQLite store and its records (`store`),
progress lines (`progress`), the runner that ties them together (`runner`) and the runner of
sequential tests between two entrants (`sprt_runner`). Its entrants come in through
`arena.intake` (every run, the coordinator and each cluster worker). It may import intake,
the referee, the rules engine, ratings (for the live standings line), `protocol` and
`arena.errors`; not presentation or the CLI, and never click.
"""
