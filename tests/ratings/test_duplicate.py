"""`arena.ratings.duplicate`: known answers, worked by hand, for the pair-clustered mean and
the duplicate ratings, and so for their jackknife (CR3) factors 1 / (1 - leverage)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from arena.ratings.duplicate import DealScore, clustered_mean, duplicate_ratings, percentile

Z95 = 1.959963984540054  # the two-sided 95% normal quantile


def test_the_clustered_mean_scales_each_clusters_deviation_by_one_minus_its_share():
    # Mean 12 / 4 = 3. Deviation sums: -3 for [1, 2] (share 1/2), 0 for [3], +3 for [6]
    # (share 1/4): (-3 / (1/2))^2 + (3 / (3/4))^2 = 36 + 16 = 52.
    mean = clustered_mean([[1.0, 2.0], [3.0], [6.0]])
    assert mean is not None
    assert (mean.value, mean.count) == (3.0, 4)
    assert mean.interval == pytest.approx(Z95 * math.sqrt(52.0) / 4)


def test_two_clusters_are_enough_for_an_interval():
    # Mean 12 / 3 = 4. Deviation sums: -4 for [1, 3] (share 2/3), +4 for [8] (share 1/3):
    # (-4 / (1/3))^2 + (4 / (2/3))^2 = 144 + 36 = 180.
    mean = clustered_mean([[1.0, 3.0], [8.0]])
    assert mean is not None and (mean.value, mean.count) == (4.0, 3)
    assert mean.interval == pytest.approx(Z95 * math.sqrt(180.0) / 3)


def test_the_clustered_mean_of_one_cluster_has_no_interval_and_of_nothing_is_none():
    one = clustered_mean([[2.0, 4.0], []])
    assert one is not None and one.value == 3.0 and math.isnan(one.interval)
    assert one.count == 2
    assert clustered_mean([[], []]) is None


def test_duplicate_ratings_of_two_entrants_give_the_hand_worked_sandwich():
    # b is held at 0; a's strength is the deal-weighted mean (2 + 4 + 2 * 9) / 4 = 6. Each
    # pair's leverage is its share of the deals (1/4, 1/4, 1/2) and its residual
    # deals * (points - 6) / (1 - leverage): -16/3, -8/3, 12; the variance is their squares'
    # sum over 4 ** 2: (256/9 + 64/9 + 144) / 16 = 101/9.
    scores = [DealScore("p0", "a", "b", 2.0, 1), DealScore("p1", "a", "b", 4.0, 1),
              DealScore("p2", "a", "b", 9.0, 2)]
    ratings = duplicate_ratings(scores, reference="b")
    assert ratings is not None
    assert ratings.strength["a"] == pytest.approx(6.0)
    assert ratings.strength["b"] == 0.0
    assert ratings.interval["a"] == pytest.approx(Z95 * math.sqrt(101.0 / 9.0))
    assert ratings.interval["b"] == 0.0
    assert (ratings.reference, ratings.pairs, ratings.deals) == ("b", 3, 4)


def test_duplicate_ratings_centred_on_the_mean_split_the_difference_and_its_variance():
    # The same pairs without a reference: a 6 points per deal above b, so +3 and -3; each
    # centred variance is a quarter of the difference's 101/9 (half of it, squared).
    scores = [DealScore("p0", "a", "b", 2.0, 1), DealScore("p1", "a", "b", 4.0, 1),
              DealScore("p2", "a", "b", 9.0, 2)]
    ratings = duplicate_ratings(scores)
    assert ratings is not None and ratings.reference is None
    assert ratings.strength["a"] == pytest.approx(3.0)
    assert ratings.strength["b"] == pytest.approx(-3.0)
    for entrant in "ab":
        assert ratings.interval[entrant] == pytest.approx(Z95 * math.sqrt(101.0 / 9.0) / 2)


def reference_fit(scores, keys, reference):
    """An independent matrix statement of the documented estimator: weighted least squares
    of each pair's mean points on strength differences (weights: deals), one entrant's
    column dropped, and the CR3 sandwich bread X'WX^-1 (sum_s x_s x_s' u_s^2) bread with
    u_s = w_s r_s / (1 - w_s x_s' bread x_s). Without a reference the last entrant's column
    is dropped and the strengths and covariance are centred on the mean: P theta, P V P'."""
    n = len(keys)
    dropped = keys.index(reference) if reference is not None else n - 1
    x = np.zeros((len(scores), n))
    for row, s in enumerate(scores):
        x[row, keys.index(s.a)] += 1.0
        x[row, keys.index(s.b)] -= 1.0
    x = np.delete(x, dropped, axis=1)
    w = np.array([float(s.deals) for s in scores])
    y = np.array([s.points for s in scores])
    bread = np.linalg.inv(x.T @ (w[:, None] * x))
    theta = bread @ x.T @ (w * y)
    leverage = w * np.einsum("si,ij,sj->s", x, bread, x)
    u = w * (y - x @ theta) / (1.0 - leverage)
    cov = bread @ (x.T @ ((u ** 2)[:, None] * x)) @ bread
    theta = np.insert(theta, dropped, 0.0)
    full = np.zeros((n, n))
    free = [k for k in range(n) if k != dropped]
    full[np.ix_(free, free)] = cov
    if reference is None:
        centre = np.eye(n) - np.full((n, n), 1.0 / n)
        theta, full = centre @ theta, centre @ full @ centre.T
    return ({k: theta[i] for i, k in enumerate(keys)},
            {k: Z95 * math.sqrt(max(full[i, i], 0.0)) for i, k in enumerate(keys)})


FIELD = [DealScore("p0", "a", "b", 4.0, 3), DealScore("p1", "b", "c", 2.5, 2),
         DealScore("p2", "c", "a", -7.0, 4), DealScore("p3", "a", "d", 1.0, 1),
         DealScore("p4", "d", "b", 3.0, 2), DealScore("p5", "b", "a", -2.0, 1),
         DealScore("p6", "c", "d", 0.5, 3)]


@pytest.mark.parametrize("reference", ["a", "c", "d", None])
def test_duplicate_ratings_of_a_field_match_the_matrix_statement_of_the_estimator(reference):
    ratings = duplicate_ratings(FIELD, reference=reference)
    strength, interval = reference_fit(FIELD, ["a", "b", "c", "d"], reference)
    assert ratings is not None
    assert (ratings.reference, ratings.pairs, ratings.deals) == (reference, 7, 16)
    for k in "abcd":
        assert ratings.strength[k] == pytest.approx(strength[k], abs=1e-9)
        assert ratings.interval[k] == pytest.approx(interval[k], abs=1e-9)
    if reference is not None:
        assert ratings.strength[reference] == 0.0 and ratings.interval[reference] == 0.0


def test_duplicate_ratings_keep_the_largest_connected_group_and_drop_empty_pairs():
    # e-f is a group of its own and g played no deal: both left out, and a reference outside
    # the group leaves the ratings centred on the mean.
    extra = [DealScore("q0", "e", "f", 5.0, 2), DealScore("q1", "e", "f", 1.0, 1),
             DealScore("q2", "a", "g", 50.0, 0)]
    for reference in (None, "e", "g", "z"):
        ratings = duplicate_ratings(extra + FIELD, reference=reference)
        strength, interval = reference_fit(FIELD, ["a", "b", "c", "d"], None)
        assert ratings is not None and ratings.reference is None
        assert sorted(ratings.strength) == ["a", "b", "c", "d"]
        assert (ratings.pairs, ratings.deals) == (7, 16)
        for k in "abcd":
            assert ratings.strength[k] == pytest.approx(strength[k], abs=1e-9)
            assert ratings.interval[k] == pytest.approx(interval[k], abs=1e-9)


def test_duplicate_ratings_of_one_pair_have_no_interval_and_of_nothing_none():
    ratings = duplicate_ratings([DealScore("p0", "b", "a", 3.0, 2)], reference="a")
    assert ratings is not None
    assert ratings.strength["a"] == 0.0 and ratings.strength["b"] == pytest.approx(3.0)
    assert math.isnan(ratings.interval["b"]) and ratings.interval["a"] == 0.0
    assert duplicate_ratings([]) is None
    assert duplicate_ratings([DealScore("p0", "a", "b", 3.0, 0)]) is None
    assert duplicate_ratings([DealScore("p0", "a", "a", 3.0, 2)]) is None  # no second entrant


@pytest.mark.parametrize("values, q, expected", [
    ([3.0, 1.0, 4.0, 2.0], 0.5, 2.5), ([3.0, 1.0, 4.0, 2.0], 0.0, 1.0),
    ([3.0, 1.0, 4.0, 2.0], 1.0, 4.0), ([10.0, 0.0, 20.0], 0.25, 5.0),
    ([float(k) for k in range(101)], 0.99, 99.0), ([float(k * k) for k in range(11)], 0.97, 94.3),
    ([7.0], 0.3, 7.0)])
def test_percentiles_interpolate_between_the_sorted_values(values, q, expected):
    # Position q (n - 1): 0.25 of 0, 10, 20 is 0.5, halfway from 0 to 10; 0.97 of the squares
    # 0..100 is 9.7, between 81 and 100: 81 + 0.7 * 19.
    assert percentile(values, q) == pytest.approx(expected)


def test_the_percentile_of_nothing_is_nan():
    assert math.isnan(percentile([], 0.5))
