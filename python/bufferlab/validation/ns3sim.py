"""Run a BufferLab dumbbell scenario in ns-3 (the ``ns3`` package from PyPI, version 3.44).

:func:`translate` turns a scenario dict (parsed TOML, unit strings allowed) into a plain, JSON-able ns-3
configuration; it needs no ns-3 and is what the tests check. :func:`run_ns3` builds that configuration in
ns-3 through its Python bindings and returns the summary keys of ``docs/scenario.md`` that ns-3 can
measure, plus ``wall_s`` and ``events``. :func:`run_ns3_isolated` does the same in a fresh interpreter.

How the contract maps onto ns-3 (see ``docs/validation/ns3-mapping.md`` for the reasoning):

* Topology: sender *i* (own node) --access link *i*--> router --bottleneck--> one receiver node that hosts
  N ``PacketSink``s. Access one-way delay ``a_i = RTT_i/2 - bottleneck.delay``. ACKs use the reverse
  directions of the same full-duplex links, which carry only ACKs (uncongested).
* Buffer: the bottleneck device's own queue is cut to one packet, and the root queue disc is the buffer
  (``FifoQueueDisc`` for DropTail, ``RedQueueDisc`` for RED). While the link is busy the device queue holds
  the *next* packet to serialize (the one being serialized is in neither queue), so "packets waiting" =
  queue disc + device queue, and the queue disc limit is ``limit - 1``. RED only sees the queue disc, i.e.
  one packet fewer than the contract's queue, so its thresholds are shifted down by one packet.
* Every other device has its root queue disc removed (ns-3 would silently install FqCoDel) and a large
  device queue.
* Wire size: TCP timestamps are turned off so a data packet is exactly ``header_size`` (20 IPv4 + 20 TCP)
  plus ``SegmentSize = packet_size - header_size`` bytes. The point-to-point device adds a 2-byte PPP
  header; link rates are scaled by ``(packet_size + 2) / packet_size`` so that a data packet still
  serializes in ``packet_size * 8 / rate``.
* TCP: NewReno, SACK on, ``TcpClassicRecovery`` (keeps cwnd = ssthresh during recovery and sends by the
  SACK scoreboard's pipe, i.e. RFC 6675; ns-3's default PRR spreads the reduction instead), initial window,
  ``MinRto``, ``ClockGranularity``, ``RttEstimator::InitialEstimation`` = initial RTO, ``DelAckCount`` 1
  (per packet) or 2 (delayed ACK) with ``DelAckTimeout``, ``ReTxThreshold`` = dupack threshold, ECN
  ``On``/``Off``.
* Start times: ns-3 opens every connection with a three-way handshake that takes one RTT before the
  first data segment leaves. The whole ns-3 timeline is offset by ``T0 = max RTT`` and application *i*
  starts at ``T0 + start_i - RTT_i``, so its first data segment leaves at ``T0 + start_i``; all
  statistics cover ``[T0 + warmup, T0 + duration]`` and times are reported relative to ``T0``.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from typing import Any, Dict, List, Sequence

import numpy as np

from bufferlab.errors import BufferLabError
from bufferlab.units import parse_rate, parse_size, parse_time

PPP_HEADER_BYTES = 2
#: IPv4 (20) + TCP (20) header bytes of an ns-3 data segment without options (timestamps off).
NS3_TCP_IP_HEADER_BYTES = 40

# --------------------------------------------------------------------------------------------------
# translation (pure)
# --------------------------------------------------------------------------------------------------

_DEFAULTS: Dict[str, Dict[str, Any]] = {
    "bottleneck": {"delay": "0s"},
    "queue": {
        "discipline": "droptail", "limit": 100, "min_th": 5, "max_th": 15, "max_p": 0.1, "weight": 0.002,
        "gentle": True, "wait": True, "ecn": False,
    },
    "flows": {"rtt": "100ms", "access_rate": "1Gbps", "start": 0.0},
    "tcp": {
        "congestion_control": "newreno", "packet_size": "1000B", "header_size": "40B", "ack_size": "40B",
        "initial_window": 10, "min_rto": "200ms", "initial_rto": "1s", "max_rto": "60s",
        "clock_granularity": "1ms", "delayed_ack": False, "delayed_ack_timeout": "200ms", "sack": True,
        "ecn": False, "dupack_threshold": 3, "limited_transmit": True,
        "ssthresh_from": "flight", "rto_backoff": "until-sample",
    },
}


def _parse_start(value: Any, field: str) -> float:
    return parse_time(value, field, allow_zero=True)


def _per_flow(spec: Any, n: int, parse, field: str, rng: np.random.Generator) -> tuple[List[float], bool]:
    """Expand a value / list / {uniform=[lo, hi]} to N floats; the bool says whether it was drawn here."""
    if isinstance(spec, dict):
        if set(spec) != {"uniform"} or len(spec["uniform"]) != 2:
            raise BufferLabError(
                f"{field}: expected a value, a list of {n} values or {{ uniform = [lo, hi] }}"
            )
        lo, hi = (parse(v, field) for v in spec["uniform"])
        if hi < lo:
            raise BufferLabError(f"{field}: uniform range has hi < lo")
        return [float(x) for x in rng.uniform(lo, hi, size=n)], True
    if isinstance(spec, (list, tuple)):
        if len(spec) != n:
            raise BufferLabError(f"{field}: list has {len(spec)} values, flows.count is {n}")
        return [parse(v, field) for v in spec], False
    return [parse(spec, field)] * n, False


def translate(
    scenario: Dict[str, Any],
    *,
    rtts: Sequence[float] | None = None,
    starts: Sequence[float] | None = None,
    access_rates: Sequence[float] | None = None,
) -> Dict[str, Any]:
    """The ns-3 configuration for a dumbbell scenario, as plain numbers (SI units, bytes, packets).

    ``rtts``/``starts``/``access_rates`` (seconds, seconds, bits/s; one per flow) override the scenario's
    per-flow values. Pass the engine's actual per-flow values for a comparison: a ``{uniform = ...}`` in the
    scenario is otherwise drawn here with numpy, which cannot reproduce the engine's draws (the result
    says so in ``locally_drawn``).
    """
    if not isinstance(scenario, dict):
        raise BufferLabError("scenario: expected a table (dict)")
    sec = {k: dict(scenario.get(k) or {}) for k in ("bottleneck", "flows", "tcp", "monitor")}
    queue = dict(_DEFAULTS["queue"])
    queue.update(sec["bottleneck"].pop("queue", None) or {})
    bott = dict(_DEFAULTS["bottleneck"])
    bott.update(sec["bottleneck"])
    flows = dict(_DEFAULTS["flows"])
    flows.update(sec["flows"])
    tcp = dict(_DEFAULTS["tcp"])
    tcp.update(sec["tcp"])

    if "duration" not in scenario:
        raise BufferLabError("duration: required")
    duration = parse_time(scenario["duration"], "duration")
    warmup = parse_time(scenario.get("warmup", 0.0), "warmup", allow_zero=True)
    if duration <= 0:
        raise BufferLabError("duration: must be > 0")
    if not 0 <= warmup < duration:
        raise BufferLabError("warmup: must satisfy 0 <= warmup < duration")
    if "rate" not in bott:
        raise BufferLabError("bottleneck.rate: required")
    rate = parse_rate(bott["rate"], "bottleneck.rate")
    if rate <= 0:
        raise BufferLabError("bottleneck.rate: must be > 0")
    bdelay = parse_time(bott["delay"], "bottleneck.delay", allow_zero=True)
    if "count" not in flows:
        raise BufferLabError("flows.count: required")
    n = int(flows["count"])
    if n < 1:
        raise BufferLabError("flows.count: must be >= 1")
    seed = int(scenario.get("seed", 1))

    cc = str(tcp["congestion_control"]).lower()
    if cc != "newreno":
        raise BufferLabError(f"tcp.congestion_control: ns-3 comparison supports 'newreno', got {cc!r}")
    if not tcp["sack"]:
        raise BufferLabError(
            "tcp.sack: ns-3 3.44's non-SACK NewReno path retransmits segments that were not lost; "
            "the comparison needs sack = true"
        )
    if tcp.get("ecn_response", "once-per-rtt") != "once-per-rtt":
        raise BufferLabError("tcp.ecn_response: ns-3 reduces for ECN once per window; the comparison needs "
                             "\"once-per-rtt\"")
    packet = parse_size(tcp["packet_size"], "tcp.packet_size")
    header = parse_size(tcp["header_size"], "tcp.header_size", allow_zero=True)
    ack = parse_size(tcp["ack_size"], "tcp.ack_size")
    segment = packet - header
    if segment <= 0:
        raise BufferLabError("tcp.header_size: must be smaller than tcp.packet_size")
    notes: List[str] = []
    if header != NS3_TCP_IP_HEADER_BYTES:
        notes.append(
            f"tcp.header_size is {header} B but ns-3's IPv4+TCP header without options is 40 B: "
            f"ns-3 data packets are {segment + NS3_TCP_IP_HEADER_BYTES} B on the wire, not {packet} B"
        )
    if ack != NS3_TCP_IP_HEADER_BYTES:
        notes.append(f"tcp.ack_size is {ack} B; ns-3 ACKs are 40 B (plus SACK blocks during recovery)")
    wire = segment + NS3_TCP_IP_HEADER_BYTES

    rng = np.random.default_rng(seed)
    locally_drawn: List[str] = []
    per_flow = {}
    for name, given, parse in (("rtt", rtts, parse_time), ("access_rate", access_rates, parse_rate),
                               ("start", starts, _parse_start)):
        if given is None:
            per_flow[name], drawn = _per_flow(flows[name], n, parse, f"flows.{name}", rng)
            if drawn:
                locally_drawn.append(name)
        else:
            per_flow[name] = [float(x) for x in given]
    rtt_list, acc_list, start_list = per_flow["rtt"], per_flow["access_rate"], per_flow["start"]
    for name, lst in (("rtt", rtt_list), ("access_rate", acc_list), ("start", start_list)):
        if len(lst) != n:
            raise BufferLabError(f"flows.{name}: {len(lst)} values for {n} flows")
    if "stop" in flows:
        raise BufferLabError("flows.stop: not supported by the ns-3 translator")
    access_delays = []
    for i, r in enumerate(rtt_list):
        a = r / 2.0 - bdelay
        if a < 0:
            raise BufferLabError(f"flows.rtt: flow {i} RTT {r}s is less than 2 x bottleneck.delay")
        access_delays.append(a)
    if any(a <= 0 for a in acc_list):
        raise BufferLabError("flows.access_rate: must be > 0")
    if any(s < 0 for s in start_list):
        raise BufferLabError("flows.start: must be >= 0")

    # Queue.
    disc = str(queue["discipline"]).lower()
    if disc not in ("droptail", "red"):
        raise BufferLabError(
            f"bottleneck.queue.discipline: ns-3 has no equivalent of {disc!r}; comparison skipped"
        )
    qcfg: Dict[str, Any] = {"discipline": disc, "device_queue_pkts": 1}
    if "limit_bytes" in queue:
        lb = parse_size(queue["limit_bytes"], "bottleneck.queue.limit_bytes")
        if lb < 2 * wire:
            raise BufferLabError("bottleneck.queue.limit_bytes: need at least two packets for ns-3")
        qcfg["limit_bytes"] = lb
        # The device queue holds one (full-size) packet of the bytes waiting.
        qcfg["ns3_max_size"] = f"{lb - wire}B"
        notes.append(
            "limit_bytes: the device queue's one packet is assumed full-size (ns-3 limit = bytes - 1 packet)"
        )
    else:
        limit = int(queue["limit"])
        if limit < 2:
            raise BufferLabError(
                "bottleneck.queue.limit: ns-3 needs >= 2 (one waiting packet lives in the device queue)"
            )
        qcfg["limit"] = limit
        qcfg["ns3_max_size"] = f"{limit - 1}p"
    if disc == "red":
        min_th = float(queue["min_th"])
        max_th = float(queue["max_th"])
        max_p = float(queue["max_p"])
        if not (0 < min_th < max_th):
            raise BufferLabError("bottleneck.queue.min_th/max_th: need 0 < min_th < max_th")
        if not 0 < max_p <= 1:
            raise BufferLabError("bottleneck.queue.max_p: must be in (0, 1]")
        mean_pkt = parse_size(queue.get("mean_pktsize", packet), "bottleneck.queue.mean_pktsize")
        qcfg.update(
            min_th=min_th, max_th=max_th, max_p=max_p, weight=float(queue["weight"]),
            gentle=bool(queue["gentle"]), wait=bool(queue["wait"]), ecn=bool(queue["ecn"]),
            mean_pktsize=mean_pkt,
            # ns-3 RED sees the queue disc only: one packet fewer than "packets waiting" when busy.
            ns3_min_th=max(min_th - 1.0, 0.0), ns3_max_th=max_th - 1.0, ns3_linterm=1.0 / max_p,
            ns3_use_hard_drop=True,
        )
        if qcfg["ecn"] and not tcp["ecn"]:
            notes.append("RED marks but TCP ECN is off: every early action becomes a drop")
    # Rates are scaled so a data packet (IP size `wire`) serializes in wire*8/rate despite PPP's 2 B.
    scale = (wire + PPP_HEADER_BYTES) / wire
    rtt_max = max(rtt_list)
    t0 = math.ceil(rtt_max * 1000.0) / 1000.0 + 0.001
    bdp_pkts = [rate * r / 8.0 / wire for r in rtt_list]
    limit_pkts = qcfg.get("limit", (qcfg.get("limit_bytes", 0) // wire))
    if "max_window" in tcp:
        wmax = int(tcp["max_window"])
        sndbuf = rcvbuf = wmax * segment
        notes.append("max_window: ns-3 enforces it through the send and receive buffer sizes (bytes)")
    else:
        wmax = None
        # ns-3 needs a finite send buffer (it holds sent and unsent data) and a flow that fills it stops
        # growing, which the engine's flows never do. Size it far above any window a flow can reach: the
        # whole path (BDP + buffer) twice over, capped at 32 fair shares (memory with 1,000 flows), and
        # at least 64 packets. A smaller cap (8 shares) let a flow that happened to see no loss sit at
        # the cap for the whole run with ten times its fair share.
        path = max(bdp_pkts) + limit_pkts
        share = path / n
        sndbuf = int(max(64.0, min(2.5 * path, 32.0 * share) + 4 * int(tcp["initial_window"])) * segment)
        rcvbuf = 1 << 30
    monitor = sec["monitor"]
    sample = monitor.get("sample_interval")
    cfg = {
        "name": scenario.get("name", ""),
        "seed": seed,
        "duration_s": duration,
        "warmup_s": warmup,
        "t0_s": t0,
        "stop_s": t0 + duration,
        "bottleneck": {
            "rate_bps": rate, "ns3_rate_bps": rate * scale, "delay_s": bdelay, "queue": qcfg,
        },
        "flows": {
            "count": n, "rtt_s": rtt_list, "start_s": start_list, "access_rate_bps": acc_list,
            "ns3_access_rate_bps": [a * scale for a in acc_list], "access_delay_s": access_delays,
            "ns3_app_start_s": [t0 + s - r for s, r in zip(start_list, rtt_list)],
            "locally_drawn": locally_drawn,
        },
        "tcp": {
            "socket_type": "ns3::TcpNewReno", "recovery_type": "ns3::TcpClassicRecovery",
            "packet_size": packet, "wire_size": wire, "header_size": header, "segment_size": segment,
            "initial_window": int(tcp["initial_window"]),
            "min_rto_s": parse_time(tcp["min_rto"], "tcp.min_rto"),
            "initial_rto_s": parse_time(tcp["initial_rto"], "tcp.initial_rto"),
            "max_rto_s": parse_time(tcp["max_rto"], "tcp.max_rto"),
            "clock_granularity_s": parse_time(
                tcp["clock_granularity"], "tcp.clock_granularity", allow_zero=True
            ),
            "del_ack_count": 2 if tcp["delayed_ack"] else 1,
            "del_ack_timeout_s": parse_time(tcp["delayed_ack_timeout"], "tcp.delayed_ack_timeout"),
            "sack": True, "timestamps": False, "ecn": bool(tcp["ecn"]),
            "retx_threshold": int(tcp["dupack_threshold"]), "max_window": wmax,
            "limited_transmit": bool(tcp["limited_transmit"]),
            "snd_buf_bytes": sndbuf, "rcv_buf_bytes": rcvbuf,
        },
        "monitor": {
            "sample_interval_s": (
                parse_time(sample, "monitor.sample_interval") if sample is not None else None
            ),
        },
        "link_rate_scale": scale,
        "notes": notes,
    }
    if tcp["ssthresh_from"] != "pipe":
        notes.append("tcp.ssthresh_from: ns-3 halves RFC 6675's pipe after a loss, the engine here "
                     "FlightSize (set tcp.ssthresh_from = \"pipe\" to compare like with like)")
    if tcp["rto_backoff"] != "new-ack":
        notes.append("tcp.rto_backoff: ns-3 drops the timer's backoff at any new ACK, the engine here at the "
                     "next valid RTT sample (Karn)")
    if cfg["tcp"]["max_rto_s"] != 60.0:
        notes.append("tcp.max_rto: ns-3 has no attribute for it (its cap is 60 s)")
    return cfg


# --------------------------------------------------------------------------------------------------
# ns-3
# --------------------------------------------------------------------------------------------------

_MONITOR_CPP = r"""
#include <unordered_map>
#include <vector>
#include <cstring>
namespace bufferlab_ns3 {
using namespace ns3;

// Streams the bottleneck's statistics from trace sources, without scheduling events of its own.
struct Monitor {
  int64_t t0_ns = 0, warm_ns = 0, end_ns = 0, sample_ns = 0, next_sample_ns = 0, last_ns = 0;
  uint32_t q_disc = 0, q_dev = 0;
  std::vector<double> hist_ns;            // time spent at each queue length inside the window
  std::vector<double> series_t;           // sampled queue (time relative to t0)
  std::vector<uint32_t> series_q;
  uint64_t arrivals = 0, enqueued = 0, drops_overflow = 0, drops_early = 0, drops_forced = 0,
           drops_other = 0, marks = 0, departures = 0, tx_bytes = 0, tx_total = 0, drops_total = 0;
  std::unordered_map<uint64_t, int64_t> enq_time;
  double delay_sum = 0.0, delay_sq = 0.0;
  uint64_t delay_n = 0;
  std::vector<float> delays;

  bool InWin(int64_t t) const { return t >= warm_ns && t <= end_ns; }
  uint32_t Q() const { return q_disc + q_dev; }
  void Advance() {
    int64_t now = Simulator::Now().GetNanoSeconds();
    while (sample_ns > 0 && next_sample_ns <= now && next_sample_ns <= end_ns) {
      series_t.push_back((next_sample_ns - t0_ns) * 1e-9);
      series_q.push_back(Q());
      next_sample_ns += sample_ns;
    }
    int64_t a = std::max(last_ns, warm_ns), b = std::min(now, end_ns);
    if (b > a) {
      uint32_t q = Q();
      if (q >= hist_ns.size()) hist_ns.resize(q + 1, 0.0);
      hist_ns[q] += double(b - a);
    }
    last_ns = now;
  }
  void Finish() { Advance(); }
  void DiscLen(uint32_t, uint32_t v) { Advance(); q_disc = v; }
  void DevLen(uint32_t, uint32_t v) { Advance(); q_dev = v; }
  void Enq(Ptr<const QueueDiscItem> item) {
    int64_t now = Simulator::Now().GetNanoSeconds();
    enq_time[item->GetPacket()->GetUid()] = now;
    if (InWin(now)) { arrivals++; enqueued++; }
  }
  void Drop(Ptr<const QueueDiscItem> item, const char* reason) {
    int64_t now = Simulator::Now().GetNanoSeconds();
    drops_total++;
    enq_time.erase(item->GetPacket()->GetUid());
    if (!InWin(now)) return;
    arrivals++;
    if (std::strcmp(reason, "Unforced drop") == 0) drops_early++;
    else if (std::strcmp(reason, "Forced drop") == 0) drops_forced++;
    else if (std::strcmp(reason, "Queue disc limit exceeded") == 0) drops_overflow++;
    else drops_other++;
  }
  void Mark(Ptr<const QueueDiscItem>, const char*) {
    if (InWin(Simulator::Now().GetNanoSeconds())) marks++;
  }
  void TxBegin(Ptr<const Packet> p) {
    int64_t now = Simulator::Now().GetNanoSeconds();
    auto it = enq_time.find(p->GetUid());
    if (it == enq_time.end()) return;
    if (InWin(it->second)) {
      double d = (now - it->second) * 1e-9;
      delay_sum += d; delay_sq += d * d; delay_n++;
      delays.push_back(float(d));
    }
    enq_time.erase(it);
  }
  void TxEnd(Ptr<const Packet> p) {
    tx_total++;
    if (InWin(Simulator::Now().GetNanoSeconds())) { departures++; tx_bytes += p->GetSize(); }
  }
};

void Attach(Monitor* m, Ptr<QueueDisc> qd, Ptr<PointToPointNetDevice> dev) {
  qd->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&Monitor::DiscLen, m));
  qd->TraceConnectWithoutContext("Enqueue", MakeCallback(&Monitor::Enq, m));
  qd->TraceConnectWithoutContext("DropBeforeEnqueue", MakeCallback(&Monitor::Drop, m));
  qd->TraceConnectWithoutContext("DropAfterDequeue", MakeCallback(&Monitor::Drop, m));
  qd->TraceConnectWithoutContext("Mark", MakeCallback(&Monitor::Mark, m));
  dev->GetQueue()->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&Monitor::DevLen, m));
  dev->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&Monitor::TxBegin, m));
  dev->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&Monitor::TxEnd, m));
}

struct Snapshot {
  std::vector<Ptr<PacketSink>> sinks;
  std::vector<uint64_t> at_warmup;
  void Take() { at_warmup.clear(); for (auto& s : sinks) at_warmup.push_back(s->GetTotalRx()); }
};
void ScheduleSnapshot(Snapshot* s, double at_s) { Simulator::Schedule(Seconds(at_s), &Snapshot::Take, s); }
void AddSink(Snapshot* s, Ptr<Application> app) { s->sinks.push_back(DynamicCast<PacketSink>(app)); }
Ptr<PointToPointNetDevice> AsP2P(Ptr<NetDevice> d) { return DynamicCast<PointToPointNetDevice>(d); }
std::string GetAttr(Ptr<Object> o, std::string name) {
  TypeId::AttributeInformation info;
  if (!o->GetInstanceTypeId().LookupAttributeByName(name, &info)) return "?";
  Ptr<AttributeValue> v = info.checker->Create();
  o->GetAttribute(name, *v);
  return v->SerializeToString(info.checker);
}
// RED's random variable gets a fixed stream: ns-3 numbers streams of random variables automatically
// from a process-wide counter, so a second simulation in the same process would draw from another one.
void FixStreams(Ptr<QueueDisc> qd) {
  Ptr<RedQueueDisc> red = DynamicCast<RedQueueDisc>(qd);
  if (red) red->AssignStreams(0);
}
int CountRootQdiscs(NetDeviceContainer devs) {
  int c = 0;
  for (uint32_t i = 0; i < devs.GetN(); i++) {
    Ptr<TrafficControlLayer> tc = devs.Get(i)->GetNode()->GetObject<TrafficControlLayer>();
    if (tc && tc->GetRootQueueDiscOnDevice(devs.Get(i))) c++;
  }
  return c;
}
}  // namespace bufferlab_ns3
"""

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

    cppyy.cppdef(_MONITOR_CPP)
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


def run_ns3(
    scenario: Dict[str, Any],
    *,
    rtts: Sequence[float] | None = None,
    starts: Sequence[float] | None = None,
    access_rates: Sequence[float] | None = None,
) -> Dict[str, Any]:
    """Run ``scenario`` in ns-3 in this process; the summary dict of ``docs/scenario.md`` keys.

    Extra keys: ``wall_s`` (Simulator::Run wall time), ``cpu_s`` (its process CPU time; the honest
    number on a loaded machine), ``setup_s``, ``events``
    (Simulator::GetEventCount), ``bottleneck_packets`` (whole run), ``flows`` (per-flow dicts with
    ``goodput_bps``, payload bytes delivered in the window), ``queue_series`` (``time_s``/``queue_pkts``
    lists, when monitor.sample_interval is set), ``ns3_config`` (the translated configuration and the RED
    parameters read back from the installed queue disc).
    """
    cfg = translate(scenario, rtts=rtts, starts=starts, access_rates=access_rates)
    ns = _load_ns3()
    import cppyy  # noqa: PLC0415

    bl = cppyy.gbl.bufferlab_ns3
    t_setup = time.perf_counter()
    tcp = cfg["tcp"]
    b = cfg["bottleneck"]
    q = b["queue"]
    fl = cfg["flows"]
    n = fl["count"]

    ns.Config.Reset()
    ns.RngSeedManager.SetSeed(max(1, cfg["seed"] & 0xFFFFFFFF))
    ns.RngSeedManager.SetRun(1)
    sd = ns.Config.SetDefault
    sd("ns3::TcpL4Protocol::SocketType", ns.StringValue(tcp["socket_type"]))
    sd("ns3::TcpL4Protocol::RecoveryType", ns.StringValue(tcp["recovery_type"]))
    sd("ns3::TcpSocket::SegmentSize", ns.UintegerValue(tcp["segment_size"]))
    sd("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(tcp["initial_window"]))
    sd("ns3::TcpSocket::DelAckCount", ns.UintegerValue(tcp["del_ack_count"]))
    sd("ns3::TcpSocket::DelAckTimeout", ns.TimeValue(ns.Seconds(tcp["del_ack_timeout_s"])))
    # The engine's flows have no handshake. A SYN lost in ns-3 would hold its flow back by ConnTimeout
    # (3 s by default); retrying after the minimum RTO keeps that cost to what a lost data packet costs.
    sd("ns3::TcpSocket::ConnTimeout", ns.TimeValue(ns.Seconds(tcp["min_rto_s"])))
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

    router = ns.NodeContainer()
    router.Create(1)
    receiver = ns.NodeContainer()
    receiver.Create(1)
    senders = ns.NodeContainer()
    senders.Create(n)
    stack = ns.InternetStackHelper()
    stack.Install(router)
    stack.Install(receiver)
    stack.Install(senders)

    big_queue = ns.StringValue("100000p")
    p2p = ns.PointToPointHelper()
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.StringValue("1p"))
    p2p.SetDeviceAttribute("DataRate", ns.DataRateValue(ns.DataRate(int(round(b["ns3_rate_bps"])))))
    p2p.SetChannelAttribute("Delay", ns.TimeValue(ns.Seconds(b["delay_s"])))
    bdevs = p2p.Install(router.Get(0), receiver.Get(0))
    bottleneck_dev = bl.AsP2P(bdevs.Get(0))
    rx_dev = bl.AsP2P(bdevs.Get(1))
    rx_dev.GetQueue().SetAttribute("MaxSize", big_queue)

    tch = ns.TrafficControlHelper()
    disc_type = "ns3::FifoQueueDisc" if q["discipline"] == "droptail" else "ns3::RedQueueDisc"
    disc_args: List[Any] = []
    for name, value in queue_disc_attributes(cfg).items():
        disc_args += [name, _ns_value(ns, value)]
    if q["discipline"] == "red":
        disc_args += ["LinkDelay", ns.TimeValue(ns.Seconds(b["delay_s"]))]
    tch.SetRootQueueDisc(disc_type, *disc_args)
    qdiscs = tch.Install(bdevs.Get(0))
    qdisc = qdiscs.Get(0)
    bl.FixStreams(qdisc)

    addr = ns.Ipv4AddressHelper()
    addr.SetBase(ns.Ipv4Address("10.0.0.0"), ns.Ipv4Mask("255.255.255.252"))
    b_ifaces = addr.Assign(bdevs)
    rx_ip = b_ifaces.GetAddress(1)
    router_b_ip = b_ifaces.GetAddress(0)
    addr.SetBase(ns.Ipv4Address("10.1.0.0"), ns.Ipv4Mask("255.255.255.252"))

    other_devs = ns.NetDeviceContainer()
    other_devs.Add(bdevs.Get(1))
    static = ns.Ipv4StaticRoutingHelper()
    acc = ns.PointToPointHelper()
    acc.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", big_queue)
    for i in range(n):
        acc_rate = ns.DataRate(int(round(fl["ns3_access_rate_bps"][i])))
        acc.SetDeviceAttribute("DataRate", ns.DataRateValue(acc_rate))
        acc.SetChannelAttribute("Delay", ns.TimeValue(ns.Seconds(fl["access_delay_s"][i])))
        d = acc.Install(senders.Get(i), router.Get(0))
        other_devs.Add(d)
        ifc = addr.Assign(d)
        addr.NewNetwork()
        srt = static.GetStaticRouting(senders.Get(i).GetObject[ns.Ipv4]())
        srt.SetDefaultRoute(ifc.GetAddress(1), 1)
    rrt = static.GetStaticRouting(receiver.Get(0).GetObject[ns.Ipv4]())
    rrt.SetDefaultRoute(router_b_ip, 1)
    ns.TrafficControlHelper().Uninstall(other_devs)

    snap = bl.Snapshot()
    base_port = 5000
    for i in range(n):
        sink = ns.PacketSinkHelper(
            "ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), base_port + i).ConvertTo()
        )
        apps = sink.Install(receiver.Get(0))
        apps.Start(ns.Seconds(0.0))
        bl.AddSink(snap, apps.Get(0))
        src = ns.BulkSendApplicationHelper(
            "ns3::TcpSocketFactory", ns.InetSocketAddress(rx_ip, base_port + i).ConvertTo()
        ) if hasattr(ns, "BulkSendApplicationHelper") else ns.BulkSendHelper(
            "ns3::TcpSocketFactory", ns.InetSocketAddress(rx_ip, base_port + i).ConvertTo()
        )
        src.SetAttribute("SendSize", ns.UintegerValue(tcp["segment_size"]))
        src.SetAttribute("MaxBytes", ns.UintegerValue(0))
        sapps = src.Install(senders.Get(i))
        sapps.Start(ns.Seconds(fl["ns3_app_start_s"][i]))

    mon = bl.Monitor()
    ns_per_s = 1_000_000_000
    mon.t0_ns = int(round(cfg["t0_s"] * ns_per_s))
    mon.warm_ns = int(round((cfg["t0_s"] + cfg["warmup_s"]) * ns_per_s))
    mon.end_ns = int(round(cfg["stop_s"] * ns_per_s))
    si = cfg["monitor"]["sample_interval_s"]
    if si:
        mon.sample_ns = int(round(si * ns_per_s))
        mon.next_sample_ns = mon.t0_ns
    bl.Attach(mon, qdisc, bottleneck_dev)
    bl.ScheduleSnapshot(snap, cfg["t0_s"] + cfg["warmup_s"])

    informational = ("LinkDelay", "Ns1Compat") if q["discipline"] == "red" else ()
    read_back: Dict[str, Any] = {
        name: _attr(ns, qdisc, name) for name in (*queue_disc_attributes(cfg), *informational)
    }
    read_back["device_queue"] = _attr(ns, bottleneck_dev.GetQueue(), "MaxSize")
    read_back["root_queue_discs_elsewhere"] = _count_root_qdiscs(ns, other_devs)

    check_read_back(cfg, read_back)

    ns.Simulator.Stop(ns.Seconds(cfg["stop_s"]))
    setup_s = time.perf_counter() - t_setup
    t_run, c_run = time.perf_counter(), time.process_time()
    ns.Simulator.Run()
    wall = time.perf_counter() - t_run
    cpu = time.process_time() - c_run
    mon.Finish()
    events = int(ns.Simulator.GetEventCount())

    window = cfg["duration_s"] - cfg["warmup_s"]
    hist = list(mon.hist_ns)
    tot = float(sum(hist))
    qmean = sum(k * w for k, w in enumerate(hist)) / tot if tot > 0 else 0.0
    at_warm = list(snap.at_warmup) or [0] * n
    goodputs = []
    for i in range(n):
        total_rx = int(snap.sinks[i].GetTotalRx())
        goodputs.append((total_rx - int(at_warm[i])) * 8.0 / window)
    arrivals = int(mon.arrivals)
    drops = int(mon.drops_overflow + mon.drops_early + mon.drops_forced + mon.drops_other)
    marks = int(mon.marks)
    # Bytes on the wire less PPP's 2-byte header = IP bytes, what the contract's rate counts.
    ip_bytes = int(mon.tx_bytes) - PPP_HEADER_BYTES * int(mon.departures)
    delays = np.frombuffer(bytes(0), dtype=np.float32)
    if int(mon.delay_n):
        delays = np.array(list(mon.delays), dtype=np.float64)
    gp = np.asarray(goodputs)
    jain = float(gp.sum() ** 2 / (n * (gp**2).sum())) if (gp**2).sum() > 0 else 0.0
    result: Dict[str, Any] = {
        "name": cfg["name"],
        "simulator": "ns-3 3.44",
        "utilization": ip_bytes * 8.0 / (b["rate_bps"] * window),
        "throughput_bps": ip_bytes * 8.0 / window,
        "goodput_bps": float(gp.sum()),
        "arrivals": arrivals,
        "departures": int(mon.departures),
        "drops_overflow": int(mon.drops_overflow),
        "drops_early": int(mon.drops_early),
        "drops_forced": int(mon.drops_forced),
        "drops": drops,
        "marks": marks,
        "loss_rate": drops / arrivals if arrivals else 0.0,
        "mark_rate": marks / arrivals if arrivals else 0.0,
        "queue_mean_pkts": qmean,
        "queue_p50_pkts": _time_weighted_quantile(hist, 0.50),
        "queue_p90_pkts": _time_weighted_quantile(hist, 0.90),
        "queue_p99_pkts": _time_weighted_quantile(hist, 0.99),
        "queue_max_pkts": float(max((k for k, w in enumerate(hist) if w > 0), default=0)),
        "delay_mean_s": float(delays.mean()) if delays.size else 0.0,
        "delay_std_s": float(delays.std()) if delays.size else 0.0,
        "delay_p50_s": float(np.percentile(delays, 50)) if delays.size else 0.0,
        "delay_p90_s": float(np.percentile(delays, 90)) if delays.size else 0.0,
        "delay_p99_s": float(np.percentile(delays, 99)) if delays.size else 0.0,
        "jain_index": jain,
        "wall_s": wall,
        "cpu_s": cpu,
        "setup_s": setup_s,
        "events": events,
        "bottleneck_packets": int(mon.tx_total),
        "flows": [
            {"flow": i, "rtt_s": fl["rtt_s"][i], "start_s": fl["start_s"][i], "goodput_bps": goodputs[i]}
            for i in range(n)
        ],
        "ns3_config": {**cfg, "read_back": read_back},
    }
    if si:
        result["queue_series"] = {"time_s": list(mon.series_t), "queue_pkts": [int(x) for x in mon.series_q]}
    if int(mon.drops_other):
        cfg["notes"].append(f"{int(mon.drops_other)} drops with an unexpected reason")
    ns.Simulator.Destroy()
    return result


def queue_disc_attributes(cfg: Dict[str, Any]) -> Dict[str, Any]:
    """The bottleneck's root queue disc attributes, as set in ns-3 and checked when read back.

    Python types pick the ns-3 value type: str → StringValue, bool → BooleanValue, int → UintegerValue,
    float → DoubleValue. (RED's ``LinkDelay`` is set too, but ns-3 reads it back as ``"+5e+06ns"``.)
    """
    q = cfg["bottleneck"]["queue"]
    attrs: Dict[str, Any] = {"MaxSize": q["ns3_max_size"]}
    if q["discipline"] == "red":
        attrs.update(
            MinTh=q["ns3_min_th"], MaxTh=q["ns3_max_th"], LInterm=q["ns3_linterm"], QW=q["weight"],
            Gentle=q["gentle"], Wait=q["wait"], MeanPktSize=q["mean_pktsize"], UseEcn=q["ecn"],
            UseHardDrop=q["ns3_use_hard_drop"], ARED=False,
            LinkBandwidth=f"{int(round(cfg['bottleneck']['rate_bps']))}bps",
        )
    return attrs


def _ns_value(ns: Any, value: Any) -> Any:
    if isinstance(value, bool):
        return ns.BooleanValue(value)
    if isinstance(value, int):
        return ns.UintegerValue(value)
    if isinstance(value, float):
        return ns.DoubleValue(value)
    return ns.StringValue(value)


def check_read_back(cfg: Dict[str, Any], read_back: Dict[str, Any]) -> None:
    """Raise BufferLabError, naming the attribute, if ns-3 did not install the buffer that was asked for.

    ``read_back`` holds the attributes as ns-3 serializes them (``"2499p"``, ``"199"``, ``"true"``), read
    from the installed queue disc and device queue after set-up.
    """
    expected = {
        **queue_disc_attributes(cfg),
        "device_queue": f"{cfg['bottleneck']['queue']['device_queue_pkts']}p",
        "root_queue_discs_elsewhere": 0,
    }
    for name, want in expected.items():
        got = read_back.get(name)
        if isinstance(want, bool):
            same = str(got).lower() == str(want).lower()
        elif isinstance(want, float):
            try:
                same = math.isclose(float(got), want, rel_tol=1e-9, abs_tol=1e-12)
            except (TypeError, ValueError):
                same = False
        else:
            same = str(got) == str(want)
        if not same:
            raise BufferLabError(f"ns-3 installed {name} = {got!r}, expected {want!r}")


def _attr(ns: Any, obj: Any, name: str) -> str:
    import cppyy  # noqa: PLC0415

    return str(cppyy.gbl.bufferlab_ns3.GetAttr(obj, name))


def _count_root_qdiscs(ns: Any, devs: Any) -> int:
    import cppyy  # noqa: PLC0415

    return int(cppyy.gbl.bufferlab_ns3.CountRootQdiscs(devs))


# --------------------------------------------------------------------------------------------------
# isolation: one ns-3 run per interpreter
# --------------------------------------------------------------------------------------------------


def run_ns3_isolated(
    scenario: Dict[str, Any],
    *,
    rtts: Sequence[float] | None = None,
    starts: Sequence[float] | None = None,
    access_rates: Sequence[float] | None = None,
    timeout: float | None = None,
) -> Dict[str, Any]:
    """:func:`run_ns3` in a fresh Python process (ns-3's singletons and memory do not leak between runs)."""
    translate(scenario, rtts=rtts, starts=starts, access_rates=access_rates)  # validate here first
    payload = json.dumps({"scenario": scenario, "rtts": rtts, "starts": starts, "access_rates": access_rates})
    env = dict(os.environ)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "bufferlab.validation.ns3sim"],
            input=payload, capture_output=True, text=True, timeout=timeout, env=env, check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise BufferLabError(f"ns-3 run of {scenario.get('name', '?')!r} exceeded {timeout} s") from exc
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
        res = run_ns3(req["scenario"], rtts=req.get("rtts"), starts=req.get("starts"),
                      access_rates=req.get("access_rates"))
    except Ns3Unavailable as exc:
        print(str(exc))
        return 3
    sys.stdout.write("\n" + json.dumps(res) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(_main())
