"""Stanojević & Shorten, "Trading link utilization for queueing delays: an adaptive approach" (Optimal
Drop-Tail and Optimal BLUE): Simulations A-I (Sec. 3 and 6), Tables 3 and 4, Theorem 1 (Sec. 4).

Every experiment is a set of engine runs (:class:`~bufferlab.reproduce.runner.Task`) over seeds; every claim
is a function that turns them into tests (an estimate over seeds with its 95 % interval, against the region
the paper's statement gives). The off-line optima are the best points of static sweeps (DropTail buffer
sizes, constant drop probabilities) by the benefit ``u − γ·aQd``; the online schemes are the engine's
``odt`` and ``ob`` disciplines.

The engine reports an adaptive discipline's state only at the end of a run (the port's ``queue_state``: the
value, its mean and standard deviation over the last W0 periods, its mean over the run). The trajectories of
``t_S`` and ``t_p`` are therefore runs of increasing length of the same scenario and seed: the engine is
deterministic and a run's first T seconds do not depend on its length, so the run ending at T gives the
state the long run had at T. Their cumulative counts give the utilization and delay between two such ends.
"""

from __future__ import annotations

import functools
import math
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
from scipy import stats

from bufferlab.reproduce.claims import (
    Claims,
    Context,
    Estimate,
    Outcome,
    Reading,
    Test,
    between,
    estimate,
    exact,
    ge,
    gt,
    le,
    lt,
    paired_by_seed,
)
from bufferlab.reproduce.plotting import FigureSet
from bufferlab.reproduce.runner import Task

NAME = "odt-ob"
TITLE = ("Stanojević & Shorten, \"Trading link utilization for queueing delays: an adaptive approach\" "
         "(Optimal Drop-Tail and Optimal BLUE)")

C_BPS = 80e6  # 10 MByte/s
PKT = 1000  # bytes
C_PPS = C_BPS / (8 * PKT)
GAMMAS = (2, 10, 20)
ALPHA = 1.05
DELTA = 2.0  # s
W0 = 30
T_S0 = 100e3  # bytes
T_P0 = 0.002
#: OB's smallest drop probability (the grid's lower end): the paper gives none; one flow's best t_p in
#: Sim I lies near 1e-7 to 1e-6 (the one-flow experiment), so the grid reaches well below it.
P_MIN = 1e-9
#: The region around an optimum: static settings whose benefit is within this of the best one.
REGION_EPS = 0.01
#: "≈" for the settling level (T4): within three grid steps of the paper's α (α³ = 1.158).
STEPS_APPROX = 3
#: A utilization change this small counts as flat (the sweeps' top and bottom, T1 and T2), and a delay
#: change this small (ms): 0.2 % of the link, 0.02 ms of queue.
FLAT_U = 0.002
FLAT_D_MS = 0.02

# ------------------------------------------------------------------------------------------- readings

#: The TCP readings: the principal one (the paper's ns-2 Reno) and the two alternatives, as `[tcp]` fields.
TCP_READINGS: Dict[str, Dict[str, Any]] = {
    "reno": {"recovery": "reno", "sack": False},
    "newreno": {"recovery": "newreno", "sack": False},
    "sack": {"recovery": "newreno", "sack": True},
}
READING_NAMES = {"reno": "classic Reno, no SACK", "newreno": "NewReno without SACK",
                 "sack": "NewReno with SACK"}
PRINCIPAL_TCP = "newreno"
ALTERNATIVES = ("reno", "sack")

PRINCIPAL = ("ns-2 of the paper's time, its TCP read from the paper's own Table 3: NewReno without SACK "
             "(Agent/TCP/Newreno), no delayed ACKs; OB's t_p from 0.002 down to 1e-9")

CHOICES = [
    "TCP (principal: NewReno without SACK). The paper names its simulator, \"Packet level ns2 "
    "simulations\" (Abstract; Sec. 3, \"we run two sets of packet level ns2 simulations\"; Sec. 6), but "
    "not its TCP: it speaks of \"TCP connections\" and \"Van Jacobson's congestion control algorithm "
    "[14]\" (Sec. 1), and its one model of TCP is \"the square root formula [25]\" (Sec. 2, Sim H), [25] "
    "being Padhye et al., \"Modeling TCP Reno performance\", cited for the formula and not as the "
    "simulated agent. ns-2 users of 2006-2007 ran one of its one-way agents, `Agent/TCP/Reno`, "
    "`Agent/TCP/Newreno` or `Agent/TCP/Sack1`, with a `TCPSink` (no delayed ACKs); the text does not say "
    "which, so the paper's own numbers decide: Table 3's off-line DropTail optima (B_γ = 0.9664, 0.9067, "
    "0.8683 for γ = 2, 10, 20) and its explanation that DropTail loses to random dropping through "
    "\"(partial) synchronization of losses\" (Sim E). In this reproduction's runs NewReno without SACK "
    "puts the DropTail optima about 0.01 from Table 3's, classic Reno (RFC 5681 recovery that leaves "
    "at the first new ACK, `tcp.recovery = \"reno\"`) 0.02-0.05 below them, and NewReno with SACK (RFC "
    "6675) lifts DropTail to CDP's level, removing the gap Sim E explains (the sensitivity table, \"Table "
    "3's off-line optima under each TCP\"). Both others are alternative readings, run where a TCP reading "
    "could decide a verdict (the sweeps' optima and the online runs of T3-T7, the small buffers and the "
    "CDP band of T10). Initial window 2, minimum RTO 200 ms, no window cap: with one flow \"Large buffer "
    "droptail queue (DT large) ... achieves 100% utilization\" (Sim I, Table 4 at N = 1), which ns-2's "
    "default window_ of 20 packets could not.",
    "Base setup: \"50 TCP connections with round trip times uniformly distributed in range [20, 220]ms and "
    "with packet size of 1000 bytes\" on \"a service rate of 10MBps\" (Sec. 3, Sim A; Sim F: "
    "\"10Mbyte/sec\", "
    "its UDP load of 1.4867 MByte/s being \"approximately 14.9%\" of it). Sim H's \"[20, 200]ms\" is read "
    "as the same set (\"The simulation setup is same as in Simulations A and B\"). Base RTTs are drawn "
    "uniformly per seed (a seed is one set of flows, the same in every experiment), starts uniform in the "
    "first second, 1 ms of propagation at the bottleneck inside the RTT; aQd is the mean wait of the "
    "packets served (not their own transmission); u counts every byte sent, UDP included.",
    "Sweeps (Sims A, B, H): \"We varied t_S from 1 to 300 packets\" (Sim A); \"a queue ... of size of 10000 "
    "packets (so that no packet is dropped because of overflow), such that every packet is dropped with "
    "probability t_p on the arrival\", \"We varied t_p in the range [10^-3, 10^-2]\" (Sim B); \"Each '+' "
    "corresponds to a 5 minute average\" (Sim H): 360-s runs measured after 60 s. DropTail limits count the "
    "packets waiting; CDP is the `ob` discipline with a sampling period longer than the run; t_p on the "
    "grid 1e-3·10^(k/20). The off-line optimum for γ is, per seed, the sweep point with that seed's best "
    "benefit (\"Having these graphs, we can, in an off-line manner, find the value of t_S (t_p) that "
    "maximizes benefit\", Sim E): the paper's optima are those of its one set of flows, and the knee of the "
    "CDP curve moves with the RTT draw, so every claim compares a seed's online result with its own optimum.",
    "ODT and OB: \"Δ = 2sec, α = 1.05, W0 = 30. The price function used in both cases is P_10(d) = 10·d. "
    "Initially: t_S(0) = 100Kbytes, t_p = 0.002\" (Sim D; Sim I: \"the ODT and OB parameters are the same as "
    "in the previous simulations\"). Where the paper is open: eq. 12 as a running mean (the printed weights "
    "keep a new grid point's stale estimate; the sensitivity table shows them), d̃ over all arrivals "
    "(\"TotQDelay ... for all NmbArrivals packets\", Sec. 4), the first step up, physical buffers of 10,000 "
    "packets, and OB's grid down to t_p = 1e-9: the paper gives no lower end (\"The memory requirements of "
    "OB are same as ODT\", Sec. 5), and one flow's best t_p in Sim I is below the 1e-6 this reproduction "
    "used before (the one-flow rows of the sensitivity table).",
    "Online 5-min averages (Table 3, T4-T7): \"The blue crosses on Figures 7 and 8 represent the long-run "
    "(5 minutes) averages\" (Sim E): the last 300 s of a 600-s run from t_S(0) = 100 KB or t_p(0) = 0.002 "
    "(the paper does not say when its 5 minutes start; the sensitivity table shows [100, 400] s). The "
    "settled level (T4) is the mean of t over the same 300 s.",
    "T4: \"The off-line (see Simulation E) optimal values are approximately t_S* ≈ 130Kbytes and t_p* ≈ "
    "0.0048\" (Sim D): these are the off-line optima, tested against each seed's best sweep point; \"≈\" is "
    f"read as within {STEPS_APPROX} grid steps of the paper's α (×/÷ α³ = 1.158). The online settling "
    "(Figs. 5, 6) is its own test: each seed's 5-min mean of t against that seed's off-line optimum, "
    "within the same three steps.",
    "T5: Table 3's online benefits are within 0.0004-0.0051 of the off-line optima (derived from Table 3); "
    "\"≈0.005\" holds for a gap only when its whole 95 % interval lies in [−0.005, 0.005].",
    "T8: \"We observed a slightly larger fluctuation in t_S and t_p compared to Simulation D\" (Sim F). The "
    "fluctuation of a run is the standard deviation of the grid index l over each window of W0 periods "
    "(the engine's `window_sd_steps`), averaged over the windows that make up the last 300 s; per seed, "
    "Sim F's over Sim D's (same flows, same seed). \"larger\": the ratio's interval above 1; "
    "\"slightly\": at most 2.",
    "Sim F: each of the 50 UDP sources alternates exponential on (mean 1 s) and off (mean 3 s) periods, "
    "starting in its stationary state; while on it sends 1000-byte packets at 1 Mb/s (\"The sending rate "
    "for the on-periods is 1000Kbit/sec\"): one constant-rate `[[udp]]` source per on period, drawn from "
    "the seed.",
    "T9: \"'convergence' to the optimal region takes 1-2 minutes in the present simulation\" (Sim G). The "
    f"optimal region of a load: the static settings whose benefit is within {REGION_EPS} of the seed's best "
    "(1 % of utilization or 1 ms of delay at γ = 10), widened by half a sweep step; re-entry is judged on "
    "the mean of t over 60-120 s after each change (the window mean of the run ending 120 s after it), "
    "in grid steps outside the seed's region for the new N (at most one step: the MIMD's own 4-cycle). "
    "The second group of 50 flows (its own RTT draws) starts uniformly in [300, 301] s and stops at 600 s; "
    "t_S(0) = 50 KB (\"Initially: t_S(0) = 50Kbytes and t_p(0) = 0.002\"); the N = 100 regions come from "
    "sweeps with both groups from the start.",
    "T10: \"for very small queue sizes (< 50 packets), loss rates are large and TCP dynamics is dominated "
    "by timeouts\" (Sim H): the mean loss rate below 50 packets at least twice that at 50 packets and "
    "above, and timeouts at least half of the loss recoveries below 50 packets; \"for t_p in range "
    "[0.005, 0.01], queueing delays are small (< 5ms) ... the JFI is roughly constant in this range\": "
    "aQd < 5 ms at the range's smallest t_p (aQd falls with t_p) and JFI(0.01) − JFI(0.005) within ±0.05.",
    "Table 4 (Sim I): \"The RTT of the flows are taken randomly in the range [100, 300]ms\"; DT small "
    "\"Q_max = 10ms\" = 100 packets, DT large \"Q_max = 200ms\" = 2000 packets; Adaptive RED (parameters "
    "not given) is the engine's `ared` with its defaults (Floyd et al. 2001: target delay 5 ms, automatic "
    "thresholds and weight) and a 2000-packet buffer; ODT and OB as in Sim D. Runs of 600 s measured over "
    "the last 300 s; N = 1 runs 2,000 s measured over the last 1,000 s (one flow's sawtooth lasts "
    "minutes). A cell holds when u is within ±0.05 of the paper's and aQd within ±30 % of it (at least "
    "±5 ms).",
    "Quick mode: the sweeps on fewer points (the same 360-s runs, among them every point the shape tests "
    "of T1 and T2 use) and Table 3's online runs exactly as in the full design, two seeds; one seed, fewer "
    "points and shorter runs for Sims C, F, G, I, the alternative readings and the one-flow runs; no "
    "sensitivity runs; seed 1's trajectories only at their ends.",
]


# ------------------------------------------------------------------------------------------- scenarios


def scenario(queue: Dict[str, Any], duration: float, warmup: float, *, n: int = 50,
             rtt: Tuple[str, str] = ("20ms", "220ms"), tcp: Optional[Dict[str, Any]] = None,
             udp: Optional[List[Dict[str, Any]]] = None, second_set: Optional[Tuple[float, float]] = None,
             monitor: Optional[str] = None, reading: str = PRINCIPAL_TCP) -> Dict[str, Any]:
    """One dumbbell run of the paper's setting under a TCP ``reading`` (:data:`TCP_READINGS`).
    ``second_set`` = (start, stop) adds Sim G's second group of ``n`` flows (start uniform over one second
    from ``start``; ``stop`` None: never); a run that ends before they start leaves them out (it is the same
    run as a longer one's beginning)."""
    flows: Dict[str, Any] = {"name": "set1", "count": n, "rtt": {"uniform": list(rtt)},
                             "start": {"uniform": ["0s", "1s"]}}
    sc: Dict[str, Any] = {
        "name": "odt-ob",
        "duration": f"{duration:g}s", "warmup": f"{warmup:g}s",
        "bottleneck": {"rate": f"{C_BPS:g}bps", "delay": "1ms", "queue": queue},
        "tcp": {"congestion_control": "newreno", "packet_size": f"{PKT}B", **TCP_READINGS[reading],
                "initial_window": 2, "delayed_ack": False, **(tcp or {})},
    }
    if second_set is None or duration < second_set[0] + 1:
        sc["flows"] = flows
    else:
        start, stop = second_set
        second: Dict[str, Any] = {"name": "set2", "count": n, "rtt": {"uniform": list(rtt)},
                                  "start": {"uniform": [f"{start:g}s", f"{start + 1:g}s"]}}
        if stop is not None:
            second["stop"] = f"{stop:g}s"
        sc["flows"] = [flows, second]
    if udp:
        sc["udp"] = udp
    if monitor:
        sc["monitor"] = {"sample_interval": monitor}
    return sc


def droptail(limit: int) -> Dict[str, Any]:
    return {"discipline": "droptail", "limit": int(limit)}


def cdp(p: float) -> Dict[str, Any]:
    """A constant drop probability: OB whose first update would come after the run (Δ = 1 h)."""
    return {"discipline": "ob", "limit": 10_000, "initial_probability": float(p), "min_probability": P_MIN,
            "interval": "3600s"}


def odt(gamma: float = 10, t0: float = T_S0, **opts: Any) -> Dict[str, Any]:
    return {"discipline": "odt", "limit": 10_000, "initial_limit_bytes": f"{t0:g}B", "gamma": gamma,
            "interval": f"{DELTA:g}s", "alpha": ALPHA, "window": W0, **opts}


def ob(gamma: float = 10, p0: float = T_P0, **opts: Any) -> Dict[str, Any]:
    return {"discipline": "ob", "limit": 10_000, "initial_probability": p0, "min_probability": P_MIN,
            "gamma": gamma, "interval": f"{DELTA:g}s", "alpha": ALPHA, "window": W0, **opts}


def ared(limit: int = 2000) -> Dict[str, Any]:
    return {"discipline": "ared", "limit": int(limit)}


#: Sim F's schedules are drawn over this horizon and cut at each run's end, so that a shorter run sees the
#: first part of a longer run's traffic.
UDP_HORIZON = 1000.0


@functools.lru_cache(maxsize=16)
def _onoff_periods(seed: int, sources: int, on_s: float, off_s: float) -> Tuple[Tuple[float, float], ...]:
    rng = np.random.default_rng(10_000 + seed)
    out = []
    for _ in range(sources):
        t, on = 0.0, bool(rng.random() < on_s / (on_s + off_s))
        while t < UDP_HORIZON:
            length = float(rng.exponential(on_s if on else off_s))
            if on:
                out.append((t, t + length))
            t += length
            on = not on
    return tuple(out)


def onoff_udp(seed: int, duration: float, sources: int = 50, on_s: float = 1.0, off_s: float = 3.0,
              rate_bps: float = 1e6) -> List[Dict[str, Any]]:
    """Sim F's exponential on/off sources as constant-rate ``[[udp]]`` sources, one per on period, each
    source starting in its stationary state (on with probability on/(on + off)); drawn over
    :data:`UDP_HORIZON` and cut at ``duration``."""
    return [{"pattern": "cbr", "rate": f"{rate_bps:g}bps", "packet_size": f"{PKT}B", "start": f"{a:.6f}s",
             "stop": f"{min(b, duration):.6f}s"}
            for a, b in _onoff_periods(seed, sources, on_s, off_s) if a < duration]


def udp_rate_series(udp: Sequence[Dict[str, Any]], duration: float, bin_s: float = 0.1) -> np.ndarray:
    """The aggregate rate (bytes/s) of constant-rate sources per ``bin_s`` bin: Fig. 10's samples."""
    counts = np.zeros(int(math.ceil(duration / bin_s)))
    for u in udp:
        start, stop = float(u["start"][:-1]), float(u["stop"][:-1])
        gap = PKT * 8 / float(u["rate"][:-3])
        times = np.arange(start, stop, gap)
        np.add.at(counts, np.minimum((times / bin_s).astype(int), counts.size - 1), 1)
    return counts * PKT / bin_s


# ------------------------------------------------------------------------------------------- extracts


def state(res: Any) -> Dict[str, Any]:
    """The port's adapted state at the end of the run."""
    return {"qs": dict(res.ports.iloc[0]["queue_state"])}


def state_and_queue(res: Any) -> Dict[str, Any]:
    """The state and the sampled queue (packets), for the trajectory figures."""
    q = res.queue_series
    return {**state(res), "t": q["time_s"].round(3).tolist(), "q": q["queue_pkts"].tolist()}


def period_delays(res: Any) -> Dict[str, Any]:
    """Sim C: the mean queueing delay of each Δ = 2 s and 5 s period (time-average of the queue sampled
    every 10 ms, over C)."""
    q = res.queue_series
    t, x = q["time_s"].to_numpy(), q["queue_pkts"].to_numpy() / C_PPS
    out = {}
    for d in (2, 5):
        k = (t // d).astype(int)
        n = int(t[-1] // d)
        out[f"d{d}"] = [float(x[k == i].mean()) for i in range(n)]
    return out


def period_utilization(res: Any) -> Dict[str, Any]:
    """One flow with an empty queue: the utilization of each 2-s period after the first 100 s, from its
    window sampled every 100 ms (window / base RTT / C), and the state."""
    rtt = float(res.flows.iloc[0]["rtt_s"])
    cw = res.cwnd_series
    t, w = cw["time_s"].to_numpy(), cw["flow_0"].to_numpy()
    keep = t > 100.0
    k = ((t[keep] - 100.0) // DELTA).astype(int)
    per = [float(w[keep][k == i].mean() / (rtt * C_PPS)) for i in range(int(k.max()) if k.size else 0)]
    return {**state(res), "u_periods": per}


# ------------------------------------------------------------------------------------------- experiments


def _cdp_grid(ks: Sequence[int]) -> List[float]:
    """Points of the constant-drop grid 1e-3·10^(k/20) (k = 0 … 20 spans [1e-3, 1e-2])."""
    return [1e-3 * 10 ** (k / 20) for k in ks]


#: The points the shape tests of T1 and T2 compare (chords between them): in both designs.
DT_BREAKS = (1, 10, 50, 100, 200, 300)
CDP_BREAKS = tuple(_cdp_grid((0, 5, 10, 15, 20)))
#: Sim H's CDP band [0.005, 0.01]: its first grid point (k = 14, 0.00501) and its end (k = 20).
CDP_BAND = tuple(_cdp_grid((14, 20)))


def _sweep_points(quick: bool) -> Tuple[List[int], List[float]]:
    """Sims A and B: DropTail buffers (packets waiting) and constant drop probabilities; quick keeps the
    chord points of T1 and T2, the points around the optima of γ = 2, 10, 20 and Sim H's band."""
    if quick:
        return [1, 10, 30, 50, 100, 120, 130, 140, 160, 200, 300], _cdp_grid((0, 5, 10, 13, 14, 15, 16, 17,
                                                                                20))
    limits = [1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 160, 180, 200, 250, 300]
    return limits, _cdp_grid(range(21))


def _near_optima(kind: str, x: float) -> bool:
    """Whether a sweep point is in the band of the off-line optima for γ = 2, 10, 20 and the optimal regions:
    DropTail from 60 packets, CDP from t_p = 0.0032 (k = 10)."""
    return x >= 60 if kind == "dt" else x >= _cdp_grid((10,))[0] * (1 - 1e-9)


def _static(results: Dict[str, List[Dict[str, Any]]]) -> List[Dict[str, Any]]:
    """Both parts of the static sweeps (Sims A, B, H)."""
    return list(results["sweep"]) + list(results["optima"])


def _alt_points(quick: bool) -> Tuple[List[int], List[float]]:
    """The alternative readings' sweeps (T3-T5): around the optima of γ = 2, 10, 20."""
    if quick:
        return [100, 130, 160, 200, 300], _cdp_grid((12, 14, 15, 16, 18))
    return [60, 80, 100, 120, 140, 160, 180, 200, 250, 300], _cdp_grid(range(10, 20))


def _simh_points(quick: bool) -> Tuple[List[int], List[float]]:
    """The alternative readings' Sim H runs (T10): buffers below and above 50 packets, and the CDP band."""
    if quick:
        return [1, 10, 30, 100], list(CDP_BAND)
    return [1, 5, 10, 20, 30, 40, 50, 60, 100, 200], list(CDP_BAND)


def _late_ends(quick: bool) -> List[float]:
    """Ends of the online runs (warm-up 300 s) whose W0-period window means cover the last 300 s; quick:
    the last 60 s."""
    return [600.0] if quick else [360.0, 420.0, 480.0, 540.0, 600.0]


def _trajectory_ends(quick: bool, horizon: float, step: float) -> List[float]:
    """Seed 1's trajectory: run ends one second after a period boundary (every period for the first
    minute, then every ``step``); quick: one."""
    if quick:
        return [301.0]
    return [2.0 * k + 1 for k in range(1, 31)] + [float(x) for x in np.arange(61.0 + step, horizon, step)]


def _table4_run(n: int, quick: bool) -> Tuple[float, float]:
    """Table 4's run length and warm-up: one flow's sawtooth lasts minutes, so N = 1 runs longer."""
    if quick:
        return (200.0, 100.0) if n == 1 else (100.0, 50.0)
    return (2000.0, 1000.0) if n == 1 else (600.0, 300.0)


SCHEMES4 = {"DT small": droptail(100), "DT large": droptail(2000), "ARED": ared(2000), "ODT": odt(),
            "OB": ob()}
#: The one-flow runs behind T11's cause (Sim I's N = 1, RTT drawn from [100, 300] ms): OB from 0.002 with
#: a five times larger step, and OB started at 1e-6, near one flow's best static t_p.
ONE_FLOW = {"alpha 1.25": ob(alpha=1.25), "from 1e-6": ob(p0=1e-6)}


def experiments(quick: bool, seeds: int) -> Dict[str, List[Task]]:
    """Every experiment's runs. Quick: the sweeps and online runs of Table 3 as in the full design (on
    fewer sweep points), one seed and shorter runs elsewhere."""
    s = list(range(1, seeds + 1))
    s1 = s[:1] if quick else s
    ex: Dict[str, List[Task]] = defaultdict(list)
    limits, probs = _sweep_points(quick)
    dur, warm = 360.0, 60.0
    short = (150.0, 30.0) if quick else (dur, warm)
    noise_len = 100.0 if quick else 300.0

    def task(exp: str, sc: Dict[str, Any], seed: int, labels: Dict[str, Any], extract: str = "") -> None:
        ex[exp].append(Task(sc, seed, labels, extract=f"{__name__}:{extract}" if extract else None))

    # Sims A, B, H: the static sweeps, 50 flows; the points around the optima are an experiment of their own
    # ("optima"), so that the claims on the optima grow only those.
    for seed in s:
        for b in limits:
            task("optima" if _near_optima("dt", b) else "sweep", scenario(droptail(b), dur, warm), seed,
                 {"kind": "dt", "x": b})
        for p in probs:
            task("optima" if _near_optima("cdp", p) else "sweep", scenario(cdp(p), dur, warm), seed,
                 {"kind": "cdp", "x": p})
    # Sim C: CDP at 0.005, the queue every 10 ms.
    for seed in s1:
        task("noise", scenario(cdp(0.005), noise_len, 0.0, monitor="10ms"), seed,
             {"kind": "cdp", "x": 0.005}, "period_delays")
    # Sims D and E: ODT and OB online. The late runs (warm-up 300 s) give the 5-min averages and window means;
    # the longest, Table 3's run, also samples the queue for the time plots.
    ends = _late_ends(quick)
    t_end = ends[-1]

    def online(exp: str, q: Dict[str, Any], seed: int, end: float, labels: Dict[str, Any],
               udp: Optional[List[Dict[str, Any]]] = None, reading: str = PRINCIPAL_TCP) -> None:
        last = end == t_end and reading == PRINCIPAL_TCP
        task(exp, scenario(q, end, 300.0, udp=udp, monitor="100ms" if last else None, reading=reading), seed,
             {**labels, "end": end}, "state_and_queue" if last else "state")

    for seed in s:
        for g in GAMMAS:
            for scheme, q in (("odt", odt(g)), ("ob", ob(g))):
                for end in ends if g == 10 else [t_end]:
                    online("online", q, seed, end, {"scheme": scheme, "gamma": g})
    # Sim F: the same with 50 on/off UDP sources; and static sweeps under that load.
    for seed in s1:
        for scheme, q in (("odt", odt()), ("ob", ob())):
            for end in ends:
                online("udp", q, seed, end, {"scheme": scheme}, onoff_udp(seed, end))
    ulimits, uprobs = ([80, 100, 130], [0.0066, 0.0079, 0.0094]) if quick else (
        [40, 60, 80, 100, 130, 160, 200, 250], [0.004, 0.0047, 0.0056, 0.0066, 0.0079, 0.0094, 0.011, 0.013])
    for seed in s1:
        udp = onoff_udp(seed, short[0])
        for b in ulimits:
            task("udp_sweep", scenario(droptail(b), *short, udp=udp), seed, {"kind": "dt", "x": b})
        for p in uprobs:
            task("udp_sweep", scenario(cdp(p), *short, udp=udp), seed, {"kind": "cdp", "x": p})
    # Sim G: 50 -> 100 -> 50 flows; the window means 120 s after each change (seed 1's longest run also
    # samples the queue); static sweeps at N = 100.
    g_end = 720.0 if quick else 900.0
    for seed in s1:
        for scheme, q in (("odt", odt(t0=50e3)), ("ob", ob())):
            for end in sorted({420.0, 720.0, g_end}):
                series = end == g_end and seed == 1
                task("load", scenario(q, end, 0.0, second_set=(300.0, 600.0),
                                      monitor="100ms" if series else None), seed,
                     {"scheme": scheme, "end": end}, "state_and_queue" if series else "state")
    glimits, gprobs = ([60, 80, 100], _cdp_grid((24, 26, 28))) if quick else (
        [20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 130, 160], _cdp_grid(range(15, 31)))
    for seed in s1:
        for b in glimits:
            task("sweep100", scenario(droptail(b), *short, second_set=(0.0, None)), seed,
                 {"kind": "dt", "x": b})
        for p in gprobs:
            task("sweep100", scenario(cdp(p), *short, second_set=(0.0, None)), seed, {"kind": "cdp", "x": p})
    # Seed 1's trajectories for the figures (Sims D, F, G): runs of increasing length, warm-up 0.
    for scheme, q in (("odt", odt()), ("ob", ob())):
        for end in _trajectory_ends(quick, t_end, 10.0):
            task("trajectory", scenario(q, end, 0.0), 1, {"sim": "D", "scheme": scheme, "end": end}, "state")
            task("trajectory", scenario(q, end, 0.0, udp=onoff_udp(1, end)), 1,
                 {"sim": "F", "scheme": scheme, "end": end}, "state")
        if not quick:
            qg = odt(t0=50e3) if scheme == "odt" else q
            for end in np.arange(11.0, g_end, 10.0):
                task("trajectory", scenario(qg, float(end), 0.0, second_set=(300.0, 600.0)), 1,
                     {"sim": "G", "scheme": scheme, "end": float(end)}, "state")
    # Sim I / Table 4: N = 1, 10, 100 flows, RTTs 100-300 ms, γ = 10.
    for n in (1, 10, 100):
        for name, q in SCHEMES4.items():
            for seed in s1:
                task("table4", scenario(q, *_table4_run(n, quick), n=n, rtt=("100ms", "300ms")), seed,
                     {"scheme": name, "n": n}, "state")
    # One flow (Sim I, N = 1): OB with a larger step and from near one flow's best t_p; the 2-s utilization
    # of a constant drop probability at 0.002 and one grid step below it (T11's cause).
    for seed in s1:
        for name, q in ONE_FLOW.items():
            task("one_flow", scenario(q, *_table4_run(1, False), n=1, rtt=("100ms", "300ms")), seed,
                 {"what": name}, "state")
        for p in (T_P0, T_P0 / ALPHA):
            sc = scenario(cdp(p), 2000.0, 100.0, n=1, rtt=("100ms", "300ms"))
            sc["monitor"] = {"sample_interval": "100ms", "cwnd": True}
            task("one_flow", sc, seed, {"what": "noise", "x": p}, "period_utilization")
    # The alternative TCP readings (T3-T7, T10): sweeps around the optima, the online runs of Table 3, Sim H.
    alimits, aprobs = _alt_points(quick)
    hlimits, hprobs = _simh_points(quick)
    for reading in ALTERNATIVES:
        for seed in s1:
            for b in alimits:
                task("alt_sweep", scenario(droptail(b), dur, warm, reading=reading), seed,
                     {"reading": reading, "kind": "dt", "x": b})
            for p in aprobs:
                task("alt_sweep", scenario(cdp(p), dur, warm, reading=reading), seed,
                     {"reading": reading, "kind": "cdp", "x": p})
            for g in GAMMAS:
                for scheme, q in (("odt", odt(g)), ("ob", ob(g))):
                    online("alt_online", q, seed, t_end, {"reading": reading, "scheme": scheme, "gamma": g},
                           reading=reading)
            for b in hlimits:
                task("alt_simh", scenario(droptail(b), dur, warm, reading=reading), seed,
                     {"reading": reading, "kind": "dt", "x": b})
            for p in hprobs:
                task("alt_simh", scenario(cdp(p), dur, warm, reading=reading), seed,
                     {"reading": reading, "kind": "cdp", "x": p})
    # Sensitivity (full runs only): eq. 12's printed weights, d̃ over accepted packets, the averaging window;
    # and OB's climb with a 1-s period (T8, T9).
    if not quick:
        for seed in s:
            for scheme, q in (("odt", odt()), ("ob", ob())):
                task("sensitivity", scenario(q, 400.0, 100.0), seed, {"what": "early", "scheme": scheme},
                     "state")
            for variant, opts in (("as-printed", {"estimator": "as-printed"}),
                                  ("accepted", {"delay_of": "accepted"})):
                for scheme, q in (("odt", odt(**opts)), ("ob", ob(**opts))):
                    task("sensitivity", scenario(q, t_end, 300.0), seed, {"what": variant, "scheme": scheme},
                         "state")
            for variant, opts in (("as-printed", {"estimator": "as-printed"}),
                                  ("accepted", {"delay_of": "accepted"}),
                                  ("1-s period", {"interval": "1s", "window": 60})):
                for end in (420.0, 720.0):
                    task("sensitivity", scenario(ob(**opts), end, 0.0, second_set=(300.0, 600.0)), seed,
                         {"what": "load", "variant": variant, "end": end}, "state")
            for delta, window in ((2, 30), (1, 60)):
                for end in (101.0, 201.0, 301.0):
                    task("sensitivity", scenario(ob(interval=f"{delta}s", window=window), end, 0.0), seed,
                         {"what": "climb", "delta": delta, "end": end}, "state")
    return dict(ex)


# ------------------------------------------------------------------------------------------- statistics

Record = Dict[str, Any]


def _pick(records: Sequence[Record], seed: Optional[int] = None, **labels: Any) -> List[Record]:
    """The records with these labels (and this seed)."""
    return [r for r in records if (seed is None or r["seed"] == seed)
            and all(r["labels"].get(k) == v for k, v in labels.items())]


def _est(records: Sequence[Record], fn: Callable[[Record], float], **labels: Any) -> Estimate:
    return estimate([fn(r) for r in _pick(records, **labels)])


def _u(r: Record) -> float:
    return r["summary"]["utilization"]


def _d(r: Record) -> float:
    return r["summary"]["delay_mean_s"]


def _benefit(gamma: float) -> Callable[[Record], float]:
    return lambda r: r["summary"]["utilization"] - gamma * r["summary"]["delay_mean_s"]


def _value(r: Record, window: bool = False) -> float:
    """ODT's t_S (bytes) or OB's t_p at the end of the run, or its mean over the last W0 periods."""
    qs = r["extra"]["qs"]
    if "limit_bytes" in qs:
        return qs["limit_window_mean_bytes" if window else "limit_bytes"]
    return qs["drop_probability_window_mean" if window else "drop_probability"]


def curve(records: Sequence[Record], kind: str) -> Tuple[List[float], Dict[str, List[Estimate]]]:
    """A static sweep's points (buffer in packets, or t_p) with u, aQd and B_γ over the seeds."""
    xs = sorted({r["labels"]["x"] for r in records if r["labels"]["kind"] == kind})
    out: Dict[str, List[Estimate]] = {"u": [], "d": []}
    for g in GAMMAS:
        out[f"B{g}"] = []
    for x in xs:
        out["u"].append(_est(records, _u, kind=kind, x=x))
        out["d"].append(_est(records, _d, kind=kind, x=x))
        for g in GAMMAS:
            out[f"B{g}"].append(_est(records, _benefit(g), kind=kind, x=x))
    return xs, out


def seed_optima(records: Sequence[Record], kind: str, gamma: float) -> Dict[int, Dict[str, float]]:
    """Each seed's off-line optimum: the sweep point with the best benefit for that seed's flows (their RTTs
    are drawn from the seed, the same in every experiment)."""
    by_seed: Dict[int, List[Record]] = defaultdict(list)
    for r in records:
        if r["labels"]["kind"] == kind:
            by_seed[r["seed"]].append(r)
    out = {}
    for seed, recs in sorted(by_seed.items()):
        best = max(recs, key=_benefit(gamma))
        out[seed] = {"x": best["labels"]["x"], "u": _u(best), "d": _d(best), "B": _benefit(gamma)(best)}
    return out


def optimum(records: Sequence[Record], kind: str, gamma: float) -> Dict[str, Estimate]:
    """The off-line optimum over the seeds: each seed's best sweep point (setting, u, aQd, B)."""
    per = seed_optima(records, kind, gamma)
    return {k: estimate([v[k] for v in per.values()]) for k in ("x", "u", "d", "B")}


def region(records: Sequence[Record], kind: str, seed: int, gamma: float = 10,
           eps: float = REGION_EPS) -> Tuple[float, float]:
    """One seed's optimal region: the static settings whose benefit is within ``eps`` of its best one,
    widened by half a grid step (geometric) on each side; in packets (DropTail) or drop probability."""
    recs = sorted((r for r in records if r["labels"]["kind"] == kind and r["seed"] == seed),
                  key=lambda r: r["labels"]["x"])
    xs = [r["labels"]["x"] for r in recs]
    b = np.array([_benefit(gamma)(r) for r in recs])
    ok = np.flatnonzero(b >= b.max() - eps)
    lo, hi = int(ok.min()), int(ok.max())
    x_lo = math.sqrt(xs[lo] * xs[lo - 1]) if lo > 0 else xs[lo]
    x_hi = math.sqrt(xs[hi] * xs[hi + 1]) if hi + 1 < len(xs) else xs[hi]
    return x_lo, x_hi


def _in_region(x: float, reg: Tuple[float, float]) -> bool:
    return reg[0] <= x <= reg[1]


def _seed_levels(records: Sequence[Record], **labels: Any) -> Dict[int, float]:
    """Per seed, the mean of t over the late runs' windows (together the last 300 s; quick: 60 s)."""
    per_seed: Dict[int, List[float]] = defaultdict(list)
    for r in _pick(records, **labels):
        per_seed[r["seed"]].append(_value(r, window=True))
    return {sd: float(np.mean(v)) for sd, v in sorted(per_seed.items())}


def _as_x(scheme: str, v: float) -> float:
    """ODT's t_S in packets (as the DropTail sweep's buffer), OB's t_p as it is."""
    return v / PKT if scheme == "odt" else v


def _equal_delay_gain(records: Sequence[Record], seed: int,
                      band: Tuple[float, float] = (2.5e-3, 11e-3)) -> float:
    """One seed's mean utilization gain of CDP over DropTail at equal delay: 12 delays, geometric, over the
    band of Table 3's optima (2.8-10.8 ms) where both curves reach (each interpolated between its points)."""
    def pts(kind: str) -> Tuple[np.ndarray, np.ndarray]:
        recs = sorted((r for r in records if r["labels"]["kind"] == kind and r["seed"] == seed), key=_d)
        return np.array([_d(r) for r in recs]), np.array([_u(r) for r in recs])

    (dd, du), (pd_, pu) = pts("dt"), pts("cdp")
    if dd.size < 2 or pd_.size < 2:
        return math.nan
    lo, hi = max(band[0], dd.min(), pd_.min()), min(band[1], dd.max(), pd_.max())
    if hi <= lo:
        return math.nan
    grid = np.geomspace(lo, hi, 12)
    return float((np.interp(grid, pd_, pu) - np.interp(grid, dd, du)).mean())


def _final(records: Sequence[Record]) -> float:
    return max(r["labels"]["end"] for r in records)




# ------------------------------------------------------------------------------------------- Theorem 1


def mimd_indices(benefit: Callable[[float], float], t0: float, alpha: float, steps: int,
                 first: int = 1) -> List[int]:
    """The grid indices l(k) of the MIMD sign rule (eq. 9-11) with the exact benefit as its estimate
    (an order-preserving B̂): keep the direction while B̂ does not fall, reverse it when it falls."""
    ls = [0]
    step = first
    for _ in range(steps):
        now = ls[-1]
        if len(ls) > 1:
            moved = 1 if now > ls[-2] else -1
            diff = benefit(t0 * alpha ** now) - benefit(t0 * alpha ** ls[-2])
            step = 1 if diff * moved >= 0 else -1
        ls.append(now + step)
    return ls


def theorem1_check(cases: int = 300, alpha: float = ALPHA, seed: int = 1) -> Dict[str, Any]:
    """Theorem 1 on concave benefits (quadratic, t*·ln t − t, and saturating utilization minus a convex
    delay) with random optima and starts: the share of runs ending in the 4-cycle t̄, t̄α, t̄, t̄/α, and the
    largest |t̄ − t*|/t*."""
    rng = np.random.default_rng(seed)
    ok, worst = 0, 0.0
    for i in range(cases):
        t_star = float(10 ** rng.uniform(-4, 6))
        t0 = t_star * float(10 ** rng.uniform(-2, 2))
        kind = i % 3
        if kind == 0:
            def b(t: float, ts: float = t_star) -> float:
                return -(t - ts) ** 2
        elif kind == 1:
            def b(t: float, ts: float = t_star) -> float:
                return ts * math.log(t) - t
        else:
            # u = 1 - exp(-t/tau), d = c t^2: B' = exp(-t/tau)/tau - 2 c gamma t = 0 at t*.
            tau = t_star * float(rng.uniform(0.3, 3.0))
            c = math.exp(-t_star / tau) / (tau * 2 * t_star * 10.0)

            def b(t: float, tau: float = tau, c: float = c) -> float:
                return 1 - math.exp(-t / tau) - 10.0 * c * t * t
        steps = int(abs(math.log(t0 / t_star)) / math.log(alpha)) + 40
        ls = mimd_indices(b, t0, alpha, steps)
        tail = ls[-8:]
        vals = sorted(set(tail))
        m = vals[len(vals) // 2]
        cycle = (vals == [m - 1, m, m + 1] and tail.count(m) == 4
                 and all(tail[j] == tail[j + 4] for j in range(4)))
        t_bar = t0 * alpha ** m
        err = abs(t_bar - t_star) / t_star
        worst = max(worst, err)
        ok += cycle and err < alpha - 1
    return {"cases": cases, "ok": ok, "worst": worst}


# ------------------------------------------------------------------------------------------- claims

#: Table 3 of the paper: (scheme, gamma) -> (aQd s, u, B as printed).
TABLE3 = {("ODT", 2): (0.01075, 0.9890, 0.9675), ("DT", 2): (0.01058, 0.9876, 0.9664),
          ("ODT", 10): (0.00471, 0.9544, 0.9074), ("DT", 10): (0.00521, 0.9589, 0.9067),
          ("ODT", 20): (0.00283, 0.9222, 0.8655), ("DT", 20): (0.00293, 0.9269, 0.8683),
          ("OB", 2): (0.00975, 0.9941, 0.9730), ("CDP", 2): (0.00973, 0.9945, 0.9749),
          ("OB", 10): (0.00591, 0.9745, 0.9153), ("CDP", 10): (0.00531, 0.9725, 0.9193),
          ("OB", 20): (0.00385, 0.9493, 0.8723), ("CDP", 20): (0.00394, 0.9562, 0.8774)}
#: Table 4 of the paper: scheme -> {N: (u, aQd s)}.
TABLE4 = {"ODT": {1: (0.88, 0.058), 10: (0.95, 0.016), 100: (0.99, 0.003)},
          "OB": {1: (0.89, 0.060), 10: (0.96, 0.014), 100: (0.99, 0.003)},
          "DT small": {1: (0.76, 0.001), 10: (0.85, 0.003), 100: (0.95, 0.005)},
          "DT large": {1: (1.00, 0.105), 10: (1.00, 0.161), 100: (1.00, 0.187)},
          "ARED": {1: (0.81, 0.022), 10: (0.99, 0.031), 100: (1.00, 0.054)}}

CLAIMS = Claims()


def _by_seed(records: Sequence[Record], fn: Callable[[Record], float], **labels: Any) -> Dict[int, float]:
    return {r["seed"]: fn(r) for r in _pick(records, **labels)}




def _seed_ratio(a: Dict[int, float], b: Dict[int, float]) -> Estimate:
    """The mean over the seeds that ran both of a/b."""
    return estimate([a[s] / b[s] for s in sorted(set(a) & set(b)) if b[s]])


def _reading(records: Sequence[Record], reading: str) -> List[Record]:
    return [r for r in records if r["labels"].get("reading") == reading]


def _curves(records: Sequence[Record], kind: str, xs: Sequence[float],
            fn: Callable[[Record], float]) -> Dict[int, List[float]]:
    """Per seed, fn at each of ``xs`` (a seed missing one of them is left out)."""
    out = {}
    for seed in sorted({r["seed"] for r in records}):
        vals = []
        for x in xs:
            hit = [r for r in records if r["seed"] == seed and r["labels"]["kind"] == kind
                   and math.isclose(r["labels"]["x"], x, rel_tol=1e-9)]
            if not hit:
                break
            vals.append(fn(hit[0]))
        else:
            out[seed] = vals
    return out


def _shape_tests(records: Sequence[Record], kind: str, xs: Sequence[float], fn: Callable[[Record], float],
                 name: str, *, rising: bool, concave: bool, flat: float, unit: str,
                 fmt: Callable[[float], str]) -> List[Test]:
    """Monotonicity and curvature of one static curve at the points ``xs``, each seed's curve a sample
    (paired over the seeds): at each inner point, how far the curve lies above the chord of its neighbours
    (≥ 0 concave; below it, ≥ 0, convex), and the change over the end chord where a concave rising (convex
    falling ...) curve is flattest, which with the curvature gives monotonicity everywhere. ``flat``: how
    much against the expected sign counts as flat (a linear or constant piece is both concave and convex)."""
    curves = _curves(records, kind, xs, fn)
    i = len(xs) - 2 if rising == concave else 0
    change = estimate([v[i + 1] - v[i] for v in curves.values()])
    tol = f", {flat:g}{' ' + unit if unit else ''} counts as flat" if flat else ""
    tests = [Test(f"{name}({fmt(xs[i + 1])}) − {name}({fmt(xs[i])}){f' ({unit})' if unit else ''}: the "
                  f"flattest chord ({'rising' if rising else 'falling'}{tol})", change,
                  ge(-flat) if rising else le(flat))]
    for k in range(1, len(xs) - 1):
        w = (xs[k] - xs[k - 1]) / (xs[k + 1] - xs[k - 1])
        above = estimate([(v[k] - ((1 - w) * v[k - 1] + w * v[k + 1])) * (1 if concave else -1)
                          for v in curves.values()])
        where = (f"{name}({fmt(xs[k])}) {'above' if concave else 'below'} the chord "
                 f"{fmt(xs[k - 1])}–{fmt(xs[k + 1])}")
        tests.append(Test(f"{where} ({unit + '; ' if unit else ''}{'concave' if concave else 'convex'}{tol})",
                          above, ge(-flat)))
    return tests


def _fp(x: float) -> str:
    return f"{x:.4g}"


def _fk(x: float) -> str:
    return f"{x:g}"


def _u_aqd_shape_tests(records: Sequence[Record], kind: str, xs: Sequence[float], *, rising: bool,
                       fmt: Callable[[float], str]) -> List[Test]:
    """A static sweep's shape tests: u concave, aQd (ms) convex, both rising or both falling."""
    return (_shape_tests(records, kind, xs, _u, "u", rising=rising, concave=True, flat=FLAT_U, unit="",
                         fmt=fmt)
            + _shape_tests(records, kind, xs, lambda r: _d(r) * 1e3, "aQd", rising=rising, concave=False,
                           flat=FLAT_D_MS, unit="ms", fmt=fmt))


@CLAIMS.claim("T1", "Sim A: DropTail, 50 flows: u(t_S) non-decreasing and concave, aQd(t_S) non-decreasing "
              "and convex for t_S from 1 to 300 packets (so B_γ is concave, by Lemma 1)",
              paper="\"convexity of aQd(t_S) ... together with concavity of u(t_S) implies concavity of the "
              "benefit B(t_S)\"", where="Sec. 3, Simulation A, Fig. 1")
def t1(ctx: Context) -> Outcome:
    sw = _static(ctx)
    tests = _u_aqd_shape_tests(sw, "dt", DT_BREAKS, rising=True, fmt=_fk)
    return Outcome(tests, why=_shape_why(tests, "t_S"))


@CLAIMS.claim("T2", "Sim B: constant drop probability (CDP), 50 flows: u(t_p) and aQd(t_p) decreasing on "
              "[1e-3, 1e-2], u concave, aQd convex (so B_γ is concave)",
              paper="\"convexity of aQd(t_p), together with concavity of u(t_p) implies concavity of the "
              "benefit B(t_p)\"", where="Sec. 3, Simulation B, Fig. 2")
def t2(ctx: Context) -> Outcome:
    sw = _static(ctx)
    tests = _u_aqd_shape_tests(sw, "cdp", CDP_BREAKS, rising=False, fmt=_fp)
    return Outcome(tests, why=_shape_why(tests, "t_p"))


def _shape_why(tests: Sequence[Test], var: str) -> str:
    off = [t for t in tests if t.result != "holds"]
    if not off:
        return ""
    return ("not decided or broken: " + "; ".join(f"{t.quantity} = {t.est}" for t in off)
            + f" (each seed's curve over the chord points is one sample; the sweep's points as a function of "
            f"{var} in Figs. 1-2)")


def _t3_tests(recs: Sequence[Record]) -> List[Test]:
    tests = []
    for g in GAMMAS:
        dt, cd = seed_optima(recs, "dt", g), seed_optima(recs, "cdp", g)
        tests.append(Test(f"γ = {g}: B_γ at the CDP optimum − at the DropTail optimum (each seed's flows)",
                          paired_by_seed({s: v["B"] for s, v in cd.items()},
                                         {s: v["B"] for s, v in dt.items()}),
                          gt(0), comparable=False))
    seeds = sorted({r["seed"] for r in recs})
    tests.append(Test("u(CDP) − u(DT) at equal aQd (mean over 2.5-11 ms, each seed's curves)",
                      estimate([_equal_delay_gain(recs, sd) for sd in seeds]), gt(0), comparable=False))
    return tests


@CLAIMS.claim("T3", "Fig. 9 / Table 3: at equal average delay CDP has the higher utilization, and the "
              "off-line optimum of CDP has the higher benefit for γ = 2, 10, 20",
              paper="\"a Drop-Tail queue that achieves average queueing delay d0 achieves less throughput "
              "than a queue with on-arrival random dropping, with the same average queueing delay d0\"; "
              "Table 3: 0.9749 > 0.9664, 0.9193 > 0.9067, 0.8774 > 0.8683",
              where="Sec. 6, Simulation E, Fig. 9, Table 3")
def t3(ctx: Context) -> Outcome:
    tests = _t3_tests(ctx["optima"])
    alts = [Reading(READING_NAMES[a], _t3_tests(_reading(ctx["alt_sweep"], a))) for a in ALTERNATIVES]
    return Outcome(tests, why=_reading_why(tests, alts, "the DropTail-CDP ordering at the optima"),
                   alternatives=alts)


def _reading_why(tests: Sequence[Test], alts: Sequence[Reading], what: str) -> str:
    off = [t for t in tests if t.result != "holds"]
    if not off:
        return ""
    out = [t for t in off if t.result == "differs"]
    text = "; ".join(f"{t.quantity} = {t.est} ({t.result})" for t in off)
    if not out:
        text += " (the interval still straddles the region's edge at these seeds)"
    others = "; ".join(f"{a.name}: " + ", ".join(f"{t.est.mean:+.4f}" for t in a.tests) for a in alts)
    return text + f". The TCP's loss recovery moves {what} (the other readings' means: {others})"


def _t4_tests(sweep: Sequence[Record], online: Sequence[Record]) -> List[Test]:
    a3 = ALPHA ** STEPS_APPROX
    dt, cd = seed_optima(sweep, "dt", 10), seed_optima(sweep, "cdp", 10)
    lvl_odt = _seed_levels(online, scheme="odt", gamma=10)
    lvl_ob = _seed_levels(online, scheme="ob", gamma=10)
    return [
        Test("off-line DropTail optimum, γ = 10 (KB; each seed's best sweep point)",
             estimate([v["x"] * PKT / 1e3 for v in dt.values()]), between(130 / a3, 130 * a3),
             comparable=False),
        Test("off-line CDP optimum t_p, γ = 10", estimate([v["x"] for v in cd.values()]),
             between(0.0048 / a3, 0.0048 * a3), comparable=False),
        Test("ODT's 5-min mean t_S over the same seed's off-line optimum",
             _seed_ratio(lvl_odt, {s: v["x"] * PKT for s, v in dt.items()}), between(1 / a3, a3),
             comparable=False),
        Test("OB's 5-min mean t_p over the same seed's off-line optimum",
             _seed_ratio(lvl_ob, {s: v["x"] for s, v in cd.items()}), between(1 / a3, a3), comparable=False)]


@CLAIMS.claim("T4", "Sim D (γ = 10): the off-line optima are ≈130 KB (DropTail) and ≈0.0048 (CDP), and ODT "
              "and OB, from t_S = 100 KB and t_p = 0.002, settle around them",
              paper="\"The off-line (see Simulation E) optimal values are approximately t_S* ≈ 130Kbytes and "
              "t_p* ≈ 0.0048\"", where="Sec. 6, Simulation D, Figs. 5-6")
def t4(ctx: Context) -> Outcome:
    sw, on = ctx["optima"], ctx["online"]
    tests = _t4_tests(sw, on)
    why = []
    for t in tests:
        if t.result == "holds":
            continue
        if t.quantity.startswith("off-line"):
            kind = "dt" if "DropTail" in t.quantity else "cdp"
            why.append(f"{t.quantity} = {t.est} ({t.result}); by seed "
                       + ", ".join(_fmt_x(kind, v["x"] * (PKT / 1e3 if kind == "dt" else 1.0))
                                   for v in seed_optima(sw, kind, 10).values())
                       + ": each seed is one draw of the 50 RTTs and the optimum moves with it (square-root "
                       "law: the knee goes with (Σ 1/RTT_i)²), and with the TCP (the sensitivity table); the "
                       "paper's values are those of its one set of flows")
        elif t.result == "differs":
            why.append(f"{t.quantity} = {t.est}: the 5-min mean lies more than three grid steps from the "
                       "seed's own optimum (T5's gaps, Figs. 7-8)")
        else:
            why.append(f"{t.quantity} = {t.est} (not decided): each seed's optimum is a single sweep point "
                       "(10 packets or 12 % of t_p apart), so the ratio is noisy")
    return Outcome(tests, why="; ".join(why))


def _gap(on: Sequence[Record], sweep: Sequence[Record], scheme: str, g: float) -> Estimate:
    kind = "dt" if scheme == "odt" else "cdp"
    opt = seed_optima(sweep, kind, g)
    end = _final(on)
    return paired_by_seed(_by_seed(on, _benefit(g), scheme=scheme, gamma=g, end=end),
                          {s: v["B"] for s, v in opt.items()})


def _t5_tests(on: Sequence[Record], sweep: Sequence[Record]) -> List[Test]:
    return [Test(f"{s.upper()} γ = {g}: online 5-min B_γ − the same seed's off-line optimum",
                 _gap(on, sweep, s, g), between(-0.005, 0.005), comparable=False)
            for s in ("odt", "ob") for g in GAMMAS]


@CLAIMS.claim("T5", "Table 3: the online 5-min averages of ODT and OB reach a benefit within ≈0.005 of the "
              "off-line optimum for γ = 2, 10, 20",
              paper="Table 3: online − off-line B_γ = +0.0011, +0.0007, −0.0028 (ODT), −0.0019, −0.0040, "
              "−0.0051 (OB) (derived from Table 3)", where="Sec. 6, Simulation E, Table 3, Figs. 7-8")
def t5(ctx: Context) -> Outcome:
    tests = _t5_tests(ctx["online"], ctx["optima"])
    off = [t for t in tests if t.result != "holds"]
    why = ""
    if off:
        wide = [t for t in off if t.result == "inconclusive"]
        out = [t for t in off if t.result == "differs"]
        why = "; ".join(
            ([f"beyond ±0.005: {', '.join(f'{t.quantity} = {t.est}' for t in out)} (the online 5-min "
              "average lies off the static curve it searches, Figs. 7-8)"] if out else [])
            + ([f"not decided: {', '.join(f'{t.quantity} = {t.est}' for t in wide)} (the gap's interval is "
                "wider than the ±0.005 band or straddles its edge; the off-line optimum is each seed's best "
                "of noisy sweep points, as the paper's)"] if wide else []))
    return Outcome(tests, why=why)


def _t6_tests(on: Sequence[Record]) -> List[Test]:
    end = _final(on)
    return [Test(f"γ = {g}: OB's online 5-min B_γ − ODT's (same seeds)",
                 paired_by_seed(_by_seed(on, _benefit(g), scheme="ob", gamma=g, end=end),
                                _by_seed(on, _benefit(g), scheme="odt", gamma=g, end=end)), gt(0))
            for g in GAMMAS]


@CLAIMS.claim("T6", "Table 3: OB's online benefit exceeds ODT's for every γ",
              paper="\"in TCP environments, OB outperforms ODT in terms of maximization the benefit B\"; "
              "Table 3: 0.9730 > 0.9675, 0.9153 > 0.9074, 0.8723 > 0.8655", where="Sec. 6, Simulation E, "
              "Table 3")
def t6(ctx: Context) -> Outcome:
    tests = _t6_tests(ctx["online"])
    alts = [Reading(READING_NAMES[a], _t6_tests(_reading(ctx["alt_online"], a))) for a in ALTERNATIVES]
    return Outcome(tests, why=_reading_why(tests, alts, "whether OB's benefit is above ODT's"),
                   alternatives=alts)


def _t7_tests(on: Sequence[Record]) -> List[Test]:
    end = _final(on)
    tests = []
    for s in ("odt", "ob"):
        for key, fn, scale, unit in (("aQd", _d, 1e3, " (ms)"), ("u", _u, 1.0, "")):
            for a, b in ((2, 10), (10, 20)):
                def f(r: Record, fn: Callable[[Record], float] = fn, scale: float = scale) -> float:
                    return fn(r) * scale

                va = _by_seed(on, f, scheme=s, gamma=a, end=end)
                vb = _by_seed(on, f, scheme=s, gamma=b, end=end)
                tests.append(Test(f"{s.upper()}: {key} at γ = {a} − at γ = {b}{unit}", paired_by_seed(va, vb),
                                  gt(0)))
    return tests


@CLAIMS.claim("T7", "Table 3: a larger γ lowers both the achieved aQd and u, for both schemes",
              paper="Table 3: ODT aQd 10.75 → 4.71 → 2.83 ms, u 0.9890 → 0.9544 → 0.9222; OB 9.75 → 5.91 → "
              "3.85 ms, 0.9941 → 0.9745 → 0.9493", where="Sec. 6, Simulation E, Table 3")
def t7(ctx: Context) -> Outcome:
    tests = _t7_tests(ctx["online"])
    alts = [Reading(READING_NAMES[a], _t7_tests(_reading(ctx["alt_online"], a))) for a in ALTERNATIVES]
    off = [t for t in tests if t.result != "holds"]
    return Outcome(tests, why="; ".join(f"{t.quantity} = {t.est}" for t in off)
                   + (": γ's steps move the optimum less than the online noise" if off else ""),
                   alternatives=alts)


def _fluct(records: Sequence[Record], **labels: Any) -> Dict[int, float]:
    """Per seed, the mean over the late windows of the standard deviation of the grid index (grid steps)."""
    per: Dict[int, List[float]] = defaultdict(list)
    for r in _pick(records, **labels):
        v = r.get("extra", {}).get("qs", {}).get("window_sd_steps")
        if v is not None:
            per[r["seed"]].append(v)
    return {sd: float(np.mean(v)) for sd, v in sorted(per.items())}


@CLAIMS.claim("T8", "Sim F: with 50 on/off UDP sources (≈15 % of the link) t_S and t_p fluctuate slightly "
              "more than in Sim D",
              paper="\"We observed a slightly larger fluctuation in t_S and t_p compared to Simulation D\"",
              where="Sec. 6, Simulation F, Figs. 11-12")
def t8(ctx: Context) -> Outcome:
    ud, on = ctx["udp"], ctx["online"]
    tests = []
    for scheme in ("odt", "ob"):
        r = _seed_ratio(_fluct(ud, scheme=scheme), _fluct(on, scheme=scheme, gamma=10))
        tests.append(Test(f"{scheme.upper()}: fluctuation with UDP / without (sd of the grid index per W0 "
                          "window, last 300 s; larger)", r, gt(1), comparable=False))
        tests.append(Test(f"{scheme.upper()}: the same ratio (slightly: at most 2)", r, le(2),
                          comparable=False))
    off = [t for t in tests if t.result != "holds"]
    why = ""
    if off:
        parts = []
        for scheme in ("odt", "ob"):
            a, b = _fluct(ud, scheme=scheme), _fluct(on, scheme=scheme, gamma=10)
            parts.append(f"{scheme.upper()} {np.mean(list(a.values())):.2f} steps with UDP vs "
                         f"{np.mean(list(b.values())):.2f} without")
        low = [t for t in off if t.result == "differs" and t.region.op == ">"]
        high = [t for t in off if t.result == "differs" and t.region.op == "<="]
        why = "; ".join(f"{t.quantity} = {t.est} ({t.result})" for t in off) + " (" + ", ".join(parts) + ")"
        if low:
            why += (": the MIMD's wandering around its optimum (the 4-cycle and its excursions, Figs. 5-6 "
                    "and 11-12) is not wider with the UDP load; cause not isolated (the TCP queue's own "
                    "per-period noise, Sim C, may already dominate the benefit's)")
        elif high:
            why += ": more than slightly larger with the UDP load"
        else:
            why += ": not decided at these seeds"
    return Outcome(tests, why=why)


def _steps_outside(x: float, reg: Tuple[float, float]) -> float:
    if reg[0] <= x <= reg[1]:
        return 0.0
    return math.log(reg[0] / x if x < reg[0] else x / reg[1]) / math.log(ALPHA)


@CLAIMS.claim("T9", "Sim G: when N doubles (300 s) and halves (600 s), ODT and OB are back in the optimal "
              "region within 1-2 minutes",
              paper="\"'convergence' to the optimal region takes 1-2 minutes in the present simulation\"",
              where="Sec. 6, Simulation G, Figs. 13-15")
def t9(ctx: Context) -> Outcome:
    ld, sw, sw100 = ctx["load"], ctx["optima"], ctx["sweep100"]
    tests = []
    for scheme, kind in (("odt", "dt"), ("ob", "cdp")):
        for change, n_new, end, sweep in ((300, 100, 420.0, sw100), (600, 50, 720.0, sw)):
            out = [_steps_outside(_as_x(scheme, _value(r, window=True)), region(sweep, kind, r["seed"]))
                   for r in _pick(ld, scheme=scheme, end=end) if r["seed"] in {x["seed"] for x in sweep}]
            tests.append(Test(f"{scheme.upper()} after {change} s (N → {n_new}): mean t over 60-120 s after, "
                              "grid steps outside the seed's optimal region", estimate(out), le(1),
                              comparable=False))
    off = [t for t in tests if t.result != "holds"]
    why = []
    if any(t.quantity.startswith("OB") for t in off):
        snr = _climb_snr(ctx["noise"], sw)
        why.append(
            "; ".join(f"{t.quantity.split(':')[0]}: {t.est} grid steps outside ({t.result})" for t in off
                      if t.quantity.startswith("OB"))
            + ". The optimum moves with N² (square-root law): t_p has to be multiplied by about 4 at 300 s "
            "and divided by it at 600 s, at least 28 MIMD periods (56 s). " + snr + " So the sign rule is "
            "a biased coin and t_p climbs a net step every several periods, slower still while the queue "
            "drifts after the change (the new flows' slow start, the old flows' regrowth), which the rule "
            "credits to its last move (Fig. 15; Sim D's start, Fig. 6). The readings the paper leaves open "
            "do not bring it into the region in time (eq. 12's printed weights, d̃ over accepted packets: the "
            "sensitivity table's Sim G rows, full runs), nor does a 1-s period, which the paper does not use "
            "and which climbs faster from 0.002 (the climb table)")
    if any(t.quantity.startswith("ODT") for t in off):
        why.append("; ".join(f"{t.quantity.split(':')[0]}: {t.est} grid steps outside ({t.result})"
                             for t in off if t.quantity.startswith("ODT"))
                   + " (the DropTail optima of 50 and 100 flows are close, the regions table, and ODT's "
                   "benefit is flat around them, Fig. 14, so the same noisy sign rule moves it slowly "
                   "between them)")
    return Outcome(tests, why="; ".join(why))


def _climb_snr(noise: Sequence[Record], sweep: Sequence[Record]) -> str:
    """Sim C's per-period noise of 10·d̃ against the benefit's change per grid step on OB's climb (Sim B)."""
    sd = [float(np.std(r["extra"]["d2"], ddof=1)) * 10 for r in noise if len(r["extra"]["d2"]) > 2]
    lo, hi = _cdp_grid((10, 14))
    b = _curves(sweep, "cdp", (lo, hi), _benefit(10))
    if not sd or not b:
        return ""
    steps = math.log(hi / lo) / math.log(ALPHA)
    per_step = float(np.mean([(v[1] - v[0]) / steps for v in b.values()]))
    noise_sd = float(np.mean(sd))
    p = float(stats.norm.cdf(per_step / (math.sqrt(2) * noise_sd)))
    return (f"On the climb (t_p {lo:.4f} → {hi:.4f}, Sim B) B_10 rises {per_step:.4f} per grid step, while "
            f"10·d̃ of one 2-s period varies with a standard deviation of {noise_sd:.4f} (Sim C, t_p = "
            "0.005): "
            f"one comparison of two periods points up with probability about {p:.2f}.")


def _t10_tests(recs: Sequence[Record]) -> List[Test]:
    seeds = sorted({r["seed"] for r in recs})

    def loss(r: Record) -> float:
        return r["summary"]["loss_rate"]

    def to_share(r: Record) -> float:
        s = r["summary"]
        return s["timeouts"] / max(1, s["timeouts"] + s["fast_retransmits"])

    small, big, share = {}, {}, {}
    for sd in seeds:
        dt = _pick(recs, seed=sd, kind="dt")
        a = [loss(r) for r in dt if r["labels"]["x"] < 50]
        b = [loss(r) for r in dt if r["labels"]["x"] >= 50]
        if a and b:
            small[sd], big[sd] = float(np.mean(a)), float(np.mean(b))
            share[sd] = float(np.mean([to_share(r) for r in dt if r["labels"]["x"] < 50]))
    lo, hi = CDP_BAND
    d_lo = _curves(recs, "cdp", (lo,), lambda r: _d(r) * 1e3)
    jfi = _curves(recs, "cdp", (lo, hi), lambda r: r["summary"]["jain_index"])
    return [Test("loss rate below 50 packets over the loss rate at 50 packets and above (DropTail)",
                 _seed_ratio(small, big), ge(2), comparable=False),
            Test("timeouts' share of the loss recoveries below 50 packets", estimate(share.values()), ge(0.5),
                 comparable=False),
            Test(f"CDP: aQd at t_p = {lo:.4f} (the band's smallest t_p; ms)",
                 estimate(v[0] for v in d_lo.values()), lt(5)),
            Test(f"CDP: JFI at t_p = {hi:.3f} − at {lo:.4f}", estimate(v[1] - v[0] for v in jfi.values()),
                 between(-0.05, 0.05))]


@CLAIMS.claim("T10", "Sim H: DropTail below 50 packets: high loss, timeouts dominate; CDP with t_p in "
              "[0.005, 0.01]: aQd < 5 ms and JFI about constant",
              paper="\"for very small queue sizes (< 50 packets), loss rates are large and TCP dynamics is "
              "dominated by timeouts\"; \"for t_p in range [0.005, 0.01], queueing delays are small (< 5ms) "
              "... the JFI is roughly constant in this range\"", where="Sec. 6, Simulation H, Figs. 16-17")
def t10(ctx: Context) -> Outcome:
    tests = _t10_tests(_static(ctx))
    alts = [Reading(READING_NAMES[a], _t10_tests(_reading(ctx["alt_simh"], a))) for a in ALTERNATIVES]
    off = [t for t in tests if t.result != "holds"]
    why = []
    for t in off:
        if t.quantity.startswith("timeouts"):
            why.append(f"{t.quantity} = {t.est}: fast retransmit still repairs most losses below 50 packets "
                       "(50 flows keep enough packets in flight for three duplicate ACKs)")
        elif t.quantity.startswith("CDP: aQd"):
            why.append(f"{t.quantity} = {t.est}: the band starts at the knee of these flows' CDP curve "
                       "(T4: their optimum lies above 0.005), where the queue is still several ms")
        elif t.quantity.startswith("CDP: JFI"):
            why.append(f"{t.quantity} = {t.est}: JFI still moves with t_p up to the knee (Fig. 17)")
        else:
            why.append(f"{t.quantity} = {t.est}")
    flips = [a.name for a in alts if all(x.result == "holds" for x in a.tests)]
    if why and flips:
        why.append(f"holds with {', '.join(flips)}")
    return Outcome(tests, why="; ".join(why), alternatives=alts)


def _cells(t4: Sequence[Record], schemes: Sequence[str]) -> List[Test]:
    tests = []
    for s in schemes:
        for n in (1, 10, 100):
            u_p, d_p = TABLE4[s][n]
            tol = max(0.005, 0.3 * d_p)
            tests.append(Test(f"{s}, N = {n}: u", _est(t4, _u, scheme=s, n=n),
                              between(u_p - 0.05, u_p + 0.05), comparable=False))
            tests.append(Test(f"{s}, N = {n}: aQd (ms)", _est(t4, lambda r: _d(r) * 1e3, scheme=s, n=n),
                              between(max(0.0, d_p - tol) * 1e3, (d_p + tol) * 1e3), comparable=False))
    return tests


@CLAIMS.claim("T11", "Table 4 (γ = 10, N = 1/10/100 flows, RTTs 100-300 ms): ODT's and OB's utilization and "
              "delay as the paper's",
              paper="ODT 0.88/58 ms, 0.95/16 ms, 0.99/3 ms; OB 0.89/60 ms, 0.96/14 ms, 0.99/3 ms",
              where="Sec. 6, Simulation I, Table 4")
def t11(ctx: Context) -> Outcome:
    t4 = ctx["table4"]
    tests = _cells(t4, ("ODT", "OB"))
    off = [t for t in tests if t.result != "holds"]
    if not off:
        return Outcome(tests)
    why = ["cells not holding: " + "; ".join(f"{t.quantity} = {t.est} ({t.result})" for t in off)]
    if any(t.quantity.startswith("OB, N = 1:") or t.quantity.startswith("OB, N = 10:") for t in off):
        why.append(_one_flow_why(ctx["one_flow"], t4))
    if any(t.quantity.startswith("ODT") for t in off):
        why.append("ODT at few flows: one flow's window grows for minutes after each loss while the queue is "
                   "empty and t_S does not bind, and the sign rule credits the rising utilization to its "
                   "last "
                   "move (the same drift as OB's; Sim I gives no trajectories to compare)")
    return Outcome(tests, why="; ".join(why))


def _one_flow_why(one: Sequence[Record], t4: Sequence[Record]) -> str:
    noise = {r["labels"]["x"]: r for r in _pick(one, what="noise")}
    parts = []
    if len(noise) == 2:
        a, b = noise[T_P0]["extra"]["u_periods"], noise[T_P0 / ALPHA]["extra"]["u_periods"]
        step = float(np.mean(b) - np.mean(a))
        parts.append(f"with one flow at t_p = 0.002 the utilization of a 2-s period is {np.mean(a):.4f} "
                     f"with a standard deviation of {np.std(a, ddof=1):.4f}, and one grid step down raises "
                     "its mean by "
                     f"{step:+.4f} (seed {min(r['seed'] for r in noise.values())}): the sign rule's "
                     "comparisons "
                     "are nearly a fair coin, so t_p wanders instead of falling the ~150 grid steps to one "
                     "flow's best t_p (about 1e-7 to 1e-6 for RTTs of 100-300 ms)")
    ob1 = _pick(t4, scheme="OB", n=1)
    for name in ONE_FLOW:
        recs = _pick(one, what=name)
        if recs:
            parts.append(f"OB {name}: u {np.mean([_u(r) for r in recs]):.2f}, aQd "
                         f"{np.mean([_d(r) for r in recs]) * 1e3:.0f} ms, t_p at the end "
                         + ", ".join(f"{_value(r, window=True):.1e}" for r in recs))
    if ob1:
        parts.append("(from 0.002: u " + ", ".join(f"{_u(r):.2f}" for r in ob1) + ", t_p at the end "
                     + ", ".join(f"{_value(r, window=True):.1e}" for r in ob1) + ")")
    return ("OB with few flows: " + "; ".join(parts) + ". A larger step moves it further, and started near "
            "the optimum it does not stay there: the 2-s benefit samples follow one flow's window, which "
            "answers a change of t_p only over minutes (one loss per 1/(t_p·rate) s), not t_p itself. This "
            "is the algorithm with the paper's Δ = 2 s and α = 1.05, not an engine defect (the one reading "
            "of the project's that stood in the way, OB's grid ending at t_p = 1e-6, above one flow's best "
            "t_p for most RTT draws, now ends at 1e-9); how the paper's one-flow run reached 0.89 (its "
            "length and start are not given) is unknown")


@CLAIMS.claim("T12", "Theorem 1: with an order-preserving B̂, MIMD ends in the 4-cycle t̄, t̄α, t̄, t̄/α with "
              "|t̄ − t*|/t* < α − 1", paper="|t̄ − t*|/t* < α − 1 (eq. 17)", where="Sec. 4, Theorem 1",
              model_check=True)
def t12(ctx: Context) -> Outcome:
    th = theorem1_check(cases=60 if ctx.quick else 300)
    return Outcome([Test("share of synthetic concave benefits whose MIMD ends in the 4-cycle",
                         exact(th["ok"] / th["cases"]), ge(1)),
                    Test("largest |t̄ − t*|/t*", exact(th["worst"]), lt(ALPHA - 1), comparable=False)],
                   why="a synthetic check of this reproduction's sign rule (mimd_indices) on noiseless "
                   "concave benefits: the theorem is proved in the paper, so this can only catch a bug")


@CLAIMS.claim("T13", "Cost: three counter updates per packet (OB: one random draw more); state of W0 + 3 "
              "grids of log_α S0 numbers", paper="\"we use three counters\"; 1.01^2000 ≈ 439286205",
              where="Sec. 4 (ODT), Sec. 5 (OB)", model_check=True)
def t13(ctx: Context) -> Outcome:
    grid_odt = int(math.floor(math.log(10_000 * PKT / PKT) / math.log(ALPHA))) + 1
    grid_ob = int(math.floor(math.log(1.0 / P_MIN) / math.log(ALPHA))) + 1
    span = 1.01 ** 2000
    tests = [Test("1.01^2000 (the paper's 2000-point grid at 1 %)", exact(span), between(4.39e8, 4.3929e8)),
             Test(f"state of ODT (1 packet-10 MB): W0 + 3 × {grid_odt} numbers", exact(W0 + 3 * grid_odt),
                  le(10_000)),
             Test(f"state of OB (t_p {P_MIN:g}-1): W0 + 3 × {grid_ob} numbers", exact(W0 + 3 * grid_ob),
                  le(10_000))]
    return Outcome(tests, why="arithmetic: the grid sizes follow from α and the range; that ODT and OB do "
                   "three counter updates per packet (OB one random draw more) is a property of the code "
                   "(the engine's optimizer.rs, Meter::on_arrival and on_service), asserted, not measured")


@CLAIMS.claim("T14", "Table 4 (γ = 10, N = 1/10/100): the baselines: DT small (10 ms) low delay and lower "
              "utilization, DT large (200 ms) full utilization and large delay, Adaptive RED between, as the "
              "paper's cells",
              paper="DT small 0.76/1, 0.85/3, 0.95/5 ms; DT large 1.00/105, 1.00/161, 1.00/187 ms; ARED "
              "0.81/22, 0.99/31, 1.00/54 ms", where="Sec. 6, Simulation I, Table 4")
def t14(ctx: Context) -> Outcome:
    t4 = ctx["table4"]
    tests = _cells(t4, ("DT small", "DT large", "ARED"))
    off = [t for t in tests if t.result != "holds"]
    if not off:
        return Outcome(tests)
    why = ["cells not holding: " + "; ".join(f"{t.quantity} = {t.est} ({t.result})" for t in off)]
    if any(t.quantity.startswith("ARED") for t in off):
        why.append("ARED: the paper gives no parameters and cites [1] (Appenzeller et al.) for it; Floyd et "
                   "al.'s automatic setting targets 5 ms of delay, the paper's cells show 22-54 ms: a "
                   "different configuration, cause not testable from the text")
    if any(t.quantity.startswith("DT small") for t in off):
        why.append("DT small: a 100-packet DropTail with few long-RTT flows loses whole windows in its "
                   "bursts; how much utilization that costs depends on the TCP's recovery (cause not "
                   "isolated: the TCP readings were not run on Table 4)")
    return Outcome(tests, why="; ".join(why))


# ------------------------------------------------------------------------------------------- tables


def table3(results: Dict[str, List[Record]]) -> Dict[Tuple[str, int], Dict[str, Estimate]]:
    """Ours: the online 5-min averages (with their gap to the same seed's off-line optimum) and the off-line
    optima, per scheme and γ."""
    on = results["online"]
    end = _final(on)
    out: Dict[Tuple[str, int], Dict[str, Estimate]] = {}
    for g in GAMMAS:
        for scheme, static, kind in (("ODT", "DT", "dt"), ("OB", "CDP", "cdp")):
            sel = dict(scheme=scheme.lower(), gamma=g, end=end)
            per = seed_optima(results["optima"], kind, g)
            b_on = _by_seed(on, _benefit(g), **sel)
            out[(scheme, g)] = {"u": _est(on, _u, **sel), "d": _est(on, _d, **sel),
                                "B": estimate(b_on.values()),
                                "gap": estimate([b - per[sd]["B"] for sd, b in b_on.items() if sd in per])}
            out[(static, g)] = optimum(results["optima"], kind, g)
    return out


def table4(results: Dict[str, List[Record]]) -> Dict[Tuple[str, int], Dict[str, Estimate]]:
    t4 = results["table4"]
    return {(s, n): {"u": _est(t4, _u, scheme=s, n=n), "d": _est(t4, _d, scheme=s, n=n),
                     "B": _est(t4, _benefit(10), scheme=s, n=n)} for s in TABLE4 for n in (1, 10, 100)}


def _fmt_t(scheme: str, v: float) -> str:
    return f"{v / 1e3:.0f} KB" if scheme == "odt" else f"{v:.4f}"


def _fmt_x(kind: str, v: float) -> str:
    return f"{v:.0f} KB" if kind == "dt" else f"{v:.4f}"


def _cell(e: Estimate, scale: float = 1.0, fmt: str = ".3f") -> str:
    if e.n <= 1 or e.low == e.high:
        return f"{e.mean * scale:{fmt}}"
    return f"{e.mean * scale:{fmt}} ± {(e.high - e.low) / 2 * scale:{fmt}}"


def tables(results: Dict[str, List[Record]]) -> List[str]:
    """Tables 3 and 4 beside the paper's, and the optimal regions used by T8 and T9."""
    t3 = table3(results)
    lines = ["Table 3: online 5-min averages (ODT, OB) and the off-line optima of the static sweeps (DT, "
             "CDP: each seed's best point for its own flows); ours are means ± 95 % half-widths over the "
             "seeds; the gap is the online benefit minus the same seed's off-line optimum.", "",
             "| scheme | γ | setting (ours) | aQd paper | aQd ours | u paper | u ours | B_γ paper | B_γ ours "
             "| gap |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for s in ("ODT", "DT", "OB", "CDP"):
        for g in GAMMAS:
            d_p, u_p, b_p = TABLE3[(s, g)]
            row = t3[(s, g)]
            if "x" not in row:
                setting, gap = "online", f"{row['gap'].mean:+.4f}"
            else:
                setting = (f"{row['x'].mean:.0f} packets" if s == "DT"
                           else f"t_p {row['x'].mean:.4f}") + " (mean)"
                gap = ""
            lines.append(f"| {s} | {g} | {setting} | {d_p * 1e3:.2f} ms | {_cell(row['d'], 1e3, '.2f')} ms | "
                         f"{u_p:.4f} | {_cell(row['u'], 1, '.4f')} | {b_p:.4f} | "
                         f"{_cell(row['B'], 1, '.4f')} | "
                         f"{gap} |")
    t4 = table4(results)
    lines += ["", "Table 4: utilization / aQd (B_10 = u − 10·aQd), N flows with RTTs in [100, 300] ms; paper "
              "and ours (means over the seeds).", "",
              "| scheme | N = 1 paper | N = 1 ours | N = 10 paper | N = 10 ours | N = 100 paper "
              "| N = 100 ours |",
              "|---|---|---|---|---|---|---|"]
    for s, row in TABLE4.items():
        cells = []
        for n in (1, 10, 100):
            u_p, d_p = row[n]
            o = t4[(s, n)]
            cells += [f"{u_p:.2f} / {d_p * 1e3:.0f} ms ({u_p - 10 * d_p:.2f})",
                      f"{o['u'].mean:.2f} / {o['d'].mean * 1e3:.1f} ms ({o['B'].mean:.2f})"]
        lines.append(f"| {s} | " + " | ".join(cells) + " |")
    lines += ["", f"Optimal regions per seed (γ = 10; static settings within {REGION_EPS} of the seed's best "
              "benefit, widened by half a grid step), used by T8 and T9:", "",
              "| load | seed | DropTail (packets) | best | CDP (t_p) | best |", "|---|---|---|---|---|---|"]
    for label, recs in (("50 flows", results["optima"]), ("100 flows", results["sweep100"]),
                        ("50 flows + UDP", results["udp_sweep"])):
        od, oc = seed_optima(recs, "dt", 10), seed_optima(recs, "cdp", 10)
        for sd in sorted(od):
            rd, rc = region(recs, "dt", sd), region(recs, "cdp", sd)
            lines.append(f"| {label} | {sd} | {rd[0]:.0f}–{rd[1]:.0f} | {od[sd]['x']:g} "
                         f"(B {od[sd]['B']:.4f}) | "
                         f"{rc[0]:.4f}–{rc[1]:.4f} | {oc[sd]['x']:.4f} (B {oc[sd]['B']:.4f}) |")
    return lines


def sensitivity(results: Dict[str, List[Record]]) -> List[str]:
    """The TCP readings side by side, the one-flow runs behind T11, and (full runs) the choices the paper
    leaves open in ODT and OB."""
    sw, on = results["optima"], results["online"]
    end = _final(on)
    alt_sw, alt_on = results.get("alt_sweep", []), results.get("alt_online", [])
    seeds = sorted({r["seed"] for r in alt_sw})
    lines = ["Table 3's off-line optima under each TCP (50 flows; seeds " + ", ".join(map(str, seeds))
             + "): B_γ at each seed's best DropTail and CDP sweep point (the alternatives' sweeps cover "
             "DropTail " + ", ".join(f"{x:g}" for x in _alt_points(False)[0]) + " packets and t_p "
             "0.0032-0.0089), and the online 5-min B_10 of ODT and OB. The paper's row is Table 3.", "",
             "| TCP | DT γ = 2 | DT γ = 10 | DT γ = 20 | CDP γ = 2 | CDP γ = 10 | CDP γ = 20 "
             "| ODT online B_10 | OB online B_10 |",
             "|---|---|---|---|---|---|---|---|---|",
             "| paper (Table 3) | "
             + " | ".join(f"{TABLE3[(k, g)][2]:.4f}" for k in ("DT", "CDP") for g in GAMMAS)
             + f" | {TABLE3[('ODT', 10)][2]:.4f} | {TABLE3[('OB', 10)][2]:.4f} |"]
    rows = [(READING_NAMES[PRINCIPAL_TCP] + " (principal)", [r for r in sw if r["seed"] in seeds],
             [r for r in _pick(on, gamma=10, end=end) if r["seed"] in seeds])]
    rows += [(READING_NAMES[a], _reading(alt_sw, a), _pick(_reading(alt_on, a), gamma=10))
             for a in ALTERNATIVES]
    for label, recs, onl in rows:
        if not recs:
            continue
        cells = [f"{optimum(recs, k, g)['B'].mean:.4f}" for k in ("dt", "cdp") for g in GAMMAS]
        lines.append(f"| {label} | " + " | ".join(cells)
                     + f" | {_est(onl, _benefit(10), scheme='odt').mean:.4f} | "
                     f"{_est(onl, _benefit(10), scheme='ob').mean:.4f} |")
    one = results.get("one_flow", [])
    if one:
        lines += ["", "One flow (Sim I, N = 1, RTT drawn from [100, 300] ms, 2,000 s measured over the last "
                  "1,000 s), T11's cause:", "",
                  "| run | u | aQd | t_p at the end (window mean) |", "|---|---|---|---|"]
        ob1 = _pick(results["table4"], scheme="OB", n=1)
        for label, recs in [("OB from 0.002 (Table 4's run)", ob1)] + [
                (f"OB {name}", _pick(one, what=name)) for name in ONE_FLOW]:
            if recs:
                lines.append(f"| {label} | {_est(recs, _u).mean:.3f} | {_est(recs, _d).mean * 1e3:.1f} ms | "
                             + ", ".join(f"{_value(r, window=True):.2e}" for r in recs) + " |")
        for r in sorted(_pick(one, what="noise"), key=lambda r: (r["seed"], -r["labels"]["x"])):
            per = r["extra"]["u_periods"]
            lines.append(f"| constant t_p = {r['labels']['x']:.5f}, seed {r['seed']}: 2-s utilization "
                         "mean / sd "
                         f"| {np.mean(per):.4f} / {np.std(per, ddof=1):.4f} | | |")
    sens = results.get("sensitivity", [])
    if not sens:
        return lines
    seeds = sorted({r["seed"] for r in sens})
    chosen_online = [r for r in _pick(on, gamma=10, end=end) if r["seed"] in seeds]
    lines += ["", "Eq. 12's weights, d̃'s arrivals and the averaging window (γ = 10): online 5-min averages "
              f"(seeds {', '.join(map(str, seeds))}).", "",
              "| variant | ODT u / aQd / B_10 | ODT t_S at the end | OB u / aQd / B_10 | OB t_p at the end |",
              "|---|---|---|---|---|"]
    variants = (("chosen: running mean, all arrivals, [300, 600] s", chosen_online),
                ("eq. 12 as printed", _pick(sens, what="as-printed")),
                ("d̃ over accepted packets", _pick(sens, what="accepted")),
                ("measured over [100, 400] s", _pick(sens, what="early")))
    for label, recs in variants:
        cells = []
        for scheme in ("odt", "ob"):
            sel = _pick(recs, scheme=scheme)
            cells.append(f"{_est(sel, _u).mean:.3f} / {_est(sel, _d).mean * 1e3:.1f} ms / "
                         f"{_est(sel, _benefit(10)).mean:.4f}")
            cells.append(_fmt_t(scheme, _est(sel, _value).mean))
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    load = _pick(sens, what="load")
    if load:
        reg = {(n, sd): region(results["sweep100"] if n == 100 else sw, "cdp", sd)
               for n in (50, 100) for sd in seeds}
        lines += ["", "OB through Sim G's changes under the readings the paper leaves open (γ = 10): the "
                  "mean of t_p over 60-120 s after each change, grid steps outside each seed's optimal "
                  "region (T9's quantity), mean over the seeds:", "",
                  "| variant | after 300 s (N → 100) | after 600 s (N → 50) |", "|---|---|---|"]
        chosen = [(n, _pick(results["load"], scheme="ob", end=end)) for n, end in ((100, 420.0), (50, 720.0))]
        rows4 = [("chosen: running mean, all arrivals, Δ = 2 s", chosen)] + [
            (v, [(n, _pick(load, variant=v, end=end)) for n, end in ((100, 420.0), (50, 720.0))])
            for v in ("as-printed", "accepted", "1-s period")]
        for label, parts in rows4:
            cells = []
            for n, recs in parts:
                vals = [_steps_outside(_value(r, window=True), reg[(n, r["seed"])]) for r in recs
                        if (n, r["seed"]) in reg]
                cells.append(f"{np.mean(vals):.1f}" if vals else "-")
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
    climb = _pick(sens, what="climb")
    if climb:
        ends = sorted({r["labels"]["end"] for r in climb})
        lines += ["", "OB's climb from t_p(0) = 0.002 (Sim D, γ = 10): the mean of t_p over the W0-window "
                  "before each time, for the paper's Δ = 2 s and for Δ = 1 s with the same 60-s window (the "
                  "speed behind T9):", "",
                  "| Δ | " + " | ".join(f"{e:.0f} s" for e in ends) + " |", "|---|" + "---|" * len(ends)]
        for delta in (2, 1):
            lines.append(f"| {delta} s | " + " | ".join(
                f"{_est(climb, lambda r: _value(r, window=True), delta=delta, end=e).mean:.4f}"
                for e in ends) + " |")
    return lines


# ------------------------------------------------------------------------------------------- figures


def _trace(records: Sequence[Record]) -> Dict[str, List[float]]:
    """A trajectory from runs of increasing length (seed 1): t at each end, and the utilization between
    consecutive ends of runs measured from time 0."""
    recs = sorted(records, key=lambda r: r["labels"]["end"])
    t = [r["labels"]["end"] for r in recs]
    v = [_value(r) for r in recs]
    ut, uv = [], []
    prev = (0.0, 0.0)
    for r in recs:
        if r["summary"].get("warmup_s", 0.0) > 0:
            continue
        end = r["labels"]["end"]
        served = r["summary"]["utilization"] * end
        if end > prev[0]:
            ut.append(end)
            uv.append((served - prev[1]) / (end - prev[0]))
        prev = (end, served)
    return {"t": t, "v": v, "ut": ut, "u": uv}


def figures(results: Dict[str, List[Record]], out: Path) -> List[Tuple[str, str]]:
    """The paper's figures, drawn from the runs (means over the seeds with 95 % intervals; time series from
    seed 1); PNG + SVG. Returns (file stem, caption) pairs."""
    figs = FigureSet(out)
    plt, save, made = figs.plt, figs.save, figs.made

    def errorbar(ax: Any, xs: Sequence[float], ests: Sequence[Estimate], scale: float = 1.0,
                 clip: Tuple[float, float] = (-math.inf, math.inf), **kw: Any) -> None:
        """Means with their 95 % intervals (cut at ``clip``, the quantity's physical range)."""
        m = np.array([e.mean for e in ests]) * scale
        lo = np.maximum(m - np.maximum(np.array([e.low for e in ests]) * scale, clip[0]), 0)
        hi = np.maximum(np.minimum(np.array([e.high for e in ests]) * scale, clip[1]) - m, 0)
        kw.setdefault("marker", "+")
        ax.errorbar(xs, m, yerr=[np.nan_to_num(lo), np.nan_to_num(hi)], ms=6, capsize=2, **kw)

    sw = _static(results)

    def per_seed(ax: Any, kind: str, fn: Callable[[Record], float], scale: float) -> None:
        for i, seed in enumerate(sorted({r["seed"] for r in sw})):
            recs = sorted(_pick(sw, seed=seed, kind=kind), key=lambda r: r["labels"]["x"])
            ax.plot([r["labels"]["x"] for r in recs], [fn(r) * scale for r in recs], "-", color="grey",
                    lw=0.7, alpha=0.6, label="each seed" if i == 0 else None)

    # Figs. 1, 2: u and aQd against the static setting.
    for stem, kind, xlabel, scale_x in (("fig1", "dt", "Buffer size t_S (packets)", 1.0),
                                        ("fig2", "cdp", "Drop probability t_p", 1.0)):
        xs, cv = curve(sw, kind)
        fig, (a1, a2) = plt.subplots(2, 1, figsize=(6, 6), sharex=True)
        per_seed(a1, kind, _u, 1.0)
        per_seed(a2, kind, _d, 1e3)
        errorbar(a1, [x * scale_x for x in xs], cv["u"], clip=(0, 1), color="C0", label="mean, 95 % interval")
        errorbar(a2, [x * scale_x for x in xs], cv["d"], scale=1e3, clip=(0, math.inf), color="C0")
        a1.legend(loc="lower right" if kind == "dt" else "lower left", fontsize=8)
        a1.set_ylabel("Utilization u")
        a2.set_ylabel("Average queueing delay aQd (ms)")
        a2.set_xlabel(xlabel)
        for a in (a1, a2):
            a.grid(alpha=0.3)
        what = "DropTail buffer size" if kind == "dt" else "constant drop probability"
        save(fig, stem, f"Fig. {stem[-1]}: utilization (top) and average queueing delay (bottom) against the "
             f"{what}, 50 TCP flows, 10 MB/s, 5-min averages: mean over the seeds with its 95 % interval, "
             "each seed's set of flows in grey")

    # Figs. 3, 4: the measurement noise of the period delay and its EWMA (q_w = 0.2), CDP t_p = 0.005.
    noise = _pick(results["noise"], x=0.005)
    rec = min(noise, key=lambda r: r["seed"])
    for stem, d in (("fig3", 2), ("fig4", 5)):
        raw = np.array(rec["extra"][f"d{d}"]) * 1e3
        ewma = np.empty_like(raw)
        acc = raw[0]
        for i, x in enumerate(raw):
            acc = 0.8 * acc + 0.2 * x if i else x
            ewma[i] = acc
        k = np.arange(1, raw.size + 1) * d
        fig, ax = plt.subplots(2, 2, figsize=(9, 5), gridspec_kw={"width_ratios": [2.2, 1]})
        for row, (y, label) in enumerate(((raw, f"d_Δ(k), Δ = {d} s"), (ewma, "EWMA, q_w = 0.2"))):
            ax[row, 0].plot(k, y, lw=0.8)
            ax[row, 0].set_ylabel(f"{label} (ms)")
            ax[row, 0].grid(alpha=0.3)
            ax[row, 1].hist(y, bins=30, color="C0", alpha=0.8)
            ax[row, 1].set_xlabel("delay (ms)")
        ax[1, 0].set_xlabel("Time (s)")
        save(fig, stem, f"Fig. {stem[-1]}: mean queueing delay per {d}-s period (top) and its EWMA (bottom), "
             "time series and histograms; constant drop probability 0.005, 50 flows (seed 1)")

    # Figs. 5, 6, 11, 12: ODT and OB over time (seed 1), without and with UDP.
    traj = results["trajectory"]
    for stems, sim, late_exp, extra in (
            (("fig5", "fig6"), "D", "online", " (Sim D)"),
            (("fig11", "fig12"), "F", "udp", " with 50 on/off UDP sources (Sim F)")):
        late = _pick(results[late_exp], seed=1)
        if late_exp == "online":
            late = _pick(late, gamma=10)
        for stem, scheme in zip(stems, ("odt", "ob")):
            recs = _pick(traj, sim=sim, scheme=scheme) + _pick(late, scheme=scheme)
            series = next(r for r in recs if "q" in r.get("extra", {}))
            _dynamics(plt, save, stem, scheme, _trace(recs), series, None,
                      f"{_long_name(scheme)}, γ = 10, 50 flows{extra}: queue occupancy, the adapted "
                      "parameter and the utilization against time (seed 1)")

    # Figs. 7, 8: each seed's off-line curve with its optima (stars) and its online averages (crosses);
    # Fig. 9: DropTail's and CDP's curves. One panel per seed: a seed is one set of 50 flows, as the paper's.
    seeds = sorted({r["seed"] for r in sw})[:4]  # one panel per seed, the first four
    on = results["online"]
    end = _final(on)
    for stem, kind, scheme, static in (("fig7", "dt", "ODT", "DT"), ("fig8", "cdp", "OB", "CDP")):
        fig, axes = plt.subplots(1, len(seeds), figsize=(4.2 * len(seeds), 4.2), sharey=True, squeeze=False)
        for ax, seed in zip(axes[0], seeds):
            recs = sorted(_pick(sw, seed=seed, kind=kind), key=_d)
            ax.plot([_d(r) * 1e3 for r in recs], [_u(r) for r in recs], "-+", color="grey", lw=1, ms=5,
                    label=f"{static}, static settings")
            for g in GAMMAS:
                opt = seed_optima(sw, kind, g)[seed]
                ax.plot(opt["d"] * 1e3, opt["u"], "*", color="red", ms=13,
                        label="off-line optimum" if g == 2 else None)
                ax.annotate(f"γ={g}", (opt["d"] * 1e3, opt["u"]), textcoords="offset points", xytext=(6, -12),
                            fontsize=8)
                r = _pick(on, seed=seed, scheme=scheme.lower(), gamma=g, end=end)[0]
                ax.plot(_d(r) * 1e3, _u(r), "x", color="blue", ms=10, mew=2,
                        label=f"{scheme} online (5 min)" if g == 2 else None)
            ax.set_title(f"seed {seed}")
            ax.set_xlabel("Average queueing delay aQd (ms)")
            ax.set_xlim(0, 20)
            ax.set_xticks([0, 5, 10, 15])
            ax.set_ylim(0.85, 1.005)
            ax.grid(alpha=0.3)
        axes[0][0].set_ylabel("Utilization u")
        axes[0][0].legend(loc="lower right", fontsize=8)
        save(fig, stem, f"Fig. {stem[3:]}: {scheme}'s online 5-min averages (blue ×) against the off-line "
             f"optima of the {static} sweep (red ★) for γ = 2, 10, 20, each seed's flows in its own panel "
             "(the first four seeds)")
    fig, axes = plt.subplots(1, len(seeds), figsize=(4.2 * len(seeds), 4.2), sharey=True, squeeze=False)
    for ax, seed in zip(axes[0], seeds):
        for kind, label, color in (("dt", "DropTail (buffer size)", "C0"),
                                   ("cdp", "CDP (drop probability)", "C3")):
            recs = sorted(_pick(sw, seed=seed, kind=kind), key=_d)
            ax.plot([_d(r) * 1e3 for r in recs], [_u(r) for r in recs], "-+", color=color, ms=6, label=label)
        ax.set_title(f"seed {seed}")
        ax.set_xlabel("Average queueing delay aQd (ms)")
        ax.set_xlim(0, 25)
        ax.set_xticks([0, 5, 10, 15, 20])
        ax.set_ylim(0.8, 1.005)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("Utilization u")
    axes[0][0].legend(loc="lower right")
    save(fig, "fig9", "Fig. 9: utilization against average queueing delay, DropTail and constant drop "
         "probability, 50 flows, each seed's flows in its own panel (the first four seeds; 5-min averages)")

    # Fig. 10: the aggregate UDP rate in 100-ms bins.
    t_end = _final(results["online"])
    rate = udp_rate_series(onoff_udp(1, t_end), t_end) / 1e6
    fig, ax = plt.subplots(figsize=(6, 3.8))
    ax.hist(rate, bins=np.arange(0, rate.max() + 0.125, 0.125), color="C0", alpha=0.85)
    ax.axvline(rate.mean(), color="red", ls="--", lw=1, label=f"mean {rate.mean():.3f} MB/s "
               f"({rate.mean() * 1e6 / (C_BPS / 8):.1%} of C)")
    ax.set_xlabel("Aggregate UDP rate over 100 ms (MB/s)")
    ax.set_ylabel("Intervals")
    ax.legend()
    save(fig, "fig10", "Fig. 10: histogram of the aggregate rate of the 50 exponential on/off UDP sources, "
         "100-ms intervals (seed 1)")

    # Fig. 13: the number of flows in Sim G; Figs. 14, 15: ODT and OB through it, with the optimal regions.
    fig, ax = plt.subplots(figsize=(6, 2.8))
    ax.step([0, 300, 600, 900], [50, 100, 50, 50], where="post")
    ax.set_xlabel("Time (s)")
    ax.set_ylabel("Number of TCP flows")
    ax.set_ylim(0, 110)
    ax.grid(alpha=0.3)
    save(fig, "fig13", "Fig. 13: the number of active TCP flows in Sim G")
    regs = {(kind, n): region(sw if n == 50 else results["sweep100"], kind, 1) for kind in ("dt", "cdp")
            for n in (50, 100)}
    for stem, scheme, kind in (("fig14", "odt", "dt"), ("fig15", "ob", "cdp")):
        recs = _pick(traj, sim="G", scheme=scheme) + _pick(results["load"], seed=1, scheme=scheme)
        series = next(r for r in recs if "q" in r.get("extra", {}))
        scale = PKT if scheme == "odt" else 1.0
        bands = [(0, 300, regs[(kind, 50)]), (300, 600, regs[(kind, 100)]), (600, 900, regs[(kind, 50)])]
        bands = [(a, b, (lo * scale, hi * scale)) for a, b, (lo, hi) in bands]
        _dynamics(plt, save, stem, scheme, _trace(recs), series, bands,
                  f"{_long_name(scheme)}, γ = 10, 50 → 100 → 50 flows "
                  "(Sim G): queue, the adapted parameter with each phase's optimal region (shaded), "
                  "utilization (seed 1)")

    # Fig. 16: loss and fairness against the buffer; Fig. 17: fairness against the drop probability.
    def loss(r: Record) -> float:
        return r["summary"]["loss_rate"]

    def jain(r: Record) -> float:
        return r["summary"]["jain_index"]

    for stem, kind, xlabel in (("fig16", "dt", "Buffer size (packets)"),
                               ("fig17", "cdp", "Drop probability t_p")):
        xs = sorted({r["labels"]["x"] for r in sw if r["labels"]["kind"] == kind})
        panels = [("Loss rate", loss), ("Jain's fairness index", jain)] if kind == "dt" else [
            ("Jain's fairness index", jain)]
        fig, axes = plt.subplots(len(panels), 1, figsize=(6, 3 * len(panels) + 0.6), sharex=True,
                                 squeeze=False)
        for ax, (label, fn) in zip(axes[:, 0], panels):
            per_seed(ax, kind, fn, 1.0)
            errorbar(ax, xs, [_est(sw, fn, kind=kind, x=x) for x in xs], clip=(0, 1), color="C0",
                     label="mean, 95 % interval")
            ax.set_ylabel(label)
            ax.grid(alpha=0.3)
        axes[-1, 0].set_ylim(0, 1)
        axes[-1, 0].set_xlabel(xlabel)
        axes[0, 0].legend(fontsize=8)
        save(fig, stem, f"Fig. {stem[3:]}: " + ("loss rate (top) and " if kind == "dt" else "")
             + "Jain's fairness index of the flows' rates against the "
             + ("buffer size" if kind == "dt" else "drop probability") + ", 50 flows, 5-min averages")
    made.sort(key=lambda m: int(m[0][3:]))
    return made


def _long_name(scheme: str) -> str:
    return "Optimal Drop-Tail" if scheme == "odt" else "Optimal BLUE"


def _dynamics(plt: Any, save: Callable[..., None], stem: str, scheme: str, tr: Dict[str, List[float]],
              series: Record, bands: Optional[List[Tuple[float, float, Tuple[float, float]]]],
              caption: str) -> None:
    """Queue occupancy, t_S or t_p, and utilization against time, one panel each (Figs. 5-6, 11-12, 14-15)."""
    fig, (a1, a2, a3) = plt.subplots(3, 1, figsize=(7, 7), sharex=True)
    a1.plot(series["extra"]["t"], series["extra"]["q"], lw=0.5)
    a1.set_ylabel("Queue (packets)")
    scale = 1e-3 if scheme == "odt" else 1.0
    if bands:
        for a, b, (lo, hi) in bands:
            a2.fill_between([a, b], lo * scale, hi * scale, color="green", alpha=0.15, lw=0)
    a2.plot(tr["t"], [v * scale for v in tr["v"]], "-", color="C1", marker=".", ms=3, lw=0.8)
    a2.set_ylabel("t_S (KB)" if scheme == "odt" else "t_p")
    a3.step(tr["ut"], tr["u"], where="pre", color="C2")
    a3.set_ylabel("Utilization")
    a3.set_xlabel("Time (s)")
    for a in (a1, a2, a3):
        a.grid(alpha=0.3)
    save(fig, stem, f"Fig. {stem[3:]}: {caption}; t sampled at the ends of runs of increasing length "
         "(every period for the first minute, then every 10 s)")
