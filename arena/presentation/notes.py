"""What the tables say beside the numbers: notes on bounds, groups, a missing anchor, and the
explanations of the columns, as plain sentences (every format prints them).

Also the number formats shared by the tables and the web report: one decimal, no "-0.0",
and ratings set by the prior marked as the bounds they are.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from arena.ratings.model import Bound, RatingFit
from arena.ratings.standings import Note, NoteKind, Standings
from arena.ratings.synergy import SynergyTable

Labels = Mapping[str, tuple[str, str]]

BOUND_MARK = {Bound.LOWER: "≥", Bound.UPPER: "≤", Bound.UNDETERMINED: "~"}
"""Printed before a rating set by the prior."""

INTERVAL_METHOD = ("pair-clustered sandwich (CR3 jackknife correction, floor at 1/10 of the "
                   "independent-games variance), normal 95%")


def name(labels: Labels | None, key: str) -> str:
    return (labels or {}).get(key, (key, ""))[0]


def version(labels: Labels | None, key: str) -> str:
    return (labels or {}).get(key, (key, ""))[1]


def full_name(labels: Labels | None, key: str) -> str:
    v = version(labels, key)
    return f"{name(labels, key)} {v}" if v else name(labels, key)


def number(v: float | None, digits: int = 1, signed: bool = False) -> str:
    """A figure rounded to `digits`, never "-0.0"; "" for None or nan; "+inf"/"-inf"."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if math.isinf(v):
        return "+inf" if v > 0 else "-inf"
    v = round(v, digits) + 0.0  # adding 0.0 turns -0.0 into 0.0
    return f"{v:+.{digits}f}" if signed else f"{v:.{digits}f}"


def shown_rating(elo: float, bound: Bound | None, confidence_bound: float | None) -> str:
    """The rating a table shows: the estimate, or for a rating with no estimate (a perfect or
    zero record) the one-sided 95% bound its record supports, marked >= or <=, so that the
    table and the note under it give one figure; the prior-set figure where there is no such
    bound (or with a zero prior, an infinite figure, shown as such)."""
    if (bound in (Bound.LOWER, Bound.UPPER) and confidence_bound is not None
            and math.isfinite(elo)):
        return rating(confidence_bound, bound)
    return rating(elo, bound)


def rating(v: float, bound: Bound | None, signed: bool = False) -> str:
    """A rating, marked with >=, <= or ~ when it is a bound set by the prior."""
    text = number(v, signed=signed)
    if math.isnan(v):
        return "?"
    if bound and math.isfinite(v):
        return BOUND_MARK[bound] + text
    return text


def standings_notes(standings: Standings, labels: Labels | None) -> list[str]:
    """Sentences for the notes under the standings table (the fallbacks taken, bounds...)."""
    return [note_text(n, standings, labels) for n in standings.notes]


def left_out_note(retired: int, removed: int = 0) -> str | None:
    """The note saying how many games of the listed entrants a table leaves out: those against
    `retired` versions and against bots `removed` from the table (None: none left out)."""
    parts = []
    if retired:
        parts.append(f"{retired} game{'s' if retired != 1 else ''} against retired versions")
    if removed:
        parts.append(f"{removed} game{'s' if removed != 1 else ''} against bots taken out of "
                     "the table")
    if not parts:
        return None
    verb = "is" if retired + removed == 1 else "are"
    return (" and ".join(parts) + f" {verb} not counted: each row counts only the games "
            "between the versions listed.")


def column_notes(standings: Standings, bootstrap: bool, labels: Labels | None = None) -> list[str]:
    """What the columns mean (human formats)."""
    fit = standings.fit
    if standings.individual:
        lines = [f"Individual ratings (mixed partners): a team's Elo is the sum of its "
                 "partners' ratings, so an entrant's rating is what it adds to any team in "
                 "place of an entrant rated 0. ±95% CI: half-width of the 95% interval of the "
                 f"rating, {INTERVAL_METHOD}; Bradley-Terry maximum-likelihood fits on the Elo "
                 f"scale ({_scale(standings, labels)}); prior: {fit.prior:g} virtual draws, "
                 "only between entrants of groups that never lost to each other."]
    else:
        lines = [f"±95% CI: half-width of the 95% interval of the rating, {INTERVAL_METHOD}; "
                 f"ratings are Bradley-Terry maximum-likelihood fits on the Elo scale "
                 f"({_scale(standings, labels)}); prior: {fit.prior:g} virtual draws, only on "
                 "matchups between groups that never lost to each other."]
    if bootstrap:
        lines.append("Boot 95% CI: 2.5th to 97.5th percentile of the rating over bootstrap "
                     "resamples of the pairs (a cross-check).")
    lines.append("Margin: mean of own minus opponent's final score per rated game that ended "
                 "normally (forfeited games left out)."
                 + (" Games, wins and margin are those of the entrant's team; a forfeit is "
                    "counted for the entrant whose seat failed, not for its partner (who loses "
                    "the game with it)." if standings.individual else ""))
    if any(s.void_games for s in standings.stats.values()):
        lines.append("Void: games left out of the rating: no winner and no seat to charge "
                     "(seats of both teams failed together), or in a pair with a harness "
                     "fault. Harness faults: of those, the games of pairs voided by the "
                     "referee's own failure, which no bot caused.")
    lines.append(f"K-Elo: classic incremental Elo (K = {standings.k_factor:g}) over the games "
                 "in schedule order" + (" (each partner moving half its team's change)"
                                        if standings.individual else "")
                 + "; it depends on that order: for comparison only, never the ranking.")
    lines.append("Ranks: ratings are rounded to one decimal before ranking; equal ones share "
                 "a rank (=).")
    return lines


def _scale(standings: Standings, labels: Labels | None) -> str:
    fit = standings.fit
    if fit.anchor is not None:
        return f"anchor {name(labels, fit.anchor)} = {number(fit.anchor_elo)}"
    return f"mean-centred at {number(fit.anchor_elo)}"


def _names(keys: tuple[str, ...] | list[str], labels: Labels | None) -> str:
    return ", ".join(name(labels, k) for k in keys)


def note_text(note: Note, standings: Standings, labels: Labels | None) -> str:
    """One note as a sentence."""
    kind = note.kind
    if kind is NoteKind.ANCHOR_MISSING:
        anchor = note.detail["anchor"]
        who = name(labels, anchor) if note.entrants else anchor
        why = "has no rated games yet" if note.detail["reason"] == "no rated games" else \
            "is not an entrant of this tournament"
        return (f"Not anchored: the anchor {who} {why}; ratings are centred on the mean of the "
                "group that beat each other.")
    if kind is NoteKind.GROUPS:
        groups = note.detail["groups"]
        parts = [f"group {k + 1}: {_names(g, labels)}" for k, g in enumerate(groups)]
        return ("Entrants are not all connected by games: each group is rated on its own scale "
                "(ranks, ratings and LOS compare only within a group): " + "; ".join(parts)
                + ".")
    if kind is NoteKind.BOUND:
        return _bound_text(note, standings, labels)
    if kind is NoteKind.INFINITE:
        return (f"Infinite ratings with a zero prior: {_names(note.entrants, labels)} never "
                "lost (or never won) against the anchor's group; the maximum-likelihood rating "
                "is infinite. Use a prior above 0 for a figure set by the prior.")
    if kind is NoteKind.UNRATED:
        return (f"No rated games yet: {_names(note.entrants, labels)} (listed without a "
                "rating).")
    if kind is NoteKind.SEPARATED:
        return (f"Prior on {note.detail['foursomes']} foursome(s): some foursomes were won (or "
                "lost) in every game in a way that leaves the maximum-likelihood estimate "
                f"without a maximum, so each such foursome got {standings.fit.prior:g} virtual "
                "draws: the ratings are pulled a little toward each other (play more of the "
                "movement to lift this).")
    if kind is NoteKind.BOOTSTRAP_SKIPPED:
        return (f"Bootstrap: {note.detail['skipped']} of {note.detail['replicates']} resamples "
                "could not be fitted (an entrant without games, entrants left unconnected, or "
                "an infinite rating) and were left out.")
    raise ValueError(f"unknown note kind {kind!r}")


def _bound_text(note: Note, standings: Standings, labels: Labels | None) -> str:
    parts = []
    for key in note.entrants:
        fit = standings.fit_of(key)
        assert fit is not None  # (a bounded rating is a rating)
        stats = standings.stats.get(key)
        record = f" ({stats.wins}-{stats.losses})" if stats else ""
        bound = fit.bounds[key]
        limit = fit.confidence_bounds.get(key)
        if bound is Bound.UNDETERMINED or limit is None:
            parts.append(f"{name(labels, key)}{record}")
            continue
        word = "at least" if bound is Bound.LOWER else "at most"
        parts.append(f"{name(labels, key)}{record}: {word} {number(limit, signed=True)} "
                     f"(ranked at {number(fit.elo[key], signed=True)}), "
                     + _group_text(fit, key, labels))
    where = ("between entrants of groups that never lost to each other" if standings.individual
             else "on each matchup between groups that never lost to each other")
    return ("≥/≤: no estimate. The entrant's group (the entrants that beat one another) never "
            "lost a game to the group rated by estimate (≥), or never won one against it (≤); "
            "the entrant may have lost within its group. Its maximum-likelihood rating is then "
            "infinite, with no interval. The rating shown is the one-sided 95% bound the "
            "record alone supports; the order (and the chart) use a figure set by the "
            f"prior ({standings.fit.prior:g} virtual draws {where}): " + "; ".join(parts) + ".")


def _group_text(fit: RatingFit, key: str, labels: Labels | None) -> str:
    """Whom a bounded entrant's group never lost to (or never beat), by name: the entrants
    rated by estimate (at most four named)."""
    group = fit.win_groups.get(key, (key,))
    who = "it" if len(group) == 1 else f"its group ({_names(group, labels)})"
    rated = [name(labels, e) for e in fit.entrants if e not in fit.bounds]
    whom = ", ".join(rated) if len(rated) <= 4 else (
        f"{', '.join(rated[:3])} and the {len(rated) - 3} others rated by estimate")
    verb = "never lost a game to" if fit.bounds[key] is Bound.LOWER else "never beat"
    return f"{who} {verb} {whom}"


def scale_text(standings: Standings, key: str, labels: Labels | None) -> str:
    """How `key`'s rating is placed (machine formats carry it per row)."""
    fit = standings.fit_of(key)
    if fit is None:
        return "unrated"
    group = standings.fits.index(fit) + 1
    where = f"group {group}, " if len(standings.fits) > 1 else ""
    if fit.anchor is not None:
        return f"{where}anchor {name(labels, fit.anchor)} = {number(fit.anchor_elo)}"
    missing = ""
    if standings.anchor is not None:
        missing = f" (anchor {name(labels, standings.anchor)} not rated here)"
    return f"{where}mean-centred at {number(fit.anchor_elo)}{missing}"


def synergy_notes(table: SynergyTable) -> list[str]:
    """What the synergy table says and how far to trust a flag (every format)."""
    count = len(table.pairs)
    return [
        "Synergy: the Elo a team of these two partners gains beyond the sum of their "
        "individual ratings, fitted together with the ratings (the pair's own results do not "
        f"lift its members' ratings), with its pair-clustered 95% interval; {table.prior:g} "
        "virtual games, half won, on each synergy keep a perfect record finite and pull every "
        "synergy a little toward 0. Expected: the wins together that the ratings alone "
        "predict.",
        f"Flagged: |z| (synergy over its standard error) beyond {table.threshold:.2f}, the "
        f"Bonferroni bound for {count} partnership{'s' if count != 1 else ''} at 5%: in a "
        "field without synergy, at most one tournament in twenty shows a flag. A pair flagged "
        "above does far better together than the field's partnerships: two programs that "
        "signal to each other through their plays (no isolation of processes can stop that), "
        "or two styles that suit each other; below, two that clash."]
