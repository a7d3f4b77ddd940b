"""The `arena` commands for learning bots: `export` and `bench env` (registered by `register`).

Thin click commands over `arena.env`, which needs the optional `train` extra (numpy,
gymnasium, pettingzoo): it is imported only when a command runs, and its absence is a clear
error naming the extra.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

import click

from arena.cli.output import ArenaCommand, echo
from arena.cli.tournaments import _storage

TRAIN_EXTRA = "pip install -e '.[train]' (make test installs it)"


def _train_module(name: str) -> ModuleType:
    """An `arena.env` module, or a ClickException saying how to install the train extra."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] in ("numpy", "gymnasium", "pettingzoo"):
            raise click.ClickException(f"this command needs {exc.name}, of the train extra: "
                                       f"{TRAIN_EXTRA}") from None
        raise


def register(main: click.Group) -> None:
    """Add this module's commands to the `arena` group (and `env` to `arena bench`)."""
    main.add_command(export)
    bench = main.commands.get("bench")
    if isinstance(bench, click.Group):
        bench.add_command(bench_env_cmd)


@click.command(cls=ArenaCommand)
@click.argument("target", type=click.Path(dir_okay=False))
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="The .npz to write (a .schema.json is written beside it). "
                   "Default: the store's name with .npz.")
@click.option("--entrant", "entrants", multiple=True,
              help="Export the seats of this entrant (bot name: every version; or its "
                   "name@version key). Repeatable. Default: every seat.")
@click.option("--games", "max_games", type=click.IntRange(min=1), default=None,
              help="Export at most this many games (in schedule order).")
def export(target: str, output: str | None, entrants: tuple[str, ...],
           max_games: int | None) -> None:
    """Write training data from the stored games of TARGET (a tournament config or its
    .sqlite store): one row per decision of the chosen entrants, with the seat's encoded
    observation, the legal actions, the action taken, its time and the round and game
    outcome. numpy's np.load reads it; the columns are documented in the .schema.json."""
    storage, _ = _storage(target)
    out = Path(output) if output else Path(storage).with_suffix(".npz")
    module = _train_module("arena.env.export")
    figures = module.export_store(storage, out, entrants, max_games)
    echo(f"wrote {out} and {module.schema_path(out)}")
    for line in figures.lines():
        echo(line)


@click.command("env", cls=ArenaCommand)
@click.option("-n", "--games", type=click.IntRange(min=1), default=20, show_default=True,
              help="Games through the environment, and as many with the bare engine.")
@click.option("--seed", default=0, show_default=True, help="Seed of the first game.")
def bench_env_cmd(games: int, seed: int) -> None:
    """The PettingZoo environment with random agents, pinned to one CPU: steps/s, and its
    time per decision over the bare engine's, measured alternately in one run."""
    from arena.referee.placement import pinned

    module = _train_module("arena.env.bench")
    with pinned() as cpu:
        figures = module.bench_env(games, seed)
    for line in figures.lines():
        echo(line)
    echo(f"cpu:              {f'pinned to CPU {cpu}' if cpu is not None else 'unpinned'}")
