"""The datacenter examples end to end through the Python package: DCTCP through step marking holds the queue
near K with the link full where NewReno through DropTail fills the buffer, and incast's goodput collapse
behind a shallow buffer with its two cures (a deeper buffer; DCTCP on persistent connections)."""

from __future__ import annotations

import subprocess
import sys

import bufferlab


def test_dctcp_example_holds_the_queue_near_k() -> None:
    r = bufferlab.run("dctcp")
    port = r.ports.iloc[0]
    assert port.utilization > 0.99
    assert port.drops == 0 and port.marks > 0
    assert 30 < port.queue_mean_pkts < 75, port.queue_mean_pkts  # K = 65
    tail = bufferlab.run("dctcp", overrides=["tcp.congestion_control=newreno", "tcp.ecn=false",
                                               'bottleneck.queue={discipline="droptail", limit=600}'])
    assert tail.ports.iloc[0].queue_mean_pkts > 300
    assert r.groups.iloc[0].congestion_control == "dctcp"


def test_incast_example_collapses_and_is_cured() -> None:
    run = bufferlab.run("incast")
    # No flow rows (every response is a finite flow of the group): Jain's index over rows is undefined.
    assert run.summary["flows"] == 0 and run.summary["jain_index"] is None
    collapsed = run.groups.iloc[0]
    assert collapsed.incast_rounds >= 40
    assert collapsed.rct_p50_s > 0.2 and collapsed.incast_goodput_bps < 1e8
    deep = bufferlab.run("incast", overrides=["bottleneck.queue.limit=1000"]).groups.iloc[0]
    assert deep.rct_p50_s < 0.01 and deep.incast_goodput_bps > 9e8
    dctcp = bufferlab.run("incast", overrides=[
        "tcp.congestion_control=dctcp", "tcp.ecn=true",
        'bottleneck.queue={discipline="step", threshold=20, limit=64}']).groups.iloc[0]
    # The first round's burst of initial windows still overflows; the persistent connections' state cures the
    # rest.
    assert dctcp.rct_p50_s < 0.01 and dctcp.rct_max_s > 0.2
    # Each response is a flow in the group's counts: 32 per round requested.
    assert collapsed.flows_started % 32 == 0 and collapsed.flows_started >= 32 * collapsed.incast_rounds


def test_cli_prints_request_completion_times() -> None:
    command = [sys.executable, "-m", "bufferlab", "run", "incast", "--set", "flows.incast.rounds=5"]
    out = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "incast request completion times" in out.stdout
    row = next(line for line in out.stdout.splitlines() if line.strip().startswith("flows ") and "s " in line
               and len(line.split()) == 7)
    assert row.split()[1] == "5"


def test_dctcp_without_ecn_is_refused_naming_the_field() -> None:
    try:
        bufferlab.run("dctcp", overrides=["tcp.ecn=false"])
    except bufferlab.BufferLabError as exc:
        assert "tcp.ecn" in str(exc) and "dctcp needs ECN" in str(exc)
    else:
        raise AssertionError("dctcp without ECN ran")


def test_shared_buffer_example_protects_the_incast_under_dctcp() -> None:
    r = bufferlab.run("shared-buffer")
    ports = r.ports.set_index("name")
    assert set(ports.shared_buffer) == {"tor"} and set(ports.shared_buffer_bytes) == {1_000_000}
    assert ports.loc["to-h3", "drops"] == 0
    assert (ports.shared_buffer_occupancy_max_bytes <= 1_000_000).all()
    assert ports.loc["to-h1", "queue_mean_pkts"] < 75  # K = 65
    droptail = 'links[{i}].queue={{discipline="droptail", limit=100000}}'
    tail = bufferlab.run("shared-buffer", overrides=["tcp.congestion_control=newreno", "tcp.ecn=false"]
                         + [droptail.format(i=i) for i in range(4)])
    ports = tail.ports.set_index("name")
    assert ports.loc["to-h3", "drop_reasons"]["shared-buffer"] > 0
    assert ports.loc["to-h1", "queue_mean_pkts"] > 100
    with_pool = bufferlab.resolve("shared-buffer")["shared_buffers"][0]
    assert with_pool == {"name": "tor", "ports": ["to-h1", "to-h2", "to-h3", "to-h4"], "size": 1_000_000,
                         "admission": "dynamic", "alpha": [1.0, 1.0, 1.0, 1.0]}
