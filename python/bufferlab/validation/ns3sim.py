"""Run a BufferLab scenario in ns-3 (the ``ns3`` package from PyPI, version 3.44).

:func:`translate` turns a scenario (a dict or a TOML path) into a plain, JSON-able ns-3 configuration. It
reads the scenario only through the engine's resolver (:func:`bufferlab.resolve`): every default, every
per-flow draw (RTTs, start times, access rates) and every unit conversion is the engine's, so ns-3 runs
exactly the flows the engine runs. It needs no ns-3 and is what the tests check. :func:`run_ns3` builds that
configuration in ns-3 through its Python bindings and returns the summary keys of ``docs/scenario.md`` that
ns-3 can measure, one row per link (``ports``) and per group (``groups``), plus ``wall_s`` and ``events``.
:func:`run_ns3_isolated` does the same in a fresh interpreter.

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

import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Mapping, Sequence, Tuple, Union

import numpy as np

from bufferlab.errors import BufferLabError

PPP_HEADER_BYTES = 2
#: First ns-3 random stream of the senders' `tcp.overhead` jitter (flow i draws from this + i), clear of the
#: streams the queue discs take (one per link).
JITTER_STREAM_BASE = 1000

#: IPv4 (20) + TCP (20) header bytes of an ns-3 data segment without options (timestamps off).
NS3_TCP_IP_HEADER_BYTES = 40
#: Device queue of every device that is not a link's forward direction (no queue disc there).
BIG_DEVICE_QUEUE = "100000p"
#: Address blocks: link k is the /30 10.0.x.y (k-th), group g's access links are /30s in 10.(1+g).0.0/16.
MAX_GROUPS, MAX_FLOWS_PER_GROUP, MAX_LINKS = 200, 16_000, 16_000
#: The disciplines ns-3 runs as its RedQueueDisc (with AdaptMaxP for ared).
RED_DISCIPLINES = ("red", "ared")
#: The packets a discipline holds when its table gives no limit (the engine's defaults, Linux's).
ENGINE_DEFAULT_LIMITS = {"codel": 1000, "pie": 1000, "fq-codel": 10240}
#: The engine's congestion controllers ns-3 3.44 has, as its socket types.
NS3_CONGESTION_CONTROL = {"newreno": "ns3::TcpNewReno", "cubic": "ns3::TcpCubic"}
#: The causes a timeout is classified by, in both simulators (the engine's `TimeoutCause`).
TIMEOUT_CAUSES = ("lost_retransmission", "during_recovery", "insufficient_dupacks", "other")
#: CUBIC's choices where ns-3 3.44's `TcpCubic` departs from RFC 9438 (docs/scenario.md, `cubic`).
NS3_CUBIC_CHOICES = {"reduce_from": "cwnd", "after_timeout": "keep-w-max", "lookahead": "min-rtt",
                     "growth": "whole-segments"}
#: `tcp.pacing` as ns-3's (PacingSsRatio, PacingCaRatio) in percent; None: pacing off.
NS3_PACING_RATIOS = {"off": None, "rtt": (100, 100), "linux": (200, 120)}
#: The engine's disciplines ns-3 3.44 has, and its queue disc for each.
NS3_QUEUE_DISCS = {"droptail": "ns3::FifoQueueDisc", "red": "ns3::RedQueueDisc", "ared": "ns3::RedQueueDisc",
                   "codel": "ns3::CoDelQueueDisc", "pie": "ns3::PieQueueDisc",
                   "fq-codel": "ns3::FqCoDelQueueDisc"}

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
}


# --------------------------------------------------------------------------------------------------
# translation (pure, given the engine's resolver)
# --------------------------------------------------------------------------------------------------


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


def _nanos(seconds: float) -> str:
    """A time as ns-3 reads it back exactly (whole nanoseconds)."""
    return f"{int(round(seconds * 1e9))}ns"


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


#: Socket attributes set per group when they differ from the first group's (ns-3's defaults), with the
#: side that uses them. ``RttEstimator::InitialEstimation`` has no socket attribute: one for all groups.
_SENDER_ATTRS = ("SegmentSize", "InitialCwnd", "ConnTimeout", "SndBufSize", "MinRto", "ClockGranularity",
                 "ReTxThreshold", "LimitedTransmit", "UseEcn")
_RECEIVER_ATTRS = ("SegmentSize", "DelAckCount", "DelAckTimeout", "RcvBufSize", "UseEcn")


def conn_timeout(tcp: Dict[str, Any]) -> float:
    """ns-3's SYN timer (``ConnTimeout``, doubled at each retry) for a group's TCP, seconds.

    With ``tcp.handshake`` the engine times its SYN by the initial RTO, doubled likewise. Without it the
    engine's flows have no handshake, and a SYN lost in ns-3 would hold its flow back by ConnTimeout (3 s
    by default); retrying after the minimum RTO keeps that cost to what a lost data packet costs.
    """
    return tcp["initial_rto_s"] if tcp.get("handshake") else tcp["min_rto_s"]


def socket_attributes(tcp: Dict[str, Any]) -> Dict[str, Dict[str, str]]:
    """A group's TCP settings as ns-3 socket attributes (strings as ns-3 parses them), sender and receiver."""
    values = {
        "SegmentSize": str(tcp["segment_size"]),
        "InitialCwnd": str(tcp["initial_window"]),
        "ConnTimeout": _nanos(conn_timeout(tcp)),
        "SndBufSize": str(tcp["snd_buf_bytes"]),
        "RcvBufSize": str(tcp["rcv_buf_bytes"]),
        "MinRto": _nanos(tcp["min_rto_s"]),
        "ClockGranularity": _nanos(tcp["clock_granularity_s"]),
        "ReTxThreshold": str(tcp["retx_threshold"]),
        "LimitedTransmit": "true" if tcp["limited_transmit"] else "false",
        "UseEcn": "On" if tcp["ecn"] else "Off",
        "DelAckCount": str(tcp["del_ack_count"]),
        "DelAckTimeout": _nanos(tcp["del_ack_timeout_s"]),
    }
    return {"sender": {k: values[k] for k in _SENDER_ATTRS},
            "receiver": {k: values[k] for k in _RECEIVER_ATTRS}}


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


def congestion_control_defaults(tcp: Dict[str, Any]) -> Dict[str, Any]:
    """ns-3 attribute defaults for a translated TCP's controller and pacing (Python types as in
    :func:`queue_disc_attributes`)."""
    out: Dict[str, Any] = {}
    cc = tcp["congestion_control"]
    if cc.get("kind") == "cubic":
        # HyStart (on in ns-3, absent in the engine) off; ns-3's CUBIC is Linux's BIC-style integer version.
        out.update({"ns3::TcpCubic::C": float(cc["c"]), "ns3::TcpCubic::Beta": float(cc["beta"]),
                    "ns3::TcpCubic::FastConvergence": bool(cc["fast_convergence"]),
                    "ns3::TcpCubic::TcpFriendliness": bool(cc["reno_friendly"]),
                    "ns3::TcpCubic::HyStart": False})
    ratios = NS3_PACING_RATIOS[tcp["pacing"]]
    out["ns3::TcpSocketState::EnablePacing"] = ratios is not None
    if ratios is not None:
        out.update({"ns3::TcpSocketState::PacingSsRatio": ratios[0],
                    "ns3::TcpSocketState::PacingCaRatio": ratios[1],
                    "ns3::TcpSocketState::PaceInitialWindow": False})
    return out


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
        for key, ns3_value in (NS3_CUBIC_CHOICES.items() if kind == "cubic" else ()):
            if cc.get(key) != ns3_value:
                notes.append(f"{tf('congestion_control')}.{key}: ns-3's CUBIC follows {ns3_value!r} (set "
                             f"{key} = \"{ns3_value}\" to compare like with like)")
        if g and cc != ccs[0]:
            raise BufferLabError(f"{tf('congestion_control')}: ns-3 takes one congestion control for every "
                                 "socket here; all groups need the same")
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
        if t["ssthresh_from"] != "pipe":
            notes.append(f"{tf('ssthresh_from')}: ns-3 halves RFC 6675's pipe after a loss, the engine here "
                         "FlightSize (set tcp.ssthresh_from = \"pipe\" to compare like with like)")
        if kind == "newreno" and t.get("ca_increase", "exact") != "whole-bytes":
            notes.append(f"{tf('ca_increase')}: ns-3's NewReno adds SMSS²/cwnd in whole bytes per ACK, "
                         "truncated, which slows windows of hundreds of segments; the engine here adds it "
                         "exactly (set tcp.ca_increase = \"whole-bytes\" to compare like with like)")
        if t.get("recovery_timer", "every-ack") != "first-partial-ack":
            notes.append(f"{tf('recovery_timer')}: ns-3 restarts the retransmission timer during fast "
                         "recovery only on the first partial ACK, the engine here on every ACK of new "
                         "data (set tcp.recovery_timer = \"first-partial-ack\" to compare like with like)")
        if t.get("partial_ack", "pipe") != "send-one":
            notes.append(f"{tf('partial_ack')}: in fast recovery ns-3 sends one segment at once, outside "
                         "the pipe limit, on a partial ACK whose first unacknowledged segment was not "
                         "resent; the engine here leaves it to the pipe (set tcp.partial_ack = "
                         "\"send-one\" to compare like with like)")
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
        if disc in RED_DISCIPLINES:
            if q.get("mark_p") is not None:
                raise BufferLabError(f"{qf}.mark_p: ns-3's RedQueueDisc has no mark_p (ns-2's use_mark_p_): "
                                     "it marks at every probability; leave mark_p out to translate")
            adaptive = adaptive_red_settings(q, float(lk["rate"]), int(mean_pkt)) if disc == "ared" else {}
            if adaptive and q["update"] != "arrival":
                raise BufferLabError(f"{qf}.update: ns-3 adapts max_p at arrivals only (\"arrival\")")
            if adaptive and q["gentle_max_p"] != "initial":
                raise BufferLabError(f"{qf}.gentle_max_p: ns-3's gentle line keeps the initial max_p "
                                     "(\"initial\")")
            min_th = float(adaptive.get("min_th", q["min_th"]))
            max_th = float(adaptive.get("max_th", q["max_th"]))
            max_p = float(q["max_p"])
            qcfg.update(
                min_th=min_th, max_th=max_th, max_p=max_p, weight=float(adaptive.get("weight", q["weight"])),
                gentle=bool(q["gentle"]), wait=bool(q["wait"]), ecn=bool(q["ecn"]),
                mean_pktsize=int(mean_pkt), adaptive=adaptive or None,
                # ns-3 RED sees the queue disc only: one packet fewer than "packets waiting" when busy.
                ns3_min_th=max(min_th - 1.0, 0.0), ns3_max_th=max_th - 1.0, ns3_linterm=1.0 / max_p,
                ns3_use_hard_drop=True,
            )
        elif disc == "codel":
            target, interval = float(q["target"]), float(q["interval"])
            mtu = int(q["mtu"]) if q.get("mtu") is not None else int(mean_pkt)
            _check_target_exceeds(qf, target, tx_s)
            qcfg.update(
                target_s=target, interval_s=interval, mtu=mtu, ecn=bool(q["ecn"]),
                # The engine drops only while more than `mtu` bytes wait behind the head; ns-3 while at
                # least MinBytes wait in the queue disc, which lacks the device queue's packet.
                ns3_target=_nanos(target - tx_s), ns3_min_bytes=max(mtu - wire + 1, 0),
            )
        elif disc == "fq-codel":
            target, interval = float(q["target"]), float(q["interval"])
            _check_target_exceeds(qf, target, tx_s)
            mtu = int(q["mtu"]) if q.get("mtu") is not None else int(mean_pkt)
            ce = q.get("ce_threshold")
            qcfg.update(
                target_s=target, interval_s=interval, mtu=mtu, flows=int(q["flows"]),
                drop_batch=int(q["drop_batch"]), ecn=True if q.get("ecn") is None else bool(q["ecn"]),
                quantum=int(q["quantum"]) if q.get("quantum") is not None else int(mean_pkt),
                ce_threshold_s=None if ce is None else float(ce),
                ns3_target=_nanos(target - tx_s),
                ns3_ce_threshold=None if ce is None else _nanos(max(float(ce) - tx_s, 0.0)),
                # Each flow's CoDel: no drop while at most `mtu` bytes wait behind the head here, while fewer
                # than MinBytes wait in ns-3 (a flow's queue rarely holds the device queue's packet).
                ns3_child_min_bytes=mtu + 1,
            )
            how = "with a perturbation" if q["hash"] == "perturbed" else "directly"
            notes.append(f"{qf}: ns-3 hashes the 5-tuple into its {q['flows']} queues, the engine "
                         f"(kind, flow) {how}; flows share a queue by different collisions")
        elif disc == "pie":
            if q["delay"] != "timestamp":
                raise BufferLabError(f"{qf}.delay: ns-3's rate estimator differs in detail; the comparison "
                                     "needs \"timestamp\" (ns-3's default)")
            if q.get("scale_by_size"):
                raise BufferLabError(f"{qf}.scale_by_size: ns-3 scales by size only with byte limits")
            target = float(q["target"])
            _check_target_exceeds(qf, target, tx_s)
            qcfg.update(
                target_s=target, t_update_s=float(q["t_update"]), alpha=float(q["alpha"]),
                beta=float(q["beta"]), max_burst_s=float(q["max_burst"]), ecn=bool(q["ecn"]),
                ecn_threshold=float(q["ecn_threshold"]), derandomize=bool(q["derandomize"]),
                cap_drop_adjustment=bool(q["cap_drop_adjustment"]), mean_pktsize=int(mean_pkt),
                dq_threshold=int(q["dq_threshold"]), ns3_target=_nanos(target - tx_s),
            )
            if not q["auto_tune"]:
                raise BufferLabError(f"{qf}.auto_tune: ns-3 always scales the update (RFC 8033 §4.2)")
            notes.append(f"{qf}: ns-3's PIE updates every t_update from time 0, the engine's from the first "
                         "arrival; it skips random drops with at most 2 packets queued (packet limits)")
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
            # growing, which the engine's flows never do. Size it far above any window a flow can reach:
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


# --------------------------------------------------------------------------------------------------
# ns-3
# --------------------------------------------------------------------------------------------------

_MONITOR_CPP = r"""
#include <unordered_map>
#include <set>
#include <vector>
#include <list>
#include <cstring>
namespace bufferlab_ns3 {
using namespace ns3;

// Streams one link's statistics from trace sources, without scheduling events of its own.
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
  // A packet refused at enqueue arrived and was dropped; one dropped after dequeue (CoDel's control law,
  // FQ-CoDel's batch drops from the fattest queue) was counted as an arrival when it was enqueued.
  void DropBefore(Ptr<const QueueDiscItem> item, const char* reason) { Drop(item, reason, true); }
  void DropAfter(Ptr<const QueueDiscItem> item, const char* reason) { Drop(item, reason, false); }
  void Drop(Ptr<const QueueDiscItem> item, const char* reason, bool arrival) {
    int64_t now = Simulator::Now().GetNanoSeconds();
    drops_total++;
    enq_time.erase(item->GetPacket()->GetUid());
    if (!InWin(now)) return;
    if (arrival) arrivals++;
    // Drops by a child queue disc (FQ-CoDel's per-flow CoDel) carry its reason after a prefix.
    const char* prefix = "(Dropped by child queue disc) ";
    if (std::strncmp(reason, prefix, std::strlen(prefix)) == 0) reason += std::strlen(prefix);
    if (std::strcmp(reason, "Unforced drop") == 0) drops_early++;
    else if (std::strcmp(reason, "Forced drop") == 0) drops_forced++;
    else if (std::strcmp(reason, "Queue disc limit exceeded") == 0) drops_overflow++;
    else if (std::strcmp(reason, "Overlimit drop") == 0) drops_overflow++;      // CoDel's, FQ-CoDel's limit
    else if (std::strcmp(reason, "Target exceeded drop") == 0) drops_early++;   // CoDel's control law
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
  qd->TraceConnectWithoutContext("DropBeforeEnqueue", MakeCallback(&Monitor::DropBefore, m));
  qd->TraceConnectWithoutContext("DropAfterDequeue", MakeCallback(&Monitor::DropAfter, m));
  qd->TraceConnectWithoutContext("Mark", MakeCallback(&Monitor::Mark, m));
  dev->GetQueue()->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&Monitor::DevLen, m));
  dev->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&Monitor::TxBegin, m));
  dev->TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&Monitor::TxEnd, m));
}

typedef std::vector<std::pair<std::string, std::string>> Attributes;

void Apply(Ptr<Socket> s, const Attributes& attrs) {
  for (auto& kv : attrs) s->SetAttribute(kv.first, StringValue(kv.second));
}

// A bulk TCP sender: BulkSendApplication's sequence of socket calls (unlimited bytes), with the group's
// own socket attributes set before the socket connects.
class Sender : public Application {
 public:
  static TypeId GetTypeId() {
    static TypeId tid = TypeId("bufferlab::Sender").SetParent<Application>().SetGroupName("BufferLab");
    return tid;
  }
  Address peer;
  uint32_t send_size = 536;
  Attributes attrs;
  Ptr<Socket> socket;
  bool connected = false;
  Ptr<Packet> unsent;
  // Over the whole run: retransmission timeouts (each expiry with data outstanding), entries into fast
  // recovery (CA_RECOVERY), and retransmitted segments.
  uint64_t timeouts = 0, fast_recoveries = 0, retransmits = 0;
  // Timeouts inside the measurement window (from warm_ns on) by cause, as the engine's
  // `timeouts_by_cause`: the first unacknowledged segment had been retransmitted (lost retransmission);
  // else the state the timer fired in: fast recovery, open/disorder/CWR (too few duplicate ACKs), loss.
  int64_t warm_ns = 0;
  uint64_t window_lost_retransmission = 0, window_during_recovery = 0, window_insufficient_dupacks = 0,
           window_other = 0;

 private:
  TcpSocketState::TcpCongState_t state = TcpSocketState::CA_OPEN;
  uint32_t una = 0;
  std::set<uint32_t> resent;  // sequence numbers at or above SND.UNA that have been retransmitted
  void CongState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now) {
    state = now;
    if (now == TcpSocketState::CA_RECOVERY) fast_recoveries++;
  }
  void Retransmitted(Ptr<const Packet>, const TcpHeader& h, const Address&, const Address&,
                     Ptr<const TcpSocketBase>) {
    retransmits++;
    resent.insert(h.GetSequenceNumber().GetValue());
  }
  void Acked(SequenceNumber32, SequenceNumber32 now) {
    una = now.GetValue();
    resent.erase(resent.begin(), resent.lower_bound(una));
  }
  // ReTxTimeout is the only place that doubles the RTO (RFC 6298 5.5, capped at 60 s); a new RTT
  // estimate recomputes it from scratch, the SYN's backoff happens before the connection opens.
  void Rto(Time before, Time now) {
    if (!connected) return;
    bool doubled = now == before + before || (now == Seconds(60) && before + before > now);
    if (!doubled) return;
    timeouts++;
    if (Simulator::Now().GetNanoSeconds() < warm_ns) return;
    if (resent.count(una)) window_lost_retransmission++;
    else if (state == TcpSocketState::CA_RECOVERY) window_during_recovery++;
    else if (state == TcpSocketState::CA_LOSS) window_other++;
    else window_insufficient_dupacks++;
  }
  void StartApplication() override {
    if (!socket) {
      socket = Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId());
      Apply(socket, attrs);
      if (socket->Bind() == -1) NS_FATAL_ERROR("Failed to bind socket");
      socket->SetIpTos(0);
      socket->Connect(peer);
      socket->ShutdownRecv();
      socket->SetConnectCallback(MakeCallback(&Sender::Connected, this), MakeCallback(&Sender::Failed, this));
      socket->SetSendCallback(MakeCallback(&Sender::DataSend, this));
      socket->TraceConnectWithoutContext("CongState", MakeCallback(&Sender::CongState, this));
      socket->TraceConnectWithoutContext("Retransmission", MakeCallback(&Sender::Retransmitted, this));
      socket->TraceConnectWithoutContext("HighestRxAck", MakeCallback(&Sender::Acked, this));
      socket->TraceConnectWithoutContext("RTO", MakeCallback(&Sender::Rto, this));
    }
    if (connected) SendData();
  }
  void StopApplication() override {
    if (socket) { socket->Close(); connected = false; }
  }
  void SendData() {
    while (true) {
      Ptr<Packet> packet = unsent ? unsent : Create<Packet>(send_size);
      uint32_t size = packet->GetSize();
      int actual = socket->Send(packet);
      if (actual >= 0 && uint32_t(actual) == size) {
        unsent = nullptr;
      } else if (actual == -1) {
        unsent = packet;  // the send buffer is full; DataSend resumes
        break;
      } else if (actual > 0) {
        unsent = packet->CreateFragment(actual, size - uint32_t(actual));
        break;
      } else {
        NS_FATAL_ERROR("Unexpected return value from Socket::Send");
      }
    }
  }
  void Connected(Ptr<Socket>) { connected = true; SendData(); }
  void Failed(Ptr<Socket>) {}
  void DataSend(Ptr<Socket>, uint32_t) { if (connected) SendData(); }
};

// A TCP sink: PacketSink's sequence of socket calls, with the group's socket attributes set on the
// listening socket, which every accepted socket copies (TcpSocketBase's fork).
class Sink : public Application {
 public:
  static TypeId GetTypeId() {
    static TypeId tid = TypeId("bufferlab::Sink").SetParent<Application>().SetGroupName("BufferLab");
    return tid;
  }
  uint16_t port = 0;
  Attributes attrs;
  Ptr<Socket> listener;
  std::list<Ptr<Socket>> accepted;
  uint64_t total_rx = 0;
  uint64_t GetTotalRx() const { return total_rx; }

 private:
  void StartApplication() override {
    if (!listener) {
      listener = Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId());
      Apply(listener, attrs);
      if (listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), port)) == -1)
        NS_FATAL_ERROR("Failed to bind socket");
      listener->Listen();
      listener->ShutdownSend();
      listener->SetRecvCallback(MakeCallback(&Sink::HandleRead, this));
      listener->SetRecvPktInfo(true);
      listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                  MakeCallback(&Sink::HandleAccept, this));
    }
  }
  void StopApplication() override {
    for (auto& s : accepted) s->Close();
    accepted.clear();
    if (listener) listener->Close();
  }
  void HandleRead(Ptr<Socket> s) {
    Address from;
    while (Ptr<Packet> p = s->RecvFrom(from)) {
      if (p->GetSize() == 0) break;
      total_rx += p->GetSize();
    }
  }
  void HandleAccept(Ptr<Socket> s, const Address&) {
    s->SetRecvCallback(MakeCallback(&Sink::HandleRead, this));
    accepted.push_back(s);
  }
};

Ptr<Sender> AddSender(Ptr<Node> node, Ipv4Address dst, uint16_t port, uint32_t send_size, double start_s) {
  Ptr<Sender> app = CreateObject<Sender>();
  app->peer = InetSocketAddress(dst, port);
  app->send_size = send_size;
  node->AddApplication(app);
  app->SetStartTime(Seconds(start_s));
  return app;
}
Ptr<Sink> AddSink(Ptr<Node> node, uint16_t port) {
  Ptr<Sink> app = CreateObject<Sink>();
  app->port = port;
  node->AddApplication(app);
  app->SetStartTime(Seconds(0.0));
  return app;
}
void SetAttr(Attributes& attrs, std::string name, std::string value) { attrs.emplace_back(name, value); }
void SetWarmup(Ptr<Sender> s, int64_t warm_ns) { s->warm_ns = warm_ns; }

struct Snapshot {
  std::vector<Ptr<Sink>> sinks;
  std::vector<uint64_t> at_warmup;
  void Take() { at_warmup.clear(); for (auto& s : sinks) at_warmup.push_back(s->GetTotalRx()); }
};
void ScheduleSnapshot(Snapshot* s, double at_s) { Simulator::Schedule(Seconds(at_s), &Snapshot::Take, s); }
Ptr<PointToPointNetDevice> AsP2P(Ptr<NetDevice> d) { return DynamicCast<PointToPointNetDevice>(d); }
// TcpSocketBase's UseEcn attribute has no getter: read the socket state's field.
struct EcnPeek : public TcpSocketBase {
  static std::string Get(Ptr<TcpSocketBase> s) {
    switch ((PeekPointer(s)->*(&EcnPeek::m_tcb))->m_useEcn) {
      case TcpSocketState::On: return "On";
      case TcpSocketState::Off: return "Off";
      default: return "AcceptOnly";
    }
  }
};
std::string GetAttr(Ptr<Object> o, std::string name) {
  TypeId::AttributeInformation info;
  if (!o || !o->GetInstanceTypeId().LookupAttributeByName(name, &info)) return "?";
  Ptr<TcpSocketBase> tcp = DynamicCast<TcpSocketBase>(o);
  if (tcp && name == "UseEcn") return EcnPeek::Get(tcp);
  // RED's Alpha and Beta have setters only; their getters are methods.
  Ptr<RedQueueDisc> red = DynamicCast<RedQueueDisc>(o);
  if (red && name == "Alpha") return std::to_string(red->GetAredAlpha());
  if (red && name == "Beta") return std::to_string(red->GetAredBeta());
  if (!(info.flags & TypeId::ATTR_GET) || !info.accessor->HasGetter()) return "?";
  Ptr<AttributeValue> v = info.checker->Create();
  o->GetAttribute(name, *v);
  return v->SerializeToString(info.checker);
}
Ptr<Object> SenderSocket(Ptr<Sender> s) { return s->socket; }
Ptr<Object> SinkSocket(Ptr<Sink> s) { return s->listener; }
// RED's random variable gets a fixed stream: ns-3 numbers streams of random variables automatically
// from a process-wide counter, so a second simulation in the same process would draw from another one.
void FixStreams(Ptr<QueueDisc> qd, int64_t stream) {
  Ptr<RedQueueDisc> red = DynamicCast<RedQueueDisc>(qd);
  if (red) red->AssignStreams(stream);
  Ptr<PieQueueDisc> pie = DynamicCast<PieQueueDisc>(qd);
  if (pie) pie->AssignStreams(stream);
}
// FQ-CoDel's DRR quantum has a setter but no attribute.
void SetFqQuantum(Ptr<QueueDisc> qd, uint32_t quantum) {
  Ptr<FqCoDelQueueDisc> fq = DynamicCast<FqCoDelQueueDisc>(qd);
  if (fq) fq->SetQuantum(quantum);
}
uint32_t GetFqQuantum(Ptr<QueueDisc> qd) {
  Ptr<FqCoDelQueueDisc> fq = DynamicCast<FqCoDelQueueDisc>(qd);
  return fq ? fq->GetQuantum() : 0;
}
// tcp.overhead (ns-2's overhead_): a sender's packets wait a uniform random time in [0, most] before
// its access device takes them, in order (a packet never leaves before the one ahead of it).
class JitterQueueDisc : public QueueDisc {
 public:
  static TypeId GetTypeId() {
    static TypeId tid = TypeId("bufferlab::JitterQueueDisc").SetParent<QueueDisc>().SetGroupName("BufferLab")
                            .AddConstructor<JitterQueueDisc>();
    return tid;
  }
  JitterQueueDisc() : QueueDisc(QueueDiscSizePolicy::NO_LIMITS) {}
  Time most;
  Ptr<UniformRandomVariable> draw = CreateObject<UniformRandomVariable>();
  std::deque<Time> ready;
  Time last;

 private:
  bool DoEnqueue(Ptr<QueueDiscItem> item) override {
    Time t = Max(Simulator::Now() + Seconds(draw->GetValue(0.0, most.GetSeconds())), last);
    last = t;
    ready.push_back(t);
    GetInternalQueue(0)->Enqueue(item);
    Simulator::Schedule(t - Simulator::Now(), &JitterQueueDisc::Run, this);
    return true;
  }
  Ptr<QueueDiscItem> DoDequeue() override {
    if (ready.empty() || ready.front() > Simulator::Now()) return nullptr;
    ready.pop_front();
    return GetInternalQueue(0)->Dequeue();
  }
  Ptr<const QueueDiscItem> DoPeek() override {
    if (ready.empty() || ready.front() > Simulator::Now()) return nullptr;
    return GetInternalQueue(0)->Peek();
  }
  bool CheckConfig() override {
    if (GetNInternalQueues() == 0) {
      AddInternalQueue(CreateObjectWithAttributes<DropTailQueue<QueueDiscItem>>(
          "MaxSize", QueueSizeValue(QueueSize("1000000p"))));
    }
    return true;
  }
  void InitializeParams() override {}
};

// The TypeId is registered when first asked for (cppyy runs no static registration).
std::string JitterTypeName() { return JitterQueueDisc::GetTypeId().GetName(); }
void SetJitter(Ptr<QueueDisc> qd, double most_s, int64_t stream) {
  Ptr<JitterQueueDisc> j = DynamicCast<JitterQueueDisc>(qd);
  j->most = Seconds(most_s);
  j->draw->SetStream(stream);
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
    for name, value in congestion_control_defaults(tcp).items():
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


def queue_disc_attributes(cfg: Dict[str, Any], link: int = 0) -> Dict[str, Any]:
    """A link's root queue disc attributes, as set in ns-3 and checked when read back.

    Python types pick the ns-3 value type: str → StringValue, bool → BooleanValue, int → UintegerValue,
    float → DoubleValue. (RED's ``LinkDelay`` is set too, but ns-3 reads it back as ``"+5e+06ns"``.)
    """
    lk = cfg["links"][link]
    q = lk["queue"]
    attrs: Dict[str, Any] = {"MaxSize": q["ns3_max_size"]}
    if q["discipline"] in RED_DISCIPLINES:
        attrs.update(
            MinTh=q["ns3_min_th"], MaxTh=q["ns3_max_th"], LInterm=q["ns3_linterm"], QW=q["weight"],
            Gentle=q["gentle"], Wait=q["wait"], MeanPktSize=q["mean_pktsize"], UseEcn=q["ecn"],
            UseHardDrop=q["ns3_use_hard_drop"], ARED=False, AdaptMaxP=bool(q.get("adaptive")),
            LinkBandwidth=f"{int(round(lk['rate_bps']))}bps",
        )
        ad = q.get("adaptive")
        if ad:
            # The thresholds and weight are given (shifted by a packet as RED's), so ns-3's own automatic
            # settings (ARED = true) stay off; AdaptMaxP is the adaptation itself.
            attrs.update(TargetDelay=_nanos(ad["target_delay_s"]), Interval=_nanos(ad["interval_s"]),
                         Top=ad["top"], Bottom=ad["bottom"], Alpha=ad["alpha"], Beta=ad["beta"])
    elif q["discipline"] == "codel":
        attrs.update(Target=q["ns3_target"], Interval=_nanos(q["interval_s"]), MinBytes=q["ns3_min_bytes"],
                     UseEcn=q["ecn"], UseL4s=False)
    elif q["discipline"] == "fq-codel":
        attrs.update(Target=q["ns3_target"], Interval=_nanos(q["interval_s"]), Flows=q["flows"],
                     DropBatchSize=q["drop_batch"], UseEcn=q["ecn"], Perturbation=0, UseL4s=False,
                     EnableSetAssociativeHash=False)
        if q["ns3_ce_threshold"] is not None:
            attrs["CeThreshold"] = q["ns3_ce_threshold"]
    elif q["discipline"] == "pie":
        attrs.update(
            QueueDelayReference=q["ns3_target"], Tupdate=_nanos(q["t_update_s"]), A=q["alpha"], B=q["beta"],
            MaxBurstAllowance=_nanos(q["max_burst_s"]), UseEcn=q["ecn"], MarkEcnThreshold=q["ecn_threshold"],
            UseDerandomization=q["derandomize"], UseCapDropAdjustment=q["cap_drop_adjustment"],
            MeanPktSize=q["mean_pktsize"], DequeueThreshold=q["dq_threshold"],
            UseDequeueRateEstimator=False, UseL4s=False,
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


def _same(got: Any, want: Any) -> bool:
    if isinstance(want, bool):
        return str(got).lower() == str(want).lower()
    if isinstance(want, float):
        try:  # ns-3 writes doubles with six significant digits ("0.00039992"); it runs with the full value
            return math.isclose(float(got), want, rel_tol=1e-5, abs_tol=1e-12)
        except (TypeError, ValueError):
            return False
    if isinstance(want, str) and want.endswith("ns") and isinstance(got, str) and got.endswith("ns"):
        try:  # times: ns-3 writes "+2e+08ns" for what was set as "200000000ns"
            return math.isclose(float(got[:-2]), float(want[:-2]), rel_tol=1e-12, abs_tol=0.5)
        except ValueError:
            return False
    return str(got) == str(want)


def check_read_back(cfg: Dict[str, Any], read_back: Dict[str, Any]) -> None:
    """Raise BufferLabError, naming the attribute and the link, if ns-3 did not install the buffers asked for.

    ``read_back`` holds, per link name under ``links``, the attributes as ns-3 serializes them (``"2499p"``,
    ``"199"``, ``"true"``), read from the installed queue disc and device queue after set-up, and the number
    of root queue discs found on every other device.
    """
    for k, lk in enumerate(cfg["links"]):
        got_link = (read_back.get("links") or {}).get(lk["name"], {})
        expected = {**queue_disc_attributes(cfg, k), "device_queue": f"{lk['queue']['device_queue_pkts']}p"}
        if lk["queue"]["discipline"] == "fq-codel":
            expected["quantum"] = lk["queue"]["quantum"]
        for name, want in expected.items():
            got = got_link.get(name)
            if not _same(got, want):
                where = f" on link {lk['name']!r}" if len(cfg["links"]) > 1 else ""
                raise BufferLabError(f"ns-3 installed {name} = {got!r}{where}, expected {want!r}")
    # Only the senders' jitter queue discs (tcp.overhead), one per flow of a group that has them.
    want = sum(grp["flows"]["count"] for grp in cfg["groups"] if grp["tcp"].get("overhead_s", 0.0) > 0)
    got = read_back.get("root_queue_discs_elsewhere")
    if got != want:
        raise BufferLabError(f"ns-3 installed root_queue_discs_elsewhere = {got!r}, expected {want}")


def check_socket_read_back(cfg: Dict[str, Any], read_back: Dict[str, Any]) -> None:
    """Raise BufferLabError if a group's sockets ran with other TCP attributes than its own settings."""
    for grp in cfg["groups"]:
        want = socket_attributes(grp["tcp"])
        got = read_back.get(grp["name"], {})
        for side in ("sender", "receiver"):
            for name, value in want[side].items():
                have = (got.get(side) or {}).get(name)
                if not _same(have, value):
                    raise BufferLabError(f"ns-3's {side} sockets of group {grp['name']!r} ran with {name} = "
                                         f"{have!r}, expected {value!r}")


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
            [sys.executable, "-m", "bufferlab.validation.ns3sim"],
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
