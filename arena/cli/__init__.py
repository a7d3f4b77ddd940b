"""The `arena` command line: thin click commands over the packages below. `main.py` holds the
group, one game (`arena play`, `replay`, `demo`), `arena doctor` and the `arena bench` group;
`bots.py` the commands for bot authors, `tournaments.py` those of tournaments and their
outputs, `league.py` those of a league (`arena league serve`, `invite`, `revoke`) and
`arena upload`, `training.py` those of learning bots, `reproduce.py` `arena reproduce` (a
failed game's messages replayed to your bot) (each registered by `main.py`); `output.py` is
what every command prints, escaped for the terminal, and how it exits (`ArenaCommand`, the
class of every command, the one place where the library's errors become exit statuses);
`__main__.py` makes `python -m arena.cli` the `arena` command. `human/` is the human seat of
`arena play human BOT`: the program a person plays one seat with, at the terminal, through
the same referee as any bot.

`arena bench` is the one home of the benchmarks: each is a subcommand. `bench.py` holds those
of the engine, the transport and the sandbox, with the programs they measure in
`benchbots/`, and `benchwork.py` the referee's work that the transport's instruction count
runs under callgrind (a module that imports little: valgrind slows the imports too); `bench_playouts.py` that of the search bot's playouts (bots/search); the others sit in the `bench.py` of the package they measure
(`arena.intake.bench`, `arena.tournament.bench`, `arena.league.bench`, `arena.presentation.bench`,
`arena.env.bench`). README "Benchmarks" lists them all with what each prints.

The only package that imports click; it holds no game logic. It may import every other
package of `arena`.
"""
