"""A bot built with every published record of a tournament learns nothing about its next deal
(issue 46): each pair is dealt from its own id, so no record shows a hand of a pair to come.

The attack, as an author would mount it: a tournament runs and publishes its records; the
author collects the deals of every one, builds them into a bot (the hostile bot's `seer`
mode, `published.json` in its folder) and submits it as a late entrant. At the first decision
of every round the seer looks its 8 cards up among the published deals. The control runs the
same attack with the pairs dealt as before this change (one seed per pair index, the same in
every matchup): the seer then recognises every deal it is given.
"""

from __future__ import annotations

import hmac
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli.main import main
from arena.tournament.records import read_record
from arena.tournament.schedule import Deals
from tests.tournament.conftest import copy_bot, game_rows, game_seeds, hostile_bot, write_config

pytestmark = pytest.mark.timeout(240)

SAID = re.compile(r"^seer: (SEEN|fresh) (\S+) round (\d+) (?:as|among) (.+)$", re.MULTILINE)


Deal = tuple[str, int, int, list[str]]
"""A published deal: game id, round, seat, the first 8 cards."""


def first_deals(game_id: str, events: list[dict[str, Any]]) -> list[Deal]:
    """The first 8 cards of every seat in every round of a record's events (as the replay
    pages and `GET /api/games/ID` show them)."""
    deals: list[Deal] = []
    number = 0
    for event in events:
        if event["kind"] == "round_start":
            number = event["round"]
        elif event["kind"] == "deal" and len(event["cards"]) == 8:
            deals.append((game_id, number, event["seat"], event["cards"]))
    return deals


def published(records: Path) -> list[Deal]:
    """The deals of every record in `records` (`first_deals`)."""
    deals: list[Deal] = []
    for path in sorted(p for p in records.rglob("*") if p.is_file() and p.name[0] != "."):
        record = read_record(path)
        deals += first_deals(record.game_id, record.events)
    return deals


def seer_said(texts: list[str]) -> list[tuple[str, str, int, str]]:
    """What the seer said in bot outputs: (SEEN or fresh, its game, round, the rest)."""
    return [(kind, game, int(number), rest) for text in texts
            for kind, game, number, rest in SAID.findall(text)]


def run(config: Path) -> None:
    result = CliRunner().invoke(main, ["tournament", str(config), "--no-standings", "-j", "1"])
    assert result.exit_code == 0, result.output


def attack(folder: Path) -> tuple[list[Deal], list[tuple[str, str, int, str]], Path]:
    """Two honest bots play; the seer is built with every deal they published, submitted,
    and plays its games: (the published deals, what the seer said, the store)."""
    copy_bot("random", folder / "random")
    copy_bot("random", folder / "other", name="other")
    config = write_config(folder, ["random", "other"], games=4, target=100)
    run(config)
    known = published(folder / "t.sqlite.records")
    seer = hostile_bot(folder / "seer", "seer")
    (seer / "published.json").write_text(json.dumps(known))  # part of its version
    result = CliRunner().invoke(main, ["submit", str(seer), "--tournament", str(config)])
    assert result.exit_code == 0, result.output
    run(config)
    said = seer_said([text for row in game_rows(folder / "t.sqlite")
                      for text in read_record(folder / row[9]).bot_output])
    return known, said, folder / "t.sqlite"


def seer_games(db: Path) -> set[str]:
    return {row[0] for row in game_rows(db) if "seer@" in row[1]}


def test_a_bot_with_every_published_deal_never_meets_one(tmp_path):
    known, said, db = attack(tmp_path)
    assert len(known) >= 4 * 4  # 4 games, at least a round each, 4 seats
    games = seer_games(db)
    assert len(games) == 8  # 2 matchups, 2 pairs each
    assert {game for _, game, _, _ in said} == games  # it looked in every game it played
    hands = {frozenset(cards) for _, _, _, cards in known}
    assert {rest for _, _, _, rest in said} == {str(len(hands))}  # among all of them
    assert [line for line in said if line[0] == "SEEN"] == []
    seeds = game_seeds(db)  # its pairs are still duplicate pairs: each a deal of its own
    assert all(seeds[g] == seeds[g[:-1] + "1"] for g in games if g.endswith(".0"))
    assert len({seeds[g] for g in games}) == 4


def per_index(self: Deals, pair_id: str) -> int:
    """The seed of a pair as it was dealt before this change: from its index alone, so pair
    k of every matchup is dealt alike."""
    index = pair_id.rpartition("#")[2]
    digest = hmac.new(self.key or b"", f"tichu-arena/pair/{index}".encode(), "sha256").digest()
    return int.from_bytes(digest[:8], "big") >> 1


def test_control_the_seer_recognises_every_deal_when_pair_k_of_every_matchup_is_alike(
        tmp_path, monkeypatch):
    monkeypatch.setattr(Deals, "pair_seed", per_index)
    known, said, db = attack(tmp_path)
    games = seer_games(db)
    assert len(games) == 8
    first = {game for kind, game, number, _ in said if kind == "SEEN" and number == 1}
    assert first == games, said  # every game: its first deal was published
    for kind, game, number, where in said:
        if kind == "SEEN":  # what it names is the same deal: pair k, round r
            index = game.rpartition("#")[2].split(".")[0]
            assert "seer@" not in where and f"#{index}." in where  # an honest pair k's
            assert f", round {number}, seat " in where
