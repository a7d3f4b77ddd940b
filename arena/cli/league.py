"""The `arena league` commands (serve, invite, revoke), `arena upload` and `arena practice`
(registered on the main group by `register`): thin click commands over `arena.league`."""

from __future__ import annotations

import importlib.util
import shlex
import sys
from typing import Any

import click

from arena.cli.output import ArenaCommand, ArenaGroup, echo, failure


def register(main: click.Group) -> None:
    """Add this module's commands to the `arena` group."""
    main.add_command(league)
    main.add_command(upload)
    main.add_command(practice)


def _config(path: str) -> Any:
    from arena.league.config import load_league

    return load_league(path)


@click.group(cls=ArenaGroup)
def league() -> None:
    """A league: strangers upload bots, games never stop, the ranking is live on the web."""


LEAGUE_EXTRA = "make league, or pip install -e '.[league]'"
LEAGUE_MODULES = (("starlette",), ("uvicorn",), ("python_multipart", "multipart"),
                  ("httptools",), ("msgspec",))
"""The league extra's modules (pyproject.toml), each by the names it may be imported as."""


def _need_league_extra() -> None:
    """A ClickException naming what is missing if the league extra is not installed."""
    missing = [names[0] for names in LEAGUE_MODULES
               if not any(importlib.util.find_spec(name) for name in names)]
    if missing:
        raise click.ClickException(f"arena league serve needs {', '.join(missing)}, of the "
                                   f"league extra: {LEAGUE_EXTRA}")


@league.command()
@click.argument("config", type=click.Path())
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on (behind a reverse proxy: keep 127.0.0.1).")
@click.option("--port", default=8000, show_default=True, type=int)
@click.option("-j", "--jobs", type=int, default=None,
              help="Game workers (default: the config's concurrency, else one per core).")
@click.option("--allow-unsandboxed", is_flag=True,
              help="Run uploaded bots without a sandbox when the machine offers none "
                   "(only if every author is trusted).")
@click.option("--cluster", metavar="ADDRESS", default=None,
              help="Play the games on the Dask cluster whose scheduler is at ADDRESS "
                   "(tcp://HOST:PORT, or local:N for N worker processes here), as `arena "
                   "tournament --cluster` does (default: the config's cluster, else local "
                   "workers; needs the cluster extra).")
def serve(config: str, host: str, port: int, jobs: int | None, allow_unsandboxed: bool,
          cluster: str | None) -> None:
    """Run the league of CONFIG: the web server, the scheduler and the game workers, until
    Ctrl-C or SIGTERM (it resumes where it stopped when started again)."""
    _need_league_extra()
    from arena.league.server import serve as run
    from arena.tournament.config import address_problem

    problem = None if cluster is None else address_problem(cluster)
    if problem:
        raise click.BadParameter(problem, param_hint="'--cluster'")
    run(_config(config), host, port, jobs, allow_unsandboxed,
        say=lambda text: echo(text, err=True, one_line=True), cluster=cluster)


@league.command()
@click.argument("config", type=click.Path())
@click.argument("author")
@click.option("--organizer", is_flag=True,
              help="An organizer's token (admin actions) rather than an author's.")
def invite(config: str, author: str, organizer: bool) -> None:
    """Print a new upload token for AUTHOR (it replaces any earlier one). It is shown only
    now: the league keeps only its hash. Works whether or not the server is running."""
    from arena.league.accounts import Accounts

    loaded = _config(config)
    with Accounts(loaded.storage) as accounts:
        token = accounts.invite(author, organizer)
    echo(token)


@league.command()
@click.argument("config", type=click.Path())
@click.argument("author")
def revoke(config: str, author: str) -> None:
    """Revoke AUTHOR's token (their bots keep playing; a new invite gives a new token)."""
    from arena.league.accounts import Accounts

    loaded = _config(config)
    with Accounts(loaded.storage) as accounts:
        accounts.revoke(author)
    echo(f"{author}: token revoked")


@click.command(cls=ArenaCommand)
@click.argument("path", type=click.Path(exists=True))
@click.option("--server", required=True, help="The league's URL, e.g. https://league.example.")
@click.option("--token", required=True, envvar="ARENA_TOKEN",
              help="Your upload token (or set ARENA_TOKEN).")
@click.option("--name", default=None, help="The bot's name (default: its bot.toml's).")
@click.option("--no-follow", is_flag=True, help="Print the upload's id and return.")
def upload(path: str, server: str, token: str, name: str | None, no_follow: bool) -> None:
    """Upload the bot at PATH (a folder, or a .tar.gz/.tgz/.tar/.zip of one) to a league;
    print its upload id, then its status until it is active or failed (exit 1 if failed)."""
    from arena.league.accounts import UploadStatus
    from arena.league.client import UploadFailed, follow
    from arena.league.client import upload as send

    try:
        upload_id = send(path, server, token, name)
        echo(f"upload {upload_id}")
        if no_follow:
            return

        def say(status: dict[str, Any]) -> None:
            echo(f"{status['status']}" + (f": {status['stage']}: {status['reason']}"
                                          if status["reason"] else ""), one_line=True)
            if status["status"] is UploadStatus.FAILED:
                for line in status["log"].splitlines():
                    echo(f"    {line}", one_line=True)
                if status["command"]:
                    echo("reproduce it: " + own_command(status["command"], path),
                         one_line=True)

        final = follow(server, upload_id, say, token)
    except UploadFailed as exc:
        raise failure(str(exc)) from None
    sys.exit(1 if final["status"] is UploadStatus.FAILED else 0)


@click.command(cls=ArenaCommand)
@click.argument("bot")
@click.argument("opponent")
@click.option("--server", required=True, help="The league's URL, e.g. https://league.example.")
@click.option("--token", required=True, envvar="ARENA_TOKEN",
              help="Your upload token (or set ARENA_TOKEN).")
@click.option("--version", "version", default=None,
              help="Which of BOT's versions (an entrant key or its hash; default: the active "
                   "one).")
@click.option("--no-follow", is_flag=True, help="Print the game's id and page and return.")
def practice(bot: str, opponent: str, server: str, token: str, version: str | None,
             no_follow: bool) -> None:
    """Ask a league for an unrated practice game of your bot BOT against the active entrant
    OPPONENT; print its page (to watch it live), then its status until it is over, and the
    replay's address; exit 1 if it failed, or if your bot failed in it (then say how, with
    the end of its stderr)."""
    from arena.league.accounts import PracticeStatus
    from arena.league.client import UploadFailed, follow_practice
    from arena.league.client import practice as ask

    base = server.rstrip("/")
    try:
        granted = ask(server, token, bot, opponent, version)
        echo(f"practice {granted['id']}: {granted['entrant']} against {granted['opponent']}; "
             f"watch it at {base}{granted['page']}")
        if no_follow:
            return
        final = follow_practice(server, int(granted["id"]), lambda status: echo(
            status["status"] + (f": {status['reason']}" if status["reason"] else ""),
            one_line=True), token)
    except UploadFailed as exc:
        raise failure(str(exc)) from None
    if final["status"] is PracticeStatus.DONE:
        game = final.get("game", {})
        echo(f"{final_score(game)}; the replay: {base}{final['replay']}")
        if said_practice_failures(game, base, f"practice/{granted['id']}"):
            sys.exit(1)
    sys.exit(1 if final["status"] is PracticeStatus.FAILED else 0)


def final_score(game: dict[str, Any]) -> str:
    """A practice game's end in words: the score (yours first), and what stopped it early."""
    mine, theirs = game.get("scores") or (0, 0)
    ending = game.get("termination") or "normal"
    if ending == "normal":
        return f"score {mine} to {theirs}"
    return f"stopped by a {ending.replace('_', ' ')} at {mine} to {theirs}"


def own_command(command: str, path: str) -> str:
    """A league's command reproducing an upload's failure, naming the author's `path`."""
    from arena.presentation.failures import BOT_FOLDER

    return command.replace(BOT_FOLDER, shlex.quote(path))


def said_practice_failures(game: dict[str, Any], server: str, reference: str) -> bool:
    """Say whose bot failed in a practice game over, how, the end of the author's failed
    seat's output (when their token shows it) and the command replaying it to their bot
    (`reference`: the game as `arena reproduce` names it); whether the author's bot failed."""
    from arena.league.privacy import HIDDEN
    from arena.presentation.failures import (
        fault_said,
        output_lines,
        practice_failures,
        reproduce_command,
    )

    mine, theirs = practice_failures(game)
    for fault in mine[:1]:
        echo(f"your bot failed: {fault_said(fault)}", one_line=True)
        if fault.output and fault.output != HIDDEN:
            for line in output_lines(fault.output, fault.seat):
                echo(f"  {line}", one_line=True)
        echo("reproduce it: " + reproduce_command(reference, fault.seat, server),
             one_line=True)
    for fault in theirs[:1]:
        echo(f"the opponent's bot failed{' too' if mine else ''} (it forfeited): "
             f"{fault_said(fault)}", one_line=True)
    return bool(mine)
