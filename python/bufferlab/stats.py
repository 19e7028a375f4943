"""Statistics shared by the comparisons with ns-3 and the papers' claims: Welch's interval of a difference of
two means, and the paired interval of matched runs."""

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


def welch_interval(a: Sequence[float], b: Sequence[float], level: float = CONFIDENCE) -> Interval:
    """The ``level`` confidence interval of ``mean(a) - mean(b)`` by Welch's t (unequal variances).

    Standard error sqrt(s_a²/n_a + s_b²/n_b), Welch-Satterthwaite degrees of freedom. A sample of one
    value contributes no variance; when neither varies (deterministic metrics, single runs) the interval
    is the difference itself.
    """
    from scipy import stats  # noqa: PLC0415

    xa, xb = np.asarray(a, float), np.asarray(b, float)
    if not len(xa) or not len(xb):
        raise BufferLabError("welch_interval: both samples need at least one value")
    ma, mb = float(xa.mean()), float(xb.mean())
    va = float(xa.var(ddof=1)) / len(xa) if len(xa) > 1 else 0.0
    vb = float(xb.var(ddof=1)) / len(xb) if len(xb) > 1 else 0.0
    d, se2 = ma - mb, va + vb
    if se2 <= 0.0:
        return Interval(ma, mb, d, d, math.inf, len(xa), len(xb))
    df = se2 ** 2 / ((va ** 2 / (len(xa) - 1) if len(xa) > 1 else 0.0)
                     + (vb ** 2 / (len(xb) - 1) if len(xb) > 1 else 0.0))
    half = float(stats.t.ppf(0.5 + level / 2.0, df)) * math.sqrt(se2)
    return Interval(ma, mb, d - half, d + half, df, len(xa), len(xb))


def paired_interval(a: Sequence[float], b: Sequence[float], level: float = CONFIDENCE) -> Interval:
    """The ``level`` confidence interval of ``mean(a) - mean(b)`` from matched pairs ``(a[i], b[i])``:
    Student's t on the per-pair differences, n − 1 degrees of freedom.

    For runs that share their inputs (the same seed gives both simulators the same per-flow draws), so
    that what the inputs decide cancels in each difference. Needs two or more pairs of equal length; with
    differences that do not vary the interval is the difference itself.
    """
    from scipy import stats  # noqa: PLC0415

    xa, xb = np.asarray(a, float), np.asarray(b, float)
    if len(xa) != len(xb) or len(xa) < 2:
        raise BufferLabError(f"paired_interval: needs two or more pairs (got {len(xa)} and {len(xb)} values)")
    d = xa - xb
    n = len(d)
    ma, mb, diff = float(xa.mean()), float(xb.mean()), float(d.mean())
    se = float(d.std(ddof=1)) / math.sqrt(n)
    if se <= 0.0:
        return Interval(ma, mb, diff, diff, math.inf, n, n)
    half = float(stats.t.ppf(0.5 + level / 2.0, n - 1)) * se
    return Interval(ma, mb, diff - half, diff + half, float(n - 1), n, n)
