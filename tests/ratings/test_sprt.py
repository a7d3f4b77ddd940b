"""The sequential test on pairs: bounds, decisions, the LLR, error rates."""

from __future__ import annotations

import math
import random

import pytest

from arena.ratings.model import Bound
from arena.ratings.sprt import (
    Verdict,
    expected_score,
    pair_estimate,
    sprt,
    sprt_bounds,
    sprt_llr,
    sprt_summary,
)


def test_wald_bounds():
    lower, upper = sprt_bounds(0.05, 0.05)
    assert lower == pytest.approx(-math.log(19.0)) and upper == pytest.approx(math.log(19.0))
    assert sprt_bounds(0.05, 0.1) == pytest.approx((math.log(0.1 / 0.95), math.log(0.9 / 0.05)))


def test_a_clearly_stronger_entrant_is_accepted_quickly():
    result = sprt([2, 1, 2, 2, 1] * 20, elo0=0.0, elo1=100.0)
    assert result.decision is Verdict.H1
    assert result.llr >= result.upper
    assert result.pairs < 100  # the test stops at the first crossing
    assert sum(result.counts) == result.pairs


def test_a_clearly_weaker_entrant_is_rejected_quickly():
    result = sprt([0, 1, 0, 0, 1] * 20, elo0=0.0, elo1=100.0)
    assert result.decision is Verdict.H0 and result.llr <= result.lower


def test_too_few_pairs_continue():
    result = sprt([2, 1], elo0=0.0, elo1=10.0)
    assert result.decision is Verdict.CONTINUE and result.pairs == 2
    assert result.lower < result.llr < result.upper


def test_llr_is_zero_halfway_and_antisymmetric():
    # Equal counts of both-lost and both-won: mean score 1/2, midway between -e and +e.
    assert sprt_llr([10, 30, 10], -20.0, 20.0) == pytest.approx(0.0, abs=1e-9)
    assert sprt_llr([5, 20, 12], 0.0, 30.0) == pytest.approx(-sprt_llr([12, 20, 5], -30.0, 0.0))


def test_llr_matches_its_normal_approximation_for_close_hypotheses():
    counts = [300, 1000, 320]
    n = sum(counts)
    x = [0.0, 0.5, 1.0]
    mean = sum(c * v for c, v in zip(counts, x, strict=True)) / n
    var = sum(c * (v - mean) ** 2 for c, v in zip(counts, x, strict=True)) / n
    s0, s1 = expected_score(0.0), expected_score(5.0)
    approx = n * (s1 - s0) * (mean - (s0 + s1) / 2) / var
    assert sprt_llr(counts, 0.0, 5.0) == pytest.approx(approx, rel=0.02)


def test_bad_input_is_refused():
    with pytest.raises(ValueError):
        sprt([3], 0.0, 10.0)
    with pytest.raises(ValueError):
        sprt([1], 10.0, 0.0)
    with pytest.raises(ValueError):
        sprt_bounds(0.0, 0.05)
    for alpha, beta in ((1.0, 0.05), (0.05, 1.0), (0.05, 0.0)):
        with pytest.raises(ValueError, match="strictly between 0 and 1"):
            sprt_bounds(alpha, beta)
    with pytest.raises(ValueError):
        sprt([1], 10.0, 10.0)


def test_a_400_elo_difference_expects_ten_games_of_eleven():
    assert expected_score(400.0) == pytest.approx(10 / 11)
    assert expected_score(-400.0) == pytest.approx(1 / 11)


def test_no_pairs_leave_the_test_at_zero_and_undecided():
    result = sprt([], elo0=0.0, elo1=50.0)
    assert (result.llr, result.pairs, result.decision) == (0.0, 0, Verdict.CONTINUE)


def duplicate_pairs(elo: float, rng: random.Random):
    """Endless pair outcomes of an entrant `elo` stronger, with correlated (split-prone) pairs."""
    p = expected_score(elo)
    while True:
        u = rng.random()
        v = 1.0 - u if rng.random() < 0.7 else rng.random()
        yield (u < p) + (v < p)


@pytest.mark.slow
@pytest.mark.parametrize("true_elo, wrong", [(0.0, Verdict.H1), (40.0, Verdict.H0)])
def test_error_rates_stay_near_alpha_and_beta(true_elo, wrong):
    rng = random.Random(17)
    runs = 300
    wrong_decisions = sum(sprt(duplicate_pairs(true_elo, rng), 0.0, 40.0).decision is wrong
                          for _ in range(runs))
    # alpha = beta = 0.05; Wald's bounds keep the error at or a little under them.
    assert wrong_decisions / runs < 0.09


def test_the_summary_gives_the_estimate_los_and_progress_toward_each_bound():
    result = sprt([2, 1, 1, 2, 0, 1, 2, 1], elo0=0.0, elo1=50.0)
    summary = sprt_summary(result)
    est = summary.estimate
    # 3 both won, 4 split, 1 both lost: 10 games won of 16, a 62.5% score.
    assert est.elo == pytest.approx(400 * math.log10(10 / 6), abs=1e-6) and est.bound is None
    assert 0.5 < est.los < 1.0 and est.interval > 0
    assert summary.toward_h1 == pytest.approx(result.llr / result.upper)
    assert summary.toward_h0 == 0.0


def test_a_perfect_record_in_a_test_is_a_bound_not_an_estimate():
    est = sprt_summary(sprt([2, 2, 2], elo0=0.0, elo1=50.0)).estimate
    assert est.bound is Bound.LOWER and math.isnan(est.interval)
    p = 0.05 ** (1 / 6)
    assert est.confidence_bound == pytest.approx(400 * math.log10(p / (1 - p)), abs=0.01)
    assert pair_estimate([0, 0, 0]) is None
    # The prior's 2 virtual games, one won and one lost: 7 won of 8, at either entry point.
    assert est.elo == pytest.approx(400 * math.log10(7 / 1))
    assert pair_estimate([0, 0, 3]).elo == pytest.approx(400 * math.log10(7 / 1))


def test_progress_toward_a_bound_stops_at_the_bound_once_crossed():
    # The test stops at the first pair past a bound, so the LLR is past it: progress 1.
    accepted = sprt([2] * 40, elo0=0.0, elo1=50.0)
    assert accepted.decision is Verdict.H1 and accepted.llr > accepted.upper
    summary = sprt_summary(accepted)
    assert (summary.toward_h1, summary.toward_h0) == (1.0, 0.0)
    rejected = sprt([0] * 40, elo0=0.0, elo1=50.0)
    assert rejected.decision is Verdict.H0 and rejected.llr < rejected.lower
    summary = sprt_summary(rejected)
    assert (summary.toward_h1, summary.toward_h0) == (0.0, 1.0)


def _max_likelihood_with_mean(counts, mean):
    """Brute force: the distribution (p0, p1, p2) on the pair scores 0, 1/2, 1 with the given
    mean that maximises sum counts_k log p_k. With p1 / 2 + p2 = mean and p0 + p1 + p2 = 1,
    p2 = c fixes p1 = 2 (mean - c) and p0 = 1 - 2 mean + c; the log-likelihood is concave in
    c, so a golden-section search over the c that keep every p positive finds it."""
    def distribution(c):
        return 1.0 - 2.0 * mean + c, 2.0 * (mean - c), c

    def log_likelihood(c):
        return sum(n * math.log(p) for n, p in zip(counts, distribution(c), strict=True) if n)

    lo, hi = max(0.0, 2.0 * mean - 1.0), mean
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    for _ in range(200):
        a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        if log_likelihood(a) < log_likelihood(b):
            lo = a
        else:
            hi = b
    return distribution((lo + hi) / 2.0)


@pytest.mark.parametrize("counts, elo0, elo1", [
    ((7, 11, 2), 0.0, 50.0), ((3, 10, 9), 0.0, 50.0), ((1, 1, 30), -100.0, 100.0),
    ((20, 5, 4), 10.0, 40.0), ((4, 4, 4), -300.0, -250.0), ((2, 30, 25), 200.0, 400.0)])
def test_the_llr_is_that_of_the_most_likely_distributions_with_each_hypothesis_mean(
        counts, elo0, elo1):
    # Every outcome seen, so the pseudo-counts change nothing that the tolerance sees.
    p0 = _max_likelihood_with_mean(counts, expected_score(elo0))
    p1 = _max_likelihood_with_mean(counts, expected_score(elo1))
    expected = sum(n * math.log(a / b) for n, a, b in zip(counts, p1, p0, strict=True))
    assert sprt_llr(counts, elo0, elo1) == pytest.approx(expected, rel=1e-6, abs=1e-6)


def test_an_outcome_never_seen_adds_nothing_but_a_pseudo_count():
    # No split pair: the most likely distributions put (almost) nothing on a split, so the
    # LLR is that of the two outcomes seen, each hypothesis' mean reached by them alone.
    counts = (6, 0, 9)
    s0, s1 = expected_score(0.0), expected_score(60.0)
    expected = 6 * math.log((1 - s1) / (1 - s0)) + 9 * math.log(s1 / s0)
    assert sprt_llr(counts, 0.0, 60.0) == pytest.approx(expected, rel=1e-3)


def test_the_estimate_carries_the_prior_it_is_given():
    # A perfect record of 3 pairs (6 games) with a prior of 4 virtual games, half won: 8 won
    # of 10, odds 4 to 1; with no prior beyond the default 2: 7 of 8 (above).
    assert pair_estimate([0, 0, 3], prior=4.0).elo == pytest.approx(400 * math.log10(4.0))
    result = sprt([2, 2, 2], elo0=0.0, elo1=50.0)
    assert sprt_summary(result, prior=4.0).estimate.elo == pytest.approx(400 * math.log10(4.0))


def test_progress_toward_h0_is_the_llr_over_the_lower_bound():
    result = sprt([0, 1, 1], elo0=0.0, elo1=50.0)
    assert result.decision is Verdict.CONTINUE and result.lower < result.llr < 0.0
    summary = sprt_summary(result)
    assert summary.toward_h0 == pytest.approx(result.llr / result.lower)
    assert 0.0 < summary.toward_h0 < 1.0 and summary.toward_h1 == 0.0


def test_a_record_lost_every_game_mirrors_the_one_won():
    # B won all 6 games: with the prior, 7 of 8 to B, A's estimate the mirror of the above.
    est = pair_estimate([3, 0, 0])
    assert est.bound is Bound.UPPER
    assert est.elo == pytest.approx(-400 * math.log10(7 / 1))
