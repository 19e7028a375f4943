"""The ns-3 translator, the comparison's tolerances, the validate command, and tiny real ns-3 runs."""

from __future__ import annotations

import argparse
import types
from pathlib import Path

import pytest

import bufferlab
from bufferlab.commands import validate
from bufferlab.errors import BufferLabError
from bufferlab.validation import compare, ns3sim, report

ROOT = Path(__file__).resolve().parents[1]
LIKE_NS3 = {"ssthresh_from": "pipe", "rto_backoff": "new-ack", "ca_increase": "whole-bytes",
            "handshake": True, "recovery_timer": "first-partial-ack", "partial_ack": "send-one",
            "recovery_exit": "grow", "ecn_states": "any"}


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


def parking_lot(**over):
    sc = {
        "name": "pl", "seed": 2, "duration": "10s", "warmup": "2s",
        "parking_lot": {"hops": 2, "rate": "20Mbps", "delay": "5ms",
                        "queue": {"discipline": "droptail", "limit": 125},
                        "cross": {"count": 3, "rtt": "60ms", "start": {"uniform": ["0s", "1s"]}}},
        "flows": {"name": "long", "count": 4, "rtt": {"uniform": ["90ms", "110ms"]}},
        "tcp": dict(LIKE_NS3),
    }
    sc.update(over)
    return sc


def two_way(**over):
    q = {"discipline": "droptail", "limit": 50}
    sc = {
        "name": "tw", "seed": 1, "duration": "4s", "warmup": "1s",
        "links": [{"name": "east", "rate": "10Mbps", "delay": "5ms", "queue": q},
                  {"name": "west", "rate": "10Mbps", "delay": "5ms", "queue": q}],
        "flows": [{"name": "eastbound", "count": 2, "rtt": "60ms", "route": ["east"], "ack_route": ["west"]},
                  {"name": "westbound", "count": 2, "rtt": "60ms", "route": ["west"], "ack_route": ["east"],
                   "tcp": {"delayed_ack": True, "delayed_ack_timeout": "40ms"}}],
        "tcp": dict(LIKE_NS3),
    }
    sc.update(over)
    return sc


# ---------------------------------------------------------------------------------------- translator


def test_droptail_limit_and_sizes():
    cfg = ns3sim.translate(scenario())
    link = cfg["links"][0]
    q = link["queue"]
    # The device queue holds the next packet to serialize: the queue disc keeps limit - 1 of them.
    assert q["device_queue_pkts"] == 1 and q["ns3_max_size"] == "99p"
    assert cfg["routers"] == 2 and (link["from_router"], link["to_router"]) == (0, 1)
    tcp = cfg["tcp"]
    assert tcp is cfg["groups"][0]["tcp"]
    assert tcp["segment_size"] == 960 and tcp["wire_size"] == 1000 and tcp["timestamps"] is False
    assert tcp["socket_type"] == "ns3::TcpNewReno" and tcp["recovery_type"] == "ns3::TcpClassicRecovery"
    assert tcp["del_ack_count"] == 1 and tcp["sack"] is True
    assert tcp["min_rto_s"] == pytest.approx(0.2)
    # PPP's 2-byte header is compensated so a data packet serializes in packet_size * 8 / rate.
    assert link["ns3_rate_bps"] == pytest.approx(100e6 * 1002 / 1000)
    # The semantic differences left by default: ns-3 halves pipe, grows NewReno's window in whole bytes,
    # grows it at the end of fast recovery, reduces for ECN-Echo in recovery too, ends the backoff at any
    # new ACK, and opens every connection with a SYN that a flow starting into a full buffer can lose.
    assert [n.split(":")[0] for n in cfg["notes"]] == [
        "tcp.ssthresh_from", "tcp.ca_increase", "tcp.recovery_timer", "tcp.partial_ack", "tcp.recovery_exit",
        "tcp.ecn_states", "tcp.rto_backoff", "tcp.handshake"]
    assert "ConnTimeout" in cfg["notes"][7] and "whole bytes" in cfg["notes"][1]
    assert "first partial ACK" in cfg["notes"][2] and "outside the pipe" in cfg["notes"][3]
    # One flow alone starts on an idle path: its handshake is exact either way.
    assert "tcp.handshake" not in str(ns3sim.translate(scenario(flows={"count": 1, "rtt": "100ms"}))["notes"])
    sc = scenario()
    sc["tcp"] = {**sc.get("tcp", {}), **LIKE_NS3}
    assert ns3sim.translate(sc)["notes"] == []
    sc["tcp"] = {**scenario()["tcp"], "profile": "ns3"}  # the same switches in one line
    assert ns3sim.translate(sc)["notes"] == []
    assert tcp["limited_transmit"] is True
    # The dumbbell: ACKs return to the senders' block over the bottleneck's reverse direction; the
    # receiver is the router at the far end, reached without a route of its own.
    assert cfg["routes"] == [{"router": 1, "to": "senders", "group": 0, "link": 0, "direction": "reverse"}]
    assert cfg["groups"][0]["socket_attributes"] == {"sender": {}, "receiver": {}}


def test_values_come_from_the_engine_resolver():
    # Units, defaults and per-flow draws are the engine's: a { uniform = ... } is the engine's draw.
    sc = scenario(flows={"count": 5, "rtt": {"uniform": ["50ms", "150ms"]},
                         "start": {"uniform": ["0s", "1s"]},
                         "access_rate": ["1Gbps", "2Gbps", "1Gbps", "500Mbps", "1Gbps"]},
                  tcp={"packet_size": "1.5KB", "min_rto": "250us", "initial_rto": "1s"}, warmup=0)
    cfg = ns3sim.translate(sc)
    res = bufferlab.resolve(sc)
    fl = cfg["groups"][0]["flows"]
    assert fl["rtt_s"] == [f["rtt"] for f in res["groups"][0]["flows"]]
    assert fl["start_s"] == [f["start"] for f in res["groups"][0]["flows"]]
    assert fl["access_delay_s"] == [f["access_delay"] for f in res["groups"][0]["flows"]]
    assert fl["access_rate_bps"] == [1e9, 2e9, 1e9, 5e8, 1e9]
    assert cfg["tcp"]["packet_size"] == 1500 and cfg["tcp"]["min_rto_s"] == pytest.approx(250e-6)
    assert cfg["warmup_s"] == 0.0
    run = bufferlab.run({**sc, "duration": "1.5s"}, progress=False)
    assert fl["rtt_s"] == pytest.approx(list(run.flows["rtt_s"]), abs=1e-12)
    assert fl["start_s"] == pytest.approx(list(run.flows["start_s"]), abs=1e-12)
    # A TOML path works as well as a dict.
    path = ROOT / "validation/scenarios/v06-10flows-red-ecn.toml"
    assert ns3sim.translate(path) == ns3sim.translate(ns3sim.load(path))


def test_access_delay_and_handshake_offset():
    cfg = ns3sim.translate(scenario(flows={"count": 4, "rtt": ["50ms", "100ms", "200ms", "300ms"],
                                           "start": ["0s", "0.1s", "0.2s", "0.3s"]}))
    fl = cfg["groups"][0]["flows"]
    assert fl["access_delay_s"] == pytest.approx([0.02, 0.045, 0.095, 0.145])
    t0 = cfg["t0_s"]
    assert t0 >= 0.3
    # The application opens its connection one RTT early so data starts at t0 + start.
    assert fl["ns3_app_start_s"] == pytest.approx([t0 + s - r for s, r in zip(fl["start_s"], fl["rtt_s"])])
    assert min(fl["ns3_app_start_s"]) >= 0
    assert cfg["stop_s"] == pytest.approx(t0 + 10.0)


def test_red_mapping():
    sc = scenario(bottleneck={"rate": "10Mbps", "delay": "5ms",
                              "queue": {"discipline": "red", "limit": 200, "ecn": True}},
                  tcp={"ecn": True, "delayed_ack": True})
    cfg = ns3sim.translate(sc)
    q = cfg["links"][0]["queue"]
    assert q["ns3_max_size"] == "199p"
    assert (q["ns3_min_th"], q["ns3_max_th"]) == (4.0, 14.0)  # RED sees the queue disc: one packet less
    assert q["ns3_linterm"] == pytest.approx(10.0)
    assert q["weight"] == 0.002 and q["gentle"] and q["wait"] and q["ecn"] and q["ns3_use_hard_drop"]
    assert q["mean_pktsize"] == 1000  # the engine's default: the packet size of the groups crossing it
    assert cfg["tcp"]["del_ack_count"] == 2 and cfg["tcp"]["ecn"] is True


def test_codel_and_pie_mapping():
    # 10 Mb/s, 1000-B packets: one serialization is 0.8 ms. ns-3's queue disc dequeues one packet earlier
    # and holds one packet less, so its delay reference is 0.8 ms lower and MinBytes one packet lower.
    sc = scenario(bottleneck={"rate": "10Mbps", "delay": "5ms",
                              "queue": {"discipline": "codel", "limit": 300, "ecn": True}},
                  tcp={"ecn": True, **LIKE_NS3})
    cfg = ns3sim.translate(sc)
    q = cfg["links"][0]["queue"]
    assert q["ns3_type"] == "ns3::CoDelQueueDisc"
    attrs = ns3sim.queue_disc_attributes(cfg)
    assert attrs == {"MaxSize": "299p", "Target": "4200000ns", "Interval": "100000000ns", "MinBytes": 1,
                     "UseEcn": True, "UseL4s": False}
    sc["bottleneck"]["queue"] = {"discipline": "pie", "limit": 300, "target": "20ms", "ecn": True}
    cfg = ns3sim.translate(sc)
    attrs = ns3sim.queue_disc_attributes(cfg)
    assert cfg["links"][0]["queue"]["ns3_type"] == "ns3::PieQueueDisc"
    assert attrs["QueueDelayReference"] == "19200000ns" and attrs["Tupdate"] == "15000000ns"
    assert (attrs["A"], attrs["B"], attrs["MarkEcnThreshold"], attrs["UseEcn"]) == (0.125, 1.25, 0.1, True)
    assert attrs["MaxBurstAllowance"] == "150000000ns" and attrs["UseDequeueRateEstimator"] is False
    assert any("PIE updates" in n for n in cfg["notes"])
    assert compare.marking_links(cfg) == ["bottleneck"]


def test_adaptive_red_mapping_equals_the_engines_automatic_settings():
    # ns-3 runs ARED as RED with AdaptMaxP and the engine's automatic thresholds, weight and bottom, shifted
    # by one packet as RED's; the engine reports the same settings in its queue_state.
    ared = {"discipline": "ared", "limit": 300}
    sc = scenario(bottleneck={"rate": "20Mbps", "delay": "5ms", "queue": ared}, tcp=dict(LIKE_NS3))
    cfg = ns3sim.translate(sc)
    q = cfg["links"][0]["queue"]
    # C = 2,500 packets/s: min_th = max(5, 0.005·2500/2) = 6.25, max_th = 18.75.
    assert (q["min_th"], q["max_th"], q["ns3_min_th"], q["ns3_max_th"]) == (6.25, 18.75, 5.25, 17.75)
    attrs = ns3sim.queue_disc_attributes(cfg)
    assert attrs["ARED"] is False and attrs["AdaptMaxP"] is True and attrs["LInterm"] == pytest.approx(50.0)
    assert attrs["Interval"] == "500000000ns"
    assert (attrs["Alpha"], attrs["Beta"], attrs["Top"]) == (0.01, 0.9, 0.5)
    state = bufferlab.run(sc, ["duration=1s", "warmup=0.5s"], progress=False).ports.iloc[0]["queue_state"]
    for key in ("min_th", "max_th", "weight", "bottom"):
        assert state[key] == pytest.approx(q["adaptive"][key], rel=1e-12), key
    with pytest.raises(BufferLabError, match="bottleneck.queue.update"):
        ns3sim.translate(scenario(bottleneck={"rate": "20Mbps", "queue": {"discipline": "ared", "limit": 300,
                                                                           "update": "timer"}}))


def test_fq_codel_mapping():
    fq = {"discipline": "fq-codel", "limit": 400, "ce_threshold": "2ms"}
    sc = scenario(bottleneck={"rate": "10Mbps", "delay": "5ms", "queue": fq}, tcp={"ecn": True, **LIKE_NS3})
    cfg = ns3sim.translate(sc)
    q = cfg["links"][0]["queue"]
    assert q["ns3_type"] == "ns3::FqCoDelQueueDisc"
    assert q["quantum"] == 1000 and q["ns3_child_min_bytes"] == 1001
    attrs = ns3sim.queue_disc_attributes(cfg)
    assert attrs == {"MaxSize": "399p", "Target": "4200000ns", "Interval": "100000000ns", "Flows": 1024,
                     "DropBatchSize": 64, "UseEcn": True, "Perturbation": 0, "UseL4s": False,
                     "EnableSetAssociativeHash": False, "CeThreshold": "1200000ns"}
    assert any("5-tuple" in n for n in cfg["notes"])
    # ECN on by default (ns-3's and Linux's), without a note when the senders are not ECN-capable.
    cfg = ns3sim.translate(scenario(bottleneck={"rate": "10Mbps", "queue": {"discipline": "fq-codel"}}))
    assert cfg["links"][0]["queue"]["ecn"] is True and cfg["links"][0]["queue"]["ns3_max_size"] == "10239p"
    assert not [n for n in cfg["notes"] if "marks but TCP ECN is off" in n]
    # ns-3 sets the per-flow CoDel's MinBytes for every link at once.
    sc = two_way()
    sc["links"][0]["queue"] = {"discipline": "fq-codel", "mtu": "1000B"}
    sc["links"][1]["queue"] = {"discipline": "fq-codel", "mtu": "1500B"}
    with pytest.raises(BufferLabError, match=r"links\[1\]\.queue\.mtu"):
        ns3sim.translate(sc)


def test_cubic_and_pacing_mapping():
    cubic = {"kind": "cubic", "reduce_from": "cwnd", "after_timeout": "keep-w-max", "lookahead": "min-rtt",
             "growth": "whole-segments"}
    cfg = ns3sim.translate(scenario(tcp={"congestion_control": cubic, "pacing": "linux", **LIKE_NS3}))
    assert cfg["tcp"]["socket_type"] == "ns3::TcpCubic"
    assert ns3sim.congestion_control_defaults(cfg["tcp"]) == {
        "ns3::TcpCubic::C": 0.4, "ns3::TcpCubic::Beta": 0.7, "ns3::TcpCubic::FastConvergence": True,
        "ns3::TcpCubic::TcpFriendliness": True, "ns3::TcpCubic::HyStart": False,
        "ns3::TcpSocketState::EnablePacing": True, "ns3::TcpSocketState::PacingSsRatio": 200,
        "ns3::TcpSocketState::PacingCaRatio": 120, "ns3::TcpSocketState::PaceInitialWindow": False}
    assert not [n for n in cfg["notes"] if "tcp." in n]
    assert any(n.startswith("pacing:") for n in cfg["notes"])
    # CUBIC grows by its own rule in both: NewReno's whole-byte arithmetic is not asked of it.
    like_cubic = {k: v for k, v in LIKE_NS3.items() if k != "ca_increase"}
    cfg_exact = ns3sim.translate(scenario(tcp={"congestion_control": cubic, **like_cubic}))
    assert not [n for n in cfg_exact["notes"] if "tcp." in n]
    # RFC 9438's own choices are translated, with a note for each choice ns-3 makes otherwise.
    cfg = ns3sim.translate(scenario(tcp={"congestion_control": "cubic", "pacing": "rtt", **LIKE_NS3}))
    cc_notes = [n for n in cfg["notes"] if n.startswith("tcp.congestion_control.")]
    assert len(cc_notes) == 4 and any("after_timeout" in n for n in cc_notes)
    assert any(n.startswith("tcp.congestion_control.growth") for n in cc_notes)
    d = ns3sim.congestion_control_defaults(cfg["tcp"])
    assert (d["ns3::TcpSocketState::PacingSsRatio"], d["ns3::TcpSocketState::PacingCaRatio"]) == (100, 100)
    cfg = ns3sim.translate(scenario(tcp=dict(LIKE_NS3)))
    assert ns3sim.congestion_control_defaults(cfg["tcp"]) == {"ns3::TcpSocketState::EnablePacing": False}
    # A group with another controller gets its own socket type; a controller's parameters and pacing are
    # set for every socket at once.
    sc = two_way()
    sc["flows"][1]["tcp"] = {"congestion_control": "cubic"}
    cfg = ns3sim.translate(sc)
    assert cfg["groups"][0]["socket_attributes"]["sender"].get("CongestionOps") is None
    assert cfg["groups"][1]["socket_attributes"]["sender"]["CongestionOps"] == "ns3::TcpCubic"
    sc["flows"][0]["tcp"] = {"congestion_control": {"kind": "cubic", "c": 0.5}}
    with pytest.raises(BufferLabError,
                       match=r"flows\[1\]\.tcp\.congestion_control: .*every socket of its type"):
        ns3sim.translate(sc)
    sc["flows"][1]["tcp"] = {"pacing": "linux"}
    with pytest.raises(BufferLabError, match=r"flows\[1\]\.tcp\.pacing"):
        ns3sim.translate(sc)


def test_read_back_must_match_what_was_asked():
    sc = scenario(bottleneck={"rate": "10Mbps", "delay": "5ms",
                              "queue": {"discipline": "red", "limit": 200, "ecn": True}},
                  tcp={"ecn": True})
    cfg = ns3sim.translate(sc)
    # As ns-3 3.44 serializes the installed RedQueueDisc's attributes.
    installed = {
        "MaxSize": "199p", "MinTh": "4", "MaxTh": "14", "LInterm": "10", "QW": "0.002", "Gentle": "true",
        "Wait": "true", "MeanPktSize": "1000", "UseEcn": "true", "UseHardDrop": "true", "ARED": "false",
        "AdaptMaxP": "false",
        "LinkBandwidth": "10000000bps", "LinkDelay": "+5e+06ns", "Ns1Compat": "false", "device_queue": "1p",
    }

    def rb(link=None, elsewhere=0):
        return {"links": {"bottleneck": installed if link is None else link},
                "root_queue_discs_elsewhere": elsewhere}

    ns3sim.check_read_back(cfg, rb())
    for name, wrong in (("MinTh", "5"), ("UseEcn", "false"), ("MaxSize", "200p"), ("ARED", "true"),
                        ("device_queue", "100p")):
        with pytest.raises(BufferLabError, match=f"installed {name} = "):
            ns3sim.check_read_back(cfg, rb({**installed, name: wrong}))
    with pytest.raises(BufferLabError, match="installed root_queue_discs_elsewhere = 3"):
        ns3sim.check_read_back(cfg, rb(elsewhere=3))
    with pytest.raises(BufferLabError, match="installed QW = None"):
        ns3sim.check_read_back(cfg, rb({k: v for k, v in installed.items() if k != "QW"}))
    droptail = ns3sim.translate(scenario())
    ns3sim.check_read_back(droptail, {"links": {"bottleneck": {"MaxSize": "99p", "device_queue": "1p"}},
                                      "root_queue_discs_elsewhere": 0})


def test_socket_read_back():
    cfg = ns3sim.translate(two_way())
    # As ns-3 serializes them: times as "+4e+07ns".
    got = {g["name"]: ns3sim.socket_attributes(g["tcp"]) for g in cfg["groups"]}
    got["westbound"]["receiver"]["DelAckTimeout"] = "+4e+07ns"
    ns3sim.check_socket_read_back(cfg, got)
    got["westbound"]["receiver"]["DelAckCount"] = "1"
    with pytest.raises(BufferLabError, match="receiver sockets of group 'westbound' ran with DelAckCount"):
        ns3sim.check_socket_read_back(cfg, got)


@pytest.mark.parametrize(
    "over, match",
    [
        ({"tcp": {"sack": False}}, "tcp.sack"),
        ({"bottleneck": {"rate": "10Mbps", "queue": {"discipline": "blue", "limit": 50}}}, "discipline"),
        ({"bottleneck": {"rate": "10Mbps", "queue": {"discipline": "pie", "delay": "rate"}}},
         "bottleneck.queue.delay"),
        ({"bottleneck": {"rate": "10Mbps", "queue": {"discipline": "pie", "auto_tune": False}}},
         "bottleneck.queue.auto_tune"),
        ({"bottleneck": {"rate": "1Mbps", "queue": {"discipline": "codel", "target": "5ms"}}},
         "bottleneck.queue.target"),
        ({"bottleneck": {"rate": "10Mbps", "delay": "80ms", "queue": {"discipline": "droptail"}}},
         "flows.rtt"),
        ({"bottleneck": {"rate": "10Mbps", "queue": {"discipline": "droptail", "limit": 1}}},
         "bottleneck.queue.limit"),
        ({"tcp": {"congestion_control": {"kind": "aimd", "increase": 1, "decrease": 0.5}}},
         "tcp.congestion_control"),
        ({"flows": {"count": 2, "rtt": "100ms", "stop": "5s"}}, "flows.stop"),
        ({"flows": {"count": 2, "rtt": "100ms", "size": "100KB"}}, "flows.size"),
        ({"flows": [{"rtt": "100ms", "size": "100KB", "arrival": {"rate": 5}}]},
         "flows\\[0\\].arrival"),
        ({"udp": [{"pattern": "cbr", "rate": "1Mbps"}]}, "udp"),
    ],
)
def test_translator_rejects(over, match):
    with pytest.raises(BufferLabError, match=match):
        ns3sim.translate(scenario(**over))


def test_group_settings_are_named_in_errors():
    sc = two_way()
    sc["flows"][1]["tcp"] = {"sack": False}
    with pytest.raises(BufferLabError, match=r"flows\[1\]\.tcp\.sack"):
        ns3sim.translate(sc)
    sc["flows"][1]["tcp"] = {"initial_rto": "2s"}
    with pytest.raises(BufferLabError, match=r"flows\[1\]\.tcp\.initial_rto"):
        ns3sim.translate(sc)
    sc = parking_lot()
    aimd = {"kind": "aimd", "increase": 1, "decrease": 0.5}
    sc["parking_lot"]["cross"]["tcp"] = {"congestion_control": aimd}
    with pytest.raises(BufferLabError, match=r"parking_lot\.cross\.tcp\.congestion_control"):
        ns3sim.translate(sc)
    sc = two_way()
    sc["links"][1]["queue"] = {"discipline": "red", "limit": 50, "min_th": 5, "max_th": 15}
    ns3sim.translate(sc)
    sc["links"][1]["queue"]["limit"] = 1
    with pytest.raises(BufferLabError, match=r"links\[1\]\.queue\.limit"):
        ns3sim.translate(sc)


def test_header_mismatch_is_noted():
    cfg = ns3sim.translate(scenario(tcp={"packet_size": "1500B", "header_size": "52B"}))
    assert cfg["tcp"]["segment_size"] == 1448
    assert any("header_size" in n for n in cfg["notes"])


# ---------------------------------------------------------------------------------------- networks


def test_parking_lot_translation():
    cfg = ns3sim.translate(parking_lot())
    assert cfg["routers"] == 3 and cfg["notes"] == []
    assert [(lk["name"], lk["from_router"], lk["to_router"]) for lk in cfg["links"]] == [
        ("hop1", 0, 1), ("hop2", 1, 2)]
    assert [lk["groups"] for lk in cfg["links"]] == [["long", "cross1"], ["long", "cross2"]]
    groups = {g["name"]: g for g in cfg["groups"]}
    assert [(n, g["start_router"], g["end_router"], g["flows"]["count"], g["flows"]["first"])
            for n, g in groups.items()] == [("long", 0, 2, 4, 0), ("cross1", 0, 1, 3, 4),
                                            ("cross2", 1, 2, 3, 7)]
    assert cfg["flows_total"] == 10
    # Each group's access delays are the engine's: RTT/2 minus the delays of its route.
    res = bufferlab.resolve(parking_lot())
    for g, r in zip(cfg["groups"], res["groups"]):
        assert g["flows"]["access_delay_s"] == [f["access_delay"] for f in r["flows"]]
        assert g["flows"]["access_delay_s"] == pytest.approx(
            [rtt / 2 - 0.005 * len(g["route"]) for rtt in g["flows"]["rtt_s"]])
    assert cfg["t0_s"] == pytest.approx(max(max(g["flows"]["rtt_s"]) for g in cfg["groups"]), abs=0.0021)
    # Static routes: long data R0 -> hop1 (then R1 -> hop2, the receiver being hop2's far end); ACKs back
    # over the reverse directions; cross groups' ACKs over their own hop's reverse direction.
    assert sorted((r["router"], r["to"], r["group"], r["link"], r["direction"]) for r in cfg["routes"]) == [
        (0, "receiver", 0, 0, "forward"),
        (1, "senders", 0, 0, "reverse"), (1, "senders", 1, 0, "reverse"),
        (2, "senders", 0, 1, "reverse"), (2, "senders", 2, 1, "reverse"),
    ]
    # The cross groups' send buffers are sized for their own (shorter) path: set on their own sockets.
    assert groups["cross1"]["socket_attributes"]["sender"] == {
        "SndBufSize": str(groups["cross1"]["tcp"]["snd_buf_bytes"])}
    assert groups["long"]["socket_attributes"] == {"sender": {}, "receiver": {}}


def test_two_way_translation():
    cfg = ns3sim.translate(two_way())
    assert cfg["routers"] == 2
    assert [(lk["name"], lk["from_router"], lk["to_router"], lk["groups"], lk["ack_groups"])
            for lk in cfg["links"]] == [("east", 0, 1, ["eastbound"], ["westbound"]),
                                         ("west", 1, 0, ["westbound"], ["eastbound"])]
    # Each group's ACKs leave its receiver's router over the other direction's link, queued.
    assert cfg["routes"] == [
        {"router": 1, "to": "senders", "group": 0, "link": 1, "direction": "forward"},
        {"router": 0, "to": "senders", "group": 1, "link": 0, "direction": "forward"},
    ]
    east, west = cfg["groups"]
    assert (east["start_router"], east["end_router"]) == (0, 1)
    assert (west["start_router"], west["end_router"]) == (1, 0)
    # With a queued ACK route the access delay is (RTT - data delays - ACK delays) / 2.
    assert east["flows"]["access_delay_s"] == pytest.approx([0.025, 0.025])
    # The westbound receivers acknowledge every second segment: set on their listening sockets.
    assert west["socket_attributes"] == {"sender": {}, "receiver": {"DelAckCount": "2",
                                                                      "DelAckTimeout": "40000000ns"}}


def test_two_groups_one_bottleneck():
    sc = scenario(flows=[{"name": "short", "count": 2, "rtt": "50ms"},
                         {"name": "long", "count": 2, "rtt": "150ms",
                          "tcp": {"delayed_ack": True, "delayed_ack_timeout": "40ms"}}])
    cfg = ns3sim.translate(sc)
    a, b = cfg["groups"]
    assert a["route"] == b["route"] == ["bottleneck"] and cfg["routers"] == 2
    assert (a["tcp"]["del_ack_count"], b["tcp"]["del_ack_count"]) == (1, 2)
    assert b["tcp"]["del_ack_timeout_s"] == pytest.approx(0.04)
    assert set(a["flows"]["rtt_s"]) == {0.05} and set(b["flows"]["rtt_s"]) == {0.15}
    assert b["socket_attributes"]["receiver"] == {"DelAckCount": "2", "DelAckTimeout": "40000000ns"}
    # The long-RTT group's send buffer covers its larger BDP.
    assert b["tcp"]["snd_buf_bytes"] > a["tcp"]["snd_buf_bytes"]
    assert b["socket_attributes"]["sender"] == {"SndBufSize": str(b["tcp"]["snd_buf_bytes"])}
    # One route entry per group: ACKs back to each group's own address block.
    assert [(r["group"], r["direction"]) for r in cfg["routes"]] == [(0, "reverse"), (1, "reverse")]


def test_routes_ns3_cannot_follow():
    sc = two_way()
    sc["flows"].append({"name": "there-and-back", "count": 1, "rtt": "100ms", "route": ["east", "west"]})
    with pytest.raises(BufferLabError, match=r"flows\[2\]\.route: it passes a router twice"):
        ns3sim.translate(sc)
    sc = two_way()
    sc["flows"] = [{"name": "loop", "count": 1, "rtt": "100ms", "route": ["east"], "ack_route": ["east"]}]
    with pytest.raises(BufferLabError, match="back to itself"):
        ns3sim.translate(sc)


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
    assert compare.check("goodput_share", 0.33, 0.30).verdict == "pass"
    assert compare.check("goodput_share", 0.34, 0.30).verdict == "fail"
    assert compare.check("delay_mean_s", 1.0, 2.0).verdict == "-"
    assert compare.check("jain_index", None, 0.9).verdict == "fail"
    assert compare.check("utilization", 0.9, 0.9, "hop2: utilization").metric == "hop2: utilization"
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


def _port(name, **kw):
    row = {"name": name, "utilization": 0.98, "loss_rate": 0.004, "mark_rate": 0.0, "queue_mean_pkts": 90.0,
           "queue_p99_pkts": 125.0, "delay_mean_s": 0.03}
    row.update(kw)
    return row


def test_compare_network_rows():
    ref = {"jain_index": 0.6, "goodput_bps": 3.4e7, "ports": [_port("hop1"), _port("hop2", mark_rate=0.01)],
           "groups": [{"name": "long", "goodput_bps": 4e6, "jain_index": 0.97},
                      {"name": "cross1", "goodput_bps": 1.5e7, "jain_index": 0.95},
                      {"name": "cross2", "goodput_bps": 1.5e7, "jain_index": 0.95}]}
    ours = {"jain_index": 0.61, "goodput_bps": 3.4e7,
            "ports": [_port("hop1"), _port("hop2", queue_mean_pkts=110.0, mark_rate=0.011)],
            "groups": [{"name": "long", "goodput_bps": 5.4e6, "jain_index": 0.97},
                       {"name": "cross1", "goodput_bps": 1.43e7, "jain_index": 0.90},
                       {"name": "cross2", "goodput_bps": 1.43e7, "jain_index": 0.95}]}
    rows = {r.metric: r for r in compare.compare_network(ours, ref, marking=["hop2"])}
    assert "hop1: mark_rate" not in rows and rows["hop2: mark_rate"].verdict == "pass"
    assert rows["hop1: utilization"].verdict == "pass" and rows["hop2: queue_mean_pkts"].verdict == "fail"
    assert rows["hop2: delay_mean_s"].verdict == "-" and rows["jain_index"].verdict == "pass"
    # Shares of the total goodput: long 5.4/34 = 0.159 against 4/34 = 0.118.
    assert rows["long: goodput share"].bufferlab == pytest.approx(5.4 / 34.0)
    assert rows["long: goodput share"].verdict == "fail" and rows["cross2: goodput share"].verdict == "pass"
    assert rows["cross1: jain_index"].verdict == "fail" and rows["cross2: jain_index"].verdict == "pass"
    assert rows["long: goodput_bps"].verdict == "-"
    # One link, one group: the summary rows alone.
    one = {"utilization": 0.9, "loss_rate": 0.01, "queue_mean_pkts": 10.0, "jain_index": 0.99,
           "queue_p99_pkts": 20, "delay_mean_s": 0.001, "goodput_bps": 1e6,
           "ports": [_port("bottleneck")],
           "groups": [{"name": "flows", "goodput_bps": 1e6, "jain_index": 0.99}]}
    assert [r.metric for r in compare.compare_network(one, one)] == [
        "utilization", "loss_rate", "queue_mean_pkts", "jain_index", "queue_p99_pkts", "delay_mean_s",
        "goodput_bps"]


def test_mean_summary_averages_ports_and_groups():
    runs = [{"utilization": 0.9, "name": "a", "ports": [_port("x", utilization=0.9)],
             "groups": [{"name": "g", "goodput_bps": 1.0, "jain_index": None}]},
            {"utilization": 0.8, "name": "b", "ports": [_port("x", utilization=0.7)],
             "groups": [{"name": "g", "goodput_bps": 3.0, "jain_index": None}]}]
    m = compare._mean_summary(runs)
    assert m["utilization"] == pytest.approx(0.85) and m["name"] == "a"
    assert m["ports"][0]["utilization"] == pytest.approx(0.8) and m["ports"][0]["name"] == "x"
    assert m["groups"][0]["goodput_bps"] == pytest.approx(2.0) and m["groups"][0]["jain_index"] is None


def test_compare_scenario_with_fake_runners():
    pd = pytest.importorskip("pandas")
    summary = {"utilization": 0.97, "loss_rate": 0.011, "queue_mean_pkts": 50.0, "jain_index": 0.98,
               "queue_p99_pkts": 99, "delay_mean_s": 0.004, "goodput_bps": 9e6}
    res = types.SimpleNamespace(
        summary=summary,
        flows=pd.DataFrame({"flow": [0, 1, 2, 3], "rtt_s": [0.1] * 4, "start_s": [0.0] * 4,
                            "goodput_bps": [2e6, 2.2e6, 2.4e6, 2.4e6]}),
        ports=pd.DataFrame([{**_port("bottleneck"), "drop_reasons": {}, "mark_reasons": {}}]),
        groups=pd.DataFrame([{"name": "flows", "goodput_bps": 9e6, "jain_index": 0.98,
                              "route": ["bottleneck"], "ack_route": []}]),
        queue_series=pd.DataFrame({"time_s": [0.0, 0.01], "queue_pkts": [0, 3]}),
    )

    def fake_ns3(sc):
        return dict(summary, utilization=0.99, wall_s=5.0, events=10, flows=[{"goodput_bps": 2e6}] * 4,
                    ports=[_port("bottleneck")], groups=[{"name": "flows", "goodput_bps": 9e6}])

    comp = compare.compare_scenario(scenario(), engine_runner=lambda sc: res, ns3_runner=fake_ns3)
    assert comp.verdict == "pass" and comp.ns3_wall_s == 5.0 and comp.flow_count == 4
    assert comp.engine["ports"][0]["name"] == "bottleneck" and "drop_reasons" not in comp.engine["ports"][0]
    assert "| utilization |" in compare.table_markdown(comp)
    comp2 = compare.compare_scenario(scenario(), engine_runner=lambda sc: res,
                                     ns3_runner=lambda sc: dict(fake_ns3(sc), utilization=0.94))
    assert comp2.verdict == "fail"


def test_unsupported_discipline_is_skipped_not_passed():
    sc = scenario(bottleneck={"rate": "10Mbps", "queue": {"discipline": "odt"}})
    comp = compare.compare_scenario(sc, engine_runner=lambda s: None, ns3_runner=lambda s: {})
    assert comp.verdict == "skipped" and "odt" in comp.skipped


# ---------------------------------------------------------------------------------------- command


def test_validate_without_ns3_exits_2(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(ns3sim, "ns3_available", lambda: False)
    args = argparse.Namespace(scenarios=[str(ROOT / "validation/scenarios/v03-10flows-droptail-0.5bdp.toml")],
                              quick=False, out=str(tmp_path), ns3_only=False, isolate=False)
    assert validate.handler(args) == 2
    assert "ns-3 is not installed" in capsys.readouterr().err


def test_validate_bad_file():
    args = argparse.Namespace(scenarios=["/nonexistent.toml"], quick=False, out="x", ns3_only=False,
                              isolate=False)
    with pytest.raises(BufferLabError, match="scenario file not found: /nonexistent.toml"):
        validate.handler(args)


def validate_cli(capsys, *argv):
    """``bufferlab validate ARGV`` in this process: its exit status and its standard error's lines."""
    from bufferlab.cli import main  # noqa: PLC0415

    status = main(["validate", *argv])
    return status, capsys.readouterr().err.splitlines()


def test_validate_reads_files_as_run_does_and_checks_them_before_writing(tmp_path, monkeypatch, capsys):
    """Files `bufferlab run` refuses with one line (not UTF-8, nested too deeply, larger than 16 MB, a field
    the engine refuses) are refused so by validate, before --out or its figures and results exist."""
    monkeypatch.setattr(ns3sim, "ns3_available", lambda: True)
    latin1 = tmp_path / "latin1.toml"
    latin1.write_bytes('name = "café"\n'.encode("latin-1"))
    deep = tmp_path / "deep.toml"
    deep.write_text("x = " + "[" * 3000 + "]" * 3000 + "\n")
    big = tmp_path / "big.toml"
    with open(big, "wb") as f:
        f.truncate(17 * 2**20)
    refused = tmp_path / "refused.toml"
    refused.write_text('duration = "2s"\n[bottleneck]\nrate = "10Mbps"\ndelay = "5ms"\n'
                       'queue = { discipline = "droptail", limit = 50 }\n[flows]\ncount = -1\nrtt = "50ms"\n')
    out = tmp_path / "out"
    for path, message in ((latin1, "not UTF-8 text (byte 0xe9 at offset 11); save it as UTF-8"),
                          (deep, "malformed TOML: tables or lists nested too deeply"),
                          (big, "larger than 16 MB"),
                          (refused, "flows.count: expected a whole number >= 0, got -1")):
        status, err = validate_cli(capsys, str(path), "--out", str(out))
        assert status == 2 and len(err) == 1 and message in err[0], err
        assert not out.exists()


def test_validate_checks_out_before_any_run(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(ns3sim, "ns3_available", lambda: True)
    monkeypatch.setattr(compare, "compare_replicated", lambda *a, **k: pytest.fail("a comparison ran"))
    path = str(ROOT / "validation/scenarios/v03-10flows-droptail-0.5bdp.toml")
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    for out, reason in (("/proc/x", "No such file or directory"), (str(a_file), "File exists"),
                        (str(a_file / "sub"), "Not a directory")):
        status, err = validate_cli(capsys, path, "--out", out)
        assert status == 2 and err == [f"bufferlab: error: --out: cannot create directory {out!r}: {reason}"]


def test_matrix_scenarios_translate():
    files = sorted((ROOT / "validation/scenarios").glob("*.toml"))
    assert len(files) >= 16
    counts, discs, forms = set(), set(), set()
    for f in files:
        sc = ns3sim.load(f)
        cfg = ns3sim.translate(sc)
        # Like with like: every TCP rule ns-3 3.44 follows and the engine offers is selected.
        assert not [n for n in cfg["notes"] if "tcp." in n], (f.name, cfg["notes"])
        counts.add(cfg["flows_total"])
        for lk in cfg["links"]:
            discs.add((lk["queue"]["discipline"], bool(lk["queue"].get("ecn", False))))
        forms.add((len(cfg["links"]), len(cfg["groups"]), any(g["ack_route"] for g in cfg["groups"])))
    assert {1, 10, 100, 1000} <= counts
    assert {("droptail", False), ("red", False), ("red", True), ("codel", False), ("codel", True),
            ("pie", False), ("pie", True), ("ared", False), ("ared", True), ("fq-codel", True)} <= discs
    # A parking lot (2 links, 3 groups), two-way traffic with queued ACKs, two groups on one link.
    assert {(1, 1, False), (2, 3, False), (2, 2, True), (1, 2, False)} <= forms
    quick = [ln for ln in (ROOT / "validation/quick.txt").read_text().splitlines() if ln.endswith(".toml")]
    assert 2 <= len(quick) <= 3 and all((ROOT / "validation/scenarios" / q).exists() for q in quick)


def test_replications_by_flow_count():
    assert validate.replications_for(10, None) == 10
    assert validate.replications_for(100, None) == 3
    assert validate.replications_for(1000, 1) == 1
    # Several groups below 100 flows: Jain's index of a 5-flow group needs 20 seeds.
    assert validate.replications_for(10, None, groups=2) == 20
    assert validate.replications_for(200, None, groups=2) == 3
    with pytest.raises(BufferLabError, match="--replications"):
        validate.replications_for(10, 0)
    assert validate.flow_count(parking_lot()) == (10, 3)


def test_report_describes_networks(tmp_path):
    cfg = ns3sim.translate(two_way())
    text = report.describe_network(cfg)
    assert "east (R0→R1, 10 Mb/s, 5 ms, droptail 50 packets)" in text
    assert "westbound (2 flows over west, ACKs over east, RTT 60 ms, delayed ACK)" in text
    assert report.describe_network(ns3sim.translate(scenario())) == ""


def test_report_links_the_mapping_from_its_own_directory(monkeypatch):
    monkeypatch.chdir(ROOT)
    assert report._mapping_link(ROOT / "docs" / "validation") == "ns3-mapping.md"
    assert report._mapping_link(ROOT / "docs" / "validation" / "modern") == "../ns3-mapping.md"


# ---------------------------------------------------------------------------------------- real ns-3


@pytest.mark.slow
def test_ns3_single_flow_window_limited():
    pytest.importorskip("ns")
    # 1 flow, W = 50 packets, RTT 100 ms, C = 10 Mb/s (1250 pkt/s): W/RTT/C = 0.4 (slightly less: the
    # real RTT adds serialization), and a large buffer that never fills.
    sc = scenario(
        duration="6s", warmup="2s",
        bottleneck={"rate": "10Mbps", "delay": "5ms", "queue": {"discipline": "droptail", "limit": 1000}},
        flows={"count": 1, "rtt": "100ms"},
        tcp={"max_window": 50},
    )
    r = ns3sim.run_ns3(sc)
    assert 0.38 <= r["utilization"] <= 0.40
    assert r["drops"] == 0 and r["queue_mean_pkts"] < 1.0 and r["events"] > 0
    rb = r["ns3_config"]["read_back"]
    assert rb["links"]["bottleneck"]["MaxSize"] == "999p" and rb["root_queue_discs_elsewhere"] == 0
    assert rb["groups"]["flows"]["sender"]["SndBufSize"] == str(50 * 960)
    assert [p["name"] for p in r["ports"]] == ["bottleneck"]
    assert r["ports"][0]["utilization"] == r["utilization"]


@pytest.mark.slow
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


def test_overhead_is_translated_to_a_jitter_queue_disc_per_sender():
    cfg = ns3sim.translate(scenario(tcp={"overhead": "2ms"}))
    assert cfg["groups"][0]["tcp"]["overhead_s"] == 0.002
    # The four senders' jitter queue discs are the only root queue discs besides the bottleneck's.
    rb = {"links": {"bottleneck": {"MaxSize": "99p", "device_queue": "1p"}}, "root_queue_discs_elsewhere": 4}
    ns3sim.check_read_back(cfg, rb)
    with pytest.raises(BufferLabError, match="root_queue_discs_elsewhere = 0, expected 4"):
        ns3sim.check_read_back(cfg, {**rb, "root_queue_discs_elsewhere": 0})
    assert ns3sim.translate(scenario())["groups"][0]["tcp"]["overhead_s"] == 0.0


def test_handshake_moves_ns3_starts_and_times_the_syn_by_the_initial_rto():
    sc = scenario(flows={"count": 2, "rtt": ["40ms", "100ms"], "start": ["0s", "0.5s"]},
                  tcp={"min_rto": "200ms", "initial_rto": "1s"})
    plain = ns3sim.translate(sc)
    shaken = ns3sim.translate({**sc, "tcp": {**sc["tcp"], "handshake": True}})
    t0 = plain["t0_s"]
    assert t0 == shaken["t0_s"] == pytest.approx(0.101)
    # Without the engine's handshake ns-3's SYN leaves one RTT early; with it, at the engine's start.
    assert plain["groups"][0]["flows"]["ns3_app_start_s"] == pytest.approx([t0 - 0.04, t0 + 0.5 - 0.1])
    assert shaken["groups"][0]["flows"]["ns3_app_start_s"] == pytest.approx([t0, t0 + 0.5])
    assert ns3sim.conn_timeout(plain["groups"][0]["tcp"]) == 0.2
    assert ns3sim.conn_timeout(shaken["groups"][0]["tcp"]) == 1.0
    attrs = ns3sim.socket_attributes(shaken["groups"][0]["tcp"])
    assert attrs["sender"]["ConnTimeout"] == "1000000000ns"


@pytest.mark.slow
def test_ns3_overhead_delays_packets_and_repeats_exactly():
    pytest.importorskip("ns")
    sc = scenario(duration="4s", warmup="1s", flows={"count": 1, "rtt": "100ms"}, tcp={"max_window": 20})
    plain = ns3sim.run_ns3(sc)
    jittered = [ns3sim.run_ns3({**sc, "tcp": {**sc["tcp"], "max_window": 20, "overhead": "20ms"}})
                for _ in range(2)]
    assert jittered[0]["ns3_config"]["read_back"]["root_queue_discs_elsewhere"] == 1
    # A window-limited flow: each packet held up to 20 ms (10 ms on average) stretches the round trip.
    assert jittered[0]["goodput_bps"] < 0.97 * plain["goodput_bps"]
    for key in ("events", "goodput_bps", "queue_mean_pkts"):
        assert jittered[0][key] == jittered[1][key], key


@pytest.mark.slow
def test_ns3_two_way_with_queued_acks_and_group_settings():
    pytest.importorskip("ns")
    # Two links in opposite directions, each group's ACKs queued behind the other's data; the westbound
    # receivers delay their ACKs. Both links run nearly full and carry their ACKs as well.
    sc = two_way(duration="6s", warmup="2s")
    for grp in sc["flows"]:
        grp["start"] = {"uniform": ["0s", "1s"]}
    r = ns3sim.run_ns3(sc)
    ports = {p["name"]: p for p in r["ports"]}
    assert set(ports) == {"east", "west"}
    window = 4.0
    for name, p in ports.items():
        assert p["utilization"] > 0.6, name
        assert p["queue_mean_pkts"] > 0.5 and p["arrivals"] > 0
    # The east link carries eastbound data (1,000 B) and the westbound receivers' ACKs (about one per two
    # segments): more packets than its data alone, fewer bytes per packet.
    east_data = r["groups"][0]["goodput_bps"] * window / 8 / 960
    assert ports["east"]["departures"] > 1.2 * east_data
    assert ports["west"]["departures"] > 1.4 * r["groups"][1]["goodput_bps"] * window / 8 / 960
    rb = r["ns3_config"]["read_back"]["groups"]
    assert rb["westbound"]["receiver"]["DelAckCount"] == "2"
    assert rb["eastbound"]["receiver"]["DelAckCount"] == "1"
    assert [g["name"] for g in r["groups"]] == ["eastbound", "westbound"]
    assert 0 < r["groups"][0]["jain_index"] <= 1 and len(r["flows"]) == 4
    # Roughly where the engine is, a few seconds after the start, as means over three seeds: a single
    # run's utilization moves by up to 0.1 with the start times (phase effects; ns3-mapping.md, item 23),
    # and the matrix's v15 holds the tolerances over ten seeds.
    def mean_util(runs):
        return {name: sum(p["utilization"] for run in runs for p in run if p["name"] == name) / len(runs)
                for name in ("east", "west")}
    seeds = [{**sc, "seed": seed} for seed in (1, 2, 3)]
    ns3_runs = [r["ports"]] + [ns3sim.run_ns3(s)["ports"] for s in seeds[1:]]
    eng_runs = [bufferlab.run(s, progress=False).ports.to_dict(orient="records") for s in seeds]
    ns3_mean, eng_mean = mean_util(ns3_runs), mean_util(eng_runs)
    for name in ("east", "west"):
        assert abs(eng_mean[name] - ns3_mean[name]) < 0.08, (name, eng_mean, ns3_mean)


@pytest.mark.slow
def test_ns3_codel_with_paced_cubic_and_pie():
    pytest.importorskip("ns")
    # CoDel's control-law drops arrive as "Target exceeded drop" and count as early drops; CUBIC senders
    # paced at Linux's rates keep the 10 Mb/s link busy; PIE's random drops are "Unforced drop".
    cubic = {"kind": "cubic", "reduce_from": "cwnd", "after_timeout": "keep-w-max", "lookahead": "min-rtt",
             "growth": "whole-segments"}
    sc = scenario(
        duration="8s", warmup="3s",
        bottleneck={"rate": "10Mbps", "delay": "5ms", "queue": {"discipline": "codel", "limit": 400}},
        flows={"count": 4, "rtt": "60ms"},
        tcp={"congestion_control": cubic, "pacing": "linux", **LIKE_NS3},
    )
    r = ns3sim.run_ns3(sc)
    rb = r["ns3_config"]["read_back"]["links"]["bottleneck"]
    assert rb["MaxSize"] == "399p" and rb["MinBytes"] == "1"
    assert r["drops_early"] > 0 and r["drops_overflow"] == 0 and r["utilization"] > 0.8
    assert not [n for n in r["ns3_config"]["notes"] if "unexpected reason" in n]
    # The sojourn time stays near CoDel's 5 ms target (0.8 ms per packet here), far below 400 packets.
    assert r["delay_mean_s"] < 0.02 and r["queue_max_pkts"] < 200
    sc["bottleneck"]["queue"] = {"discipline": "fq-codel", "limit": 400}
    r = ns3sim.run_ns3(sc)
    rb = r["ns3_config"]["read_back"]["links"]["bottleneck"]
    assert rb["quantum"] == "1000" and rb["Flows"] == "1024" and r["utilization"] > 0.8
    assert not [n for n in r["ns3_config"]["notes"] if "unexpected reason" in n]
    sc["bottleneck"]["queue"] = {"discipline": "pie", "limit": 400}
    sc["tcp"] = dict(LIKE_NS3)
    r = ns3sim.run_ns3(sc)
    assert r["drops_early"] > 0 and r["ns3_config"]["read_back"]["links"]["bottleneck"]["A"] == "0.125"
    assert not [n for n in r["ns3_config"]["notes"] if "unexpected reason" in n]


def test_every_engine_mechanism_is_checked_or_listed_as_not_checkable():
    from bufferlab import _engine

    disciplines, controllers = _engine.names()
    assert {"droptail", "red", "codel", "pie"} <= set(disciplines) and "cubic" in controllers
    mapped = set(ns3sim.NS3_QUEUE_DISCS) | set(ns3sim.NS3_CONGESTION_CONTROL)
    for name in [*disciplines, *controllers]:
        assert (name in mapped) != (name in ns3sim.NS3_CANNOT_CHECK), name
    text = "\n".join(report.cannot_check_markdown())
    assert "| discipline `global-notifier` | no Global Notifier in ns-3 |" in text
    assert "`codel`" in text.split("\n")[2] and "nothing listed" not in text


@pytest.mark.slow
def test_ns3_runs_each_group_with_its_own_controller():
    pytest.importorskip("ns")
    # BBR (the first group: TcpL4Protocol::SocketType) against CUBIC (its own TcpCongestionOps on each of
    # its sockets) through half a BDP: BBR takes most of the link in ns-3 as in the engine, which it could
    # not if both groups ran one controller.
    group = {"count": 1, "rtt": "40ms", "access_rate": "1Gbps", "start": {"uniform": ["0s", "100ms"]}}
    sc = scenario(
        duration="12s", warmup="4s",
        bottleneck={"rate": "50Mbps", "delay": "10ms", "queue": {"discipline": "droptail", "limit": 84}},
        flows=[{**group, "name": "bbr", "tcp": {"congestion_control": "bbr"}},
               {**group, "name": "cubic", "tcp": {"congestion_control": "cubic"}}],
        tcp={"packet_size": "1500B", "header_size": "40B", "sack": True, "delayed_ack": True,
             "handshake": True},
    )
    cfg = ns3sim.translate(sc)
    assert cfg["tcp"]["socket_type"] == "ns3::TcpBbr"
    assert cfg["groups"][1]["socket_attributes"]["sender"]["CongestionOps"] == "ns3::TcpCubic"
    r = ns3sim.run_ns3(sc)
    goodput = {g["name"]: g["goodput_bps"] for g in r["groups"]}
    share = goodput["bbr"] / (goodput["bbr"] + goodput["cubic"])
    ours = bufferlab.run(sc, progress=False).groups.set_index("name")["goodput_bps"]
    assert share > 0.8 and ours["bbr"] / ours.sum() > 0.8, (share, dict(ours))


def test_bbr_translation_and_what_it_refuses():
    sc = scenario(tcp={"congestion_control": "bbr", "sack": True, "handshake": True})
    cfg = ns3sim.translate(sc)
    d = ns3sim.congestion_control_defaults(cfg["tcp"])
    assert cfg["tcp"]["socket_type"] == "ns3::TcpBbr"
    assert d["ns3::TcpBbr::HighGain"] == 2.89 and d["ns3::TcpBbr::BwWindowLength"] == 10
    assert d["ns3::TcpBbr::RttWindowLength"] == "10000000000ns"
    assert d["ns3::TcpSocketState::MaxPacingRate"] == "100Gb/s"
    assert any(n.startswith("bbr: ") for n in cfg["notes"])
    assert "rtt_sample" not in cfg["groups"][0]["tcp"]["congestion_control"], "the engine's reading only"
    # Without the handshake the two start their pacing from different RTTs: said.
    cfg = ns3sim.translate(scenario(tcp={"congestion_control": "bbr", "sack": True}))
    assert any(n.startswith("tcp.handshake") for n in cfg["notes"])
    for cc, field in (({"kind": "bbr", "aggregation": "linux"}, "aggregation"),
                      ({"kind": "bbr", "recovery_exit": "restore"}, "recovery_exit"),
                      ({"kind": "bbr", "rtt_sample": "linux"}, "rtt_sample")):
        with pytest.raises(BufferLabError, match=rf"tcp\.congestion_control\.{field}"):
            ns3sim.translate(scenario(tcp={"congestion_control": cc, "sack": True}))
    with pytest.raises(BufferLabError, match=r"tcp\.pacing: BBR paces itself"):
        ns3sim.translate(scenario(tcp={"congestion_control": "bbr", "sack": True, "pacing": "linux"}))
