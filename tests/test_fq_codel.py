"""The FQ-CoDel example (RFC 8290) from Python: it conserves packets, isolates the UDP stream and the long-RTT
flows where a FIFO does not, reports its flow lists, marks with ECN senders, and names bad parameters."""

from __future__ import annotations

import pytest

import bufferlab
from bufferlab.errors import BufferLabError

SHORT = ["duration=25s", "warmup=5s"]


def conserved(r: bufferlab.Results) -> None:
    s = r.summary
    assert s["sent"] == s["delivered"] + s["dropped"] + s["in_flight"]


def test_example_isolates_flows_where_a_fifo_does_not() -> None:
    fq = bufferlab.run("fq-codel", overrides=SHORT, progress=False)
    droptail = 'bottleneck.queue={discipline="droptail", limit=1250}'
    fifo = bufferlab.run("fq-codel", overrides=[*SHORT, droptail], progress=False)
    conserved(fq)
    conserved(fifo)
    port = fq.ports.loc[0]
    # Per-queue CoDel: drops at dequeue only, reason codel, a standing delay around the 5 ms target.
    assert port["drop_reasons"]["codel"] > 0 and "overflow" not in port["drop_reasons"]
    assert port["drops_at_dequeue"] == port["drops"]
    assert 0.002 < fq.summary["delay_mean_s"] < 0.01
    assert fifo.summary["delay_mean_s"] > 0.1
    # The 2 Mb/s stream, below its fair share, loses nothing; behind the FIFO it shares the losses.
    assert fq.udp.loc[0, "drops"] == 0 and fifo.udp.loc[0, "drops"] > 0
    # Long-RTT flows keep a larger share of the link.
    ratio = {name: r.groups.set_index("name")["goodput_bps"] for name, r in [("fq", fq), ("fifo", fifo)]}
    assert ratio["fq"]["long-rtt"] / ratio["fq"]["short-rtt"] > 0.5
    assert ratio["fifo"]["long-rtt"] / ratio["fifo"]["short-rtt"] < 0.45
    assert fq.summary["jain_index"] > fifo.summary["jain_index"] + 0.1
    assert fq.summary["utilization"] > 0.97
    state = port["queue_state"]
    # 20 TCP flows and the UDP source, each in its own queue with this seed's perturbation.
    assert state["queues_used"] == 21
    assert state["new_flow_count"] >= 21 and state["new_flows"] + state["old_flows"] <= 21


def test_ecn_senders_are_marked_by_default_and_at_the_ce_threshold() -> None:
    over = [*SHORT, "tcp.ecn=true"]
    r = bufferlab.run("fq-codel", overrides=over, progress=False)
    conserved(r)
    marks = r.ports.loc[0, "mark_reasons"]
    assert marks["codel"] > 0 and "ce_threshold" not in marks
    # Only the (Not-ECT) UDP stream could be dropped by CoDel; it stays below its share.
    assert r.summary["drops"] == 0
    ce = bufferlab.run("fq-codel", overrides=[*over, "bottleneck.queue.ce_threshold=1ms"], progress=False)
    conserved(ce)
    assert ce.ports.loc[0, "mark_reasons"]["ce_threshold"] > 0
    assert ce.summary["delay_mean_s"] < r.summary["delay_mean_s"]


@pytest.mark.parametrize("field,value", [("flows", "0"), ("drop_batch", "0"), ("quantum", '"1B"'),
                                         ("hash", '"jenkins"'), ("ecn", "true"), ("ce_threshold", '"1ms"')])
def test_bad_parameters_name_their_field(field: str, value: str) -> None:
    with pytest.raises(BufferLabError, match=rf"bottleneck\.queue\.{field}"):
        bufferlab.run("fq-codel", overrides=[*SHORT, f"bottleneck.queue.{field}={value}"], progress=False)
