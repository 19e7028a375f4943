"""Tsioliaridou & Tsaoussidis, "On the properties of system-wide responsive behavior" (Global Notifier):
the notification test (Sec. 4.2.1, Fig. 3), system throughput and goodput from 160 to 300 flows (Sec. 4.2.2,
Figs. 4-5), the fairness and smoothness metrics of its Sec. 4.1 (Figs. 6-13), flows leaving mid-run (Sec.
4.2.5, Figs. 14-15) and diverse RTTs (Sec. 4.2.6, Figs. 17-18), as claims T1-T12.

The senders are classic Reno (``tcp.recovery = "reno"``, no SACK: ns-2's ``Agent/TCP/Reno``, the paper's
"TCP-Reno") and the ``aimd`` controller as TCP(0.9, 0.675) over the same recovery; the routers are ``red``
(ns-2's automatic configuration, dropping or ECN-marking) and ``global-notifier`` (the same average and
probability, min_th = 2/3 max_th, marking the arrival and the whole buffer). The discipline counts, per
firing, the packets it marks and the distinct flows among them (the port's ``queue_state``), which T2 reads.
The metrics of eqs. (5)-(10) are computed from the engine's per-flow cwnd series (sampled every 0.01 s, as
the paper does) and per-flow totals; the notification times from the event trace of the router's marks and
drops (first signal per flow).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from bufferlab.reproduce.claims import (
    Claims,
    Context,
    Estimate,
    Outcome,
    Reading,
    Test,
    all_hold,
    between,
    estimate,
    exact,
    ge,
    gt,
    le,
    lt,
    paired_difference,
    ratio,
    select,
)
from bufferlab.reproduce.plotting import FigureSet
from bufferlab.reproduce.runner import Task

NAME = "global-notifier"
TITLE = ("Tsioliaridou & Tsaoussidis, \"On the properties of system-wide responsive behavior\" (Global "
         "Notifier)")

RATE = 40e6            # bottleneck, b/s
DELAY = 0.02           # bottleneck one-way propagation, s
RTT = 0.1              # every flow's base RTT in the dumbbell, s
PACKET = 1000          # bytes on the wire; 960 of payload
PAYLOAD = 960
NS2_MEAN_PKTSIZE = 500  # ns-2's Queue/RED mean_pktsize_ default: its automatic thresholds and ptc use it
SAMPLE = 0.01          # the paper's cwnd sampling interval, s
START_SPREAD = 2.0     # all senders start within the first 2 s
T0 = START_SPREAD      # eq. (7)'s averages run from t0, when every flow has started
DURATION = 100.0       # "Simulation time is fixed to 100 seconds"
WARMUP = 10.0
FLOWS = list(range(160, 301, 20))
E1_FLOWS = 200
E1_DURATION = 30.0     # E1's runs: the first 30 s, the router's marks and drops traced
LEAVING = [30, 60, 90, 120, 150]
HETERO_RTT = ("40ms", "160ms")
SLOTS = (0.01, 0.1, 1.0)
RATES = (20e6, 60e6, 100e6)   # the link-rate readings (40 Mb/s is the principal)
RATE_FLOWS = (160, 220, 300)
READING_FLOWS_QUICK = (160, 200, 300)   # the E2 readings in quick mode (T8 reads 200 flows)
CURVE = np.round(np.arange(0.0, E1_DURATION + 1e-9, 0.1), 1)   # Fig. 3's time grid, s

#: The paper's configurations and the RED/ECN variant: sender, router, ECN.
CONFIGS: Dict[str, Tuple[str, str, bool]] = {
    "red": ("reno", "red", False),          # TCP-Reno + RED, the paper's baseline (drops)
    "red-ecn": ("reno", "red", True),       # TCP-Reno (ECN) + RED/ECN: the same test, the arrival marked
    "reno-gn": ("reno", "gn", True),        # TCP-Reno (ECN) + GN
    "aimd-gn": ("aimd", "gn", True),        # TCP(0.9, 0.675) + GN
}
LABELS = {"red": "TCP-Reno + RED", "red-ecn": "TCP-Reno + RED/ECN", "reno-gn": "TCP-Reno + GN",
          "aimd-gn": "TCP(0.9, 0.675) + GN"}
PAPER_CONFIGS = ("red", "reno-gn", "aimd-gn")
GN_CONFIGS = ("reno-gn", "aimd-gn")


@dataclass(frozen=True)
class Setting:
    """What the paper leaves open: the TCP ("reno": classic Reno recovery without SACK; "newreno-sack"),
    RED's units ("bytes": ns-2 from Oct. 2004, the queue and thresholds in bytes of 500-B mean packets;
    "packets": ns-2 before), GN's max_th (None: RED's) and the bottleneck rate."""

    tcp: str = "reno"
    red: str = "bytes"
    gn_max_th: Optional[float] = None
    rate: float = RATE


BASE = Setting()
NEWRENO = Setting(tcp="newreno-sack")
RED_PACKETS = Setting(red="packets")
#: GN's thresholds as high as the buffer allows: the forced-drop line 2·max_th at the buffer (the BDP).
GN_HIGH = Setting(gn_max_th=RATE * RTT / (8 * PACKET) / 2)

PRINCIPAL = ("ns-2 defaults of 2005 (RED gentle, automatic thresholds, queue in bytes), TCP-Reno with "
             "classic Reno recovery and no SACK, 40 Mb/s with 100-ms RTTs")
#: The other readings, as the claims tables name them.
R_NEWRENO = "TCP: NewReno with SACK (RFC 6675)"
R_PACKETS = "RED in packets (ns-2 before Oct. 2004: thresholds 25/75 packets, max_p 0.1)"
R_GN_HIGH = "GN thresholds as high as the buffer allows (2·max_th = buffer: 167/250 packets)"
R_ECN = "RED/ECN baseline (RED's test marking the arrival)"
R_DROPPING = "dropping RED baseline (the paper's Sec. 4.2.2 comparison)"
R_ANY = "every router signal counts (marks and drops of any reason)"


def rate_reading(rate: float) -> str:
    return f"bottleneck {rate / 1e6:g} Mb/s (BDP {rate * RTT / (8 * PACKET):.0f} packets)"


CHOICES = [
    "TCP-Reno is classic Reno: the paper runs \"TCP-Reno\" in \"the *ns* network simulator\" (Sec. 4.2, "
    "4.2.2), ns-2's Agent/TCP/Reno, whose fast recovery ends at the first new ACK and which has no SACK: "
    "`tcp.recovery = \"reno\"`, `sack = false`, initial window 2 (ns-2's windowInit_ since 2001), minimum "
    "RTO 200 ms (ns-2's minrto_ since 2004), no delayed ACKs (TCPSink). TCP(0.9, 0.675) is `aimd` with "
    "increase 0.9 and decrease 0.675 from cwnd (\"increasing and decreasing the window with a factor of 0.9 "
    "and 0.675\", Sec. 1) over the same recovery, with ns-2's first-decrease halving (`ns2_halving`); ECN "
    "senders reduce at most once per RTT (ns-2's TcpAgent::ecn()). Reading: NewReno with SACK (the "
    "engine's default, this reproduction's earlier choice). ns-2's receiver window (window_ 20) is not "
    "modelled.",
    f"RED is ns-2's default configuration of the paper's time (the paper says only \"classic RED\", Sec. "
    "4, and \"we keep p_a as in RED\", Sec. 3.1; its funding, PENED 2003, and its latest reference, 2003, "
    "place the runs in ns-2.28 or later, Feb. 2005 on): gentle_, wait_, automatic thresholds (thresh_ = "
    "maxthresh_ = 0: min_th = max(5, targetdelay 5 ms · ptc / 2) = 25 and max_th = 3·min_th = 75 mean-size "
    "packets of mean_pktsize_ 500 B, ptc = C / (8·500 B)), q_weight_ = -1 (w_q = 1 − exp(−1/(10·0.1 s·ptc)) "
    "= 1.0e-4), linterm_ 10 (max_p 0.1), and since Oct. 2004 queue_in_bytes_ and bytes_: the average and "
    f"the thresholds in bytes (12.5 and 37.5 of our {PACKET}-byte packets) and the probability scaled by "
    f"size / mean_pktsize_ = {PACKET / NS2_MEAN_PKTSIZE:g} (max_p 0.2 here; the gentle line above max_th "
    "is then 0.2 + 0.8·x where ns-2's is 2·(0.1 + 0.9·x), capped at 1). Reading: the packet-mode defaults "
    "of ns-2.27 and before (25/75 packets, max_p 0.1), this reproduction's earlier choice. Not modelled: "
    "ns-2 RED/ECN drops instead of marking above max_th (use_mark_p_), and its byte-mode buffer of "
    "queue-limit × 500 B.",
    "GN keeps RED's average, weight, max_p and max_th and takes min_th = 2/3·max_th (\"a good value for "
    "the min_th is around 2/3 of the max_th\" and \"a higher value for min_th could assist in avoiding "
    "link under-utilization\", Sec. 3.1): 25 and 37.5 packets; gentle p_b up to 2·max_th, forced drops "
    "above (\"the current average queue size has exceeded the 2·max_th the packet is being discarded\"). "
    "The paper gives no absolute thresholds (\"the values of max_th − min_th are reconsidered\"); reading: "
    "thresholds as high as the buffer allows, the forced-drop line 2·max_th at the buffer (min_th 167, "
    "max_th 250 packets), after the same words.",
    f"Dumbbell: bottleneck {RATE / 1e6:g} Mb/s with {DELAY * 1e3:g} ms one-way delay, every flow's base "
    f"RTT {RTT * 1e3:g} ms, {PACKET}-byte packets (ns-2's packetSize_), buffer = BDP (\"The queue buffer "
    "size is set based on the Bandwidth X Delay product\", Sec. 4.2) = 500 packets. The paper gives no "
    "rate and no delay: \"a scenario of high contention\" (Sec. 4.2.2) is read as a per-flow share of a "
    "few packets (the BDP per flow is 3.1 packets at 160 flows and 1.7 at 300). Its one hint, \"0.01 sec, "
    "a time-slot scale that corresponds to 2-3 RTTs\" (Sec. 4.1), would make the RTT 3-5 ms: at any rate "
    "we can run, 160-300 flows would then hold a fraction of a packet each and the link could never be "
    "under-utilized, which the paper's own Sec. 4.2.2 reports; so the RTT is ours. Readings: 20, 60 and "
    "100 Mb/s (BDP per flow ×0.5, ×1.5, ×2.5) at 160, 220 and 300 flows.",
    "The paper's baseline drops (\"RED-triggered packet drops. GN applies marking instead\", Sec. 4.2.2): "
    "TCP-Reno + RED is dropping RED. RED/ECN with ECN Reno (the same test, only the arrival marked) runs "
    "beside it: the reading for T1 and T7, and T12's baseline.",
    "Flows start uniformly over [0, 2] s (\"all senders start transmitting packets within the first 2 "
    "seconds\", Sec. 4.2); 100-s runs (\"Simulation time is fixed to 100 seconds\"), statistics over [10, "
    "100] s. Throughput = payload delivered to the receivers, retransmissions included; goodput = new "
    "in-order payload (both summed over the flows, Mb/s); utilization = the bottleneck's busy fraction.",
    "E1 (\"how long it takes with RED and with GN to notify all flows about incipient congestion\", Sec. "
    "4.2.1): a flow is notified when the router first gives it an early signal, RED's test (a GN mark, a "
    "RED early drop or mark), read from the router's event trace of 30-s runs (the router's clock); "
    "forced and overflow drops are the congestion itself, not its incipient notice. Reading: every signal "
    "counts, marks and drops of any reason. TCP-Reno on both routers (E1 precedes the change of AIMD "
    "parameters in Sec. 4.2.2).",
    "T2 (\"notifies up to 45% of flows simultaneously\", Sec. 1): the distinct flows whose packets one GN "
    "firing marks, over the number of flows; the largest over the run, the paper's 160-300 flows and both "
    "GN senders, per seed.",
    "ShortTermFairness (eq. 5) takes x_i(t) = flow i's mean cwnd over the slot: the engine keeps no per-flow "
    "throughput per slot, and with equal base RTTs and one shared queue the rate cwnd/RTT differs from cwnd "
    "by a factor common to all flows, which Jain's index ignores. Only flows that have started count. The "
    "slot is 0.01 s (the paper's sampling interval); its max and min are those of the 1-s averages over "
    "[10, 100] s. WorstCaseFairness (eq. 6) uses the flows' whole-run throughputs. Eq. (7)'s averages "
    "awnd_i run from t0 = 2 s; both deviations (eqs. 7, 8) are time-averaged over [10, 100] s.",
    "E5: the departing flows stop at 50 s (the paper gives no time); throughput and goodput over [50, 100] "
    "s. E6: base RTTs uniform in [40, 160] ms (mean 100 ms, the E2 BDP; Fig. 16's topology is not "
    "described).",
    "Quick mode runs the principal design unchanged (the same scenarios, durations and points, fewer "
    "seeds); the other readings at 160, 200 and 300 flows only, the link rates at 160 and 300.",
]


# ------------------------------------------------------------------------------------------- scenarios


def ns2_red_auto(rate_bps: float, delay_s: float,
                 mean_pktsize: float = NS2_MEAN_PKTSIZE) -> Tuple[float, float, float]:
    """ns-2's automatic RED configuration (``queue/red.cc`` initialize_params), in mean-size packets:
    (min_th, max_th, w_q)."""
    ptc = rate_bps / (8.0 * mean_pktsize)
    min_th = max(5.0, 0.005 * ptc / 2.0)
    rtt = max(0.1, 3.0 * (delay_s + 1.0 / ptc))
    return min_th, 3.0 * min_th, 1.0 - math.exp(-1.0 / (10.0 * rtt * ptc))


def red_parameters(setting: Setting) -> Dict[str, float]:
    """RED's thresholds (in our packets), weight and max_p under ``setting``'s units: ns-2's byte mode
    counts a 1000-B packet as two mean-size packets in the thresholds and doubles its probability."""
    lo, hi, w = ns2_red_auto(setting.rate, DELAY)
    if setting.red == "bytes":
        scale = NS2_MEAN_PKTSIZE / PACKET
        return {"min_th": lo * scale, "max_th": hi * scale, "weight": w,
                "max_p": min(1.0, 0.1 * PACKET / NS2_MEAN_PKTSIZE)}
    if setting.red == "packets":
        return {"min_th": lo, "max_th": hi, "weight": w, "max_p": 0.1}
    raise ValueError(f"RED units {setting.red!r}")


def buffer_packets(rate_bps: float) -> int:
    """The BDP in packets: the buffer."""
    return int(round(rate_bps * RTT / (8 * PACKET)))


def queue(router: str, ecn: bool, setting: Setting = BASE) -> Dict[str, Any]:
    """The bottleneck's discipline: RED (dropping or marking) or GN with min_th = 2/3 max_th."""
    p = red_parameters(setting)
    q: Dict[str, Any] = {"limit": buffer_packets(setting.rate), "weight": p["weight"], "max_p": p["max_p"],
                         "mean_pktsize": f"{NS2_MEAN_PKTSIZE}B"}
    if router == "red":
        return {"discipline": "red", "min_th": p["min_th"], "max_th": p["max_th"], "ecn": ecn, **q}
    max_th = p["max_th"] if setting.gn_max_th is None else setting.gn_max_th
    return {"discipline": "global-notifier", "min_th": 2.0 * max_th / 3.0, "max_th": max_th, **q}


def tcp(kind: str, ecn: bool, setting: Setting = BASE) -> Dict[str, Any]:
    cc: Any = "newreno" if kind == "reno" else {"kind": "aimd", "increase": 0.9, "decrease": 0.675,
                                                "reduce_from": "cwnd", "ns2_halving": True}
    out = {"congestion_control": cc, "packet_size": f"{PACKET}B", "initial_window": 2, "ecn": ecn,
           "ecn_response": "once-per-rtt"}
    if setting.tcp == "reno":
        out.update(recovery="reno", sack=False)
    elif setting.tcp == "newreno-sack":
        out.update(sack=True)
    else:
        raise ValueError(f"TCP {setting.tcp!r}")
    return out


def scenario(config: str, n: int, setting: Setting = BASE, *, rtt: Any = None, leaving: int = 0,
             cwnd: bool = False, duration: float = DURATION, warmup: Optional[float] = None,
             trace: bool = False) -> Dict[str, Any]:
    """One run of the paper's dumbbell: ``n`` flows of ``config`` (a key of :data:`CONFIGS`); ``leaving`` of
    them stop halfway through the run (E5); ``rtt`` (low, high) for uniform RTTs (E6); ``trace`` records
    the router's marks and drops (E1)."""
    kind, router, ecn = CONFIGS[config]
    warmup = (duration / 2 if leaving else WARMUP) if warmup is None else warmup
    rtts = {"uniform": list(rtt)} if isinstance(rtt, tuple) else f"{RTT * 1e3:g}ms"
    start = {"uniform": ["0s", f"{START_SPREAD:g}s"]}
    groups: List[Dict[str, Any]] = [{"name": "flows", "count": n - leaving, "rtt": rtts, "start": start}]
    if leaving:
        groups.append({"name": "leaving", "count": leaving, "rtt": rtts, "start": start,
                       "stop": f"{duration / 2:g}s"})
    sc: Dict[str, Any] = {
        "name": f"global-notifier-{config}",
        "duration": f"{duration:g}s", "warmup": f"{warmup:g}s",
        "bottleneck": {"rate": f"{setting.rate:.10g}bps", "delay": f"{DELAY * 1e3:g}ms",
                       "queue": queue(router, ecn, setting)},
        "flows": groups,
        "tcp": tcp(kind, ecn, setting),
    }
    if cwnd:
        sc["monitor"] = {"sample_interval": f"{SAMPLE * 1e3:g}ms", "cwnd": True}
    if trace:
        sc["trace"] = {"events": True, "kinds": ["mark", "drop"], "ports": ["bottleneck"], "max_events": 5e6}
    return sc


# ------------------------------------------------------------------------------------------- metrics


def jain(x: np.ndarray) -> np.ndarray:
    """Jain's index over the last axis, NaN entries (flows not started) left out."""
    x = np.asarray(x, dtype=float)
    cnt = np.sum(~np.isnan(x), axis=-1)
    s = np.nansum(x, axis=-1)
    s2 = np.nansum(x * x, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((cnt > 0) & (s2 > 0), s * s / (cnt * s2), np.nan)


def short_term_fairness(cw: np.ndarray, per: int) -> np.ndarray:
    """Eq. (5)'s per-slot Jain index, x_i(t) = flow i's mean cwnd over slots of ``per`` samples
    (``cw``: samples × flows, NaN before a flow starts)."""
    m = (cw.shape[0] // per) * per
    with np.errstate(invalid="ignore"):
        x = np.nanmean(cw[:m].reshape(-1, per, cw.shape[1]), axis=1) if per > 1 else cw[:m]
    return jain(x)


def max_avg_cwnd_deviation(cw: np.ndarray) -> np.ndarray:
    """Eq. (7) with eq. (9): max_i |SystemAvgCwnd(t) − awnd_i(t)|, awnd_i(t) the time-average of flow i's
    cwnd from the first sample of ``cw`` to t."""
    awnd = np.cumsum(cw, axis=0) / np.arange(1, cw.shape[0] + 1)[:, None]
    return np.max(np.abs(awnd - awnd.mean(axis=1, keepdims=True)), axis=1)


def max_cwnd_deviation(cw: np.ndarray) -> np.ndarray:
    """Eq. (8) with eq. (10): max_i |avg_cwnd(t) − cwnd_i(t)| at every sample."""
    return np.max(np.abs(cw - cw.mean(axis=1, keepdims=True)), axis=1)


def worst_case_fairness(throughputs: Sequence[float]) -> float:
    """Eq. (6): min_i throughput_i / max_i throughput_i."""
    x = np.asarray(throughputs, dtype=float)
    return float(x.min() / x.max()) if x.size and x.max() > 0 else math.nan


def first_signals(events: Any, flows: int) -> Dict[str, np.ndarray]:
    """Per flow, the time of the router's first early signal (a mark, or an early drop: RED's test), and
    of its first signal of any kind (marks and drops of every reason); NaN where none came."""
    out = {}
    if len(events):
        kind = events["kind"].to_numpy()
        reason = events["reason"].astype(object).to_numpy()
        early = (kind == "mark") | ((kind == "drop") & (reason == "early"))
        masks = {"early": early, "any": np.isin(kind, ["mark", "drop"])}
    else:
        masks = {"early": np.zeros(0, bool), "any": np.zeros(0, bool)}
    for name, m in masks.items():
        t = np.full(flows, np.nan)
        if m.any():
            sel = events[m].dropna(subset=["flow"])
            first = sel.groupby("flow")["time_s"].min()
            idx = first.index.to_numpy(dtype=int)
            ok = (idx >= 0) & (idx < flows)
            t[idx[ok]] = first.to_numpy()[ok]
        out[name] = t
    return out


def _notify_state(res: Any) -> Dict[str, float]:
    """GN's per-firing counts from the port's ``queue_state`` (empty for RED)."""
    state = res.ports.iloc[0]["queue_state"] if len(res.ports) else {}
    return {k: float(v) for k, v in dict(state or {}).items() if k.startswith("notify_")}


def totals(res: Any) -> Dict[str, Any]:
    """System throughput and goodput (payload, b/s), worst-case fairness, timeouts and GN's per-firing
    counts."""
    fl = res.flows
    return {"throughput_bps": float(fl["throughput_bps"].sum()),
            "goodput_bps": float(fl["goodput_bps"].sum()),
            "worst_case": worst_case_fairness(fl["throughput_bps"]),
            "timeouts": int(fl["timeouts"].sum()), "flows": int(len(fl)), **_notify_state(res)}


def notification(res: Any) -> Dict[str, Any]:
    """E1: :func:`totals`, and from the router's trace the seconds until every flow (and 95 % of them) had
    its first early signal and its first signal of any kind (None: not within the run), and the share of
    the flows notified on :data:`CURVE`."""
    out = totals(res)
    n = int(len(res.flows))
    for name, t in first_signals(res.events, n).items():
        done = np.isfinite(t)
        k = math.ceil(0.95 * n)
        out[f"all_{name}"] = float(np.max(t)) if n and done.all() else None
        out[f"p95_{name}"] = float(np.sort(t[done])[k - 1]) if n and done.sum() >= k else None
        out[f"notified_{name}"] = int(done.sum())
        tt = np.where(done, t, np.inf)
        out[f"curve_{name}"] = [round(float(np.mean(tt <= c)), 4) for c in CURVE]
    return out


def _cwnd(res: Any) -> Tuple[np.ndarray, np.ndarray]:
    cw = res.cwnd_series
    t = cw["time_s"].to_numpy()
    v = np.array(cw.drop(columns=["time_s"]).to_numpy(dtype=float), copy=True)
    starts = res.flows["start_s"].to_numpy()
    v[t[:, None] < starts[None, :]] = np.nan
    return t, v


def fairness(res: Any) -> Dict[str, Any]:
    """:func:`totals` and the fairness and smoothness metrics of eqs. (5)-(10) over [warm-up, end]."""
    out = totals(res)
    t, v = _cwnd(res)
    warm = float(res.summary.get("warmup_s", WARMUP))
    keep = t >= warm - 1e-9
    for slot in SLOTS:
        per = int(round(slot / SAMPLE))
        out[f"stf_{slot:g}"] = float(np.nanmean(short_term_fairness(v[keep], per)))
    stf = short_term_fairness(v[keep], 1)
    sec = np.nanmean(stf[: (len(stf) // 100) * 100].reshape(-1, 100), axis=1)
    out["stf_max"], out["stf_min"] = float(np.nanmax(sec)), float(np.nanmin(sec))
    after = t >= T0 - 1e-9
    dev7 = max_avg_cwnd_deviation(v[after])
    out["max_avg_dev"] = float(dev7[t[after] >= warm - 1e-9].mean())
    out["max_dev"] = float(np.nanmean(max_cwnd_deviation(v[keep])))
    out["cwnd_mean"] = float(np.nanmean(v[keep]))
    # Eq. (5) over the start-up: mean per-slot Jain over [0, 2) and [2, 10) s (T6's "after the 2nd sec").
    full = short_term_fairness(v, 1)
    tt = t[: len(full)]
    out["stf_before"] = float(np.nanmean(full[tt < T0 - 1e-9]))
    out["stf_after"] = float(np.nanmean(full[(tt >= T0 - 1e-9) & (tt < warm - 1e-9)]))
    return out


def _bins(t: np.ndarray, y: np.ndarray, width: float, lo: float,
          hi: float) -> Tuple[List[float], List[float]]:
    """Means of ``y`` over bins of ``width`` from lo to hi (bin centres, values)."""
    edges = np.arange(lo, hi + 1e-9, width)
    xs, ys = [], []
    for a, b in zip(edges[:-1], edges[1:]):
        m = (t >= a - 1e-9) & (t < b - 1e-9)
        if m.any() and np.isfinite(y[m]).any():
            xs.append(round(float((a + b) / 2), 4))
            ys.append(round(float(np.nanmean(y[m])), 5))
    return xs, ys


def fairness_series(res: Any) -> Dict[str, Any]:
    """:func:`fairness` and the time series of the figures: Jain per 0.01 s slot (0.1-s means to 20 s, 1-s
    means to the end) and both deviations (1-s means)."""
    out = fairness(res)
    t, v = _cwnd(res)
    stf = short_term_fairness(v, 1)
    end = float(t[-1])
    out["stf_fine_t"], out["stf_fine"] = _bins(t[: len(stf)], stf, 0.1, 0.0, 20.0)
    out["stf_t"], out["stf_series"] = _bins(t[: len(stf)], stf, 1.0, 0.0, math.floor(end))
    after = t >= T0 - 1e-9
    out["dev_t"], out["max_avg_dev_series"] = _bins(t[after], max_avg_cwnd_deviation(v[after]), 1.0, T0,
                                                    math.floor(end))
    _, out["max_dev_series"] = _bins(t[after], max_cwnd_deviation(v[after]), 1.0, T0, math.floor(end))
    return out


# ------------------------------------------------------------------------------------------- experiments

#: The E2 experiments of the readings: their setting, the configurations they run, and whether they sample
#: the windows (the fairness and smoothness claims read them).
E2_READINGS: Dict[str, Tuple[Setting, Tuple[str, ...], bool]] = {
    "e2_newreno": (NEWRENO, tuple(CONFIGS), True),
    "e2_red_packets": (RED_PACKETS, tuple(CONFIGS), True),
    "e2_gn_high": (GN_HIGH, GN_CONFIGS, False),
}
#: E1 under the other readings: their setting, the configurations.
E1_READINGS: Dict[str, Tuple[Setting, Tuple[str, ...]]] = {
    "e1_newreno": (NEWRENO, ("red", "reno-gn")),
    "e1_red_packets": (RED_PACKETS, ("red", "red-ecn", "reno-gn")),
}


def experiments(quick: bool, seeds: int) -> Dict[str, List[Task]]:
    """Every experiment's runs. The principal reading's (e1, e2, e5, e6) are the same in quick mode."""
    s = range(1, seeds + 1)
    ex: Dict[str, List[Task]] = defaultdict(list)
    here = __name__
    # E1: 200 flows, the router's marks and drops traced over the first 30 s.
    for name, (setting, configs) in {"e1": (BASE, tuple(CONFIGS)), **E1_READINGS}.items():
        for config in configs:
            for seed in s:
                sc = scenario(config, E1_FLOWS, setting, duration=E1_DURATION, warmup=0.0, trace=True)
                ex[name].append(Task(sc, seed, {"config": config, "n": E1_FLOWS},
                                     extract=f"{here}:notification"))
    # E2-E4: 160-300 flows, cwnd sampled every 0.01 s; the time series kept at N = 200.
    for n in FLOWS:
        for config in CONFIGS:
            for seed in s:
                ext = "fairness_series" if n == E1_FLOWS else "fairness"
                ex["e2"].append(Task(scenario(config, n, cwnd=True), seed, {"n": n, "config": config},
                                     extract=f"{here}:{ext}"))
    for name, (setting, configs, cwnd) in E2_READINGS.items():
        for n in (READING_FLOWS_QUICK if quick else FLOWS):
            for config in configs:
                for seed in s:
                    ex[name].append(Task(scenario(config, n, setting, cwnd=cwnd), seed,
                                         {"n": n, "config": config},
                                         extract=f"{here}:{'fairness' if cwnd else 'totals'}"))
    for rate in RATES:
        for n in ((160, 300) if quick else RATE_FLOWS):
            for config in PAPER_CONFIGS:
                for seed in s:
                    ex["e2_rates"].append(Task(scenario(config, n, Setting(rate=rate)), seed,
                                               {"n": n, "config": config, "rate": rate},
                                               extract=f"{here}:totals"))
    # E5: 300 flows, some leave halfway.
    for k in LEAVING:
        for config in PAPER_CONFIGS:
            for seed in s:
                ex["e5"].append(Task(scenario(config, 300, leaving=k), seed, {"leaving": k, "config": config},
                                     extract=f"{here}:totals"))
    # E6: heterogeneous RTTs.
    for n in FLOWS:
        for config in PAPER_CONFIGS:
            for seed in s:
                ex["e6"].append(Task(scenario(config, n, rtt=HETERO_RTT), seed, {"n": n, "config": config},
                                     extract=f"{here}:totals"))
    return dict(ex)


# ------------------------------------------------------------------------------------------- selections

Records = Sequence[Dict[str, Any]]




def _value(r: Dict[str, Any], key: str) -> Optional[float]:
    v = r.get("extra", {}).get(key, r["summary"].get(key))
    return None if v is None else float(v)


def _by_seed(records: Records, key: str, **labels: Any) -> Dict[int, float]:
    """``extra[key]`` (or ``summary[key]``) of the runs matching ``labels``, by seed."""
    out = {}
    for r in select(records, **labels):
        v = _value(r, key)
        if v is not None and math.isfinite(v):
            out[r["seed"]] = v
    return out


def _est(records: Records, key: str, scale: float = 1.0, **labels: Any) -> Estimate:
    """The estimate over seeds of ``key`` of the runs matching ``labels``."""
    return estimate([v * scale for v in _by_seed(records, key, **labels).values()])


def _mbps(records: Records, key: str, **labels: Any) -> Estimate:
    return _est(records, key, 1e-6, **labels)


def _paired(records: Records, key: str, a: Dict[str, Any], b: Dict[str, Any], scale: float = 1.0,
            fn: Optional[Callable[[Dict[str, Any]], Optional[float]]] = None,
            other: Optional[Records] = None) -> Estimate:
    """Mean over seeds of (value under labels ``a``) − (value under ``b``), the same seed paired (the same
    start times: common random numbers); ``other`` holds ``b``'s runs when they are in another experiment."""
    get = fn or (lambda r: _value(r, key))
    xa = {r["seed"]: get(r) for r in select(records, **a)}
    xb = {r["seed"]: get(r) for r in select(other if other is not None else records, **b)}
    seeds = sorted(k for k in xa if k in xb and xa[k] is not None and xb[k] is not None)
    return paired_difference([xa[k] * scale for k in seeds], [xb[k] * scale for k in seeds])


def _ns(records: Records) -> List[int]:
    return sorted({r["labels"]["n"] for r in records})


def _gp_ratio(r: Dict[str, Any]) -> Optional[float]:
    x = r.get("extra", {})
    return x["goodput_bps"] / x["throughput_bps"] if x.get("throughput_bps") else None


def _cap(rate: float = RATE) -> float:
    """The payload capacity, Mb/s."""
    return rate * PAYLOAD / PACKET / 1e6


def _failing(tests: Sequence[Test], result: str = "differs") -> List[str]:
    return [t.quantity for t in tests if t.result == result]


def _listed(names: Sequence[str], most: int = 4) -> str:
    return "; ".join(names[:most]) + (f" (and {len(names) - most} more)" if len(names) > most else "")


def _why(tests: Sequence[Test], cause: str) -> str:
    """The reason of a verdict that is not "holds": the failing and undecided tests, then the cause."""
    bad, open_ = _failing(tests), _failing(tests, "inconclusive")
    parts = []
    if bad:
        parts.append("differs at " + _listed(bad))
    if open_:
        parts.append("undecided at " + _listed(open_))
    return ". ".join(parts) + (f". {cause}" if cause else "")




def _other_tcp_red(ctx: Context, tests: Callable[[Records], List[Test]]) -> List[Reading]:
    """The same tests under the NewReno-with-SACK and the packet-mode RED readings (their E2 runs)."""
    return [Reading(R_NEWRENO, tests(ctx["e2_newreno"])), Reading(R_PACKETS, tests(ctx["e2_red_packets"]))]


# ------------------------------------------------------------------------------------------- claims

CLAIMS = Claims()


def t1_tests(e1: Records, baseline: str = "red", signal: str = "early") -> List[Test]:
    """GN's time until every flow has had a signal, and RED's over GN's. A seed where some flow had none
    within the run counts the run's length (RED's time is then a lower bound)."""
    def times(config: str) -> List[float]:
        out = []
        for r in select(e1, config=config):
            v = r["extra"].get(f"all_{signal}")
            out.append(E1_DURATION if v is None else v)
        return out

    gn, red = times("reno-gn"), times(baseline)
    what = "first early signal" if signal == "early" else "first signal of any kind"
    return [Test(f"GN: seconds until all {E1_FLOWS} flows had their {what}", estimate(gn), le(2.5)),
            Test(f"{LABELS[baseline].replace('TCP-Reno + ', '')} over GN: that time's ratio",
                 ratio(red, gn), ge(4.0))]


def _t1_why(e1: Records, tests: Sequence[Test], baseline: str = "red") -> str:
    p95 = {c: estimate([r["extra"]["p95_early"] if r["extra"].get("p95_early") is not None else E1_DURATION
                        for r in select(e1, config=c)]) for c in (baseline, "reno-gn")}
    gn, red = tests[0].est, tests[1].est
    cause = (f"RED reaches 95 % of the flows in {p95[baseline].mean:.2f} s and GN in "
             f"{p95['reno-gn'].mean:.2f} s: the 200 slow starts fill the buffer and lift RED's average "
             "through its gentle region (max_th to 2·max_th), where RED drops (or marks) a large share of "
             "the arrivals, so RED too reaches nearly every flow during the start-up; GN's last flows wait "
             "for a firing while they have a packet in the buffer. The readings show the result moving "
             "with RED's thresholds (packet mode) and with the baseline's signal (RED/ECN)")
    if tests[0].result != "holds" and gn.mean > 2.5:
        cause = (f"GN itself needs {gn.mean:.2f} s: its early marks stop while the average is above "
                 "2·max_th (every arrival is then a forced drop) during the start-up; " + cause)
    return _why(tests, cause) if red.defined or gn.defined else "no E1 runs"


@CLAIMS.claim("T1", "E1, N = 200: GN notifies every flow within the first 2 s, RED needs 8 s",
              paper="\"GN notifies all senders in the first 2 seconds, while RED needs 8 seconds\" (derived: "
                    "GN ≤ 2.5 s, the last start at 2 s plus a quarter second; RED/GN ≥ 4 = 8 s / 2 s)",
              where="Sec. 4.2.1, Fig. 3")
def t1(ctx: Context) -> Outcome:
    e1 = ctx["e1"]
    tests = t1_tests(e1)
    alts = [Reading(R_ECN, t1_tests(e1, "red-ecn")), Reading(R_ANY, t1_tests(e1, signal="any"))]
    alts += [Reading(R_PACKETS, t1_tests(ctx["e1_red_packets"])),
             Reading(R_PACKETS + ", " + R_ECN, t1_tests(ctx["e1_red_packets"], "red-ecn")),
             Reading(R_NEWRENO, t1_tests(ctx["e1_newreno"]))]
    return Outcome(tests, "" if all_hold(tests) else _t1_why(e1, tests), alts)


def t2_tests(e2: Records) -> List[Test]:
    """The largest share of the flows one GN firing marked, per seed over N and both GN senders."""
    best: Dict[int, float] = {}
    for r in e2:
        if r["labels"]["config"] in GN_CONFIGS and "notify_flows_max" in r.get("extra", {}):
            share = r["extra"]["notify_flows_max"] / r["labels"]["n"]
            best[r["seed"]] = max(best.get(r["seed"], 0.0), share)
    return [Test("largest share of the flows marked by one GN firing (over 160-300 flows, both senders)",
                 estimate(list(best.values())), between(0.30, 0.675))]


@CLAIMS.claim("T2", "GN notifies up to 45 % of the flows simultaneously: the largest share of the flows "
                    "whose packets one GN firing marks",
              paper="\"notifies up to 45% of flows simultaneously\" (derived: 0.30-0.675, 45 % within a "
                    "factor 1.5, since \"the amount of notified flows depends largely on the level of "
                    "contention, buffer sizes\")", where="Sec. 1")
def t2(ctx: Context) -> Outcome:
    e2 = ctx["e2"]
    tests = t2_tests(e2)
    alts = [Reading(R_GN_HIGH, t2_tests(ctx["e2_gn_high"]))] + _other_tcp_red(ctx, t2_tests)
    why = ""
    if not all_hold(tests):
        mean = {c: estimate([r["extra"]["notify_flows_mean"] / r["labels"]["n"] for r in select(e2, config=c)
                             if "notify_flows_mean" in r.get("extra", {})]) for c in GN_CONFIGS}
        pk = estimate([r["extra"]["notify_packets_mean"] for r in select(e2, config="reno-gn", n=E1_FLOWS)
                       if "notify_packets_mean" in r.get("extra", {})])
        why = _why(tests, f"a firing marks the packets in the buffer, {pk.mean:.1f} on average at 200 flows "
                   f"(the mean share of the flows per firing is {mean['reno-gn'].mean:.3f} with TCP-Reno, "
                   f"{mean['aimd-gn'].mean:.3f} with TCP(0.9, 0.675)); GN's thresholds keep the queue at "
                   "tens of packets, a few per flow, so one firing reaches a few dozen flows at most; the "
                   "largest firings are those of the start-up, when the buffer is full of a few flows' "
                   "slow-start bursts. The share grows with the queue GN keeps: "
                   f"{t2_tests(ctx['e2_gn_high'])[0].est.mean:.2f} with GN's thresholds at the buffer's "
                   "limit, "
                   f"{t2_tests(ctx['e2_red_packets'])[0].est.mean:.2f} with the packet-mode thresholds "
                   "(readings)")
    return Outcome(tests, why, alts)


def t3_tests(e2: Records, rate: float = RATE) -> List[Test]:
    """TCP-Reno + RED against N: goodput short of capacity, goodput falling, data delivered twice rising."""
    ns = _ns(e2)
    cap = _cap(rate)
    per_seed: Dict[int, Dict[int, Dict[str, float]]] = defaultdict(dict)
    for r in select(e2, config="red"):
        x = r["extra"]
        per_seed[r["seed"]][r["labels"]["n"]] = {"g": x["goodput_bps"] / 1e6, "t": x["throughput_bps"] / 1e6}
    short, g_slope, d_slope = [], [], []
    for pts in per_seed.values():
        if len(pts) != len(ns) or len(ns) < 2:
            continue
        xs = np.asarray(ns, float)
        g = np.asarray([pts[n]["g"] for n in ns])
        d = np.asarray([pts[n]["t"] - pts[n]["g"] for n in ns])
        short.append(float(g.mean() / cap))
        g_slope.append(float(np.polyfit(xs, g, 1)[0] * 100))
        d_slope.append(float(np.polyfit(xs, d, 1)[0] * 100))
    return [Test("RED's goodput over the payload capacity, mean over N", estimate(short), lt(0.97)),
            Test("slope of RED's goodput against N (Mb/s per 100 flows)", estimate(g_slope), lt(0.0)),
            Test("slope of RED's data delivered twice (throughput − goodput) against N (Mb/s per 100 flows)",
                 estimate(d_slope), gt(0.0))]


@CLAIMS.claim("T3", "E2, TCP-Reno + RED, N 160 → 300: it fails to capture the link capacity in goodput; "
                    "goodput falls while retransmissions inflate throughput",
              paper="\"the failure of TCP-Reno, in the presence of RED, to capture link capacity\"; "
                    "\"Goodput evolves in reverse proportion to Throughput\"",
              where="Sec. 4.2.2, Figs. 4-5")
def t3(ctx: Context) -> Outcome:
    e2 = ctx["e2"]
    tests = t3_tests(e2)
    rates = ctx["e2_rates"]
    alts = [Reading(rate_reading(rate), t3_tests(select(rates, rate=rate), rate)) for rate in RATES]
    alts += _other_tcp_red(ctx, t3_tests)
    why = ""
    if not all_hold(tests):
        d = [_mbps(e2, "throughput_bps", n=n, config="red").mean - _mbps(e2, "goodput_bps", n=n,
                                                                            config="red").mean
             for n in (min(_ns(e2)), max(_ns(e2)))]
        why = _why(tests, f"RED's throughput stays at capacity and the data delivered twice goes from "
                   f"{d[0]:.2f} to {d[1]:.2f} Mb/s between {min(_ns(e2))} and {max(_ns(e2))} flows; the "
                   "direction of goodput against N moves with the link rate (the rate readings), which the "
                   "paper does not give")
    return Outcome(tests, why, alts)


def t4_tests(e2: Records) -> List[Test]:
    tests = [Test(f"TCP-Reno + GN utilization at {n} flows", _est(e2, "utilization", n=n, config="reno-gn"),
                  le(0.97)) for n in _ns(e2) if n <= 220]
    if not _ns(e2):
        return tests
    top = max(_ns(e2))
    return tests + [Test(f"TCP-Reno + GN utilization at {top} flows",
                         _est(e2, "utilization", n=top, config="reno-gn"), ge(0.98))]


@CLAIMS.claim("T4", "E2: TCP-Reno + GN under-utilizes the link at 160-220 flows and reaches the link "
                    "capacity at larger N",
              paper="\"from 160 to 220, there is some link underutilization ... As the number of flows "
                    "increases further the system reaches the link capacity\" (derived: utilization ≤ 0.97 "
                    "at 160-220, ≥ 0.98 at 300)",
              where="Sec. 4.2.2, Figs. 4-5")
def t4(ctx: Context) -> Outcome:
    e2, rates = ctx["e2"], ctx["e2_rates"]
    tests = t4_tests(e2)
    alts = [Reading(rate_reading(rate), t4_tests(select(rates, rate=rate))) for rate in RATES]
    alts += _other_tcp_red(ctx, t4_tests) + [Reading(R_GN_HIGH, t4_tests(ctx["e2_gn_high"]))]
    rate_note = ("the N at which GN reaches capacity is where the BDP per flow falls to about two packets "
                 "(the windows' floor), so it moves with the link rate, which the paper does not give: see "
                 "the readings at 20, 60 and 100 Mb/s")
    why = f"at the principal {RATE / 1e6:g} Mb/s; {rate_note}" if all_hold(tests) else _why(tests, rate_note)
    return Outcome(tests, why, alts)


def t5_tests(e2: Records, red: Optional[Records] = None) -> List[Test]:
    red = e2 if red is None else red
    ns = _ns(e2)
    tests = [Test(f"TCP(0.9, 0.675) + GN utilization at {n} flows", _est(e2, "utilization", n=n,
                                                                        config="aimd-gn"), ge(0.98))
             for n in ns]
    tests += [Test(f"goodput/throughput, TCP(0.9, 0.675) + GN − TCP-Reno + RED, {n} flows",
                   _paired(e2, "", {"n": n, "config": "aimd-gn"}, {"n": n, "config": "red"}, fn=_gp_ratio,
                           other=red), gt(0.0)) for n in ns if select(red, n=n, config="red")]
    return tests


@CLAIMS.claim("T5", "E2: TCP(0.9, 0.675) + GN never under-utilizes over 160-300 flows, and its goodput to "
                    "throughput ratio is better than TCP-Reno + RED's",
              paper="\"(i) GN cancels the occasional system underutilization ... (ii) ... GN achieves a "
                    "better Goodput to Throughput ratio when the link is over-utilized\" (derived: "
                    "utilization ≥ 0.98 at every N)",
              where="Sec. 4.2.2, Figs. 4-5")
def t5(ctx: Context) -> Outcome:
    e2, rates = ctx["e2"], ctx["e2_rates"]
    tests = t5_tests(e2)
    alts = [Reading(R_GN_HIGH, t5_tests(ctx["e2_gn_high"], e2))]
    alts += [Reading(rate_reading(rate), t5_tests(select(rates, rate=rate))) for rate in RATES]
    alts += _other_tcp_red(ctx, t5_tests)
    why = ""
    if not all_hold(tests):
        ua = {n: _est(e2, "utilization", n=n, config="aimd-gn").mean for n in _ns(e2)}
        n_low = min(ua, key=ua.get)
        p = red_parameters(BASE)
        why = _why(tests, f"TCP(0.9, 0.675) + GN leaves the link idle at low N ({ua[n_low]:.3f} at {n_low} "
                   "flows): a GN firing marks many flows at once, and their summed cut exceeds the queue "
                   f"GN's thresholds keep ({2 * p['max_th'] / 3:g}-{p['max_th']:g} of {buffer_packets(RATE)} "
                   "packets); the reading with GN's thresholds at the buffer's limit tests whether a "
                   "longer queue absorbs the cut")
    return Outcome(tests, why, alts)


def t6_tests(e2: Records) -> List[Test]:
    gn, red = {"config": "aimd-gn"}, {"config": "red"}
    tests = [Test(f"STF (eq. 5, 0.01-s slots), GN − RED, {n} flows",
                  _paired(e2, "stf_0.01", {**gn, "n": n}, {**red, "n": n}), gt(0.0)) for n in _ns(e2)]
    if select(e2, n=E1_FLOWS):
        for key, name in (("stf_max", "largest"), ("stf_min", "smallest")):
            tests.append(Test(f"{name} 1-s STF, GN − RED, {E1_FLOWS} flows",
                              _paired(e2, key, {**gn, "n": E1_FLOWS}, {**red, "n": E1_FLOWS}), gt(0.0)))
        tests.append(Test(f"STF gap (GN − RED) over [2, 10) s minus over [0, 2) s, {E1_FLOWS} flows",
                          _paired(e2, "", {**gn, "n": E1_FLOWS}, {**red, "n": E1_FLOWS},
                                  fn=lambda r: r["extra"]["stf_after"] - r["extra"]["stf_before"]), gt(0.0)))
    return tests


@CLAIMS.claim("T6", "E3: short-term fairness (eq. 5) of TCP(0.9, 0.675) + GN above TCP-Reno + RED's, its "
                    "maximum and minimum too; the gap widens after the 2nd second",
              paper="\"Short-term fairness is improved at the presence of TCP (0.9, 0.675) with GN "
                    "compared to TCP-Reno with Red\"; \"widens its gap after the 2nd sec\"",
              where="Sec. 4.2.3, Figs. 6-8")
def t6(ctx: Context) -> Outcome:
    e2 = ctx["e2"]
    tests = t6_tests(e2)
    alts = _other_tcp_red(ctx, t6_tests)
    floor = [n for n in _ns(e2) if _est(e2, "cwnd_mean", n=n, config="aimd-gn").mean <= 2.05]
    note = (f"; at {', '.join(map(str, floor))} flows every GN window sits at the 2-packet minimum (the BDP "
            "per flow is below 2), so there GN's fairness is perfect by construction" if floor else "")
    why = "" if all_hold(tests) else _why(tests, "cause unknown" + note)
    return Outcome(tests, why, alts)


def t7_tests(e2: Records, baseline: str = "red") -> List[Test]:
    name = LABELS[baseline].replace("TCP-Reno + ", "")
    return [Test(f"worst-case fairness (eq. 6), GN − {name}, {n} flows",
                 _paired(e2, "worst_case", {"n": n, "config": "aimd-gn"}, {"n": n, "config": baseline}),
                 gt(0.0)) for n in _ns(e2)]


@CLAIMS.claim("T7", "E3: worst-case fairness (eq. 6) is improved with synchronized notifications: GN above "
                    "RED",
              paper="\"worst-case fairness is improved with synchronized notifications\"",
              where="Sec. 4.2.3, Fig. 9")
def t7(ctx: Context) -> Outcome:
    e2 = ctx["e2"]
    tests = t7_tests(e2)
    alts = [Reading(R_ECN, t7_tests(e2, "red-ecn"))] + _other_tcp_red(ctx, t7_tests)
    why = "" if all_hold(tests) else _why(tests, "cause unknown")
    return Outcome(tests, why, alts)


def t8_tests(e2: Records, n: int = E1_FLOWS) -> List[Test]:
    out = []
    for key, eq in (("max_avg_dev", "7"), ("max_dev", "8")):
        gn = list(_by_seed(e2, key, n=n, config="aimd-gn").values())
        red = list(_by_seed(e2, key, n=n, config="red").values())
        name = "MaxAvgCwndDeviation" if eq == "7" else "MaxCwndDeviation"
        out.append(Test(f"{name} (eq. {eq}), GN over RED, {n} flows", ratio(gn, red), between(0.4, 0.7)))
    return out


@CLAIMS.claim("T8", "E4: GN \"almost doubles smoothness\": MaxAvgCwndDeviation (eq. 7) and MaxCwndDeviation "
                    "(eq. 8) with GN about half RED's",
              paper="\"the proposed strategy almost doubles smoothness performance\"; ratio 0.4-0.7 "
                    "(derived: a factor 1.4-2.5)",
              where="Sec. 4.2.4, Figs. 10-13")
def t8(ctx: Context) -> Outcome:
    e2 = ctx["e2"]
    tests = t8_tests(e2)
    alts = _other_tcp_red(ctx, t8_tests)
    why = ""
    if not all_hold(tests):
        wc = _est(e2, "worst_case", n=E1_FLOWS, config="red")
        nr = ctx["e2_newreno"]
        nr_tests = t8_tests(nr)
        nr_wc = _est(nr, "worst_case", n=E1_FLOWS, config="red")
        parts = []
        for t in tests:
            if t.result == "holds":
                continue
            if t.est.high < 0.4:
                parts.append(f"{t.quantity} falls to {t.est.mean:.2f}, more than the paper's halving")
            elif t.est.low > 0.7:
                parts.append(f"{t.quantity} is {t.est.mean:.2f}, less than the paper's halving")
        if parts:
            parts.append(f"RED's timeouts leave a few flows' windows far from the others (its worst-case "
                         f"fairness is {wc.mean:.2f}) and the max over the flows picks them up")
        if nr_tests[1].est.defined:
            parts.append("with NewReno and SACK (reading), where RED leaves its flows less unequal "
                         f"(worst-case fairness {nr_wc.mean:.2f}), the ratios are "
                         f"{nr_tests[0].est.mean:.2f} and {nr_tests[1].est.mean:.2f}")
        why = _why(tests, "; ".join(parts) or "cause unknown")
    return Outcome(tests, why, alts)


def t9_tests(e5: Records) -> List[Test]:
    out = []
    for k in sorted({r["labels"]["leaving"] for r in e5}):
        a, b = {"leaving": k, "config": "aimd-gn"}, {"leaving": k, "config": "red"}
        out.append(Test(f"goodput GN − RED (Mb/s), {k} of 300 leave", _paired(e5, "goodput_bps", a, b, 1e-6),
                        ge(0.0)))
        out.append(Test(f"throughput GN − RED (Mb/s), {k} of 300 leave",
                        _paired(e5, "throughput_bps", a, b, 1e-6), ge(-0.01 * _cap())))
    return out


@CLAIMS.claim("T9", "E5: 300 flows, 30-150 of them leave: TCP(0.9, 0.675) + GN keeps goodput at or above "
                    "RED's and throughput within 1 % of capacity of RED's",
              paper="no sentence (\"Figures 14 and 15 depict the corresponding results\"); Sec. 4 expects "
                    "\"better utilization\" and \"responsiveness\"",
              where="Sec. 4.2.5, Figs. 14-15; Sec. 4")
def t9(ctx: Context) -> Outcome:
    e5 = ctx["e5"]
    tests = t9_tests(e5)
    why = ""
    if not all_hold(tests):
        e2 = ctx["e2"]
        util = ", ".join(f"{_est(e2, 'utilization', n=n, config='aimd-gn').mean:.3f} at {n}"
                         for n in _ns(e2) if n <= 220)
        why = _why(tests, "the flows that remain are as few as in E2's low range, where TCP(0.9, 0.675) + GN "
                   f"leaves the link idle (E2's utilization {util} flows; T5): the same under-utilization")
    return Outcome(tests, why)


def t10_tests(e2: Records, e6: Records) -> List[Test]:
    """Each (GN sender, throughput or goodput, N): E6's GN − RED on the side of 0 where E2's lies, or, where
    E2's is a tie (its mean within ±1 % of the capacity, the band T9 uses), within that band too."""
    out = []
    tie = 0.01 * _cap()
    for cfg in GN_CONFIGS:
        for key, name in (("throughput_bps", "throughput"), ("goodput_bps", "goodput")):
            for n in _ns(e6):
                a, b = {"n": n, "config": cfg}, {"n": n, "config": "red"}
                d2, d6 = _paired(e2, key, a, b, 1e-6), _paired(e6, key, a, b, 1e-6)
                if d2.defined and d2.mean > tie:
                    region, side = gt(0.0), "> 0 as in E2"
                elif d2.defined and d2.mean < -tie:
                    region, side = lt(0.0), "< 0 as in E2"
                else:
                    region, side = between(-tie, tie), "a tie as in E2"
                label = LABELS[cfg].replace(" + GN", "")
                out.append(Test(f"{name} GN − RED with diverse RTTs, {label}, {n} flows ({side})", d6,
                                region))
    return out


@CLAIMS.claim("T10", "E6: with diverse RTTs GN compares with RED as in E2 (each sign of GN − RED kept, each "
                     "tie within 1 % of the capacity kept)",
              paper="\"similar comparative performance is exhibited here as well\"",
              where="Sec. 4.2.6, Figs. 17-18")
def t10(ctx: Context) -> Outcome:
    e2, e6 = ctx["e2"], ctx["e6"]
    tests = t10_tests(e2, e6)
    why = ""
    if not all_hold(tests):
        shift = []
        for cfg in GN_CONFIGS:
            u2 = {n: _est(e2, "utilization", n=n, config=cfg).mean for n in _ns(e6)}
            u6 = {n: _est(e6, "utilization", n=n, config=cfg).mean for n in _ns(e6)}
            full2 = min((n for n in u2 if u2[n] >= 0.99), default=None)
            full6 = min((n for n in u6 if u6[n] >= 0.99), default=None)
            shift.append(f"{LABELS[cfg]} reaches capacity from {full2} flows in E2 and from {full6} with "
                         "diverse RTTs")
        why = _why(tests, "the RTT spread moves the N at which GN reaches capacity (" + "; ".join(shift)
                   + "), so near that N the sign of GN − RED changes")
    return Outcome(tests, why)


def t11_tests(e2: Records) -> List[Test]:
    out = []
    for n in _ns(e2):
        for cfg in GN_CONFIGS:
            a, b = {"n": n, "config": cfg}, {"n": n, "config": "red"}
            label = LABELS[cfg].replace(" + GN", "")
            out.append(Test(f"STF GN − RED, {label}, {n} flows", _paired(e2, "stf_0.01", a, b), gt(0.0)))
            out.append(Test(f"MaxCwndDeviation GN − RED (packets), {label}, {n} flows",
                            _paired(e2, "max_dev", a, b), lt(0.0)))
    return out


@CLAIMS.claim("T11", "Under GN fairness and smoothness improve together: at every N, with either sender, GN "
                     "is both fairer (eq. 5) and smoother (eq. 8) than RED",
              paper="\"in the context of Global Notifier, smoothness and fairness do not follow "
                    "contradicting dynamics\"",
              where="Sec. 5")
def t11(ctx: Context) -> Outcome:
    e2 = ctx["e2"]
    tests = t11_tests(e2)
    alts = _other_tcp_red(ctx, t11_tests)
    why = ""
    if not all_hold(tests):
        fairer_rougher = []
        for n in _ns(e2):
            for cfg in GN_CONFIGS:
                a, b = {"n": n, "config": cfg}, {"n": n, "config": "red"}
                s, d = _paired(e2, "stf_0.01", a, b), _paired(e2, "max_dev", a, b)
                if (s.low > 0 and d.low > 0) or (s.high < 0 and d.high < 0):
                    fairer_rougher.append(f"{LABELS[cfg]} at {n} flows")
        trade = "a trade-off (fairer but less smooth, or the reverse) at " + ", ".join(fairer_rougher)
        why = _why(tests, trade if fairer_rougher else "cause unknown")
    return Outcome(tests, why, alts)


def t12_tests(e2: Records, baseline: str = "red-ecn") -> List[Test]:
    return [Test(f"drops per run, TCP-Reno + GN − {LABELS[baseline]}, {n} flows",
                 _paired(e2, "drops", {"n": n, "config": "reno-gn"}, {"n": n, "config": baseline}), lt(0.0))
            for n in _ns(e2) if select(e2, n=n, config=baseline)]


@CLAIMS.claim("T12", "GN discards only on a full buffer or an average above 2·max_th and so avoids packet "
                     "drops: fewer drops than RED/ECN (RED's test marking only the arrival), the same sender",
              paper="\"If the buffer is fully utilized or the current average queue size has exceeded the "
                    "2·max_th the packet is being discarded\"; \"better utilization due to avoiding packet "
                    "drops\"",
              where="Sec. 3.1; Sec. 4")
def t12(ctx: Context) -> Outcome:
    e2 = ctx["e2"]
    tests = t12_tests(e2)
    alts = [Reading(R_DROPPING, t12_tests(e2, "red"))] + _other_tcp_red(ctx, t12_tests)
    why = ""
    if not all_hold(tests):
        forced = {n: _est(e2, "drops_forced", n=n, config="reno-gn").mean for n in _ns(e2)}
        worst = max(forced, key=forced.get)
        if forced[worst] > 0:
            cwnd = _est(e2, "cwnd_mean", n=worst, config="reno-gn").mean
            wc = _est(e2, "worst_case", n=worst, config="red-ecn").mean
            line = buffer_packets(RATE) + 2 * red_parameters(BASE)["max_th"]
            cause = (f"at {worst} flows GN drops {forced[worst]:,.0f} packets per run, forced ones (the "
                     f"average above 2·max_th): every window sits at its floor (mean cwnd {cwnd:.2f}), and "
                     f"{worst} × 2 "
                     f"packets exceed the BDP plus 2·max_th ({line:g}), so no mark can bring the average "
                     "back; RED/ECN stays below that line because some of its flows sit out in timeouts (its "
                     f"worst-case fairness is {wc:.2f}). In packet mode (reading) 2·max_th is 150 packets")
        else:
            cause = "cause unknown"
        why = _why(tests, cause)
    return Outcome(tests, why, alts)


@CLAIMS.claim("T12m", "GN never drops early: every GN loss is a forced or an overflow drop (by construction)",
              paper="\"the packet is buffered and the probability p_a is being calculated\"",
              where="Sec. 3.1", model_check=True)
def t12m(ctx: Context) -> Outcome:
    early = sum(r["summary"].get("drops_early", 0) for name in ("e2", "e5", "e6") for r in ctx[name]
                if r["labels"]["config"] in GN_CONFIGS)
    runs = sum(1 for name in ("e2", "e5", "e6") for r in ctx[name] if r["labels"]["config"] in GN_CONFIGS)
    tests = [Test(f"early drops in {runs} GN runs", exact(early), le(0.0))]
    return Outcome(tests, "" if all_hold(tests) else "a GN run dropped early: a bug in the discipline")


# ------------------------------------------------------------------------------------------- sensitivity


def sensitivity(results: Dict[str, List[Dict[str, Any]]]) -> List[str]:
    """The report's tables of what the readings change, each against the principal reading."""
    e2 = results["e2"]
    lines = ["Link rate (the BDP per flow): E2's utilization and goodput (Mb/s) with RED's automatic "
             "parameters at each rate; the principal 40 Mb/s first:", "",
             "| rate | N | " + " | ".join(f"{LABELS[c]} util | goodput" for c in PAPER_CONFIGS) + " |",
             "|---|---|" + "---|---|" * len(PAPER_CONFIGS)]
    for n in RATE_FLOWS:
        lines.append(f"| {RATE / 1e6:g} Mb/s (principal) | {n} | " + " | ".join(
            f"{_est(e2, 'utilization', n=n, config=c)} | {_mbps(e2, 'goodput_bps', n=n, config=c)}"
            for c in PAPER_CONFIGS) + " |")
    rates = results.get("e2_rates", [])
    for rate in RATES:
        for n in _ns(select(rates, rate=rate)):
            lines.append(f"| {rate / 1e6:g} Mb/s | {n} | " + " | ".join(
                f"{_est(rates, 'utilization', rate=rate, n=n, config=c)} | "
                f"{_mbps(rates, 'goodput_bps', rate=rate, n=n, config=c)}" for c in PAPER_CONFIGS) + " |")
    lines += ["", "The readings at 200 flows (utilization, goodput/throughput, STF over 0.01-s slots, "
              "MaxCwndDeviation, worst-case fairness, drops per run, GN's largest firing in flows):", "",
              "| reading | configuration | utilization | goodput/throughput | STF | MaxCwndDeviation | "
              "worst case | drops | largest firing |", "|---|---|---|---|---|---|---|---|---|"]
    for name, label in (("e2", "principal"), ("e2_newreno", R_NEWRENO), ("e2_red_packets", R_PACKETS),
                        ("e2_gn_high", R_GN_HIGH)):
        recs = results.get(name, [])
        n = E1_FLOWS if select(recs, n=E1_FLOWS) else (220 if select(recs, n=220) else None)
        if n is None:
            continue
        for config in CONFIGS:
            sel = select(recs, n=n, config=config)
            if not sel:
                continue
            gp = estimate([_gp_ratio(r) for r in sel])
            big = _est(recs, "notify_flows_max", n=n, config=config)
            lines.append(f"| {label}{'' if n == E1_FLOWS else f' ({n} flows)'} | {LABELS[config]} | "
                         f"{_est(recs, 'utilization', n=n, config=config)} | {gp} | "
                         f"{_est(recs, 'stf_0.01', n=n, config=config)} | "
                         f"{_est(recs, 'max_dev', n=n, config=config)} | "
                         f"{_est(recs, 'worst_case', n=n, config=config)} | "
                         f"{_est(recs, 'drops', n=n, config=config)} | {big if big.defined else '-'} |")
    lines += ["", "E1's clock and signal: seconds until every flow (and 95 % of them) had its first early "
              "signal (a mark or an early drop) and its first signal of any kind; a seed where some flow "
              f"had none within {E1_DURATION:g} s counts {E1_DURATION:g}:", "",
              "| reading | configuration | all, early | 95 %, early | all, any | 95 %, any |",
              "|---|---|---|---|---|---|"]
    for name, label in (("e1", "principal"), ("e1_red_packets", R_PACKETS), ("e1_newreno", R_NEWRENO)):
        recs = results.get(name, [])
        for config in CONFIGS:
            sel = select(recs, config=config)
            if not sel:
                continue
            cells = []
            for key in ("all_early", "p95_early", "all_any", "p95_any"):
                vals = [r["extra"].get(key) for r in sel]
                never = sum(v is None for v in vals)
                cells.append(str(estimate([E1_DURATION if v is None else v for v in vals]))
                             + (f" ({never} of {len(vals)} not within the run)" if never else ""))
            lines.append(f"| {label} | {LABELS[config]} | " + " | ".join(cells) + " |")
    lines += ["", f"Slot length of ShortTermFairness (eq. 5) at N = {E1_FLOWS}:", "",
              "| configuration | " + " | ".join(f"{s:g} s" for s in SLOTS) + " |",
              "|---|" + "---|" * len(SLOTS)]
    for config in CONFIGS:
        lines.append(f"| {LABELS[config]} | " + " | ".join(
            str(_est(e2, f"stf_{s:g}", n=E1_FLOWS, config=config)) for s in SLOTS) + " |")
    return lines


# ------------------------------------------------------------------------------------------- figures


def _series(e2: Records, config: str, tkey: str, ykey: str) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean over seeds and 95 % half-width of a stored time series at N = 200."""
    recs = select(e2, n=E1_FLOWS, config=config)
    t = np.asarray(recs[0]["extra"][tkey])
    ys = [np.asarray(r["extra"][ykey], dtype=float) for r in recs]
    m = min(len(y) for y in ys)
    ests = [estimate([y[i] for y in ys]) for i in range(m)]
    mean = np.array([e.mean for e in ests])
    return t[:m], mean, _finite_or_zero(np.array([e.high - e.mean for e in ests]))


def _finite_or_zero(x: np.ndarray) -> np.ndarray:
    """Half-widths to draw: none where there is no interval (one seed)."""
    return np.where(np.isfinite(x), x, 0.0)


class _Figures(FigureSet):
    """Draws into ``out``: every figure saved as PNG and SVG, its (stem, caption) kept for the report."""

    STYLES = {"red": dict(color="tab:red", marker="s"), "red-ecn": dict(color="tab:orange", marker="v"),
              "reno-gn": dict(color="tab:blue", marker="o"), "aimd-gn": dict(color="tab:green", marker="^")}

    def axes(self, *grid: int, size: Tuple[float, float] = (6, 4), **kw: Any) -> Tuple[Any, Any]:
        return self.plt.subplots(*grid, figsize=size, **kw)

    def points(self, ax: Any, xs: Sequence[float], ests: Sequence[Estimate], config: str, **kw: Any) -> None:
        """Means with their 95 % intervals as error bars, in ``config``'s colour and marker."""
        kw = {"label": LABELS[config], **self.STYLES[config], **kw}
        ax.errorbar(xs, [e.mean for e in ests], yerr=_yerr(ests), ms=4, capsize=2, **kw)

    def band(self, ax: Any, e2: Records, config: str, tkey: str, ykey: str,
             clip: float = math.inf, alpha: float = 0.2, **kw: Any) -> float:
        """A stored time series at N = 200: the mean over seeds, its 95 % band; returns the band's top."""
        t, m, h = _series(e2, config, tkey, ykey)
        colour = self.STYLES[config]["color"]
        ax.plot(t, m, color=colour, label=kw.get("label", LABELS[config]), lw=1, ls=kw.get("ls", "-"))
        ax.fill_between(t, np.maximum(m - h, 0), np.minimum(m + h, clip), color=colour, alpha=alpha)
        return float(np.nanmax(m + h))


def _dress(ax: Any, xlabel: str, ylabel: str, ylim: Optional[Tuple[float, float]] = None,
           **legend: Any) -> None:
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if ylim:
        ax.set_ylim(*ylim)
    ax.grid(alpha=0.3)
    ax.legend(**{"fontsize": 8, **legend})


def _yerr(ests: Sequence[Estimate]) -> List[np.ndarray]:
    """Error bars (below, above the mean) of the 95 % intervals; none where there is no interval."""
    below = np.array([e.mean - e.low for e in ests])
    above = np.array([e.high - e.mean for e in ests])
    return [_finite_or_zero(below), _finite_or_zero(above)]


def figures(results: Dict[str, List[Dict[str, Any]]], out: Path) -> List[Tuple[str, str]]:
    """The paper's figures, drawn from the runs (means over seeds, 95 % intervals as error bars or bands);
    PNG + SVG. Returns (file stem, caption) pairs."""
    f = _Figures(out)
    e1, e2, e5, e6 = results["e1"], results["e2"], results["e5"], results["e6"]
    ns = _ns(e2)
    jain_axis = "Short-term fairness (Jain)"

    fig, axes = f.axes(1, 2, size=(11, 4))
    for ax, (lo, hi) in zip(axes, ((0, 102), (90, 100.5))):
        for config in CONFIGS:
            sel = select(e1, config=config)
            if not sel:
                continue
            curves = np.asarray([r["extra"]["curve_early"] for r in sel], dtype=float) * 100
            m = curves.mean(axis=0)
            ax.plot(CURVE, m, label=f"{LABELS[config].replace('TCP-Reno + ', '')} (first early signal)",
                    color=f.STYLES[config]["color"], lw=1.2)
            if len(curves) > 1:
                h = _finite_or_zero(np.array([estimate(curves[:, i]).high - m[i] for i in range(len(CURVE))]))
                ax.fill_between(CURVE, m - h, m + h,
                                color=f.STYLES[config]["color"], alpha=0.15)
        ax.axvline(START_SPREAD, color="grey", ls=":", lw=1)
        ax.set_xlim(0, 12)
        _dress(ax, "Time (s)", "Flows notified (% of 200)", (lo, hi), loc="lower right")
    axes[0].set_title("(a) all flows")
    axes[1].set_title("(b) the last 10 %")
    f.save(fig, "fig3", "Fig. 3: system notification, 200 flows starting over [0, 2] s: share of the flows "
           "that have had the router's first early signal (a mark or an early drop) by time t")

    cap = _cap()
    flows = ("n", "Number of flows")
    e2_caption = f"against the number of flows, {RATE / 1e6:g} Mb/s bottleneck (dotted: the payload capacity)"
    e5_caption = "over the second half of the run, after flows leave halfway through it"
    e6_caption = f"with base RTTs uniform in [{HETERO_RTT[0][:-2]}, {HETERO_RTT[1][:-2]}] ms"
    for stems, recs, (x, xlabel), caption in (
            (("fig4", "fig5"), e2, flows, e2_caption),
            (("fig14", "fig15"), e5, ("leaving", "Departing flows (of 300)"), e5_caption),
            (("fig17", "fig18"), e6, flows, e6_caption)):
        xs = sorted({r["labels"][x] for r in recs})
        for stem, key, what in zip(stems, ("throughput_bps", "goodput_bps"), ("throughput", "goodput")):
            fig, ax = f.axes()
            for config in PAPER_CONFIGS:
                f.points(ax, xs, [_mbps(recs, key, **{x: v, "config": config}) for v in xs], config)
            ax.axhline(cap, color="grey", ls=":", lw=1)
            _dress(ax, xlabel, f"System {what} (Mb/s)")
            f.save(fig, stem, f"Fig. {stem[3:]}: system {what} {caption}")

    fig, ax = f.axes(size=(7, 3.5))
    f.band(ax, e2, "red", "stf_t", "stf_series", clip=1.0)
    _dress(ax, "Time (s)", "Short-term fairness (Jain, 0.01-s slots)", (0, 1.02))
    f.save(fig, "fig6", "Fig. 6: system short-term fairness with RED over time, 200 flows (1-s means)")

    fig, ax = f.axes()
    for config in ("aimd-gn", "red"):
        for key, ls, name in (("stf_max", "--", "max"), ("stf_0.01", "-", "mean"), ("stf_min", ":", "min")):
            f.points(ax, ns, [_est(e2, key, n=n, config=config) for n in ns], config, ls=ls,
                     label=f"{LABELS[config]}, {name}")
    _dress(ax, "Number of flows", jain_axis, (0, 1.02), fontsize=7, ncol=2)
    f.save(fig, "fig7", "Fig. 7: allotted fairness: mean, max and min (over 1-s windows) of the short-term "
           "fairness against the number of flows")

    fig, ax = f.axes(size=(7, 3.5))
    for config in ("aimd-gn", "reno-gn", "red"):
        f.band(ax, e2, config, "stf_fine_t", "stf_fine", clip=1.0, alpha=0.12)
    ax.axvline(T0, color="grey", ls=":", lw=1)
    _dress(ax, "Time (s)", jain_axis, (0, 1.02))
    f.save(fig, "fig8", "Fig. 8: system allotted fairness over the first 20 s, 200 flows (0.1-s means of the "
           "0.01-s Jain index; dotted: the last start)")

    fig, ax = f.axes()
    for config in CONFIGS:
        f.points(ax, ns, [_est(e2, "worst_case", n=n, config=config) for n in ns], config)
    _dress(ax, "Number of flows", "Worst-case fairness (min/max throughput)", (0, 1.02))
    f.save(fig, "fig9", "Fig. 9: system worst-case fairness against the number of flows")

    for stem, key, name, eq in (("fig10_11", "max_avg_dev_series", "MaxAvgCwndDeviation", "7"),
                                ("fig12_13", "max_dev_series", "MaxCwndDeviation", "8")):
        fig, axes = f.axes(1, 2, size=(10, 3.6), sharey=True)
        top = 0.0
        for ax, config, title in ((axes[0], "red", "with RED"), (axes[1], "aimd-gn", "with GN")):
            top = max(top, f.band(ax, e2, config, "dev_t", key))
            _dress(ax, "Time (s)", f"{name} (packets)" if config == "red" else "")
            ax.set_title(f"{name} {title}")
        axes[0].set_ylim(0, 1.05 * top)
        f.save(fig, stem, f"Figs. {stem[3:].replace('_', ' and ')}: {name} (eq. {eq}) with RED and with GN "
               "over time, 200 flows (1-s means)")
    return f.made

