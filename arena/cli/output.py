"""What the `arena` command prints, made safe for a terminal.

Every line the commands print and every error they exit with may hold text a bot or its
author wrote (names, fault messages, a build's output, check-bot's `got` lines): it goes
through `arena.presentation.safe.terminal` (line breaks kept), so that a control character or
ANSI escape shows as an escape instead of acting on the terminal; so do log lines
(`EscapedFormatter`). The writers below escape each field already (a table cell, a line);
this is the edge's catch-all.
"""

from __future__ import annotations

import logging

import click

from arena.presentation.safe import terminal

# Exit statuses beyond click's own (0 success, 1 a failure, 2 a usage error), for the commands
# that run bots (`arena play`, `arena check-bot`; README documents them under each command):
NOT_NORMAL = 3  # `arena play`: the game did not end normally (a forfeit, or void by bot faults)
HARNESS_FAILURE = 4  # the arena itself failed: no verdict on the bots (a sandbox demanded but
                     # missing, the referee's own fault, check-bot's opponent failing)


def echo(text: str = "", err: bool = False, nl: bool = True, one_line: bool = False) -> None:
    """click.echo of `text` with its control characters escaped; its line breaks are kept,
    unless it is to be `one_line` (then a line break in it is escaped too)."""
    click.echo(terminal(text, multiline=not one_line), err=err, nl=nl)


def usage_error(message: str) -> click.UsageError:
    """A user's mistake (exit 2) whose message may quote a bot: escaped."""
    return click.UsageError(terminal(message, multiline=True))


def failure(message: str) -> click.ClickException:
    """A failure (exit 1) whose message may quote a bot: escaped."""
    return click.ClickException(terminal(message, multiline=True))


def harness_failure(message: str) -> click.ClickException:
    """A failure of the arena itself (exit HARNESS_FAILURE), not of a bot: escaped."""
    error = click.ClickException(terminal(message, multiline=True))
    error.exit_code = HARNESS_FAILURE
    return error


class EscapedFormatter(logging.Formatter):
    """Log lines with control characters escaped: the referee logs what bots send (a hello's
    name and version, a rejected message) at INFO and DEBUG."""

    def format(self, record: logging.LogRecord) -> str:
        return terminal(super().format(record), multiline=True)
