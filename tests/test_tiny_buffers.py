"""Enachescu et al. 2005 ("Routers with very small buffers") in the engine: the built-in examples, and the
loss of Poisson-injection TCP (§2.3) against the M/D/1/B queue of Theorem 1 (bufferlab.models)."""

from __future__ import annotations

import numpy as np
import pytest

import bufferlab
from bufferlab.models import enachescu, queueing


def run(name_or_dict, *overrides: str):
    return bufferlab.run(name_or_dict, overrides=list(overrides), progress=False)


def test_tiny_buffers_paced_tcp_keeps_the_link_busy_where_reno_does_not() -> None:
    """Fig. 1: 40 flows, W_max = 32, 100 Mb/s, 10-packet buffer. The paper: paced >= 80 %, Reno far below
    (it needs about 100 packets)."""
    short = ("duration=200s", "warmup=40s", "monitor.cwnd=false")
    paced = run("tiny-buffers", *short).summary
    linux = run("tiny-buffers", *short, "tcp.pacing='linux'").summary
    reno = run("tiny-buffers", *short, "tcp.pacing=false").summary
    big = run("tiny-buffers", *short, "tcp.pacing=false", "bottleneck.queue.limit=100").summary
    for s in (paced, linux, reno, big):
        assert s["sent"] == s["delivered"] + s["dropped"] + s["in_flight"]
    assert paced["utilization"] > 0.85 and linux["utilization"] > 0.85, (paced, linux)
    assert reno["utilization"] < 0.6, reno
    assert paced["loss_rate"] < reno["loss_rate"] / 10
    assert big["utilization"] > 0.8, big
    assert bufferlab.resolve("tiny-buffers")["groups"][0]["tcp"]["pacing"] == "rtt"


def test_poisson_injection_example_meets_theorem_1() -> None:
    """The paper's example: W_max = 64, rho = 0.5, B = 15 packets (limit 14 waiting) => theta >= 0.9."""
    scenario = bufferlab.load_scenario("poisson-injection")
    rate_pps = 102.4e6 / 8000
    rho = scenario["flows"]["count"] * scenario["tcp"]["max_window"] / (0.1 * rate_pps)
    assert rho == pytest.approx(0.5)
    b = scenario["bottleneck"]["queue"]["limit"] + 1
    assert b == enachescu.theorem1_buffer(64, rho, 0.9) == 15
    s = run(scenario).summary
    assert s["sent"] == s["delivered"] + s["dropped"] + s["in_flight"]
    theta = s["utilization"] / rho
    assert theta >= enachescu.theorem1_effective_utilization(b, 64, rho)  # 0.9375
    assert s["loss_rate"] <= rho**b


def _poisson_tcp(seed: int, limit: int) -> dict:
    # 20 flows, W_max = 10, base RTT 100 ms, 20 Mb/s (2,500 packets/s): peak load 20*10/(0.1*2500) = 0.8.
    return {
        "seed": seed, "duration": "100s", "warmup": "10s",
        "bottleneck": {"rate": "20Mbps", "delay": "5ms", "queue": {"discipline": "droptail", "limit": limit}},
        "flows": {"count": 20, "rtt": "100ms", "access_rate": "10Gbps", "start": {"uniform": ["0s", "1s"]}},
        "tcp": {"congestion_control": "poisson", "max_window": 10},
    }


def test_poisson_injection_loss_follows_the_md1b_queue() -> None:
    """Theorem 1's mechanism (Lemmas 1-2): the superposed Poisson flows meet the buffer as an M/D/1/B
    queue, B = limit + 1 places. For each B, the mean loss over three seeds is

    - below the virtual system's, the M/D/1/B loss at the peak load 0.8 (every flow at W_max / RTT);
    - within [0.9, 1.35] times the M/D/1/B loss at the load the flows actually offered (arrivals / C T).
      Measured ratios: 1.03, 1.05, 1.06, 1.13, 1.22 for B = 2, 3, 5, 7, 10. It grows with B because the
      AIMD windows make the aggregate a Poisson process of slowly varying rate, and the loss is convex in
      the load, the more so the larger B; each mean counts 300 to 12,000 drops (standard error <= 6 %).
    """
    seconds, rate_pps = 90.0, 2500.0
    losses, ratios = [], []
    for limit in (1, 2, 4, 6, 9):
        b = limit + 1
        runs = [run(_poisson_tcp(seed, limit)).summary for seed in (1, 2, 3)]
        for s in runs:
            assert s["sent"] == s["delivered"] + s["dropped"] + s["in_flight"]
        loss = float(np.mean([s["loss_rate"] for s in runs]))
        load = float(np.mean([s["arrivals"] for s in runs])) / (rate_pps * seconds)
        assert loss < queueing.md1k_loss(0.8, b), (b, loss)
        ratio = loss / queueing.md1k_loss(load, b)
        assert 0.9 < ratio < 1.35, (b, load, loss, ratio)
        losses.append(loss)
        ratios.append(ratio)
    assert all(np.diff(losses) < 0), losses
