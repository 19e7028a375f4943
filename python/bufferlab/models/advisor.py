"""The buffer advisor: every sizing rule's buffer and each model's prediction at that buffer.

Predictions (where a model applies):

* M/M/1/K (Poisson arrivals) and exact M/D/1/K (paced, constant-size packets) at offered load equal to the
  target utilization, with K = the rule's buffer: loss ``p_K`` and carried utilization ``u (1 - p_K)``.
* The TCP-equation + M/M/1/B fixed point of Enachescu et al. 2005, Sec. IV-A, with peak load
  ``N W_max / (C RTT)``.
* If :mod:`bufferlab.models.eun_wang` provides ``predict_for_advisor``, its Markov-chain prediction for the
  Eun-Wang buffer.

The Enachescu rule uses Theorem 1 when the flows' peak load ``N W_max / (C RTT)`` is below 1 (with
effective utilization ``target / peak``); on an under-provisioned link (peak >= 1) Theorem 1 does not
apply, and the rule gives the smallest buffer whose Sec. IV-A fixed point reaches the target.
"""

from __future__ import annotations

import importlib
from typing import Any, Dict, List

from bufferlab.errors import BufferLabError, LimitError
from bufferlab.models._checks import check_int, check_open_interval, check_range
from bufferlab.models.enachescu import fixed_point
from bufferlab.models.queueing import md1k_loss, mm1k_loss
from bufferlab.models.sizing import (
    BufferSize,
    bdp_packets,
    buffer_from_packets,
    enachescu_rule,
    eun_wang_rule,
    rule_of_thumb,
    sqrt_n_rule,
)
from bufferlab.units import format_value

__all__ = ["advise", "fixed_point_buffer", "format_advice", "DEFAULT_W_MAX"]

#: default window cap in packets: the paper's example (64 KB window with 1 KB packets; Enachescu et al.)
DEFAULT_W_MAX = 64.0

_EUN_WANG_MODULE = "bufferlab.models.eun_wang"

#: Largest bandwidth-delay product the advisor takes, packets (buffers stay exact integers in a float64).
MAX_BDP_PACKETS = 1e15

#: Largest per-flow bandwidth-delay product C*T (packets) for the Eun-Wang chain's prediction: the AIMD
#: cycle lasts about C*T/2 rounds and the chain's cost per round grows with C*T, so beyond this the
#: prediction is not computed.
EUN_WANG_MAX_CT = 10_000.0


def fixed_point_buffer(target: float, w_max: float, peak_load: float, max_buffer: int = 10_000_000) -> int:
    """Smallest integer B whose Sec. IV-A fixed-point utilization (Enachescu et al. 2005) is >= ``target``.

    The fixed point rises with B towards ``min(peak_load, 1)``; raises if ``target`` is above that.
    """
    t = float(check_open_interval("target", target, 0.0, 1.0))
    cap = min(float(peak_load), 1.0)
    if t > cap:
        raise BufferLabError(f"target utilization {t:g} exceeds the peak load {peak_load:g}")

    def ok(b: int) -> bool:
        return float(fixed_point(w_max, b, peak_load=peak_load).utilization) >= t - 1e-12

    if ok(0):
        return 0
    hi = 1
    while not ok(hi):
        hi *= 2
        if hi > max_buffer:
            raise BufferLabError(f"no buffer up to {max_buffer} packets reaches utilization {t:g}")
    lo = hi // 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


def _queue_predictions(k: int, load: float) -> List[Dict[str, Any]]:
    out: List[Dict[str, Any]] = []
    kk = max(int(k), 1)
    for name, fn, arrivals in (
        ("M/M/1/K", mm1k_loss, "Poisson arrivals, exponential sizes"),
        ("M/D/1/K", md1k_loss, "Poisson arrivals, constant-size packets"),
    ):
        try:
            loss = float(fn(load, kk))
        except LimitError as exc:
            out.append({"model": name, "utilization": None, "loss": None,
                        "assumption": f"not computed: {exc}"})
            continue
        out.append(
            {
                "model": name,
                "utilization": load * (1.0 - loss),
                "loss": loss,
                "assumption": f"{arrivals}, offered load {load:g}, K = {kk}",
            }
        )
    return out


def _eun_wang_prediction(flows: int, capacity_pps: float, rtt_s: float, packet_size: int) -> Dict[str, Any]:
    try:
        mod = importlib.import_module(_EUN_WANG_MODULE)
    except ModuleNotFoundError as exc:
        if exc.name == _EUN_WANG_MODULE:
            return {}
        raise
    if not hasattr(mod, "predict_for_advisor"):
        return {}
    ct = capacity_pps * rtt_s / flows
    if ct > EUN_WANG_MAX_CT:
        return {"model": "Eun-Wang chain", "utilization": None, "loss": None,
                "assumption": f"not computed: the per-flow bandwidth-delay product C*T = {ct:.3g} packets "
                              f"is above {EUN_WANG_MAX_CT:,.0f}; the chain would not mix in the advisor's "
                              "time budget"}
    try:
        res = mod.predict_for_advisor(
            flows=int(flows), capacity_pkts_per_s=float(capacity_pps), rtt_s=float(rtt_s),
            packet_size_bytes=int(packet_size),
        )
    except BufferLabError as exc:
        return {"model": "Eun-Wang chain", "utilization": None, "loss": None,
                "assumption": f"not applicable: {exc}"}
    return {
        "model": "Eun-Wang chain",
        "utilization": float(res["utilization"]),
        "loss": float(res["loss"]),
        "buffer_pkts": float(res["buffer_pkts"]),
        "assumption": "Eun & Wang 2008 doubly-stochastic Markov model (bufferlab.models.eun_wang)",
    }


def advise(
    capacity_bps: float,
    flows: int,
    rtt_s: float,
    target_utilization: float = 0.95,
    packet_size_bytes: int = 1500,
    w_max: float = DEFAULT_W_MAX,
    alpha: float = 0.2,
    epsilon: float = 0.1,
    use_eun_wang_model: bool = True,
) -> Dict[str, Any]:
    """Buffer advice for one link: each rule's buffer (packets, bytes, ms) with model predictions.

    Returns a JSON-ready dict with ``inputs``, ``derived`` (BDP, per-flow share, peak load) and ``rules``
    (one entry per rule: the :class:`~bufferlab.models.sizing.BufferSize` fields, ``droptail_limit``,
    ``predictions`` and ``notes``).
    """
    c = float(check_range("capacity", capacity_bps, 0.0, None, low_open=True))
    n = int(check_int("flows", flows, 1))
    rtt = float(check_range("rtt", rtt_s, 0.0, None, low_open=True))
    u = float(check_open_interval("target_utilization", target_utilization, 0.0, 1.0))
    pkt = int(check_int("packet_size", packet_size_bytes, 1))
    w = float(check_range("w_max", w_max, 1.0, None))
    bdp = bdp_packets(c, rtt, pkt)
    if bdp > MAX_BDP_PACKETS:
        raise LimitError(f"capacity and rtt: the bandwidth-delay product C*RTT is {bdp:.3g} packets of "
                         f"{pkt} B; the advisor handles up to {MAX_BDP_PACKETS:.0e} packets")
    capacity_pps = c / (8.0 * pkt)
    peak = n * w / bdp

    rules: List[Dict[str, Any]] = []

    def add(bs: BufferSize, notes: List[str]) -> Dict[str, Any]:
        entry = bs.to_dict()
        if bs.packets < 2:
            notes = notes + [f"{bs.packets} packet(s) is below the engine's smallest queue: DropTail limit 1 "
                             "(2 packets with the one in service)"]
        preds = _queue_predictions(bs.packets, u)
        fp = fixed_point(w, bs.packets, peak_load=peak)
        preds.append(
            {
                "model": "TCP fixed point",
                "utilization": float(fp.utilization),
                "loss": float(fp.loss),
                "assumption": f"Enachescu et al. Sec. IV-A, W_max = {w:g}, peak load {peak:.3g}",
            }
        )
        entry["predictions"] = preds
        entry["notes"] = notes
        rules.append(entry)
        return entry

    add(rule_of_thumb(c, rtt, pkt), [])
    add(sqrt_n_rule(c, rtt, n, pkt), [])

    # Enachescu et al.
    if peak < 1.0:
        theta = u / peak
        if theta < 1.0:
            add(enachescu_rule(c, w, peak, theta, pkt),
                [f"Theorem 1 with peak load {peak:.3g} and effective utilization {theta:.3g}"])
        else:
            rules.append(
                {
                    "rule": "enachescu-log",
                    "packets": None,
                    "exact_packets": None,
                    "bytes": None,
                    "delay_ms": None,
                    "droptail_limit": None,
                    "formula": "log_{1/rho}(W_max^2/(2(1-theta)))",
                    "source": "Enachescu et al. 2005, Thm 1",
                    "predictions": [],
                    "notes": [
                        f"window-limited: peak load N*W_max/(C*RTT) = {peak:.3g} is below the target {u:g}; "
                        "no buffer reaches it"
                    ],
                }
            )
    else:
        b = fixed_point_buffer(u, w, peak)
        bs = buffer_from_packets(
            "enachescu-log", b, c, pkt, "min B: TCP fixed point >= target", "Enachescu et al. 2005, Sec. IV-A"
        )
        add(bs, [f"peak load {peak:.3g} >= 1: Theorem 1 does not apply; smallest B whose Sec. IV-A fixed "
                 f"point reaches {u:g}"])

    ew = add(
        eun_wang_rule(c, n, alpha, epsilon, 12.0, pkt),
        ["assumes AQM marking with thresholds ~ N^alpha"],
    )
    if use_eun_wang_model and alpha == 0.2 and epsilon == 0.1:
        pred = _eun_wang_prediction(n, capacity_pps, rtt, pkt)
        if pred:
            ew["predictions"].append(pred)

    return {
        "inputs": {
            "capacity_bps": c,
            "flows": n,
            "rtt_s": rtt,
            "target_utilization": u,
            "packet_size_bytes": pkt,
            "w_max_pkts": w,
            "alpha": alpha,
            "epsilon": epsilon,
        },
        "derived": {
            "bdp_pkts": bdp,
            "capacity_pkts_per_s": capacity_pps,
            "per_flow_window_pkts": bdp / n,
            "peak_load": peak,
        },
        "buffer_convention": "packets = capacity incl. the packet in service; DropTail limit = packets-1",
        "rules": rules,
    }


_MODELS = ("M/M/1/K", "M/D/1/K", "TCP fixed point", "Eun-Wang chain")


def _fmt_pred(p: Dict[str, Any] | None) -> str:
    if not p or p.get("utilization") is None:
        return "-"
    return f"{format_value(p['utilization'], '{:.4f}')} / {format_value(p['loss'], '{:.2e}')}"


def format_advice(adv: Dict[str, Any]) -> str:
    """Plain-text tables for :func:`advise`."""
    from bufferlab.units import format_rate, format_size, format_time

    i, d = adv["inputs"], adv["derived"]
    lines = [
        f"Buffer advice: C = {format_rate(i['capacity_bps'])}, N = {i['flows']} flows, "
        f"RTT = {format_time(i['rtt_s'])}, packets of {i['packet_size_bytes']} B, "
        f"target utilization {i['target_utilization']:g}",
        f"BDP = {d['bdp_pkts']:.1f} packets; per-flow share {d['per_flow_window_pkts']:.3g} packets/RTT; "
        f"window cap W_max = {i['w_max_pkts']:g} packets -> peak load N*W_max/(C*RTT) = {d['peak_load']:.3g}",
        "",
        f"{'rule':<16}{'packets':>10}{'bytes':>14}{'delay ms':>12}{'DropTail limit':>16}  source",
    ]
    for r in adv["rules"]:
        if r["packets"] is None:
            lines.append(f"{r['rule']:<16}{'n/a':>10}{'-':>14}{'-':>12}{'-':>16}  {r['source']}")
            continue
        lines.append(
            f"{r['rule']:<16}{r['packets']:>10d}{format_size(r['bytes']):>14}{r['delay_ms']:>12.3f}"
            f"{r['droptail_limit']:>16d}  {r['source']}"
        )
    lines += [
        "",
        "Predicted utilization / loss at each rule's buffer (K = packets):",
        f"{'rule':<16}{'M/M/1/K':>22}{'M/D/1/K':>22}{'TCP fixed point':>22}{'Eun-Wang chain':>22}",
    ]
    for r in adv["rules"]:
        by = {p["model"]: p for p in r["predictions"]}
        lines.append(
            f"{r['rule']:<16}"
            + "".join(f"{_fmt_pred(by.get(m)):>22}" for m in _MODELS)
        )
    notes = [(r["rule"], n) for r in adv["rules"] for n in r["notes"]]
    if notes:
        lines.append("")
        lines += [f"note ({rule}): {n}" for rule, n in notes]
    lines += [
        "",
        "M/M/1/K and M/D/1/K: Poisson arrivals at offered load = target utilization; TCP fixed point:",
        "Enachescu et al. 2005 Sec. IV-A (TCP equation + M/M/1/B). Buffers include the packet in service.",
    ]
    return "\n".join(lines)

