"""The ns-3 translator, the comparison's tolerances, the validate command, and a tiny real ns-3 run."""

from __future__ import annotations

import argparse
import types
from pathlib import Path

import pytest

from bufferlab.errors import BufferLabError
from bufferlab.validation import cli, compare, ns3sim

ROOT = Path(__file__).resolve().parents[1]


def scenario(**over):
    sc = {
        "name": "t",
        "seed": 3,
        "duration": "10s",
        "warmup": "2s",
        "bottleneck": {"rate": "100Mbps", "delay": "5ms", "queue": {"discipline": "droptail", "limit": 100}},
        "flows": {"count": 4, "rtt": "100ms", "start": "0s"},
        "tcp": {"packet_size": "1000B", "header_size": "40B"},
    }
    for k, v in over.items():
        sc[k] = v
    return sc


# ---------------------------------------------------------------------------------------------- units


def test_units():
    # The translator reads units with bufferlab.units, i.e. the engine's grammar (tests/test_units.py).
    cfg = ns3sim.translate(scenario(bottleneck={"rate": "1.5Gbps", "delay": "0s"}, warmup=0,
                                    tcp={"packet_size": "1.5KB", "header_size": "40B", "min_rto": "250us"}))
    assert cfg["bottleneck"]["rate_bps"] == 1.5e9 and cfg["bottleneck"]["delay_s"] == 0.0
    assert cfg["warmup_s"] == 0.0 and cfg["tcp"]["packet_size"] == 1500
    assert cfg["tcp"]["min_rto_s"] == pytest.approx(250e-6)
    with pytest.raises(BufferLabError, match="bottleneck.rate: .* case-sensitive SI: '100Mbps'"):
        ns3sim.translate(scenario(bottleneck={"rate": "100mbps"}))
    with pytest.raises(BufferLabError, match="tcp.min_rto"):
        ns3sim.translate(scenario(tcp={"min_rto": "fast"}))


# ---------------------------------------------------------------------------------------- translator


def test_droptail_limit_and_sizes():
    cfg = ns3sim.translate(scenario())
    q = cfg["bottleneck"]["queue"]
    # The device queue holds the next packet to serialize: the queue disc keeps limit - 1 of them.
    assert q["device_queue_pkts"] == 1 and q["ns3_max_size"] == "99p"
    tcp = cfg["tcp"]
    assert tcp["segment_size"] == 960 and tcp["wire_size"] == 1000 and tcp["timestamps"] is False
    assert tcp["socket_type"] == "ns3::TcpNewReno" and tcp["recovery_type"] == "ns3::TcpClassicRecovery"
    assert tcp["del_ack_count"] == 1 and tcp["sack"] is True
    assert tcp["min_rto_s"] == pytest.approx(0.2)
    # PPP's 2-byte header is compensated so a data packet serializes in packet_size * 8 / rate.
    assert cfg["bottleneck"]["ns3_rate_bps"] == pytest.approx(100e6 * 1002 / 1000)
    # The semantic differences left by default: ns-3 halves pipe and ends the backoff at any new ACK.
    assert [n.split(":")[0] for n in cfg["notes"]] == ["tcp.ssthresh_from", "tcp.rto_backoff"]
    sc = scenario()
    sc["tcp"] = {**sc.get("tcp", {}), "ssthresh_from": "pipe", "rto_backoff": "new-ack"}
    assert ns3sim.translate(sc)["notes"] == []
    assert tcp["limited_transmit"] is True


def test_access_delay_and_handshake_offset():
    cfg = ns3sim.translate(scenario(), rtts=[0.05, 0.1, 0.2, 0.3], starts=[0.0, 0.1, 0.2, 0.3])
    fl = cfg["flows"]
    assert fl["access_delay_s"] == pytest.approx([0.02, 0.045, 0.095, 0.145])
    t0 = cfg["t0_s"]
    assert t0 >= 0.3
    # The application opens its connection one RTT early so data starts at t0 + start.
    assert fl["ns3_app_start_s"] == pytest.approx([t0 + s - r for s, r in zip(fl["start_s"], fl["rtt_s"])])
    assert min(fl["ns3_app_start_s"]) >= 0
    assert cfg["stop_s"] == pytest.approx(t0 + 10.0)
    assert fl["locally_drawn"] == []


def test_uniform_is_drawn_locally_and_flagged():
    flows = {"count": 5, "rtt": {"uniform": ["50ms", "150ms"]}, "start": {"uniform": ["0s", "1s"]}}
    sc = scenario(flows=flows)
    cfg = ns3sim.translate(sc)
    assert set(cfg["flows"]["locally_drawn"]) == {"rtt", "start"}
    assert all(0.05 <= r <= 0.15 for r in cfg["flows"]["rtt_s"])
    assert ns3sim.translate(sc) == cfg  # seeded


def test_red_mapping():
    sc = scenario(bottleneck={"rate": "10Mbps", "delay": "5ms",
                              "queue": {"discipline": "red", "limit": 200, "ecn": True}},
                  tcp={"ecn": True, "delayed_ack": True})
    cfg = ns3sim.translate(sc)
    q = cfg["bottleneck"]["queue"]
    assert q["ns3_max_size"] == "199p"
    assert (q["ns3_min_th"], q["ns3_max_th"]) == (4.0, 14.0)  # RED sees the queue disc: one packet less
    assert q["ns3_linterm"] == pytest.approx(10.0)
    assert q["weight"] == 0.002 and q["gentle"] and q["wait"] and q["ecn"] and q["ns3_use_hard_drop"]
    assert q["mean_pktsize"] == 1000
    assert cfg["tcp"]["del_ack_count"] == 2 and cfg["tcp"]["ecn"] is True


def test_read_back_must_match_what_was_asked():
    sc = scenario(bottleneck={"rate": "10Mbps", "delay": "5ms",
                              "queue": {"discipline": "red", "limit": 200, "ecn": True}},
                  tcp={"ecn": True})
    cfg = ns3sim.translate(sc)
    # As ns-3 3.44 serializes the installed RedQueueDisc's attributes.
    installed = {
        "MaxSize": "199p", "MinTh": "4", "MaxTh": "14", "LInterm": "10", "QW": "0.002", "Gentle": "true",
        "Wait": "true", "MeanPktSize": "1000", "UseEcn": "true", "UseHardDrop": "true", "ARED": "false",
        "LinkBandwidth": "10000000bps", "LinkDelay": "+5e+06ns", "Ns1Compat": "false",
        "device_queue": "1p", "root_queue_discs_elsewhere": 0,
    }
    ns3sim.check_read_back(cfg, installed)
    for name, wrong in (("MinTh", "5"), ("UseEcn", "false"), ("MaxSize", "200p"), ("ARED", "true"),
                        ("root_queue_discs_elsewhere", 3), ("device_queue", "100p")):
        with pytest.raises(BufferLabError, match=f"installed {name} = "):
            ns3sim.check_read_back(cfg, {**installed, name: wrong})
    with pytest.raises(BufferLabError, match="installed QW = None"):
        ns3sim.check_read_back(cfg, {k: v for k, v in installed.items() if k != "QW"})
    droptail = ns3sim.translate(scenario())
    ns3sim.check_read_back(
        droptail, {"MaxSize": "99p", "device_queue": "1p", "root_queue_discs_elsewhere": 0}
    )


@pytest.mark.parametrize(
    "over, match",
    [
        ({"tcp": {"sack": False}}, "tcp.sack"),
        ({"bottleneck": {"rate": "10Mbps", "queue": {"discipline": "pie"}}}, "discipline"),
        ({"bottleneck": {"rate": "10Mbps", "delay": "80ms"}}, "flows.rtt"),
        ({"bottleneck": {"rate": "10Mbps", "queue": {"limit": 1}}}, "limit"),
        ({"tcp": {"congestion_control": "cubic"}}, "congestion_control"),
    ],
)
def test_translator_rejects(over, match):
    with pytest.raises(BufferLabError, match=match):
        ns3sim.translate(scenario(**over))


def test_header_mismatch_is_noted():
    cfg = ns3sim.translate(scenario(tcp={"packet_size": "1500B", "header_size": "52B"}))
    assert cfg["tcp"]["segment_size"] == 1448
    assert any("header_size" in n for n in cfg["notes"])


# ---------------------------------------------------------------------------------------- tolerances


def test_tolerance_rules():
    assert compare.check("utilization", 0.95, 0.969).verdict == "pass"
    assert compare.check("utilization", 0.95, 0.971).verdict == "fail"
    assert compare.check("loss_rate", 0.012, 0.010).verdict == "pass"  # 20 % relative
    assert compare.check("loss_rate", 0.013, 0.010).verdict == "fail"  # 30 % relative
    assert compare.check("loss_rate", 0.004, 0.0025).verdict == "pass"  # both < 1 %: 0.002 absolute
    assert compare.check("loss_rate", 0.005, 0.0025).verdict == "fail"
    assert compare.check("queue_mean_pkts", 114.0, 100.0).verdict == "pass"
    assert compare.check("queue_mean_pkts", 116.0, 100.0).verdict == "fail"
    assert compare.check("queue_mean_pkts", 0.0, 0.0).verdict == "pass"
    assert compare.check("jain_index", 0.95, 0.979).verdict == "pass"
    assert compare.check("jain_index", 0.95, 0.99).verdict == "fail"
    assert compare.check("delay_mean_s", 1.0, 2.0).verdict == "-"
    with pytest.raises(BufferLabError):
        compare.check("nonsense", 1, 1)


def test_compare_summaries_marks_only_with_ecn_and_missing_metric_fails():
    ref = {"utilization": 0.9, "loss_rate": 0.0, "mark_rate": 0.02, "queue_mean_pkts": 10.0,
           "jain_index": 0.99, "queue_p99_pkts": 20, "delay_mean_s": 0.001, "goodput_bps": 1e6}
    ours = dict(ref)
    assert "mark_rate" not in [r.metric for r in compare.compare_summaries(ours, ref)]
    rows = compare.compare_summaries(ours, ref, ecn=True)
    assert all(r.passed for r in rows) and "mark_rate" in [r.metric for r in rows]
    del ours["jain_index"]
    rows = compare.compare_summaries(ours, ref)
    assert [r.verdict for r in rows if r.metric == "jain_index"] == ["fail"]


def test_compare_scenario_passes_engine_flows_to_ns3():
    pd = pytest.importorskip("pandas")
    summary = {"utilization": 0.97, "loss_rate": 0.011, "queue_mean_pkts": 50.0, "jain_index": 0.98,
               "queue_p99_pkts": 99, "delay_mean_s": 0.004, "goodput_bps": 9e6}
    res = types.SimpleNamespace(
        summary=summary,
        flows=pd.DataFrame({"flow": [0, 1, 2, 3], "rtt_s": [0.1, 0.12, 0.14, 0.16],
                            "start_s": [0.0, 0.3, 0.6, 0.9], "goodput_bps": [2e6, 2.2e6, 2.4e6, 2.4e6]}),
        queue_series=pd.DataFrame({"time_s": [0.0, 0.01], "queue_pkts": [0, 3]}),
    )
    seen = {}

    def fake_ns3(sc, rtts=None, starts=None):
        seen.update(rtts=rtts, starts=starts)
        out = dict(summary, utilization=0.99, wall_s=5.0, events=10, flows=[{"goodput_bps": 2e6}] * 4)
        return out

    comp = compare.compare_scenario(scenario(), engine_runner=lambda sc: res, ns3_runner=fake_ns3)
    assert seen == {"rtts": [0.1, 0.12, 0.14, 0.16], "starts": [0.0, 0.3, 0.6, 0.9]}
    assert comp.verdict == "pass" and comp.ns3_wall_s == 5.0
    assert "| utilization |" in compare.table_markdown(comp)
    comp2 = compare.compare_scenario(scenario(), engine_runner=lambda sc: res,
                                     ns3_runner=lambda sc, **kw: dict(fake_ns3(sc, **kw), utilization=0.94))
    assert comp2.verdict == "fail"


def test_unsupported_discipline_is_skipped_not_passed():
    sc = scenario(bottleneck={"rate": "10Mbps", "queue": {"discipline": "odt"}})
    comp = compare.compare_scenario(sc, engine_runner=lambda s: None, ns3_runner=lambda s, **k: {})
    assert comp.verdict == "skipped" and "odt" in comp.skipped


# ---------------------------------------------------------------------------------------- command


def test_validate_without_ns3_exits_2(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(ns3sim, "ns3_available", lambda: False)
    args = argparse.Namespace(scenarios=[str(ROOT / "validation/scenarios/v03-10flows-droptail-0.5bdp.toml")],
                              quick=False, out=str(tmp_path), ns3_only=False, isolate=False)
    assert cli.handler(args) == 2
    assert "ns-3 is not installed" in capsys.readouterr().err


def test_validate_bad_file():
    args = argparse.Namespace(scenarios=["/nonexistent.toml"], quick=False, out="x", ns3_only=False,
                              isolate=False)
    with pytest.raises(BufferLabError, match="no such scenario"):
        cli.handler(args)


def test_matrix_scenarios_translate():
    files = sorted((ROOT / "validation/scenarios").glob("*.toml"))
    assert len(files) >= 12
    counts, discs = set(), set()
    for f in files:
        sc = cli._load_toml(f)
        cfg = ns3sim.translate(sc)
        # Like with like: every TCP rule ns-3 3.44 follows and the engine offers is selected.
        assert not [n for n in cfg["notes"] if n.startswith("tcp.")], (f.name, cfg["notes"])
        counts.add(cfg["flows"]["count"])
        q = sc["bottleneck"]["queue"]
        discs.add((q["discipline"], bool(q.get("ecn", False))))
    assert {1, 10, 100, 1000} <= counts
    assert {("droptail", False), ("red", False), ("red", True)} <= discs
    quick = [ln for ln in (ROOT / "validation/quick.txt").read_text().splitlines() if ln.endswith(".toml")]
    assert 2 <= len(quick) <= 3 and all((ROOT / "validation/scenarios" / q).exists() for q in quick)


# ---------------------------------------------------------------------------------------- real ns-3


def test_ns3_single_flow_window_limited():
    pytest.importorskip("ns")
    # 1 flow, W = 50 packets, RTT 100 ms, C = 10 Mb/s (1250 pkt/s): W/RTT/C = 0.4 (slightly less: the
    # real RTT adds serialization), and a large buffer that never fills.
    sc = scenario(
        duration="6s", warmup="2s",
        bottleneck={"rate": "10Mbps", "delay": "5ms", "queue": {"limit": 1000}},
        flows={"count": 1, "rtt": "100ms"},
        tcp={"max_window": 50},
    )
    r = ns3sim.run_ns3(sc)
    assert 0.38 <= r["utilization"] <= 0.40
    assert r["drops"] == 0 and r["queue_mean_pkts"] < 1.0 and r["events"] > 0
    assert r["ns3_config"]["read_back"]["MaxSize"] == "999p"
    assert r["ns3_config"]["read_back"]["root_queue_discs_elsewhere"] == 0


def test_ns3_red_repeats_exactly_in_one_process():
    pytest.importorskip("ns")
    # RED draws random numbers; a second simulation in the same interpreter must draw the same ones.
    sc = scenario(
        duration="4s", warmup="1s",
        bottleneck={"rate": "10Mbps", "delay": "5ms",
                    "queue": {"discipline": "red", "limit": 100, "min_th": 5, "max_th": 15}},
        flows={"count": 4, "rtt": "60ms"},
    )
    first, second = ns3sim.run_ns3(sc), ns3sim.run_ns3(sc)
    assert first["drops_early"] > 0
    for key in ("events", "arrivals", "drops_early", "drops_forced", "queue_mean_pkts"):
        assert first[key] == second[key], key


def test_replications_by_flow_count():
    from bufferlab.validation.cli import replications_for

    assert replications_for({"flows": {"count": 10}}, None) == 10
    assert replications_for({"flows": {"count": 100}}, None) == 3
    assert replications_for({"flows": {"count": 1000}}, 1) == 1
    with pytest.raises(BufferLabError, match="--replications"):
        replications_for({"flows": {"count": 10}}, 0)
