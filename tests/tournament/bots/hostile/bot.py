"""A hostile bot for the tournament's tests. It plays random legal options and attacks as
`settings.json` in its own folder says (`{"mode": ..., ...}`); it reports on stderr, which
the game record keeps:

- `cracker`: computes its first 8 cards from what it receives and public code alone: the
  game id (a tournament's is its pair's id and game index, `arena play`'s may hold the
  seed), small base seeds (0-2000) as a config might fix, the tournament's seed derivation
  and the deal. Says `CRACKED <seed>` when its hand matches, else `not cracked`.
- `seer`: was built with every published record's deals (`published.json` in its folder:
  `[game id, round, seat, first 8 cards]` for each), as an author who downloaded them would
  build it. At the first decision of every round it looks its 8 cards up among them: says
  `SEEN <game id> round <r> as <published game, round, seat>` when they are one, which would
  tell it every hand of the deal, else `fresh <game id> round <r> among <n>`.
- `spy`: remembers, for its process's life, each game it is welcomed to: says
  `spy <process nonce> <game id>` for each, and `REMEMBERS` when a game of a pair it played
  comes again (it would know every hand).
- `forger`: at its first decision, writes a result in which its team won its game into the
  tournament's store (`store` in the settings), ahead of the referee; says what it did.
- `gate`: says hello only once the file `gate` exists in its folder.
- `detached`: at start, leaves a child that runs in a session of its own and keeps the bot's
  output open (the referee cannot stop it with the bot's process group), then waits for the
  gate as `gate` does.
"""

import hashlib
import json
import os
import random
import re
import secrets
import sqlite3
import sys
import time

from protocol.sdk import Bot, choose, exchange, run

HERE = os.path.dirname(os.path.abspath(__file__))
SETTINGS = json.load(open(os.path.join(HERE, "settings.json")))
MODE = SETTINGS["mode"]
NONCE = secrets.token_hex(4)


def say(text):
    print(f"{MODE}: {text}", file=sys.stderr, flush=True)


# ----- public code, copied so that no import is needed ---------------------------------------

def deal_order(seed, round_number):  # arena.rules.game.deal_order
    digest = hashlib.sha256(f"tichu-arena/deal/{seed}/{round_number}".encode()).digest()
    deck = list(range(56))
    random.Random(int.from_bytes(digest[:16], "big")).shuffle(deck)
    return deck


def pair_seed(base_seed, pair_id):  # arena.tournament.schedule.pair_seed
    digest = hashlib.sha256(f"tichu-arena/pair/{base_seed}/{pair_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def card_name(c):  # arena.rules.cards.card_name
    if c >= 52:
        return {52: "Mahjong", 53: "Dog", 54: "Phoenix", 55: "Dragon"}[c]
    return "23456789TJQKA"[c >> 2] + "jspt"[c & 3]


def candidate_seeds(game_id):
    pair = re.fullmatch(r"(.+#\d+)\.[01]", game_id)
    if pair:  # a tournament's pair id: its lineup and index
        for base in range(2001):
            yield pair_seed(base, pair[1])
    played = re.fullmatch(r"play-(\d+)", game_id)
    if played:
        yield int(played[1])
    yield from range(2001)


def crack(game_id, seat, hand):
    for seed in candidate_seeds(game_id):
        deck = deal_order(seed, 1)
        if {card_name(c) for c in deck[14 * seat:14 * seat + 8]} == hand:
            return seed
    return None


# ----- the attacks ---------------------------------------------------------------------------

def published():
    """The published deals the seer was built with: {frozenset of 8 cards: where dealt}."""
    path = os.path.join(HERE, "published.json")
    if not os.path.exists(path):
        return {}
    return {frozenset(cards): f"{game}, round {number}, seat {seat}"
            for game, number, seat, cards in json.load(open(path))}


def look_up(known, game_id, number, hand):
    where = known.get(frozenset(hand))
    if where is not None:
        say(f"SEEN {game_id} round {number} as {where}")
    else:
        say(f"fresh {game_id} round {number} among {len(known)}")


def forge(game_id, seat):
    matchup, rest = game_id.rsplit("#", 1)
    index, game = (int(x) for x in rest.split("."))
    a, b = matchup.split("~")
    teams = (a, b) if game == 0 else (b, a)
    won = (1000, 0) if seat % 2 == 0 else (0, 1000)
    try:
        with sqlite3.connect(SETTINGS["store"], timeout=30) as db:
            cursor = db.execute(
                "INSERT OR IGNORE INTO games VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, ?, 1, 'normal', "
                "NULL, NULL, NULL, 1.0, 'forged', 'now')",
                (game_id, f"{matchup}#{index}", index, game, *teams, *won, seat % 2))
        if cursor.rowcount:
            say(f"forged a win of team {seat % 2} in {game_id}")
    except Exception as exc:  # e.g. the store is out of its reach
        say(f"could not forge: {exc}")


def wait_for_gate():
    while not os.path.exists(os.path.join(HERE, "gate")):
        time.sleep(0.05)


def detach():
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            time.sleep(300)  # holds the bot's output open meanwhile
        os._exit(0)
    os.wait()


class Hostile(Bot):
    name = "hostile"
    version = "1"

    def __init__(self):
        self.rng = random.Random()
        self.games = {}  # pair id -> game id, for this process's life
        self.first = True
        self.known = published() if MODE == "seer" else {}
        self.round = 0

    def on_welcome(self, welcome):
        self.first = True
        self.round = 0
        game_id = welcome["settings"]["game"]
        if MODE == "spy":
            say(f"{NONCE} {game_id}")
            pair = game_id.rsplit(".", 1)[0]
            if pair in self.games and self.games[pair] != game_id:
                say(f"{NONCE} REMEMBERS {self.games[pair]} while playing {game_id}")
            self.games[pair] = game_id

    def decide(self, request):
        game_id = self.welcome["settings"]["game"]
        if self.first:
            self.first = False
            if MODE == "cracker":
                seed = crack(game_id, self.seat, set(request["observation"]["hand"]))
                say(f"CRACKED {seed}" if seed is not None else "not cracked")
            elif MODE == "forger":
                forge(game_id, self.seat)
        if request["kind"] == "grand_tichu":  # a round's first decision: 8 cards dealt
            self.round += 1
            if MODE == "seer":
                look_up(self.known, game_id, self.round, request["observation"]["hand"])
        if request["kind"] == "exchange":
            return exchange(self.rng.sample(request["observation"]["hand"], 3))
        if request["kind"] in ("grand_tichu", "tichu"):
            return choose(0)
        return choose(self.rng.randrange(len(request["options"])))


if __name__ == "__main__":
    if MODE == "detached":
        detach()
    if MODE in ("gate", "detached"):
        wait_for_gate()
    sys.exit(run(Hostile()))
