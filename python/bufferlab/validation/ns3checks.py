"""What a translated configuration asks ns-3 to install, and the checks that it did.

:func:`queue_disc_attributes`, :func:`socket_attributes` and :func:`congestion_control_defaults` turn a
configuration (:func:`bufferlab.validation.translate.translate`) into ns-3 attribute values, as the runner
(``ns3run.py``) sets them; :func:`check_read_back` and :func:`check_socket_read_back` compare what ns-3
reports it installed with them. Everything here decides how a configuration runs, so this module's source is
part of the key of a stored ns-3 run (``cache.py``), as are ``ns3run.py`` and ``monitor.cc``.
"""

from __future__ import annotations

import math
from typing import Any, Dict

from bufferlab.errors import BufferLabError

#: The point-to-point device's header, added to every packet on the wire.
PPP_HEADER_BYTES = 2
#: The disciplines ns-3 runs as its RedQueueDisc (with AdaptMaxP for ared).
RED_DISCIPLINES = ("red", "ared", "step")
#: `tcp.pacing` as ns-3's (PacingSsRatio, PacingCaRatio) in percent; None: pacing off.
NS3_PACING_RATIOS = {"off": None, "rtt": (100, 100), "linux": (200, 120)}


def nanos(seconds: float) -> str:
    """A time as ns-3 reads it back exactly (whole nanoseconds)."""
    return f"{int(round(seconds * 1e9))}ns"



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
        "ConnTimeout": nanos(conn_timeout(tcp)),
        "SndBufSize": str(tcp["snd_buf_bytes"]),
        "RcvBufSize": str(tcp["rcv_buf_bytes"]),
        "MinRto": nanos(tcp["min_rto_s"]),
        "ClockGranularity": nanos(tcp["clock_granularity_s"]),
        "ReTxThreshold": str(tcp["retx_threshold"]),
        "LimitedTransmit": "true" if tcp["limited_transmit"] else "false",
        "UseEcn": "On" if tcp["ecn"] else "Off",
        "DelAckCount": str(tcp["del_ack_count"]),
        "DelAckTimeout": nanos(tcp["del_ack_timeout_s"]),
    }
    return {"sender": {k: values[k] for k in _SENDER_ATTRS},
            "receiver": {k: values[k] for k in _RECEIVER_ATTRS}}


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
    if cc.get("kind") == "dctcp":
        out.update({"ns3::TcpDctcp::DctcpShiftG": float(cc["g"]),
                    "ns3::TcpDctcp::DctcpAlphaOnInit": float(cc["alpha_init"])})
    if cc.get("kind") == "bbr":
        out.update({"ns3::TcpBbr::HighGain": float(cc["high_gain"]),
                    "ns3::TcpBbr::BwWindowLength": int(cc["bw_window"]),
                    "ns3::TcpBbr::RttWindowLength": nanos(float(cc["min_rtt_window"])),
                    "ns3::TcpBbr::ProbeRttDuration": nanos(float(cc["probe_rtt_duration"])),
                    "ns3::TcpBbr::ExtraAckedRttWindowLength": int(cc["extra_acked_window"]),
                    # ns-3 caps every paced socket at 4 Gb/s by default; the engine's BBR has no cap.
                    "ns3::TcpSocketState::MaxPacingRate": "100Gb/s"})
    ratios = NS3_PACING_RATIOS[tcp["pacing"]]
    out["ns3::TcpSocketState::EnablePacing"] = ratios is not None
    if ratios is not None:
        out.update({"ns3::TcpSocketState::PacingSsRatio": ratios[0],
                    "ns3::TcpSocketState::PacingCaRatio": ratios[1],
                    "ns3::TcpSocketState::PaceInitialWindow": False})
    return out


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
            attrs.update(TargetDelay=nanos(ad["target_delay_s"]), Interval=nanos(ad["interval_s"]),
                         Top=ad["top"], Bottom=ad["bottom"], Alpha=ad["alpha"], Beta=ad["beta"])
    elif q["discipline"] == "codel":
        attrs.update(Target=q["ns3_target"], Interval=nanos(q["interval_s"]), MinBytes=q["ns3_min_bytes"],
                     UseEcn=q["ecn"], UseL4s=False)
    elif q["discipline"] == "fq-codel":
        attrs.update(Target=q["ns3_target"], Interval=nanos(q["interval_s"]), Flows=q["flows"],
                     DropBatchSize=q["drop_batch"], UseEcn=q["ecn"], Perturbation=0, UseL4s=False,
                     EnableSetAssociativeHash=False)
        if q["ns3_ce_threshold"] is not None:
            attrs["CeThreshold"] = q["ns3_ce_threshold"]
    elif q["discipline"] == "pie":
        attrs.update(
            QueueDelayReference=q["ns3_target"], Tupdate=nanos(q["t_update_s"]), A=q["alpha"], B=q["beta"],
            MaxBurstAllowance=nanos(q["max_burst_s"]), UseEcn=q["ecn"], MarkEcnThreshold=q["ecn_threshold"],
            UseDerandomization=q["derandomize"], UseCapDropAdjustment=q["cap_drop_adjustment"],
            MeanPktSize=q["mean_pktsize"], DequeueThreshold=q["dq_threshold"],
            UseDequeueRateEstimator=False, UseL4s=False,
        )
    return attrs


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
