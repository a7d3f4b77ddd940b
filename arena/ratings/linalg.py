"""Small dense linear algebra for the ratings' fits: the matrices are entrants by entrants.

Pure Python over lists of rows, because the number of entrants is small (a hundred at most in
practice) and the package imports nothing beyond the standard library. Every symmetric
matrix here is an information matrix or a covariance; a singular one means entrants that the
games do not connect, and raises `SingularError` (a `ValueError`), which the fits turn into
their own error.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence

Matrix = list[list[float]]
"""A dense matrix as a list of rows."""


class SingularError(ValueError):
    """The matrix is not positive definite (for an information matrix: entrants not
    connected by games, or parameters the games do not tell apart)."""


SINGULAR = "singular information matrix: some entrants are not connected"
"""The message of `SingularError`, which the fits repeat in their own error."""


def sigmoid(x: float) -> float:
    """The logistic function 1 / (1 + e^-x), without overflow for large |x|."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def cholesky(a: Matrix) -> Matrix:
    """Lower-triangular L (rows of growing length) with a = L L^T, for a symmetric positive
    definite `a`; SingularError if it is not. n^3/6 multiply-adds, each row a dot product
    in C."""
    low: Matrix = []
    for i, row in enumerate(a):
        li: list[float] = []
        for j in range(i):
            lj = low[j]
            li.append((row[j] - sum(map(operator.mul, li, lj[:j]))) / lj[j])
        pivot = row[i] - sum(map(operator.mul, li, li))
        if not pivot > 1e-300 * max(1.0, abs(row[i])):
            raise SingularError(SINGULAR)
        li.append(math.sqrt(pivot))
        low.append(li)
    return low


def lower_inverse(low: Matrix) -> Matrix:
    """The inverse of a lower-triangular L from `cholesky`, as rows of growing length."""
    n = len(low)
    inv: Matrix = []
    for i in range(n):
        li = low[i]
        row = [-sum(li[k] * inv[k][j] for k in range(j, i)) / li[i] for j in range(i)]
        row.append(1.0 / li[i])
        inv.append(row)
    return inv


def inverse(a: Matrix) -> Matrix:
    """Inverse of a symmetric positive definite matrix, by Cholesky: a^-1 = L^-T L^-1;
    SingularError if it is not positive definite. The result is exactly symmetric."""
    n = len(a)
    inv_low = lower_inverse(cholesky(a))
    columns = [[inv_low[k][j] for k in range(j, n)] for j in range(n)]  # column j from row j
    out = [[0.0] * n for _ in range(n)]
    for i in range(n):
        ci = columns[i]
        for j in range(i, n):
            value = sum(map(operator.mul, ci[j - i:], columns[j]))
            out[i][j] = out[j][i] = value
    return out


def solve_linear(a: Matrix, b: Sequence[float]) -> list[float]:
    """x with a x = b for a symmetric positive definite `a`, by Cholesky (a sixth of the
    work of an inverse by elimination); SingularError if `a` is singular."""
    low = cholesky(a)
    n = len(low)
    y: list[float] = []
    for i, li in enumerate(low):
        y.append((b[i] - sum(map(operator.mul, li, y))) / li[i])
    x = [0.0] * n
    for i in range(n - 1, -1, -1):
        x[i] = (y[i] - sum(low[k][i] * x[k] for k in range(i + 1, n))) / low[i][i]
    return x


def mat_mul(a: Matrix, b: Matrix) -> Matrix:
    """The product a b."""
    cols = list(zip(*b, strict=True))
    return [[sum(map(operator.mul, row, col)) for col in cols] for row in a]


def centre_on(cov: Matrix, members: Sequence[int]) -> Matrix:
    """Covariance of values shifted so that the mean over `members` is zero."""
    size = len(members)
    row = [sum(r[k] for k in members) / size for r in cov]
    total = sum(row[k] for k in members) / size
    return [[cov[i][j] - row[i] - row[j] + total for j in range(len(cov))]
            for i in range(len(cov))]


def embed(v: Matrix, rows: Sequence[int], n: int) -> Matrix:
    """An n x n matrix holding `v` at `rows` (v's row a is row rows[a]) and zeros elsewhere:
    a covariance over some parameters as one over all of them."""
    full = [[0.0] * n for _ in range(n)]
    for a, i in enumerate(rows):
        for b, j in enumerate(rows):
            full[i][j] = v[a][b]
    return full
