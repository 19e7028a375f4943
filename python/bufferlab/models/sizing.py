"""Buffer-sizing rules, each returned in packets, bytes and milliseconds of queueing delay.

* Rule of thumb: the bandwidth-delay product ``B = C * RTT`` (Villamizar & Song 1994).
* Appenzeller, Keslassy & McKeown, "Sizing router buffers", SIGCOMM 2004: ``B = C * RTT / sqrt(N)``.
* Enachescu et al. 2005, Theorem 1: ``B = log_{1/rho}(W_max^2 / (2 (1 - theta)))``, independent of C, RTT, N.
* Eun & Wang 2008: ``B(N) = Theta(N^beta)``, ``0 < alpha < beta < 1/2``; the paper's simulations use
  ``B = 12 N^(alpha + epsilon)`` with alpha = 0.2, epsilon = 0.1 (Sec. II-B and V, Table I).

Packets are whole packets (rounded up); ``exact_packets`` keeps the unrounded value. The delay is the time
to drain a full buffer at the link rate, ``packets * packet_size * 8 / C``. A buffer of ``packets`` holds
that many packets including the one being transmitted (queue capacity K); the engine's DropTail ``limit``
is ``packets - 1`` (at least 1, the engine's smallest queue).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Dict

from bufferlab.errors import BufferLabError
from bufferlab.models._checks import check_int, check_open_interval, check_range
from bufferlab.models.enachescu import theorem1_buffer

__all__ = [
    "BufferSize",
    "bdp_packets",
    "buffer_from_packets",
    "rule_of_thumb",
    "sqrt_n_rule",
    "enachescu_rule",
    "eun_wang_rule",
]


@dataclass(frozen=True)
class BufferSize:
    """One rule's buffer: ``packets`` (whole), ``bytes``, ``delay_ms`` at the link rate, and provenance."""

    rule: str
    packets: int
    exact_packets: float
    bytes: int
    delay_ms: float
    formula: str
    source: str

    @property
    def droptail_limit(self) -> int:
        """Engine DropTail ``limit`` (packets waiting, excluding the one in service): ``packets - 1``, but at
        least 1, the engine's smallest queue (a buffer of 1 packet or less has no engine equivalent)."""
        return max(self.packets - 1, 1)

    def to_dict(self) -> Dict[str, Any]:
        d = asdict(self)
        d["droptail_limit"] = self.droptail_limit
        return d


def _capacity(capacity_bps: float) -> float:
    return float(check_range("capacity_bps", capacity_bps, 0.0, None, low_open=True))


def _pkt(packet_size_bytes: int) -> int:
    return int(check_int("packet_size_bytes", packet_size_bytes, 1))


def bdp_packets(capacity_bps: float, rtt_s: float, packet_size_bytes: int = 1500) -> float:
    """Bandwidth-delay product ``C * RTT / (8 * packet size)`` in (fractional) packets."""
    c = _capacity(capacity_bps)
    rtt = float(check_range("rtt_s", rtt_s, 0.0, None, low_open=True))
    return c * rtt / (8.0 * _pkt(packet_size_bytes))


def buffer_from_packets(
    rule: str,
    exact_packets: float,
    capacity_bps: float,
    packet_size_bytes: int,
    formula: str = "",
    source: str = "",
) -> BufferSize:
    """Wrap a packet count into a :class:`BufferSize`: rounded up, with bytes and drain delay."""
    c = _capacity(capacity_bps)
    p = _pkt(packet_size_bytes)
    x = float(check_range("packets", exact_packets, 0.0, None))
    pk = int(math.ceil(x - 1e-9 * max(1.0, x)))
    nbytes = pk * p
    return BufferSize(
        rule=rule,
        packets=pk,
        exact_packets=x,
        bytes=nbytes,
        delay_ms=nbytes * 8.0 / c * 1e3,
        formula=formula,
        source=source,
    )


def rule_of_thumb(capacity_bps: float, rtt_s: float, packet_size_bytes: int = 1500) -> BufferSize:
    """Bandwidth-delay product ``B = C * RTT`` (the rule of thumb; drain delay = one RTT)."""
    b = bdp_packets(capacity_bps, rtt_s, packet_size_bytes)
    return buffer_from_packets("bdp", b, capacity_bps, packet_size_bytes, "C*RTT", "rule of thumb")


def sqrt_n_rule(capacity_bps: float, rtt_s: float, flows: int, packet_size_bytes: int = 1500) -> BufferSize:
    """``B = C * RTT / sqrt(N)`` for N desynchronised long-lived flows (Appenzeller et al., SIGCOMM 2004)."""
    n = int(check_int("flows", flows, 1))
    b = bdp_packets(capacity_bps, rtt_s, packet_size_bytes) / math.sqrt(n)
    return buffer_from_packets(
        "bdp/sqrt(N)", b, capacity_bps, packet_size_bytes, "C*RTT/sqrt(N)", "Appenzeller et al. 2004"
    )


def enachescu_rule(
    capacity_bps: float, w_max: float, rho: float, theta: float, packet_size_bytes: int = 1500
) -> BufferSize:
    """Theorem 1 of Enachescu et al. 2005, eq. (1): ``B = ceil(log_{1/rho}(W_max^2/(2(1-theta))))``.

    ``rho`` is the peak load ``N W_max/(C RTT)`` (must be < 1), ``theta`` the effective utilization; the
    capacity only converts packets to a delay.
    """
    b = float(theorem1_buffer(w_max, rho, theta, integer=False))
    return buffer_from_packets(
        "enachescu-log",
        b,
        capacity_bps,
        packet_size_bytes,
        "log_{1/rho}(W_max^2/(2(1-theta)))",
        "Enachescu et al. 2005, Thm 1",
    )


def eun_wang_rule(
    capacity_bps: float,
    flows: int,
    alpha: float = 0.2,
    epsilon: float = 0.1,
    coefficient: float = 12.0,
    packet_size_bytes: int = 1500,
) -> BufferSize:
    """Eun & Wang 2008: ``B(N) = coefficient * N^(alpha + epsilon)``, ``0 < alpha < alpha + epsilon < 1/2``.

    Defaults are the paper's simulation values (alpha = 0.2, epsilon = 0.1, coefficient 12: B = 12 N^0.3;
    Table I). The rule presumes AQM marking with thresholds scaled as N^alpha.
    """
    n = int(check_int("flows", flows, 1))
    a = float(check_open_interval("alpha", alpha, 0.0, 0.5))
    e = float(check_range("epsilon", epsilon, 0.0, None, low_open=True))
    if a + e >= 0.5:
        raise BufferLabError(f"alpha + epsilon (= beta) must be in (alpha, 0.5), got {a + e:g}")
    k = float(check_range("coefficient", coefficient, 0.0, None, low_open=True))
    b = k * n ** (a + e)
    return buffer_from_packets(
        "eun-wang",
        b,
        capacity_bps,
        packet_size_bytes,
        f"{k:g}*N^{a + e:g}",
        "Eun & Wang 2008, Sec. V",
    )
