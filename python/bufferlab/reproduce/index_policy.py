"""Avrachenkov, Ayesta, Doncel & Jacko (2013), "Congestion control of TCP flows in Internet routers by means
of index policy": the Whittle-index theory of Sec. 6 (Fig. 3) and the two-user ns-3 study of Sec. 7-8
(Table 1, the window/queue/index time plots of Figs. 4-8), after the note
``../shared/papers/avrachenkov_2013_index_policy.md`` (§3-§5).

The theory claims T1-T8 are computed with :mod:`bufferlab.models.whittle`; the simulation claims S-a-S-g
from engine runs of the five scenarios under DropTail, RED and the ``index`` discipline, the senders being
the ``whittle`` controller (NewReno growth, decrease factor γ, packets tagged with ν(⌊cwnd⌋)) under all three
policies. The choices the paper leaves open are in :data:`CHOICES`, written into the report.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from bufferlab.models import whittle
from bufferlab.reproduce.claims import Claim, Estimate, Verdict, estimate, judge
from bufferlab.reproduce.runner import Task

NAME = "index-policy"
TITLE = ("Avrachenkov, Ayesta, Doncel & Jacko (2013), \"Congestion control of TCP flows in Internet routers "
         "by means of index policy\" (Computer Networks 57(17); note `avrachenkov_2013_index_policy.md`)")

RATE_BPS = 1.5e6            # note §3.2: 1,500 kb/s bottleneck (inferred from Table 1's RTT/queue fit)
PACKET = 576                # bytes: ns-3's 536-byte segment + 40 B of headers
T_PKT = PACKET * 8 / RATE_BPS   # 3.072 ms per packet
BASE_RTT = 0.040            # s, two-way propagation (note §3.2: 40 ms at zero queue)
BDP = 13                    # packets: the buffer of scenarios 0 and 2-4 ("the BDP of a single user")
SMALL_B = 6                 # scenario 1 (the paper's only surviving buffer value)
ALPHA, BETA, N_MAX = 1.0, 0.99, 30   # index parameters: α = 1 (paper); β and N ours
GAMMA_AGGRESSIVE = 0.9      # scenario 3, user 1 "barely reduces" (value stripped)
RTT_S4 = 0.060              # scenario 4, user 1's RTT with the raised access delay (+10 ms each way)
POLICIES = ("droptail", "red", "index")
REPLICATES = 4              # engine runs per seed in Table 1 (start times drawn per run): two stable regimes
POLICY_LABEL = {"droptail": "DropTail", "red": "RED", "index": "Index"}

#: Scenario: (user 1's γ, user 1's RTT, buffer); user 2 is always NewReno (γ = 1/2) with the base RTT.
SCENARIOS: Dict[int, Tuple[float, float, int]] = {
    0: (0.5, BASE_RTT, BDP),
    1: (0.5, BASE_RTT, SMALL_B),
    2: (0.0, BASE_RTT, BDP),
    3: (GAMMA_AGGRESSIVE, BASE_RTT, BDP),
    4: (0.5, RTT_S4, BDP),
}

#: Table 1 of the paper (note §4.2): utilization %, Jain, mean queue (packets), RTT ms (None: not given).
PAPER_TABLE: Dict[Tuple[int, str], Tuple[float, float, float, Optional[float]]] = {
    (0, "droptail"): (97.14, 0.999999, 6.98, 61.4), (0, "red"): (97.63, 0.982572, 6.11, 58.77),
    (0, "index"): (98.22, 0.999798, 8.07, 64.7),
    (1, "droptail"): (81.16, 1.000000, 2.41, 47.4), (1, "red"): (81.71, 0.998233, 2.54, 47.8),
    (1, "index"): (88.45, 0.999837, 2.89, 48.8),
    (2, "droptail"): (90.84, 0.786535, 7.1, 61.8), (2, "red"): (92.74, 0.911862, 6.04, 58.5),
    (2, "index"): (95.37, 0.962784, 7.34, 62.5),
    (3, "droptail"): (86.36, 0.739875, 6.63, 60.3), (3, "red"): (94.08, 0.821966, 6.31, 59.4),
    (3, "index"): (96.86, 0.917895, 6.84, 62.5),
    (4, "droptail"): (93.84, 0.765318, 6.11, None), (4, "red"): (91.6, 0.89428, 5.81, None),
    (4, "index"): (94.97, 0.929756, 6.37, None),
}

CLAIMS = [
    Claim("T1", "The AIMD flow is indexable for every tested (N, α, β, γ); adaptive greedy agrees with brute "
          "force", "always indexable"),
    Claim("T2", "α = 0 gives ν_n = 1 for every n, γ and β", "ν ≡ 1"),
    Claim("T3", "N = 1: ν_1 = f(1); N = 2: ν = (f_1, ((1+β)f_2 − βf_1)/(2+β)), non-increasing for concave f",
          "closed forms"),
    Claim("T4", "N = 3: threshold for all β when γ < 2/3; for γ ≥ 2/3 threshold fails at large β iff "
          "5f_2 < 4f_1 + 2f_3, and then ν_2 < ν_3", "γ = 0.7: β = 0.9 threshold, 0.99 not"),
    Claim("T5", "Small α or β give a non-increasing (threshold) index; large α and β zig-zag; γ = 0 smooth",
          "β=.5 all α ≤ 2; β=.9: α ≤ .1 / ≥ .25; β=.99 zig-zag"),
    Claim("T6", "ν decreases in α and in β, state by state", "decreasing"),
    Claim("T7", "Teeth of period 2 (γ = ½), 3 (⅓, ⅔), 6 (⅙, ⅚); ν rises with γ at n = 6k, falls at n = 6k+1",
          "periods 2/3/6"),
    Claim("T8", "The myopic index f(n)/n bounds every ν above; the birth–death index bounds them below",
          "upper and lower bounds"),
    Claim("S-a", "Scen. 0 (B = BDP): DropTail windows synchronised, index alternates; index utilization ≥ "
          "DropTail and RED; Jain ≥ 0.9997 for DropTail and index, RED lower",
          "98.22 vs 97.14 / 97.63 %; J 1.0 / 0.9998 / 0.983"),
    Claim("S-b", "Scen. 1 (B = 6 < BDP): index gains about 7 points over DropTail and RED, RTT +≤ 3 %",
          "88.45 vs 81.16 / 81.71 %; RTT +2.3 / +2 %"),
    Claim("S-c", "Scen. 2 (γ_1 = 0 vs ½): Jain DropTail < RED < index; conservative user's share grows",
          "0.787 < 0.912 < 0.963; share 24 / 35 / 40 %"),
    Claim("S-d", "Scen. 3 (γ_1 ≈ 1 vs ½): Jain DropTail < RED < index; the aggressive user is contained",
          "0.740 < 0.822 < 0.918"),
    Claim("S-e", "Scen. 4 (unequal access delay): Jain DropTail < RED < index; index utilization highest",
          "0.765 < 0.894 < 0.930; 94.97 %"),
    Claim("S-f", "In every scenario the index policy has a slightly higher mean queue (+0.2…+1.1 packets "
          "over "
          "DropTail) and RTT (+1…+10 %)", "+0.2…+1.1 pkts; +1…+10 %"),
    Claim("S-g", "RTT ≈ base + t_pkt × mean queue across policies (scenarios 0-1)",
          "40.00 ms + 3.065 ms × queue"),
]

CHOICES = [
    "Links (all stripped in the paper; the note's §3.2 inference from Table 1): a 1,500 kb/s bottleneck, "
    "576-byte packets (3.072 ms each), 40 ms two-way propagation at zero queue, 10 Mb/s access links; the "
    "BDP and the buffer of scenarios 0, 2, 3, 4 are 13 packets, scenario 1's is the paper's 6.",
    "Senders: the `whittle` controller for both users under all three policies (NewReno growth per ACK, "
    "ssthresh = max(⌊γ·cwnd⌋, 1) on a loss, cwnd ≤ N), ns-3 2012-like: no SACK, no delayed ACK, timer "
    "backoff reset by any new ACK (`rto_backoff = \"new-ack\"`), minimum RTO 1 s, initial window 1. The "
    "sensitivity table shows delayed ACKs (ns-3's DelAckCount = 2). The plotted cwnd is the sender's, "
    "with NewReno's fast-recovery inflation (one segment per duplicate ACK): the short spikes above the "
    "sawtooth, and above N, are recoveries; the cap N holds outside them.",
    f"Index tables: α = 1 (the paper's), β = {BETA} (\"approximates the time average\"; value stripped), "
    f"N = {N_MAX} (stripped; about twice the BDP, so it only caps windows after long loss-free runs), the "
    "normalised reward f(n) = log(1 + n) (note §2.8; the literal log n in the sensitivity table).",
    f"Scenario 3's \"barely reduces\" user has γ = {GAMMA_AGGRESSIVE} (stripped; 0.99 in the sensitivity "
    f"table); scenario 4 raises user 1's access delay by 10 ms each way (RTT {RTT_S4 * 1e3:g} ms against "
    "40 ms; the value is stripped; 80 ms in the sensitivity table). Each user starts at a time uniform in "
    "[0, 1] s, drawn per run (the only randomness of a DropTail or index run).",
    "RED (parameters not given): ns-3's max_p = 0.02 (LInterm 50) and weight 0.002, gentle off, min_th = "
    "⌊B/3⌋, max_th = B − 1 (4 and 12 at B = 13; 2 and 5 at B = 6), since ns-3's 5/15 do not fit a 13-packet "
    "buffer; ns-2's max_p = 0.1 in the sensitivity table.",
    "Metrics: utilization = the bottleneck's busy fraction; Jain's index over the two users' goodput; mean "
    "queue = time-average packets at the bottleneck; RTT = the mean of the two users' propagation RTT plus "
    "the mean bottleneck sojourn of the packets (the paper does not say how its RTT column is averaged). "
    "Synchronisation is the correlation of the two users' sampled windows (10 ms samples): positive in "
    "phase, negative in anti-phase.",
    "Run length (not given): 300 s, the first 20 s discarded (quick: 120 s). Table 1 runs 4 engine runs per "
    "seed (12 in the full run, 8 in quick), since two users with fixed RTTs settle into one of two stable "
    "regimes (windows in phase or in anti-phase) depending on their start times, and 3 runs cannot tell "
    "their frequencies; the sensitivity runs use one per seed. A run costs well under a CPU-second, so the "
    "paper's link rate and flow count need no scaling.",
    "Fig. 3's basic instance (stripped): N = 30, α = 1, β = 0.9, γ = ½; the γ panels at β = 0.99; T5-T7 use "
    "the note's grids (§5.2), T1 the note's 270 combinations (quick: N ∈ {3, 6}).",
]


# ------------------------------------------------------------------------------------------- design


def scenario(scen: int, policy: str, quick: bool, *, gamma1: Optional[float] = None,
             rtt1: Optional[float] = None, beta: float = BETA, n_max: int = N_MAX,
             reward: str = "normalised", delayed_ack: bool = False,
             red_max_p: float = 0.02) -> Dict[str, Any]:
    """One run of scenario ``scen`` (0-4) under ``policy`` (``droptail``, ``red`` or ``index``)."""
    g1, r1, buf = SCENARIOS[scen]
    g1 = g1 if gamma1 is None else gamma1
    r1 = r1 if rtt1 is None else rtt1
    queue: Dict[str, Any] = {"discipline": policy, "limit": buf}
    if policy == "red":
        queue.update({"min_th": max(2, buf // 3), "max_th": buf - 1, "max_p": red_max_p, "weight": 0.002,
                      "gentle": False})

    def cc(gamma: float) -> Dict[str, Any]:
        return {"kind": "whittle", "gamma": gamma, "max_window": n_max, "index": "whittle", "alpha": ALPHA,
                "beta": beta, "reward": reward}

    return {
        "name": f"index-policy-s{scen}",
        "duration": "120s" if quick else "300s", "warmup": "20s",
        "bottleneck": {"rate": "1500kbps", "delay": "10ms", "queue": queue},
        "tcp": {"packet_size": f"{PACKET}B", "initial_window": 1, "sack": False, "delayed_ack": delayed_ack,
                "rto_backoff": "new-ack", "min_rto": "1s"},
        "flows": [
            {"name": "user1", "count": 1, "rtt": f"{r1 * 1e3:g}ms", "access_rate": "10Mbps",
             "start": {"uniform": ["0s", "1s"]}, "tcp": {"congestion_control": cc(g1)}},
            {"name": "user2", "count": 1, "rtt": f"{BASE_RTT * 1e3:g}ms", "access_rate": "10Mbps",
             "start": {"uniform": ["0s", "1s"]}, "tcp": {"congestion_control": cc(0.5)}},
        ],
        "monitor": {"sample_interval": "10ms", "cwnd": True},
    }


def run_stats(res: Any) -> Dict[str, Any]:
    """Per-user goodput, the windows' correlation and a 10 s trace (windows, queue) after the warm-up."""
    warm = float(res.summary.get("warmup_s", 0.0))
    cw = res.cwnd_series
    cw = cw[cw["time_s"] >= warm]
    a, b = cw.iloc[:, 1].to_numpy(float), cw.iloc[:, 2].to_numpy(float)
    corr = float(np.corrcoef(a, b)[0, 1]) if a.std() > 0 and b.std() > 0 else float("nan")
    q = res.queue_series
    q = q[(q["time_s"] >= warm) & (q["time_s"] <= warm + 10.0)]
    keep = cw[cw["time_s"] <= warm + 10.0]
    flows = res.flows.sort_values("flow")
    return {"goodput": [float(x) for x in flows["goodput_bps"]], "cwnd_corr": corr,
            "trace_t": (keep["time_s"] - warm).round(3).tolist(),
            "trace_w1": keep.iloc[:, 1].round(2).tolist(), "trace_w2": keep.iloc[:, 2].round(2).tolist(),
            "trace_q": q["queue_pkts"].round(1).tolist()}


def experiments(quick: bool, seeds: int) -> Dict[str, List[Task]]:
    """Table 1's 15 rows over the seeds, and the sensitivity runs."""
    s = range(1, seeds + 1)
    ex: Dict[str, List[Task]] = defaultdict(list)
    extract = f"{__name__}:run_stats"
    for scen in SCENARIOS:
        for pol in POLICIES:
            for seed in range(1, REPLICATES * seeds + 1):
                ex["table1"].append(Task(scenario(scen, pol, quick), seed, {"scen": scen, "policy": pol},
                                         extract))

    def sens(what: str, scen: int, pols: Sequence[str], **kw: Any) -> None:
        for pol in pols:
            for seed in s:
                ex["sensitivity"].append(Task(scenario(scen, pol, quick, **kw), seed,
                                              {"what": what, "scen": scen, "policy": pol}, extract))

    sens("delayed ACK", 0, POLICIES, delayed_ack=True)
    sens("delayed ACK", 2, POLICIES, delayed_ack=True)
    sens("RED max_p 0.1", 0, ("red",), red_max_p=0.1)
    sens("RED max_p 0.1", 2, ("red",), red_max_p=0.1)
    sens("γ_1 = 0.99", 3, POLICIES, gamma1=0.99)
    sens("RTT_1 = 80 ms", 4, POLICIES, rtt1=0.080)
    for scen in (0, 2):
        sens("β = 0.9", scen, ("index",), beta=0.9)
        sens("N = 60", scen, ("index",), n_max=60)
        sens("reward log n", scen, ("index",), reward="alpha-fair")
    return dict(ex)


# ------------------------------------------------------------------------------------------- evaluation


def _sel(records: Sequence[Dict[str, Any]], **labels: Any) -> List[Dict[str, Any]]:
    return [r for r in records if all(r["labels"].get(k) == v for k, v in labels.items())]


def _rtt(r: Dict[str, Any]) -> float:
    """Mean of the two users' RTTs: propagation plus the mean bottleneck sojourn, in ms."""
    rtt1 = SCENARIOS[r["labels"]["scen"]][1]
    if r["labels"].get("what") == "RTT_1 = 80 ms":
        rtt1 = 0.080
    return 1e3 * ((rtt1 + BASE_RTT) / 2 + (r["summary"]["delay_mean_s"] or 0.0))


def metric(records: Sequence[Dict[str, Any]], name: str, **labels: Any) -> Estimate:
    """``name`` (util, jain, queue, rtt, corr, share1) over the seeds of the runs matching ``labels``."""
    def one(r: Dict[str, Any]) -> Optional[float]:
        sm = r["summary"]
        if name == "util":
            return sm["utilization"]
        if name == "jain":
            return sm["jain_index"]
        if name == "queue":
            return sm["queue_mean_pkts"]
        if name == "delay":
            return 1e3 * sm["delay_mean_s"]
        if name == "rtt":
            return _rtt(r)
        if name == "corr":
            return r["extra"]["cwnd_corr"]
        if name == "inphase":
            return float(r["extra"]["cwnd_corr"] > 0)
        if name == "share1":
            g = r["extra"]["goodput"]
            return g[0] / sum(g) if sum(g) > 0 else None
        raise KeyError(name)
    return estimate([one(r) for r in _sel(records, **labels)])


def _theory(quick: bool) -> List[Tuple[bool, str, str]]:
    """T1-T8 from bufferlab.models.whittle: (ok, ours, why-if-not) each."""
    w = whittle
    out: List[Tuple[bool, str, str]] = []
    # T1: adaptive greedy against brute force over the note's grid; AG's certificate up to N = 60.
    ns = (3, 6) if quick else (3, 6, 12)
    worst, bad, count = 0.0, 0, 0
    gammas = (0.0, 1 / 3, 0.5, 2 / 3, 0.9)
    for n, a, g, b, rw in itertools.product(ns, (0.5, 1.0, 2.0), gammas, (0.5, 0.9, 0.99),
                                            ("normalised", "alpha-fair")):
        flow = w.aimd_flow(n, a, b, g, rw)
        ag, bf = w.adaptive_greedy(flow), w.brute_force_index(flow)
        worst = max(worst, float(np.max(np.abs(ag.index - bf.index))))
        bad += int(not (ag.indexable and bf.indexable))
        count += 1
    big = [w.adaptive_greedy(w.aimd_flow(60, 1.0, b, g)).indexable
           for g in (0, 1 / 6, 1 / 3, 0.5, 2 / 3, 5 / 6) for b in (0.9, 0.99)]
    out.append((bad == 0 and worst < 1e-8 and all(big),
                f"{count} flows (N ∈ {{{', '.join(map(str, ns))}}}): {bad} not indexable, max |AG − BF| = "
                f"{worst:.1e}; N = 60: "
                f"{sum(big)}/{len(big)} PCL-indexable", ""))
    # T2
    dev = max(float(np.max(np.abs(w.index_table(30, 0.0, b, g) - 1.0)))
              for b in (0.5, 0.9, 0.99) for g in (0.0, 0.5, 0.9))
    out.append((dev < 1e-9, f"max |ν − 1| = {dev:.1e} (N = 30, 9 (β, γ))", ""))
    # T3
    f = w.reward_values(2, 1.0)
    errs = []
    for b in (0.5, 0.9, 0.99):
        nu2 = w.adaptive_greedy(w.aimd_flow(2, 1.0, b, 0.5)).index
        errs.append(abs(nu2[1] - ((1 + b) * f[1] - b * f[0]) / (2 + b)) + abs(nu2[0] - f[0]))
    nu1 = w.adaptive_greedy(w.aimd_flow(1, 1.0, 0.9, 0.5)).index[0]
    nu_09 = w.index_table(2, 1.0, 0.9, 0.5)
    mono = all(w.is_threshold(w.index_table(2, a, b, 0.5)) for a in (0.5, 1, 2) for b in (0.5, 0.9, 0.99))
    out.append((max(errs) < 1e-12 and abs(nu1 - f[0]) < 1e-12 and mono,
                f"N = 2, β = 0.9: ({nu_09[0]:.4f}, {nu_09[1]:.4f}); max error {max(errs):.1e}; "
                f"non-increasing for α ∈ {{0.5, 1, 2}}: {mono}", ""))
    # T4
    t09 = w.index_table(3, 1.0, 0.9, 0.7)
    t99 = w.index_table(3, 1.0, 0.99, 0.7)
    low = all(w.is_threshold(w.index_table(3, 1.0, b, g)) for g in (0.0, 0.3, 0.5, 0.6)
              for b in (0.5, 0.9, 0.99, 0.999))
    f3 = w.reward_values(3, 1.0)
    cond = 5 * f3[1] < 4 * f3[0] + 2 * f3[2]
    cf = w.closed_form_index(f3, 0.99, 0.7)
    ok4 = (w.is_threshold(t09) and not w.is_threshold(t99) and t99[1] < t99[2] and low and cond
           and float(np.max(np.abs(cf - t99))) < 1e-9)
    out.append((ok4, f"γ = 0.7: β = 0.9 ({', '.join(f'{x:.6f}' for x in t09)}), β = 0.99 "
                f"({', '.join(f'{x:.6f}' for x in t99)}); 5f_2 < 4f_1 + 2f_3: {cond}; γ < 2/3 threshold for "
                f"β ≤ 0.999: {low}", ""))
    # T5 at γ = 1/2, N = 30
    def thr(a: float, b: float, g: float = 0.5) -> bool:
        return w.is_threshold(w.index_table(30, a, b, g))
    alphas = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0)
    b5 = all(thr(a, 0.5) for a in alphas)
    b9lo = all(thr(a, 0.9) for a in (0.05, 0.1))
    b9hi = not any(thr(a, 0.9) for a in (0.25, 0.5, 1.0, 2.0))
    b99 = not any(thr(a, 0.99) for a in alphas)
    g0 = all(thr(a, b, 0.0) for a in alphas for b in (0.5, 0.9, 0.99))
    out.append((b5 and b9lo and b9hi and b99 and g0,
                f"β = 0.5 threshold for all α: {b5}; β = 0.9: threshold at α ≤ 0.1 {b9lo}, zig-zag at "
                f"α ≥ 0.25 "
                f"{b9hi}; β = 0.99 zig-zag for α ≥ 0.05: {b99}; γ = 0 threshold everywhere: {g0}", ""))
    # T6
    da = all(np.all(np.diff(np.array([w.index_table(30, a, 0.99, g) for a in (0.25, 0.5, 1.0, 1.5, 2.0)]),
                            axis=0) <= 1e-12) for g in (0.0, 0.5))
    db = all(np.all(np.diff(np.array([w.index_table(30, 1.0, b, g) for b in (0.3, 0.5, 0.7, 0.9, 0.99)]),
                            axis=0) <= 1e-12) for g in (0.0, 0.5))
    out.append((da and db, f"decreasing in α (0.25…2) at every n: {da}; in β (0.3…0.99): {db} (γ ∈ {{0, ½}}, "
                "N = 30)", ""))
    # T7: period of the sign pattern of Δν over 40 ≤ n ≤ 58 at N = 60, β = 0.99 (the teeth settle from
    # n ≈ 35 for γ = ⅙); γ = ⅓ is the paper's second smooth γ (note §4.1): non-increasing up to n = 30.
    def period(g: float) -> Optional[int]:
        d = np.sign(np.diff(w.index_table(60, 1.0, 0.99, g)))[39:57]
        for p in range(1, 8):
            if np.all(d[p:] == d[:-p]) and not np.all(d == d[0]):
                return p
        return None
    periods = {name: period(g) for name, g in (("½", 0.5), ("⅔", 2 / 3), ("⅙", 1 / 6), ("⅚", 5 / 6))}
    third_smooth = w.is_threshold(w.index_table(60, 1.0, 0.99, 1 / 3)[:30])
    tabs = {g: w.index_table(60, 1.0, 0.99, g) for g in (0.0, 1 / 6, 1 / 3, 0.5, 2 / 3, 5 / 6)}
    gs = sorted(tabs)
    rise = all(tabs[a][6 * k - 1] <= tabs[b][6 * k - 1] + 1e-12 for k in (1, 2, 3, 4)
               for a, b in zip(gs[2:], gs[3:]))
    fall = all(tabs[a][6 * k] >= tabs[b][6 * k] - 1e-12 for k in (1, 2, 3, 4) for a, b in zip(gs, gs[1:]))
    ok7 = (periods["½"] == 2 and periods["⅔"] == 3 and periods["⅙"] == 6 and periods["⅚"] == 6 and rise
           and fall and third_smooth)
    out.append((ok7, "periods (40 ≤ n ≤ 58) " + ", ".join(f"γ={k}: {v}" for k, v in periods.items())
                + f"; γ = ⅓ smooth for n ≤ 30 (the paper's second smooth γ): {third_smooth}; rises with γ "
                f"(⅓…⅚) at n = 6k: {rise}; falls with γ at n = 6k+1: {fall}", "see the numbers"))
    # T8: the myopic upper bound and the birth-death lower bound, N = 36, β = 0.99.
    flow_bd = whittle.aimd_flow(36, 1.0, 0.99, w.birth_death_gamma(36))
    bd = w.adaptive_greedy(flow_bd).index
    myo = w.myopic_index(flow_bd)
    upper, first_bad = True, None
    for g in (0.0, 1 / 6, 1 / 3, 0.5, 2 / 3, 5 / 6):
        nu = w.index_table(36, 1.0, 0.99, g)
        upper &= bool(np.all(nu <= myo + 1e-12))
        viol = np.nonzero(nu < bd - 1e-12)[0]
        if viol.size:
            first_bad = int(viol[0] + 1) if first_bad is None else min(first_bad, int(viol[0] + 1))
    out.append((upper and first_bad is None,
                f"myopic upper bound holds for every γ: {upper}; birth–death lower bound first fails at "
                f"n = {first_bad} (N = 36)",
                "the note's reading: the birth–death curve is a lower bound only for small windows (boundary "
                "effects of the truncation at N); the paper says it 'appears to be' one from its plot"))
    return out


def _ordering(records: Sequence[Dict[str, Any]], scen: int) -> Tuple[bool, str]:
    j = {p: metric(records, "jain", scen=scen, policy=p) for p in POLICIES}
    ok = j["droptail"].mean < j["red"].mean < j["index"].mean
    return ok, "Jain " + " / ".join(f"{POLICY_LABEL[p]} {j[p]}" for p in POLICIES)


def evaluate(results: Dict[str, List[Dict[str, Any]]], quick: bool) -> List[Verdict]:
    """Every claim's verdict."""
    c = {cl.id: cl for cl in CLAIMS}
    out: List[Verdict] = []
    tol_theory = {"T1": "no violation; |AG − BF| < 1e-8", "T2": "|ν − 1| < 1e-9", "T3": "exact to 1e-12",
                  "T4": "all four parts", "T5": "every part on the note's grid", "T6": "every state",
                  "T7": "periods exact; order at n = 6k, 6k+1 for k ≤ 4; γ = ⅓ smooth (N = 60)",
                  "T8": "both bounds at every n"}
    for cid, (ok, ours, why) in zip(("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8"), _theory(quick)):
        out.append(judge(c[cid], ours, tol_theory[cid], ok, "" if ok else why))

    t = results["table1"]
    u = {(s, p): metric(t, "util", scen=s, policy=p) for s in SCENARIOS for p in POLICIES}
    j = {(s, p): metric(t, "jain", scen=s, policy=p) for s in SCENARIOS for p in POLICIES}

    # S-a: a run is in phase when the users' windows correlate positively, in anti-phase otherwise.
    inph = {p: metric(t, "inphase", scen=0, policy=p) for p in POLICIES}
    sync = inph["droptail"].mean >= 0.8
    anti = inph["index"].mean <= 0.5
    util_ok = u[0, "index"].mean >= max(u[0, "droptail"].mean, u[0, "red"].mean) - 0.002
    jain_ok = j[0, "droptail"].mean >= 0.999 and j[0, "index"].mean >= 0.999
    red_lower = j[0, "red"].mean < min(j[0, "droptail"].mean, j[0, "index"].mean) - 0.005
    parts = {"DropTail in phase": sync, "index in anti-phase": anti, "index utilization highest": util_ok,
             "Jain of DropTail and index ≥ 0.999": jain_ok, "RED less fair": red_lower}
    failed = [k for k, v in parts.items() if not v]
    why = ""
    if failed:
        why = ("fails: " + ", ".join(failed) + ". "
               + ("With two identical users RED's random drops hit both alike here (Jain "
                  f"{j[0, 'red'].mean:.4f}): its fairness cost in the paper is not reproduced, with either "
                  "max_p (sensitivity table)." if not red_lower else "")
               + (" The index policy only separates windows that already differ (equal windows carry equal "
                  "indices); runs whose users start in phase stay in phase." if not anti else "")).strip()
    out.append(judge(c["S-a"], "share of runs with windows in phase " + " / ".join(
                     f"{POLICY_LABEL[p]} {inph[p]}" for p in POLICIES)
                     + "; utilization " + " / ".join(f"{u[0, p]}" for p in POLICIES)
                     + "; Jain " + " / ".join(f"{j[0, p]}" for p in POLICIES),
                     "in phase: DropTail ≥ 80 % of runs, index ≤ 50 %; index utilization ≥ both − 0.2 "
                     "points; Jain ≥ 0.999 (3 decimals of 0.9997); RED ≥ 0.005 below both", not failed, why))

    # S-b
    g_dt = 100 * (u[1, "index"].mean - u[1, "droptail"].mean)
    g_red = 100 * (u[1, "index"].mean - u[1, "red"].mean)
    r_dt = metric(t, "rtt", scen=1, policy="droptail").mean
    r_red = metric(t, "rtt", scen=1, policy="red").mean
    r_ix = metric(t, "rtt", scen=1, policy="index").mean
    rise = max(r_ix / r_dt - 1, r_ix / r_red - 1) * 100
    ok_b = g_dt >= 3.5 and g_red >= 3.5 and rise <= 5.0
    why_b = ""
    if not ok_b:
        inph1 = metric(t, "inphase", scen=1, policy="index").mean
        anti_u = [r["summary"]["utilization"] for r in _sel(t, scen=1, policy="index")
                  if r["extra"]["cwnd_corr"] <= 0]
        why_b = (f"the baselines reach {100 * u[1, 'droptail'].mean:.1f} / {100 * u[1, 'red'].mean:.1f} % at "
                 "B = 6, against the paper's 81 % (the paper's link parameters are stripped; the note's "
                 "1,500 kb/s / 40 ms reading may not be theirs), and the index policy's windows stay in "
                 f"phase in {100 * inph1:.0f} % of the runs, where it does what DropTail does; the runs in "
                 "anti-phase "
                 + (f"reach {100 * float(np.mean(anti_u)):.1f} %, the paper's gain" if anti_u else
                    "do not occur") + ". Equal windows carry equal indices, so the rule cannot separate "
                 "users "
                 "that start together (BufferLab's fixed RTTs; the paper's ns-3 runs may have had jitter)")
    out.append(judge(c["S-b"], f"utilization {u[1, 'droptail']} / {u[1, 'red']} / {u[1, 'index']}: gain "
                     f"{g_dt:+.1f} / {g_red:+.1f} points; index RTT {rise:+.1f} % over the higher baseline",
                     "gain ≥ 3.5 points (half the paper's 7) over both; RTT rise ≤ 5 %", ok_b, why_b))

    # S-c, S-d, S-e
    for cid, scen in (("S-c", 2), ("S-d", 3), ("S-e", 4)):
        ok, txt = _ordering(t, scen)
        share = {p: metric(t, "share1", scen=scen, policy=p) for p in POLICIES}
        extra_ok = True
        if cid == "S-c":
            extra_ok = share["index"].mean > share["droptail"].mean
            txt += "; user 1's share " + " / ".join(f"{share[p]}" for p in POLICIES)
        elif cid == "S-d":
            extra_ok = share["index"].mean < share["droptail"].mean and share["index"].mean <= 0.70
            txt += "; aggressive user's share " + " / ".join(f"{share[p]}" for p in POLICIES)
        else:
            extra_ok = u[4, "index"].mean >= max(u[4, "droptail"].mean, u[4, "red"].mean) - 0.002
            txt += "; utilization " + " / ".join(f"{u[4, p]}" for p in POLICIES)
        why = ""
        if not (ok and extra_ok):
            jd, jr, ji = (j[scen, p].mean for p in POLICIES)
            why = ("the index policy is the fairest, as in the paper, but " if ji > max(jd, jr) else "") + (
                f"RED ({jr:.3f}) is not fairer than DropTail ({jd:.3f}) here: with only two users RED's "
                "random drops follow each user's share of arrivals, so the gap between them depends on "
                "RED's parameters, which the paper does not give (sensitivity table)" if jr <= jd else
                "the ordering or the share differs (see the numbers)")
        tol = {"S-c": "strict order of the means; user 1's share higher under index than DropTail",
               "S-d": "strict order of the means; aggressive share lower under index and ≤ 0.70 (the "
                      "paper's J = 0.918 implies 0.65)",
               "S-e": "strict order of the means; index utilization ≥ both − 0.2 points"}[cid]
        out.append(judge(c[cid], txt, tol, ok and extra_ok, why))

    # S-f
    dq, dr, parts_f = [], [], []
    for s in SCENARIOS:
        q = (metric(t, "queue", scen=s, policy="index").mean
             - metric(t, "queue", scen=s, policy="droptail").mean)
        r = (metric(t, "rtt", scen=s, policy="index").mean / metric(t, "rtt", scen=s, policy="droptail").mean
             - 1) * 100
        dq.append(q)
        dr.append(r)
        parts_f.append(f"S{s}: {q:+.2f} pkts, {r:+.1f} %")
    ok_f = all(-0.1 <= q <= 2.0 for q in dq) and all(-0.5 <= r <= 12.0 for r in dr)
    why_f = ""
    if not ok_f:
        neg = [sc for sc, q in zip(SCENARIOS, dq) if q < -0.1]
        if neg:
            qd = {sc: metric(t, "queue", scen=sc, policy="droptail").mean for sc in neg}
            why_f = ("the index queue is shorter than DropTail's in " + ", ".join(
                f"scenario {sc} (DropTail {qd[sc]:.1f} of B = {SCENARIOS[sc][2]} packets, the paper's "
                f"{PAPER_TABLE[sc, 'droptail'][2]:g})" for sc in neg)
                + ": the γ_1 = 0.9 user backs off by only 10 % and keeps the DropTail buffer near full; the "
                "index policy drops its packets first (its large window has the lowest index) and the queue "
                "falls. The paper's DropTail queue there is about scenario 0's, so its 'barely reduces' user "
                "(γ stripped) or its TCP reacts more than ours; see the γ_1 = 0.99 sensitivity row")
        else:
            why_f = "the queue or RTT rise is larger than the paper's range"
    out.append(judge(c["S-f"], "index − DropTail: " + "; ".join(parts_f),
                     "queue within [−0.1, +2.0] pkts (the paper's +0.2…+1.1 widened by its noise) and RTT "
                     "within [−0.5, +12] % in every scenario", ok_f, why_f))

    # S-g: linear fit of RTT on the mean queue over scenarios 0-1.
    xs, ys = [], []
    for s in (0, 1):
        for p in POLICIES:
            xs.append(metric(t, "queue", scen=s, policy=p).mean)
            ys.append(metric(t, "rtt", scen=s, policy=p).mean)
    slope, icpt = np.polyfit(xs, ys, 1)
    resid = float(np.max(np.abs(np.polyval([slope, icpt], xs) - ys)))
    ok_g = abs(slope - 3.065) / 3.065 <= 0.05 and resid <= 0.3
    out.append(judge(c["S-g"], f"RTT = {icpt:.2f} ms + {slope:.3f} ms × queue; max residual {resid:.2f} ms "
                     "(6 rows)", "slope ±5 % of 3.065 ms, residuals ≤ 0.3 ms (the intercept is our chosen "
                     "propagation RTT plus transmission times, calibrated from this fit, so not a test)",
                     bool(ok_g), "" if ok_g else (
                         "by Little's law the mean sojourn is q/(u·C): scenario 1's rows run at utilization "
                         f"{u[1, 'droptail'].mean:.2f}-{u[1, 'index'].mean:.2f} against ≈ 1 in scenario 0, "
                         "so RTT over the time-average queue is not one line; the paper's rows fit within "
                         "0.06 ms, "
                         "so its RTT column is probably computed from the queue (or per ACK), which it does "
                         "not say")))
    return out


# ------------------------------------------------------------------------------------------- report tables


def table1_markdown(results: Dict[str, List[Dict[str, Any]]]) -> List[str]:
    """Table 1, ours beside the paper's, generated from the runs."""
    t = results["table1"]
    lines = ["Table 1 (ours: mean [95 % CI] over the seeds; the paper's value after the slash):", "",
             "| scen. | policy | utilization % | Jain fairness | mean queue (pkts) | RTT (ms) | window "
             "correlation | runs in phase |", "|---|---|---|---|---|---|---|---|"]
    for s in SCENARIOS:
        for p in POLICIES:
            pu, pj, pq, pr = PAPER_TABLE[s, p]
            e = {m: metric(t, m, scen=s, policy=p)
                 for m in ("util", "jain", "queue", "rtt", "corr", "inphase")}
            lines.append(f"| {s} | {POLICY_LABEL[p]} | {100 * e['util'].mean:.2f} ± "
                         f"{100 * (e['util'].high - e['util'].mean):.2f} / {pu:.2f} | {e['jain']} / {pj:g} | "
                         f"{e['queue']} / {pq:g} | {e['rtt']} / {'-' if pr is None else f'{pr:g}'} | "
                         f"{e['corr']} | {100 * e['inphase'].mean:.0f} % |")
    return lines


def sensitivity(results: Dict[str, List[Dict[str, Any]]]) -> List[str]:
    """Table 1 as generated, then the parameters the paper lost against the chosen ones."""
    t, sens = results["table1"], results["sensitivity"]
    lines = table1_markdown(results) + ["", "Choices the paper leaves open (utilization / Jain / mean "
                                            "queue in packets per policy; the chosen setting first):", "",
                                        "| variant | scen. | DropTail | RED | Index |",
                                        "|---|---|---|---|---|"]

    def cell(recs: Sequence[Dict[str, Any]], scen: int, pol: str, **kw: Any) -> str:
        if not _sel(recs, scen=scen, policy=pol, **kw):
            return "-"
        return (f"{100 * metric(recs, 'util', scen=scen, policy=pol, **kw).mean:.1f} % / "
                f"{metric(recs, 'jain', scen=scen, policy=pol, **kw).mean:.3f} / "
                f"{metric(recs, 'queue', scen=scen, policy=pol, **kw).mean:.1f}")

    whats = sorted({r["labels"]["what"] for r in sens})
    for what in whats:
        for scen in sorted({r["labels"]["scen"] for r in _sel(sens, what=what)}):
            lines.append(f"| chosen | {scen} | " + " | ".join(cell(t, scen, p) for p in POLICIES) + " |")
            lines.append(f"| {what} | {scen} | "
                         + " | ".join(cell(sens, scen, p, what=what) for p in POLICIES) + " |")
    return lines


# ------------------------------------------------------------------------------------------- figures


def figures(results: Dict[str, List[Dict[str, Any]]], out: Path) -> List[Tuple[str, str]]:
    """Fig. 3 (index shape), Figs. 4-8 (windows, queue and index against time, one scenario each) and
    Table 1 as bars (means with 95 % intervals, the paper's values marked); PNG + SVG."""
    import matplotlib  # noqa: PLC0415

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    made: List[Tuple[str, str]] = []

    def save(fig: Any, stem: str, caption: str) -> None:
        for ext in ("png", "svg"):
            fig.savefig(out / f"{stem}.{ext}", dpi=110)
        plt.close(fig)
        made.append((stem, caption))

    whittle.plot_figure3(out, n_max=30, alpha=1.0, beta=0.9, gamma=0.5, gamma_beta=0.99, name="fig3")
    made.append(("fig3", "Fig. 3: Whittle index against the window: (a) α, (b) β (N = 30, γ = ½), (c)-(d) γ "
                 "(β = 0.99) with the birth–death curve; the myopic bound f(n)/n dashed"))

    t = results["table1"]
    for s in SCENARIOS:
        g1, rtt1, buf = SCENARIOS[s]
        fig, axes = plt.subplots(3, 3, figsize=(13, 8), sharex=True,
                                 gridspec_kw={"height_ratios": [2, 1.2, 1.2]})
        for col, p in enumerate(POLICIES):
            rec = next(r for r in t if r["labels"] == {"scen": s, "policy": p} and r["seed"] == 1)
            ex = rec["extra"]
            tt = np.asarray(ex["trace_t"])
            w1, w2 = np.asarray(ex["trace_w1"]), np.asarray(ex["trace_w2"])
            ax = axes[0, col]
            ax.plot(tt, w1, color="black", lw=0.7, label=f"user 1 (γ = {g1:g}, RTT {rtt1 * 1e3:g} ms)")
            ax.plot(tt, w2, color="black", lw=2.0, label="user 2 (γ = 0.5, RTT 40 ms)")
            ax.set_title(f"({'abc'[col]}) {POLICY_LABEL[p]}")
            ax.set_ylabel("cwnd (packets)")
            ax.grid(alpha=0.3)
            if col == 0:
                ax.legend(fontsize=7, loc="upper right")
            ax = axes[1, col]
            qt = np.arange(len(ex["trace_q"])) * 0.01
            ax.plot(qt, ex["trace_q"], color="black", lw=0.7)
            ax.axhline(buf, color="grey", ls=":", lw=1)
            ax.set_ylabel("queue (packets)")
            ax.set_ylim(0, buf + 1)
            ax.grid(alpha=0.3)
            ax = axes[2, col]
            if p == "index":
                tab1 = whittle.index_table(N_MAX, ALPHA, BETA, g1)
                tab2 = whittle.index_table(N_MAX, ALPHA, BETA, 0.5)
                ax.plot(tt, whittle.lookup_index(tab1, w1), color="black", lw=0.7)
                ax.plot(tt, whittle.lookup_index(tab2, w2), color="black", lw=2.0)
                ax.set_ylabel("index ν(⌊cwnd⌋)")
                ax.grid(alpha=0.3)
            else:
                ax.axis("off")
            axes[-1, col].set_xlabel("time after the warm-up (s)")
            if p != "index":
                axes[1, col].set_xlabel("time after the warm-up (s)")
                axes[1, col].xaxis.set_tick_params(labelbottom=True)
        fig.suptitle(f"Scenario {s}: B = {buf} packets, seed 1")
        fig.tight_layout()
        save(fig, f"fig{4 + s}", f"Fig. {4 + s}: scenario {s}, windows (user 1 thin, user 2 thick), queue "
             "and (index policy) the users' indices against time, 10 s after the warm-up, seed 1")

    fig, axes = plt.subplots(1, 2, figsize=(12, 4))
    width = 0.27
    for k, (m, label, scale) in enumerate((("util", "Utilization (%)", 100.0), ("jain", "Jain's fairness",
                                                                                1.0))):
        ax = axes[k]
        for i, p in enumerate(POLICIES):
            ests = [metric(t, m, scen=s, policy=p) for s in SCENARIOS]
            xs = np.arange(len(SCENARIOS)) + (i - 1) * width
            mean = np.array([e.mean for e in ests]) * scale
            err = np.array([[e.mean - e.low, e.high - e.mean] for e in ests]).T * scale
            ax.bar(xs, mean, width, yerr=np.nan_to_num(err), capsize=2, label=f"{POLICY_LABEL[p]} (ours)",
                   color=("0.8", "0.55", "0.2")[i], edgecolor="black")
            paper = [PAPER_TABLE[s, p][0 if m == "util" else 1] * (1.0 if m == "util" else scale)
                     for s in SCENARIOS]
            ax.plot(xs, paper, "rx", ms=7, label="paper" if i == 0 else None)
        ax.set_xticks(range(len(SCENARIOS)))
        ax.set_xticklabels([f"scen. {s}" for s in SCENARIOS])
        ax.set_ylabel(label)
        ax.set_ylim((75, 101) if m == "util" else (0.5, 1.01))
        ax.grid(alpha=0.3, axis="y")
    axes[1].legend(fontsize=8, loc="lower left")
    fig.tight_layout()
    save(fig, "fig_table1", "Table 1 as bars: utilization and Jain's index per scenario and policy, mean and "
         "95 % interval over the seeds; red crosses: the paper's values")
    return made

