"""The `arena` command line: thin click commands over the library; no game logic here."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from arena import __version__
from arena.cli.output import (
    HARNESS_FAILURE,
    NOT_NORMAL,
    ArenaGroup,
    echo,
    failure,
    harness_failure,
    usage_error,
)

if TYPE_CHECKING:
    from arena.intake import IntakePolicy
    from arena.referee.match import Entrant
    from arena.referee.record import GameRecord


@click.group(cls=ArenaGroup)
@click.version_option(__version__, prog_name="arena")
def main() -> None:
    """Tichu Arena: Tichu bots in any language play each other and get ranked."""


@main.group()
def bench() -> None:
    """Benchmarks that print speed figures."""


@bench.command("engine")
@click.option("-n", "--games", type=int, help="Games to play.  [default: 200, or 2 with "
              "--compare-instructions]")
@click.option("--seed", default=0, show_default=True, help="Seed of the first game.")
@click.option("--compare-instructions", is_flag=True,
              help="Count machine instructions per round under valgrind's callgrind instead of "
                   "timing: a figure to compare across machines and commits (slow: 2 games "
                   "take about a minute).")
def bench_engine_cmd(games: int | None, seed: int, compare_instructions: bool) -> None:
    """Play full games to 1000 with four random players in one process; print throughput
    (rounds/s first) or, with --compare-instructions, instructions per round."""
    from arena.cli.bench import bench_engine, count_instructions

    if games is None:
        games = 2 if compare_instructions else 200
    if games < 1:
        raise click.BadParameter("must be at least 1", param_hint="--games")
    measure = count_instructions if compare_instructions else bench_engine
    for line in measure(games, seed).lines():
        echo(line)


@bench.command("playouts")
@click.option("-n", "--games", default=4, show_default=True, type=click.IntRange(min=1),
              help="Random self-play games whose positions are played out.")
@click.option("--repeat", default=3, show_default=True, type=click.IntRange(min=1),
              help="Playouts of each position, per policy.")
@click.option("--seed", default=0, show_default=True, help="Seed of the first game.")
@click.option("--bot", "folder", type=click.Path(exists=True, file_okay=False, path_type=Path),
              default=None, help="The search bot's folder.  [default: bots/search]")
def bench_playouts_cmd(games: int, repeat: int, seed: int, folder: Path | None) -> None:
    """Play rounds out from positions of random games, to their end, with the search bot's
    rollout policy and with random players; print playouts per second."""
    from arena.cli.bench_playouts import SEARCH_BOT, bench_playouts

    try:
        figures = bench_playouts(games, repeat, seed, folder or SEARCH_BOT)
    except FileNotFoundError as exc:
        raise usage_error(str(exc)) from None
    for line in figures.lines():
        echo(line)


@bench.command("transport")
@click.option("-n", "--games", default=10, show_default=True,
              help="Full games between random bot processes, for (c), per placement.")
@click.option("--round-trips", default=2000, show_default=True, help="Raw round trips, for (a).")
@click.option("--instructions", is_flag=True,
              help="Also count the referee's instructions per asked decision under callgrind "
                   "(machine-independent; needs valgrind, takes a minute or two).")
def bench_transport_cmd(games: int, round_trips: int, instructions: bool) -> None:
    """Measure (a) raw pyzmq round trip, (b) referee decision round trip, (c) games/s, with
    every process on one CPU (as tournament workers run) and with CPUs shared."""
    from arena.cli.bench import bench_transport, count_referee_instructions

    if games < 1:
        raise click.BadParameter("must be at least 1", param_hint="--games")
    for line in bench_transport(games, round_trips).lines():
        echo(line)
    if instructions:
        echo(count_referee_instructions().line())


@bench.command("sandbox")
@click.option("-n", "--runs", default=10, show_default=True,
              help="Runs per isolation level (they alternate).")
def bench_sandbox_cmd(runs: int) -> None:
    """Measure what the sandbox costs: bot start-up and game time, sandboxed and not."""
    from arena.cli.bench import bench_sandbox

    if runs < 1:
        raise click.BadParameter("must be at least 1", param_hint="--runs")
    figures = bench_sandbox(runs)
    for line in figures.lines():
        echo(line)


@bench.command("intake")
@click.argument("bots", nargs=-1, type=click.Path(exists=True, file_okay=False))
@click.option("-n", "--runs", default=3, show_default=True, type=click.IntRange(min=1),
              help="Runs of each way (they alternate).")
def bench_intake_cmd(bots: tuple[str, ...], runs: int) -> None:
    """Measure what intake and a sandboxed build cost against a plain, unsandboxed build
    (default: the bundled C and Java bots)."""
    from arena.intake.bench import bench_intake

    root = Path(__file__).resolve().parents[2] / "bots"
    folders = [Path(b) for b in bots] or [root / "c-random", root / "java-random"]
    figures = bench_intake(folders, runs)
    for line in figures.lines():
        echo(line)


@bench.command("coordinator")
@click.option("--entrants", "sizes", default="20,50", show_default=True,
              help="League sizes, comma-separated (100 takes several minutes: "
                   "--entrants 20,50,100 --bootstrap-up-to 50).")
@click.option("--pairs", default=8, show_default=True, type=click.IntRange(min=1),
              help="Duplicate pairs per matchup.")
@click.option("--bootstrap", default=200, show_default=True, type=click.IntRange(min=0),
              help="Replicates of the timed `arena standings --bootstrap` (0: not timed).")
@click.option("--bootstrap-up-to", type=click.IntRange(min=2), default=None,
              help="Time the bootstrap only for leagues of at most this many entrants.")
@click.option("--game-seconds", default=0.4, show_default=True, type=click.FloatRange(min=0.0,
              min_open=True), help="Seconds a worker takes per game (the demo's bots on one "
              "CPU: 0.4-1 s), to turn the writer's ceiling into workers fed.")
def bench_coordinator_cmd(sizes: str, pairs: int, bootstrap: int, bootstrap_up_to: int | None,
                          game_seconds: float) -> None:
    """Time the coordinator's own work on synthetic finished leagues (no game played):
    storing, hand-out, standings, the finished tournament; print how each grows."""
    from arena.cli.tournaments import _anchor_options, _standings_text
    from arena.tournament.bench import bench_coordinator

    try:
        leagues = [int(s) for s in sizes.split(",")]
    except ValueError:
        raise click.BadParameter("a comma-separated list of numbers",
                                 param_hint="--entrants") from None
    if any(n < 2 for n in leagues):
        raise click.BadParameter("every league needs at least 2 entrants",
                                 param_hint="--entrants")

    def standings(storage: Path, replicates: int) -> str:
        options = _anchor_options(None, None, None, None)
        return _standings_text(storage, options, False, False, replicates, False, "terminal")

    figures = bench_coordinator(leagues, standings, pairs, bootstrap, bootstrap_up_to,
                                note=lambda text: echo(text, err=True))
    for line in figures.lines(game_seconds):
        echo(line)


COST_LANGUAGES = ("python", "c", "node", "java")
"""The languages `arena bench game-cost` measures (`arena.tournament.bench.BUNDLED_BOTS`'s,
named here so that the command line imports no benchmark; tests/test_vocabulary.py pins it)."""


@bench.command("game-cost")
@click.option("--target", "targets", type=click.IntRange(min=1), multiple=True,
              help="Target score of the games; repeat it to compare targets.  [default: 1000]")
@click.option("--pairs", default=4, show_default=True, type=click.IntRange(min=1),
              help="Duplicate pairs per matchup (each set of bot processes plays this many "
                   "games).")
@click.option("--language", "languages", type=click.Choice(COST_LANGUAGES), multiple=True,
              help="A language to measure; repeat it for more (at least two).  [default: "
                   f"{', '.join(COST_LANGUAGES)}]")
def bench_game_cost_cmd(targets: tuple[int, ...], pairs: int,
                        languages: tuple[str, ...]) -> None:
    """Measure each bundled language's share of a game's seconds, as `arena tournament
    --plan` assumes for a bot that has not played: a round robin of the random bots of
    python, c, node and java (or the --language ones) at each target, one worker; the
    source of the plan's defaults."""
    import os

    from arena.tournament.bench import bench_game_costs

    if len(set(languages)) == 1:
        raise click.BadParameter("a round robin needs two languages at least",
                                 param_hint="--language")
    root = Path(__file__).resolve().parents[2] / "bots"
    echo(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())} (1, 5, 15 min)")
    figures = bench_game_costs(root, targets or (1000,), pairs,
                               note=lambda text: echo(text, err=True),
                               languages=languages or COST_LANGUAGES)
    for line in figures.lines():
        echo(line)


@bench.command("league")
@click.option("-j", "--jobs", default=2, show_default=True, type=click.IntRange(min=1),
              help="Game workers, of the tournament and of the league alike.")
@click.option("--target", default=200, show_default=True, type=click.IntRange(min=1),
              help="Target score of every game.")
@click.option("--games", default=60, show_default=True, type=click.IntRange(min=2),
              help="Games per matchup of the tournament (even).")
@click.option("--seconds", default=20.0, show_default=True, type=click.FloatRange(min=1),
              help="How long the league's games are counted, and the standings asked for.")
@click.option("--clients", default=50, show_default=True, type=click.IntRange(min=1),
              help="Concurrent clients asking for GET /api/standings.")
@click.option("--entrants", default=0, show_default=True, type=click.IntRange(min=0),
              help="The league's entrants: this many renamed copies of the bots "
                   "(0: the bots themselves).")
@click.option("--stored-games", default=0, show_default=True, type=click.IntRange(min=0),
              help="Synthetic finished games seeded into the league's store before it "
                   "starts (bulk-inserted, not played), e.g. 100000 with --entrants 100.")
def bench_league_cmd(jobs: int, target: int, games: int, seconds: float, clients: int,
                     entrants: int, stored_games: int) -> None:
    """Measure the league (`arena league serve`) against `arena tournament` on the random
    and heuristic bots: games per second of each, then GET /api/standings latency (p50,
    p99) under concurrent clients while the league's games run; with --entrants and
    --stored-games, at the scale of a league that has run for weeks. Needs the league
    extra."""
    from arena.league.bench import bench_league

    if entrants == 1:
        raise click.BadParameter("a league needs at least 2 entrants (0: the bots)",
                                 param_hint="'--entrants'")
    root = Path(__file__).resolve().parents[2] / "bots"
    figures = bench_league([root / "random", root / "heuristic"], jobs, target,
                           games + games % 2, seconds, clients,
                           note=lambda text: echo(text, err=True), entrants=entrants,
                           stored=stored_games)
    for line in figures.lines():
        echo(line)


@bench.command("report")
@click.argument("store", required=False, type=click.Path(exists=True, dir_okay=False))
@click.option("--games", default=10_000, show_default=True, type=click.IntRange(min=1),
              help="Games of the synthetic tournament measured when no STORE is given.")
@click.option("--distinct", default=300, show_default=True, type=click.IntRange(min=1),
              help="Engine games played for it; the other games reuse their records.")
def bench_report_cmd(store: str | None, games: int, distinct: int) -> None:
    """Measure the web report of STORE (default: a synthetic tournament of real engine
    games): its files and megabytes, a first build and a rebuild with nothing new."""
    import tempfile

    from arena.presentation.bench import bench_report

    folder = Path(tempfile.mkdtemp(prefix="arena-bench-report-"))
    figures = bench_report(folder, Path(store) if store else None, games, distinct,
                           note=lambda text: echo(text, err=True))
    for line in figures.lines():
        echo(line)


@main.command()
@click.argument("bot_a", type=click.Path())
@click.argument("bot_b", type=click.Path())
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=None,
              help="Seed of the game's deals, to replay them (default: a random one, shown "
                   "in the result; the bots are never told it).")
@click.option("--target", default=1000, show_default=True, help="Score that ends the game.")
@click.option("--record", "record_path", type=click.Path(dir_okay=False),
              help="Write the game record (JSON) here.")
@click.option("--decision-time", default=5.0, show_default=True, help="Seconds per decision.")
@click.option("--time-bank", default=300.0, show_default=True, help="Seconds per seat per game.")
@click.option("--hello-time", default=10.0, show_default=True,
              help="Seconds for a bot to start and say hello.")
@click.option("--grace", default=0.2, show_default=True, help="Seconds of grace past a limit.")
@click.option("--ipc", is_flag=True, help="Use an ipc:// endpoint in a private directory.")
@click.option("--pin/--no-pin", default=False, show_default=True,
              help="Referee and bots on one CPU: faster hand-overs, but the four bots start "
                   "one after the other (see arena.referee.placement).")
@click.option("--isolation", type=click.Choice(["auto", "sandbox", "none"]), default="auto",
              show_default=True, help="A sandbox per bot process where the machine gives one "
              "(auto), demanded (sandbox), or none (see `arena doctor`).")
@click.option("--allow-build-network", is_flag=True,
              help="Give the network to the build of a bot that asks for it (build_network = "
                   "true in its bot.toml); without this such a bot is refused.")
@click.option("--human-seat", type=click.IntRange(0, 3), default=None,
              help="With `human` as a bot: the seat you play (default: 0 as BOT_A, 1 as "
                   "BOT_B).")
@click.option("--bomb-windows", type=click.Choice(["ask", "every", "never"]), default="ask",
              show_default=True, help="With `human` as a bot: how your chances to bomb out "
              "of turn (bomb windows) are offered; only ever when you hold a bomb that beats "
              "the table. ask: once per combination played (not on your own) and once more "
              "before the trick is gathered. every: before every turn (four times a trick). "
              "never: declined for you; you bomb on your own turns, where bombs are among "
              "the plays. Enter declines a window, `skip` the rest of the trick's.")
@click.option("-v", "--verbose", count=True, help="Log more (-vv: every message).")
def play(bot_a: str, bot_b: str, seed: int | None, target: int, record_path: str | None,
         decision_time: float, time_bank: float, hello_time: float, grace: float, ipc: bool,
         pin: bool, isolation: str, allow_build_network: bool, human_seat: int | None,
         bomb_windows: str, verbose: int) -> None:
    """Play one game to TARGET between BOT_A (seats 0, 2) and BOT_B (seats 1, 3).

    Each bot is a bot folder or an archive of one (.tar.gz, .tgz, .tar, .zip), taken in
    (copied, checked and built in the sandbox) before the game.

    Play against a bot: `arena play human BOT`. You play one seat at this terminal (seat 0,
    or 1 with `arena play BOT human`, or --human-seat) and BOT the three others, your
    partner included. Your seat is a program of the arena's own (python -m arena.cli.human)
    speaking the protocol like any bot, through the same referee; it runs unsandboxed, as
    the organizer's own program, since it needs your terminal, and has no time limit (the
    bots keep their sandbox and their limits). The game is recorded like any other
    (--record) and `arena replay` shows it. A bot folder named human is ./human.

    Exit status: 0 the game was played to its end; 1 no game, a bot was refused (its build
    failed, or its command cannot start); 2 a usage error (an option, or not a bot folder);
    3 the game did not end normally (a forfeit, or void by faults of both teams); 4 the arena
    itself failed (a sandbox demanded but missing, the referee's own fault).
    """
    from arena.errors import ArenaError
    from arena.intake import IntakePolicy
    from arena.presentation.summary import summary
    from arena.referee.match import GameSpec, TimeControl, run_game
    from arena.referee.placement import pinned
    from arena.sandbox import SandboxUnavailable, describe, resolve
    from arena.tournament.records import write_record

    _logging(verbose)
    human = _human_seat(bot_a, bot_b, human_seat)
    guest = None if human is None else _human_guest(human, bomb_windows, hello_time)
    try:
        level = resolve(isolation)
    except SandboxUnavailable as exc:
        raise harness_failure(str(exc)) from None
    echo(describe(level), err=True)
    entrants = _play_entrants(bot_a, bot_b, human is not None,
                              IntakePolicy(level, build_network=allow_build_network))
    if guest is not None:
        echo(f"seat {guest.seat}: you, at this terminal (unsandboxed, no time limit)",
             err=True)
    time_control = TimeControl(hello_time, decision_time, time_bank, grace)
    seed, game_id = _seed(seed)
    spec = GameSpec(game_id, seed, (entrants[0], entrants[1]), target, time_control, guest)
    try:
        with pinned(pin):
            record = run_game(spec, "ipc" if ipc else "tcp", level)
    except ArenaError as exc:  # the referee could not run the game at all
        raise harness_failure(f"cannot play: {exc}") from None
    if record_path:
        write_record(record, Path(record_path), gzipped=False)
    echo(summary(record))
    status, why = _play_status(record)
    if status:
        echo(f"exit status {status}: {why}", err=True)
        sys.exit(status)


def _play_entrants(bot_a: str, bot_b: str, with_human: bool, policy: IntakePolicy
                   ) -> list[Entrant]:
    """The two entrants of `arena play`, each taken in; with a person at a seat, the one bot
    twice: it plays every seat but the person's."""
    from arena.referee.match import Entrant

    entrants: list[Entrant] = []
    for source in (bot_a, bot_b):
        if source == HUMAN and with_human:
            continue
        ready = take_in(source, policy)
        entrants.append(Entrant(ready.manifest, ready.version, source=str(ready.source)))
    return entrants + entrants[:1] if with_human else entrants


HUMAN = "human"
"""The bot argument of `arena play` that seats the person at the terminal."""


def _human_seat(bot_a: str, bot_b: str, seat: int | None) -> int | None:
    """The seat the person plays, if BOT_A or BOT_B is `human` (None if neither is)."""
    humans = [team for team, bot in enumerate((bot_a, bot_b)) if bot == HUMAN]
    if len(humans) == 2:
        raise usage_error("only one seat can be human: name a bot for the other three "
                          "(a bot folder named human is ./human)")
    if not humans:
        if seat is not None:
            raise click.BadParameter("needs `human` as BOT_A or BOT_B",
                                     param_hint="--human-seat")
        return None
    return humans[0] if seat is None else seat


def _human_guest(seat: int, bomb_windows: str, hello_time: float):
    """The person's seat as the referee seats it; a usage error without a terminal."""
    from arena.cli.human.guest import NoTerminal, human_guest, terminal_path

    try:
        terminal = terminal_path()
    except NoTerminal as exc:
        raise usage_error(str(exc)) from None
    return human_guest(seat, terminal, bomb_windows, hello_time)


def _play_status(record: GameRecord) -> tuple[int, str]:
    """`arena play`'s exit status for a game's record, and why (for a status other than 0):
    NOT_NORMAL for a forfeit or a game voided by bot faults, HARNESS_FAILURE for a game voided
    by the referee's own failure."""
    from arena.referee.record import Termination

    termination, fault = record.termination, record.fault
    if termination is Termination.NORMAL:
        return 0, ""
    message = fault.message if fault else ""
    if not termination.is_bot_fault:
        return HARNESS_FAILURE, (f"the game is void by a failure of the arena, not of a bot "
                                 f"({termination.value}: {message})")
    if fault is None or fault.seat is None:
        return NOT_NORMAL, (f"the game did not end normally: void, seats of both teams failed "
                            f"({termination.value}: {message})")
    name = record.seat_name(fault.seat)
    if termination is Termination.LEFT:  # a person's leaving, not a bot's failure
        return NOT_NORMAL, (f"the game did not end normally: {name} (seat {fault.seat}) "
                            f"{message}")
    output = (record.bot_output[fault.seat] or "").strip()
    tail = f"; seat {fault.seat}'s output ends: {output[-300:]!r}" if output else ""
    return NOT_NORMAL, (f"the game did not end normally: {name} (seat {fault.seat}) forfeited "
                        f"by {termination.value}: {message}{tail}")


@main.command()
def doctor() -> None:
    """Say what isolation this machine gives bot processes, and why, and which toolchains of
    your home (rustup, nvm, pyenv, sdkman) a sandbox shows, as chosen in this folder."""
    from arena.sandbox import find_toolchains, probe

    for line in probe().report():
        echo(line)
    for toolchain in find_toolchains(Path.cwd()).found:
        shown = ", ".join(map(str, toolchain.folders)) or "the system's folders"
        echo(f"toolchain: {toolchain.problem}" if toolchain.problem else
             f"toolchain: {toolchain.name}, shown read-only in the sandbox ({shown})")


@main.command()
@click.argument("record_file", type=click.Path(exists=True, dir_okay=False))
@click.option("--round", "round_number", type=click.IntRange(min=1),
              help="Show only this round (1 is the first).")
@click.option("--seat", type=click.IntRange(0, 3),
              help="Show only what this seat could see: its own cards and the public events.")
@click.option("--summary", "summary_only", is_flag=True,
              help="Show only the table of rounds and the outcome, no play by play.")
def replay(record_file: str, round_number: int | None, seat: int | None,
           summary_only: bool) -> None:
    """Replay a game record play by play: each round's hands, exchange, calls and every
    trick (bombs, wish, Dog, Dragon gift), then the table of rounds. The record is first
    re-simulated exactly from its seed and actions."""
    from arena.presentation.replay import build_replay, render_replay
    from arena.presentation.summary import summary
    from arena.referee.record import Termination, resimulate
    from arena.tournament.records import read_record

    record = read_record(record_file)
    game = resimulate(record)
    if record.termination is Termination.NORMAL and not game.over:
        raise click.ClickException("the record claims a finished game, but its actions do not "
                                   "finish it")
    played = build_replay(record, seat)
    if round_number is not None and round_number > len(played.rounds):
        have = f"rounds 1 to {len(played.rounds)}" if played.rounds else "no round"
        raise click.BadParameter(f"the game has {have}", param_hint="--round")
    if not summary_only:
        rounds = None if round_number is None else [round_number]
        for line in render_replay(played, rounds):
            echo(line, one_line=True)
        echo("")
    echo(summary(record))
    finished = "finished" if game.over else "unfinished (the record ends early)"
    echo(f"Re-simulated from seed and {len(record.decisions)} actions: identical events, "
         f"game {finished}, score {game.scores[0]}:{game.scores[1]}.")


def _logging(verbose: int) -> None:
    import logging

    from arena.cli.output import EscapedFormatter

    level = logging.WARNING if verbose == 0 else logging.INFO if verbose == 1 else logging.DEBUG
    handler = logging.StreamHandler()  # to stderr, as basicConfig's
    handler.setFormatter(EscapedFormatter("%(asctime)s %(name)s: %(message)s"))
    logging.basicConfig(level=level, handlers=[handler])


def take_in(source: str, policy):
    """A bot taken in by intake (saying so when it is built: a first build can take a
    while). A ConfigError (exit 2) if the folder given is not a bot's, or intake's own
    folder is not private; a ClickException with the reason and the build's output if the
    bot is refused (exit 1); a harness failure (exit 4) if the build's sandbox failed."""
    from arena.errors import ArenaError, ConfigError
    from arena.intake import IntakeFailed, take_bot

    try:
        return take_bot(source, policy,
                        note=lambda line: echo(line, err=True, one_line=True))
    except ConfigError:  # intake's folder is not private (snapshot.private_folder)
        raise
    except IntakeFailed as exc:
        if exc.failure.stage.in_folder:  # the folder given is wrong
            raise ConfigError(exc.failure.reason) from None
        raise failure(f"cannot play: {exc.failure.details()}") from None
    except ArenaError as exc:  # not the bot: the build's sandbox failed
        raise harness_failure(f"cannot play: {exc}") from None


def _seed(seed: int | None) -> tuple[int, str]:
    """The game's seed and id: a random seed unless one is given. The id, which the bots
    see, never holds a random seed: only one the user chose to make public."""
    import secrets

    if seed is not None:
        return seed, f"play-{seed}"
    return secrets.randbits(63), f"play-{secrets.token_hex(4)}"


@main.command()
@click.option("--seed", default=1, show_default=True, help="Seed of the game's deals.")
def demo(seed: int) -> None:
    """Play one engine self-play game between random players and print it round by round."""
    from arena.rules.selfplay import play_game, random_player

    rng = random.Random(seed)
    game, summary = play_game(seed, [random_player(rng) for _ in range(4)])
    echo(f"Self-play game, seed {seed}: four random players, target {game.target}")
    for event in game.events:
        if event.kind == "round_end":
            d = event.data
            echo(f"  round end: cards {d['card_points'][0]:>4}:{d['card_points'][1]:<4} "
                 f"calls {d['calls'][0]:>4}:{d['calls'][1]:<4} "
                 f"total {d['scores'][0]:>5}:{d['scores'][1]:<5}"
                 + ("  double victory" if d["double_victory"] else ""))
    echo(f"Team {summary.winner} wins {summary.scores[0]}:{summary.scores[1]} after "
         f"{summary.rounds} rounds and {summary.decisions} decisions.")


def _register_command_modules() -> None:
    from arena.cli import bots, league, reproduce, tournaments, training

    tournaments.register(main)
    league.register(main)
    bots.register(main)
    reproduce.register(main)
    training.register(main)


_register_command_modules()

if __name__ == "__main__":
    main()
