"""Who can be rated against whom: the graphs of games played and of games won.

Ratings exist only between entrants connected by games (`connected_groups`), and the
Bradley-Terry maximum-likelihood estimate exists only when every entrant has beaten every
other through a chain of wins (Zermelo, 1929): when the graph of wins is strongly connected.
Otherwise its strongly connected components (`win_components`) are the groups whose ratings
relative to each other are infinite: a group that never lost a game to another sits
infinitely above it. Pure functions over entrant indices 0..n-1.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def connected_groups(n: int, edges: Iterable[tuple[int, int]]) -> list[list[int]]:
    """The connected components of the undirected graph of `edges`, each sorted, largest
    first (ties by lowest index)."""
    neighbours: list[set[int]] = [set() for _ in range(n)]
    for i, j in edges:
        neighbours[i].add(j)
        neighbours[j].add(i)
    seen = [False] * n
    groups = []
    for start in range(n):
        if seen[start]:
            continue
        seen[start] = True
        todo, group = [start], []
        while todo:
            i = todo.pop()
            group.append(i)
            for j in neighbours[i]:
                if not seen[j]:
                    seen[j] = True
                    todo.append(j)
        groups.append(sorted(group))
    return sorted(groups, key=lambda g: (-len(g), g[0]))


def win_components(wins: Sequence[Sequence[float]]) -> list[int]:
    """Strongly connected components of the graph with an edge i -> j when i beat j at
    least once (wins[i][j] > 0): component number per entrant (Kosaraju's algorithm)."""
    n = len(wins)
    forward = [[j for j in range(n) if wins[i][j] > 0] for i in range(n)]
    backward = [[j for j in range(n) if wins[j][i] > 0] for i in range(n)]
    order = _finishing_order(forward)
    component = [-1] * n
    count = 0
    for start in reversed(order):
        if component[start] >= 0:
            continue
        component[start] = count
        todo = [start]
        while todo:
            i = todo.pop()
            for j in backward[i]:
                if component[j] < 0:
                    component[j] = count
                    todo.append(j)
        count += 1
    return component


def _finishing_order(adjacency: Sequence[Sequence[int]]) -> list[int]:
    """Vertices in the order an iterative depth-first search finishes them."""
    n = len(adjacency)
    seen = [False] * n
    order: list[int] = []
    for root in range(n):
        if seen[root]:
            continue
        seen[root] = True
        stack = [(root, 0)]
        while stack:
            i, k = stack.pop()
            if k < len(adjacency[i]):
                stack.append((i, k + 1))
                j = adjacency[i][k]
                if not seen[j]:
                    seen[j] = True
                    stack.append((j, 0))
            else:
                order.append(i)
    return order


def reaches(wins: Sequence[Sequence[float]], start: int) -> set[int]:
    """Entrants that `start` beat through a chain of wins (start included)."""
    seen, todo = {start}, [start]
    while todo:
        i = todo.pop()
        for j, w in enumerate(wins[i]):
            if w > 0 and j not in seen:
                seen.add(j)
                todo.append(j)
    return seen
