"""A bot built with every record a running league has published learns nothing about its next
deal (issue 46): each pair is dealt from its own id, the two versions and the pair index.

The attack of the issue: an author downloads every finished game from `GET /api/games/ID`
(seed and all four hands), builds the deals into a bot and uploads it. The seer (the hostile
bot of tests/tournament in its `seer` mode) looks its 8 cards up among them at the first
decision of every round of its placement games. The control that the seer recognises a
published deal when one comes again is tests/tournament/test_published_deals.py's: the same
bot, with the pairs dealt as before this change.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.tournament.records import read_record
from tests.league.conftest import League, database, wait_for
from tests.tournament.conftest import hostile_bot
from tests.tournament.test_published_deals import Deal, first_deals, seer_said

pytestmark = pytest.mark.timeout(400)

MAX_FETCHED = 3000
"""A bound on the games fetched from the league (it plays one every 2 s at most)."""


def published_deals(league: League) -> list[Deal]:
    """The deals of every game the league lists, fetched as an author would."""
    deals: list[Deal] = []
    after, fetched = 0, 0
    while after is not None and fetched < MAX_FETCHED:
        page = league.get(f"/api/games?after={after}&limit=200")
        for listed in page["games"]:
            record = league.get(listed["url"])["record"]
            deals += first_deals(listed["id"], record["events"])
        fetched += len(page["games"])
        after = page["next"]
    return deals


def seer_games(league: League, name: str) -> list[tuple[str, str]]:
    """The seer's stored games: (game id, record file), read where the league keeps them."""
    with database(league.folder / "league.sqlite") as db:
        return list(db.execute("SELECT game_id, record FROM games WHERE pair_id LIKE ?",
                               (f"%{name}@%",)))


def said_in(league: League, games: list[tuple[str, str]]) -> list[tuple[str, str, int, str]]:
    texts: list[str] = []
    for _, record in games:  # (relative to the store's folder)
        texts += read_record(league.folder / record).bot_output
    return seer_said(texts)


def test_a_bot_built_with_every_published_record_of_the_league_never_meets_one(
        league: League, tmp_path: Path):
    wait_for("four rated games published", lambda: len(
        league.get("/api/games?limit=4")["games"]) >= 4)
    known = published_deals(league)
    assert known and all(len(cards) == 8 for *_, cards in known)
    seer = hostile_bot(tmp_path / "seer", "seer")
    (seer / "published.json").write_text(json.dumps(known))  # part of its version
    result = league.upload(seer, league.invite("sibyl"))
    assert result.returncode == 0, result.stdout + result.stderr
    games = wait_for("the seer's first two pairs stored", lambda: (
        found if len(found := seer_games(league, "seer")) >= 4 else None))
    said = said_in(league, games)
    assert {game for _, game, _, _ in said} == {game for game, _ in games}  # it looked in each
    hands = {frozenset(cards) for *_, cards in known}
    assert {rest for kind, _, _, rest in said if kind == "fresh"} == {str(len(hands))}
    assert [line for line in said if line[0] == "SEEN"] == []
