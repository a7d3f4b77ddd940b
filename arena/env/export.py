"""Training data: one row per decision of stored games, in the encoding policies play with.

`export_store` reads a tournament store's games (their gzipped records), re-simulates each
through the engine (`arena.referee.record.resimulate`: a record that does not replay is an
error naming it), rebuilds the protocol request each chosen seat received at each of its
decisions (`arena.referee.wire.request_message`), and encodes it with `protocol.features`.
Only that request goes into a row: what the seat could see, never the other hands. Passes
the referee made for an `auto_pass` seat (nothing to decide) have no row. `Rows` is the
builder; it also takes requests straight from live games (see bots/imitation/train.py).

The output is one numpy `.npz` (`np.load` reads it; every 1-D column is a pandas column:
`pd.DataFrame({k: v for k, v in np.load(f).items() if v.ndim == 1})`) and, beside it, a
`.schema.json` describing each column and the encoding's layout (`SCHEMA` below).
`arena.env.dataset` unpacks the rows and rebuilds every step of each decision.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from arena.errors import ArenaError, ConfigError
from arena.referee import wire
from arena.referee.record import GameRecord, Termination, resimulate
from arena.rules import Game
from arena.tournament.records import read_record
from arena.tournament.store import Store
from protocol import features
from protocol.features import CALL, CARD_IDS, KINDS, Steps

FORMAT = 1
MAX_STEPS = 4  # a Tichu call and three exchange cards, or a call, a play and its wish

ROW_COLUMNS: dict[str, tuple[str, str]] = {  # name: (dtype and shape, meaning)
    "obs_bits": ("uint8 [rows, 85]", "np.packbits of the encoding's N_BITS 0/1 features "
                 "(bit order big, as np.unpackbits reads it), at the decision's first step"),
    "obs_nums": ("int32 [rows, 15]", "the raw values of the encoding's NUM_FIELDS"),
    "mask": ("uint8 [rows, 93]", "np.packbits of the first step's action mask (N_ACTIONS)"),
    "steps": ("int16 [rows, 4]", "the discrete actions of the decision's steps, -1 padded"),
    "action": ("int16 [rows]", "the main action: the first step that is not a Tichu call"),
    "call_tichu": ("bool [rows]", "Tichu called with this decision (the CALL step)"),
    "wish": ("int8 [rows]", "the wished rank 2..14 with a Mah Jong play, 0 for none"),
    "cards": ("uint8 [rows, 7]", "np.packbits of the 56 card ids played (or given, for an "
              "exchange); all zero otherwise"),
    "option": ("int16 [rows]", "index of the action in the request's options; -1 for an "
               "exchange (no options)"),
    "n_options": ("int32 [rows]", "number of options the request offered (0: exchange)"),
    "canonical": ("bool [rows]", "the action is the one the environment plays for its steps "
                  "(false: the same shape with other suits, or another card for the Phoenix)"),
    "kind": ("int8 [rows]", "the decision kind, index into KINDS"),
    "game": ("int32 [rows]", "index into the game_* columns"),
    "entrant": ("int16 [rows]", "index into entrants: who made the decision"),
    "seat": ("int8 [rows]", "the seat, 0..3 (team = seat % 2)"),
    "round": ("int16 [rows]", "the round number, from 1"),
    "decision": ("int32 [rows]", "index of the decision in its game record"),
    "latency_ms": ("float32 [rows]", "the time the seat took, as the referee measured it"),
    "round_points_own": ("int16 [rows]", "card points and call bonuses of the seat's team in "
                         "this round"),
    "round_points_other": ("int16 [rows]", "the same for the other team"),
    "score_own": ("int32 [rows]", "the seat's team's final score of the game"),
    "score_other": ("int32 [rows]", "the other team's final score"),
    "won": ("int8 [rows]", "1: the seat's team won the game, 0: it lost"),
}
GAME_COLUMNS: dict[str, tuple[str, str]] = {
    "game_id": ("str [games]", "the game's id in the store"),
    "game_seed": ("int64 [games]", "the engine seed of its deals"),
    "game_target": ("int32 [games]", "its target score"),
    "game_entrants": ("int16 [games, 2]", "team 0's and team 1's entrant (with mixed partners, "
                      "seat 0's and seat 1's; index into "
                      "entrants)"),
    "entrants": ("str [entrants]", "entrant keys (name@version)"),
}


def schema() -> dict[str, Any]:
    """The JSON schema written beside every export: columns and the encoding's layout."""
    return {
        "format": FORMAT,
        "rows": "one per decision a chosen seat was asked (auto passes excluded)",
        "columns": {k: {"type": t, "meaning": m} for k, (t, m) in
                    {**ROW_COLUMNS, **GAME_COLUMNS}.items()},
        "encoding": {
            "module": "protocol.features (documented in protocol/FEATURES.md)",
            "bits": [{"name": n, "offset": features.BIT[n], "size": s}
                     for n, s in features.BIT_FIELDS],
            "nums": [{"name": n, "offset": features.NUM[n], "size": s, "scale": sc,
                      "low": lo, "high": hi} for n, s, sc, lo, hi in features.NUM_FIELDS],
            "kinds": list(KINDS),
            "n_actions": features.N_ACTIONS,
            "actions": {"pass": features.PASS, "call": features.CALL,
                        "give_next": features.GIVE_NEXT, "give_prev": features.GIVE_PREV,
                        "wish_none": features.WISH_NONE, "card_base": features.CARD_BASE,
                        "play_base": features.PLAY_BASE,
                        "play_keys": [list(k) for k in features.PLAY_KEYS]},
        },
    }


class Rows:
    """Accumulates decision rows, game by game: `start_game`, `add` per decision,
    `end_game` with the outcome; then `arrays()` or `save(path)`."""

    def __init__(self) -> None:
        self._rows: dict[str, list[Any]] = {k: [] for k in ROW_COLUMNS}
        self._games: dict[str, list[Any]] = {"game_id": [], "game_seed": [],
                                             "game_target": [], "game_entrants": []}
        self._entrants: dict[str, int] = {}
        self._game_start = 0
        self._seats: list[int] = []  # the entrant index of each seat of the open game

    def __len__(self) -> int:
        return len(self._rows["action"])

    @property
    def games(self) -> int:
        return len(self._games["game_id"])

    def entrant_index(self, key: str) -> int:
        return self._entrants.setdefault(key, len(self._entrants))

    def start_game(self, game_id: str, seed: int, target: int, teams: Sequence[str],
                   seats: Sequence[str] | None = None) -> None:
        """Open a game whose team 0 and team 1 are the entrants `teams` (with mixed partners,
        `seats` names each seat's entrant, and `teams` those of seats 0 and 1)."""
        games = self._games
        games["game_id"].append(game_id)
        games["game_seed"].append(seed)
        games["game_target"].append(target)
        games["game_entrants"].append([self.entrant_index(k) for k in teams])
        self._seats = [self.entrant_index(k) for k in (seats or (*teams, *teams))]
        self._game_start = len(self)

    def add(self, request: dict[str, Any], action: dict[str, Any], call_tichu: bool,
            wish: str | None, latency_ms: float, decision: int) -> None:
        """One decision: the request the seat received and the action it took (an action
        map, as a record stores it; for an option reply, the option)."""
        steps = Steps(request)
        taken = steps.explain(action, call_tichu, wish)
        option = steps.option_of(action)
        replayed = Steps(request)
        for step in taken:
            replayed.step(step)
        chosen = replayed.reply()["option"]
        main = next(a for a in taken if not (a == CALL and request["kind"] in
                                             ("exchange", "play", "bomb")))
        seat = request["observation"]["seat"]
        cards = action.get("cards") or action.get("give") or ()
        card_bits = np.zeros(56, np.uint8)
        card_bits[[CARD_IDS[c] for c in cards]] = 1
        row = self._rows
        row["obs_bits"].append(np.packbits(steps.bits))
        row["obs_nums"].append(steps.nums)
        row["mask"].append(np.packbits(steps.mask.astype(np.uint8)))
        row["steps"].append(taken + [-1] * (MAX_STEPS - len(taken)))
        row["action"].append(main)
        row["call_tichu"].append(call_tichu)
        row["wish"].append(wire.rank_value(wish))
        row["cards"].append(np.packbits(card_bits))
        row["option"].append(-1 if option is None else option)
        row["n_options"].append(len(request["options"] or ()))
        row["canonical"].append(option is None or chosen == option)
        row["kind"].append(KINDS.index(request["kind"]))
        row["game"].append(self.games - 1)
        row["entrant"].append(self._seats[seat])
        row["seat"].append(seat)
        row["round"].append(request["observation"]["round"])
        row["decision"].append(decision)
        row["latency_ms"].append(latency_ms)

    def end_game(self, round_points: Sequence[tuple[int, int]], scores: Sequence[int],
                 winner: int | None) -> None:
        """The outcome of the open game: each round's points per team, the final scores, the
        winning team (None: neither, each row then has won 0)."""
        row = self._rows
        for i in range(self._game_start, len(self)):
            team = row["seat"][i] & 1
            points = round_points[row["round"][i] - 1]
            row["round_points_own"].append(points[team])
            row["round_points_other"].append(points[1 - team])
            row["score_own"].append(scores[team])
            row["score_other"].append(scores[1 - team])
            row["won"].append(int(winner == team))

    def arrays(self) -> dict[str, np.ndarray]:
        """Every column as a numpy array (see ROW_COLUMNS and GAME_COLUMNS)."""
        if len(self._rows["won"]) != len(self):
            raise ArenaError("a game was started and not ended")
        out: dict[str, np.ndarray] = {}
        for name, (spec, _) in ROW_COLUMNS.items():
            dtype, shape = spec.split(" ", 1)
            width = [int(shape.split(",")[1].strip(" ]"))] if "," in shape else []
            values = self._rows[name]
            out[name] = (np.array(values, dtype) if values
                         else np.zeros([0] + width, dtype))
        games = self._games
        out["game_id"] = np.array(games["game_id"], str)
        out["game_seed"] = np.array(games["game_seed"], np.int64)
        out["game_target"] = np.array(games["game_target"], np.int32)
        out["game_entrants"] = np.array(games["game_entrants"], np.int16).reshape(-1, 2)
        out["entrants"] = np.array(list(self._entrants), str)
        return out

    def save(self, path: str | Path) -> int:
        """Write the .npz and its .schema.json; the .npz's size in bytes."""
        path = Path(path)
        if path.suffix != ".npz":
            raise ConfigError(f"{path}: the export file must end in .npz")
        path.parent.mkdir(parents=True, exist_ok=True)
        arrays = self.arrays()
        with path.open("wb") as out:
            np.savez_compressed(out, format=np.array(FORMAT), **arrays)  # type: ignore[arg-type]  # numpy's stub: **arrays vs allow_pickle
        schema_path(path).write_text(json.dumps(schema(), indent=1) + "\n")
        return path.stat().st_size


def schema_path(path: Path) -> Path:
    return path.with_suffix(".schema.json")


# ----- from records ---------------------------------------------------------------------------

def add_record(rows: Rows, record: GameRecord, teams: Sequence[str], seats: Iterable[int],
               source: str, entrants: Sequence[str] | None = None) -> int:
    """Add the decisions of `seats` in one finished game; the decisions added. `entrants`:
    with mixed partners, the entrant of each seat.

    ArenaError naming `source` if the record does not replay through the engine.
    """
    try:
        resimulate(record)
    except ArenaError as exc:
        raise ArenaError(f"{source}: {exc}") from None
    wanted = set(seats)
    game = Game(record.seed, record.target)
    rows.start_game(record.game_id, record.seed, record.target, teams, entrants)
    added = 0
    for i, d in enumerate(record.decisions):
        seat = d["seat"]
        decision = game.decision(seat)
        reply = {"option": None, "action": d["action"], "call_tichu": d["call_tichu"],
                 "wish": d["wish"]}
        if seat in wanted and not d.get("auto"):
            request = wire.request_message(decision, game.observation(seat), [], d["id"], 0)
            rows.add(request, d["action"], d["call_tichu"], d["wish"], d["latency_ms"], i)
            added += 1
        game.apply(seat, wire.action_from_reply(reply, decision))
    round_points = [tuple(e["card_points"][t] + e["calls"][t] for t in (0, 1))
                    for e in record.events if e["kind"] == "round_end"]
    rows.end_game(round_points, record.scores, record.winner)
    return added


@dataclass(frozen=True)
class ExportFigures:
    """What one export wrote, and how fast."""

    games: int
    skipped: int  # stored games left out: not finished normally
    rows: int
    bytes: int
    seconds: float

    def lines(self) -> list[str]:
        per_game = self.bytes / self.games if self.games else 0.0
        rate = self.rows / self.seconds if self.seconds else 0.0
        lines = [f"games:     {self.games} exported"
                 + (f", {self.skipped} skipped (not finished normally)" if self.skipped else ""),
                 f"decisions: {self.rows} rows, {rate:.0f} decisions/s",
                 f"size:      {self.bytes / 1e6:.2f} MB ({per_game * 1000 / 1e6:.1f} MB per "
                 f"1,000 games, {self.bytes / max(self.rows, 1):.0f} bytes per decision)"]
        return lines


def export_store(storage: str | Path, out: str | Path, entrants: Sequence[str] = (),
                 max_games: int | None = None) -> ExportFigures:
    """Export the stored games of a tournament store to `out` (.npz); see the module.

    `entrants`: entrant keys or bot names (a name takes all its versions) whose seats are
    exported; empty: every seat. ConfigError for an unknown entrant or a store with no games.
    """
    start = time.perf_counter()
    rows = Rows()
    skipped = 0
    with Store(storage, create=False) as store:
        wanted = _entrant_keys(store, entrants)
        chosen = [g for g in store.games() if wanted is None or set(g.seats) & wanted]
        if not chosen:
            raise ConfigError(f"{store.path}: no stored game to export"
                              + (" for those entrants" if wanted is not None else ""))
        for game in chosen:
            if max_games is not None and rows.games >= max_games:
                break
            if game.termination != Termination.NORMAL.value:
                skipped += 1
                continue
            path = store.record_path(game.record)
            seats = [s for s in range(4) if wanted is None or game.seats[s] in wanted]
            add_record(rows, read_record(path), game.teams, seats, str(path),
                       None if game.partners is None else game.seats)
    size = rows.save(out)
    return ExportFigures(rows.games, skipped, len(rows), size, time.perf_counter() - start)


def _entrant_keys(store: Store, names: Sequence[str]) -> set[str] | None:
    if not names:
        return None
    rows = store.entrants()
    keys: set[str] = set()
    for name in names:
        matched = {e.key for e in rows if name in (e.key, e.name)}
        if not matched:
            known = ", ".join(sorted({e.name for e in rows})) or "none"
            raise ConfigError(f"{store.path}: no entrant named {name!r} (entrants: {known})")
        keys |= matched
    return keys
