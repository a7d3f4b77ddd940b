"""bot.toml's `command` and `build` as one string: split into words like a shell line and run
without a shell, so a string holding what only a shell acts on is refused, naming the key and
what it holds; check-bot shows the command it runs and warns that a string was split."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.botkit.scaffold import PLACEHOLDER
from arena.cli.main import main
from arena.errors import ConfigError
from arena.referee.manifest import load_manifest, shell_syntax

ROOT = Path(__file__).resolve().parents[2]


def bot_toml(folder: Path, command: str, build: str | None = None) -> Path:
    """A bot folder whose bot.toml sets `command` (and `build`) to these TOML values."""
    folder.mkdir(exist_ok=True)
    lines = ['name = "bot"', 'version = "1.0"', 'language = "python"', f"command = {command}"]
    if build is not None:
        lines.append(f"build = {build}")
    (folder / "bot.toml").write_text("\n".join(lines) + "\n")
    return folder


def refusal(folder: Path) -> str:
    with pytest.raises(ConfigError) as error:
        load_manifest(folder)
    return str(error.value)


def test_a_string_command_is_split_like_a_shell_line_and_marked_as_split(tmp_path):
    loaded = load_manifest(bot_toml(tmp_path / "s", json.dumps("python 'my bot.py' --seed=3"),
                                    json.dumps("make -C src")))
    assert loaded.command == ("python", "my bot.py", "--seed=3")
    assert loaded.build == ("make", "-C", "src")
    assert loaded.split_keys == ("command", "build")
    listed = load_manifest(bot_toml(tmp_path / "l", '["python", "bot.py"]', '["make"]'))
    assert listed.split_keys == ()


@pytest.mark.parametrize("line, named", [
    ("python bot.py | tee log", "a pipe '|'"),
    ("make && python bot.py", "'&' ('&&' or a background job)"),
    ("python bot.py > log", "a redirection '>'"),
    ("python bot.py 2>&1", "a redirection '>'"),
    ("python bot.py < input", "a redirection '<'"),
    ("python $BOT_FILE", "an expansion '$' ($VAR, $(...))"),
    ('python "$HOME/bot.py"', "an expansion '$' ($VAR, $(...))"),
    ("python $(cat which)", "an expansion '$' ($VAR, $(...))"),
    ("python `cat which`", "a command substitution '`'"),
    ("python *.py", "a glob '*'"),
    ("python bot?.py", "a glob '?'"),
    ("python bot[12].py", "a glob '['"),
    ("cd src; python bot.py", "a command separator ';'"),
    ("(python bot.py)", "parentheses '( )'"),
    ("python bot.py # the bot", "a comment '#'"),
    ("python ~/bot.py", "a home folder '~'"),
    ("PYTHONPATH=lib python bot.py", "a variable assignment 'NAME=value'"),
    ("python bot.py\npython other.py", "a line break (a second command)"),
])
@pytest.mark.parametrize("key", ["command", "build"])
def test_a_string_with_shell_syntax_is_refused_naming_the_key_and_the_syntax(tmp_path, key,
                                                                               line, named):
    command = json.dumps(line) if key == "command" else '["python", "bot.py"]'
    folder = bot_toml(tmp_path / "bot", command, json.dumps(line) if key == "build" else None)
    text = refusal(folder)
    assert f"key {key!r}: {line!r} holds shell syntax ({named}" in text, text
    assert "but no shell runs it" in text and f"Write the {key} as a list" in text
    assert f'{key} = ["sh", "-c", "..."] if it needs a shell' in text


def test_the_refusal_shows_the_words_the_string_would_have_been_split_into(tmp_path):
    text = refusal(bot_toml(tmp_path / "bot", json.dumps("python bot.py | tee log")))
    assert 'split into the words ["python", "bot.py", "|", "tee", "log"]' in text


def test_every_kind_of_shell_syntax_is_named_once_in_the_order_met():
    assert shell_syntax("a | b | c > d && e") == [
        "a pipe '|'", "a redirection '>'", "'&' ('&&' or a background job)"]


@pytest.mark.parametrize("line", [
    "python bot.py '|' \"a;b\" 'x > y' '$HOME' '*.py'",  # quoted: the shell passes them on
    "python bot.py \\| \\$HOME \\*.py \\#x \\~",          # escaped, likewise
    'python "bot (1).py" "a&b" "x?"',                    # double quotes keep all but $ and `
    "python bot.py --level=3 a#b x~y",                   # '#', '~' inside a word; a late '='
    "python bot.py \"it's\"",
])
def test_what_a_shell_would_take_literally_is_accepted(tmp_path, line):
    assert shell_syntax(line) == []
    loaded = load_manifest(bot_toml(tmp_path / "bot", json.dumps(line)))
    assert loaded.split_keys == ("command",)


def test_a_list_is_taken_as_it_is_shell_characters_and_all(tmp_path):
    loaded = load_manifest(bot_toml(tmp_path / "bot", '["python", "bot.py", "|", "$HOME", "*"]'))
    assert loaded.command == ("python", "bot.py", "|", "$HOME", "*")


def test_no_bundled_bot_template_or_test_bot_relies_on_a_shell(tmp_path):
    """Every bot.toml the project holds loads: none has shell syntax in a string."""
    shipped = [p.parent for p in [*(ROOT / "bots").glob("*/bot.toml"),
                                  *(ROOT / "tests").rglob("bot.toml")]]
    for folder in shipped:
        load_manifest(folder)
    templates = list((ROOT / "arena" / "botkit" / "templates").glob("*/bot.toml"))
    for k, template in enumerate(templates):  # a template's name is a placeholder
        copy = tmp_path / str(k)
        copy.mkdir()
        (copy / "bot.toml").write_text(template.read_text().replace(PLACEHOLDER, "bot"))
        load_manifest(copy)
    assert len(shipped) >= 20 and len(templates) >= 7


def test_check_bot_refuses_a_command_with_shell_syntax_with_exit_status_2(tmp_path):
    folder = bot_toml(tmp_path / "bot", json.dumps("python bot.py > log"))
    result = CliRunner().invoke(main, ["check-bot", str(folder)])
    assert result.exit_code == 2, result.output
    assert "key 'command': 'python bot.py > log' holds shell syntax (a redirection '>')" \
        in result.output


@pytest.mark.timeout(120)
def test_check_bot_shows_the_command_it_runs_and_warns_of_a_split_string(tmp_path):
    folder = shutil.copytree(ROOT / "bots" / "random", tmp_path / "split")
    manifest = folder / "bot.toml"
    text = manifest.read_text().replace('command = ["python", "bot.py"]',
                                        'command = "python bot.py"\nbuild = "true"')
    assert text != manifest.read_text()
    manifest.write_text(text)
    result = CliRunner().invoke(main, ["check-bot", str(folder), "--games", "0"])
    assert result.exit_code == 0, result.output  # a warning, not a failure
    lines = result.output.splitlines()
    assert 'command: ["python", "bot.py"]' in lines
    assert f"runs as: {json.dumps([sys.executable, 'bot.py'])}" in lines
    assert ("  WARN  command        bot.toml's command is a list (preferred: it says exactly "
            "what runs)") in lines
    assert '        expected: a list: command = ["python", "bot.py"]' in lines
    assert ("        got:      a string, split like a shell line (quotes group words, a "
            'backslash escapes) into ["python", "bot.py"], run without a shell') in lines
    assert ("  WARN  build-command  bot.toml's build is a list (preferred: it says exactly "
            "what runs)") in lines
    assert '        expected: a list: build = ["true"]' in lines


@pytest.mark.timeout(120)
def test_check_bot_shows_a_listed_command_without_a_warning(tmp_path):
    folder = shutil.copytree(ROOT / "bots" / "random", tmp_path / "listed")
    result = CliRunner().invoke(main, ["check-bot", str(folder), "--games", "0", "--no-build"])
    assert result.exit_code == 0, result.output
    assert 'command: ["python", "bot.py"]' in result.output.splitlines()
    assert "WARN  command" not in result.output and "WARN  build-command" not in result.output
