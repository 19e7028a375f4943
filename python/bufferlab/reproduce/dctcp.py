"""Alizadeh, Greenberg, Maltz, Padhye, Patel, Prabhakar, Sengupta & Sridharan (2010), "Data Center TCP
(DCTCP)" (ACM SIGCOMM 2010): the analysis of §3.3-3.4 against its ns-2 check (Fig. 12), the guideline
K > C·RTT/7 (eq. 13), the testbed's queue length and throughput against K (§4.1, Figs. 13 and 14) and the
incast experiments (§4.2, Figs. 18 and 19), on the engine's DCTCP (RFC 8257) and `step` marking.

Each experiment is a set of engine runs over seeds; each claim is a function registered in :data:`CLAIMS`.
The principal reading is :data:`PRINCIPAL`; :data:`CHOICES` gives every choice the paper leaves open,
:data:`READINGS` the alternative reading the claims are also judged under.
"""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from bufferlab.models import dctcp as analysis
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
    le,
    paired_by_seed,
    ratio,
    table_row,
)
from bufferlab.reproduce.plotting import FigureSet, errorbar
from bufferlab.reproduce.runner import Task

NAME = "dctcp"
TITLE = ("Alizadeh, Greenberg, Maltz, Padhye, Patel, Prabhakar, Sengupta & Sridharan (2010), \"Data Center "
         "TCP (DCTCP)\" (ACM SIGCOMM 2010)")
PACKET_BITS = 12000.0  # 1500-byte packets
RTT = 100e-6
#: Fig. 12's setting: "N = 2, 10, and 40 long-lived DCTCP flows sharing a 10Gbps bottleneck, with a 100µs
#: round-trip time", K = 40, g = 1/16.
FIG12_K, FIG12_NS = 40, (2, 10, 40)
#: The testbed's thresholds (§3.5) and TCP's buffer: "up to ∼700KB of buffer to a single busy interface".
K_1G, K_10G = 20, 65
TCP_BUFFER = 466  # 700 KB in 1500-byte packets
K_SWEEP_1G = (5, 10, 20, 40)
K_SWEEP_10G = (10, 20, 40, 65, 100, 200)
#: Fig. 15's RED for TCP at 10 Gb/s: "(max_p=0.1, weight=9, min_th=50, max_th=150)", then min_th raised to 150
#: (max_th kept at three times min_th, which the paper does not give).
RED_SETTINGS = ((50, 150), (150, 450))
INCAST_NS = (4, 8, 10, 16, 24, 32, 40)
INCAST_BUFFER = 100
#: Fig. 19's dynamic buffering: the Triumph's 4 MB pool (Table 1) under Dynamic Threshold, with the α that
#: lets one busy port grab 700 KB (α·B/(1 + α), "dynamically grab up to 700KB of buffer", Fig. 1).
POOL_BYTES, POOL_PORT_BYTES = 4e6, 700e3
POOL_ALPHA = POOL_PORT_BYTES / (POOL_BYTES - POOL_PORT_BYTES)

PRINCIPAL = ("long flows of 1,500-byte packets through one switch port, base RTT 100 µs, DCTCP with g = 1/16 "
             "through `step` marking at K packets waiting, TCP as NewReno through DropTail; Fig. 12 as ns-2 "
             "runs it (an ACK per packet), the testbed's long flows with delayed ACKs (every second "
             "segment), incast with an ACK per packet and a 10 ms minimum RTO")

#: The alternative reading: the other ACK policy in every experiment.
READINGS: Dict[str, Tuple[str, Dict[str, Any]]] = {
    "other-acks": ("the other ACK policy (delayed ACKs, 200 ms timer, where the principal ACKs every packet, "
                   "and the reverse)", {"flip_delayed_ack": True}),
}

#: "around", "about", "nearly" and "the same": within 0.05 (fractions of the link) or 5 packets (queues);
#: "10X" within ±25 %.
AROUND, AROUND_PKTS = 0.05, 5.0

CHOICES = [
    "**Packets are 1,500 bytes** (not given for Fig. 12; the testbed is Ethernet, and \"35 × 2 × 1.5KB\" in "
    "§4.2 counts 1.5 KB packets): C·RTT is 83.3 packets at 10 Gb/s and 8.3 at 1 Gb/s with RTT 100 µs "
    "(\"intra-rack RTT approximately 100µs\", §2; Fig. 12's \"100µs round-trip time\").",
    "**Marking** is the engine's `step`: an arrival finding K or more packets waiting is CE-marked (§3.1: "
    "\"An arriving packet is marked with the CE codepoint if the queue occupancy is greater than K upon it's "
    "arrival\"). DCTCP is RFC "
    "8257's (g = 1/16, \"g is set to 1/16 in all experiments\", §3.5), its receiver echoing each packet's CE "
    "state; TCP is NewReno with SACK (\"All comparisons are between a full implementation of DCTCP and a "
    "state-of-the-art TCP New Reno (w/ SACK) implementation\", §4).",
    "**Fig. 12** runs as ns-2 would: an ACK per packet, a 1,000-packet buffer (never reached), 0.5 s after "
    "0.1 s of warm-up, the queue sampled every 5 µs. \"Fairly accurate\" is read as the largest queue within "
    "5 packets of Q_max = K + N (eq. 10) and the queue's swing (1st to 99th percentile of the samples) "
    "within ±25 % of the amplitude A (eq. 8, with eq. 6's exact α).",
    "**The testbed's long flows** (Figs. 13 and 14): two flows (\"with 2 flows\", Fig. 1, whose data is "
    "Fig. 13's) with delayed ACKs, 5 s after 1 s of warm-up at 1 Gb/s and 1 s after 0.3 s at 10 Gb/s; TCP "
    "through DropTail at 700 KB (466 packets: \"up to ∼700KB of buffer to a single busy interface\"), the "
    "same buffer behind DCTCP's marking; the queue sampled every millisecond (the paper samples every 125 "
    "ms). Fig. 14's K values are not given in its text: 10 to 200 here. \"10X larger\" is the ratio of mean "
    "queues within ±25 %.",
    "**The engine's senders do not burst**: it has no segmentation offload or interrupt moderation, the "
    "cause the paper gives for needing K > 60 at 10 Gb/s (\"hosts tend to send bursts of as many as 30-40 "
    "packets\", §3.5). What the paper found beyond eq. (13) at 10 Gb/s is therefore not testable (D14); eq. "
    "(13)'s own prediction, K = 20 enough for smooth senders, is tested (D8).",
    "**Fig. 15's RED** is the engine's `red` with ECN on two NewReno flows at 10 Gb/s behind 466 packets: "
    "min_th 50, max_th 150, max_p 0.1 and weight 2^-9 (ns-2's `q_weight` exponent \"weight=9\"), then "
    "min_th 150 with max_th 450 (the paper raised both and gives only min_th). Its throughput is compared as "
    "goodput within ±0.5 Gb/s of the paper's 7.8 and 9.2 Gb/s.",
    "**Incast** (Fig. 18): n servers answer each query with 1 MB/n over persistent connections, a static "
    "buffer of 100 packets (\"a static buffer of 100 packets at each port\"), minimum RTO 10 ms (\"two "
    "timeout values: the default 300ms, and 10ms\"; the 10 ms one is judged), initial window 10, 100 queries "
    "(the paper's 1,000). Receivers ACK every packet: with delayed ACKs (200 ms timer) the last segment of "
    "an odd-length response waits past the 10 ms RTO and every query times out, which the paper's \"minimum "
    "query completion time is around 8ms\" rules out (the alternative reading shows it). The paper plots "
    "the fraction of queries with a timeout; the engine counts timeouts per query, which is at least that "
    "fraction and zero exactly when it is. The servers' RTTs are drawn per seed from [90, 110] µs (nothing "
    "else in an incast run is random).",
    "**Fig. 19's dynamic buffering** is the engine's shared buffer with Dynamic Threshold admission: the "
    "Triumph's 4 MB (Table 1) as one pool, α = 0.212, so that one busy port settles at α·B/(1 + α) = 700 KB "
    "(\"allowing flows to a common receiver to dynamically grab up to 700KB of buffer\", Fig. 1); the "
    "port's own limit never binds. \"Continues to suffer\" is read as at least 0.05 timeouts per query "
    "from 24 servers.",
    "**\"Begins to suffer timeouts when the number of servers exceeds 10\"** is read as at most 0.05 "
    "timeouts per query at n ≤ 10 and at least 0.05 at n = 24 and above; DCTCP's \"only suffer timeouts "
    "once ... (35 × 2 × 1.5KB > 100KB)\" as at most 0.05 per query at n ≤ 16 and at least 0.05 at n = 40.",
]


def _delayed(default: bool, reading: Optional[str]) -> bool:
    return (not default) if reading and READINGS[reading][1].get("flip_delayed_ack") else default


def long_flows(n: int, rate_bps: float, k: Optional[int], *, delayed_ack: bool, duration: float,
               warmup: float, sample: str, buffer: int = 1000) -> Dict[str, Any]:
    """``n`` long flows through one port of ``rate_bps``: DCTCP with step marking at ``k`` packets, or
    NewReno through DropTail when ``k`` is None."""
    dctcp = k is not None
    sc: Dict[str, Any] = {
        "name": "dctcp", "duration": f"{duration:g}s", "warmup": f"{warmup:g}s",
        "bottleneck": {"rate": f"{rate_bps:.10g}bps", "delay": "20us",
                       "queue": ({"discipline": "step", "threshold": int(k), "limit": int(buffer)} if dctcp
                                 else {"discipline": "droptail", "limit": int(buffer)})},
        "flows": {"count": int(n), "rtt": f"{RTT * 1e6:g}us", "access_rate": f"{rate_bps:.10g}bps",
                  "start": {"uniform": ["0s", "10ms"]}},
        "tcp": {"congestion_control": "dctcp" if dctcp else "newreno", "ecn": dctcp, "sack": True,
                "packet_size": "1500B", "delayed_ack": bool(delayed_ack), "min_rto": "10ms",
                "initial_rto": "10ms"},
        "monitor": {"sample_interval": sample},
    }
    return sc


def incast(n: int, dctcp: bool, *, delayed_ack: bool, rounds: int = 100, dynamic: bool = False
           ) -> Dict[str, Any]:
    """Fig. 18: ``n`` servers answer each of ``rounds`` queries with 1 MB/n through a 100-packet port; Fig. 19
    (``dynamic``): through the port of a 4 MB shared buffer under Dynamic Threshold instead."""
    sc = {
        "name": "dctcp-incast", "duration": f"{max(10.0, rounds * 0.2):g}s", "warmup": "0s",
        "bottleneck": {"rate": "1Gbps", "delay": "10us",
                       "queue": ({"discipline": "step", "threshold": K_1G, "limit": INCAST_BUFFER} if dctcp
                                 else {"discipline": "droptail", "limit": INCAST_BUFFER})},
        "flows": {"count": int(n), "size": f"{round(1e6 / n)}B", "rtt": {"uniform": ["90us", "110us"]},
                  "access_rate": "1Gbps", "incast": {"rounds": int(rounds), "gap": "0s"}},
        "tcp": {"congestion_control": "dctcp" if dctcp else "newreno", "ecn": dctcp, "sack": True,
                "packet_size": "1500B", "initial_window": 10, "delayed_ack": bool(delayed_ack),
                "min_rto": "10ms", "initial_rto": "10ms"},
    }
    if dynamic:
        sc["bottleneck"]["queue"]["limit"] = 10_000
        sc["shared_buffers"] = [{"name": "triumph", "ports": ["bottleneck"], "size": f"{POOL_BYTES:.0f}B",
                                 "admission": "dynamic", "alpha": POOL_ALPHA}]
    return sc


def queue_stats(res: Any) -> Dict[str, Any]:
    """The queue's samples after warm-up: largest, 1st and 99th percentiles, mean and standard deviation."""
    qs = res.queue_series
    warm = float(res.summary.get("warmup_s", 0.0))
    q = qs[qs["time_s"] >= warm]["queue_pkts"].to_numpy(dtype=float)
    return {"q_max": float(q.max()), "q_p01": float(np.percentile(q, 1)),
            "q_p99": float(np.percentile(q, 99)), "q_mean": float(q.mean()), "q_std": float(q.std())}


def incast_stats(res: Any) -> Dict[str, Any]:
    """Timeouts per query (all, after a lost retransmission, for too few duplicate ACKs) and the query
    completion times."""
    g = res.groups.iloc[0]
    rounds = max(1, int(g["incast_rounds"] or 0))
    return {"timeouts_per_query": float(g["timeouts"]) / rounds,
            "lost_retransmission_per_query": float(g["timeouts_lost_retransmission"]) / rounds,
            "few_dupacks_per_query": float(g["timeouts_insufficient_dupacks"]) / rounds,
            "rct_p50_s": float(g["rct_p50_s"]), "rct_mean_s": float(g["rct_mean_s"]), "rounds": rounds}


# ------------------------------------------------------------------------------------------- experiments


def experiments(quick: bool, seeds: int) -> Dict[str, List[Task]]:
    """Every experiment's runs: seeds 1..``seeds`` of a fixed design (a larger ``seeds`` gives a superset).
    The runs are short, so quick mode runs the same design with fewer seeds."""
    ex: Dict[str, List[Task]] = defaultdict(list)
    queue, inc = f"{__name__}:queue_stats", f"{__name__}:incast_stats"

    def add(exp: str, sc: Dict[str, Any], extract: str, reading: Optional[str], **labels: Any) -> None:
        for seed in range(1, seeds + 1):
            ex[exp].append(Task(sc, seed, {"reading": reading or "principal", **labels}, extract=extract))

    for reading in (None, *READINGS):
        alt = "alt_" if reading else ""
        for n in FIG12_NS:  # Fig. 12, eq. 13
            add(f"{alt}fig12", long_flows(n, 10e9, FIG12_K, delayed_ack=_delayed(False, reading),
                                          duration=0.6, warmup=0.1, sample="5us"), queue, reading, n=n,
                k=FIG12_K)
        k7 = math.ceil(analysis.k_lower_bound(10e9 * RTT / PACKET_BITS))
        for n in (2, 12, 40):  # eq. 13 at its bound; N = 12 is where eq. 12's Q_min is smallest
            add(f"{alt}guideline", long_flows(n, 10e9, k7, delayed_ack=_delayed(False, reading), duration=0.6,
                                              warmup=0.1, sample="1ms"), queue, reading, n=n, k=k7)
        for k in (*K_SWEEP_1G, None):  # Fig. 13 and §4.1's K sweep at 1 Gb/s
            add(f"{alt}fig13", long_flows(2, 1e9, k, delayed_ack=_delayed(True, reading), duration=6.0,
                                          warmup=1.0, sample="1ms", buffer=TCP_BUFFER), queue, reading,
                k=k if k is not None else "tcp")
        for k in (*K_SWEEP_10G, None):  # Fig. 14
            add(f"{alt}fig14", long_flows(2, 10e9, k, delayed_ack=_delayed(True, reading), duration=1.3,
                                          warmup=0.3, sample="1ms", buffer=TCP_BUFFER), queue, reading,
                k=k if k is not None else "tcp")
        for min_th, max_th in RED_SETTINGS:  # Fig. 15: TCP through RED with ECN
            sc = long_flows(2, 10e9, None, delayed_ack=_delayed(True, reading), duration=1.3, warmup=0.3,
                            sample="1ms", buffer=TCP_BUFFER)
            sc["bottleneck"]["queue"] = {"discipline": "red", "min_th": min_th, "max_th": max_th,
                                         "max_p": 0.1, "weight": 2.0 ** -9, "ecn": True,
                                         "limit": TCP_BUFFER}
            sc["tcp"]["ecn"] = True
            add(f"{alt}fig15", sc, queue, reading, min_th=min_th)
        for n in INCAST_NS:  # Figs. 18 and 19
            for dctcp in (False, True):
                cc = "dctcp" if dctcp else "tcp"
                add(f"{alt}fig18", incast(n, dctcp, delayed_ack=_delayed(False, reading)), inc, reading, n=n,
                    cc=cc)
                add(f"{alt}fig19", incast(n, dctcp, delayed_ack=_delayed(False, reading), dynamic=True), inc,
                    reading, n=n, cc=cc)
    return dict(ex)


# ------------------------------------------------------------------------------------------- helpers


def _match(r: Dict[str, Any], labels: Dict[str, Any]) -> bool:
    return all(r["labels"].get(k) == v for k, v in labels.items())


def _per_seed(records: Sequence[Dict[str, Any]], key: str, **labels: Any) -> Dict[int, float]:
    """Per seed, ``key`` of the run matching ``labels``: an extracted value, else a summary field."""
    return {r["seed"]: r["extra"][key] if key in r.get("extra", {}) else r["summary"][key]
            for r in records if _match(r, labels)}


def _est(records: Sequence[Dict[str, Any]], key: str, **labels: Any) -> Estimate:
    return estimate(list(_per_seed(records, key, **labels).values()))


def _ms(records: Sequence[Dict[str, Any]], key: str, **labels: Any) -> Estimate:
    """A time in seconds, as milliseconds."""
    return estimate([v * 1e3 for v in _per_seed(records, key, **labels).values()])


def _swing(records: Sequence[Dict[str, Any]], **labels: Any) -> Estimate:
    return estimate([r["extra"]["q_p99"] - r["extra"]["q_p01"] for r in records if _match(r, labels)])


def steady(n: int, k: int = FIG12_K, rate_bps: float = 10e9) -> analysis.SteadyState:
    return analysis.steady_state(n, rate_bps * RTT / PACKET_BITS, k)


def _m(e: Estimate, digits: int = 2) -> str:
    return f"{e.mean:.{digits}f}" if e.defined else "-"


def _alts(ctx: Context, make: Any, exp: str) -> List[Reading]:
    return [Reading(READINGS[r][0], make(ctx[f"alt_{exp}"], reading=r)) for r in READINGS]


# ------------------------------------------------------------------------------------------- claims

CLAIMS = Claims()


def _d1_tests(records: Sequence[Dict[str, Any]], **labels: Any) -> List[Test]:
    tests = []
    for n in (2, 10):
        s = steady(n)
        tests.append(Test(f"largest queue, N = {n} (Q_max = K + N = {s.q_max:g})",
                          _est(records, "q_max", n=n, **labels),
                          between(s.q_max - AROUND_PKTS, s.q_max + AROUND_PKTS)))
        tests.append(Test(f"queue swing (p99 − p1), N = {n} (A = {s.queue_amplitude:.1f})",
                          _swing(records, n=n, **labels),
                          between(0.75 * s.queue_amplitude, 1.25 * s.queue_amplitude)))
    return tests


@CLAIMS.claim("D1", "Fig. 12: 2 and 10 DCTCP flows, 10 Gb/s, RTT 100 µs, K = 40: the analysis predicts the "
              "queue fairly accurately (Q_max = K + N, eq. 10; amplitude A, eq. 8)",
              paper="\"a fairly accurate prediction ... especially when N is small (less than 10)\"",
              where="Sec. 3.3, Fig. 12, Eqs. 8, 10")
def d1(ctx: Context) -> Outcome:
    tests = _d1_tests(ctx["fig12"])
    why = "" if all_hold(tests) else "the engine's queue departs from eq. (8) or (10) (experiment fig12)"
    return Outcome(tests, why, _alts(ctx, _d1_tests, "fig12"))


def _d2_tests(records: Sequence[Dict[str, Any]], **labels: Any) -> List[Test]:
    s = steady(40)
    return [Test(f"queue swing (p99 − p1) − A, N = 40 (A = {s.queue_amplitude:.1f})",
                 estimate([r["extra"]["q_p99"] - r["extra"]["q_p01"] - s.queue_amplitude for r in records
                           if _match(r, {"n": 40, **labels})]), le(0.0))]


@CLAIMS.claim("D2", "Fig. 12: with 40 flows the queue varies less than the analysis predicts",
              paper="\"For large N, as in the N = 40 case, de-synchronization of the flows leads to smaller "
              "queue variations than predicted\"", where="Sec. 3.3, Fig. 12")
def d2(ctx: Context) -> Outcome:
    tests = _d2_tests(ctx["fig12"])
    why = ""
    if not all_hold(tests):
        s = steady(40)
        why = (f"40 flows swing by {_m(_swing(ctx['fig12'], n=40), 1)} packets against A = "
               f"{s.queue_amplitude:.1f} (eq. 8; {s.queue_amplitude_approx:.1f} in its closed form), with a "
               f"largest queue of {_m(_est(ctx['fig12'], 'q_max', n=40), 1)} against Q_max = {s.q_max:g}: "
               "the engine's largest queue is the Q_max that synchronized flows reach, where the paper puts "
               "its smaller ns-2 swings down to de-synchronization; why the engine's swing is wider is not "
               "traced (experiment fig12)")
    return Outcome(tests, why, _alts(ctx, _d2_tests, "fig12"))


def _d3_tests(records: Sequence[Dict[str, Any]], **labels: Any) -> List[Test]:
    k = records[0]["labels"]["k"] if records else 0
    return [Test(f"utilization, K = {k} = ⌈C·RTT/7⌉, N = {n}", _est(records, "utilization", n=n, **labels),
                 ge(0.99)) for n in (2, 12, 40)]


@CLAIMS.claim("D3", "Eq. 13: marking from C·RTT/7 (K = 12 at 10 Gb/s, RTT 100 µs) keeps the link full, "
              "including at the N where eq. 12's queue minimum is lowest (N = 12)",
              paper="\"DCTCP can begin marking packets at (1/7)th of the bandwidth-delay product without "
              "losing throughput\"; \"K > (C × RTT)/7\"", where="Sec. 3.3; Sec. 3.4, Eq. 13")
def d3(ctx: Context) -> Outcome:
    tests = _d3_tests(ctx["guideline"])
    why = "" if all_hold(tests) else "the link idles with K at the guideline's bound (experiment guideline)"
    return Outcome(tests, why, _alts(ctx, _d3_tests, "guideline"))


def _d4_tests(records: Sequence[Dict[str, Any]], **labels: Any) -> List[Test]:
    return [Test(f"utilization, {name}, 1 Gb/s, 2 flows", _est(records, "utilization", k=k, **labels),
                 ge(1.0 - AROUND)) for k, name in ((K_1G, "DCTCP K = 20"), ("tcp", "TCP"))]


@CLAIMS.claim("D4", "Fig. 13: at 1 Gb/s both TCP and DCTCP (K = 20) keep the link nearly 100 % busy",
              paper="\"both TCP and DCTCP achieve the maximum throughput of 0.95Gbps, and link utilization "
              "is nearly 100%\"", where="Sec. 4.1, Fig. 13")
def d4(ctx: Context) -> Outcome:
    tests = _d4_tests(ctx["fig13"])
    why = "" if all_hold(tests) else "a 1 Gb/s link is not nearly full (experiment fig13)"
    return Outcome(tests, why, _alts(ctx, _d4_tests, "fig13"))


def _d5_tests(records: Sequence[Dict[str, Any]], **labels: Any) -> List[Test]:
    return [Test("DCTCP's mean queue, K = 20, 2 flows (packets)", _est(records, "q_mean", k=K_1G, **labels),
                 between(20 - AROUND_PKTS, K_1G + 2 + AROUND_PKTS)),
            Test("TCP's mean queue ÷ DCTCP's",
                 ratio(_per_seed(records, "q_mean", k="tcp", **labels).values(),
                       _per_seed(records, "q_mean", k=K_1G, **labels).values()), between(7.5, 12.5))]


@CLAIMS.claim("D5", "Fig. 13: DCTCP's queue stays around 20 packets (K + n); TCP's is 10 times larger",
              paper="\"DCTCP queue length is stable around 20 packets (i.e., equal to K+n, as predicted in § "
              "3), while the TCP queue length is 10X larger and varies widely\"", where="Sec. 4.1, Fig. 13")
def d5(ctx: Context) -> Outcome:
    tests = _d5_tests(ctx["fig13"])
    why = ""
    if not all_hold(tests):
        f = ctx["fig13"]
        why = (f"mean queues: DCTCP {_m(_est(f, 'q_mean', k=K_1G), 1)}, TCP "
               f"{_m(_est(f, 'q_mean', k='tcp'), 1)} packets behind 466 packets (700 KB); TCP's ratio "
               "follows the buffer it is given, which the paper's dynamic allocation sets (\"up to "
               "∼700KB\") and does not measure (experiment fig13)")
    return Outcome(tests, why, _alts(ctx, _d5_tests, "fig13"))


def _d6_tests(records: Sequence[Dict[str, Any]], **labels: Any) -> List[Test]:
    base = _per_seed(records, "utilization", k=K_1G, **labels)
    return [Test(f"utilization, K = {k} − K = 20, 1 Gb/s",
                 paired_by_seed(_per_seed(records, "utilization", k=k, **labels), base),
                 between(-AROUND, AROUND)) for k in K_SWEEP_1G if k != K_1G]


@CLAIMS.claim("D6", "§4.1: at 1 Gb/s the throughput does not depend on K, down to K = 5",
              paper="\"performance is insensitive to value of K at 1Gbps, even for values as low as K=5\"",
              where="Sec. 4.1")
def d6(ctx: Context) -> Outcome:
    tests = _d6_tests(ctx["fig13"])
    why = "" if all_hold(tests) else "small K loses throughput at 1 Gb/s (experiment fig13)"
    return Outcome(tests, why, _alts(ctx, _d6_tests, "fig13"))


def _d7_tests(records: Sequence[Dict[str, Any]], **labels: Any) -> List[Test]:
    tcp = _per_seed(records, "utilization", k="tcp", **labels)
    return [Test(f"utilization, DCTCP K = {k} − TCP, 10 Gb/s",
                 paired_by_seed(_per_seed(records, "utilization", k=k, **labels), tcp),
                 between(-AROUND, AROUND))
            for k in K_SWEEP_10G if k >= K_10G]


@CLAIMS.claim("D7", "Fig. 14: at 10 Gb/s, from K = 65 on DCTCP gets the same throughput as TCP",
              paper="\"Once the value of K exceeds the recommended value of 65, DCTCP gets the same "
              "throughput as TCP, and is no longer sensitive to the value of K\"", where="Sec. 4.1, Fig. 14")
def d7(ctx: Context) -> Outcome:
    tests = _d7_tests(ctx["fig14"])
    why = "" if all_hold(tests) else "DCTCP and TCP differ at 10 Gb/s with K ≥ 65 (experiment fig14)"
    return Outcome(tests, why, _alts(ctx, _d7_tests, "fig14"))


def _d8_tests(records: Sequence[Dict[str, Any]], **labels: Any) -> List[Test]:
    return [Test("utilization, DCTCP K = 20, 10 Gb/s, 2 flows", _est(records, "utilization", k=20, **labels),
                 ge(0.99))]


@CLAIMS.claim("D8", "§3.5: by eq. 13, K = 20 is enough at 10 Gb/s for senders that do not burst",
              paper="\"based on (13), a marking threshold as low as 20 packets can be used for 10Gbps\"",
              where="Sec. 3.5, Eq. 13")
def d8(ctx: Context) -> Outcome:
    tests = _d8_tests(ctx["fig14"])
    why = "" if all_hold(tests) else "K = 20 loses throughput at 10 Gb/s without bursts (experiment fig14)"
    return Outcome(tests, why, _alts(ctx, _d8_tests, "fig14"))


def _incast_tests(records: Sequence[Dict[str, Any]], cc: str, quiet: Sequence[int], loud: Sequence[int],
                  **labels: Any) -> List[Test]:
    name = "DCTCP" if cc == "dctcp" else "TCP"
    return ([Test(f"{name} timeouts per query, {n} servers", _est(records, "timeouts_per_query", n=n, cc=cc,
                                                                    **labels), le(0.05)) for n in quiet]
            + [Test(f"{name} timeouts per query, {n} servers", _est(records, "timeouts_per_query", n=n, cc=cc,
                                                                      **labels), ge(0.05)) for n in loud])


def _d9_tests(records: Sequence[Dict[str, Any]], **labels: Any) -> List[Test]:
    return _incast_tests(records, "tcp", (4, 8, 10), (24, 32, 40), **labels)


@CLAIMS.claim("D9", "Fig. 18b: TCP (minimum RTO 10 ms, 100-packet static buffer, 1 MB per query) starts "
              "timing out when the servers exceed 10",
              paper="\"TCP begins to suffer timeouts when the number of servers exceeds 10\"",
              where="Sec. 4.2, Fig. 18")
def d9(ctx: Context) -> Outcome:
    tests = _d9_tests(ctx["fig18"])
    why = ""
    if not all_hold(tests):
        f = ctx["fig18"]
        why = ("TCP's timeouts per query by servers: " + ", ".join(
            f"{n}: {_m(_est(f, 'timeouts_per_query', n=n, cc='tcp'))}" for n in INCAST_NS)
            + ". Of these, after a lost retransmission / for too few duplicate ACKs (the engine's causes): "
            + ", ".join(f"{n}: {_m(_est(f, 'lost_retransmission_per_query', n=n, cc='tcp'))} / "
                        f"{_m(_est(f, 'few_dupacks_per_query', n=n, cc='tcp'))}" for n in (4, 8, 10))
            + "; the persistent connections' windows carry over from query to query. Not traced further "
            "(experiment fig18)")
    return Outcome(tests, why, _alts(ctx, _d9_tests, "fig18"))


def _d10_tests(records: Sequence[Dict[str, Any]], **labels: Any) -> List[Test]:
    return _incast_tests(records, "dctcp", (4, 8, 10, 16), (40,), **labels)


@CLAIMS.claim("D10", "Fig. 18b: DCTCP (K = 20) times out only when the servers' two packets each overflow "
              "the static buffer (about 35 servers)",
              paper="\"DCTCP senders receive ECN marks, slow their rate, and only suffer timeouts once the "
              "number of senders is large enough so that each sending (around) 2 packets exceeds the static "
              "buffer size\"", where="Sec. 4.2, Fig. 18")
def d10(ctx: Context) -> Outcome:
    tests = _d10_tests(ctx["fig18"])
    why = ""
    if not all_hold(tests):
        f = ctx["fig18"]
        why = ("DCTCP's timeouts per query by servers: " + ", ".join(
            f"{n}: {_m(_est(f, 'timeouts_per_query', n=n, cc='dctcp'))}" for n in INCAST_NS)
            + "; each round's first window is the initial window of 10 segments, and from 16 servers those "
            "overflow 100 packets before any mark can act (experiment fig18)")
    return Outcome(tests, why, _alts(ctx, _d10_tests, "fig18"))


def _d11_tests(records: Sequence[Dict[str, Any]], **labels: Any) -> List[Test]:
    return [Test("DCTCP median query completion, 4 servers (ms)",
                 _ms(records, "rct_p50_s", n=4, cc="dctcp", **labels),
                 between(8.0 * (1 - 0.1), 8.0 * (1 + 0.1)))]


@CLAIMS.claim("D11", "Fig. 18a: a query of 1 MB completes in about 8 ms at best, the time to deliver it at "
              "1 Gb/s",
              paper="\"The minimum query completion time is around 8ms: ... it takes 8ms to deliver 1MB of "
              "data over a 1Gbps link\"", where="Sec. 4.2, Fig. 18")
def d11(ctx: Context) -> Outcome:
    tests = _d11_tests(ctx["fig18"])
    why = "" if all_hold(tests) else "queries take longer than 8 ms ± 10 % without incast (experiment fig18)"
    return Outcome(tests, why, _alts(ctx, _d11_tests, "fig18"))


def _d12_tests(records: Sequence[Dict[str, Any]], **labels: Any) -> List[Test]:
    return _incast_tests(records, "dctcp", INCAST_NS, (), **labels) + _incast_tests(records, "tcp", (),
                                                                                     (24, 32, 40), **labels)


@CLAIMS.claim("D12", "Fig. 19: with the switch's dynamic buffering (a 4 MB pool, up to 700 KB for one port) "
              "DCTCP has no incast timeouts up to 40 servers, and TCP still has them",
              paper="\"DCTCP no longer suffers incast timeouts even when the number of servers grows to 40. "
              "On the other hand, TCP continues to suffer from incast timeouts\"", where="Sec. 4.2, Fig. 19")
def d12(ctx: Context) -> Outcome:
    tests = _d12_tests(ctx["fig19"])
    why = ""
    if not all_hold(tests):
        f = ctx["fig19"]
        why = ("timeouts per query behind the shared buffer, TCP / DCTCP: " + ", ".join(
            f"{n}: {_m(_est(f, 'timeouts_per_query', n=n, cc='tcp'))} / "
            f"{_m(_est(f, 'timeouts_per_query', n=n, cc='dctcp'))}" for n in INCAST_NS)
            + " (experiment fig19)")
    return Outcome(tests, why, _alts(ctx, _d12_tests, "fig19"))


def _d13_tests(records: Sequence[Dict[str, Any]], **labels: Any) -> List[Test]:
    return [Test(f"TCP goodput through RED, min_th = {m} (Gb/s)",
                 estimate([v / 1e9 for v in _per_seed(records, "goodput_bps", min_th=m, **labels).values()]),
                 between(gbps - 0.5, gbps + 0.5)) for m, gbps in ((50, 7.8), (150, 9.2))]


@CLAIMS.claim("D13", "Fig. 15: at 10 Gb/s, TCP through RED with ECN at the guidelines' settings (min_th 50, "
              "max_th 150, max_p 0.1, weight 2^-9) gets 7.8 Gb/s, and 9.2 Gb/s once min_th is 150",
              paper="\"following the guidelines in [7] (max_p=0.1, weight=9, min_th=50, max_th=150) caused "
              "TCP throughput to drop to 7.8Gbps\"; \"TCP achieved 9.2Gbps at min_th = 150\"",
              where="Sec. 4.1, Fig. 15")
def d13(ctx: Context) -> Outcome:
    tests = _d13_tests(ctx["fig15"])
    why = ""
    if not all_hold(tests):
        f = ctx["fig15"]
        why = ("two NewReno flows through RED keep the 10 Gb/s link full at both settings (utilization "
               + " and ".join(_m(_est(f, "utilization", min_th=m), 3) for m, _ in RED_SETTINGS)
               + "; mean queue " + " and ".join(_m(_est(f, "q_mean", min_th=m), 1) for m, _ in RED_SETTINGS)
               + " packets): the engine does not show the loss of throughput. Its senders do not burst as "
               "the paper's hosts did (§3.5: \"bursts of as many as 30-40 packets\" at 10 Gb/s); whether "
               "that is the cause is not traced (experiment fig15)")
    return Outcome(tests, why, _alts(ctx, _d13_tests, "fig15"))


@CLAIMS.claim("D14", "§3.5: at 10 Gb/s a threshold larger than 60 packets is needed to avoid a loss of "
              "throughput, because hosts send bursts of 30-40 packets",
              paper="\"we found that a more conservative marking threshold larger than 60 packets is "
              "required to avoid loss of throughput. This excess is in line with the burst sizes of 30-40 "
              "packets observed at 10Gbps\"", where="Sec. 3.5")
def d14(ctx: Context) -> Outcome:
    return Outcome([], "not testable here: the engine's senders have no segmentation offload or interrupt "
                       "moderation, the bursts the paper names as the cause; with smooth senders eq. (13) "
                       "holds at K = 20 (D8)")


@CLAIMS.claim("M1", "Eq. 13: with K = C·RTT/7 the smallest Q_min over N (eq. 12) is zero, at N = "
              "(C·RTT + K)/8",
              paper="\"minimize (12) over N, and choose K so that this minimum is larger than zero\"",
              where="Sec. 3.4, Eqs. 12-13", model_check=True)
def m1(ctx: Context) -> Outcome:
    worst = 0.0
    for bdp in (8.3, 83.3, 833.0):
        k = analysis.k_lower_bound(bdp)
        n_star = (bdp + k) / 8.0
        q_min = k + n_star - 0.5 * math.sqrt(2 * n_star * (bdp + k))
        grid = min(k + n - 0.5 * math.sqrt(2 * n * (bdp + k)) for n in np.linspace(0.01, 10 * n_star, 20001))
        worst = max(worst, abs(q_min), max(0.0, -grid))
    tests = [Test("largest |Q_min| at the bound, over C·RTT = 8.3, 83.3, 833 packets", exact(worst),
                  le(1e-9))]
    return Outcome(tests, "" if all_hold(tests) else "eq. 13 does not follow from eq. 12")


@CLAIMS.claim("M2", "Eq. 15: g = 1/16 satisfies g < 1.386/√(2(C·RTT + K)) at the testbed's settings (1 Gb/s "
              "with K = 20, 10 Gb/s with K = 65, RTT 100 µs)",
              paper="\"g < 1.386/sqrt(2(C×RTT+K))\"; \"g is set to 1/16 in all experiments\"",
              where="Sec. 3.4, Eq. 15; Sec. 3.5", model_check=True)
def m2(ctx: Context) -> Outcome:
    tests = [Test(f"eq. 15's bound at {r / 1e9:g} Gb/s, K = {k}",
                  exact(analysis.g_upper_bound(r * RTT / PACKET_BITS, k)), ge(1 / 16))
             for r, k in ((1e9, K_1G), (10e9, K_10G))]
    return Outcome(tests, "" if all_hold(tests) else "g = 1/16 exceeds eq. 15's bound")


# ------------------------------------------------------------------------------------------- tables


def tables(results: Dict[str, List[Dict[str, Any]]]) -> List[str]:
    """Fig. 12's analysis beside the engine, and the incast counts of Fig. 18."""
    f12 = results["fig12"]
    lines = ["Fig. 12 (10 Gb/s, RTT 100 µs, K = 40): the analysis (eqs. 6-12) beside the engine's queue:", "",
             "| N | Q_max = K + N | largest queue | A (eq. 8) | ½√(2N(C·RTT+K)) | swing p99 − p1 | "
             "Q_min (eq. 12) | p1 | mean queue |", "|---|---|---|---|---|---|---|---|---|"]
    for n in FIG12_NS:
        s = steady(n)
        lines.append(table_row(str(n), [f"{s.q_max:g}", _est(f12, "q_max", n=n), f"{s.queue_amplitude:.1f}",
                                   f"{s.queue_amplitude_approx:.1f}", _swing(f12, n=n), f"{s.q_min:.1f}",
                                   _est(f12, "q_p01", n=n), _est(f12, "q_mean", n=n)]))
    for exp, what in (("fig18", "Fig. 18 (1 Gb/s, 100 packets static"),
                      ("fig19", "Fig. 19 (1 Gb/s, a 4 MB pool under Dynamic Threshold, up to 700 KB a port")):
        recs = results[exp]
        lines += ["", f"{what}, minimum RTO 10 ms): timeouts per query and mean query completion (ms):", "",
                  "| servers | TCP timeouts | DCTCP timeouts | TCP completion | DCTCP completion |",
                  "|---|---|---|---|---|"]
        for n in INCAST_NS:
            cells = [_est(recs, "timeouts_per_query", n=n, cc=c) for c in ("tcp", "dctcp")]
            cells += [_ms(recs, "rct_mean_s", n=n, cc=c) for c in ("tcp", "dctcp")]
            lines.append(table_row(str(n), cells))
    return lines


def sensitivity(results: Dict[str, List[Dict[str, Any]]]) -> List[str]:
    """Each experiment's key numbers under the other ACK policy, beside the principal reading."""
    r = "other-acks"
    lines = ["The principal reading beside the other ACK policy:", "",
             "| quantity | principal | other ACK policy |", "|---|---|---|"]
    pairs = [("Fig. 12 swing, N = 40", "fig12", lambda recs, **kw: _swing(recs, n=40, **kw)),
             ("Fig. 13 DCTCP mean queue", "fig13", lambda recs, **kw: _est(recs, "q_mean", k=K_1G, **kw)),
             ("Fig. 13 TCP mean queue", "fig13", lambda recs, **kw: _est(recs, "q_mean", k="tcp", **kw)),
             ("Fig. 14 utilization, K = 10", "fig14",
              lambda recs, **kw: _est(recs, "utilization", k=10, **kw)),
             ("Fig. 18 TCP timeouts per query, 8 servers", "fig18",
              lambda recs, **kw: _est(recs, "timeouts_per_query", n=8, cc="tcp", **kw)),
             ("Fig. 18 DCTCP timeouts per query, 8 servers", "fig18",
              lambda recs, **kw: _est(recs, "timeouts_per_query", n=8, cc="dctcp", **kw))]
    for label, exp, fn in pairs:
        lines.append(table_row(label, [fn(results[exp]), fn(results[f"alt_{exp}"], reading=r)]))
    return lines


# ------------------------------------------------------------------------------------------- figures


def figures(results: Dict[str, List[Dict[str, Any]]], out: Path) -> List[Tuple[str, str]]:
    """Figs. 12, 13-14 and 18 (means over seeds, 95 % intervals); PNG + SVG."""
    figs = FigureSet(out)
    plt = figs.plt

    f12 = results["fig12"]
    fig, ax = plt.subplots(figsize=(6, 3.8))
    ns = list(FIG12_NS)
    errorbar(ax, ns, [_est(f12, "q_max", n=n) for n in ns], label="engine: largest queue")
    errorbar(ax, ns, [_est(f12, "q_p01", n=n) for n in ns], label="engine: 1st percentile")
    ax.plot(ns, [steady(n).q_max for n in ns], "k--", label="Q_max = K + N (eq. 10)")
    ax.plot(ns, [steady(n).q_max - steady(n).queue_amplitude for n in ns], "k:",
            label="Q_max − A (eqs. 8, 12)")
    ax.set_xlabel("flows N")
    ax.set_ylabel("queue (packets)")
    ax.set_xscale("log")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    figs.save(fig, "fig12", "Fig. 12: the queue's range against the analysis, 10 Gb/s, RTT 100 µs, K = 40")

    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
    for ax, exp, ks, rate in ((axes[0], "fig13", K_SWEEP_1G, "1 Gb/s"),
                              (axes[1], "fig14", K_SWEEP_10G, "10 Gb/s")):
        recs = results[exp]
        errorbar(ax, ks, [_est(recs, "utilization", k=k) for k in ks], label="DCTCP utilization")
        ax.axhline(_est(recs, "utilization", k="tcp").mean, color="C1", ls="--", label="TCP utilization")
        ax2 = ax.twinx()
        ax2.plot(ks, [_est(recs, "q_mean", k=k).mean for k in ks], "s:", color="C2", label="DCTCP mean queue")
        ax2.set_ylabel("mean queue (packets)")
        ax.set_xscale("log")
        ax.set_xticks(ks, [str(k) for k in ks])
        ax.minorticks_off()
        ax.set_ylim(0.8, 1.01)
        ax.set_xlabel("K (packets)")
        ax.set_ylabel("utilization")
        ax.set_title(f"2 flows, {rate}", fontsize=9)
        ax.legend(fontsize=7, loc="lower right")
        ax2.legend(fontsize=7, loc="center right")
    figs.save(fig, "fig13_14", "Figs. 13-14: throughput and DCTCP's queue against K at 1 and 10 Gb/s, two "
              "flows")

    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
    for exp, ls, buffer in (("fig18", "-", "100 packets"), ("fig19", "--", "dynamic")):
        recs = results[exp]
        for cc, name in (("tcp", "TCP"), ("dctcp", "DCTCP")):
            color = "C0" if cc == "tcp" else "C1"
            errorbar(axes[0], INCAST_NS, [_ms(recs, "rct_mean_s", n=n, cc=cc) for n in INCAST_NS], ls=ls,
                     color=color, label=f"{name}, {buffer}")
            errorbar(axes[1], INCAST_NS, [_est(recs, "timeouts_per_query", n=n, cc=cc) for n in INCAST_NS],
                     ls=ls, color=color, label=f"{name}, {buffer}")
    axes[0].set_ylabel("mean query completion (ms)")
    axes[1].set_ylabel("timeouts per query")
    for ax in axes:
        ax.set_xlabel("servers")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    figs.save(fig, "fig18", "Figs. 18 and 19: incast, 1 MB per query over n servers, a 100-packet static "
              "buffer (solid) and dynamic buffering (dashed), minimum RTO 10 ms")
    return figs.made
