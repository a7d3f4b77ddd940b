"""Tables over the standings: terminal, markdown, HTML (tabulate), CSV (csv) and JSON (json).

Every function takes `fmt`, one of FORMATS, and returns a string. The human formats show
rounded, formatted figures; CSV and JSON carry the numbers for machines. Entrant display names
and versions come from the caller as `labels`: entrant key -> (name, version); a key missing
from it is shown as itself with no version.
"""

from __future__ import annotations

import csv
import html
import io
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tabulate import tabulate

from arena.ratings.fit import ForfeitKind
from arena.ratings.sprt import SprtResult
from arena.ratings.standings import MatchupSummary, Standings

FORMATS = ("terminal", "markdown", "html", "csv", "json")
_TABLEFMT = {"terminal": "simple", "markdown": "github", "html": "html"}

Labels = Mapping[str, tuple[str, str]]


@dataclass(frozen=True)
class _Column:
    """One column: machine key (CSV, JSON), human header, formatter, alignment."""

    key: str
    header: str
    show: Callable[[Any], str] = str
    align: str = "right"


def _fixed(digits: int) -> Callable[[Any], str]:
    return lambda v: "" if v is None else f"{v:.{digits}f}"


def _signed(v: Any) -> str:
    return "" if v is None else f"{v:+.1f}"


def _check(fmt: str) -> None:
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}: expected one of {', '.join(FORMATS)}")


def _name(labels: Labels | None, key: str) -> str:
    return (labels or {}).get(key, (key, ""))[0]


def _version(labels: Labels | None, key: str) -> str:
    return (labels or {}).get(key, (key, ""))[1]


def _full_name(labels: Labels | None, key: str) -> str:
    version = _version(labels, key)
    return f"{_name(labels, key)} {version}" if version else _name(labels, key)


def _title(title: str, fmt: str) -> str:
    if fmt == "markdown":
        return f"#### {title}\n"
    if fmt == "html":
        return f"<h4>{html.escape(title)}</h4>\n"
    return f"{title}\n"


def _human(rows: Sequence[Mapping[str, Any]], columns: Sequence[_Column], fmt: str) -> str:
    body = [[c.show(row[c.key]) for c in columns] for row in rows]
    return tabulate(body, headers=[c.header for c in columns], tablefmt=_TABLEFMT[fmt],
                    disable_numparse=True, colalign=[c.align for c in columns])


def _csv(rows: Sequence[Mapping[str, Any]], keys: Sequence[str]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(keys), lineterminator="\n",
                            extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def _json(payload: Any) -> str:
    return json.dumps(payload, indent=2, sort_keys=False) + "\n"


def _round(v: float | None, digits: int = 3) -> float | None:
    return None if v is None else round(v, digits)


# --- Standings -----------------------------------------------------------------------------

def _standings_rows(standings: Standings, labels: Labels | None) -> list[dict[str, Any]]:
    fit, boot = standings.fit, standings.bootstrap
    rated = fit.ranking()
    unrated = sorted(set(standings.stats) - set(rated))
    rows = []
    for rank, key in enumerate(list(rated) + unrated, start=1):
        stats = standings.stats.get(key)
        has = key in fit.elo
        row: dict[str, Any] = {
            "rank": rank if has else None, "entrant": key, "name": _name(labels, key),
            "version": _version(labels, key),
            "elo": _round(fit.elo[key]) if has else None,
            "minus": _round(fit.interval(key)) if has else None,
            "plus": _round(fit.interval(key)) if has else None,
            "games": stats.games if stats else 0, "wins": stats.wins if stats else 0,
            "win_pct": _round(100.0 * stats.win_rate) if stats else None,
            "margin": _round(stats.score_margin) if stats else None,
            "void_games": stats.void_games if stats else 0,
            "incremental_elo": _round(standings.incremental.get(key)),
        }
        for kind in ForfeitKind:
            row[kind.value] = stats.forfeits.get(kind, 0) if stats else 0
        if boot is not None:
            row["boot_minus"] = _round(fit.elo[key] - boot.low[key]) if has else None
            row["boot_plus"] = _round(boot.high[key] - fit.elo[key]) if has else None
        rows.append(row)
    return rows


def _standings_columns(rows: Sequence[Mapping[str, Any]], bootstrap: bool) -> list[_Column]:
    columns = [
        _Column("rank", "Rank", lambda v: "-" if v is None else str(v)),
        _Column("name", "Entrant", align="left"), _Column("version", "Version", align="left"),
        _Column("elo", "Elo", _fixed(1)), _Column("minus", "-95%", _fixed(1)),
        _Column("plus", "+95%", _fixed(1)),
    ]
    if bootstrap:
        columns += [_Column("boot_minus", "boot -95%", _fixed(1)),
                    _Column("boot_plus", "boot +95%", _fixed(1))]
    columns += [_Column("games", "Games"), _Column("wins", "Wins"),
                _Column("win_pct", "Win %", _fixed(1)), _Column("margin", "Margin", _signed)]
    # Only the kinds that happened, to keep the table narrow; CSV and JSON carry all of them.
    columns += [_Column(k.value, k.value.replace("_", " ")) for k in ForfeitKind
                if any(row[k.value] for row in rows)]
    columns.append(_Column("incremental_elo", "K-Elo", _fixed(1)))
    return columns


def standings_table(standings: Standings, labels: Labels | None = None,
                    fmt: str = "terminal") -> str:
    """The ranking: rank, entrant, version, Elo, -/+ 95%, games, wins, win %, mean score
    margin per game, forfeits by kind, and incremental K-factor Elo as a secondary column.

    Entrants with only void games come last, unranked. JSON also names the anchor and prior.
    """
    _check(fmt)
    rows = _standings_rows(standings, labels)
    fit = standings.fit
    if fmt == "json":
        for row in rows:
            row["forfeits"] = {k.value: row.pop(k.value) for k in ForfeitKind}
        return _json({"anchor": fit.anchor, "anchor_elo": fit.anchor_elo, "prior": fit.prior,
                      "pairs": fit.pairs, "games": fit.games,
                      "bootstrap_replicates": standings.bootstrap.replicates
                      if standings.bootstrap else 0, "standings": rows})
    if fmt == "csv":
        keys = ["rank", "entrant", "name", "version", "elo", "minus", "plus"]
        keys += ["boot_minus", "boot_plus"] if standings.bootstrap else []
        keys += ["games", "wins", "win_pct", "margin", *[k.value for k in ForfeitKind],
                 "void_games", "incremental_elo"]
        return _csv(rows, keys)
    return _human(rows, _standings_columns(rows, standings.bootstrap is not None), fmt) + "\n"


# --- Crosstable and LOS matrix -------------------------------------------------------------

def _matrix_rows(standings: Standings, labels: Labels | None,
                 cell: Callable[[str, str], str]) -> tuple[list[list[str]], list[str]]:
    order = standings.ranking()
    headers = ["", *[str(k) for k in range(1, len(order) + 1)]]
    body = [[f"{r}. {_full_name(labels, a)}", *[cell(a, b) for b in order]]
            for r, a in enumerate(order, start=1)]
    return body, headers


def matrix_tables(standings: Standings, labels: Labels | None = None,
                  fmt: str = "terminal") -> str:
    """The head-to-head crosstable (row's wins-losses against column) and the LOS matrix
    (probability, in %, that row is stronger than column), rows and columns in rank order.

    CSV is long-form: one line per ordered matchup that was played or rated.
    """
    _check(fmt)
    fit, h2h, order = standings.fit, standings.head_to_head, standings.ranking()
    if fmt in ("json", "csv"):
        rows = [{"entrant": a, "opponent": b, "wins": h2h.get((a, b), (0, 0))[0],
                 "losses": h2h.get((a, b), (0, 0))[1], "los": round(fit.los(a, b), 4)}
                for a in order for b in order if a != b]
        if fmt == "csv":
            return _csv(rows, ["entrant", "opponent", "wins", "losses", "los"])
        return _json({"ranking": list(order),
                      "head_to_head": {a: {r["opponent"]: [r["wins"], r["losses"]]
                                           for r in rows if r["entrant"] == a} for a in order},
                      "los": {a: {r["opponent"]: r["los"] for r in rows if r["entrant"] == a}
                              for a in order}})

    def crosstable_cell(a: str, b: str) -> str:
        return "" if a == b or (a, b) not in h2h else "{}-{}".format(*h2h[(a, b)])

    def los_cell(a: str, b: str) -> str:
        return "" if a == b else f"{100.0 * fit.los(a, b):.0f}"

    parts = []
    for title, cell in (("Head to head: row's wins-losses against column", crosstable_cell),
                        ("Likelihood of superiority, %: row stronger than column", los_cell)):
        body, headers = _matrix_rows(standings, labels, cell)
        align = ["left"] + ["right"] * len(order)
        table = tabulate(body, headers=headers, tablefmt=_TABLEFMT[fmt], disable_numparse=True,
                         colalign=align)
        parts.append(_title(title, fmt) + table + "\n")
    return "\n".join(parts)


# --- Matchups ------------------------------------------------------------------------------

_MATCHUP_COLUMNS = [
    _Column("a", "Entrant", align="left"), _Column("b", "Opponent", align="left"),
    _Column("pairs", "Pairs"), _Column("both_lost", "Both lost"), _Column("split", "Split"),
    _Column("both_won", "Both won"), _Column("incomplete", "Incomplete"),
    _Column("games", "Games"), _Column("score_pct", "Score %", _fixed(1)),
    _Column("elo_difference", "Elo diff", _signed), _Column("interval", "+/-95%", _fixed(1)),
    _Column("los", "LOS %", lambda v: f"{100.0 * v:.1f}"),
]


def matchup_table(matchups: Sequence[MatchupSummary], labels: Labels | None = None,
                  fmt: str = "terminal") -> str:
    """Per matchup, from the higher-ranked entrant's side: pair outcomes (both lost, split,
    both won), games won-lost and score, Elo difference with its 95% interval, and LOS."""
    _check(fmt)
    machine = fmt in ("json", "csv")
    rows = [{"a": m.a if machine else _full_name(labels, m.a),
             "b": m.b if machine else _full_name(labels, m.b),
             "pairs": m.pairs, "both_lost": m.both_lost, "split": m.split,
             "both_won": m.both_won, "incomplete": m.incomplete,
             "games": f"{m.wins}-{m.losses}", "wins": m.wins, "losses": m.losses,
             "score_pct": _round(100.0 * m.score), "elo_difference": _round(m.elo_difference),
             "interval": _round(m.interval), "los": round(m.los, 4)} for m in matchups]
    keys = ["a", "b", "pairs", "both_lost", "split", "both_won", "incomplete", "wins",
            "losses", "score_pct", "elo_difference", "interval", "los"]
    if fmt == "json":
        return _json({"matchups": [{k: row[k] for k in keys} for row in rows]})
    if fmt == "csv":
        return _csv(rows, keys)
    return _human(rows, _MATCHUP_COLUMNS, fmt) + "\n"


# --- SPRT ----------------------------------------------------------------------------------

def sprt_table(result: SprtResult, a: str, b: str, labels: Labels | None = None,
               fmt: str = "terminal") -> str:
    """The state of a sequential test of a against b, as a two-column table."""
    _check(fmt)
    both_lost, split, both_won = result.counts
    fields = {"entrant": a, "opponent": b, "elo0": result.elo0, "elo1": result.elo1,
              "alpha": result.alpha, "beta": result.beta, "pairs": result.pairs,
              "both_lost": both_lost, "split": split, "both_won": both_won,
              "llr": round(result.llr, 4), "lower": round(result.lower, 4),
              "upper": round(result.upper, 4), "decision": result.decision.value}
    if fmt == "json":
        return _json(fields)
    if fmt == "csv":
        return _csv([fields], list(fields))
    body = [["Test", f"{_full_name(labels, a)} vs {_full_name(labels, b)}"],
            ["Hypotheses", f"H0: {result.elo0:+.1f} Elo, H1: {result.elo1:+.1f} Elo"],
            ["alpha, beta", f"{result.alpha:g}, {result.beta:g}"],
            ["Pairs", str(result.pairs)],
            ["Both lost / split / both won", f"{both_lost} / {split} / {both_won}"],
            ["LLR", f"{result.llr:.2f} ({result.lower:.2f}, {result.upper:.2f})"],
            ["Decision", result.decision.value]]
    return tabulate(body, headers=["SPRT", ""], tablefmt=_TABLEFMT[fmt],
                    disable_numparse=True) + "\n"
