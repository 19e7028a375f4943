"""The engine binding runs in slices: event budgets, Ctrl-C between slices, partial results."""

from __future__ import annotations

import json
import os
import signal
import threading

import pytest

from bufferlab import _engine

#: A UDP source of 6e10 packets per second, allowed by raising limits.events: about an hour of work.
STORM = {
    "duration": "1s",
    "warmup": "10us",
    "bottleneck": {"rate": "10Mbps", "queue": {"discipline": "droptail", "limit": 50}},
    "udp": [{"pattern": "cbr", "rate": "10Tbps", "packet_size": "20B"}],
    "limits": {"events": 1e11},
}


def test_event_budgets_slice_a_run_without_changing_it() -> None:
    small = dict(STORM, duration="0.01s", udp=[{"pattern": "cbr", "rate": "20Mbps", "packet_size": "500B"}])
    whole = _engine.Simulation(json.dumps(small)).finish()[:3]
    sim = _engine.Simulation(json.dumps(small))
    slices = 0
    while not sim.advance(0.01, 7):
        slices += 1
    assert slices > 10 and sim.events() > 70
    assert sim.finish()[:3] == whole


def test_ctrl_c_interrupts_advance_and_keeps_a_partial_result() -> None:
    sim = _engine.Simulation(json.dumps(STORM))
    assert sim.estimate()[1] > 6e10
    threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT)).start()
    # The event budget only guards the test against a binding that ignores signals.
    with pytest.raises(KeyboardInterrupt):
        sim.advance(1.0, 2_000_000_000)
    now = sim.now_s()
    assert 0 < now < 1.0
    summary = json.loads(sim.finish(partial=True)[0])["summary"]
    assert summary["partial"] is True and summary["duration_s"] == now
    assert summary["sent"] == summary["delivered"] + summary["dropped"] + summary["in_flight"]
    assert 0.0 <= summary["utilization"] <= 1.0


def test_nothing_to_report_before_the_warmup_ends() -> None:
    sim = _engine.Simulation(json.dumps(dict(STORM, warmup="0.5s")))
    sim.advance(0.0001)
    with pytest.raises(RuntimeError, match="before the warm-up ended"):
        sim.finish(partial=True)
    assert sim.now_s() == pytest.approx(0.0001)
