"""The `arena` command line: thin click commands over the library; no game logic here."""

from __future__ import annotations

import random

import click

from arena import __version__


@click.group()
@click.version_option(__version__, prog_name="arena")
def main() -> None:
    """Tichu Arena: Tichu bots in any language play each other and get ranked."""


@main.group()
def bench() -> None:
    """Benchmarks that print speed figures."""


@bench.command("engine")
@click.option("-n", "--games", default=200, show_default=True, help="Games to play.")
@click.option("--seed", default=0, show_default=True, help="Seed of the first game.")
def bench_engine_cmd(games: int, seed: int) -> None:
    """Play full games to 1000 with four random players in one process; print throughput."""
    from arena.bench import bench_engine

    if games < 1:
        raise click.BadParameter("must be at least 1", param_hint="--games")
    for line in bench_engine(games, seed).lines():
        click.echo(line)


@bench.command("transport")
@click.option("-n", "--games", default=3, show_default=True,
              help="Full games between random bot processes, for (c).")
@click.option("--round-trips", default=2000, show_default=True, help="Raw round trips, for (a).")
def bench_transport_cmd(games: int, round_trips: int) -> None:
    """Measure (a) raw pyzmq round trip, (b) referee decision round trip, (c) games/s."""
    from arena.bench import bench_transport

    for line in bench_transport(games, round_trips).lines():
        click.echo(line)


@main.command()
@click.option("--seed", default=1, show_default=True, help="Seed of the game's deals.")
def demo(seed: int) -> None:
    """Play one engine self-play game between random players and print it round by round."""
    from arena.selfplay import play_game, random_player

    rng = random.Random(seed)
    game, summary = play_game(seed, [random_player(rng) for _ in range(4)])
    click.echo(f"Self-play game, seed {seed}: four random players, target {game.target}")
    for event in game.events:
        if event.kind == "round_end":
            d = event.data
            click.echo(f"  round end: cards {d['card_points'][0]:>4}:{d['card_points'][1]:<4} "
                       f"calls {d['calls'][0]:>4}:{d['calls'][1]:<4} "
                       f"total {d['scores'][0]:>5}:{d['scores'][1]:<5}"
                       + ("  double victory" if d["double_victory"] else ""))
    click.echo(f"Team {summary.winner} wins {summary.scores[0]}:{summary.scores[1]} after "
               f"{summary.rounds} rounds and {summary.decisions} decisions.")
