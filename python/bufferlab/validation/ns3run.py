"""Run a translated scenario in ns-3 (the ``ns3`` package from PyPI, version 3.44).

:func:`run_ns3` translates a scenario (:func:`bufferlab.validation.translate.translate`), builds that
configuration in ns-3 through its Python bindings and returns the summary keys of ``docs/scenario.md`` that
ns-3 can measure, one row per link (``ports``) and per group (``groups``), plus ``wall_s`` and ``events``.
:func:`run_ns3_isolated` does the same in a fresh interpreter (``python -m bufferlab.validation.ns3run``).
The statistics are gathered by C++ defined in ns-3's interpreter, ``monitor.cc`` (package data). How the
contract maps onto ns-3: the translator's docstring and ``docs/validation/ns3-mapping.md``.

This module, ``ns3checks.py`` and ``monitor.cc`` turn a configuration into a result: their sources are part
of the key of a stored ns-3 run (``cache.py``); the translator is not (its output, the configuration, is).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from importlib import resources
from typing import Any, Dict, List, Sequence

import numpy as np

from bufferlab.errors import BufferLabError
from bufferlab.validation.ns3checks import (
    PPP_HEADER_BYTES,
    RED_DISCIPLINES,
    check_read_back,
    check_socket_read_back,
    congestion_control_defaults,
    conn_timeout,
    queue_disc_attributes,
    socket_attributes,
)
from bufferlab.validation.translate import ScenarioLike, load, translate

#: First ns-3 random stream of the senders' `tcp.overhead` jitter (flow i draws from this + i), clear of the
#: streams the queue discs take (one per link).
JITTER_STREAM_BASE = 1000
#: Device queue of every device that is not a link's forward direction (no queue disc there).
BIG_DEVICE_QUEUE = "100000p"
#: The causes a timeout is classified by, in both simulators (the engine's `TimeoutCause`).
TIMEOUT_CAUSES = ("lost_retransmission", "during_recovery", "insufficient_dupacks", "other")
#: The C++ defined in ns-3's interpreter (monitors, sender and sink applications, the jitter queue disc).
MONITOR_RESOURCE = "monitor.cc"


def monitor_source() -> str:
    """The C++ monitor (``monitor.cc``, package data next to this module)."""
    return resources.files(__package__).joinpath(MONITOR_RESOURCE).read_text(encoding="utf-8")


_ns = None


def _load_ns3() -> Any:
    """Import ns-3 once (about 10 s) and define the C++ monitor; BufferLabError if ns3 is missing."""
    global _ns
    if _ns is not None:
        return _ns
    try:
        from ns import ns  # noqa: PLC0415
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise Ns3Unavailable(
            "ns-3 is not installed: `pip install ns3==3.44.post0` (or `pip install bufferlab[ns3]`)"
        ) from exc
    import cppyy  # noqa: PLC0415

    cppyy.cppdef(monitor_source())
    _ns = ns
    return ns


class Ns3Unavailable(BufferLabError):
    """The ``ns3`` package cannot be imported."""


def ns3_available() -> bool:
    """True when ``from ns import ns`` would work (checked without importing it)."""
    import importlib.util  # noqa: PLC0415

    return importlib.util.find_spec("ns") is not None and importlib.util.find_spec("cppyy") is not None


def _time_weighted_quantile(hist: Sequence[float], q: float) -> float:
    total = float(sum(hist))
    if total <= 0:
        return 0.0
    acc = 0.0
    for k, w in enumerate(hist):
        acc += w
        if acc >= q * total - 1e-9 * total:
            return float(k)
    return float(len(hist) - 1)


def _jain(values: Sequence[float]) -> float:
    x = np.asarray(values, dtype=float)
    sq = float((x**2).sum())
    return float(x.sum() ** 2 / (len(x) * sq)) if sq > 0 else 0.0


def run_ns3(scenario: ScenarioLike, *, resolved: Dict[str, Any] | None = None) -> Dict[str, Any]:
    """Run ``scenario`` in ns-3 in this process; the summary dict of ``docs/scenario.md`` keys.

    The summary's link metrics are the first link's, as in the engine. Extra keys: ``ports`` (one dict per
    link: utilization, loss and mark rates, queue and delay statistics), ``groups`` (one per group:
    ``goodput_bps``, ``jain_index``), ``wall_s`` (Simulator::Run wall time), ``cpu_s`` (its process CPU
    time; the honest number on a loaded machine), ``setup_s``, ``events`` (Simulator::GetEventCount),
    ``bottleneck_packets`` (first link, whole run), ``flows`` (per-flow dicts with ``goodput_bps``, payload
    bytes delivered in the window), ``queue_series`` (first link's ``time_s``/``queue_pkts`` lists, when
    monitor.sample_interval is set), ``ns3_config`` (the translated configuration and what was read back
    from the installed queue discs and sockets).
    """
    cfg = translate(scenario, resolved=resolved)
    ns = _load_ns3()
    import cppyy  # noqa: PLC0415

    bl = cppyy.gbl.bufferlab_ns3
    t_setup = time.perf_counter()
    tcp = cfg["tcp"]
    links, groups = cfg["links"], cfg["groups"]
    n = cfg["flows_total"]

    ns.Config.Reset()
    ns.RngSeedManager.SetSeed(max(1, cfg["seed"] & 0xFFFFFFFF))
    ns.RngSeedManager.SetRun(1)
    sd = ns.Config.SetDefault
    sd("ns3::TcpL4Protocol::SocketType", ns.StringValue(tcp["socket_type"]))
    sd("ns3::TcpL4Protocol::RecoveryType", ns.StringValue(tcp["recovery_type"]))
    # Every group's controller and pacing defaults (one table per kind, pacing alike: translate checks).
    for grp in groups:
        for name, value in congestion_control_defaults(grp["tcp"]).items():
            sd(name, _ns_value(ns, value))
    for lk in links:
        if "ns3_child_min_bytes" in lk["queue"]:  # FQ-CoDel's per-flow CoDel queue discs
            sd("ns3::CoDelQueueDisc::MinBytes", ns.UintegerValue(lk["queue"]["ns3_child_min_bytes"]))
    sd("ns3::TcpSocket::SegmentSize", ns.UintegerValue(tcp["segment_size"]))
    sd("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(tcp["initial_window"]))
    sd("ns3::TcpSocket::DelAckCount", ns.UintegerValue(tcp["del_ack_count"]))
    sd("ns3::TcpSocket::DelAckTimeout", ns.TimeValue(ns.Seconds(tcp["del_ack_timeout_s"])))
    sd("ns3::TcpSocket::ConnTimeout", ns.TimeValue(ns.Seconds(conn_timeout(tcp))))
    sd("ns3::TcpSocket::SndBufSize", ns.UintegerValue(tcp["snd_buf_bytes"]))
    sd("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(tcp["rcv_buf_bytes"]))
    sd("ns3::TcpSocketBase::Sack", ns.BooleanValue(True))
    sd("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))
    sd("ns3::TcpSocketBase::WindowScaling", ns.BooleanValue(True))
    sd("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.Seconds(tcp["min_rto_s"])))
    sd("ns3::TcpSocketBase::ClockGranularity", ns.TimeValue(ns.Seconds(tcp["clock_granularity_s"])))
    sd("ns3::TcpSocketBase::ReTxThreshold", ns.UintegerValue(tcp["retx_threshold"]))
    sd("ns3::TcpSocketBase::LimitedTransmit", ns.BooleanValue(tcp["limited_transmit"]))
    sd("ns3::TcpSocketBase::UseEcn", ns.StringValue("On" if tcp["ecn"] else "Off"))
    sd("ns3::RttEstimator::InitialEstimation", ns.TimeValue(ns.Seconds(tcp["initial_rto_s"])))
    sd("ns3::Ipv4::StrongEndSystemModel", ns.BooleanValue(True))

    routers = ns.NodeContainer()
    routers.Create(cfg["routers"])
    senders = ns.NodeContainer()
    senders.Create(n)
    stack = ns.InternetStackHelper()
    for r in range(cfg["routers"]):
        stack.Install(routers.Get(r))
    stack.Install(senders)

    big_queue = ns.StringValue(BIG_DEVICE_QUEUE)
    other_devs = ns.NetDeviceContainer()
    # Links: one point-to-point channel each, from its tail router to its head router. The forward device
    # holds one packet and the link's queue disc; the reverse direction carries only uncongested ACKs.
    addr = ns.Ipv4AddressHelper()
    addr.SetBase(ns.Ipv4Address("10.0.0.0"), ns.Ipv4Mask("255.255.255.252"))
    link_devs, link_ips, qdiscs = [], [], []
    for k, lk in enumerate(links):
        q = lk["queue"]
        p2p = ns.PointToPointHelper()
        p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.StringValue(f"{q['device_queue_pkts']}p"))
        p2p.SetDeviceAttribute("DataRate", ns.DataRateValue(ns.DataRate(int(round(lk["ns3_rate_bps"])))))
        p2p.SetChannelAttribute("Delay", ns.TimeValue(ns.Seconds(lk["delay_s"])))
        devs = p2p.Install(routers.Get(lk["from_router"]), routers.Get(lk["to_router"]))
        bl.AsP2P(devs.Get(1)).GetQueue().SetAttribute("MaxSize", big_queue)
        tch = ns.TrafficControlHelper()
        disc_args: List[Any] = []
        for name, value in queue_disc_attributes(cfg, k).items():
            disc_args += [name, _ns_value(ns, value)]
        if q["discipline"] in RED_DISCIPLINES:
            disc_args += ["LinkDelay", ns.TimeValue(ns.Seconds(lk["delay_s"]))]
        tch.SetRootQueueDisc(q["ns3_type"], *disc_args)
        qdisc = tch.Install(devs.Get(0)).Get(0)
        bl.FixStreams(qdisc, k)
        if q["discipline"] == "fq-codel":
            bl.SetFqQuantum(qdisc, q["quantum"])
        ifc = addr.Assign(devs)
        addr.NewNetwork()
        other_devs.Add(devs.Get(1))
        link_devs.append(devs)
        link_ips.append((ifc.GetAddress(0), ifc.GetAddress(1)))
        qdiscs.append(qdisc)

    # Access links: group g's senders in 10.(1+g).0.0/16, attached to the router where its route starts.
    static = ns.Ipv4StaticRoutingHelper()
    acc = ns.PointToPointHelper()
    acc.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", big_queue)
    sender_devs: List[Any] = [None] * n
    for g, grp in enumerate(groups):
        fl = grp["flows"]
        addr.SetBase(ns.Ipv4Address(f"10.{1 + g}.0.0"), ns.Ipv4Mask("255.255.255.252"))
        for j in range(fl["count"]):
            i = fl["first"] + j
            acc_rate = ns.DataRate(int(round(fl["ns3_access_rate_bps"][j])))
            acc.SetDeviceAttribute("DataRate", ns.DataRateValue(acc_rate))
            acc.SetChannelAttribute("Delay", ns.TimeValue(ns.Seconds(fl["access_delay_s"][j])))
            d = acc.Install(senders.Get(i), routers.Get(grp["start_router"]))
            sender_devs[i] = d.Get(0)
            other_devs.Add(d)
            ifc = addr.Assign(d)
            addr.NewNetwork()
            srt = static.GetStaticRouting(senders.Get(i).GetObject[ns.Ipv4]())
            srt.SetDefaultRoute(ifc.GetAddress(1), 1)
    # Routers: each group's data towards its receiver and ACKs towards its senders, link by link.
    for rt in cfg["routes"]:
        k, g = rt["link"], rt["group"]
        router = routers.Get(rt["router"])
        ipv4 = router.GetObject[ns.Ipv4]()
        fwd = rt["direction"] == "forward"
        dev = link_devs[k].Get(0 if fwd else 1)
        via = link_ips[k][1 if fwd else 0]
        iface = ipv4.GetInterfaceForDevice(dev)
        srt = static.GetStaticRouting(ipv4)
        if rt["to"] == "receiver":
            last = links.index(next(lk for lk in links if lk["name"] == groups[g]["route"][-1]))
            srt.AddHostRouteTo(link_ips[last][1], via, iface)
        else:
            srt.AddNetworkRouteTo(ns.Ipv4Address(f"10.{1 + g}.0.0"), ns.Ipv4Mask("255.255.0.0"), via, iface)
    ns.TrafficControlHelper().Uninstall(other_devs)
    # tcp.overhead: a jitter queue disc on each sender's access device, one random stream per flow.
    for grp in groups:
        most = grp["tcp"]["overhead_s"]
        for j in range(grp["flows"]["count"] if most > 0 else 0):
            i = grp["flows"]["first"] + j
            jitter = ns.TrafficControlHelper()
            jitter.SetRootQueueDisc(str(bl.JitterTypeName()))
            bl.SetJitter(jitter.Install(sender_devs[i]).Get(0), most, JITTER_STREAM_BASE + i)

    snap = bl.Snapshot()
    base_port = 5000
    sender_apps, sink_apps = [], []
    for grp in groups:
        fl = grp["flows"]
        last = links.index(next(lk for lk in links if lk["name"] == grp["route"][-1]))
        rx_ip = link_ips[last][1]
        rx_node = routers.Get(grp["end_router"])
        attrs = grp["socket_attributes"]
        for j in range(fl["count"]):
            i = fl["first"] + j
            sink = bl.AddSink(rx_node, base_port + i)
            for name, value in attrs["receiver"].items():
                bl.SetAttr(sink.attrs, name, value)
            snap.sinks.push_back(sink)
            src = bl.AddSender(senders.Get(i), rx_ip, base_port + i, grp["tcp"]["segment_size"],
                               fl["ns3_app_start_s"][j])
            for name, value in attrs["sender"].items():
                bl.SetAttr(src.attrs, name, value)
            bl.SetWarmup(src, int(round((cfg["t0_s"] + cfg["warmup_s"]) * 1_000_000_000)))
            sender_apps.append(src)
            sink_apps.append(sink)

    ns_per_s = 1_000_000_000
    si = cfg["monitor"]["sample_interval_s"]
    monitors = []
    for k in range(len(links)):
        mon = bl.Monitor()
        mon.t0_ns = int(round(cfg["t0_s"] * ns_per_s))
        mon.warm_ns = int(round((cfg["t0_s"] + cfg["warmup_s"]) * ns_per_s))
        mon.end_ns = int(round(cfg["stop_s"] * ns_per_s))
        if si and k == 0:
            mon.sample_ns = int(round(si * ns_per_s))
            mon.next_sample_ns = mon.t0_ns
        bl.Attach(mon, qdiscs[k], bl.AsP2P(link_devs[k].Get(0)))
        monitors.append(mon)
    bl.ScheduleSnapshot(snap, cfg["t0_s"] + cfg["warmup_s"])

    read_back: Dict[str, Any] = {"links": {}}
    for k, lk in enumerate(links):
        informational = ("LinkDelay", "Ns1Compat") if lk["queue"]["discipline"] in RED_DISCIPLINES else ()
        rb = {name: _attr(qdiscs[k], name) for name in (*queue_disc_attributes(cfg, k), *informational)}
        rb["device_queue"] = _attr(bl.AsP2P(link_devs[k].Get(0)).GetQueue(), "MaxSize")
        if lk["queue"]["discipline"] == "fq-codel":
            rb["quantum"] = str(bl.GetFqQuantum(qdiscs[k]))
        read_back["links"][lk["name"]] = rb
    read_back["root_queue_discs_elsewhere"] = _count_root_qdiscs(other_devs)
    check_read_back(cfg, read_back)

    ns.Simulator.Stop(ns.Seconds(cfg["stop_s"]))
    setup_s = time.perf_counter() - t_setup
    t_run, c_run = time.perf_counter(), time.process_time()
    ns.Simulator.Run()
    wall = time.perf_counter() - t_run
    cpu = time.process_time() - c_run
    for mon in monitors:
        mon.Finish()
    events = int(ns.Simulator.GetEventCount())

    # The sockets as they ran: every group's first sender and receiver.
    read_back["groups"] = {}
    for grp in groups:
        i = grp["flows"]["first"]
        own = socket_attributes(grp["tcp"])
        read_back["groups"][grp["name"]] = {
            "sender": {a: _attr(bl.SenderSocket(sender_apps[i]), a) for a in own["sender"]},
            "receiver": {a: _attr(bl.SinkSocket(sink_apps[i]), a) for a in own["receiver"]},
        }
    check_socket_read_back(cfg, read_back["groups"])

    window = cfg["duration_s"] - cfg["warmup_s"]
    at_warm = list(snap.at_warmup) or [0] * n
    goodputs = [(int(snap.sinks[i].GetTotalRx()) - int(at_warm[i])) * 8.0 / window for i in range(n)]
    ports = [_port_result(lk, monitors[k], window) for k, lk in enumerate(links)]
    first = ports[0]
    group_rows = []
    for grp in groups:
        fl = grp["flows"]
        gp = goodputs[fl["first"]:fl["first"] + fl["count"]]
        apps = sender_apps[fl["first"]:fl["first"] + fl["count"]]
        group_rows.append({"name": grp["name"], "flows": fl["count"], "goodput_bps": float(sum(gp)),
                           "jain_index": _jain(gp), **_sender_counts(apps)})
    flows = []
    for g, grp in enumerate(groups):
        fl = grp["flows"]
        for j in range(fl["count"]):
            i = fl["first"] + j
            flows.append({"flow": i, "group": g, "rtt_s": fl["rtt_s"][j], "start_s": fl["start_s"][j],
                          "goodput_bps": goodputs[i], **_sender_counts(sender_apps[i:i + 1])})
    all_counts = _sender_counts(sender_apps)
    result: Dict[str, Any] = {
        "name": cfg["name"],
        "simulator": "ns-3 3.44",
        **{k: v for k, v in first.items() if k not in ("name", "rate_bps", "delay_s")},
        "goodput_bps": float(sum(goodputs)),
        "jain_index": _jain(goodputs),
        "window_timeouts": all_counts["window_timeouts"],
        **{f"window_timeouts_{c}": n for c, n in all_counts["timeouts_by_cause"].items()},
        "wall_s": wall,
        "cpu_s": cpu,
        "setup_s": setup_s,
        "events": events,
        "bottleneck_packets": int(monitors[0].tx_total),
        "ports": ports,
        "groups": group_rows,
        "flows": flows,
        "ns3_config": {**cfg, "read_back": read_back},
    }
    if si:
        mon = monitors[0]
        result["queue_series"] = {"time_s": list(mon.series_t), "queue_pkts": [int(x) for x in mon.series_q]}
    for lk, mon in zip(links, monitors):
        if int(mon.drops_other):
            cfg["notes"].append(
                f"link {lk['name']!r}: {int(mon.drops_other)} drops with an unexpected reason"
            )
    ns.Simulator.Destroy()
    return result


def _sender_counts(apps: Sequence[Any]) -> Dict[str, Any]:
    """Whole-run sender counters (timeouts: every expiry of the retransmission timer with data outstanding;
    entries into fast recovery; retransmissions) and the measurement window's timeouts by cause."""
    causes = {cause: sum(int(getattr(a, f"window_{cause}")) for a in apps) for cause in TIMEOUT_CAUSES}
    return {"timeouts": sum(int(a.timeouts) for a in apps),
            "fast_recoveries": sum(int(a.fast_recoveries) for a in apps),
            "retransmits": sum(int(a.retransmits) for a in apps),
            "window_timeouts": sum(causes.values()),
            "timeouts_by_cause": causes}


def _port_result(link: Dict[str, Any], mon: Any, window: float) -> Dict[str, Any]:
    """One link's row, as the engine's ``Results.ports``."""
    hist = list(mon.hist_ns)
    tot = float(sum(hist))
    arrivals = int(mon.arrivals)
    drops = int(mon.drops_overflow + mon.drops_early + mon.drops_forced + mon.drops_other)
    marks = int(mon.marks)
    # Bytes on the wire less PPP's 2-byte header = IP bytes, what the contract's rate counts.
    ip_bytes = int(mon.tx_bytes) - PPP_HEADER_BYTES * int(mon.departures)
    delays = np.array(list(mon.delays), dtype=np.float64) if int(mon.delay_n) else np.zeros(0)
    return {
        "name": link["name"],
        "rate_bps": link["rate_bps"],
        "delay_s": link["delay_s"],
        "utilization": ip_bytes * 8.0 / (link["rate_bps"] * window),
        "throughput_bps": ip_bytes * 8.0 / window,
        "arrivals": arrivals,
        "departures": int(mon.departures),
        "drops_overflow": int(mon.drops_overflow),
        "drops_early": int(mon.drops_early),
        "drops_forced": int(mon.drops_forced),
        "drops": drops,
        "marks": marks,
        "loss_rate": drops / arrivals if arrivals else 0.0,
        "mark_rate": marks / arrivals if arrivals else 0.0,
        "queue_mean_pkts": sum(k * w for k, w in enumerate(hist)) / tot if tot > 0 else 0.0,
        "queue_p50_pkts": _time_weighted_quantile(hist, 0.50),
        "queue_p90_pkts": _time_weighted_quantile(hist, 0.90),
        "queue_p99_pkts": _time_weighted_quantile(hist, 0.99),
        "queue_max_pkts": float(max((k for k, w in enumerate(hist) if w > 0), default=0)),
        "delay_mean_s": float(delays.mean()) if delays.size else 0.0,
        "delay_std_s": float(delays.std()) if delays.size else 0.0,
        "delay_p50_s": float(np.percentile(delays, 50)) if delays.size else 0.0,
        "delay_p90_s": float(np.percentile(delays, 90)) if delays.size else 0.0,
        "delay_p99_s": float(np.percentile(delays, 99)) if delays.size else 0.0,
    }


def _ns_value(ns: Any, value: Any) -> Any:
    if isinstance(value, bool):
        return ns.BooleanValue(value)
    if isinstance(value, int):
        return ns.UintegerValue(value)
    if isinstance(value, float):
        return ns.DoubleValue(value)
    return ns.StringValue(value)


def _attr(obj: Any, name: str) -> str:
    import cppyy  # noqa: PLC0415

    return str(cppyy.gbl.bufferlab_ns3.GetAttr(obj, name))


def _count_root_qdiscs(devs: Any) -> int:
    import cppyy  # noqa: PLC0415

    return int(cppyy.gbl.bufferlab_ns3.CountRootQdiscs(devs))


# --------------------------------------------------------------------------------------------------
# isolation: one ns-3 run per interpreter
# --------------------------------------------------------------------------------------------------


def run_ns3_isolated(scenario: ScenarioLike, *, timeout: float | None = None) -> Dict[str, Any]:
    """:func:`run_ns3` in a fresh Python process (ns-3's singletons and memory do not leak between runs)."""
    spec = load(scenario)
    translate(spec)  # validate here first
    payload = json.dumps({"scenario": spec})
    env = dict(os.environ)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "bufferlab.validation.ns3run"],
            input=payload, capture_output=True, text=True, timeout=timeout, env=env, check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise BufferLabError(f"ns-3 run of {spec.get('name', '?')!r} exceeded {timeout} s") from exc
    out = proc.stdout.strip().splitlines()
    if proc.returncode == 3:
        raise Ns3Unavailable(out[-1] if out else "ns-3 is not installed")
    if proc.returncode != 0 or not out:
        tail = "\n".join(proc.stderr.strip().splitlines()[-15:])
        raise BufferLabError(f"ns-3 run failed (exit {proc.returncode}):\n{tail}")
    return json.loads(out[-1])


def _main() -> int:
    req = json.loads(sys.stdin.read())
    try:
        res = run_ns3(req["scenario"])
    except Ns3Unavailable as exc:
        print(str(exc))
        return 3
    sys.stdout.write("\n" + json.dumps(res) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(_main())
