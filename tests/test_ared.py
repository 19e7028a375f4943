"""The Adaptive RED example from Python: it conserves packets, derives its thresholds and weight from the
link, and adapts max_p until the average queue sits in the target band, higher max_p for more flows."""

from __future__ import annotations

import math

import pytest

import bufferlab

SHORT = ["duration=30s", "warmup=10s"]
# 100 Mb/s of 1000-byte packets: C = 12,500 packets/s; min_th = 5 ms * C / 2, max_th = 3 * min_th.
C = 12_500.0
MIN_TH, MAX_TH = 0.005 * C / 2, 3 * 0.005 * C / 2
BAND = (MIN_TH + 0.4 * (MAX_TH - MIN_TH), MIN_TH + 0.6 * (MAX_TH - MIN_TH))


def run(*overrides: str) -> bufferlab.Results:
    return bufferlab.run("ared", overrides=[*SHORT, *overrides], progress=False)


@pytest.mark.parametrize("update", ["arrival", "timer"])
def test_example_settles_in_the_target_band(update: str) -> None:
    r = run(f'bottleneck.queue.update="{update}"')
    s = r.summary
    assert s["sent"] == s["delivered"] + s["dropped"] + s["in_flight"]
    state = r.ports.loc[0, "queue_state"]
    assert (state["min_th"], state["max_th"]) == (MIN_TH, MAX_TH) == (31.25, 93.75)
    assert state["weight"] == pytest.approx(1 - math.exp(-1 / C), rel=1e-12)
    assert state["bottom"] == pytest.approx(8 * 1000 * 0.1 / 100e6, rel=1e-12)  # ns-3's min(0.01, rtt/C)
    # max_p moved from its initial 0.02, both ways, within its bounds (one step past each at most).
    assert state["max_p"] != 0.02
    assert state["increases"] > 0 and state["decreases"] > 0
    assert state["bottom"] * 0.9 <= state["max_p"] <= 0.5 + 0.01
    # The queue over the measurement sits in the band [56.25, 68.75] packets: about 5 ms at 100 Mb/s.
    assert BAND[0] <= s["queue_mean_pkts"] <= BAND[1], s["queue_mean_pkts"]
    assert 0.0045 <= s["delay_mean_s"] <= 0.0055
    # Early drops only: the average never nears 2 * max_th, nor the queue the 2500-packet buffer.
    assert s["drops_early"] > 0 and s["drops_forced"] == 0 and s["drops_overflow"] == 0
    assert s["utilization"] > 0.97


def test_more_flows_need_a_higher_max_p_for_the_same_queue() -> None:
    few, many = run("flows.count=50"), run("flows.count=200")
    for r in (few, many):
        assert BAND[0] <= r.summary["queue_mean_pkts"] <= BAND[1], r.summary["queue_mean_pkts"]
    p_few, p_many = (r.ports.loc[0, "queue_state"]["max_p"] for r in (few, many))
    assert p_many > 3 * p_few, (p_few, p_many)
    assert many.summary["drops_early"] > 3 * few.summary["drops_early"]
