"""The Student-t intervals of bufferlab.stats against scipy's."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sp

from bufferlab import stats


def test_mean_interval_matches_scipy():
    x = [0.91, 0.95, 0.88, 0.97, 0.93]
    iv = stats.mean_interval(x)
    low, high = sp.t.interval(0.95, len(x) - 1, loc=np.mean(x), scale=sp.sem(x))
    assert (iv.mean, iv.n) == (pytest.approx(np.mean(x)), 5)
    assert (iv.low, iv.high) == (pytest.approx(low), pytest.approx(high))
    assert iv.half == pytest.approx((high - low) / 2)
    assert stats.mean_interval(x, 0.99).half > iv.half


def test_mean_interval_of_fewer_than_two_values_is_undefined():
    one = stats.mean_interval([4.0])
    assert one.mean == 4.0 and one.n == 1 and math.isnan(one.half) and math.isnan(one.low)
    none = stats.mean_interval([])
    assert none.n == 0 and math.isnan(none.mean)


def test_paired_interval_is_the_mean_interval_of_the_differences():
    a, b = [1.0, 2.5, 3.0, 4.5], [0.5, 2.0, 3.5, 3.0]
    iv, d = stats.paired_interval(a, b), stats.mean_interval(np.subtract(a, b))
    assert (iv.low, iv.high, iv.df) == (d.low, d.high, 3.0)


def test_welch_df_and_bonferroni_factor():
    # equal variances and sizes: n_a + n_b - 2 degrees of freedom
    assert stats.welch_df(0.1, 0.1, 6, 6) == pytest.approx(10.0)
    assert stats.welch_df(0.1, 0.0, 6, 1) == pytest.approx(5.0)
    assert stats.bonferroni_factor(10, 1) == pytest.approx(1.0)
    assert stats.bonferroni_factor(10, 5) == pytest.approx(sp.t.ppf(0.995, 9) / sp.t.ppf(0.975, 9))
    assert stats.t_quantile(9) == pytest.approx(sp.t.ppf(0.975, 9))
