"""`arena.ratings.graph.win_components`: the groups of entrants that never lost to each other,
numbered from the top (a group that beat another comes before it), worked by hand."""

from __future__ import annotations

import pytest

from arena.ratings.graph import win_components


@pytest.mark.parametrize("wins, groups", [
    ([[0, 1], [0, 0]], [0, 1]),                      # 0 beat 1 once: two groups, 0's first
    ([[0, 0], [1, 0]], [1, 0]),                      # 1 beat 0 once
    ([[0, 1], [1, 0]], [0, 0]),                      # one win each way: one group
    ([[0, 1, 1], [1, 0, 1], [0, 0, 0]], [0, 0, 1]),  # 0 and 1 beat each other and 2
    ([[0, 0, 0], [1, 0, 1], [1, 1, 0]], [1, 0, 0]),  # 1 and 2 beat each other and 0
    ([[0, 0.5], [0, 0]], [0, 1]),                    # half a win (a draw) is an edge too
])
def test_groups_that_never_lost_to_each_other(wins, groups):
    assert win_components(wins) == groups
