"""`arena.ratings.duplicate`: known answers, worked by hand, for the pair-clustered mean and
the duplicate ratings, and so for their jackknife (CR3) factors 1 / (1 - leverage)."""

from __future__ import annotations

import math

import pytest

from arena.ratings.duplicate import DealScore, clustered_mean, duplicate_ratings

Z95 = 1.959963984540054  # the two-sided 95% normal quantile


def test_the_clustered_mean_scales_each_clusters_deviation_by_one_minus_its_share():
    # Mean 12 / 4 = 3. Deviation sums: -3 for [1, 2] (share 1/2), 0 for [3], +3 for [6]
    # (share 1/4): (-3 / (1/2))^2 + (3 / (3/4))^2 = 36 + 16 = 52.
    mean = clustered_mean([[1.0, 2.0], [3.0], [6.0]])
    assert mean is not None
    assert (mean.value, mean.count) == (3.0, 4)
    assert mean.interval == pytest.approx(Z95 * math.sqrt(52.0) / 4)


def test_the_clustered_mean_of_one_cluster_has_no_interval_and_of_nothing_is_none():
    one = clustered_mean([[2.0, 4.0], []])
    assert one is not None and one.value == 3.0 and math.isnan(one.interval)
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
