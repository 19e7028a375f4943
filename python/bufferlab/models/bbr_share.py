"""BBR's share of a bottleneck against loss-based flows: Ware, Mukerjee, Seshan & Sherry, "Modeling BBR's
Interactions with Loss-Based Congestion Control", ACM IMC 2019, §5.

N synchronized BBR (v1) flows and loss-based flows (Cubic or Reno) fill a DropTail queue of q packets on a
link of c packets per second with a congestion-free RTT l. BBR is limited by its in-flight cap, twice its
estimated BDP (eq. 1); its RTT estimate includes the queue the loss-based flows keep (eq. 7). Equation
numbers are the paper's:

* eq. (5), the simple model (one BBR flow, q ≫ c·l): the loss-based flows' share ``p = 1/2``;
* eq. (9), ``p = 1/2 − 1/(2X) − 4N/q`` with ``X = q/(c·l)``; a negative p means BBR takes the whole link;
* eq. (11), the time spent in ProbeRTT over d seconds, ``(q/c + 0.2 + l)·d/10``;
* eq. (10), BBR's fraction of the link, ``(1 − p)·(d − Probe_time)/d``, which does not depend on d.
"""

from __future__ import annotations

from bufferlab.models._checks import check_integer, check_real

__all__ = ["loss_based_share", "probe_fraction", "bbr_fraction", "inflight_cap"]


def _args(n_bbr: int, queue_pkts: float, rate_pps: float, rtt_s: float) -> tuple:
    return (check_integer("n_bbr", n_bbr, 1, 10**6),
            check_real("queue_pkts", queue_pkts, 0.0, 1e12, low_open=True),
            check_real("rate_pps", rate_pps, 0.0, 1e12, low_open=True),
            check_real("rtt_s", rtt_s, 0.0, 1e6, low_open=True))


def loss_based_share(n_bbr: int, queue_pkts: float, rate_pps: float, rtt_s: float) -> float:
    """Eq. (9): the loss-based flows' share p of the link, clipped to [0, 1] (p < 0: BBR's in-flight cap
    exceeds the BDP plus the queue, and BBR takes the whole link)."""
    n, q, c, lat = _args(n_bbr, queue_pkts, rate_pps, rtt_s)
    x = q / (c * lat)
    return min(1.0, max(0.0, 0.5 - 1.0 / (2.0 * x) - 4.0 * n / q))


def inflight_cap(n_bbr: int, queue_pkts: float, rate_pps: float, rtt_s: float, p: float) -> float:
    """Eq. (8): the BBR flows' aggregate in-flight cap (packets) when the loss-based flows hold a share p:
    ``2(1 − p)c·((pq + 4N)/c + l)``."""
    n, q, c, lat = _args(n_bbr, queue_pkts, rate_pps, rtt_s)
    return 2.0 * (1.0 - p) * c * ((p * q + 4.0 * n) / c + lat)


def probe_fraction(queue_pkts: float, rate_pps: float, rtt_s: float) -> float:
    """Eq. (11) over d: the fraction of the time BBR spends in ProbeRTT, ``(q/c + 0.2 + l)/10`` (the full
    queue drained, 200 ms and a round trip, every 10 s), at most 1."""
    _n, q, c, lat = _args(1, queue_pkts, rate_pps, rtt_s)
    return min(1.0, (q / c + 0.2 + lat) / 10.0)


def bbr_fraction(n_bbr: int, queue_pkts: float, rate_pps: float, rtt_s: float) -> float:
    """Eq. (10): the BBR flows' aggregate fraction of the link, ``(1 − p)(1 − Probe_time/d)``."""
    p = loss_based_share(n_bbr, queue_pkts, rate_pps, rtt_s)
    return (1.0 - p) * (1.0 - probe_fraction(queue_pkts, rate_pps, rtt_s))
