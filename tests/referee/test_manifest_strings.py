"""What a bot's author writes in bot.toml: the name is a bot name, free text holds no control
character, and a refusal names the key and shows the value escaped."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from arena.botkit.scaffold import new_bot
from arena.cli.main import main
from arena.errors import ConfigError
from arena.referee.manifest import NAME, load_manifest, valid_name
from arena.tournament.store import EntrantRow, Store
from tests.presentation.payloads import CLEAR, CSI_C1, HYPERLINK, IMG, OSC_TITLE, SCRIPT, SUM

RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def manifest(folder, **fields: str):
    """A bot folder whose bot.toml sets `fields` (JSON strings are TOML strings)."""
    folder.mkdir(exist_ok=True)
    values = {"name": "bot", "version": "1.0", "language": "python"} | fields
    lines = [f"{key} = " + json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
             for key, value in values.items()]
    (folder / "bot.toml").write_text("\n".join(lines + ['command = ["python", "bot.py"]']))
    return folder


def refusal(folder) -> str:
    with pytest.raises(ConfigError) as error:
        load_manifest(folder)
    return str(error.value)


@pytest.mark.parametrize("name", ["a b", "a/b", "../x", ".hidden", "-rf", "_x", "ünï", SCRIPT,
                                  IMG, HYPERLINK, SUM, f"ok{OSC_TITLE}", f"ok{CLEAR}",
                                  f"ok{CSI_C1}", "ok\u202eevil", "ok\nok"])
def test_a_name_outside_the_bot_name_characters_is_refused(tmp_path, name):
    text = refusal(manifest(tmp_path / "bot", name=name))
    assert "key 'name'" in text and "is not a bot name" in text
    assert "1-64 letters, digits, '.', '-' or '_', starting with a letter or digit" in text
    assert not RAW.search(text) and "\u202e" not in text  # shown escaped, as a repr


@pytest.mark.parametrize("name", ["a", "A.b-c_d", "a..b", "9", "x" * 64, "my-bot.v2"])
def test_the_bot_name_characters_are_accepted(tmp_path, name):
    assert load_manifest(manifest(tmp_path / "bot", name=name)).name == name
    assert valid_name(name) and NAME.fullmatch(name)


def test_a_name_is_checked_whole_a_trailing_line_break_included():
    assert not valid_name("bot\n") and not valid_name("") and not valid_name(None)


@pytest.mark.parametrize("key", ["version", "language", "description"])
@pytest.mark.parametrize("payload", [OSC_TITLE, CLEAR, CSI_C1, "a\tb", "a\nb", "\x00",
                                     "\x7f", "rtl\u202eltr", "line\u2028sep"])
def test_free_text_with_a_control_character_is_refused_naming_the_key(tmp_path, key, payload):
    text = refusal(manifest(tmp_path / "bot", **{key: f"x{payload}y"}))
    assert f"key {key!r} must not hold control characters or ANSI escapes" in text
    first = next(k for k, ch in enumerate(payload) if not ch.isprintable())
    assert f"at position {1 + first}" in text
    assert not RAW.search(text) and "\u202e" not in text and "\u2028" not in text


@pytest.mark.parametrize("payload", [SCRIPT, IMG, HYPERLINK, SUM, "1.0 (é, 中, 🙂)"])
def test_free_text_may_hold_markup_and_formulas_which_outputs_escape(tmp_path, payload):
    loaded = load_manifest(manifest(tmp_path / "bot", version=payload, language=payload,
                                    description=payload))
    assert loaded.version == payload and loaded.language == payload


def test_names_and_free_text_keep_their_caps(tmp_path):
    assert "'name' must be at most 64 characters, not 65" in refusal(
        manifest(tmp_path / "n", name="x" * 65))
    assert "'language' must be at most 64 characters, not 65" in refusal(
        manifest(tmp_path / "a", language="x" * 65))
    assert "'description' must be at most 256 characters, not 257" in refusal(
        manifest(tmp_path / "b", description="x" * 257))
    load_manifest(manifest(tmp_path / "c", description="x" * 256))
    load_manifest(manifest(tmp_path / "d", description=""))  # optional


def test_arena_play_prints_a_refused_manifest_escaped(tmp_path):
    bad = manifest(tmp_path / "bad", version=f"1{OSC_TITLE}{CLEAR}")
    result = CliRunner().invoke(main, ["play", str(bad), str(bad)])
    assert result.exit_code == 2 and "key 'version'" in result.output
    assert not RAW.search(result.output) and "\\x1b]0;pwned\\x07" in result.output


def test_new_bot_refuses_a_name_no_manifest_would_load(tmp_path):
    for name in ("bot\n", "../bot", f"bot{CLEAR}"):
        with pytest.raises(ConfigError, match="use 1-64 letters") as error:
            new_bot(name, "python", tmp_path)
        assert not RAW.search(str(error.value))
    assert list(tmp_path.iterdir()) == []


def test_the_store_takes_and_gives_back_only_bot_names(tmp_path):
    with Store(tmp_path / "t.sqlite") as store:
        for key, name, version in ((f"{SCRIPT}@1", SCRIPT, "1"), ("a/b@1", "a/b", "1"),
                                   ("a@../x", "a", "../x"), ("b@1", "a", "1")):
            with pytest.raises(ValueError) as error:
                store.register_entrant(EntrantRow(key, name, version, "1", "c", "/b", "config",
                                                  False))
            assert not RAW.search(str(error.value))
        store.register_entrant(EntrantRow("a@1", "a", "1", SCRIPT, IMG, "/b", "config", False))
        assert [(e.bot_version, e.language) for e in store.entrants()] == [(SCRIPT, IMG)]


def test_every_problem_of_a_bot_toml_is_told_at_once(tmp_path):
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "no spaces allowed"\nversion = ""\n'
                                     'language = "python"\ncolour = "red"\n'
                                     'build_network = "yes"\n')
    with pytest.raises(ConfigError) as caught:
        load_manifest(folder)
    message = str(caught.value)
    assert message.startswith(f"{folder / 'bot.toml'}: 5 problems:\n")
    for problem in ("key 'name': 'no spaces allowed' is not a bot name",
                    "missing key 'command'", "unknown key 'colour'",
                    "key 'build_network' must be true or false",
                    "key 'version' must be a non-empty string"):
        assert f"\n  - {problem}" in message, problem


def test_one_problem_is_told_on_one_line(tmp_path):
    folder = manifest(tmp_path / "bot", version="")
    with pytest.raises(ConfigError, match=r"bot.toml: key 'version' must be a non-empty string"):
        load_manifest(folder)
