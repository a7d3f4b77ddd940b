"""The note of a rating with no estimate says why in words and names the group (issue 48, item
8): the entrant's group, by name, never lost to the entrants rated by estimate, by name. A
record with losses inside its group is not 'perfect'."""

from __future__ import annotations

from arena.presentation.notes import standings_notes
from arena.ratings.model import Bound
from arena.ratings.standings import compute_standings
from tests.ratings.helpers import single_games


def test_a_bound_with_losses_inside_its_group_is_explained_not_called_perfect() -> None:
    games = (single_games("a", "b", 12, 4) + single_games("a", "c", 20, 0)
             + single_games("b", "c", 20, 0) + single_games("c", "d", 10, 10))
    standings = compute_standings(games, anchor="d")
    assert standings.fit.bounds.get("a") is Bound.LOWER  # 32-4: lost only to b, its group
    note = next(n for n in standings_notes(standings, None) if n.startswith("≥/≤"))
    assert "perfect" not in note
    assert "never lost a game to the group rated by estimate (≥)" in note
    assert "a (32-4): at least" in note
    assert "(ranked at +630.0), its group (a, b) never lost a game to c, d;" in note


def test_a_lone_entrant_that_never_won_is_named_with_whom_it_never_beat() -> None:
    games = (single_games("a", "b", 12, 4) + single_games("b", "c", 10, 10)
             + single_games("e", "b", 0, 20) + single_games("e", "c", 0, 10))
    standings = compute_standings(games, anchor="c")
    assert standings.fit.bounds.get("e") is Bound.UPPER
    assert standings.fit.win_groups == {"e": ("e",)}
    note = next(n for n in standings_notes(standings, None) if n.startswith("≥/≤"))
    assert "e (0-30): at most" in note and note.endswith(", it never beat a, b, c.")


def test_a_long_group_rated_by_estimate_is_named_by_its_first_three() -> None:
    field = ["p", "q", "r", "s", "t"]
    games = [g for x, y in zip(field, field[1:] + field[:1], strict=True)
             for g in single_games(x, y, 6, 4)]
    games += single_games("top", "p", 10, 0)
    standings = compute_standings(games, anchor="p")
    note = next(n for n in standings_notes(standings, None) if n.startswith("≥/≤"))
    assert note.endswith("it never lost a game to p, q, r and the 2 others rated by "
                         "estimate."), note
