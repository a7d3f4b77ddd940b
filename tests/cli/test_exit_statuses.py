"""The CLI maps the library's errors to exit statuses in one place (`output.ArenaCommand`): a
ConfigError exits 2 as a usage error, any other ArenaError 1, on every `arena` command."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from arena.cli.main import main
from arena.cli.output import ArenaCommand, ArenaGroup
from arena.errors import ArenaError, ConfigError

pytestmark = pytest.mark.timeout(60)


def every_command(group: click.Group, path: str = "arena"):
    for name, command in group.commands.items():
        yield f"{path} {name}", command
        if isinstance(command, click.Group):
            yield from every_command(command, f"{path} {name}")


def test_every_arena_command_maps_errors_the_one_way():
    commands = dict(every_command(main))
    assert {"arena play", "arena tournament", "arena check-bot", "arena bench engine",
            "arena export"} <= set(commands)
    strays = [path for path, command in commands.items()
              if not isinstance(command, ArenaCommand | ArenaGroup)]
    assert strays == []


def test_a_command_that_would_map_errors_its_own_way_is_refused():
    with pytest.raises(TypeError, match="cls=ArenaCommand"):
        ArenaGroup("group").add_command(click.Command("plain", callback=lambda: None))


def failing_group() -> click.Group:
    @click.group(cls=ArenaGroup)
    def group() -> None:
        pass

    @group.command()
    @click.argument("kind")
    def fail(kind: str) -> None:
        error = ConfigError if kind == "config" else ArenaError
        raise error("t.toml: key 'seed': not a number \x1b[2J")

    return group


def test_a_config_error_is_a_usage_error_that_exits_2_naming_the_problem_escaped():
    result = CliRunner().invoke(failing_group(), ["fail", "config"])
    assert result.exit_code == 2
    assert "Usage: group fail [OPTIONS] KIND" in result.output
    assert "Error: t.toml: key 'seed': not a number \\x1b[2J" in result.output
    assert "\x1b" not in result.output


def test_another_arena_error_exits_1_with_its_message_escaped():
    result = CliRunner().invoke(failing_group(), ["fail", "other"])
    assert result.exit_code == 1 and "Usage" not in result.output
    assert "Error: t.toml: key 'seed': not a number \\x1b[2J" in result.output
    assert "\x1b" not in result.output


def test_real_commands_exit_2_for_a_users_mistake_and_1_for_a_file_that_is_no_record(tmp_path):
    runner = CliRunner()
    named = runner.invoke(main, ["new-bot", "not a name", "--dir", str(tmp_path)])
    assert named.exit_code == 2 and "new-bot [OPTIONS] NAME" in named.output
    assert "Error: bot name 'not a name'" in named.output
    bad = tmp_path / "game.json"
    bad.write_text("[]")
    replayed = runner.invoke(main, ["replay", str(bad)])
    assert replayed.exit_code == 1 and f"Error: {bad}: not a game record" in replayed.output
