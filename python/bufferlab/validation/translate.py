"""Translate a BufferLab scenario into an ns-3 configuration (for ns-3 3.44, the ``ns3`` package from PyPI).

:func:`translate` turns a scenario (a dict or a TOML path) into a plain, JSON-able ns-3 configuration. It
reads the scenario only through the engine's resolver (:func:`bufferlab.resolve`): every default, every
per-flow draw (RTTs, start times, access rates) and every unit conversion is the engine's, so ns-3 runs
exactly the flows the engine runs. It needs no ns-3 and is what the tests check. Each translated
discipline has its own function (:data:`DISCIPLINES`), and :data:`PARAMETERS` says, for every parameter the
engine declares of a translated discipline, of the controllers and of ``[tcp]``, what the translator does with
it (a test keeps it complete). ``ns3run.run_ns3`` builds the configuration in ns-3.

How the contract maps onto ns-3 (see ``docs/validation/ns3-mapping.md`` for the reasoning):

* Topology: every link is a point-to-point channel from one router node to another. Routers are found from
  the routes: consecutive links of a route share a router, and an ACK route leads from the data route's
  last router back to its first. Sender *i* is its own node, attached by its access link (one-way delay as
  the engine resolves it) to the router where its route starts; its receiver is a sink on the router where
  the route ends (the engine's receiver sits at the end of the last link). Static routes send each group's
  data over its route, its ACKs over its ACK route, or without one back over the reverse directions of its
  route's channels, which carry nothing but such ACKs (uncongested).
* Buffer: the forward device of each link has a one-packet device queue, and its root queue disc is the
  buffer (``FifoQueueDisc`` for DropTail, ``RedQueueDisc`` for RED). While the link is busy the device
  queue holds the *next* packet to serialize (the one being serialized is in neither queue), so "packets
  waiting" = queue disc + device queue, and the queue disc limit is ``limit - 1``. RED only sees the queue
  disc, i.e. one packet fewer than the contract's queue, so its thresholds are shifted down by one packet.
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
  ``On``/``Off``. The first group's settings are ns-3's defaults; a group whose settings differ has them
  set on its own sockets (sender socket before it connects, the receiver's listening socket before it
  listens, from which ns-3 copies every accepted socket).
* Start times: ns-3 opens every connection with a three-way handshake that takes one RTT before the
  first data segment leaves. The whole ns-3 timeline is offset by ``T0 = max RTT`` and application *i*
  starts at ``T0 + start_i - RTT_i``, so its first data segment leaves at ``T0 + start_i``; all
  statistics cover ``[T0 + warmup, T0 + duration]`` and times are reported relative to ``T0``. With
  ``tcp.handshake = true`` the engine opens with a SYN too, and application *i* starts at ``T0 + start_i``
  (its SYN leaves when the engine's does); a lost SYN is retried after ``ConnTimeout`` = the initial RTO,
  doubled at each retry in both.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Tuple, Union

from bufferlab.errors import BufferLabError
from bufferlab.validation.ns3checks import (
    NS3_PACING_RATIOS,
    PPP_HEADER_BYTES,
    nanos,
    socket_attributes,
)

#: IPv4 (20) + TCP (20) header bytes of an ns-3 data segment without options (timestamps off).
NS3_TCP_IP_HEADER_BYTES = 40
#: Address blocks: link k is the /30 10.0.x.y (k-th), group g's access links are /30s in 10.(1+g).0.0/16.
MAX_GROUPS, MAX_FLOWS_PER_GROUP, MAX_LINKS = 200, 16_000, 16_000
#: The packets a discipline holds when its table gives no limit (the engine's defaults, Linux's).
ENGINE_DEFAULT_LIMITS = {"codel": 1000, "pie": 1000, "fq-codel": 10240}
#: The engine's congestion controllers ns-3 3.44 has, as its socket types.
NS3_CONGESTION_CONTROL = {"newreno": "ns3::TcpNewReno", "cubic": "ns3::TcpCubic", "dctcp": "ns3::TcpDctcp",
                          "bbr": "ns3::TcpBbr"}
#: BBR's choices where ns-3 3.44's `TcpBbr` departs from Linux (docs/scenario.md, `bbr`); the comparison
#: needs ns-3's.
NS3_BBR_CHOICES = {"aggregation": "ns-3", "recovery_exit": "ssthresh", "idle_restart": "ns-3",
                   "rtt_sample": "ns-3"}
#: Choices that only say how the engine reads what ns-3 has one way (`rtt_sample`: which RTT its BBR
#: reads); required as above but left out of the configuration, which holds what ns-3 is given (and so
#: keys the stored runs as before the choice existed).
ENGINE_ONLY_CHOICES = ("rtt_sample",)
#: CUBIC's choices where ns-3 3.44's `TcpCubic` departs from RFC 9438 (docs/scenario.md, `cubic`).
NS3_CUBIC_CHOICES = {"reduce_from": "cwnd", "after_timeout": "keep-w-max", "lookahead": "min-rtt",
                     "growth": "whole-segments"}
#: The engine's disciplines ns-3 3.44 has, and its queue disc for each.
NS3_QUEUE_DISCS = {"droptail": "ns3::FifoQueueDisc", "red": "ns3::RedQueueDisc", "ared": "ns3::RedQueueDisc",
                   "codel": "ns3::CoDelQueueDisc", "pie": "ns3::PieQueueDisc",
                   "fq-codel": "ns3::FqCoDelQueueDisc", "step": "ns3::RedQueueDisc"}

ScenarioLike = Union[str, Path, Mapping[str, Any]]

#: The engine's mechanisms ns-3 3.44 cannot run, why, and what checks them instead. Every discipline and
#: controller the engine offers is either translated (above) or listed here (a test keeps it so).
NS3_CANNOT_CHECK: Dict[str, Tuple[str, str]] = {
    "eun-wang": ("ns-3's RED has fixed thresholds: no N^α scaling, no RED2/EXP marking curves",
                 "thresholds against the paper's table and p^N(q) against `bufferlab.models.eun_wang` "
                 "(tests/test_eun_wang_engine.py, queue/eun_wang.rs)"),
    "blue": ("no BLUE queue disc in ns-3", "freeze time, p_m steps, drops at rate p_m (queue/blue.rs); the "
             "example adapts p_m (tests/test_adaptive_queues.py)"),
    "odt": ("no Optimal Drop-Tail in ns-3", "the optimiser's steps follow the measured slope "
            "(queue/optimizer.rs); the example adapts its limit (tests/test_adaptive_queues.py)"),
    "ob": ("no Optimal BLUE in ns-3", "the optimiser's steps (queue/optimizer.rs); the example adapts its "
           "probability (tests/test_adaptive_queues.py)"),
    "global-notifier": ("no Global Notifier in ns-3", "a firing marks the arrival and every unmarked queued "
                        "ECT packet once, and fires exactly where RED marks (queue/global_notifier.rs)"),
    "index": ("no index-policy queue in ns-3", "drops the smallest index, oldest first, across queue and "
              "arrival; the heap matches a plain scan (queue/index_policy.rs)"),
    "aimd": ("ns-3 has no general AIMD(a, b) controller", "increase and decrease per ACK and signal "
             "(tcp/cc/aimd.rs)"),
    "poisson": ("ns-3 has no Poisson-injection TCP", "the example meets Theorem 1 and its loss follows the "
                "M/D/1/B queue (tests/test_tiny_buffers.py, tcp/cc/poisson.rs)"),
    "whittle": ("ns-3 has no index-policy sender", "tags equal `bufferlab.models.whittle`'s tables "
                "(tests/test_gn_index.py, tcp/cc/whittle.rs)"),
}
#: Scenario features the translator refuses, and why.
NS3_CANNOT_CHECK_FEATURES: Dict[str, str] = {
    "`tcp.sack = false`": "ns-3 3.44's non-SACK NewReno retransmits segments that were not lost",
    "`tcp.ecn_response = \"per-signal\"`": "ns-3 reduces for ECN once per window only",
    "`tcp.recovery = \"reno\"`": "ns-3 has no classic Reno recovery: its sockets leave fast recovery only "
                                  "when the recovery point is acknowledged (NewReno)",
    "finite flows, Poisson arrivals, stop times": "the translator runs bulk flows for the whole run",
    "`[[udp]]` sources": "not translated",
    "`[[shared_buffers]]`": "ns-3 3.44 has no switch whose ports share one buffer (each queue disc has "
                             "its own limit)",
    "`[leaf_spine]`": "the translator builds one route per group on destination routing; a leaf-spine "
                      "routes each flow over its own ECMP-hashed spine",
}




#: The [tcp] switches whose value ns-3 3.44 fixes, that value, and what ns-3 and the engine then do
#: differently: a note when a scenario leaves the switch elsewhere (ca_increase: NewReno's only).
NS3_SWITCH_NOTES = (
    ("ssthresh_from", "pipe", "ns-3 halves RFC 6675's pipe after a loss, the engine here FlightSize"),
    ("ca_increase", "whole-bytes", "ns-3's NewReno adds SMSS²/cwnd in whole bytes per ACK, truncated, which "
     "slows windows of hundreds of segments; the engine here adds it exactly"),
    ("recovery_timer", "first-partial-ack", "ns-3 restarts the retransmission timer during fast recovery "
     "only on the first partial ACK, the engine here on every ACK of new data"),
    ("partial_ack", "send-one", "in fast recovery ns-3 sends one segment at once, outside the pipe limit, "
     "on a partial ACK whose first unacknowledged segment was not resent; the engine here leaves it to the "
     "pipe"),
    ("recovery_exit", "grow", "ns-3 grows the window at the ACK that ends fast recovery as at an open-state "
     "ACK, the engine here sets cwnd = ssthresh and nothing more"),
    ("ecn_states", "any", "ns-3 reduces for ECN-Echo in fast and timeout recovery too, the engine here in "
     "the open state only"),
)

def load(scenario: ScenarioLike) -> Dict[str, Any]:
    """The scenario as written (a dict), for naming fields in errors; a file's scenario is named after it by
    default."""
    if isinstance(scenario, Mapping):
        return dict(scenario)
    try:
        import tomllib  # type: ignore[import-not-found]  # noqa: PLC0415
    except ModuleNotFoundError:  # Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]  # noqa: PLC0415
    path = Path(scenario)
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError as exc:
        raise BufferLabError(f"{path}: no such scenario file") from exc
    except tomllib.TOMLDecodeError as exc:
        raise BufferLabError(f"{path}: malformed TOML: {exc}") from exc
    data.setdefault("name", path.stem)
    return data


def resolve(scenario: ScenarioLike) -> Dict[str, Any]:
    """The engine's resolved scenario (:func:`bufferlab.resolve`): SI units, every default, every draw."""
    try:
        from bufferlab import resolve as engine_resolve  # noqa: PLC0415
    except ImportError as exc:  # pragma: no cover - depends on the build
        raise BufferLabError(
            "the ns-3 translator reads scenarios through the engine's resolver: build the engine with "
            "`pip install .`"
        ) from exc
    return engine_resolve(scenario if not isinstance(scenario, Mapping) else dict(scenario))


def _group_fields(spec: Dict[str, Any], n_groups: int) -> List[str]:
    """The scenario field each resolved group came from: flows, flows[i], or parking_lot.cross."""
    flows = spec.get("flows")
    if isinstance(flows, list):
        fields = [f"flows[{i}]" for i in range(len(flows))]
    elif isinstance(flows, Mapping):
        fields = ["flows"]
    else:
        fields = []
    return (fields + ["parking_lot.cross"] * n_groups)[:n_groups]


def _group_table(spec: Dict[str, Any], field: str) -> Dict[str, Any]:
    if field == "flows":
        return dict(spec.get("flows") or {})
    if field.startswith("flows["):
        return dict(spec["flows"][int(field[6:-1])] or {})
    return dict((spec.get("parking_lot") or {}).get("cross") or {})


def send_buffer_windows(config: Dict[str, Any]) -> Dict[str, int]:
    """Each flow group's send buffer in whole segments, by its scenario field, for the groups
    :func:`translate` gave no ``max_window``. A parking lot's cross groups share one table, so they get the
    largest of their buffers (the engine is never held tighter than ns-3 holds any of them)."""
    windows: Dict[str, int] = {}
    for g in config["groups"]:
        tcp = g["tcp"]
        if tcp.get("max_window") is not None or not tcp.get("snd_buf_bytes"):
            continue
        window = int(tcp["snd_buf_bytes"]) // int(tcp["segment_size"])
        windows[g["field"]] = max(window, windows.get(g["field"], 0))
    return windows


def engine_held_to_send_buffer(scenario: ScenarioLike, config: Dict[str, Any]) -> Dict[str, Any]:
    """The scenario the engine runs beside ns-3: each flow group without a ``max_window`` gets one equal to
    the send buffer :func:`translate` gave ns-3 (:func:`send_buffer_windows`).

    ns-3's socket needs a finite send buffer, which holds sent and unsent data, so a flow never has more
    than that outstanding; the engine's flows have no such limit. Most flows never come near it, and
    then the engine's results are the same with it or without it. A flow whose oldest segment stays lost
    while it goes on sending does reach it: BBR behind a quarter BDP (v50) had 554 of 561 segments
    outstanding when ns-3 stalled it, and with a buffer of 20,000 segments 5,562. Held to the same limit,
    both simulators run the same flows (docs/validation/ns3-mapping.md, item 38)."""
    spec = load(scenario)
    for field, window in send_buffer_windows(config).items():
        if field == "flows":
            table = spec["flows"] = dict(spec["flows"])
        elif field.startswith("flows["):
            spec["flows"] = list(spec["flows"])
            i = int(field[6:-1])
            table = spec["flows"][i] = dict(spec["flows"][i] or {})
        else:
            spec["parking_lot"] = dict(spec["parking_lot"])
            table = spec["parking_lot"]["cross"] = dict(spec["parking_lot"].get("cross") or {})
        table["tcp"] = {**dict(table.get("tcp") or {}), "max_window": window}
    return spec


def _tcp_field(table: Dict[str, Any], field: str, key: str) -> str:
    """``flows[1].tcp.ecn`` when the group sets it itself, else ``tcp.ecn``."""
    own = table.get("tcp")
    if isinstance(own, Mapping) and key in own:
        return f"{field}.tcp.{key}"
    return f"tcp.{key}"


def _link_fields(spec: Dict[str, Any], n_links: int) -> List[str]:
    if "parking_lot" in spec:
        return ["parking_lot"] * n_links
    if "links" in spec:
        return [f"links[{i}]" for i in range(n_links)]
    return ["bottleneck"] * n_links


class _Routers:
    """Union-find over link ends: link i's tail is 2i, its head 2i + 1."""

    def __init__(self, n_links: int) -> None:
        self.parent = list(range(2 * n_links))

    def find(self, x: int) -> int:
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def join(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def _topology(res: Dict[str, Any], gfields: List[str]) -> Dict[str, Any]:
    """Routers, each link's (from, to) routers, each group's first and last router, and static routes."""
    names = [lk["name"] for lk in res["links"]]
    index = {n: i for i, n in enumerate(names)}
    uf = _Routers(len(names))
    tail, head = (lambda i: 2 * i), (lambda i: 2 * i + 1)
    for grp in res["groups"]:
        route = [index[n] for n in grp["route"]]
        acks = [index[n] for n in grp["ack_route"]]
        for a, b in zip(route, route[1:]):
            uf.join(head(a), tail(b))
        if acks:
            uf.join(tail(acks[0]), head(route[-1]))
            for a, b in zip(acks, acks[1:]):
                uf.join(head(a), tail(b))
            uf.join(head(acks[-1]), tail(route[0]))
    number: Dict[int, int] = {}
    for end in range(2 * len(names)):
        number.setdefault(uf.find(end), len(number))
    ends = [(number[uf.find(tail(i))], number[uf.find(head(i))]) for i in range(len(names))]
    for i, (a, b) in enumerate(ends):
        if a == b:
            users = [gfields[g] for g, grp in enumerate(res["groups"])
                     if names[i] in grp["route"] or names[i] in grp["ack_route"]]
            raise BufferLabError(
                f"{users[0] if users else 'links'}.route: the routes make link {names[i]!r} lead from a "
                "router back to itself, which ns-3 cannot build"
            )

    routes: List[Dict[str, Any]] = []
    next_hop: Dict[Tuple[int, str, int], int] = {}

    def add(router: int, to: str, key: int, link: int, direction: str, g: int, field: str) -> None:
        seen = next_hop.get((router, to, key))
        if seen is not None and seen != link:
            raise BufferLabError(
                f"{field}: ns-3 routes by destination, and two groups reach router R{router} for the same "
                f"receiver leaving over different links ({names[seen]!r}, {names[link]!r})"
            )
        if seen is None:
            next_hop[(router, to, key)] = link
            routes.append({"router": router, "to": to, "group": g, "link": link, "direction": direction})

    groups = []
    for g, grp in enumerate(res["groups"]):
        field = gfields[g]
        route = [index[n] for n in grp["route"]]
        acks = [index[n] for n in grp["ack_route"]]
        path = [ends[route[0]][0]] + [ends[i][1] for i in route]
        if len(set(path)) != len(path):
            raise BufferLabError(
                f"{field}.route: it passes a router twice, which ns-3's routing cannot follow"
            )
        if acks:
            back = [ends[acks[0]][0]] + [ends[i][1] for i in acks]
            if len(set(back)) != len(back):
                raise BufferLabError(
                    f"{field}.ack_route: it passes a router twice, which ns-3's routing cannot follow"
                )
        # Data towards the receiver (an address of the last link's far end), hop by hop; on the last hop
        # the receiver is the neighbour, reached without a route of its own.
        for i in route[:-1]:
            add(ends[i][0], "receiver", route[-1], i, "forward", g, f"{field}.route")
        # ACKs towards the group's senders: over the ACK route, or back over the route's reverse directions.
        for i in acks or route:
            add(ends[i][0 if acks else 1], "senders", g, i, "forward" if acks else "reverse", g,
                f"{field}.ack_route" if acks else f"{field}.route")
        groups.append({"start_router": path[0], "end_router": path[-1]})
    return {"routers": len(number), "ends": ends, "groups": groups, "routes": routes}


def _check_target_exceeds(qf: str, target: float, tx_s: float) -> None:
    """A delay target must exceed one packet time: ns-3's queue disc measures delays that much short."""
    if target <= tx_s:
        raise BufferLabError(f"{qf}.target: ns-3's queue disc measures the delay one packet time "
                             f"({tx_s * 1e3:.3g} ms) short; the target must exceed it")


def adaptive_red_settings(q: Dict[str, Any], rate_bps: float, mean_pktsize: int) -> Dict[str, Any]:
    """An ``ared`` table's settings as ns-3's ``RedQueueDisc`` computes them with ``ARED = true``
    (``InitializeParams``): thresholds, weight and ``bottom`` where the table leaves them out, from the
    link's rate in mean-size packets ``C``; the same formulas as the engine's ``ared`` (its queue_state shows
    them), which a test keeps so."""
    c = rate_bps / (8.0 * mean_pktsize)
    min_th, max_th = q["min_th"], q["max_th"]
    if min_th is None:
        min_th = max(5.0, float(q["target_delay"]) * c / 2.0)
        max_th = 3.0 * min_th
    weight = q["weight"] if q["weight"] is not None else 1.0 - math.exp(-1.0 / c)
    bottom = q["bottom"]
    if bottom is None:
        bottom = min(0.01, 8.0 * mean_pktsize * float(q["rtt"]) / rate_bps)
    return {"min_th": float(min_th), "max_th": float(max_th), "weight": float(weight),
            "bottom": float(bottom), "target_delay_s": float(q["target_delay"]),
            "interval_s": float(q["interval"]),
            "alpha": float(q["alpha"]), "beta": float(q["beta"]), "top": float(q["top"])}


@dataclass
class _Queue:
    """One link's queue as a discipline's translation sees it."""

    #: the scenario field of the queue (``bottleneck.queue``, ``links[1].queue``), for errors and notes
    field: str
    #: the engine's resolved queue table (SI units)
    q: Dict[str, Any]
    rate_bps: float
    #: the largest data packet on the wire of the groups crossing the link, and its serialization time
    wire: int
    tx_s: float
    #: ``mean_pktsize`` as the engine takes it (the table's, else the largest packet crossing the link)
    mean_pktsize: int
    notes: List[str]


def _droptail(ctx: _Queue) -> Dict[str, Any]:
    """DropTail is its limit alone (``FifoQueueDisc``, set by the caller)."""
    return {}


def _red(ctx: _Queue) -> Dict[str, Any]:
    """RED and Adaptive RED as ns-3's ``RedQueueDisc`` (thresholds one packet lower; ``AdaptMaxP`` for
    ared)."""
    qf, q, disc = ctx.field, ctx.q, str(ctx.q["discipline"]).lower()
    if q.get("mark_p") is not None:
        raise BufferLabError(f"{qf}.mark_p: ns-3's RedQueueDisc has no mark_p (ns-2's use_mark_p_): "
                             "it marks at every probability; leave mark_p out to translate")
    adaptive = adaptive_red_settings(q, ctx.rate_bps, ctx.mean_pktsize) if disc == "ared" else {}
    if adaptive and q["update"] != "arrival":
        raise BufferLabError(f"{qf}.update: ns-3 adapts max_p at arrivals only (\"arrival\")")
    if adaptive and q["gentle_max_p"] != "initial":
        raise BufferLabError(f"{qf}.gentle_max_p: ns-3's gentle line keeps the initial max_p "
                             "(\"initial\")")
    min_th = float(adaptive.get("min_th", q["min_th"]))
    max_th = float(adaptive.get("max_th", q["max_th"]))
    max_p = float(q["max_p"])
    return dict(
        min_th=min_th, max_th=max_th, max_p=max_p, weight=float(adaptive.get("weight", q["weight"])),
        gentle=bool(q["gentle"]), wait=bool(q["wait"]), ecn=bool(q["ecn"]),
        mean_pktsize=ctx.mean_pktsize, adaptive=adaptive or None,
        # ns-3 RED sees the queue disc only: one packet fewer than "packets waiting" when busy.
        ns3_min_th=max(min_th - 1.0, 0.0), ns3_max_th=max_th - 1.0, ns3_linterm=1.0 / max_p,
        ns3_use_hard_drop=bool(q.get("hard_drop", True)),
    )


def _step(ctx: _Queue) -> Dict[str, Any]:
    """Step marking as ns-3's DCTCP configures ``RedQueueDisc``: MinTh = MaxTh = K (one packet lower, as
    RED's), QW = 1, Gentle and UseHardDrop off, UseEcn on."""
    qf, q = ctx.field, ctx.q
    if q.get("threshold") is None:
        raise BufferLabError(f"{qf}.threshold_bytes: ns-3's RED compares bytes only in a byte-mode queue; "
                             "the comparison needs threshold (packets)")
    k = float(q["threshold"])
    if k < 3:
        ctx.notes.append(f"{qf}.threshold: ns-3's RED acts only while more than one packet waits in the "
                         "queue disc, so it marks from 3 packets waiting here, not from "
                         f"{int(k)}")
    return dict(
        min_th=k, max_th=k, max_p=1.0, weight=1.0, gentle=False, wait=False, ecn=True,
        mean_pktsize=ctx.mean_pktsize, adaptive=None,
        ns3_min_th=max(k - 1.0, 0.0), ns3_max_th=max(k - 1.0, 0.0), ns3_linterm=1.0, ns3_use_hard_drop=False,
    )


def _codel(ctx: _Queue) -> Dict[str, Any]:
    """CoDel as ns-3's ``CoDelQueueDisc`` (target one packet time shorter, ``MinBytes`` from ``mtu``)."""
    q = ctx.q
    target, interval = float(q["target"]), float(q["interval"])
    mtu = int(q["mtu"]) if q.get("mtu") is not None else ctx.mean_pktsize
    _check_target_exceeds(ctx.field, target, ctx.tx_s)
    return dict(
        target_s=target, interval_s=interval, mtu=mtu, ecn=bool(q["ecn"]),
        # The engine drops only while more than `mtu` bytes wait behind the head; ns-3 while at
        # least MinBytes wait in the queue disc, which lacks the device queue's packet.
        ns3_target=nanos(target - ctx.tx_s), ns3_min_bytes=max(mtu - ctx.wire + 1, 0),
    )


def _fq_codel(ctx: _Queue) -> Dict[str, Any]:
    """FQ-CoDel as ns-3's ``FqCoDelQueueDisc`` (its own 5-tuple hash; per-flow CoDel ``MinBytes`` from
    ``mtu``)."""
    qf, q = ctx.field, ctx.q
    if q["hash"] != "perturbed":
        raise BufferLabError(f"{qf}.hash: ns-3 always hashes the 5-tuple into its queues (collisions "
                             f"possible); the comparison needs \"perturbed\", got {q['hash']!r}")
    if q.get("perturbation") is not None:
        raise BufferLabError(f"{qf}.perturbation: ns-3 hashes the 5-tuple, not the engine's (kind, flow), so "
                             "a given salt has no equivalent there; leave perturbation out to translate")
    target, interval = float(q["target"]), float(q["interval"])
    _check_target_exceeds(qf, target, ctx.tx_s)
    mtu = int(q["mtu"]) if q.get("mtu") is not None else ctx.mean_pktsize
    ce = q.get("ce_threshold")
    out = dict(
        target_s=target, interval_s=interval, mtu=mtu, flows=int(q["flows"]),
        drop_batch=int(q["drop_batch"]), ecn=True if q.get("ecn") is None else bool(q["ecn"]),
        quantum=int(q["quantum"]) if q.get("quantum") is not None else ctx.mean_pktsize,
        ce_threshold_s=None if ce is None else float(ce),
        ns3_target=nanos(target - ctx.tx_s),
        ns3_ce_threshold=None if ce is None else nanos(max(float(ce) - ctx.tx_s, 0.0)),
        # Each flow's CoDel: no drop while at most `mtu` bytes wait behind the head here, while fewer
        # than MinBytes wait in ns-3 (a flow's queue rarely holds the device queue's packet).
        ns3_child_min_bytes=mtu + 1,
    )
    ctx.notes.append(f"{qf}: ns-3 hashes the 5-tuple into its {q['flows']} queues, the engine "
                     "(kind, flow) with a perturbation; flows share a queue by different collisions")
    return out


def _pie(ctx: _Queue) -> Dict[str, Any]:
    """PIE as ns-3's ``PieQueueDisc`` (target one packet time shorter, timestamp delays, auto-tuning)."""
    qf, q = ctx.field, ctx.q
    if q["delay"] != "timestamp":
        raise BufferLabError(f"{qf}.delay: ns-3's rate estimator differs in detail; the comparison "
                             "needs \"timestamp\" (ns-3's default)")
    if q.get("scale_by_size"):
        raise BufferLabError(f"{qf}.scale_by_size: ns-3 scales by size only with byte limits")
    target = float(q["target"])
    _check_target_exceeds(qf, target, ctx.tx_s)
    if not q["auto_tune"]:
        raise BufferLabError(f"{qf}.auto_tune: ns-3 always scales the update (RFC 8033 §4.2)")
    ctx.notes.append(f"{qf}: ns-3's PIE updates every t_update from time 0, the engine's from the first "
                     "arrival; it skips random drops with at most 2 packets queued (packet limits)")
    return dict(
        target_s=target, t_update_s=float(q["t_update"]), alpha=float(q["alpha"]),
        beta=float(q["beta"]), max_burst_s=float(q["max_burst"]), ecn=bool(q["ecn"]),
        ecn_threshold=float(q["ecn_threshold"]), derandomize=bool(q["derandomize"]),
        cap_drop_adjustment=bool(q["cap_drop_adjustment"]), mean_pktsize=ctx.mean_pktsize,
        dq_threshold=int(q["dq_threshold"]), ns3_target=nanos(target - ctx.tx_s),
    )


#: Each translated discipline's translation, by the engine's registry name: the queue disc's settings (beyond
#: its limit) in the configuration's ``links[i].queue``. Raises BufferLabError naming the field ns-3 cannot
#: run; may add notes.
DISCIPLINES: Dict[str, Callable[[_Queue], Dict[str, Any]]] = {
    "droptail": _droptail, "red": _red, "ared": _red, "codel": _codel, "fq-codel": _fq_codel, "pie": _pie,
    "step": _step,
}


@dataclass(frozen=True)
class Param:
    """What the translator does with one parameter the engine declares."""

    #: "translated" (an ns-3 setting follows it), "refused" (BufferLabError naming the field unless it is
    #: ``value``), "noted" (translated, with a note that ns-3 differs unless it is ``value``) or "irrelevant"
    #: (nothing in ns-3 depends on it)
    how: str
    why: str
    #: the value ns-3 runs, for "refused" and "noted" (the engine's resolved value)
    value: Any = None


def _translated(why: str) -> Param:
    return Param("translated", why)


def _refused_unless(value: Any, why: str) -> Param:
    return Param("refused", why, value)


def _noted_unless(value: Any, why: str) -> Param:
    return Param("noted", why, value)


def _irrelevant(why: str) -> Param:
    return Param("irrelevant", why)


_LIMITS = {
    "limit": _translated("MaxSize = limit - 1 packets (the device queue holds one)"),
    "limit_bytes": _translated("MaxSize = bytes - one full-size packet (noted); at least two packets"),
}
_RED_COMMON = {
    **_LIMITS,
    "min_th": _translated("MinTh, one packet lower"),
    "max_th": _translated("MaxTh, one packet lower"),
    "max_p": _translated("LInterm = 1 / max_p"),
    "weight": _translated("QW"),
    "gentle": _translated("Gentle"),
    "wait": _translated("Wait"),
    "ecn": _translated("UseEcn"),
    "hard_drop": _translated("UseHardDrop"),
    "mean_pktsize": _translated("MeanPktSize"),
    "mark_p": _refused_unless(None, "ns-3's RedQueueDisc marks at every probability (no use_mark_p_)"),
}

#: For every parameter the engine declares of each translated discipline, of the controllers ns-3 has and
#: of ``[tcp]``, what the translator does with it (a test keeps this equal to the engine's declarations, so a
#: new engine parameter fails it until the translator decides about it).
PARAMETERS: Dict[str, Dict[str, Param]] = {
    "droptail": dict(_LIMITS),
    "red": dict(_RED_COMMON),
    "ared": {
        **_RED_COMMON,
        "min_th": _translated("MinTh, one packet lower; default as ns-3's ARED (target_delay x C / 2)"),
        "max_th": _translated("MaxTh, one packet lower; default 3 min_th"),
        "weight": _translated("QW; default 1 - exp(-1/C)"),
        "target_delay": _translated("TargetDelay"),
        "interval": _translated("Interval"),
        "alpha": _translated("Alpha"),
        "beta": _translated("Beta"),
        "top": _translated("Top"),
        "bottom": _translated("Bottom; default as ns-3's"),
        "rtt": _translated("the default Bottom"),
        "update": _refused_unless("arrival", "ns-3 adapts max_p at arrivals only"),
        "gentle_max_p": _refused_unless("initial", "ns-3's gentle line keeps the initial max_p"),
    },
    "codel": {
        **_LIMITS,
        "target": _translated("Target, one packet time shorter"),
        "interval": _translated("Interval"),
        "mtu": _translated("MinBytes = mtu - packet + 1"),
        "ecn": _translated("UseEcn"),
    },
    "fq-codel": {
        "limit": _translated("MaxSize = limit - 1 packets"),
        "flows": _translated("Flows"),
        "quantum": _translated("the queue disc's quantum"),
        "drop_batch": _translated("DropBatchSize"),
        "hash": _refused_unless("perturbed", "ns-3 always hashes the 5-tuple with a salt (collisions "
                                "possible); it has no per-flow queue assignment"),
        "perturbation": _refused_unless(None, "ns-3 hashes the 5-tuple, not the engine's (kind, flow): a "
                                        "given salt has no equivalent there"),
        "target": _translated("Target, one packet time shorter"),
        "interval": _translated("Interval"),
        "mtu": _translated("the per-flow CoDel's MinBytes = mtu + 1"),
        "ecn": _translated("UseEcn"),
        "ce_threshold": _translated("CeThreshold, one packet time shorter"),
    },
    "pie": {
        **_LIMITS,
        "target": _translated("QueueDelayReference, one packet time shorter"),
        "t_update": _translated("Tupdate"),
        "alpha": _translated("A"),
        "beta": _translated("B"),
        "max_burst": _translated("MaxBurstAllowance"),
        "auto_tune": _refused_unless(True, "ns-3 always scales the update (RFC 8033 §4.2)"),
        "cap_drop_adjustment": _translated("UseCapDropAdjustment"),
        "delay": _refused_unless("timestamp", "ns-3's rate estimator differs in detail"),
        "dq_threshold": _translated("DequeueThreshold"),
        "derandomize": _translated("UseDerandomization"),
        "ecn": _translated("UseEcn"),
        "ecn_threshold": _translated("MarkEcnThreshold"),
        "mean_pktsize": _translated("MeanPktSize"),
        "scale_by_size": _refused_unless(False, "ns-3 scales by size only with byte limits"),
    },
    "step": {
        **_LIMITS,
        "threshold": _translated("RedQueueDisc MinTh = MaxTh = threshold, one packet lower; QW = 1, Gentle "
                                 "and UseHardDrop off, UseEcn on"),
        "threshold_bytes": _refused_unless(None, "ns-3's RED compares bytes only in a byte-mode queue"),
    },
    "newreno": {},
    "dctcp": {
        "g": _translated("TcpDctcp::DctcpShiftG"),
        "alpha_init": _translated("TcpDctcp::DctcpAlphaOnInit"),
        "loss_backoff": _refused_unless("alpha", "ns-3 3.44's TcpDctcp reduces by alpha on losses too"),
    },
    "bbr": {
        "high_gain": _translated("TcpBbr::HighGain"),
        "bw_window": _translated("TcpBbr::BwWindowLength"),
        "min_rtt_window": _translated("TcpBbr::RttWindowLength"),
        "probe_rtt_duration": _translated("TcpBbr::ProbeRttDuration"),
        "extra_acked_window": _translated("TcpBbr::ExtraAckedRttWindowLength"),
        **{key: _refused_unless(value, f"ns-3's TcpBbr follows {value!r}")
           for key, value in NS3_BBR_CHOICES.items()},
    },
    "cubic": {
        "c": _translated("TcpCubic::C"),
        "beta": _translated("TcpCubic::Beta"),
        "fast_convergence": _translated("TcpCubic::FastConvergence"),
        "reno_friendly": _translated("TcpCubic::TcpFriendliness"),
        **{key: _noted_unless(value, f"ns-3's CUBIC follows {value!r}")
           for key, value in NS3_CUBIC_CHOICES.items()},
    },
    "tcp": {
        "congestion_control": _translated("the socket type (newreno, cubic, dctcp, bbr; others refused): "
                                          "TcpL4Protocol::SocketType for the first group, each socket's "
                                          "own for groups that differ; one table per kind"),
        "packet_size": _translated("SegmentSize = packet_size - header_size; link rates scaled for PPP"),
        "header_size": _noted_unless(40, "ns-3's IPv4 + TCP header without options is 40 B"),
        "ack_size": _noted_unless(40, "ns-3's ACKs are 40 B (plus SACK blocks)"),
        "initial_window": _translated("InitialCwnd (whole segments; others refused)"),
        "max_window": _translated("SndBufSize = RcvBufSize = max_window segments"),
        "min_rto": _translated("MinRto"),
        "initial_rto": _translated("RttEstimator::InitialEstimation (one for all groups)"),
        "max_rto": _noted_unless(60.0, "ns-3 has no attribute for it (its cap is 60 s)"),
        "clock_granularity": _translated("ClockGranularity"),
        "delayed_ack": _translated("DelAckCount = 2 (else 1)"),
        "delayed_ack_timeout": _translated("DelAckTimeout"),
        "sack": _refused_unless(True, "ns-3 3.44's non-SACK NewReno retransmits segments that were not lost"),
        "ecn": _translated("UseEcn"),
        "ecn_response": _refused_unless("once-per-rtt", "ns-3 reduces for ECN once per window"),
        "ecn_states": _noted_unless("any", "ns-3 reduces for ECN-Echo in fast and timeout recovery too"),
        "ca_increase": _noted_unless("whole-bytes", "ns-3's NewReno adds SMSS²/cwnd in whole bytes "
                                     "(NewReno only)"),
        "dupack_threshold": _translated("ReTxThreshold"),
        "limited_transmit": _translated("LimitedTransmit"),
        "ssthresh_from": _noted_unless("pipe", "ns-3 halves RFC 6675's pipe"),
        "rto_backoff": _noted_unless("new-ack", "ns-3 drops the backoff at any new ACK"),
        "full_ack": _irrelevant("only without SACK, which is refused"),
        "overhead": _translated("a jitter queue disc on each sender's access device"),
        "handshake": _translated("applications start at the engine's start (else one RTT earlier); "
                                 "ConnTimeout; noted when off with several flows"),
        "recovery_timer": _noted_unless("first-partial-ack", "ns-3 restarts the timer in recovery only on "
                                        "the first partial ACK"),
        "partial_ack": _noted_unless("send-one", "ns-3 sends one segment at once on such a partial ACK"),
        "recovery_exit": _noted_unless("grow", "ns-3 grows the window at the ACK that ends fast recovery"),
        "recovery": _refused_unless("newreno", "ns-3 3.44 has no classic Reno fast recovery"),
        "pacing": _translated("EnablePacing and the pacing ratios (off, rtt, linux; others refused); one "
                              "for all groups"),
        "profile": _irrelevant("it sets the defaults of the switches above, read one by one"),
    },
}


def translate(scenario: ScenarioLike, *, resolved: Dict[str, Any] | None = None) -> Dict[str, Any]:
    """The ns-3 configuration of a scenario, as plain numbers (SI units, bytes, packets).

    ``scenario`` is a dict or a TOML path; ``resolved`` is its :func:`bufferlab.resolve` output (computed
    here when not given). Every value comes from the resolver; the scenario as written only names fields
    in errors. Raises :class:`BufferLabError` naming the field for what ns-3 cannot run.
    """
    if not isinstance(scenario, (Mapping, str, Path)):
        raise BufferLabError("scenario: expected a table (dict) or a TOML path")
    spec = load(scenario)
    res = resolved if resolved is not None else resolve(scenario)
    links_in, groups_in = res["links"], res["groups"]
    gfields = _group_fields(spec, len(groups_in))
    lfields = _link_fields(spec, len(links_in))
    tables = [_group_table(spec, f) for f in gfields]

    if res.get("udp"):
        raise BufferLabError("udp: open-loop [[udp]] sources are not translated to ns-3")
    if res.get("shared_buffers"):
        raise BufferLabError("shared_buffers: ns-3 3.44 has no switch whose ports share one buffer")
    if "leaf_spine" in spec:
        raise BufferLabError("leaf_spine: not translated to ns-3 (each flow's route over its own ECMP-hashed "
                             "spine; the translator builds one route per group)")
    if not groups_in:
        raise BufferLabError("flows: the ns-3 comparison needs TCP flows")
    if len(groups_in) > MAX_GROUPS or len(links_in) > MAX_LINKS:
        raise BufferLabError(f"flows: the ns-3 translator takes at most {MAX_GROUPS} groups and "
                             f"{MAX_LINKS} links")
    duration, warmup = float(res["duration"]), float(res["warmup"])
    notes: List[str] = []

    several_flows = sum(len(grp["flows"]) for grp in groups_in) > 1

    # TCP, per group.
    tcps: List[Dict[str, Any]] = []
    ccs: List[Dict[str, Any]] = []
    for g, grp in enumerate(groups_in):
        field, table, t = gfields[g], tables[g], grp["tcp"]

        def tf(key: str, _table: Dict[str, Any] = table, _field: str = field) -> str:
            return _tcp_field(_table, _field, key)

        if grp.get("arrival") is not None:
            raise BufferLabError(f"{field}.arrival: flows arriving as a Poisson process are not translated "
                                 "to ns-3")
        if grp.get("size") is not None or any(f.get("size") is not None for f in grp["flows"]):
            raise BufferLabError(f"{field}.size: finite flows are not translated to ns-3 (bulk flows only)")
        if any(f.get("stop") is not None for f in grp["flows"]):
            raise BufferLabError(f"{field}.stop: stop times are not translated to ns-3")
        if len(grp["flows"]) > MAX_FLOWS_PER_GROUP:
            raise BufferLabError(f"{field}.count: the ns-3 translator takes at most "
                                 f"{MAX_FLOWS_PER_GROUP} flows per group")
        cc = grp.get("congestion_control") or {}
        cc = dict(cc) if isinstance(cc, Mapping) else {"kind": str(cc)}
        kind = str(cc.get("kind", "")).lower()
        if kind not in NS3_CONGESTION_CONTROL:
            raise BufferLabError(f"{tf('congestion_control')}: the ns-3 comparison supports "
                                 f"{', '.join(map(repr, NS3_CONGESTION_CONTROL))}, got {cc!r}")
        if kind == "newreno" and set(cc) - {"kind"}:
            raise BufferLabError(f"{tf('congestion_control')}: NewReno takes no parameters, got {cc!r}")
        if kind == "dctcp" and cc.get("loss_backoff") != "alpha":
            raise BufferLabError(f"{tf('congestion_control')}.loss_backoff: ns-3 3.44's TcpDctcp reduces "
                                 "by alpha on losses too; the comparison needs loss_backoff = \"alpha\"")
        for key, ns3_value in (NS3_CUBIC_CHOICES.items() if kind == "cubic" else ()):
            if cc.get(key) != ns3_value:
                notes.append(f"{tf('congestion_control')}.{key}: ns-3's CUBIC follows {ns3_value!r} (set "
                             f"{key} = \"{ns3_value}\" to compare like with like)")
        for key, ns3_value in (NS3_BBR_CHOICES.items() if kind == "bbr" else ()):
            if cc.get(key) != ns3_value:
                raise BufferLabError(f"{tf('congestion_control')}.{key}: ns-3 3.44's TcpBbr follows "
                                     f"{ns3_value!r}; the comparison needs {key} = \"{ns3_value}\"")
        for key in ENGINE_ONLY_CHOICES:
            cc.pop(key, None)
        # A controller's parameters are attribute defaults of its ns-3 type: one table per kind.
        same_kind = [c for c in ccs if c.get("kind") == cc.get("kind")]
        if same_kind and cc != same_kind[0]:
            raise BufferLabError(f"{tf('congestion_control')}: ns-3 sets a controller's parameters for every "
                                 f"socket of its type at once; all {kind} groups need the same table")
        ccs.append(cc)
        if t.get("recovery", "newreno") != "newreno":
            raise BufferLabError(
                f"{tf('recovery')}: ns-3 3.44 has no classic Reno fast recovery (its sockets leave fast "
                "recovery only when the recovery point is acknowledged, as NewReno, whatever the "
                f"RecoveryType); the comparison needs recovery = \"newreno\", got {t['recovery']!r}"
            )
        if not t["sack"]:
            raise BufferLabError(
                f"{tf('sack')}: ns-3 3.44's non-SACK NewReno path retransmits segments that were not lost; "
                "the comparison needs sack = true"
            )
        pacing = str(t.get("pacing") or "off").lower()
        if kind == "bbr" and pacing != "off":
            raise BufferLabError(f"{tf('pacing')}: BBR paces itself (ns-3's TcpBbr enables its socket's "
                                 "pacing at its own rate); the comparison needs pacing = \"off\", got "
                                 f"{pacing!r}")
        if kind == "bbr" and not t.get("handshake", False):
            notes.append(f"{tf('handshake')}: ns-3's TcpBbr starts its pacing rate and minimum RTT from the "
                         "handshake's RTT sample; without tcp.handshake the engine's BBR starts from none "
                         "(set tcp.handshake = true to compare like with like)")
        if kind == "bbr":
            # Not a choice a scenario can make: said in the notes, without naming a field.
            notes.append("bbr: ns-3's TcpBbr draws each socket's first PROBE_BW phase from one random stream "
                         "shared by all its sockets (stream 4), the engine from each flow's own")
        if pacing not in NS3_PACING_RATIOS:
            raise BufferLabError(f"{tf('pacing')}: the ns-3 comparison maps \"off\", \"rtt\" and \"linux\" "
                                 f"pacing, got {t.get('pacing')!r}")
        if g and pacing != tcps[0]["pacing"]:
            raise BufferLabError(f"{tf('pacing')}: ns-3 sets pacing for every socket at once; all groups "
                                 "need the same")
        if pacing != "off":
            # Not a choice a scenario can make: said in the notes, without naming a field.
            since = ("its handshake's RTT sample, its initial window too" if t.get("handshake")
                     else "its first RTT sample")
            notes.append("pacing: ns-3 paces at ratio·max(cwnd, bytes in flight)/srtt from the end of the "
                         f"initial window (its srtt starts from the handshake), the engine from {since}"
                         + (", and \"rtt\" pacing spreads cwnd alone" if pacing == "rtt" else ""))
        if t.get("ecn_response", "once-per-rtt") != "once-per-rtt":
            raise BufferLabError(f"{tf('ecn_response')}: ns-3 reduces for ECN once per window; the "
                                 "comparison needs \"once-per-rtt\"")
        iw = float(t["initial_window"])
        if iw != int(iw):
            raise BufferLabError(f"{tf('initial_window')}: ns-3 takes a whole number of segments, got {iw}")
        packet, header, ack = int(t["packet_size"]), int(t["header_size"]), int(t["ack_size"])
        segment = int(t["payload"])
        if header != NS3_TCP_IP_HEADER_BYTES:
            notes.append(
                f"{tf('header_size')} is {header} B but ns-3's IPv4+TCP header without options is 40 B: "
                f"ns-3 data packets are {segment + NS3_TCP_IP_HEADER_BYTES} B on the wire, not {packet} B"
            )
        if ack != NS3_TCP_IP_HEADER_BYTES:
            notes.append(
                f"{tf('ack_size')} is {ack} B; ns-3 ACKs are 40 B (plus SACK blocks during recovery)"
            )
        for field, ns3, differs in NS3_SWITCH_NOTES:
            if t[field] != ns3 and (field != "ca_increase" or kind == "newreno"):
                notes.append(f"{tf(field)}: {differs} (set tcp.{field} = \"{ns3}\" to compare like with "
                             "like)")
        if kind == "dctcp" and t["ca_increase"] != "whole-bytes":
            notes.append(f"{tf('ca_increase')}: ns-3's TcpDctcp truncates (1 - alpha/2) x cwnd to whole "
                         "bytes, the engine here only with ca_increase = \"whole-bytes\"")
        if t["rto_backoff"] != "new-ack":
            notes.append(f"{tf('rto_backoff')}: ns-3 drops the timer's backoff at any new ACK, the engine "
                         "here at the next valid RTT sample (Karn)")
        if not t.get("handshake", False) and several_flows:
            notes.append(f"{tf('handshake')}: ns-3 opens every connection with a SYN; one that starts while "
                         "other flows fill the buffer can lose it and wait ConnTimeout before its first "
                         "segment, which the engine's flows here never do (set tcp.handshake = true to "
                         "compare like with like)")
        if float(t["max_rto"]) != 60.0:
            notes.append(f"{tf('max_rto')}: ns-3 has no attribute for it (its cap is 60 s)")
        if t["initial_rto"] != groups_in[0]["tcp"]["initial_rto"]:
            raise BufferLabError(f"{tf('initial_rto')}: ns-3 sets the initial RTO estimate for every socket "
                                 "at once; all groups need the same")
        tcps.append({
            "socket_type": NS3_CONGESTION_CONTROL[kind], "recovery_type": "ns3::TcpClassicRecovery",
            "congestion_control": cc, "pacing": pacing,
            "packet_size": packet, "wire_size": segment + NS3_TCP_IP_HEADER_BYTES, "header_size": header,
            "segment_size": segment, "initial_window": int(iw),
            "min_rto_s": float(t["min_rto"]), "initial_rto_s": float(t["initial_rto"]),
            "max_rto_s": float(t["max_rto"]), "clock_granularity_s": float(t["clock_granularity"]),
            "del_ack_count": 2 if t["delayed_ack"] else 1,
            "del_ack_timeout_s": float(t["delayed_ack_timeout"]),
            "sack": True, "timestamps": False, "ecn": bool(t["ecn"]),
            "retx_threshold": int(t["dupack_threshold"]),
            "max_window": None if t["max_window"] is None else int(t["max_window"]),
            "limited_transmit": bool(t["limited_transmit"]),
            "overhead_s": float(t.get("overhead", 0.0)),
            "handshake": bool(t.get("handshake", False)),
        })

    # Links and their buffers.
    crossing = [[g for g, grp in enumerate(groups_in) if lk["name"] in grp["route"]] for lk in links_in]
    acking = [[g for g, grp in enumerate(groups_in) if lk["name"] in grp["ack_route"]] for lk in links_in]
    links: List[Dict[str, Any]] = []
    for i, lk in enumerate(links_in):
        qf = f"{lfields[i]}.queue"
        q = lk["queue"]
        disc = str(q["discipline"]).lower()
        if disc not in NS3_QUEUE_DISCS:
            raise BufferLabError(f"{qf}.discipline: the ns-3 translator maps {', '.join(NS3_QUEUE_DISCS)}, "
                                 f"not {disc!r}; comparison skipped")
        wires = sorted({tcps[g]["wire_size"] for g in crossing[i]}) or [tcps[0]["wire_size"]]
        wire = wires[-1]
        if len(wires) > 1:
            notes.append(f"link {lk['name']!r}: groups with data packets of {wires} B cross it; its rate is "
                         f"scaled for {wire} B packets")
        qcfg: Dict[str, Any] = {"discipline": disc, "ns3_type": NS3_QUEUE_DISCS[disc], "device_queue_pkts": 1}
        if q.get("limit_bytes") is not None:
            lb = int(q["limit_bytes"])
            if lb < 2 * wire:
                raise BufferLabError(f"{qf}.limit_bytes: need at least two packets for ns-3")
            qcfg["limit_bytes"] = lb
            # The device queue holds one (full-size) packet of the bytes waiting.
            qcfg["ns3_max_size"] = f"{lb - wire}B"
            notes.append(f"{qf}.limit_bytes: the device queue's one packet is assumed full-size "
                         "(ns-3 limit = bytes - 1 packet)")
            limit_pkts = lb // wire
        else:
            limit = int(q["limit"] if q.get("limit") is not None else ENGINE_DEFAULT_LIMITS[disc])
            if limit < 2:
                raise BufferLabError(
                    f"{qf}.limit: ns-3 needs >= 2 (one waiting packet lives in the device queue)"
                )
            qcfg["limit"] = limit
            qcfg["ns3_max_size"] = f"{limit - 1}p"
            limit_pkts = limit
        # Queue discs see one packet fewer than "packets waiting" while the link is busy (the next one waits
        # in the device queue), and take it one serialization earlier than the engine's discipline does.
        tx_s = wire * 8.0 / float(lk["rate"])
        mean_pkt = q.get("mean_pktsize")
        if mean_pkt is None:  # the engine's default: the largest packet of the groups crossing it
            mean_pkt = max((tcps[g]["packet_size"] for g in crossing[i]), default=1000)
        qcfg.update(DISCIPLINES[disc](_Queue(field=qf, q=q, rate_bps=float(lk["rate"]), wire=wire, tx_s=tx_s,
                                             mean_pktsize=int(mean_pkt), notes=notes)))
        if q.get("ecn") and not any(tcps[g]["ecn"] for g in crossing[i]):
            notes.append(f"{disc} marks but TCP ECN is off: every early action becomes a drop"
                         + (f" (link {lk['name']!r})" if len(links_in) > 1 else ""))
        scale = (wire + PPP_HEADER_BYTES) / wire
        rate = float(lk["rate"])
        links.append({
            "name": lk["name"], "field": lfields[i], "rate_bps": rate, "ns3_rate_bps": rate * scale,
            "delay_s": float(lk["delay"]), "rate_scale": scale, "limit_pkts": limit_pkts, "queue": qcfg,
            "groups": [groups_in[g]["name"] for g in crossing[i]],
            "ack_groups": [groups_in[g]["name"] for g in acking[i]],
        })
    child_min = {lk["queue"]["ns3_child_min_bytes"] for lk in links if "ns3_child_min_bytes" in lk["queue"]}
    if len(child_min) > 1:
        raise BufferLabError(f"{lfields[-1]}.queue.mtu: ns-3 sets FQ-CoDel's per-flow CoDel MinBytes for "
                             "every link at once; all fq-codel links need the same mtu")
    index = {lk["name"]: i for i, lk in enumerate(links)}
    topo = _topology(res, gfields)
    for lk, (a, b) in zip(links, topo["ends"]):
        lk["from_router"], lk["to_router"] = a, b

    # Flows, the handshake offset, send buffers.
    rtt_max = max(f["rtt"] for grp in groups_in for f in grp["flows"])
    t0 = math.ceil(rtt_max * 1000.0) / 1000.0 + 0.001
    groups: List[Dict[str, Any]] = []
    first = 0
    for g, grp in enumerate(groups_in):
        tcp, fl = tcps[g], grp["flows"]
        route = [index[n] for n in grp["route"]]
        rtt = [float(f["rtt"]) for f in fl]
        start = [float(f["start"]) for f in fl]
        acc = [float(f["access_rate"]) for f in fl]
        adel = [float(f["access_delay"]) for f in fl]
        scale = (tcp["wire_size"] + PPP_HEADER_BYTES) / tcp["wire_size"]
        if tcp["max_window"] is not None:
            tcp["snd_buf_bytes"] = tcp["rcv_buf_bytes"] = tcp["max_window"] * tcp["segment_size"]
            notes.append("max_window: ns-3 enforces it through the send and receive buffer sizes (bytes)")
        else:
            # ns-3 needs a finite send buffer (it holds sent and unsent data) and a flow that fills it stops
            # sending, which the engine's flows never do unless held to it (engine_held_to_send_buffer,
            # which validate applies: a flow whose oldest segment stays lost reaches any size). Size it far
            # above any window a flow can reach:
            # the whole path (BDP at the slowest link + the buffers on the route) twice over, capped at 32
            # fair shares of the slowest link (memory with 1,000 flows), and at least 64 packets. A smaller
            # cap (8 shares) let a flow that happened to see no loss sit at the cap for the whole run with
            # ten times its fair share.
            slowest = min(route, key=lambda i: links[i]["rate_bps"])
            bdp = max(links[slowest]["rate_bps"] * r / 8.0 / tcp["wire_size"] for r in rtt)
            path = bdp + sum(links[i]["limit_pkts"] for i in route)
            sharing = sum(len(groups_in[h]["flows"]) for h in crossing[slowest])
            share = path / sharing
            tcp["snd_buf_bytes"] = int(
                max(64.0, min(2.5 * path, 32.0 * share) + 4 * tcp["initial_window"]) * tcp["segment_size"]
            )
            tcp["rcv_buf_bytes"] = 1 << 30
        groups.append({
            "name": grp["name"], "field": gfields[g], "route": list(grp["route"]),
            "ack_route": list(grp["ack_route"]), **topo["groups"][g],
            "tcp": tcp,
            "flows": {
                "count": len(fl), "first": first, "rtt_s": rtt, "start_s": start, "access_rate_bps": acc,
                "ns3_access_rate_bps": [a * scale for a in acc], "access_delay_s": adel,
                # Without tcp.handshake the engine's first segment leaves at start: ns-3's SYN one RTT
                # earlier. With it, both send the SYN at start.
                "ns3_app_start_s": [t0 + s - (0.0 if tcp["handshake"] else r) for s, r in zip(start, rtt)],
            },
        })
        first += len(fl)
    # The first group's TCP is ns-3's default; other groups set what differs on their own sockets.
    base = socket_attributes(tcps[0])
    for grp in groups:
        own = socket_attributes(grp["tcp"])
        grp["socket_attributes"] = {
            side: {k: v for k, v in own[side].items() if v != base[side][k]} for side in own
        }
        if grp["tcp"]["socket_type"] != tcps[0]["socket_type"]:
            # Not a socket attribute: the runner builds the socket's own controller (monitor.cc, Apply).
            grp["socket_attributes"]["sender"]["CongestionOps"] = grp["tcp"]["socket_type"]
    sample = res.get("monitor", {}).get("sample_interval")
    seen = set()
    notes = [n for n in notes if not (n in seen or seen.add(n))]
    return {
        "name": res.get("name") or spec.get("name", ""),
        "seed": int(res["seed"]),
        "duration_s": duration,
        "warmup_s": warmup,
        "t0_s": t0,
        "stop_s": t0 + duration,
        "routers": topo["routers"],
        "links": links,
        "groups": groups,
        "flows_total": first,
        "routes": topo["routes"],
        "tcp": tcps[0],
        "monitor": {"sample_interval_s": None if sample is None else float(sample)},
        "notes": notes,
    }
