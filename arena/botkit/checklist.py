"""The checklist `arena check-bot` prints: one `CheckItem` per check, and the `CheckReport`.

Values only: `arena.botkit.check` makes them. An item passes, fails (the bot broke a MUST of
PROTOCOL.md), warns (a SHOULD), is skipped, or is an error: the check could not be made
because the harness failed (the referee, or the opponent of the closing games), which is
never counted against the bot.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

from arena.referee.manifest import toml_list
from arena.sandbox import Isolation


class Status(Enum):
    """The outcome of one check (closed set)."""

    PASS = "PASS"
    FAIL = "FAIL"
    WARN = "WARN"   # a SHOULD of PROTOCOL.md not met: reported, not a failure
    SKIP = "SKIP"   # not applicable to this bot, or not reached after an earlier failure
    ERROR = "ERROR"  # not checked: the harness failed (the opponent, the referee), not the bot


@dataclass(frozen=True)
class CheckItem:
    """One line of the checklist."""

    name: str
    """Short stable identifier, e.g. ``"bomb"``."""
    status: Status
    summary: str
    """What was checked, or what went wrong, in one line."""
    expected: str = ""
    got: str = ""
    section: str = ""
    """Where PROTOCOL.md describes it, e.g. ``"PROTOCOL.md 5.5 reply"``."""
    output: str = ""
    """The end of the output of the process that failed (a build, a bot), as it wrote it."""

    @property
    def failed(self) -> bool:
        return self.status is Status.FAIL


@dataclass
class CheckReport:
    """The checklist of one bot; `ok` only if no item failed and none is an error."""

    folder: Path
    items: list[CheckItem] = field(default_factory=list)
    isolation: Isolation | None = None
    """The isolation level every process of the bot ran at."""
    isolation_summary: str = ""
    """That level in one line, as `arena doctor` says it ("isolation: sandbox (...)")."""
    command: tuple[str, ...] = ()
    """The bot's command as its manifest gives it (after the split of a string)."""
    argv: tuple[str, ...] = ()
    """The argument list each process of the bot is started with (``python`` replaced by
    the arena's Python, or by the bot's own environment's)."""

    @property
    def ok(self) -> bool:
        return bool(self.items) and not any(i.failed or i.status is Status.ERROR
                                            for i in self.items)

    @property
    def failed(self) -> bool:
        """Whether a check failed: the bot's doing (an ERROR item is the harness's)."""
        return any(i.failed for i in self.items)

    def item(self, name: str) -> CheckItem:
        return next(i for i in self.items if i.name == name)

    def lines(self) -> list[str]:
        out = [f"check-bot {self.folder}"]
        if self.isolation_summary:
            out.append(self.isolation_summary)
        if self.command:
            out.append(f"command: {toml_list(self.command)}")
            if self.argv and self.argv != self.command:
                out.append(f"runs as: {toml_list(self.argv)}")
        for i in self.items:
            out.append(f"  {i.status.value:<5} {i.name:<14} {i.summary}")
            if i.status in (Status.FAIL, Status.WARN, Status.ERROR):
                out += [f"{'':8}expected: {i.expected}", f"{'':8}got:      {i.got}"]
                if i.output:
                    out.append(f"{'':8}output:   (its last lines)")
                    out += [f"{'':10}| {line}" for line in i.output.splitlines()]
                if i.section:
                    out.append(f"{'':8}see:      {i.section}")
        failed = sum(i.failed for i in self.items)
        errors = sum(i.status is Status.ERROR for i in self.items)
        counted = sum(i.status in (Status.PASS, Status.FAIL) for i in self.items)
        out.append(f"{counted - failed} of {counted} checks passed"
                   + ("" if failed or errors else "; the bot conforms")
                   + (f"; {errors} could not be made: the harness failed, not the bot"
                      if errors else ""))
        return out
