"""One vocabulary across the packages.

The bot-fault kinds are one list (`arena.faults`): whatever fault the referee records, the
store, the standings and the tables count under its own kind, and README names it. Every
copy of a name list that a module must keep equals its owner's; a module keeps one only where
it may not import the owner: the rules engine imports nothing of the project, the sandbox's
hand-off runs with the standard library only, and the CLI imports the presentation and bot
tooling only when a command runs (so that `arena --help` stays fast). Everywhere else the
names are imported from their owner.
"""

from __future__ import annotations

import ast
import csv
import dataclasses
import io
import json
import re
from pathlib import Path

import pytest

import arena.sandbox
from arena.botkit.scaffold import LANGUAGES
from arena.cli.bots import LANGUAGES as CLI_LANGUAGES
from arena.cli.human.player import BOMB_WINDOWS
from arena.cli.main import COST_LANGUAGES
from arena.cli.tournaments import FORMATS as CLI_FORMATS
from arena.faults import ForfeitKind
from arena.intake import IntakeStage
from arena.league import seat_bridge
from arena.league.accounts import Accounts, CountedRefusal, PracticeStatus, UploadStatus
from arena.league.config import ServerLimits
from arena.league.limits import Excess
from arena.league.openapi import SCHEMA
from arena.league.seats import SeatState
from arena.presentation.tables import FORMATS, standings_table
from arena.ratings.standings import compute_standings
from arena.referee.manifest import load_manifest
from arena.referee.record import EntrantInfo, Fault, GameRecord, Termination
from arena.rules import ComboType, DecisionKind
from arena.rules.cards import RANK_CHARS
from arena.sandbox import ToolchainKind, handoff, jail, toolchains
from arena.tournament.bench import BUNDLED_BOTS
from arena.tournament.schedule import round_robin
from arena.tournament.store import EntrantRow, GameRow, Store
from protocol import sdk
from protocol.schema import COMBINATIONS, DECISION_KINDS, RANKS

pytestmark = pytest.mark.timeout(60)

ROOT = Path(__file__).resolve().parents[1]


# ----- the bot-fault kinds -------------------------------------------------------------------

BOT_FAULTS = [kind for kind in Termination if kind.is_bot_fault]


def test_a_game_ends_normally_by_a_forfeit_kind_or_by_nobodys_fault():
    assert {kind.value for kind in BOT_FAULTS} == {kind.value for kind in ForfeitKind}
    assert [kind.name for kind in Termination if not kind.is_bot_fault] == [
        "NORMAL", "HARNESS_FAULT", "INTERRUPTED"]


def _record(game, termination: Termination, fault_seat: int | None) -> GameRecord:
    infos = tuple(EntrantInfo(*key.split("@"), f"/bots/{key}") for key in game.teams)
    winner = 0 if fault_seat is None else 1 - (fault_seat & 1)
    record = GameRecord(game.game_id, game.seed, 1000, infos, scores=(1000, 300),
                        winner=winner, rounds=7, termination=termination)
    if fault_seat is not None:
        record.fault = Fault(termination, fault_seat, "it failed", 2, 30)
    return record


@pytest.mark.parametrize("kind", BOT_FAULTS, ids=lambda kind: kind.value)
def test_every_bot_fault_the_referee_records_is_counted_by_the_store_and_the_standings(
        tmp_path, kind):
    with Store(tmp_path / "t.sqlite") as store:
        for name in ("a", "b"):
            store.register_entrant(EntrantRow(f"{name}@v1", name, "v1", "1", "python",
                                              f"/bots/{name}", "config", False))
        forfeited, played = round_robin(["a@v1", "b@v1"], 1, 1)
        assert forfeited.teams[1] == "b@v1"
        store.add_game(GameRow.from_record(forfeited, _record(forfeited, kind, 1), "r0"))
        store.add_game(GameRow.from_record(played, _record(played, Termination.NORMAL, None),
                                           "r1"))
        assert store.failures() == {"b@v1": {kind.value: 1}}
        standings = compute_standings(store.results())

    rows = {row["entrant"]: row for row in
            json.loads(standings_table(standings, fmt="json"))["standings"]}
    assert rows["b@v1"]["forfeits"] == {k.value: int(k == kind.value) for k in ForfeitKind}
    assert sum(rows["a@v1"]["forfeits"].values()) == 0
    table = {row["entrant"]: row for row in
             csv.DictReader(io.StringIO(standings_table(standings, fmt="csv")))}
    assert table["b@v1"][kind.value] == "1"
    assert kind.value.replace("_", " ") in standings_table(standings)


def test_the_docs_name_every_forfeit_kind():
    text = "".join(page.read_text() for page in [ROOT / "README.md",
                                                  *(ROOT / "docs").rglob("*.md")])
    assert [kind.value for kind in ForfeitKind if f"`{kind.value}`" not in text] == []


# ----- copies pinned to their owners ---------------------------------------------------------


def test_the_engine_names_ranks_as_the_protocol_does():
    assert "".join(RANKS) == RANK_CHARS


def test_the_engine_names_decision_kinds_as_the_protocol_does():
    assert [kind.value for kind in DecisionKind] == list(DECISION_KINDS)


def test_the_engine_orders_combination_types_as_the_protocol_names_them():
    assert [kind.name.lower() for kind in ComboType] == list(COMBINATIONS)


def test_the_sandbox_hands_a_bot_the_endpoint_variable_the_sdk_reads():
    assert handoff.ENDPOINT_VAR == sdk.ENDPOINT_VAR
    assert sdk.TOKEN_VAR.startswith(jail.PASSED_PREFIX)


def test_the_hand_off_in_c_names_the_variable_and_tag_of_the_python_one():
    source = Path(handoff.__file__).with_name("handoff.c").read_text()
    assert f'#define ENDPOINT_VAR "{handoff.ENDPOINT_VAR}"' in source
    assert f'#define TAG "{handoff._TAG.decode()}"' in source  # what receive_listener expects


def test_the_cli_offers_the_formats_and_languages_it_hands_on():
    assert CLI_FORMATS == FORMATS
    assert CLI_LANGUAGES == LANGUAGES


def test_the_league_store_takes_every_counted_refusal_and_no_other(tmp_path):
    """league_refusals' CHECK constraint names the kinds of `CountedRefusal`, in order."""
    with Accounts(tmp_path / "l.sqlite") as accounts:
        sql = accounts.db.execute("SELECT sql FROM sqlite_master WHERE name = "
                                  "'league_refusals'").fetchone()[0]
    listed = re.search(r"kind IN \(([^)]*)\)", sql)
    assert listed is not None, sql
    assert re.findall(r"'(\w+)'", listed.group(1)) == [kind.value for kind in CountedRefusal]


@pytest.mark.parametrize(("table", "kind"), [("league_uploads", UploadStatus),
                                            ("league_practice", PracticeStatus)])
def test_the_league_store_takes_every_status_and_no_other(tmp_path, table, kind):
    """Each status table's CHECK constraint names the members of its enum, in order."""
    with Accounts(tmp_path / "l.sqlite") as accounts:
        sql = accounts.db.execute("SELECT sql FROM sqlite_master WHERE name = ?",
                                  (table,)).fetchone()[0]
    listed = re.search(r"status IN\s*\(([^)]*)\)", sql)
    assert listed is not None, sql
    assert re.findall(r"'(\w+)'", listed.group(1)) == [status.value for status in kind]


def test_a_seat_in_the_browser_speaks_the_words_of_its_contract():
    """The `status` event's states and the bomb-window choices, as common to the server and
    the page (issue 50's contract), and as `arena play human --bomb-windows` names them."""
    assert [s.value for s in SeatState] == ["waiting", "playing", "over", "left", "failed"]
    assert [s for s in SeatState if s.final] == [SeatState.OVER, SeatState.LEFT,
                                                 SeatState.FAILED]
    assert tuple(BOMB_WINDOWS) == seat_bridge.CHOICES


def test_the_league_api_schema_lists_every_status():
    schemas = SCHEMA["components"]["schemas"]
    assert schemas["Upload"]["properties"]["status"]["enum"] == [s.value for s in UploadStatus]
    assert schemas["Practice"]["properties"]["status"]["enum"] == [
        s.value for s in PracticeStatus]


STATUS_WORDS = {s.value for kind in (UploadStatus, PracticeStatus, IntakeStage, SeatState)
                for s in kind}


def test_no_module_compares_a_status_or_stage_with_a_string():
    """The league, the CLI, intake and the bot kit branch on the enums, never on the words
    (a comparison that names a status or a stage, with one of their words as a literal)."""
    found = []
    for path in sorted(ROOT.glob("arena/**/*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Compare) or not any(
                    word in ast.unparse(node) for word in ("status", "stage")):
                continue
            for side in (node.left, *node.comparators):
                words = [side] if isinstance(side, ast.Constant) else \
                    list(side.elts) if isinstance(side, (ast.Tuple, ast.List, ast.Set)) else []
                if any(isinstance(w, ast.Constant) and w.value in STATUS_WORDS for w in words):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert found == []


def test_bench_game_cost_offers_the_languages_of_its_bundled_bots():
    """`arena bench game-cost --language` names what the benchmark plays: by default every
    language of BUNDLED_BOTS, each by a bundled bot of that language."""
    assert tuple(BUNDLED_BOTS) == COST_LANGUAGES
    for language, bot in BUNDLED_BOTS.items():
        assert load_manifest(ROOT / "bots" / bot).language == language


def test_features_md_documents_the_one_hot_orders_the_protocol_names():
    """The learned encoding takes its one-hot orders from the protocol's name lists; a new
    order would be a new encoding version, so the document pins them."""
    text = (ROOT / "protocol" / "FEATURES.md").read_text()
    rows = dict(re.findall(r"^\| \d+ \| \d+ \| `(\w+)` \| [^:|]*: ([a-z_, ]+)", text, re.M))
    assert rows["table_type"].strip().split(", ") == list(COMBINATIONS)
    assert rows["kind"].strip().split(", ") == list(DECISION_KINDS)


def test_a_refusal_of_the_web_server_names_a_key_of_the_league_config():
    """A connection or event stream over a cap is answered with the status of its `Excess`
    and names the [league] key of that cap, as the config spells it."""
    keys = {limit.name for limit in dataclasses.fields(ServerLimits)}
    assert {excess.key(what) for excess in Excess for what in ("connections", "streams")} == {
        "connections", "connections_per_client", "streams", "streams_per_client"} <= keys
    assert {excess: excess.status for excess in Excess} == {Excess.CLIENT: 429,
                                                            Excess.TOTAL: 503}


def test_arena_reproduce_documents_the_exit_status_of_each_outcome():
    """An `arena reproduce` outcome that still fails exits 1, the other 0, as its help says."""
    from arena.botkit.reproduce import Outcome
    from arena.cli.reproduce import reproduce_cmd

    assert {o.value: o.still_fails for o in Outcome} == {
        "reproduced": True, "failed_otherwise": True, "passed": False}
    words = " ".join((reproduce_cmd.help or "").split())
    assert "0 your bot gets past the point where it failed" in words
    assert "1 it still fails (the failure reproduced, or another one, or its build " \
           "fails)" in words


def test_every_toolchain_kind_is_named_where_the_sandbox_says_what_it_shows():
    """The toolchain managers whose installs a sandbox shows (`ToolchainKind`) are the ones
    the sandbox package and its toolchains module name."""
    for kind in ToolchainKind:
        assert kind.value in (arena.sandbox.__doc__ or ""), kind
        assert kind.value in (toolchains.__doc__ or ""), kind
