"""Every copy of a name list that a module must keep equals its owner's.

A module keeps a copy only where it may not import the owner: the rules engine imports
nothing of the project, the sandbox's hand-off runs with the standard library only, and the
CLI imports the presentation and bot tooling only when a command runs (so that `arena --help`
stays fast). Everywhere else the names are imported from their owner.
"""

from __future__ import annotations

import re
from pathlib import Path

from arena.botkit.scaffold import LANGUAGES
from arena.cli.bots import LANGUAGES as CLI_LANGUAGES
from arena.cli.tournaments import FORMATS as CLI_FORMATS
from arena.presentation.tables import FORMATS
from arena.rules import ComboType, DecisionKind
from arena.rules.cards import RANK_CHARS
from arena.sandbox import handoff, jail
from protocol import sdk
from protocol.schema import COMBINATIONS, DECISION_KINDS, RANKS

ROOT = Path(__file__).resolve().parents[1]


def test_the_engine_names_ranks_as_the_protocol_does():
    assert "".join(RANKS) == RANK_CHARS


def test_the_engine_names_decision_kinds_as_the_protocol_does():
    assert [kind.value for kind in DecisionKind] == list(DECISION_KINDS)


def test_the_engine_orders_combination_types_as_the_protocol_names_them():
    assert [kind.name.lower() for kind in ComboType] == list(COMBINATIONS)


def test_the_sandbox_hands_a_bot_the_endpoint_variable_the_sdk_reads():
    assert handoff.ENDPOINT_VAR == sdk.ENDPOINT_VAR
    assert sdk.TOKEN_VAR.startswith(jail.PASSED_PREFIX)


def test_the_cli_offers_the_formats_and_languages_it_hands_on():
    assert CLI_FORMATS == FORMATS
    assert CLI_LANGUAGES == LANGUAGES


def test_encoding_md_documents_the_one_hot_orders_the_protocol_names():
    """The learned encoding takes its one-hot orders from the protocol's name lists; a new
    order would be a new encoding version, so the document pins them."""
    text = (ROOT / "protocol" / "ENCODING.md").read_text()
    rows = dict(re.findall(r"^\| \d+ \| \d+ \| `(\w+)` \| [^:|]*: ([a-z_, ]+)", text, re.M))
    assert rows["table_type"].strip().split(", ") == list(COMBINATIONS)
    assert rows["kind"].strip().split(", ") == list(DECISION_KINDS)
