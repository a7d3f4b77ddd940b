"""What the `arena` command prints, made safe for a terminal, and the exit statuses it ends with.

Every line the commands print and every error they exit with may hold text a bot or its
author wrote (names, fault messages, a build's output, check-bot's `got` lines): it goes
through `arena.presentation.safe.terminal` (line breaks kept), so that a control character or
ANSI escape shows as an escape instead of acting on the terminal; so do log lines
(`EscapedFormatter`). The writers below escape each field already (a table cell, a line);
this is the edge's catch-all.

The library's errors become exit statuses in one place, `ArenaCommand`, the class of every
`arena` command (`ArenaGroup` sees to it): a `ConfigError` (a user's mistake) exits 2 as a
usage error, any other `ArenaError` exits 1. A command catches an error itself only to give
it one of the statuses of its own below (3, 4) or a message of its own.
"""

from __future__ import annotations

import logging
from typing import Any

import click

from arena.errors import ArenaError, ConfigError
from arena.presentation.safe import terminal

# Exit statuses beyond click's own (0 success, 1 a failure, 2 a usage error), for the commands
# that run bots (`arena play`, `arena check-bot`; docs/reference/exit-statuses.md lists them):
NOT_NORMAL = 3  # `arena play`: the game did not end normally (a forfeit, or void by bot faults)
HARNESS_FAILURE = 4  # the arena itself failed: no verdict on the bots (a sandbox demanded but
                     # missing, the referee's own fault, check-bot's opponent failing)


def echo(text: str = "", err: bool = False, nl: bool = True, one_line: bool = False) -> None:
    """click.echo of `text` with its control characters escaped; its line breaks are kept,
    unless it is to be `one_line` (then a line break in it is escaped too)."""
    click.echo(terminal(text, multiline=not one_line), err=err, nl=nl)


def usage_error(message: str, ctx: click.Context | None = None) -> click.UsageError:
    """A user's mistake (exit 2) whose message may quote a bot: escaped. `ctx`: the command
    whose usage it shows (click fills it in for an error raised inside a command's body)."""
    return click.UsageError(terminal(message, multiline=True), ctx)


def failure(message: str) -> click.ClickException:
    """A failure (exit 1) whose message may quote a bot: escaped."""
    return click.ClickException(terminal(message, multiline=True))


class _HarnessFailure(click.ClickException):
    """A failure of the arena itself, not of a bot (as click's UsageError, its exit code is
    the class's)."""

    exit_code = HARNESS_FAILURE


def harness_failure(message: str) -> click.ClickException:
    """A failure of the arena itself (exit HARNESS_FAILURE), not of a bot: escaped."""
    return _HarnessFailure(terminal(message, multiline=True))


class ArenaCommand(click.Command):
    """An `arena` command: the one place where the library's errors become exit statuses.

    A `ConfigError` exits 2, a usage error naming file, key and problem; any other
    `ArenaError` exits 1. Both print their message escaped (it may quote a bot).
    """

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ConfigError as exc:
            raise usage_error(str(exc), ctx) from None
        except ArenaError as exc:
            raise failure(str(exc)) from None


class ArenaGroup(click.Group):
    """The `arena` group and its subgroups: their commands are `ArenaCommand`s (made with
    `@group.command()`, or `@click.command(cls=ArenaCommand)` and added), their subgroups
    `ArenaGroup`s; adding any other command is a TypeError, so that no command maps errors
    its own way."""

    command_class = ArenaCommand
    group_class = type  # a subgroup is of this class too

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        if not isinstance(cmd, (ArenaCommand, ArenaGroup)):
            raise TypeError(f"command {cmd.name!r} is a {type(cmd).__name__}, not an "
                            "ArenaCommand: make it with @click.command(cls=ArenaCommand)")
        super().add_command(cmd, name)


class EscapedFormatter(logging.Formatter):
    """Log lines with control characters escaped: the referee logs what bots send (a hello's
    name and version, a rejected message) at INFO and DEBUG."""

    def format(self, record: logging.LogRecord) -> str:
        return terminal(super().format(record), multiline=True)
