"""The `arena` commands about bots (registered on the main group by `register`).

Thin click commands over the library: parse arguments, call, print; no game logic here.
A `ConfigError` exits 2 naming the file and the problem (`output.ArenaCommand`).
"""

from __future__ import annotations

import sys

import click

from arena.cli.output import HARNESS_FAILURE, ArenaCommand, echo, harness_failure
from arena.errors import ArenaError, ConfigError

LANGUAGES = ("python", "node", "c", "cpp", "java", "rust")  # arena.botkit.scaffold.LANGUAGES


def register(main: click.Group) -> None:
    """Add this module's commands to the `arena` group."""
    main.add_command(check_bot_cmd)
    main.add_command(new_bot_cmd)


@click.command("check-bot", cls=ArenaCommand)
@click.argument("bot_dir", type=click.Path())
@click.option("--games", default=2, show_default=True,
              help="Short games to play against the random bot at the end.")
@click.option("--target", default=300, show_default=True, help="Target score of those games.")
@click.option("--no-build", is_flag=True, help="Skip the build step of bot.toml.")
@click.option("--isolation", type=click.Choice(["auto", "sandbox", "none"]), default="auto",
              show_default=True, help="Each process of the bot in a sandbox of its own, as "
              "in a tournament game, where the machine gives one (auto), demanded "
              "(sandbox), or none (see `arena doctor`).")
@click.option("--allow-build-network", is_flag=True,
              help="Give the network to the build of a bot that asks for it "
                   "(build_network = true in its bot.toml); without this it is refused.")
def check_bot_cmd(bot_dir: str, games: int, target: int, no_build: bool,
                  isolation: str, allow_build_network: bool) -> None:
    """Take in the bot of BOT_DIR (a folder, or a .tar.gz/.tgz/.tar/.zip archive of one) as
    a tournament does, build it in the sandbox, drive it through every message and
    decision of the protocol, then play short games; print a checklist.

    Exit status: 0 every check passed; 1 a check failed; 2 a usage error (an option, or
    not a bot folder, or its bot.toml is wrong); 4 the arena itself failed and no verdict
    could be given (a sandbox demanded but missing, the referee or the random opponent
    failing: an ERROR item)."""
    from arena.botkit.check import check_bot
    from arena.sandbox import SandboxUnavailable, resolve

    try:
        level = resolve(isolation)
    except SandboxUnavailable as exc:
        raise harness_failure(str(exc)) from None
    try:
        report = check_bot(bot_dir, games=games, target=target, build=not no_build,
                           isolation=level, build_network=allow_build_network)
    except ConfigError:  # not a bot folder, or its bot.toml is wrong: exit 2
        raise
    except ArenaError as exc:  # not the bot: the harness could not run the checks
        raise harness_failure(f"check-bot could not run: {exc}") from None
    for line in report.lines():  # `got` lines quote the bot: escaped, one line each
        echo(line, one_line=True)
    sys.exit(0 if report.ok else 1 if report.failed else HARNESS_FAILURE)

@click.command("new-bot", cls=ArenaCommand)
@click.argument("name")
@click.option("--lang", "language", type=click.Choice(LANGUAGES), default="python",
              show_default=True, help="The bot's language.")
@click.option("--dir", "parent", type=click.Path(file_okay=False), default=".",
              show_default=True, help="Where to create the bot folder NAME.")
@click.option("--template", type=click.Choice(("basic", "policy")), default="basic",
              show_default=True, help="policy (Python): a bot played by a policy of the "
              "training environment, from its weights.npz (needs the train extra).")
def new_bot_cmd(name: str, language: str, parent: str, template: str) -> None:
    """Create a working bot folder NAME from a template (it passes check-bot as created)."""
    from arena.botkit.scaffold import new_bot, next_steps

    folder = new_bot(name, language, parent, template)
    echo(f"created {folder}")
    for line in next_steps(folder):
        echo(line)
