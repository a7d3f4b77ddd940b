"""Private by default: a bot's stderr, its fault's details and its build log reach its author
and the organizer only; no text names the server's paths.

The views are tested alone first (`arena.league.privacy`), then against a real league: a
leaky bot prints a secret to stderr at every decision, and another author, and anyone
without a token, look for it everywhere the game is published.
"""

from __future__ import annotations

import base64
import gzip
import json
import re
from pathlib import Path

from arena.league.accounts import Upload
from arena.league.privacy import (
    HIDDEN,
    PUBLIC,
    PathScrubber,
    Viewer,
    game_view,
    upload_view,
)
from tests.league.conftest import ROOT, League, bot_copy, database, wait_for

SECRET = "SECRET-NOTES-4b1d"
OWNERS = {"ann-bot": "ann", "bob-bot": "bob"}


def record(**more: object) -> dict[str, object]:
    """A record's private parts: ann-bot is team 0 (seats 0 and 2), bob-bot team 1."""
    return {"entrants": [{"name": "ann-bot"}, {"name": "bob-bot"}],
            "bot_output": [f"{SECRET} {k}" for k in range(4)], **more}


def test_the_public_sees_no_output_and_no_fault_details() -> None:
    fault = {"seat": 1, "message": "the bot process exited with code 1",
             "details": {"output": f"{SECRET} trace", "observation": {"hand": ["S2"]}}}
    view = game_view(record(fault=fault), OWNERS, PUBLIC, PathScrubber({}))
    assert SECRET not in json.dumps(view)
    assert view["bot_output"] == [HIDDEN] * 4
    assert view["fault"]["message"] == "the bot process exited with code 1"
    assert view["fault"]["details"] == {"private": HIDDEN}


def test_an_author_sees_their_own_seats_only() -> None:
    fault = {"seat": 1, "message": "crash", "details": {"output": f"{SECRET} bob's trace"}}
    ann = game_view(record(fault=fault), OWNERS, Viewer("ann"), PathScrubber({}))
    assert ann["bot_output"] == [f"{SECRET} 0", HIDDEN, f"{SECRET} 2", HIDDEN]
    assert "bob's trace" not in json.dumps(ann)
    bob = game_view(record(fault=fault), OWNERS, Viewer("bob"), PathScrubber({}))
    assert bob["bot_output"] == [HIDDEN, f"{SECRET} 1", HIDDEN, f"{SECRET} 3"]
    assert bob["fault"]["details"]["output"] == f"{SECRET} bob's trace"


def test_the_organizer_sees_every_seat_and_house_bots_are_the_organizers() -> None:
    house = {"entrants": [{"name": "random"}, {"name": "ann-bot"}],
             "bot_output": ["house", "ann", "house", "ann"]}
    assert game_view(house, OWNERS, Viewer("olga", organizer=True),
                     PathScrubber({}))["bot_output"] == ["house", "ann", "house", "ann"]
    assert game_view(house, OWNERS, Viewer("ann"), PathScrubber({}))["bot_output"] == [
        HIDDEN, "ann", HIDDEN, "ann"]


def test_when_both_teams_fail_each_sees_its_own_seats_fault() -> None:
    both = {"seat": None, "message": "both teams failed", "details": {"faults": [
        {"seat": 0, "message": "ann's", "details": {"output": "ann trace"}},
        {"seat": 1, "message": "bob's", "details": {"output": "bob trace"}}]}}
    view = game_view(record(fault=both), OWNERS, Viewer("ann"), PathScrubber({}))
    faults = view["fault"]["details"]["faults"]
    assert faults[0]["details"] == {"output": "ann trace"}
    assert faults[1]["details"] == {"private": HIDDEN}


def test_mixed_partner_records_are_split_by_seat() -> None:
    mixed = {"entrants": [{"name": "ann-bot"}, {"name": "bob-bot"}],
             "seats": [{"name": "ann-bot"}, {"name": "bob-bot"}, {"name": "bob-bot"},
                       {"name": "ann-bot"}], "bot_output": ["a0", "b1", "b2", "a3"]}
    view = game_view(mixed, OWNERS, Viewer("ann"), PathScrubber({}))
    assert view["bot_output"] == ["a0", HIDDEN, HIDDEN, "a3"]


def test_the_server_paths_become_labels(tmp_path: Path) -> None:
    cache, uploads = tmp_path / "cache", tmp_path / "league" / "uploads"
    scrub = PathScrubber({cache: "<cache>", uploads: "<uploads>", tmp_path: "<tmp>"})
    digest = "0123456789abcdef" * 4
    text = (f"{cache}/snapshots/{digest}/bot.toml: missing; built at {cache}/builds/"
            f"{digest}/out; archive {uploads}/qooveepp.tar; scratch {tmp_path}/x; /etc/ok")
    assert scrub(text) == ("<your bot>/bot.toml: missing; built at <your bot>/out; archive "
                           "<uploads>/qooveepp.tar; scratch <tmp>/x; /etc/ok")
    link = tmp_path / "link"
    link.symlink_to(cache)
    assert scrub(str(cache / "x")) == "<cache>/x"
    assert PathScrubber({link: "<cache>"})(f"{cache}/y") == "<cache>/y"  # its real path too


def test_a_records_entrant_folders_are_scrubbed(tmp_path: Path) -> None:
    folder = tmp_path / "checkout" / "bots" / "random"
    view = game_view({"entrants": [{"name": "random", "folder": str(folder)}] * 2},
                     OWNERS, Viewer("ann"), PathScrubber({tmp_path / "checkout": "<arena>"}))
    assert view["entrants"][0]["folder"] == "<arena>/bots/random"


def test_an_uploads_log_and_command_are_its_authors() -> None:
    upload = Upload(7, "ann", "ann-bot", "f.tar", "failed", "build", "exit 3", f"{SECRET} log",
                    "arena check-bot f.tar", None, 0.0, 0.0)
    public = upload_view(upload, PUBLIC, PathScrubber({}))
    assert SECRET not in json.dumps(public) and public["command"] == ""
    assert public["reason"] == "exit 3" and public["log"] == HIDDEN
    assert upload_view(upload, Viewer("ann"), PathScrubber({}))["log"] == f"{SECRET} log"
    assert upload_view(upload, Viewer("bob"), PathScrubber({}))["log"] == HIDDEN


# ----- against a real league -----------------------------------------------------------------

LEAKY = f'''import random, sys
from protocol.sdk import Bot, choose, exchange, run

class Leaky(Bot):
    name = "leaky"
    version = "1.0.0"

    def __init__(self):
        self.rng = random.Random()

    def decide(self, request):
        print("{SECRET}", request["observation"].get("hand"), file=sys.stderr, flush=True)
        if request["kind"] == "exchange":
            return exchange(self.rng.sample(request["observation"]["hand"], 3))
        if request["kind"] in ("grand_tichu", "tichu"):
            return choose(0)
        return choose(self.rng.randrange(len(request["options"])))

if __name__ == "__main__":
    sys.exit(run(Leaky()))
'''


def replay_json(script: str) -> str:
    packed = re.search(r'"([A-Za-z0-9+/=]+)"\);', script)
    assert packed is not None, script[:200]
    return gzip.decompress(base64.b64decode(packed.group(1))).decode()


def test_another_author_cannot_read_a_bots_stderr(league: League, tmp_path: Path) -> None:
    lea, pry = league.invite("lea"), league.invite("pry")
    result = league.upload(bot_copy(tmp_path / "leaky", "leaky-bot", LEAKY), lea)
    assert result.returncode == 0, result.stdout + result.stderr
    games = wait_for("a game of leaky-bot", lambda: league.get(
        "/api/games?bot=leaky-bot")["games"])
    url = games[0]["url"]
    mine = league.get(url, lea)["record"]  # the control: the secret is in the record
    assert any(SECRET in text for text in mine["bot_output"]), mine["bot_output"]
    assert SECRET in json.dumps(league.get(url, league.organizer()["Authorization"].removeprefix("Bearer ")))
    for token in (None, pry):
        assert SECRET not in json.dumps(league.get(url, token))
    for token in (None, lea):  # no answer names the checkout (the house bots' folders)
        assert str(ROOT) not in json.dumps(league.get(url, token))
    replay = league.get(games[0]["replay"].replace("/games/", "/replays/") + ".js")
    assert SECRET not in replay_json(replay) and SECRET not in league.get(games[0]["replay"])


def test_an_authors_messages_name_no_server_path(league: League, tmp_path: Path) -> None:
    """A build that prints its folder fails: the stored log names the server's build folder;
    what the author is shown names their bot instead."""
    token = league.invite("tia")
    bot = bot_copy(tmp_path / "tia-bot", "tia-bot",
                   extra='build = ["sh", "-c", "echo building in $(pwd); exit 3"]\n')
    result = league.upload(bot, token)
    assert result.returncode == 1, result.stdout + result.stderr
    with database(league.folder / "league.sqlite") as db:
        stored = " ".join(db.execute("SELECT reason || ' ' || log FROM league_uploads WHERE "
                                     "name = 'tia-bot'").fetchone())
    assert re.search(r"building in /\S+/builds/[0-9a-f]{16,}", stored), stored  # the control
    shown = json.dumps(league.get("/api/bots/tia-bot", token)) + result.stdout + \
        league.signed_in("tia-bot", token)
    for path in re.findall(r"(/[\w.-]+(?:/[\w.-]+)+)", stored):
        assert path not in shown, (path, shown)
    assert "building in <your bot>" in shown
    assert str(Path.home()) not in shown and str(league.folder) not in shown

