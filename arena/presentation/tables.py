"""Tables over the standings: terminal, markdown, HTML (tabulate), CSV (csv) and JSON (json).

Every function takes `fmt`, one of FORMATS, and returns a string. The human formats show
rounded, formatted figures with notes under the tables; CSV and JSON carry the numbers for
machines (and the same facts: bounds, scale, notes). Entrant display names and versions come
from the caller as `labels`: entrant key -> (name, version); a key missing from it is shown as
itself with no version.

Every cell and note is escaped for its format (`arena.presentation.safe`): terminal text shows
control characters as escapes, markdown cells escape markdown's syntax, HTML is escaped, CSV
text cells cannot start a formula; JSON escapes by itself.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tabulate import tabulate

from arena.faults import ForfeitKind
from arena.presentation.notes import (
    INTERVAL_METHOD,
    Labels,
    column_notes,
    full_name,
    name,
    number,
    rating,
    scale_text,
    shown_rating,
    standings_notes,
    synergy_notes,
    version,
)
from arena.presentation.safe import csv_cell, html_text, markdown_cell, terminal
from arena.ratings.model import Bound
from arena.ratings.sprt import SprtResult, sprt_summary
from arena.ratings.standings import MatchupSummary, Standings
from arena.ratings.synergy import Synergy, SynergyTable

FORMATS = ("terminal", "markdown", "html", "csv", "json")
_TABLEFMT = {"terminal": "simple", "markdown": "github", "html": "html"}


@dataclass(frozen=True)
class _Column:
    """One column: machine key (CSV, JSON), human header, formatter, alignment."""

    key: str
    header: str
    show: Callable[[Any], str] = str
    align: str = "right"


def _fixed(digits: int) -> Callable[[Any], str]:
    return lambda v: number(v, digits)


def _signed(v: Any) -> str:
    return number(v, signed=True)


def _check(fmt: str) -> None:
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}: expected one of {', '.join(FORMATS)}")


_name, _version, _full_name = name, version, full_name


def _title(title: str, fmt: str) -> str:
    if fmt == "markdown":
        return f"#### {markdown_cell(title)}\n"
    if fmt == "html":
        return f"<h4>{html_text(title)}</h4>\n"
    return f"{terminal(title)}\n"


def _text(text: str, fmt: str) -> str:
    """A cell or note of a human format, escaped for it: a name or version (which a bot's
    author writes) shows as text. HTML cells are escaped by tabulate itself."""
    return markdown_cell(text) if fmt == "markdown" else terminal(text)


def _tabulate(body: Sequence[Sequence[str]], headers: Sequence[str], fmt: str,
              colalign: Sequence[str]) -> str:
    """tabulate over escaped cells: no cell can add a column, a row or a control sequence."""
    return tabulate([[_text(c, fmt) for c in row] for row in body],
                    headers=[_text(h, fmt) for h in headers], tablefmt=_TABLEFMT[fmt],
                    disable_numparse=True, colalign=colalign)


def _human(rows: Sequence[Mapping[str, Any]], columns: Sequence[_Column], fmt: str) -> str:
    body = [[c.show(row[c.key]) for c in columns] for row in rows]
    return _tabulate(body, [c.header for c in columns], fmt, [c.align for c in columns])


def _csv(rows: Sequence[Mapping[str, Any]], keys: Sequence[str]) -> str:
    """CSV of `rows`; a text cell that a spreadsheet would take for a formula is escaped
    (`csv_cell`), numbers are written as they are."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(keys), lineterminator="\n",
                            extrasaction="ignore")
    writer.writeheader()
    writer.writerows({k: csv_cell(v) for k, v in row.items()} for row in rows)
    return out.getvalue()


def _json(payload: Any) -> str:
    return json.dumps(payload, indent=2, sort_keys=False) + "\n"


def _round(v: float | None, digits: int = 3) -> float | None:
    """Rounded for machines: None stays None, -0.0 becomes 0.0; nan and inf become None
    (JSON has no such numbers; the row's `bound` says why)."""
    if v is None or not math.isfinite(v):
        return None
    return round(v, digits) + 0.0


# --- Standings -----------------------------------------------------------------------------

def _standings_rows(standings: Standings, labels: Labels | None) -> list[dict[str, Any]]:
    ranks = standings.ranks()
    rows = []
    for key in standings.entrants:
        stats = standings.stats.get(key)
        fit = standings.fit_of(key)
        boot = standings.bootstrap_of(key)
        rank = ranks.get(key)
        bound = fit.bounds.get(key) if fit else None
        estimate = fit is not None and bound is None
        row: dict[str, Any] = {
            "rank": rank.position if rank else None,
            "shared_rank": rank.shared if rank else False,
            "group": rank.group + 1 if rank else None,
            "entrant": key, "name": _name(labels, key), "version": _version(labels, key),
            "elo": _round(fit.elo[key]) if fit else None,
            "_elo": fit.elo[key] if fit else None,
            "bound": bound.value if bound else "",
            "ci95": _round(fit.interval(key)) if fit is not None and estimate else None,
            "confidence_bound": (_round(fit.confidence_bounds.get(key))
                                 if fit is not None and bound else None),
            "games": stats.games if stats else 0, "wins": stats.wins if stats else 0,
            "win_pct": _round(100.0 * stats.win_rate) if stats and stats.games else None,
            "margin": _round(stats.score_margin) if stats and stats.games else None,
            "void_games": stats.void_games if stats else 0,
            "harness_voided": stats.harness_voided if stats else 0,
            "incremental_elo": _round(standings.incremental.get(key)),
            "scale": scale_text(standings, key, labels),
            "anchor": fit is not None and fit.anchor == key,
        }
        for kind in ForfeitKind:
            row[kind.value] = stats.forfeits.get(kind, 0) if stats else 0
        if standings.bootstraps:
            usable = boot if estimate and boot is not None and key in boot.low else None
            row["boot_low"] = _round(usable.low[key]) if usable is not None else None
            row["boot_high"] = _round(usable.high[key]) if usable is not None else None
        rows.append(row)
    return rows


def _human_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows with the display-only cells: marked ratings, ranks, bootstrap ranges."""
    shown = []
    for row in rows:
        bound = Bound(row["bound"]) if row["bound"] else None
        cells = dict(row)
        cells["rank_text"] = "-" if row["rank"] is None else \
            ("=" if row["shared_rank"] else "") + str(row["rank"])
        cells["elo_text"] = "" if row["_elo"] is None else \
            shown_rating(row["_elo"], bound, row["confidence_bound"])
        cells["ci_text"] = _ci_text(row, bound)
        if "boot_low" in row:
            cells["boot_text"] = "" if row["boot_low"] is None else \
                f"{number(row['boot_low'])} to {number(row['boot_high'])}"
        shown.append(cells)
    return shown


def _ci_text(row: Mapping[str, Any], bound: Bound | None) -> str:
    if row["anchor"]:
        return "anchor"
    if row["ci95"] is not None:
        return number(row["ci95"])
    if bound and row["_elo"] is not None and math.isfinite(row["_elo"]):
        return "one-sided" if row["confidence_bound"] is not None and \
            bound in (Bound.LOWER, Bound.UPPER) else "prior-set"
    return ""


def _standings_columns(rows: Sequence[Mapping[str, Any]], bootstrap: bool,
                       groups: bool) -> list[_Column]:
    columns = [_Column("rank_text", "Rank")]
    if groups:
        columns.append(_Column("group", "Group", lambda v: "" if v is None else str(v)))
    columns += [
        _Column("name", "Entrant", align="left"), _Column("version", "Version", align="left"),
        _Column("elo_text", "Elo"), _Column("ci_text", "±95% CI"),
    ]
    if bootstrap:
        columns.append(_Column("boot_text", "Boot 95% CI"))
    columns += [_Column("games", "Games"), _Column("wins", "Wins"),
                _Column("win_pct", "Win %", _fixed(1)), _Column("margin", "Margin", _signed)]
    # Only the kinds that happened, to keep the table narrow; CSV and JSON carry all of them.
    columns += [_Column(k.value, k.value.replace("_", " ")) for k in ForfeitKind
                if any(row[k.value] for row in rows)]
    # Unrated games, and of them those the harness voided (the referee's own failure).
    columns += [_Column(key, title) for key, title in (("void_games", "Void"),
                                                       ("harness_voided", "Harness faults"))
                if any(row[key] for row in rows)]
    columns.append(_Column("incremental_elo", "K-Elo", _fixed(1)))
    return columns


def _notes_block(lines: Sequence[str], fmt: str) -> str:
    """Notes under a table, in the table's format."""
    if not lines:
        return ""
    if fmt == "markdown":
        return "\n" + "".join(f"- {markdown_cell(line)}\n" for line in lines)
    if fmt == "html":
        items = "".join(f"<li>{html_text(line)}</li>" for line in lines)
        return f'<ul class="notes">{items}</ul>\n'
    return "\nNotes:\n" + "".join(f"- {terminal(line)}\n" for line in lines)


def standings_table(standings: Standings, labels: Labels | None = None,
                    fmt: str = "terminal") -> str:
    """The ranking: rank, entrant, version, Elo, ±95% CI, games, wins, win %, mean score
    margin per game, forfeits by kind, and incremental K-factor Elo as a secondary column,
    with notes under it: the fallbacks taken (missing anchor, separate groups, unrated
    entrants), ratings that are bounds set by the prior, and what the columns mean.

    Ranks are shared by ratings equal once rounded; entrants without rated games come last,
    unranked. CSV carries, per row, the bound and how the rating is placed (`scale`); JSON
    also names the anchor, prior and interval method and carries the notes.
    """
    _check(fmt)
    rows = _standings_rows(standings, labels)
    fit = standings.fit
    notes = standings_notes(standings, labels)
    boot = standings.bootstrap
    if fmt in ("json", "csv"):
        for row in rows:
            row.pop("_elo")
    if fmt == "json":
        for row in rows:
            row["forfeits"] = {k.value: row.pop(k.value) for k in ForfeitKind}
        return _json({"ratings": "individual" if standings.individual else "team",
                      "anchor": fit.anchor, "anchor_requested": standings.anchor,
                      "anchor_elo": fit.anchor_elo, "prior": fit.prior,
                      "interval_method": INTERVAL_METHOD, "pairs": fit.pairs,
                      "games": fit.games, "groups": len(standings.fits),
                      "bootstrap_replicates": boot.replicates if boot else 0,
                      "bootstrap_skipped": boot.skipped if boot else 0,
                      "notes": [{"kind": n.kind.value, "entrants": list(n.entrants),
                                 "text": t} for n, t in zip(standings.notes, notes, strict=True)],
                      "standings": rows})
    if fmt == "csv":
        keys = ["rank", "shared_rank", "group", "entrant", "name", "version", "elo", "bound",
                "ci95", "confidence_bound"]
        keys += ["boot_low", "boot_high"] if standings.bootstraps else []
        keys += ["games", "wins", "win_pct", "margin", *[k.value for k in ForfeitKind],
                 "void_games", "harness_voided", "incremental_elo", "anchor", "scale"]
        return _csv(rows, keys)
    shown = _human_rows(rows)
    columns = _standings_columns(rows, standings.bootstrap is not None, len(standings.fits) > 1)
    lines = notes + column_notes(standings, standings.bootstrap is not None, labels)
    return _human(shown, columns, fmt) + "\n" + _notes_block(lines, fmt)


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

    CSV is long-form: one line per ordered pair of rated entrants (LOS empty across groups).
    """
    _check(fmt)
    h2h, order = standings.head_to_head, standings.ranking()
    if fmt in ("json", "csv"):
        rows = [{"entrant": a, "opponent": b, "wins": h2h.get((a, b), (0, 0))[0],
                 "losses": h2h.get((a, b), (0, 0))[1], "los": _round(standings.los(a, b), 4)}
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
        return "" if a == b else number(100.0 * standings.los(a, b), 0)

    parts = []
    head = ("Head to head: row's team's wins-losses against a team of column"
            if standings.individual else "Head to head: row's wins-losses against column")
    for title, cell in ((head, crosstable_cell),
                        ("Likelihood of superiority, %: row stronger than column", los_cell)):
        body, headers = _matrix_rows(standings, labels, cell)
        align = ["left"] + ["right"] * len(order)
        table = _tabulate(body, headers, fmt, align)
        parts.append(_title(title, fmt) + table + "\n")
    return "\n".join(parts)


# --- Matchups ------------------------------------------------------------------------------

_MATCHUP_COLUMNS = [
    _Column("a", "Entrant", align="left"), _Column("b", "Opponent", align="left"),
    _Column("pairs", "Pairs"), _Column("both_lost", "Both lost"), _Column("split", "Split"),
    _Column("both_won", "Both won"), _Column("incomplete", "Incomplete"),
    _Column("games", "Games"), _Column("score_pct", "Score %", _fixed(1)),
    _Column("diff_text", "Fit Elo diff"), _Column("interval", "±95% CI", _fixed(1)),
    _Column("los", "LOS %", lambda v: number(None if v is None else 100.0 * v)),
]

_MATCHUP_NOTE = ("Fit Elo diff: the difference of the two entrants' fitted ratings, from every "
                 "game of the tournament (not this matchup's games alone, which is why it can "
                 "differ from what the score suggests), with its 95% interval; LOS: the "
                 "probability that the first entrant is the stronger. Both lost / split / both "
                 "won: complete duplicate pairs from the first entrant's side; incomplete: "
                 "pairs with one rated game.")


def matchup_table(matchups: Sequence[MatchupSummary], labels: Labels | None = None,
                  fmt: str = "terminal", standings: Standings | None = None) -> str:
    """Per matchup, from the higher-ranked entrant's side: pair outcomes (both lost, split,
    both won), games won-lost and score, the fitted Elo difference with its 95% interval, and
    LOS; a difference involving a rating set by the prior (from `standings`) is marked as a
    bound and has no interval. A note under the table says what the columns mean."""
    _check(fmt)
    machine = fmt in ("json", "csv")
    bounds = _matchup_bounds(matchups, standings)
    rows = [{"a": m.a if machine else _full_name(labels, m.a),
             "b": m.b if machine else _full_name(labels, m.b),
             "pairs": m.pairs, "both_lost": m.both_lost, "split": m.split,
             "both_won": m.both_won, "incomplete": m.incomplete,
             "games": f"{m.wins}-{m.losses}", "wins": m.wins, "losses": m.losses,
             "score_pct": _round(100.0 * m.score), "elo_difference": _round(m.elo_difference),
             "bound": bound.value if bound else "",
             "diff_text": rating(m.elo_difference, bound, signed=True),
             "interval": None if bound else _round(m.interval),
             "los": _round(m.los, 4)} for m, bound in zip(matchups, bounds, strict=True)]
    keys = ["a", "b", "pairs", "both_lost", "split", "both_won", "incomplete", "wins",
            "losses", "score_pct", "elo_difference", "bound", "interval", "los"]
    note = _MATCHUP_NOTE
    if standings is not None and standings.individual:
        note = ("No matchups with mixed partners: no two entrants play each other alone. See "
                "the head to head (--matrix) and the synergy of each partnership.")
    if fmt == "json":
        return _json({"matchups": [{k: row[k] for k in keys} for row in rows],
                      "note": note})
    if fmt == "csv":
        return _csv(rows, keys)
    return _human(rows, _MATCHUP_COLUMNS, fmt) + "\n" + _notes_block([note], fmt)


def _matchup_bounds(matchups: Sequence[MatchupSummary],
                    standings: Standings | None) -> list[Bound | None]:
    """Per matchup, the bound its difference is (a's rating's, or b's mirrored), if any."""
    if standings is None:
        return [None] * len(matchups)
    flip = {Bound.LOWER: Bound.UPPER, Bound.UPPER: Bound.LOWER,
            Bound.UNDETERMINED: Bound.UNDETERMINED}
    out = []
    for m in matchups:
        fit = standings.fit_of(m.a)
        assert fit is not None  # (a matchup's entrants have rated games)
        a, b = fit.bounds.get(m.a), fit.bounds.get(m.b)
        out.append(None if a == b else a if a else flip[b] if b else None)
    return out


# --- Partnership synergy (mixed partners) -------------------------------------------------

def _flag_text(s: Synergy) -> str:
    if not s.flagged:
        return ""
    return "FLAGGED: above" if s.elo > 0 else "FLAGGED: below"


def _synergy_rows(table: SynergyTable, labels: Labels | None,
                  machine: bool) -> list[dict[str, Any]]:
    rows = []
    for s in table.pairs:
        rows.append({
            "a": s.a if machine else _full_name(labels, s.a),
            "b": s.b if machine else _full_name(labels, s.b),
            "partners": f"{_name(labels, s.a)} & {_name(labels, s.b)}",
            "games": s.games, "wins": s.wins, "losses": s.games - s.wins,
            "record": f"{s.wins}-{s.games - s.wins}",
            "expected_wins": _round(s.expected, 2),
            "synergy": _round(s.elo), "ci95": _round(s.interval), "z": _round(s.z, 2),
            "flagged": s.flagged, "flag": _flag_text(s)})
    return rows


_SYNERGY_COLUMNS = [
    _Column("partners", "Partners", align="left"), _Column("games", "Games"),
    _Column("record", "Won-lost"), _Column("expected_wins", "Expected wins", _fixed(1)),
    _Column("synergy", "Synergy Elo", _signed), _Column("ci95", "±95% CI", _fixed(1)),
    _Column("z", "z", lambda v: number(v, 2, signed=True)), _Column("flag", "Flag", align="left"),
]


def synergy_table(table: SynergyTable, labels: Labels | None = None,
                  fmt: str = "terminal") -> str:
    """Each partnership's synergy (mixed partners): games and record together, the wins the
    individual ratings alone predict, the synergy in Elo with its 95% interval and z-score,
    and a flag for a pair far outside the field (|z| beyond the Bonferroni bound), with
    notes saying what a flag means. Highest z first."""
    _check(fmt)
    machine = fmt in ("json", "csv")
    rows = _synergy_rows(table, labels, machine)
    keys = ["a", "b", "games", "wins", "losses", "expected_wins", "synergy", "ci95", "z",
            "flagged"]
    notes = synergy_notes(table)
    if fmt == "json":
        return _json({"threshold": _round(table.threshold, 3), "prior": table.prior,
                      "flagged": [[s.a, s.b] for s in table.flagged],
                      "notes": notes, "synergy": [{k: row[k] for k in keys} for row in rows]})
    if fmt == "csv":
        return _csv(rows, keys)
    flagged = [f"Flagged: {_name(labels, s.a)} & {_name(labels, s.b)} "
               f"({number(s.elo, signed=True)} ± {number(s.interval)} Elo together, z "
               f"{number(s.z, 2, signed=True)})." for s in table.flagged]
    title = _title("Partnership synergy: how much better each pair does together than its "
                   "ratings predict", fmt)
    if not rows:
        return title + _notes_block(["No partnership has rated games yet."], fmt)
    return (title + _human(rows, _SYNERGY_COLUMNS, fmt) + "\n"
            + _notes_block(flagged + notes, fmt))


# --- SPRT ----------------------------------------------------------------------------------

def sprt_decision_text(result: SprtResult, a: str, b: str) -> str:
    """The decision in plain words."""
    h0, h1 = number(result.elo0, signed=True), number(result.elo1, signed=True)
    if result.decision.value == "H1":
        return (f"H1 accepted: {a} is stronger than {b} by more than {h0} Elo; the pairs "
                f"favour {h1} over {h0} (chance of a false positive at most "
                f"{result.alpha:g}). Stop testing.")
    if result.decision.value == "H0":
        return (f"H0 accepted: {a} is not {h1} Elo stronger than {b}; the pairs favour {h0} "
                f"over {h1} (chance of a false negative at most {result.beta:g}). Stop testing.")
    return (f"Not decided yet: the LLR {number(result.llr, 2, signed=True)} lies between "
            f"{number(result.lower, 2)} (H0) and {number(result.upper, 2, signed=True)} (H1); "
            "play more pairs.")


def _estimate_text(summary: Any) -> str:
    est = summary.estimate
    if est is None:
        return "no complete pairs yet"
    diff = rating(est.elo, est.bound, signed=True)
    if est.bound:
        limit = "" if est.confidence_bound is None else \
            f"; at {'least' if est.bound is Bound.LOWER else 'most'} " \
            f"{number(est.confidence_bound, signed=True)} with 95% confidence"
        return f"{diff} Elo (a perfect record: set by the prior{limit})"
    return f"{diff} ± {number(est.interval)} Elo (95%)"


def sprt_table(result: SprtResult, a: str, b: str, labels: Labels | None = None,
               fmt: str = "terminal") -> str:
    """The state of a sequential test of a against b: the counts, the Elo estimate of its
    pairs with its 95% interval and LOS, the LLR and its progress toward each bound, and the
    decision in plain words."""
    _check(fmt)
    both_lost, split, both_won = result.counts
    summary = sprt_summary(result)
    est = summary.estimate
    name_a, name_b = _full_name(labels, a), _full_name(labels, b)
    verdict = sprt_decision_text(result, _name(labels, a), _name(labels, b))
    fields = {"entrant": a, "opponent": b, "elo0": result.elo0, "elo1": result.elo1,
              "alpha": result.alpha, "beta": result.beta, "pairs": result.pairs,
              "both_lost": both_lost, "split": split, "both_won": both_won,
              "elo": _round(est.elo) if est else None,
              "elo_bound": est.bound.value if est and est.bound else "",
              "elo_ci95": _round(est.interval) if est and not est.bound else None,
              "los": _round(est.los, 4) if est else None,
              "llr": round(result.llr, 4), "lower": round(result.lower, 4),
              "upper": round(result.upper, 4),
              "toward_h0": round(summary.toward_h0, 4), "toward_h1": round(summary.toward_h1, 4),
              "decision": result.decision.value,
              "verdict": verdict}
    if fmt == "json":
        return _json(fields)
    if fmt == "csv":
        return _csv([fields], list(fields))
    progress = (f"{number(result.llr, 2, signed=True)}: {100 * summary.toward_h1:.0f}% of the "
                f"way to H1 at {number(result.upper, 2, signed=True)}, "
                f"{100 * summary.toward_h0:.0f}% of the way to H0 at {number(result.lower, 2)}")
    body = [["Test", f"{name_a} vs {name_b}"],
            ["Hypotheses", f"H0: {result.elo0:+.1f} Elo, H1: {result.elo1:+.1f} Elo"],
            ["alpha, beta", f"{result.alpha:g}, {result.beta:g}"],
            ["Pairs", str(result.pairs)],
            ["Both lost / split / both won", f"{both_lost} / {split} / {both_won}"],
            ["Elo difference", _estimate_text(summary)],
            ["LOS", "" if est is None else f"{number(100 * est.los)}%"],
            ["LLR", progress],
            ["Decision", result.decision.value]]
    table = _tabulate(body, ["SPRT", ""], fmt, ["left", "left"])
    return table + "\n" + _notes_block([verdict], fmt)


def sprt_progress_line(result: SprtResult, games: int, labels: Labels | None, a: str,
                       b: str) -> str:
    """One line of progress while the test plays: pairs, estimate, LLR toward the bounds."""
    summary = sprt_summary(result)
    est = summary.estimate
    elo = "" if est is None else f"  Elo {rating(est.elo, est.bound, signed=True)}" + (
        "" if est.bound else f" ±{number(est.interval, 0)}")
    return terminal(f"{_name(labels, a)} vs {_name(labels, b)}: {games} games played, "
                    f"{result.pairs} pairs{elo}  LLR {number(result.llr, 2, signed=True)} "
                    f"[{number(result.lower, 2)}, {number(result.upper, 2, signed=True)}]  "
                    f"{result.decision.value}")
