"""DCTCP's steady-state analysis: Alizadeh et al., "Data Center TCP (DCTCP)", ACM SIGCOMM 2010, §3.3.

N long-lived flows with equal RTTs, synchronized, share a link of C·RTT packets per round trip (the
bandwidth-delay product, BDP) whose switch marks at K packets. Equation numbers are the paper's:

* ``W* = (C·RTT + K)/N``, the window at which the queue reaches K;
* eq. (6), ``α²(1 − α/4) = (2W* + 1)/(W* + 1)²``, the marked fraction, ≈ ``√(2/W*)``;
* eq. (7)–(8), the window's and the queue's amplitudes ``D = (W* + 1)·α/2``, ``A = N·D`` ≈
  ``½√(2N(C·RTT + K))``;
* eq. (9), the period ``T_C = D`` round trips; eq. (10), ``Q_max = K + N``; eq. (12), ``Q_min = Q_max − A``;
* eq. (13), the threshold below which the queue underflows for some N: ``K > C·RTT/7``;
* eq. (15), the estimation gain's bound ``g < 1.386/√(2(C·RTT + K))``.

The amplitudes are given both from eq. (6)'s exact α and in the paper's closed forms (α ≈ √(2/W*)), which
eq. (12) and (13) use. Queues are in packets waiting, as the engine's `step` threshold counts them.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Dict

from scipy.optimize import brentq

from bufferlab.models._checks import check_integer, check_real

__all__ = ["SteadyState", "steady_state", "k_lower_bound", "g_upper_bound", "alpha_exact"]


@dataclass(frozen=True)
class SteadyState:
    """The periodic steady state of §3.3 (packets, round trips)."""

    n_flows: int
    bdp_pkts: float
    k_pkts: float
    w_star: float
    alpha: float
    alpha_approx: float
    window_amplitude: float
    queue_amplitude: float
    queue_amplitude_approx: float
    period_rtts: float
    q_max: float
    q_min: float

    def as_dict(self) -> Dict[str, Any]:
        return asdict(self)


def alpha_exact(w_star: float) -> float:
    """α from eq. (6), ``α²(1 − α/4) = (2W* + 1)/(W* + 1)²`` (the root in (0, 1]; 1 when the right side
    exceeds 3/4, the left side's value at α = 1: windows too small for the analysis)."""
    w = check_real("w_star", w_star, 0.0, low_open=True)
    rhs = (2.0 * w + 1.0) / (w + 1.0) ** 2
    if rhs >= 0.75:
        return 1.0
    return float(brentq(lambda a: a * a * (1.0 - a / 4.0) - rhs, 0.0, 1.0, xtol=1e-15, rtol=1e-15))


def steady_state(n_flows: int, bdp_pkts: float, k_pkts: float) -> SteadyState:
    """§3.3's steady state for ``n_flows`` synchronized flows, a BDP of ``bdp_pkts`` packets (C·RTT) and a
    marking threshold of ``k_pkts`` packets."""
    n = check_integer("n_flows", n_flows, 1, 10**7)
    bdp = check_real("bdp_pkts", bdp_pkts, 0.0, 1e12, low_open=True)
    k = check_real("k_pkts", k_pkts, 0.0, 1e12)
    w_star = (bdp + k) / n
    alpha = alpha_exact(w_star)
    d = (w_star + 1.0) * alpha / 2.0
    a_approx = 0.5 * math.sqrt(2.0 * n * (bdp + k))
    q_max = k + n
    return SteadyState(
        n_flows=n, bdp_pkts=bdp, k_pkts=k, w_star=w_star, alpha=alpha, alpha_approx=math.sqrt(2.0 / w_star),
        window_amplitude=d, queue_amplitude=n * d, queue_amplitude_approx=a_approx,
        period_rtts=0.5 * math.sqrt(2.0 * (bdp + k) / n), q_max=q_max, q_min=q_max - a_approx,
    )


def k_lower_bound(bdp_pkts: float) -> float:
    """Eq. (13): the smallest K (packets) for which Q_min (eq. 12) stays above 0 for every N, ``C·RTT/7``."""
    return check_real("bdp_pkts", bdp_pkts, 0.0, 1e12, low_open=True) / 7.0


def g_upper_bound(bdp_pkts: float, k_pkts: float) -> float:
    """Eq. (15): the largest estimation gain g for which α spans a whole period, ``1.386/√(2(C·RTT + K))``."""
    bdp = check_real("bdp_pkts", bdp_pkts, 0.0, 1e12, low_open=True)
    k = check_real("k_pkts", k_pkts, 0.0, 1e12)
    return 1.386 / math.sqrt(2.0 * (bdp + k))
