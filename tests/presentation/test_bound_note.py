"""The note of a rating with no estimate says why in words (issue 48, item 8): the entrant's
group never lost to the others. A record with losses inside its group is not 'perfect'."""

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
    assert "never lost a game to the entrants outside it" in note
    assert "a (32-4): at least" in note
