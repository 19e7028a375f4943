"""Statistics shared by the comparisons with ns-3, the papers' claims, sweeps and models: the Student-t
interval of a mean, Welch's interval of a difference of two means, and the paired interval of matched runs."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from bufferlab.errors import BufferLabError

#: Confidence level of the interval on the difference of means.
CONFIDENCE = 0.95


@dataclass(frozen=True)
class Interval:
    """A confidence interval for ``mean(a) - mean(b)`` (Welch's, or the paired one)."""

    mean_a: float
    mean_b: float
    low: float
    high: float
    df: float  # Welch-Satterthwaite degrees of freedom (inf when the interval has width zero)
    n_a: int
    n_b: int

    @property
    def difference(self) -> float:
        return self.mean_a - self.mean_b


@dataclass(frozen=True)
class MeanInterval:
    """The mean of ``n`` values and its Student-t interval ``[low, high] = mean ± half``."""

    mean: float
    low: float
    high: float
    half: float
    n: int


def t_quantile(df: float, level: float = CONFIDENCE) -> float:
    """The two-sided ``level`` critical value of Student's t with ``df`` degrees of freedom."""
    from scipy import stats  # noqa: PLC0415

    return float(stats.t.ppf(0.5 + level / 2.0, df))


def welch_df(va: float, vb: float, n_a: int, n_b: int) -> float:
    """Welch-Satterthwaite degrees of freedom of ``va + vb``, variances of means of n_a and n_b values."""
    return (va + vb) ** 2 / ((va ** 2 / (n_a - 1) if n_a > 1 else 0.0)
                             + (vb ** 2 / (n_b - 1) if n_b > 1 else 0.0))


def mean_interval(values: Sequence[float], level: float = CONFIDENCE) -> MeanInterval:
    """The mean of ``values`` and its ``level`` Student-t interval mean ± t(n − 1)·s/√n (NaN for n < 2)."""
    x = np.asarray(values, float)
    n = len(x)
    mean = float(x.mean()) if n else math.nan
    if n < 2:
        return MeanInterval(mean, math.nan, math.nan, math.nan, n)
    half = t_quantile(n - 1, level) * float(x.std(ddof=1)) / math.sqrt(n)
    return MeanInterval(mean, mean - half, mean + half, half, n)


def bonferroni_factor(n: int, m: int) -> float:
    """t(1 − 0.025/m, n − 1) / t(0.975, n − 1): a 95 % t interval widened to Bonferroni over ``m`` tests."""
    from scipy import stats  # noqa: PLC0415

    return float(stats.t.ppf(1 - 0.025 / m, n - 1) / stats.t.ppf(0.975, n - 1))


def welch_interval(a: Sequence[float], b: Sequence[float], level: float = CONFIDENCE) -> Interval:
    """The ``level`` confidence interval of ``mean(a) - mean(b)`` by Welch's t (unequal variances).

    Standard error sqrt(s_a²/n_a + s_b²/n_b), Welch-Satterthwaite degrees of freedom. A sample of one
    value contributes no variance; when neither varies (deterministic metrics, single runs) the interval
    is the difference itself.
    """
    xa, xb = np.asarray(a, float), np.asarray(b, float)
    if not len(xa) or not len(xb):
        raise BufferLabError("welch_interval: both samples need at least one value")
    ma, mb = float(xa.mean()), float(xb.mean())
    va = float(xa.var(ddof=1)) / len(xa) if len(xa) > 1 else 0.0
    vb = float(xb.var(ddof=1)) / len(xb) if len(xb) > 1 else 0.0
    d, se2 = ma - mb, va + vb
    if se2 <= 0.0:
        return Interval(ma, mb, d, d, math.inf, len(xa), len(xb))
    df = welch_df(va, vb, len(xa), len(xb))
    half = t_quantile(df, level) * math.sqrt(se2)
    return Interval(ma, mb, d - half, d + half, df, len(xa), len(xb))


def paired_interval(a: Sequence[float], b: Sequence[float], level: float = CONFIDENCE) -> Interval:
    """The ``level`` confidence interval of ``mean(a) - mean(b)`` from matched pairs ``(a[i], b[i])``:
    Student's t on the per-pair differences, n − 1 degrees of freedom.

    For runs that share their inputs (the same seed gives both simulators the same per-flow draws), so
    that what the inputs decide cancels in each difference. Needs two or more pairs of equal length; with
    differences that do not vary the interval is the difference itself.
    """
    xa, xb = np.asarray(a, float), np.asarray(b, float)
    if len(xa) != len(xb) or len(xa) < 2:
        raise BufferLabError(f"paired_interval: needs two or more pairs (got {len(xa)} and {len(xb)} values)")
    d = mean_interval(xa - xb, level)
    n, ma, mb = d.n, float(xa.mean()), float(xb.mean())
    if d.half <= 0.0:
        return Interval(ma, mb, d.mean, d.mean, math.inf, n, n)
    return Interval(ma, mb, d.low, d.high, float(n - 1), n, n)
