"""Enachescu, Ganjali, Goel, McKeown & Roughgarden (2005), "Routers with very small buffers": Figs. 1-6,
Theorem 1 with Poisson-injection TCP, and the note's analytic claims (``../shared/papers/
enachescu_2005_tiny_buffers.md``, §3-§6).

Every experiment is a set of engine runs (:class:`~bufferlab.reproduce.runner.Task`) over seeds; every claim
of the note's §6 is evaluated from them (or from ``bufferlab.models`` for the analytic ones) into a verdict.
The choices the paper leaves open are in :data:`CHOICES`, written into the report.
"""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

from bufferlab.models import enachescu, queueing
from bufferlab.reproduce.claims import Claim, Verdict, estimate, judge
from bufferlab.reproduce.plotting import FigureSet
from bufferlab.reproduce.runner import Task

NAME = "tiny-buffers"
TITLE = ("Enachescu, Ganjali, Goel, McKeown & Roughgarden (2005), \"Routers with very small buffers\" "
         "(ACM SIGCOMM CCR; note `enachescu_2005_tiny_buffers.md`)")
PACKET_BITS = 8000.0  # 1000-byte packets
W_MAX = 32
RTT_MEAN = 0.1

CLAIMS = [
    Claim("T1", "Fig. 1c: 40 paced flows, 100 Mb/s, W_max 32, B = 10: utilization about 80 % or more",
          "≥ ~0.80"),
    Claim("T2", "Fig. 1a: Reno at B = 10 is well below 80 %; about 100 packets are needed to exceed 80 %",
          "B ≈ 100"),
    Claim("T3", "Fig. 1: N = 1/10/20 cannot exceed 0.026/0.26/0.52; paced TCP approaches the caps at small B",
          "caps 0.026 / 0.26 / 0.52"),
    Claim("T4", "Fig. 3: peak load 80 %, B = 10, N = 1…1000: paced ≈ 70 %, Reno ≈ 20 %, both flat in N; a "
          "BDP buffer closes the gap", "0.70 / 0.20"),
    Claim("T5", "Fig. 2: 500 flows, 1.5 Gb/s, B = 10: paced cwnd higher and fewer drops; Reno rarely "
          "reaches 32", "qualitative"),
    Claim("T6", "Fig. 4: 100 Mb/s, paced: ≥ 80 % for every B ≥ 10 with 100 and 200 flows; ≈ 50 % with 20, "
          "80–90 % with 40", "≥ 0.80; 0.5; 0.8–0.9"),
    Claim("T7", "Fig. 5: 1 Gb/s core, B = 10, unpaced, 100 flows: linear in the access rate up to 8–9 Mb/s, "
          "then falling", "linear to 8–9 Mb/s"),
    Claim("T8", "Fig. 6: 10 paced flows, C ∝ W_max: constant B = 5 declines; B ∝ log W_max stays ≈ 50 %",
          "≈ 0.5 (log B)"),
    Claim("T9", "Theorem 1: B(W=64, ρ=0.5, θ=0.9) = 15; Poisson-injection TCP there reaches θ ≥ 0.9",
          "B = 15; θ ≥ 0.9"),
    Claim("T10", "M/M/1 intuition: 0.75^20 ≈ 3.2e-3; M/D/1/20 loss far smaller (≈ 6e-6)", "3.2e-3; 6e-6"),
    Claim("T11", "Theorem 2 (slotted Monte Carlo): with S, B ∝ log W loss falls like 1/W²; S = 1 keeps it "
          "high", "W²·loss bounded"),
    Claim("T12", "§IV-A fixed point: constant B = 5 drives ρ from 0.53 to 0.09 (W 32 → 10^4); β ln W "
          "keeps it", "0.53 → 0.09"),
    Claim("T13", "At fixed load and small B, paced utilization does not depend on C, N or RTT",
          "independent"),
    Claim("T14", "Headline: 10–20 packet buffers give paced TCP 70–80 %+ from Mb/s to Gb/s", "≥ 0.70"),
]

CHOICES = [
    "RTTs uniform in [80, 120] ms (the paper gives only the 100 ms average); the sensitivity table below "
    "shows T1/T2's point with a fixed 100 ms and with [50, 150] ms.",
    "\"Reno\" is the engine's NewReno with SACK (RFC 6675 recovery), delayed ACKs off, initial window 2 "
    "(ns-2's `windowInit_`), minimum RTO 200 ms; \"paced\" is the same TCP with `tcp.pacing = \"rtt\"`: one "
    "packet every srtt / min(cwnd, W_max), §2.6's reading (Aggarwal et al.), retransmissions paced too.",
    "W_max caps the packets in flight (`tcp.max_window`), cwnd may grow past it (footnote 3).",
    "Access links 1 Gb/s (no link pacing) except in Fig. 5; flow starts uniform over the first 5 s.",
    "B counts the packets waiting, not the one being transmitted (ns-2's `limit_` counts both: B here is "
    "ns-2's limit − 1).",
    "Fig. 3's link rate is C = N × 3.2 Mb/s (peak load 0.8); its BDP buffer is C × 100 ms.",
    "Fig. 6: C such that the peak load is 0.55 (\"a little over 50 %\"), C = N·W_max / (0.1 s · 0.55); the "
    "log buffer is round(5·log10 W_max) (5 at W_max = 10, 16 at 1529).",
    "Fig. 5: W_max = 10,000 (unlimited), unpaced, B = 10, 100 flows, access rates from 1 to 1,000 Mb/s.",
    "Run lengths: the paper's 1,000 s with 200 s discarded where a run has at most 4·10^7 packets; longer "
    "bottlenecks run 4·10^7 packet times (at least 100 s, a fifth discarded). Quick mode: a tenth of that, "
    "fewer points and seeds.",
]


def _dur(rate_bps: float, quick: bool, full_s: float = 1000.0, budget_pkts: float = 4e7,
         quick_scale: float = 10.0) -> Tuple[float, float]:
    """Duration and warm-up: the paper's 1,000 s / 200 s, shortened for fast links (a packet budget), and
    by ``quick_scale`` in quick mode."""
    d = min(full_s, max(100.0, budget_pkts * PACKET_BITS / rate_bps))
    if quick:
        d = max(20.0, d / quick_scale)
    return d, d / 5


def scenario(n: int, rate_bps: float, buffer: int, paced: Any, quick: bool, *, w_max: int = W_MAX,
             rtt: Any = ("80ms", "120ms"), access: str = "1Gbps", cwnd: bool = False,
             sack: bool = True, quick_scale: float = 10.0) -> Dict[str, Any]:
    """One dumbbell run of the paper's setting; ``paced``: True (``"rtt"``), False or a ``tcp.pacing``."""
    duration, warmup = _dur(rate_bps, quick, quick_scale=quick_scale)
    sc: Dict[str, Any] = {
        "name": "tiny-buffers",
        "duration": f"{duration:g}s", "warmup": f"{warmup:g}s",
        "bottleneck": {"rate": f"{rate_bps:.10g}bps", "delay": "5ms",
                       "queue": {"discipline": "droptail", "limit": int(buffer)}},
        "flows": {"count": int(n), "rtt": {"uniform": list(rtt)} if isinstance(rtt, tuple) else rtt,
                  "access_rate": access, "start": {"uniform": ["0s", "5s"]}},
        "tcp": {"congestion_control": "newreno", "packet_size": "1000B", "max_window": int(w_max),
                "pacing": paced if isinstance(paced, str) else ("rtt" if paced else False),
                "initial_window": 2, "sack": sack},
    }
    if cwnd:
        sc["monitor"] = {"sample_interval": "100ms", "cwnd": True}
    return sc


def cwnd_stats(res: Any) -> Dict[str, Any]:
    """Fig. 2's numbers from a run's cwnd series: time-average cwnd, share of samples at or above W_max, and
    the first flow's trace (after warm-up) for the figure."""
    cw = res.cwnd_series
    warm = float(res.summary.get("warmup_s", 0.0))
    cw = cw[cw["time_s"] >= warm]
    vals = cw.drop(columns=["time_s"]).to_numpy(dtype=float)
    first = cw.columns[1]
    keep = cw[cw["time_s"] <= warm + 20.0]
    return {"cwnd_mean": float(vals.mean()), "cwnd_at_wmax": float((vals >= W_MAX).mean()),
            "trace_t": keep["time_s"].round(3).tolist(), "trace_cwnd": keep[first].round(2).tolist()}


# ------------------------------------------------------------------------------------------- experiments


def experiments(quick: bool, seeds: int) -> Dict[str, List[Task]]:
    """Every experiment's runs."""
    s = range(1, seeds + 1)
    ex: Dict[str, List[Task]] = defaultdict(list)
    buffers = [5, 10, 20, 50, 100] if quick else [5, 10, 20, 50, 75, 100, 150]
    # Fig. 1: 100 Mb/s, N in {1, 10, 20, 40}, Reno (a) and paced (c), utilization against the buffer.
    for n in (1, 10, 20, 40):
        for paced in (False, True):
            for b in buffers:
                for seed in s:
                    ex["fig1"].append(Task(scenario(n, 100e6, b, paced, quick), seed,
                                           {"n": n, "paced": paced, "buffer": b}))
    # Fig. 4: paced, 100 and 200 flows (20 and 40 are Fig. 1's runs).
    for n in (100, 200):
        for b in buffers:
            for seed in s:
                ex["fig4"].append(Task(scenario(n, 100e6, b, True, quick), seed,
                                       {"n": n, "paced": True, "buffer": b}))
    # Fig. 3: peak load 0.8, C = N x 3.2 Mb/s, B = 10; and a BDP buffer for two N.
    ns = [1, 10, 100] if quick else [1, 10, 30, 100, 300, 1000]
    for n in ns:
        c = n * 3.2e6
        for paced in (False, True):
            for seed in s:
                ex["fig3"].append(Task(scenario(n, c, 10, paced, quick), seed,
                                       {"n": n, "paced": paced, "buffer": 10}))
    for n in (10, 100):
        c = n * 3.2e6
        bdp = int(round(c * RTT_MEAN / PACKET_BITS))
        for paced in (False, True):
            for seed in s:
                ex["fig3"].append(Task(scenario(n, c, bdp, paced, quick), seed,
                                       {"n": n, "paced": paced, "buffer": bdp, "bdp": True}))
    # T13: the same load at other RTTs (N = 100): C scaled so that N W_max / (RTT C) = 0.8.
    for rtt in (0.05, 0.2):
        c = 100 * W_MAX * PACKET_BITS / (rtt * 0.8)
        lo, hi = f"{rtt * 0.8 * 1e3:g}ms", f"{rtt * 1.2 * 1e3:g}ms"
        for seed in s:
            ex["rtt"].append(Task(scenario(100, c, 10, True, quick, rtt=(lo, hi)), seed,
                                  {"n": 100, "paced": True, "rtt": rtt}))
    # Fig. 2: 500 flows, 1.5 Gb/s, B = 10, cwnd traces.
    for paced in (False, True):
        for seed in s:
            sc = scenario(500, 1.5e9, 10, paced, quick, cwnd=True)
            sc["duration"], sc["warmup"] = ("15s", "5s") if quick else ("80s", "20s")
            ex["fig2"].append(Task(sc, seed, {"paced": paced}, extract=f"{__name__}:cwnd_stats"))
    # Fig. 5: 1 Gb/s core, B = 10, unpaced, W_max 10,000, 100 flows, access-rate sweep.
    access = [2, 5, 8, 10, 20, 100, 1000] if quick else [1, 2, 4, 6, 8, 9, 10, 12, 15, 20, 50, 100, 1000]
    for a in access:
        for seed in s:
            sc = scenario(100, 1e9, 10, False, quick, w_max=10_000, access=f"{a}Mbps")
            sc["duration"], sc["warmup"] = ("15s", "5s") if quick else ("100s", "20s")
            ex["fig5"].append(Task(sc, seed, {"access_mbps": a}))
    # Fig. 6: 10 paced flows, C = N W / (0.1 s x 0.55), constant B = 5 against round(5 log10 W). Windows of
    # a thousand packets take a minute to grow, and the constant buffer's decline sits near T8's tolerance:
    # quick runs keep the full length and at least the full run's three seeds here, so that the points
    # they share (W_max 10 and 1529 decide T8) are the same runs and the quick check agrees with the full.
    ws = [10, 100, 1529] if quick else [10, 32, 100, 316, 1000, 1529]
    for w in ws:
        c = 10 * w * PACKET_BITS / (RTT_MEAN * 0.55)
        for kind, b in (("constant", 5), ("log", int(round(5 * math.log10(w))))):
            for seed in range(1, max(seeds, 3) + 1):
                ex["fig6"].append(Task(scenario(10, c, b, True, quick, w_max=w, quick_scale=1), seed,
                                       {"w_max": w, "kind": kind, "buffer": b}))
    # Theorem 1: Poisson-injection TCP, W_max 64, rho 0.5, B = 15 (14 waiting).
    import bufferlab  # noqa: PLC0415

    poisson = bufferlab.load_scenario("poisson-injection")
    if quick:
        poisson["duration"], poisson["warmup"] = "60s", "10s"
    for seed in s:
        ex["theorem1"].append(Task(poisson, seed, {"rho": 0.5, "w_max": 64, "buffer": 15}))
    # Sensitivity to what the paper does not say: the RTT distribution at T1/T2's point (N = 40, B = 10);
    # Reno without SACK at Fig. 3's N = 100; the other reading of Paced TCP (cwnd past W_max) at Fig. 1's,
    # Fig. 3's and Fig. 6's points.
    def sens(what: str, variant: str, sc: Dict[str, Any], **labels: Any) -> None:
        for seed in s:
            ex["sensitivity"].append(Task(sc, seed, {"what": what, "variant": variant, **labels}))

    for label, rtt in (("fixed 100 ms", "100ms"), ("U[50, 150] ms", ("50ms", "150ms"))):
        for paced in (False, True):
            sens("rtt", label, scenario(40, 100e6, 10, paced, quick, rtt=rtt), paced=paced)
    sens("reno", "no SACK", scenario(100, 320e6, 10, False, quick, sack=False))
    sens("pacing", "fig1", scenario(40, 100e6, 10, "cwnd", quick))
    sens("pacing", "fig3", scenario(100, 320e6, 10, "cwnd", quick))
    w = ws[-1]
    c6 = 10 * w * PACKET_BITS / (RTT_MEAN * 0.55)
    sens("pacing", "fig6-constant", scenario(10, c6, 5, "cwnd", quick, w_max=w))
    sens("pacing", "fig6-log", scenario(10, c6, int(round(5 * math.log10(w))), "cwnd", quick, w_max=w))
    return dict(ex)


# ------------------------------------------------------------------------------------------- evaluation


def _util(records: Sequence[Dict[str, Any]], **labels: Any):
    """The utilization estimate over the seeds of the runs matching ``labels``."""
    vals = [r["summary"]["utilization"] for r in records
            if all(r["labels"].get(k) == v for k, v in labels.items())]
    return estimate(vals)


def _metric(records: Sequence[Dict[str, Any]], path: Tuple[str, str], **labels: Any):
    vals = [r[path[0]][path[1]] for r in records if all(r["labels"].get(k) == v for k, v in labels.items())]
    return estimate(vals)


def evaluate(results: Dict[str, List[Dict[str, Any]]], quick: bool) -> List[Verdict]:
    """Every claim's verdict."""
    c = {cl.id: cl for cl in CLAIMS}
    f1, f3, f4 = results["fig1"], results["fig3"], results["fig1"] + results["fig4"]
    buffers = sorted({r["labels"]["buffer"] for r in f1})
    out: List[Verdict] = []

    u = _util(f1, n=40, paced=True, buffer=10)
    out.append(judge(c["T1"], str(u), "≥ 0.77 (3 points below 0.80)", u.mean >= 0.77))

    reno10 = _util(f1, n=40, paced=False, buffer=10)
    first80 = next((b for b in buffers if _util(f1, n=40, paced=False, buffer=b).mean > 0.8), None)
    out.append(judge(c["T2"], f"B = 10: {reno10}; first B above 0.80: {first80}",
                     "B=10 below 0.70; crossing B in [50, 150]",
                     reno10.mean < 0.70 and first80 is not None and 50 <= first80 <= 150))

    # The cap N·W_max/(RTT·C) with the flows' mean 1/RTT (RTTs uniform in [80, 120] ms): 1.0137/(100 ms).
    inv_rtt = math.log(1.5) / 0.04
    caps = {n: n * W_MAX * PACKET_BITS * inv_rtt / 100e6 for n in (1, 10, 20)}
    parts, ok = [], True
    for n, cap in caps.items():
        e = _util(f1, n=n, paced=True, buffer=10)
        parts.append(f"N={n}: {e} (cap {cap:.4f})")
        ok &= cap * 0.85 <= e.mean <= cap * 1.05
    out.append(judge(c["T3"], "; ".join(parts), "within [0.85, 1.05] × cap (the link also carries "
                     "retransmissions)", ok))

    ns = sorted({r["labels"]["n"] for r in f3 if not r["labels"].get("bdp")})
    paced = [_util(f3, n=n, paced=True, buffer=10) for n in ns]
    reno = [_util(f3, n=n, paced=False, buffer=10) for n in ns]
    pm = float(np.mean([e.mean for e in paced]))
    rm = float(np.mean([e.mean for e in reno]))
    spread_p = max(e.mean for e in paced) - min(e.mean for e in paced)
    spread_r = max(e.mean for e in reno) - min(e.mean for e in reno)
    flat = spread_p <= 0.10 and spread_r <= 0.10
    gaps = []
    bdp_n = sorted({r["labels"]["n"] for r in f3 if r["labels"].get("bdp")})
    for n in bdp_n:
        p = _metric([r for r in f3 if r["labels"].get("bdp")], ("summary", "utilization"), n=n, paced=True)
        q = _metric([r for r in f3 if r["labels"].get("bdp")], ("summary", "utilization"), n=n, paced=False)
        gaps.append(abs(p.mean - q.mean))
    t4_ok = abs(pm - 0.70) <= 0.07 and abs(rm - 0.20) <= 0.07 and flat and max(gaps) <= 0.05
    why = "" if t4_ok else (f"Reno at B = 10 gets {rm:.2f}, not 0.20 (without SACK: see the sensitivity "
                            "table)" if abs(rm - 0.20) > 0.07 else "")
    per_n = ", ".join(f"{n}: {p.mean:.2f}/{r.mean:.2f}" for n, p, r in zip(ns, paced, reno))
    out.append(judge(c["T4"], f"paced {pm:.3f}, Reno {rm:.3f} (mean over N; paced/Reno by N: {per_n}); "
                     f"range over N {spread_p:.2f}/{spread_r:.2f}; BDP-buffer gap {max(gaps):.3f}",
                     "±0.07 each; flat: range ≤ 0.10; gap ≤ 0.05", t4_ok, why))

    f2 = results["fig2"]
    pc = _metric(f2, ("extra", "cwnd_mean"), paced=True)
    rc = _metric(f2, ("extra", "cwnd_mean"), paced=False)
    pl = _metric(f2, ("summary", "loss_rate"), paced=True)
    rl = _metric(f2, ("summary", "loss_rate"), paced=False)
    r32 = _metric(f2, ("extra", "cwnd_at_wmax"), paced=False)
    out.append(judge(c["T5"], f"mean cwnd paced {pc} vs Reno {rc}; loss {pl} vs {rl}; Reno ≥ 32: {r32}",
                     "paced > Reno; fewer drops; Reno ≥ 32 in < 5 % of samples",
                     pc.mean > rc.mean and pl.mean < rl.mean and r32.mean < 0.05))

    b_ge10 = [b for b in buffers if b >= 10]
    worst = min(_util(f4, n=n, paced=True, buffer=b).mean for n in (100, 200) for b in b_ge10)
    u20 = _util(f4, n=20, paced=True, buffer=10)
    u40 = _util(f4, n=40, paced=True, buffer=20)
    t6 = worst >= 0.78 and abs(u20.mean - 0.5) <= 0.05 and 0.78 <= u40.mean <= 0.92
    out.append(judge(c["T6"], f"min over N = 100, 200 and B ≥ 10: {worst:.3f}; N = 20: {u20}; "
                     f"N = 40 (B = 20): {u40}", "≥ 0.78; 0.5 ± 0.05; [0.78, 0.92]", t6,
                     "40 flows do better here than the paper's 80–90 %" if u40.mean > 0.92 else ""))

    f5 = results["fig5"]
    acc = sorted({r["labels"]["access_mbps"] for r in f5})
    u5 = {a: _util(f5, access_mbps=a).mean for a in acc}
    linear = all(u5[a] >= 0.9 * min(1.0, a * 100 / 1000) for a in acc if a <= 8)
    peak = max(u5.values())
    falling = u5[acc[-1]] <= peak - 0.2
    out.append(judge(c["T7"], ", ".join(f"{a} Mb/s: {u5[a]:.2f}" for a in acc),
                     "≥ 90 % of N·access up to 8 Mb/s; at 1 Gb/s ≥ 0.2 below the peak", linear and falling))

    f6 = results["fig6"]
    ws = sorted({r["labels"]["w_max"] for r in f6})
    const = [_util(f6, w_max=w, kind="constant").mean for w in ws]
    logb = [_util(f6, w_max=w, kind="log").mean for w in ws]
    t8 = const[-1] <= const[0] - 0.15 and max(abs(x - 0.5) for x in logb) <= 0.08
    cw = _util(results["sensitivity"], what="pacing", variant="fig6-constant").mean
    why8 = "" if t8 else ("paced flows at 55 % peak load rarely overflow B = 5 when their gap is "
                          f"srtt/W_max; spreading cwnd past W_max (footnote 3's reading) gives {cw:.2f} at "
                          f"W_max {ws[-1]}")
    out.append(judge(c["T8"], "constant B: " + " → ".join(f"{x:.2f}" for x in const) + "; log B: "
                     + " → ".join(f"{x:.2f}" for x in logb) + f" (W_max {ws[0]} → {ws[-1]})",
                     "constant falls ≥ 0.15; log within 0.5 ± 0.08", t8, why8))

    b15 = int(enachescu.theorem1_buffer(64, 0.5, 0.9))
    th = estimate([r["summary"]["utilization"] / 0.5 for r in results["theorem1"]])
    out.append(judge(c["T9"], f"B = {b15}; θ = {th}", "B = 15 exactly; θ ≥ 0.90",
                     b15 == 15 and th.mean >= 0.9))

    tail = 0.75 ** 20
    md1 = float(queueing.md1k_loss(0.75, 20))
    out.append(judge(c["T10"], f"ρ^B = {tail:.3e}; M/D/1/20 = {md1:.2e}", "±5 % of 3.17e-3 and 6.0e-6",
                     abs(tail - 3.17e-3) / 3.17e-3 < 0.05 and abs(md1 - 6.0e-6) / 6.0e-6 < 0.05))

    wvals = [8, 16, 32, 64] if quick else [8, 16, 32, 64, 128, 256]
    reps = 20 if quick else 50
    logs = enachescu.slotted_loss_sweep(wvals, lambda w: math.ceil(4 * math.log(w)),
                                        lambda w: math.ceil(2 * math.log(w)), flows=128, load=0.5,
                                        replications=reps, seed=1)
    ones = enachescu.slotted_loss_sweep(wvals, 1, lambda w: math.ceil(2 * math.log(w)), flows=128, load=0.5,
                                        replications=reps, seed=1)
    w2 = [row["loss_times_wmax2"] for row in logs]
    high = min(row["loss"] for row in ones)
    t11 = max(w2) <= 5 and high >= 0.01
    why11 = "" if t11 else (f"with S = ⌈4 ln W⌉, B = ⌈2 ln W⌉ the loss falls ({logs[0]['loss']:.1e} → "
                            f"{logs[-1]['loss']:.1e} over W = {wvals[0]}…{wvals[-1]}) but more slowly than "
                            "1/W²; the theorem's c_S, c_B are only 'sufficiently large'")
    out.append(judge(c["T11"], "W²·loss with S, B ∝ log W: " + ", ".join(f"{x:.2g}" for x in w2)
                     + f"; S = 1: loss ≥ {high:.2g}", "W²·loss ≤ 5 at every W; S = 1 loss ≥ 0.01", t11,
                     why11))

    fp = [float(enachescu.fixed_point_utilization(w, 5, "under")) for w in (32, 100, 1000, 10_000)]
    beta = float(enachescu.fixed_point_utilization(1e12, 2 * math.log(1e12), "under"))
    out.append(judge(c["T12"], "B = 5: " + " → ".join(f"{x:.2f}" for x in fp) + f"; B = 2 ln W at W = 10^12: "
                     f"{beta:.3f} (limit e^-1 = {math.exp(-1):.3f})", "±0.02 of the note's table",
                     all(abs(a - b) <= 0.02 for a, b in zip(fp, (0.53, 0.37, 0.18, 0.09))) and beta > 0.3))

    rtt = results["rtt"]
    u_rtt = [_util(rtt, rtt=x).mean for x in (0.05, 0.2)] + [_util(f3, n=100, paced=True, buffer=10).mean]
    rng = max(u_rtt + [e.mean for e in paced]) - min(u_rtt + [e.mean for e in paced])
    hi_n = [e.mean for n, e in zip(ns, paced) if n >= 100]
    why13 = "" if rng <= 0.05 else (f"from 100 flows up paced TCP stays within {max(hi_n) - min(hi_n):.2f} "
                                    "(and across RTTs), but 10–30 flows get more and 1 flow less: at small N "
                                    "the aggregate is not the smooth superposition the argument assumes")
    out.append(judge(c["T13"], f"paced at load 0.8, B = 10: range {rng:.3f} over N = {ns} (C = 3.2 Mb/s … "
                     f"{ns[-1] * 3.2:g} Mb/s) and RTT 50/100/200 ms", "range ≤ 0.05", rng <= 0.05, why13))

    head = [e.mean for e in paced] + [_util(f1, n=40, paced=True, buffer=b).mean for b in (10, 20)]
    out.append(judge(c["T14"], f"paced, B 10–20: min {min(head):.3f} over Fig. 3 (3.2 Mb/s … "
                     f"{ns[-1] * 3.2:g} Mb/s) and Fig. 1", "≥ 0.70", min(head) >= 0.70))
    return out


def sensitivity(results: Dict[str, List[Dict[str, Any]]]) -> List[str]:
    """The report's tables of the choices the paper leaves open, each against the chosen setting."""
    sens, f1, f3, f6 = results["sensitivity"], results["fig1"], results["fig3"], results["fig6"]
    w = max(r["labels"]["w_max"] for r in f6)
    lines = ["RTT distribution (T1, T2: 40 flows, 100 Mb/s, B = 10):", "",
             "| RTTs | paced | Reno |", "|---|---|---|",
             f"| U[80, 120] ms (chosen) | {_util(f1, n=40, buffer=10, paced=True)} | "
             f"{_util(f1, n=40, buffer=10, paced=False)} |"]
    for label in ("fixed 100 ms", "U[50, 150] ms"):
        lines.append(f"| {label} | {_util(sens, what='rtt', variant=label, paced=True)} | "
                     f"{_util(sens, what='rtt', variant=label, paced=False)} |")
    lines += ["", "Reno's loss recovery (T4: Fig. 3, 100 flows, 320 Mb/s, B = 10):", "",
              "| TCP | utilization |", "|---|---|",
              f"| NewReno + SACK (chosen) | {_util(f3, n=100, paced=False, buffer=10)} |",
              f"| NewReno without SACK | {_util(sens, what='reno', variant='no SACK')} |"]
    lines += ["", "Paced TCP's reading (`tcp.pacing`): \"rtt\" spreads min(cwnd, W_max) over the RTT "
              "(chosen), \"cwnd\" spreads cwnd even past W_max (footnote 3):", "",
              "| point | \"rtt\" (chosen) | \"cwnd\" |", "|---|---|---|",
              f"| Fig. 1: 40 flows, B = 10 | {_util(f1, n=40, buffer=10, paced=True)} | "
              f"{_util(sens, what='pacing', variant='fig1')} |",
              f"| Fig. 3: 100 flows, 320 Mb/s, B = 10 | {_util(f3, n=100, paced=True, buffer=10)} | "
              f"{_util(sens, what='pacing', variant='fig3')} |",
              f"| Fig. 6: W_max = {w}, B = 5 | {_util(f6, w_max=w, kind='constant')} | "
              f"{_util(sens, what='pacing', variant='fig6-constant')} |",
              f"| Fig. 6: W_max = {w}, B = round(5 log10 W_max) | {_util(f6, w_max=w, kind='log')} | "
              f"{_util(sens, what='pacing', variant='fig6-log')} |"]
    return lines


# ------------------------------------------------------------------------------------------- figures


def figures(results: Dict[str, List[Dict[str, Any]]], out: Path) -> List[Tuple[str, str]]:
    """The paper's figures, drawn from the runs (mean over seeds, 95 % interval as error bars); PNG + SVG.
    Returns (file stem, caption) pairs."""
    figs = FigureSet(out)
    plt, save = figs.plt, figs.save

    def dress(ax: Any, xlabel: str, ylabel: str, top: float = 1.0, log: bool = False) -> None:
        if log:
            ax.set_xscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_ylim(0, top)
        ax.grid(alpha=0.3)
        ax.legend()

    def errorbar(ax: Any, xs: Sequence[float], ests: Sequence[Any], **kw: Any) -> None:
        m = np.array([e.mean for e in ests])
        lo = m - np.array([e.low for e in ests])
        hi = np.array([e.high for e in ests]) - m
        ax.errorbar(xs, m, yerr=[np.nan_to_num(lo), np.nan_to_num(hi)], marker="o", ms=4, capsize=2, **kw)

    f1, f4 = results["fig1"], results["fig1"] + results["fig4"]
    buffers = sorted({r["labels"]["buffer"] for r in f1})
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, paced, title in ((axes[0], False, "(a) TCP Reno"), (axes[1], True, "(c) Paced TCP")):
        for n in (1, 10, 20, 40):
            ests = [_util(f1, n=n, paced=paced, buffer=b) for b in buffers]
            errorbar(ax, buffers, ests, label=f"{n} flows")
        ax.set_title(title)
        ax.set_xlabel("Buffer size (packets)")
        ax.set_ylim(0, 1.05)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("Bottleneck link utilization")
    axes[1].legend()
    save(fig, "fig1", "Fig. 1: utilization against the buffer, 100 Mb/s, W_max = 32, RTT ~100 ms")

    fig, ax = plt.subplots(figsize=(6, 4))
    for n in (20, 40, 100, 200):
        errorbar(ax, buffers, [_util(f4, n=n, paced=True, buffer=b) for b in buffers], label=f"{n} flows")
    dress(ax, "Buffer size (packets)", "Bottleneck link utilization", top=1.05)
    save(fig, "fig4", "Fig. 4: paced TCP, 100 Mb/s, utilization against the buffer")

    f3 = results["fig3"]
    ns = sorted({r["labels"]["n"] for r in f3 if not r["labels"].get("bdp")})
    fig, ax = plt.subplots(figsize=(6, 4))
    for paced, label in ((True, "Paced TCP"), (False, "TCP Reno")):
        errorbar(ax, ns, [_util(f3, n=n, paced=paced, buffer=10) for n in ns], label=f"{label}, B = 10")
    ax.axhline(0.8, color="grey", ls=":", lw=1)
    dress(ax, "Number of flows (C = N × 3.2 Mb/s, peak load 0.8)", "Throughput (fraction of C)", log=True)
    save(fig, "fig3", "Fig. 3: throughput against the number of flows at 80 % peak load, B = 10")

    f2 = results["fig2"]
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for paced, label in ((True, "Paced TCP"), (False, "TCP Reno")):
        rec = next(r for r in f2 if r["labels"]["paced"] == paced)
        ax.step(rec["extra"]["trace_t"], rec["extra"]["trace_cwnd"], where="post", label=label, lw=0.9)
    ax.axhline(W_MAX, color="grey", ls=":", lw=1)
    ax.set_xlabel("Time (s)")
    ax.set_ylabel("CWND (packets), one flow")
    ax.grid(alpha=0.3)
    ax.legend()
    save(fig, "fig2", "Fig. 2: congestion window of one flow, 500 flows, 1.5 Gb/s, B = 10 (seed 1)")

    f5 = results["fig5"]
    acc = sorted({r["labels"]["access_mbps"] for r in f5})
    fig, ax = plt.subplots(figsize=(6, 4))
    errorbar(ax, acc, [_util(f5, access_mbps=a) for a in acc], label="100 flows, B = 10")
    dress(ax, "Access link bandwidth (Mb/s)", "Throughput (fraction of 1 Gb/s)", log=True)
    save(fig, "fig5", "Fig. 5: unpaced TCP over slow access links, 1 Gb/s core, B = 10, W_max = 10,000")

    f6 = results["fig6"]
    ws = sorted({r["labels"]["w_max"] for r in f6})
    fig, ax = plt.subplots(figsize=(6, 4))
    for kind, label in (("log", "B = round(5 log10 W_max)"), ("constant", "B = 5")):
        errorbar(ax, ws, [_util(f6, w_max=w, kind=kind) for w in ws], label=label)
    dress(ax, "Maximum window W_max (packets); C ∝ W_max", "Throughput (fraction of C)", log=True)
    save(fig, "fig6", "Fig. 6: 10 paced flows, constant against logarithmic buffers")
    return figs.made
