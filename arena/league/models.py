"""The league API's request and response bodies as msgspec models: the schema is this code.

`openapi.py` generates `/openapi.json` from these models (`msgspec.json.schema_components`);
the tests decode every JSON answer of the suite into the model of its path, method and status
(tests/league/conftest.py), strictly. A model whose shape is fixed forbids unknown fields, so
a field that comes back undocumented fails a test. Every field carries a one-line
description (`Doc`), which becomes its description in the schema.

A field that an answer may leave out is `UnsetType` (default `UNSET`): absent, not null.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

import msgspec
from msgspec import UNSET, UnsetType

from arena.faults import ForfeitKind
from arena.intake import IntakeStage
from arena.league.accounts import PracticeStatus, UploadStatus
from arena.referee.record import Termination
from arena.sandbox import Isolation

Doc = msgspec.Meta
"""A field's description: `Annotated[T, Doc(description=...)]`."""

if TYPE_CHECKING:
    StageWord = str
else:  # "" or an intake stage's word: msgspec takes one str-like type per union
    StageWord = Literal[("", *(stage.value for stage in IntakeStage))]


class Model(msgspec.Struct, forbid_unknown_fields=True):
    """A JSON object of the API whose fields are all named here (any other one is an error).

    A field that may be absent comes last (msgspec's order: no required field after one with
    a default)."""


class Error(Model):
    """An error a person can act on."""

    error: Annotated[str, Doc(description="What went wrong and what to do about it, in a "
                                          "sentence")]
    status: Annotated[int, Doc(description="The HTTP status, repeated")]


# ----- the standings --------------------------------------------------------------------------

Failures = Annotated[dict[ForfeitKind, int], Doc(
    description="Games forfeited, per bot-fault kind (kinds with none are left out)")]


class StandingsRow(Model):
    """One entrant's line of the live table."""

    key: Annotated[str, Doc(description="The entrant's key: its bot's name, @, its version's "
                                        "hash")]
    name: Annotated[str, Doc(description="The bot's name")]
    author: Annotated[str, Doc(description="Who uploaded it; \"house\" for the league's own "
                                           "entrants")]
    version: Annotated[str, Doc(description="Its bot.toml's version, then its hash's first 8 "
                                            "digits")]
    rank: Annotated[int | None, Doc(description="Its place, 1 first; null while it has no "
                                                "rated game")]
    rating: Annotated[float | None, Doc(description="Its Elo rating, to 0.1; null if none or "
                                                    "not finite")]
    rating_text: Annotated[str, Doc(description="The rating as shown; a bound set by the "
                                                "prior is marked, e.g. \"≥ 180\"")]
    interval: Annotated[float | None, Doc(description="Half the width of its rating's 95% "
                                                      "interval; null if none is known")]
    interval_text: Annotated[str, Doc(description="The interval as shown, or \"anchor\", "
                                                  "\"one-sided\", \"prior-set\"")]
    games: Annotated[int, Doc(description="Games it played that count")]
    wins: Annotated[int, Doc(description="Games it won")]
    forfeits: Annotated[int, Doc(description="Games it forfeited by a bot fault")]
    failures: Failures
    order_vs_next: Annotated[str, Doc(description="Its order against the next one down: "
                                                  "\"settled\", \"tied\", \"~N more pairs\" "
                                                  "or \"\"")]


class Standings(Model):
    """The live table of the active entrants, refitted after each new game."""

    games: Annotated[int, Doc(description="Stored games the table counts")]
    version: Annotated[int, Doc(description="Counts the fits: a new table has a higher "
                                            "version")]
    standings: Annotated[list[StandingsRow], Doc(description="One row per entrant, in the "
                                                             "order fitted")]
    notes: Annotated[list[str], Doc(description="Sentences on how to read the table: "
                                                "bounds, groups, and the games against "
                                                "retired versions it leaves out")]
    stale: Annotated[bool, Doc(description="The table the last run left, served after a "
                                           "restart until the first fresh one")]


# ----- uploads ----------------------------------------------------------------------------------

class Upload(Model):
    """One upload and where its intake is."""

    id: Annotated[int, Doc(description="The upload's id (GET /api/uploads/{id})")]
    author: Annotated[str, Doc(description="Who uploaded it")]
    name: Annotated[str, Doc(description="The bot's name")]
    status: Annotated[UploadStatus, Doc(description="Where it is: taken in, then active, "
                                                    "retired or failed")]
    stage: Annotated[StageWord, Doc(description="The intake step that refused it; \"\" "
                                                "unless it failed")]
    reason: Annotated[str, Doc(description="Why it failed, in a sentence; \"\" unless it "
                                           "failed")]
    log: Annotated[str, Doc(description="The failing step's output: its author's and the "
                                        "organizer's only")]
    command: Annotated[str, Doc(description="The command reproducing the failure: its "
                                            "author's and the organizer's only")]
    entrant: Annotated[str | None, Doc(description="The entrant key it became, once built; "
                                                   "else null")]
    created: Annotated[float, Doc(description="When it was received (Unix time, seconds)")]
    updated: Annotated[float, Doc(description="When its status last changed (Unix time, "
                                              "seconds)")]


class UploadForm(msgspec.Struct, kw_only=True):
    """The multipart form of an upload."""

    name: Annotated[str, Doc(description="The bot's name, as in its bot.toml")]
    archive: Annotated[str, Doc(description="The bot folder as .tar.gz, .tgz, .tar or .zip",
                                extra_json_schema={"format": "binary"})]


class UploadAccepted(Model):
    """An upload stored durably; its intake follows."""

    id: Annotated[int, Doc(description="The upload's id")]
    name: Annotated[str, Doc(description="The bot's name")]
    status: Annotated[UploadStatus, Doc(description="Always \"received\": follow `url` for "
                                                    "the rest")]
    url: Annotated[str, Doc(description="Its status: GET /api/uploads/{id}")]
    page: Annotated[str, Doc(description="Its bot's page")]


class RebuildAccepted(Model):
    """A rebuild queued: the upload is taken in again."""

    name: Annotated[str, Doc(description="The bot's name")]
    upload: Annotated[int, Doc(description="The id of the upload being rebuilt")]
    status: Annotated[UploadStatus, Doc(description="Always \"received\": follow `url` for "
                                                    "the rest")]
    url: Annotated[str, Doc(description="The upload's status: GET /api/uploads/{id}")]


class AdminDone(Model):
    """An organizer's disable or enable, done."""

    name: Annotated[str, Doc(description="The bot's name")]
    disabled: Annotated[bool, Doc(description="Whether the bot is now out of the live "
                                              "table")]


# ----- a bot ------------------------------------------------------------------------------------

class RatingPoint(Model):
    """One point of a version's rating history."""

    games: Annotated[int, Doc(description="Its games when the rating was kept")]
    rating: Annotated[float, Doc(description="Its Elo rating then")]
    interval: Annotated[float | None, Doc(description="Half the width of the 95% interval "
                                                      "then; null if unbounded")]


class BotVersion(Model):
    """One version of a bot (an entrant)."""

    key: Annotated[str, Doc(description="The entrant's key: name@hash")]
    version: Annotated[str, Doc(description="The version its bot.toml declares")]
    hash: Annotated[str, Doc(description="The hash of its files: the key's second part")]
    language: Annotated[str, Doc(description="Its language, as its bot.toml says")]
    active: Annotated[bool, Doc(description="Whether it plays in the live table now")]
    retired: Annotated[bool, Doc(description="Whether a newer version replaced it")]
    failures: Failures
    standing: Annotated[StandingsRow | None, Doc(description="Its row of the live table; "
                                                             "null if it has none")]
    history: Annotated[list[RatingPoint], Doc(description="Its rating as its games grew, "
                                                          "oldest first")]


class Opponent(Model):
    """How a bot's versions did against another bot."""

    opponent: Annotated[str, Doc(description="The other bot's name")]
    games: Annotated[int, Doc(description="Games between them")]
    wins: Annotated[int, Doc(description="Games this bot won")]


class BotFailure(Model):
    """One game a version of the bot forfeited: what failed, when, and how to replay it."""

    game: Annotated[str, Doc(description="The game's id")]
    version: Annotated[str, Doc(description="The failed version's entrant key")]
    seat: Annotated[int, Doc(description="The failed seat, 0 to 3")]
    kind: Annotated[str, Doc(description="The fault's kind: crash, timeout, ...")]
    round: Annotated[int, Doc(description="The round it happened in, from 1")]
    decision: Annotated[int, Doc(description="How many decisions the game had applied then")]
    message: Annotated[str, Doc(description="The referee's sentence about it")]
    output: Annotated[str, Doc(description="The last lines of the seat's stderr and stdout: "
                                           "for its author and the organizer only")]
    replay: Annotated[str, Doc(description="The game's replay page")]
    reproduce: Annotated[str, Doc(description="The `arena reproduce` command that replays "
                                              "the game to the author's bot")]


class Bot(Model):
    """A bot: its versions and their standing, its uploads, its opponents, its failures."""

    name: Annotated[str, Doc(description="The bot's name")]
    author: Annotated[str, Doc(description="Who owns the name; \"house\" for a league's own "
                                           "bot")]
    versions: Annotated[list[BotVersion], Doc(description="Every version stored, in the "
                                                          "order registered")]
    uploads: Annotated[list[Upload], Doc(description="Every upload of the bot, oldest "
                                                     "first")]
    opponents: Annotated[list[Opponent], Doc(description="Games and wins against each other "
                                                         "bot, by name")]
    failures: Annotated[list[BotFailure], Doc(description="Its newest forfeits, newest "
                                                          "first (at most 10)")]


# ----- games ------------------------------------------------------------------------------------

class GameSummary(Model):
    """One stored game as the store's row says it."""

    id: Annotated[str, Doc(description="The game's id")]
    cursor: Annotated[int, Doc(description="Its place in the store: `after` for the next "
                                           "page; 0 in a single game's answer")]
    pair: Annotated[str, Doc(description="The id of its pair (two games, same deals, teams "
                                         "swapped)")]
    pair_index: Annotated[int, Doc(description="The pair's number within its matchup")]
    game_index: Annotated[int, Doc(description="0 or 1: which game of the pair")]
    teams: Annotated[tuple[str, str], Doc(description="The entrant keys of team 0 and team "
                                                      "1")]
    scores: Annotated[tuple[int, int], Doc(description="The final scores of team 0 and team "
                                                       "1")]
    winner: Annotated[int | None, Doc(description="The winning team, 0 or 1; null for none")]
    rounds: Annotated[int, Doc(description="Rounds played")]
    termination: Annotated[Termination, Doc(description="How the game ended")]
    fault_seat: Annotated[int | None, Doc(description="The seat charged with a fault; null "
                                                      "for none")]
    fault_message: Annotated[str | None, Doc(description="The fault's message; null for "
                                                         "none")]
    seconds: Annotated[float, Doc(description="How long it took, in seconds")]
    finished_at: Annotated[str, Doc(description="When it was stored (local time, "
                                                "YYYY-MM-DDTHH:MM:SS+HHMM)")]
    url: Annotated[str, Doc(description="The game and its record (JSON)")]
    replay: Annotated[str, Doc(description="Its replay page")]


class GamesPage(Model):
    """A page of stored games, oldest first."""

    games: Annotated[list[GameSummary], Doc(description="The games after the cursor")]
    next: Annotated[int | None, Doc(description="The cursor of the next page (`after`); "
                                                "null on the last page")]


class RecordEntrant(Model):
    """An entrant as a record names it."""

    name: Annotated[str, Doc(description="The bot's name")]
    version: Annotated[str, Doc(description="Its version's hash")]
    folder: Annotated[str, Doc(description="Its folder, with the server's paths shown as "
                                           "labels")]


class Guest(Model):
    """The seat a guest played instead of its team's entrant."""

    seat: Annotated[int, Doc(description="The guest's seat, 0 to 3")]
    name: Annotated[str, Doc(description="The guest's name")]
    version: Annotated[str, Doc(description="The guest's version")]


class Fault(Model):
    """Who failed, when and why."""

    kind: Annotated[Termination, Doc(description="The kind of failure: the game's "
                                                 "termination")]
    seat: Annotated[int | None, Doc(description="The seat charged; null when none is (or "
                                                "both teams failed)")]
    message: Annotated[str, Doc(description="What happened, in a sentence")]
    round: Annotated[int, Doc(description="The round it happened in")]
    decision: Annotated[int, Doc(description="How many decisions had been applied")]
    details: Annotated[dict[str, Any], Doc(description="Facts of its kind; {\"private\": "
                                                       "...} unless the viewer sees the "
                                                       "seat")]


class Record(Model):
    """A game record's top-level fields (format 1), as the viewer may see them."""

    format: Annotated[int, Doc(description="The record format: 1")]
    game_id: Annotated[str, Doc(description="The game's id")]
    seed: Annotated[int, Doc(description="The seed the deals come from")]
    target: Annotated[int, Doc(description="The score that ends the game")]
    entrants: Annotated[list[RecordEntrant], Doc(description="Team 0's and team 1's "
                                                             "entrants (mixed: seats 0 and "
                                                             "1)")]
    decisions: Annotated[list[dict[str, Any]], Doc(description="Every decision: seat, "
                                                               "request, kind, action, "
                                                               "latency")]
    events: Annotated[list[dict[str, Any]], Doc(description="Every event in wire form, with "
                                                            "who could see it")]
    round_scores: Annotated[list[tuple[int, int]], Doc(description="Each round's points of "
                                                                   "team 0 and team 1")]
    scores: Annotated[tuple[int, int], Doc(description="The final scores of team 0 and team "
                                                       "1")]
    winner: Annotated[int | None, Doc(description="The winning team; null for none")]
    rounds: Annotated[int, Doc(description="Rounds played")]
    termination: Annotated[Termination, Doc(description="How the game ended")]
    fault: Annotated[Fault | None, Doc(description="The fault that ended it; null for none")]
    time_used: Annotated[list[float], Doc(description="Each seat's thinking time, in "
                                                      "seconds")]
    bot_output: Annotated[list[str], Doc(description="Each seat's stderr; only for its "
                                                     "author and the organizer")]
    seconds: Annotated[float, Doc(description="How long the game took, in seconds")]
    isolation: Annotated[Isolation, Doc(description="How the bot processes were isolated")]
    guest: Annotated[Guest | None, Doc(description="The seat a guest played; null in a "
                                                   "league")]
    seats: Annotated[list[RecordEntrant] | UnsetType, Doc(
        description="With mixed partners, each seat's entrant; absent otherwise")] = UNSET
    time_control: Annotated[dict[str, float] | UnsetType, Doc(
        description="The game's time control in seconds: hello, decision, bank, grace; "
                    "absent in older records")] = UNSET


class Game(GameSummary):
    """One stored game and its record."""

    record: Annotated[Record | None, Doc(description="Its record, as the viewer may see it; "
                                                     "null if its file cannot be read")]


class SeatMessage(Model):
    """One message the referee sent the seat, and for a request what came of it."""

    message: Annotated[dict[str, Any], Doc(description="The message as sent (PROTOCOL.md), "
                                                       "for a bot with every capability")]
    decision: Annotated[int | None, Doc(description="A request's number among the game's "
                                                    "decisions (0 first); else null")]
    reply: Annotated[dict[str, Any] | None, Doc(description="A request's recorded answer "
                                                            "(action, call_tichu, wish, "
                                                            "latency_ms); null otherwise")]
    allowed_ms: Annotated[int | None, Doc(description="A request's time to answer, grace "
                                                      "included; else null")]


class SeatMessages(Model):
    """What one seat of a stored game was sent: `arena reproduce` replays it to a bot."""

    game_id: Annotated[str, Doc(description="The game's id")]
    seat: Annotated[int, Doc(description="The seat, 0 to 3")]
    name: Annotated[str, Doc(description="The seat's bot")]
    time_control: Annotated[dict[str, float], Doc(description="The game's time control in "
                                                              "seconds: hello, decision, "
                                                              "bank, grace")]
    termination: Annotated[Termination, Doc(description="How the game ended")]
    fault: Annotated[Fault | None, Doc(description="This seat's own fault; null if it had "
                                                   "none")]
    failing: Annotated[int | None, Doc(description="The decision this seat failed at, if it "
                                                   "failed at its own request")]
    messages: Annotated[list[SeatMessage], Doc(description="Every message the seat was "
                                                           "sent, in order; only its own "
                                                           "cards and the public events")]
    output: Annotated[str, Doc(description="The seat's stderr in the game (its tail)")]


# ----- practice games ---------------------------------------------------------------------------

class PracticeRequest(msgspec.Struct, kw_only=True):
    """An author's request for a practice game (other fields are ignored)."""

    bot: Annotated[str, Doc(description="One of your bots")]
    opponent: Annotated[str, Doc(description="An active entrant: a name from GET "
                                             "/api/standings")]
    version: Annotated[str | None | UnsetType, Doc(
        description="One of your bot's versions; default: its active one")] = UNSET


class Practice(Model):
    """One practice game: unrated, of an author's bot against an entrant."""

    id: Annotated[int, Doc(description="The practice game's id")]
    author: Annotated[str, Doc(description="Who asked for it")]
    entrant: Annotated[str, Doc(description="The author's entrant key (team 0)")]
    opponent: Annotated[str, Doc(description="The opponent's entrant key (team 1)")]
    status: Annotated[PracticeStatus, Doc(description="Where it is: queued, playing, done or "
                                                      "failed")]
    game_id: Annotated[str | None, Doc(description="The game's id once it starts; else "
                                                   "null")]
    reason: Annotated[str, Doc(description="Why it failed, in a sentence; \"\" unless it "
                                           "failed")]
    created: Annotated[float, Doc(description="When it was asked for (Unix time, seconds)")]
    updated: Annotated[float, Doc(description="When its status last changed (Unix time, "
                                              "seconds)")]
    url: Annotated[str, Doc(description="Its status: GET /api/practice/{id}")]
    page: Annotated[str, Doc(description="Its page, to watch it live")]
    replay: Annotated[str, Doc(description="Its replay page, once done")]
    game: Annotated[Game | UnsetType, Doc(description="Once done and kept: the game and its "
                                                      "record")] = UNSET


# ----- a seat at the table in the browser --------------------------------------------------------

class SeatAnswerRequest(msgspec.Struct, kw_only=True):
    """The person's answer to the open request of their seat (other fields are ignored)."""

    request_id: Annotated[int, Doc(description="The id of the request answered (the open "
                                               "one)")]
    action: Annotated[dict[str, Any], Doc(
        description="The action: a protocol reply's `action` map (PROTOCOL.md section 6)")]
    call_tichu: Annotated[bool | UnsetType, Doc(
        description="Call Tichu with it, where the request allows it")] = UNSET
    wish: Annotated[str | None | UnsetType, Doc(
        description="The wished rank, with a play of the Mahjong")] = UNSET
    csrf: Annotated[str | UnsetType, Doc(
        description="The page's CSRF token, unless sent as the X-CSRF-Token header")] = UNSET


class SeatAnswer(Model):
    """The answer was taken and sent to the referee."""

    accepted: Annotated[bool, Doc(description="Always true")]


class SeatLeft(Model):
    """The person left the game: it ends as left, their team forfeiting."""

    left: Annotated[bool, Doc(description="Always true")]


RESPONSES: tuple[type[msgspec.Struct], ...] = (
    Error, Standings, Bot, Upload, UploadAccepted, RebuildAccepted, AdminDone, GamesPage,
    Game, Practice, SeatMessages, SeatAnswer, SeatLeft)
"""Every response body's model."""
REQUESTS: tuple[type[msgspec.Struct], ...] = (UploadForm, PracticeRequest, SeatAnswerRequest)
"""Every request body's model."""
