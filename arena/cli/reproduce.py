"""`arena reproduce`: replay a failed game's messages to your own bot (registered by
`register`).

Thin over the library: the seat's messages come from a record file
(`arena.referee.seatstream`) or from a league (`arena.league.client.seat_messages`), the
bot is taken in as `arena play` takes it, and `arena.botkit.reproduce` replays them.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

import click

from arena.cli.output import ArenaCommand, echo, harness_failure, usage_error

if TYPE_CHECKING:
    from arena.referee.manifest import BotManifest
    from arena.referee.seatstream import SeatStream
    from arena.sandbox import Isolation


_GAME_LINES = 5  # of the seat's output in the game, shown before the replay


def register(main: click.Group) -> None:
    """Add `arena reproduce` to the `arena` group."""
    main.add_command(reproduce_cmd)


def _stream(game: str, seat: int | None, server: str | None, token: str | None
            ) -> SeatStream:
    """The seat's messages: fetched from the league `server`, or rebuilt from the record
    file `game`."""
    from arena.errors import ArenaError, ConfigError
    from arena.referee.seatstream import SeatStream, failed_seats, seat_stream
    from arena.tournament.records import read_record

    if server is not None:
        from arena.league.client import UploadFailed, seat_messages

        if not token:
            raise usage_error("--server needs your token: --token T, or set ARENA_TOKEN")
        try:
            return SeatStream.from_json(seat_messages(server, game, seat, token))
        except ConfigError:  # a usage error: exit 2
            raise
        except (UploadFailed, ArenaError) as exc:
            raise harness_failure(f"cannot fetch the seat's messages: {exc}") from None
    if not os.path.isfile(game):
        raise usage_error(f"{game}: no such record file (a league game's id needs --server "
                          "URL --token T)")
    record = read_record(game)
    if seat is None:
        failed = failed_seats(record)
        if len(failed) != 1:
            which = (f"seats {' and '.join(map(str, failed))} failed" if failed
                     else "no seat failed in this game")
            raise usage_error(f"{game}: {which}: name the seat to replay with --seat")
        seat = failed[0]
    return seat_stream(record, seat)


def _introduce(stream: SeatStream, folder: str) -> None:
    """Say which game, seat and failure are replayed, to which bot."""
    requests = sum(m.message["type"] == "request" for m in stream.messages)
    echo(f"game {stream.game_id}, seat {stream.seat} ({stream.name}): {len(stream.messages)} "
         f"messages, {requests} requests", one_line=True)
    fault = stream.fault
    if fault is not None:
        echo(f"in the game: {fault['kind']} in round {fault['round']} at decision "
             f"{fault['decision']}: {fault['message']}", one_line=True)
    else:
        echo(f"in the game: this seat did not fail ({stream.termination})", one_line=True)
    said = stream.output.strip().splitlines()[-_GAME_LINES:]
    if said:
        echo("its output in the game ended with (game| lines):", one_line=True)
        for line in said:
            echo(f"game| {line}", one_line=True)
    echo(f"replaying to {folder}; its output follows as it comes (| lines)", one_line=True)


def _taken_in(folder: str, level: Isolation, build_network: bool) -> BotManifest:
    """The bot of `folder` taken in as `arena play` takes it (`main.take_in`): a usage error
    (exit 2) if it is not a bot folder, exit 1 if its build fails, 4 if the arena failed."""
    from arena.cli.output import failure
    from arena.errors import ArenaError, ConfigError
    from arena.intake import IntakeFailed, IntakePolicy, take_bot

    try:
        return take_bot(folder, IntakePolicy(level, build_network=build_network),
                        note=lambda line: echo(line, err=True, one_line=True)).manifest
    except ConfigError:
        raise
    except IntakeFailed as exc:
        if exc.failure.stage.in_folder:  # the folder given is wrong
            raise ConfigError(exc.failure.reason) from None
        raise failure(f"cannot reproduce: {exc.failure.details()}") from None
    except ArenaError as exc:  # not the bot: the build's sandbox failed
        raise harness_failure(f"cannot reproduce: {exc}") from None


def _run(game: str, bot_folder: str, seat: int | None, server: str | None, token: str | None,
         isolation: str, allow_build_network: bool) -> None:
    from arena.botkit.reproduce import reproduce
    from arena.sandbox import SandboxUnavailable, resolve

    try:
        level = resolve(isolation)
    except SandboxUnavailable as exc:
        raise harness_failure(str(exc)) from None
    stream = _stream(game, seat, server, token)
    manifest = _taken_in(bot_folder, level, allow_build_network)
    _introduce(stream, bot_folder)
    verdict = reproduce(stream, manifest, level,
                        say=lambda line: echo(line, one_line=True),
                        show=lambda line: echo(f"| {line}", err=True, one_line=True))
    echo(verdict.sentence, one_line=True)
    sys.exit(1 if verdict.outcome.still_fails else 0)


@click.command("reproduce", cls=ArenaCommand)
@click.argument("game")
@click.argument("bot_folder", type=click.Path())
@click.option("--seat", type=click.IntRange(0, 3), default=None,
              help="The seat to replay (default: the seat that failed).")
@click.option("--server", default=None,
              help="The league's URL: GAME is then a game id of that league (or "
                   "practice/ID).")
@click.option("--token", default=None, envvar="ARENA_TOKEN",
              help="Your token (or set ARENA_TOKEN): only a seat of your own bot is shown.")
@click.option("--isolation", type=click.Choice(["auto", "sandbox", "none"]),
              default="auto", show_default=True, help="Your bot in a sandbox, as in a "
              "tournament game, where the machine gives one (auto), demanded (sandbox), "
              "or none.")
@click.option("--allow-build-network", is_flag=True,
              help="Give the network to the build of a bot that asks for it.")
def reproduce_cmd(game: str, bot_folder: str, seat: int | None, server: str | None,
                  token: str | None, isolation: str, allow_build_network: bool) -> None:
    """Replay to the bot of BOT_FOLDER exactly the messages its seat was sent in GAME, up to
    and including the decision it failed at, showing its output as it runs.

    GAME is a game record file (as `arena replay` reads), or with --server a league
    game's id, or practice/ID for a practice game. Each reply is compared with the one in the game; a divergence is named
    ("decision 212: your bot now answers X, it answered Y in the game") and the replay
    goes on as the game went. At the failing decision the failure is looked for again:
    a crash, a timeout (the game's time limit), an illegal action, a protocol violation.

    Exit status: 0 your bot gets past the point where it failed (or never failed); 1
    it still fails (the failure reproduced, or another one, or its build fails); 2 a
    usage error (an option, no such file, no single failed seat without --seat, not a bot
    folder); 4 no verdict could be given (the league could not be reached or refused, the
    arena failed).
    """
    _run(game, bot_folder, seat, server, token, isolation, allow_build_network)
