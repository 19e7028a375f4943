"""ns-2's RED `mark_p` (use_mark_p_): with ECN, an early decision marks only while p_b < mark_p and drops
above it; left out, RED always marks. A small ECN dumbbell where p_b often exceeds 0.1."""

from __future__ import annotations

import pytest

import bufferlab
from bufferlab.errors import BufferLabError
from bufferlab.validation import ns3sim

# 10 Mb/s, 20 ECN flows, RED with max_p 0.5 over [5, 30] packets: p_b passes 0.1 at avg 10.
BASE = ["bottleneck.rate=\"10Mbps\"", "flows.count=20", "duration=20s", "warmup=5s",
        "bottleneck.queue.limit=100", "bottleneck.queue.min_th=5", "bottleneck.queue.max_th=30",
        "bottleneck.queue.max_p=0.5", "bottleneck.queue.weight=0.02"]


def run(seed: int, *extra: str) -> dict:
    r = bufferlab.run("red-ecn", overrides=[*BASE, f"seed={seed}", *extra], progress=False)
    s = r.summary
    assert s["sent"] == s["delivered"] + s["dropped"] + s["in_flight"]
    return s


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_mark_p_turns_high_probability_marks_into_drops(seed: int) -> None:
    always, cut = run(seed), run(seed, "bottleneck.queue.mark_p=0.1")
    assert always["marks"] > 0 and always["drops_early"] == 0  # ECT only: every early decision marks
    assert cut["drops_early"] > 0
    assert cut["dropped"] > always["dropped"]
    assert cut["marks"] < always["marks"]


def test_mark_p_one_is_always_mark_below_the_gentle_line() -> None:
    # p_b never reaches 1 below 2·max_th, so mark_p = 1 decides exactly as no mark_p.
    a, b = run(4), run(4, "bottleneck.queue.mark_p=1")
    assert {k: v for k, v in a.items() if k != "wall_s"} == {k: v for k, v in b.items() if k != "wall_s"}


@pytest.mark.parametrize("bad", ["0", "-0.1", "1.5"])
@pytest.mark.parametrize("disc", ["red", "ared"])
def test_bad_mark_p_names_the_field_and_range(bad: str, disc: str) -> None:
    over = ["duration=2s", "warmup=1s", f'bottleneck.queue.discipline="{disc}"',
            f"bottleneck.queue.mark_p={bad}"]
    with pytest.raises(BufferLabError, match=r"bottleneck\.queue\.mark_p.*\(0, 1\]"):
        bufferlab.run("red-ecn", overrides=over, progress=False)


def test_eun_wang_mark_p_needs_the_ns2_reading() -> None:
    with pytest.raises(BufferLabError, match=r"mark_p.*ns2-red"):
        bufferlab.run("eun-wang", overrides=["duration=10s", "warmup=6s", "bottleneck.queue.mark_p=0.1"],
                      progress=False)
    s = bufferlab.run("eun-wang", overrides=["duration=25s", "bottleneck.queue.mode=\"ns2-red\"",
                                             "bottleneck.queue.mark_p=0.1"], progress=False).summary
    assert s["sent"] == s["delivered"] + s["dropped"] + s["in_flight"]


def test_ns3_translator_refuses_mark_p() -> None:
    sc = {"name": "t", "seed": 1, "duration": "10s", "warmup": "2s",
          "bottleneck": {"rate": "10Mbps", "delay": "5ms",
                         "queue": {"discipline": "red", "limit": 100, "ecn": True, "mark_p": 0.1}},
          "flows": {"count": 4, "rtt": "100ms", "start": "0s"},
          "tcp": {"packet_size": "1000B", "ecn": True}}
    with pytest.raises(BufferLabError, match=r"bottleneck\.queue\.mark_p.*ns-3"):
        ns3sim.translate(sc)
    del sc["bottleneck"]["queue"]["mark_p"]
    ns3sim.translate(sc)
