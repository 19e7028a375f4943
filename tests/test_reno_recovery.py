"""``tcp.recovery``: classic Reno fast recovery (RFC 5681 §3.2, ns-2's Agent/TCP/Reno) beside the default
NewReno, through the Python API.

Measured on the dumbbell below (10 flows, 10 Mb/s, DropTail of 10 packets, no SACK, 20 s): timeouts
newreno / reno 53 / 126, 54 / 147, 57 / 146 for seeds 1-3, utilization 0.85 / 0.69, 0.79 / 0.65,
0.77 / 0.66. Reno leaves recovery at the first partial ACK, so a second loss in the window needs three new
duplicate ACKs or the timer; with a 10-packet buffer most such windows are too small for the former.
"""

from __future__ import annotations

import pandas as pd
import pytest

import bufferlab
from bufferlab.errors import BufferLabError
from bufferlab.validation import ns3sim


def dumbbell(seed: int = 1, **tcp: object) -> dict:
    return {
        "name": "reno",
        "seed": seed,
        "duration": "20s",
        "warmup": "5s",
        "bottleneck": {"rate": "10Mbps", "delay": "5ms", "queue": {"discipline": "droptail", "limit": 10}},
        "flows": {"count": 10, "rtt": {"uniform": ["40ms", "120ms"]}, "start": {"uniform": ["0s", "1s"]}},
        "tcp": {"sack": False, **tcp},
    }


def without_wall_time(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k != "wall_s"}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_reno_conserves_packets_and_times_out_at_least_as_often_as_newreno(seed: int) -> None:
    runs = {rec: bufferlab.run(dumbbell(seed, recovery=rec)).summary for rec in ("newreno", "reno")}
    for rec, s in runs.items():
        assert s["sent"] == s["delivered"] + s["dropped"] + s["in_flight"], rec
        assert s["sent"] > 10_000 and s["fast_retransmits"] > 100, rec
        assert 0.0 < s["utilization"] <= 1.0 + 1e-9, rec
    assert runs["reno"]["timeouts"] >= runs["newreno"]["timeouts"] > 0
    assert runs["reno"]["utilization"] < runs["newreno"]["utilization"]


def test_newreno_is_the_default() -> None:
    assert bufferlab.resolve(dumbbell())["groups"][0]["tcp"]["recovery"] == "newreno"
    default, explicit = bufferlab.run(dumbbell()), bufferlab.run(dumbbell(recovery="newreno"))
    assert without_wall_time(default.summary) == without_wall_time(explicit.summary)
    pd.testing.assert_frame_equal(default.flows, explicit.flows)


def test_reno_ignores_sack() -> None:
    # The receiver still sends SACK blocks, but the Reno sender reads none of them: the same run.
    sc = dumbbell(recovery="reno")
    with_sack = dumbbell(recovery="reno", sack=True)
    assert bufferlab.resolve(with_sack)["groups"][0]["tcp"]["sack"] is True
    a, b = bufferlab.run(sc), bufferlab.run(with_sack)
    assert without_wall_time(a.summary) == without_wall_time(b.summary)
    pd.testing.assert_frame_equal(a.flows, b.flows)
    # Under NewReno, SACK changes the run.
    assert bufferlab.run(dumbbell(sack=True)).summary["sent"] != bufferlab.run(dumbbell()).summary["sent"]


@pytest.mark.parametrize("value", ["tahoe", "Reno", 3, True])
def test_an_invalid_value_names_the_field_and_the_choices(value: object) -> None:
    with pytest.raises(BufferLabError, match=r'^tcp\.recovery: expected "newreno" or "reno", got '):
        bufferlab.run(dumbbell(recovery=value))
    sc = dumbbell()
    sc["flows"]["tcp"] = {"recovery": value}
    with pytest.raises(BufferLabError, match=r'^flows\.tcp\.recovery: expected "newreno" or "reno"'):
        bufferlab.run(sc)


def test_ns3_translation_refuses_reno() -> None:
    sc = dumbbell(recovery="reno", sack=True)
    with pytest.raises(BufferLabError, match=r"^tcp\.recovery: ns-3 3\.44 has no classic Reno"):
        ns3sim.translate(sc)
    assert '`tcp.recovery = "reno"`' in ns3sim.NS3_CANNOT_CHECK_FEATURES
    # The default translates (SACK on, as the comparison needs).
    assert ns3sim.translate(dumbbell(recovery="newreno", sack=True))["tcp"]["sack"] is True
