"""Practice games: an author's unrated game of one of their versions against an entrant.

Asked for through `POST /api/practice` (or the form on a bot's page), recorded in the
league's tables (`Accounts.add_practice`, which holds each author to `league.practice_per_day`
in any 24 hours) and played one at a time on a thread of their own (`Practice`), by the
tournament's own worker process and game writer (`arena.tournament.runner.play_games`), into
a store of their own: `<storage>.practice`, its records in `<storage>.practice.records`. So
no table the ratings, the standings or the scheduler read ever holds a practice game, and
its replay is kept as any game's is. Its deal is a fresh random seed (63 bits from the
operating system, `secrets`), never derived from its id: the id has a league pair's form, and
a practice game must show no hand the league deals, nor another practice game's. While it
runs its public events are written to `<storage>.practice.live/<game id>.json` for the
spectators' page, as the league's games do (`GameSpec.live`).

A practice game queued or playing when the server stopped is played at the next start (one
already stored is marked done: its id names its game, stored once), but for one with a
person at a seat (`seats.py`), which is marked failed: its person is gone.
"""

from __future__ import annotations

import logging
import queue
import secrets
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from arena.errors import ArenaError
from arena.intake import IntakePolicy, take_bot
from arena.league.accounts import Accounts, PracticeRow, PracticeStatus, UploadStatus
from arena.league.config import LeagueConfig
from arena.referee.match import Entrant, Guest
from arena.tournament.records import sweep_pending
from arena.tournament.runner import play_games
from arena.tournament.schedule import ScheduledGame
from arena.tournament.store import Store

logger = logging.getLogger(__name__)

DAY = 24 * 3600.0


class PracticeRefused(ArenaError):
    """A practice game not granted; `status` is the HTTP status to answer."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def practice_storage(config: LeagueConfig) -> Path:
    """The store of a league's practice games (beside its own)."""
    return config.storage.with_name(config.storage.name + ".practice")


class Practice:
    """Grants, queues and plays practice games, one at a time, on a thread of its own.

    `active` gives the league's active entrants by key (what an author may play against).
    """

    def __init__(self, config: LeagueConfig, policy: IntakePolicy,
                 active: Callable[[], dict[str, Entrant]]) -> None:
        self.config = config
        self.policy = policy
        self.active = active
        self.storage = practice_storage(config)
        self.tournament = replace(config.tournament, storage=self.storage,
                                  records=self.storage.with_name(self.storage.name + ".records"),
                                  pin_cpus=False)  # beside the league's pinned workers
        self.live = self.storage.with_name(self.storage.name + ".live")
        self.queue: queue.Queue[int | None] = queue.Queue()
        self.thread = threading.Thread(target=self._run, name="arena-practice", daemon=True)
        self.playing: frozenset[str] = frozenset()
        """The entrant keys of the practice game being played."""

    # ----- asking ----------------------------------------------------------------------------

    def ask(self, author: str, bot: str, opponent: str, version: str | None = None
            ) -> PracticeRow:
        """Grant `author` a practice game of their bot `bot` (its active version, or the
        newest taken in, or the one `version` names: an entrant key or its hash) against the
        active entrant `opponent` (a name or an entrant key). PracticeRefused: 403 (another
        author's bot, or one the organizer disabled), 404 (no such bot, version or active entrant), 400 (a bot against
        itself), 429 (`league.practice_per_day` reached)."""
        active = self.active()
        with Accounts(self.config.storage) as accounts:
            mine = self.own_version(accounts, author, bot, version, active)
            theirs = opponent_key(opponent, active)
            if theirs == mine:
                raise PracticeRefused(400, f"{mine} cannot practise against itself: choose "
                                           "another opponent")
            limit = self.config.practice_per_day
            granted = accounts.add_practice(author, mine, theirs, limit, time.time() - DAY)
            if granted is None:
                raise PracticeRefused(429, f"{limit} practice games in the last 24 hours "
                                           "already (league.practice_per_day): try again "
                                           "later")
            row = accounts.practice(granted)
        assert row is not None
        self.queue.put(row.id)
        return row

    def own_version(self, accounts: Accounts, author: str, bot: str, version: str | None,
                 active: dict[str, Entrant]) -> str:
        """The entrant key of the author's version to play."""
        owner = accounts.owner(bot)
        if owner is None:
            raise PracticeRefused(404, f"no uploaded bot named {bot!r}: practice games are "
                                       "for the bots you uploaded")
        if owner != author:
            raise PracticeRefused(403, f"the bot {bot!r} is another author's: ask for "
                                       "practice games of your own bots")
        if bot in accounts.disabled():
            raise PracticeRefused(403, f"the organizer took {bot!r} out of the league: it "
                                       "plays no game, practice included, until enabled")
        keys = [u.entrant for u in accounts.uploads(bot, (UploadStatus.ACTIVE, UploadStatus.RETIRED)) if u.entrant]
        if version:
            wanted = [k for k in keys if version in (k, k.split("@", 1)[1])]
            if not wanted:
                raise PracticeRefused(404, f"{bot!r} has no version {version!r} taken in "
                                           f"(its versions: {', '.join(keys) or 'none yet'})")
            return wanted[0]
        live = [k for k in keys if k in active]
        if not live and not keys:
            raise PracticeRefused(404, f"{bot!r} has no version taken in yet (built and "
                                       "checked): wait until its upload is active")
        return (live or keys)[-1]

    # ----- playing ---------------------------------------------------------------------------

    def start(self) -> None:
        """Sweep what a kill left behind, queue the games not played, start playing."""
        shutil.rmtree(self.live, ignore_errors=True)  # the files of games a kill cut short
        self.live.mkdir(parents=True)
        with Store(self.storage) as store, Accounts(self.config.storage) as accounts:
            sweep_pending(self.tournament.records, store)
            done = store.done_game_ids()
            seated = accounts.seat_games()
            for row in accounts.practices((PracticeStatus.QUEUED, PracticeStatus.PLAYING)):
                if row.id in seated and row.game_id not in done:  # its person is gone
                    accounts.set_practice(row.id, PracticeStatus.FAILED,
                                          reason="the server stopped during the game")
                elif row.game_id in done:
                    accounts.set_practice(row.id, PracticeStatus.DONE)
                else:
                    self.queue.put(row.id)
        self.thread.start()

    def close(self) -> None:
        """Play no more (a game being played stops with the server's process: its worker
        ends when the server does, and it is played at the next start)."""
        self.queue.put(None)

    def _run(self) -> None:
        with Accounts(self.config.storage) as accounts:
            while (practice := self.queue.get()) is not None:
                row = accounts.practice(practice)
                if row is None or row.status not in (PracticeStatus.QUEUED, PracticeStatus.PLAYING):
                    continue
                try:
                    self.play(accounts, row)
                except Exception as exc:  # the harness failed, not the bots: say so
                    logger.exception("practice game %s could not be played", practice)
                    accounts.set_practice(practice, PracticeStatus.FAILED,
                                          reason=f"the league failed to play it: {exc}")

    def play(self, accounts: Accounts, row: PracticeRow) -> None:
        """Play one practice game into the practice store; its status at each step."""
        self.playing = frozenset((row.entrant, row.opponent))  # before their builds are used
        try:
            self.play_row(accounts, row)
        finally:
            self.playing = frozenset()

    def play_row(self, accounts: Accounts, row: PracticeRow, guest: Guest | None = None
                 ) -> str:
        """Play the game of `row` (`guest`: at a seat of team 0, `row.entrant`'s) into the
        practice store, its status at each step; its game id."""
        entrants = {key: self.entrant(accounts, key) for key in (row.entrant, row.opponent)}
        matchup = (min(row.entrant, row.opponent), max(row.entrant, row.opponent))
        game = ScheduledGame(matchup, row.id, 0 if matchup[0] == row.entrant else 1,
                             secrets.randbits(63))  # the author's version is team 0
        accounts.set_practice(row.id, PracticeStatus.PLAYING, game.game_id)
        with Store(self.config.storage, read_only=True) as league:
            rows = [e for e in league.entrants() if e.key in entrants]
        with Store(self.storage) as store:
            for entrant in rows:
                store.register_entrant(entrant)
            play_games(self.tournament, store, entrants, [game], 1, live=self.live,
                       guest=guest)
            stored = game.game_id in store.done_game_ids()
        accounts.set_practice(row.id, PracticeStatus.DONE if stored else PracticeStatus.FAILED,
                              reason="" if stored else "the game was not finished")
        return game.game_id

    def entrant(self, accounts: Accounts, key: str) -> Entrant:
        """The entrant of `key`: the league's own if active, else its upload taken in again
        (its build is cached by content: no rebuild)."""
        active = self.active()
        if key in active:
            return active[key]
        upload = next((u for u in reversed(accounts.uploads(key.split("@")[0]))
                       if u.entrant == key), None)
        if upload is None:
            raise ArenaError(f"{key} is no longer in the league")
        ready = take_bot(self.config.uploads / upload.file, self.policy)
        return Entrant(self.config.tournament.with_limits(ready.manifest), ready.version,
                       source=f"upload {upload.id}", snapshot=ready.snapshot.folder)

    # ----- reading ---------------------------------------------------------------------------

    def live_file(self, row: PracticeRow) -> Path | None:
        """The spectators' file of a practice game being played (None: not playing)."""
        if row.status is not PracticeStatus.PLAYING or row.game_id is None:
            return None
        return self.live / f"{row.game_id}.json"


def opponent_key(opponent: str, active: dict[str, Entrant]) -> str:
    """The active entrant `opponent` names (a bot name or an entrant key); PracticeRefused
    (404) if none."""
    found = [k for k in active if opponent in (k, k.split("@")[0])]
    if not found:
        raise PracticeRefused(404, f"no active entrant named {opponent!r} (GET "
                                   "/api/standings lists them)")
    return found[0]
