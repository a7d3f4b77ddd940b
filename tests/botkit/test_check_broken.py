"""check-bot against deliberately broken bots: each fault is reported on the right item,
with what was expected, what arrived and the PROTOCOL.md section. The bots run at the level
a tournament game would use (sandboxed where the machine gives a sandbox), each in a
self-contained copy of its folder."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.botkit.check import CheckReport, Status, check_bot
from arena.cli.main import main
from arena.cli.output import HARNESS_FAILURE
from tests.botkit.conftest import BOTS, broken_bot
from tests.processes import bot_processes as processes_in

# fault -> (the item that must fail, a word its "got" must contain, a word of its section)
EXPECTED = {
    "exit_at_start": ("hello", "exited with code 3", "5.1"),
    "bad_token": ("hello", "not-the-token", "5.1"),
    "grand_tichu_wrong_action": ("grand_tichu", "wrong-decision", "6"),
    "tichu_unknown_field": ("tichu", "unknown_field", "3 encoding"),
    "exchange_option": ("exchange", "no-options", "6"),
    "exchange_not_held": ("exchange", "card-not-held", "6"),
    "lead_too_slow": ("play_lead", "nothing within", "9"),
    "reply_to_events": ("play_follow", "a message", "5.6"),
    "pass_on_wish": ("wish", "must-fulfil-wish", "6"),
    "bomb_out_of_range": ("bomb", "option-out-of-range", "6"),
    "dragon_to_partner": ("dragon_gift", "dragon-to-opponent", "6"),
    "no_multi_game": ("multi_game", "exited with code 0", "multi_game"),
    "no_exit": ("end", "still running", "5.7"),
    "exit_1": ("end", "exit status 1", "5.7"),
}


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    """check-bot (no games) of the broken bot of a fault, made once for the module: several
    tests read the same report (each start of a bot process costs CPU)."""

    @functools.cache
    def check(fault: str) -> tuple[Path, CheckReport]:
        folder = broken_bot(fault, tmp_path_factory.mktemp(fault))
        return folder, check_bot(folder, games=0)

    return check


@pytest.mark.timeout(60)
@pytest.mark.parametrize("fault", sorted(EXPECTED))
def test_each_fault_is_reported_on_its_item(fault: str, checked) -> None:
    item_name, got, section = EXPECTED[fault]
    folder, report = checked(fault)
    assert not report.ok
    item = report.item(item_name)
    assert item.status is Status.FAIL, report.lines()
    assert got in item.got and item.expected and section in item.section, item
    failed = [i.name for i in report.items if i.failed]
    if item_name != "hello":  # a bot that never got past hello has no other checks
        assert failed == [item_name], report.lines()
    assert f"FAIL  {item_name}" in "\n".join(report.lines())
    assert not processes_in(folder)  # hung or lingering bots are stopped


@pytest.mark.timeout(60)
def test_a_fault_in_real_games_fails_the_games_item(tmp_path) -> None:
    report = check_bot(broken_bot("crash_in_game", tmp_path), games=1, target=300)
    assert [i.name for i in report.items if i.failed] == ["games"]
    games = report.item("games")
    assert "crash by the bot under test (seat" in games.got and "PROTOCOL.md 9" in games.section


@pytest.mark.timeout(60)
def test_a_non_canonical_hello_is_a_warning_naming_the_keys_out_of_order(tmp_path) -> None:
    report = check_bot(broken_bot("noncanonical", tmp_path), games=0)
    item = report.item("canonical")
    assert item.status is Status.WARN and "canonical" not in [i.name for i in report.items
                                                              if i.failed]
    assert item.got.startswith("the hello: keys in the order capabilities, version, name, "
                               "token, protocol, type; canonical order is type, protocol, "), item
    assert "5.7" not in item.section and "3 encoding" in item.section


@pytest.mark.timeout(60)
def test_non_canonical_replies_are_a_warning_naming_the_reply_and_the_field(tmp_path) -> None:
    report = check_bot(broken_bot("noncanonical_reply", tmp_path), games=0)
    item = report.item("canonical")
    assert item.status is Status.WARN, report.lines()
    assert item.got.startswith("the reply to the grand_tichu request (id 0): field "
                               "'action' left out (canonical form writes every field, here "
                               "nil)"), item
    assert "more messages are not canonical either" in item.got
    assert "canonical" not in [i.name for i in report.items if i.failed]


@pytest.mark.timeout(60)
def test_a_canonical_bot_passes_the_canonical_item_for_hello_and_replies() -> None:
    report = check_bot(BOTS / "random", games=0, build=False)
    assert report.item("canonical").status is Status.PASS
    assert "the hello and 8 replies" in report.item("canonical").summary
    assert report.item("build").status is Status.SKIP
    assert "SKIP  build" in "\n".join(report.lines())


@pytest.mark.timeout(60)
def test_illegal_action_messages_name_cards_and_ranks(checked) -> None:
    held = checked("exchange_not_held")[1].item("exchange").got
    assert re.search(r"card-not-held: (2j|3j|4j|5j)( (2j|3j|4j|5j))* (is|are) not in the "
                     r"hand \(", held), held
    assert "card 0" not in held
    wish = checked("pass_on_wish")[1].item("wish").got
    assert "the wish for the rank K is in force" in wish and "13" not in wish, wish


@pytest.mark.timeout(60)
def test_the_cli_exit_status_says_whether_every_check_passed(tmp_path) -> None:
    runner = CliRunner()
    good = runner.invoke(main, ["check-bot", str(BOTS / "random"), "--games", "0"])
    bad = runner.invoke(main, ["check-bot", str(broken_bot("pass_on_wish", tmp_path)),
                               "--games", "0"])
    assert good.exit_code == 0 and "the bot conforms" in good.output
    assert bad.exit_code == 1 and "FAIL  wish" in bad.output and "see:" in bad.output


@pytest.mark.timeout(30)
def test_a_folder_without_a_manifest_is_a_usage_error(tmp_path) -> None:
    result = CliRunner().invoke(main, ["check-bot", str(tmp_path)])
    assert result.exit_code == 2 and "bot.toml" in result.output


@pytest.mark.timeout(60)
def test_a_bot_field_of_terminal_escapes_is_printed_escaped_on_its_own_line(tmp_path) -> None:
    """The fault quotes the bot's field name (an OSC retitle, a screen clear and a line
    break with a forged line after it): the checklist shows it escaped, on its one line."""
    folder = broken_bot("ansi_field", tmp_path)
    result = CliRunner().invoke(main, ["check-bot", str(folder), "--games", "0"])
    assert result.exit_code == 1 and "FAIL  tichu" in result.output
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", result.output)
    got = next(line for line in result.output.splitlines() if "got:" in line)
    assert "unknown_field" in got and "\\x1b]0;pwned\\x07\\x1b[2J\\n  PASS  forged" in got
    assert not any(line.startswith("  PASS  forged") for line in result.output.splitlines())
    assert not processes_in(folder)


@pytest.mark.timeout(120)
def test_an_opponent_that_fails_is_an_error_naming_it_with_its_output_and_exit_4(
        tmp_path, monkeypatch) -> None:
    """The closing games' opponent dies before its hello: not the bot under test's failure
    (the item is an ERROR, not a FAIL), and the item says who failed and shows its output;
    the CLI exits with the harness failure status."""
    failing = tmp_path / "failing"
    failing.mkdir()
    (failing / "bot.toml").write_text(
        'name = "failing"\nversion = "1"\nlanguage = "sh"\n'
        'command = ["sh", "-c", "echo cannot start: no libfoo >&2; exit 1"]\n')
    import arena.botkit.check as check

    monkeypatch.setattr(check, "check_bot", functools.partial(check_bot, opponent=failing))
    result = CliRunner().invoke(main, ["check-bot", str(BOTS / "random"), "--no-build",
                                       "--games", "1", "--target", "100"])
    assert result.exit_code == HARNESS_FAILURE, result.output
    lines = result.output.splitlines()
    assert ("  ERROR games          1 game(s) to 100 against the opponent failing, through "
            "the referee") in lines
    got = next(line for line in lines if "got:" in line)
    assert ("start_failure by the other bot, the opponent failing (seat 1), not the bot "
            "under test: the bot process exited with code 1 before saying hello") in got, got
    shown = lines[lines.index(got) + 1:lines.index(got) + 4]
    assert shown == ["        output:   (its last lines)", "          | seat 1:",
                     "          | cannot start: no libfoo"], shown
    assert "PROTOCOL.md 9" not in result.output and "FAIL" not in result.output
    assert lines[-1] == ("14 of 14 checks passed; 1 could not be made: the harness failed, "
                         "not the bot")


def test_a_failed_build_shows_its_output_line_by_line(tmp_path) -> None:
    """A compiler's output is shown as it wrote it, a line each (escaped, never a repr with
    literal \\n), under the failed build item."""
    folder = tmp_path / "unbuildable"
    folder.mkdir()
    (folder / "bot.toml").write_text(
        'name = "unbuildable"\nversion = "1"\nlanguage = "c"\ncommand = ["build/bot"]\n'
        'build = ["sh", "-c", "echo \\"bot.c:3:1: error: expected \'{\'\\" >&2; '
        'printf \'   3 | int f(\\\\n\' >&2; printf \'bell \\\\a\\\\n\' >&2; exit 2"]\n')
    result = CliRunner().invoke(main, ["check-bot", str(folder)])
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    start = lines.index("        output:   (its last lines)")
    assert lines[start + 1:start + 4] == ["          | bot.c:3:1: error: expected '{'",
                                          "          |    3 | int f(",
                                          "          | bell \\x07"], result.output
