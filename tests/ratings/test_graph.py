"""`arena.ratings.graph`: the groups of entrants that never lost to each other, numbered from
the top (a group that beat another comes before it), worked by hand and against a brute-force
reachability (Floyd-Warshall) on random win matrices, as are the connected groups and
`reaches`."""

from __future__ import annotations

import random

import pytest

from arena.ratings.graph import connected_groups, reaches, win_components


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


def closure(n: int, edge) -> list[list[bool]]:
    """Reachability by Floyd-Warshall: closure[i][j] when a chain of edges leads from i to j
    (every vertex reaches itself)."""
    reach = [[i == j or edge(i, j) for j in range(n)] for i in range(n)]
    for k in range(n):
        for i in range(n):
            for j in range(n):
                reach[i][j] = reach[i][j] or (reach[i][k] and reach[k][j])
    return reach


def random_wins(rng: random.Random, n: int, density: float) -> list[list[float]]:
    return [[0.0 if i == j or rng.random() > density else rng.choice([0.5, 1.0, 3.0])
             for j in range(n)] for i in range(n)]


@pytest.mark.parametrize("seed", range(40))
def test_win_components_are_the_mutually_reachable_groups_in_order(seed):
    rng = random.Random(seed)
    n = rng.randint(1, 9)
    wins = random_wins(rng, n, rng.choice([0.1, 0.2, 0.35, 0.6]))
    reach = closure(n, lambda i, j: wins[i][j] > 0)
    component = win_components(wins)
    assert sorted(set(component)) == list(range(len(set(component))))
    for i in range(n):
        assert reaches(wins, i) == {j for j in range(n) if reach[i][j]}
        for j in range(n):
            assert (component[i] == component[j]) == (reach[i][j] and reach[j][i])
            if reach[i][j] and not reach[j][i]:
                assert component[i] < component[j]  # who beat a group comes before it


@pytest.mark.parametrize("seed", range(20))
def test_connected_groups_are_the_components_largest_first(seed):
    rng = random.Random(seed)
    n = rng.randint(1, 10)
    edges = [(i, j) for i in range(n) for j in range(n) if i != j and rng.random() < 0.12]
    linked = closure(n, lambda i, j: (i, j) in edges or (j, i) in edges)
    expected = sorted({tuple(j for j in range(n) if linked[i][j]) for i in range(n)},
                      key=lambda g: (-len(g), g[0]))
    assert connected_groups(n, edges) == [list(g) for g in expected]


def test_connected_groups_of_known_graphs():
    assert connected_groups(5, [(3, 4), (1, 0), (4, 2)]) == [[2, 3, 4], [0, 1]]
    assert connected_groups(4, [(2, 3), (0, 1)]) == [[0, 1], [2, 3]]  # a tie: lowest first
    assert connected_groups(3, []) == [[0], [1], [2]]
    assert reaches([[0, 1, 0], [0, 0, 2], [0, 0, 0]], 0) == {0, 1, 2}
    assert reaches([[0, 1, 0], [0, 0, 2], [0, 0, 0]], 2) == {2}
