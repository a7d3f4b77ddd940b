"""The standings say how the bots of a tournament were isolated, run by run."""

from __future__ import annotations

from click.testing import CliRunner

from arena.cli.main import main
from arena.sandbox import Isolation, probe
from tests.sandbox.conftest import need_sandbox
from tests.tournament.conftest import write_config


def _run(config, isolation: str) -> None:
    config.write_text(config.read_text().replace("[tournament]",
                                                 f'[tournament]\nisolation = "{isolation}"', 1))
    result = CliRunner().invoke(main, ["tournament", str(config), "--no-standings"])
    assert result.exit_code == 0, result.output


def _header(config) -> str:
    result = CliRunner().invoke(main, ["standings", str(config)])
    assert result.exit_code == 0, result.output
    return result.output.split("\n\n")[0]


def test_the_standings_say_whether_every_run_was_sandboxed(tmp_path, two_bots):
    config = write_config(tmp_path, ["random", "heuristic"], games=2, target=100)
    _run(config, "none")
    assert _header(config).startswith("Isolation: none in every run: bots ran as the "
                                      "referee's user, unsandboxed")

    write_config(tmp_path, ["random", "heuristic"], games=4, target=100)
    _run(config, "auto")  # the best this machine gives
    if probe().level is Isolation.SANDBOX:
        assert _header(config).startswith("Isolation: none in some runs")
    else:
        assert _header(config).startswith("Isolation: none in every run")


def test_a_tournament_played_sandboxed_says_so(tmp_path, two_bots):
    need_sandbox()
    config = write_config(tmp_path, ["random", "heuristic"], games=2, target=100)
    _run(config, "sandbox")
    assert _header(config).startswith("Isolation: sandbox (every bot process in a sandbox")
