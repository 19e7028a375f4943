"""The Global Notifier reproduction (Tsioliaridou & Tsaoussidis): its design against the paper's stated
parameters and the readings, the metrics of its Sec. 4.1 on small known inputs, each claim's tests on
synthetic records (a clear hold, a clear differ, an undecided case), and the quick code path on a tiny design
whose claims.json the verdict rules recheck."""

from __future__ import annotations

import inspect
import json
import math
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Sequence, Tuple

import numpy as np
import pandas as pd
import pytest

from bufferlab.reproduce import global_notifier as gn
from bufferlab.reproduce import paper_module, reproduce
from bufferlab.reproduce.claims import DIFFERS, HOLDS, HOLDS_UNDER, INCONCLUSIVE, Test, evaluate_claim
from bufferlab.reproduce.runner import Task
from bufferlab.reproduce.verdicts import claim_result, recheck

SEEDS = (1, 2, 3)
CAP = 40.0 * 0.96  # payload capacity, Mb/s


# ------------------------------------------------------------------------------------------- design


def test_claims_are_registered_with_the_papers_locations() -> None:
    ids = [c.id for c in gn.CLAIMS]
    assert ids == [f"T{i}" for i in range(1, 13)] + ["T12m"]
    assert [c.id for c in gn.CLAIMS if c.model_check] == ["T12m"]
    for c in gn.CLAIMS:
        assert c.where.startswith("Sec.") and c.paper and "note" not in c.where.lower()
    assert paper_module("global-notifier") is gn
    source = inspect.getsource(gn)
    for phrase in ("the note", "note's", "../shared", "note §"):
        assert phrase not in source
    assert gn.PRINCIPAL and len(gn.CHOICES) >= 8
    assert all("\"" in c and "Sec." in c for c in gn.CHOICES[:7]), "each reading quotes the paper's words"


def _keys(tasks: Iterable[Task]) -> set:
    return {json.dumps([t.scenario, t.seed, t.labels, t.extract], sort_keys=True) for t in tasks}


@pytest.mark.parametrize("quick", [True, False])
def test_more_seeds_give_a_superset_of_the_tasks(quick: bool) -> None:
    two, three = gn.experiments(quick, 2), gn.experiments(quick, 3)
    assert set(two) == set(three)
    for name in two:
        assert _keys(two[name]) < _keys(three[name]), name
        assert {t.seed for t in three[name]} == {1, 2, 3}


def test_quick_mode_runs_the_principal_design_unchanged() -> None:
    quick, full = gn.experiments(True, 2), gn.experiments(False, 2)
    for name in ("e1", "e2", "e5", "e6"):
        assert _keys(quick[name]) == _keys(full[name]), name
    for name in ("e2_newreno", "e2_red_packets", "e2_gn_high", "e2_rates"):
        assert _keys(quick[name]) < _keys(full[name]), name


def test_experiments_follow_the_paper_where_it_speaks() -> None:
    ex = gn.experiments(quick=False, seeds=1)
    assert set(ex) == {"e1", "e1_newreno", "e1_red_packets", "e2", "e2_newreno", "e2_red_packets",
                       "e2_gn_high", "e2_rates", "e5", "e6"}
    # E1: 200 flows, the router's marks and drops traced; E2: 160-300 flows; E5: 300 flows, 30-150 leave.
    for t in ex["e1"]:
        assert sum(g["count"] for g in t.scenario["flows"]) == 200
        assert t.scenario["trace"]["kinds"] == ["mark", "drop"] and t.scenario["duration"] == "30s"
    assert {t.labels["config"] for t in ex["e1"]} == set(gn.CONFIGS)
    assert sorted({t.labels["n"] for t in ex["e2"]}) == list(range(160, 301, 20))
    assert sorted({t.labels["leaving"] for t in ex["e5"]}) == [30, 60, 90, 120, 150]
    for t in ex["e5"]:
        groups = {g["name"]: g for g in t.scenario["flows"]}
        assert groups["flows"]["count"] + groups["leaving"]["count"] == 300
        assert groups["leaving"]["stop"] == "50s"
    for t in ex["e2"] + ex["e6"]:
        sc = t.scenario
        assert sc["duration"] == "100s" and sc["warmup"] == "10s"
        assert sc["flows"][0]["start"] == {"uniform": ["0s", "2s"]}   # all senders start within 2 s
        q = sc["bottleneck"]["queue"]
        assert q["limit"] == 500 == round(40e6 * 0.1 / 8000)          # buffer = BDP
        assert q["mean_pktsize"] == "500B" and q["weight"] == pytest.approx(1 - math.exp(-1e-4))
        assert q["max_p"] == pytest.approx(0.2)                       # ns-2 byte mode: p × 1000 / 500
        if q["discipline"] == "global-notifier":
            assert (q["min_th"], q["max_th"]) == pytest.approx((25.0, 37.5))   # min_th = 2/3 max_th
            assert sc["tcp"]["ecn"] is True
        else:
            assert (q["min_th"], q["max_th"]) == pytest.approx((12.5, 37.5))   # 25/75 × 500 B
        tcp = sc["tcp"]
        assert (tcp["recovery"], tcp["sack"], tcp["initial_window"]) == ("reno", False, 2)
        cc = tcp["congestion_control"]
        if t.labels["config"] == "aimd-gn":
            assert (cc["increase"], cc["decrease"], cc["reduce_from"], cc["ns2_halving"]) == \
                (0.9, 0.675, "cwnd", True)
        else:
            assert cc == "newreno"
    assert all(t.scenario["monitor"] == {"sample_interval": "10ms", "cwnd": True} for t in ex["e2"])
    assert all(t.scenario["flows"][0]["rtt"] == {"uniform": ["40ms", "160ms"]} for t in ex["e6"])
    # The readings change only what they name.
    nr = ex["e2_newreno"][0].scenario
    assert nr["tcp"]["sack"] is True and "recovery" not in nr["tcp"]
    pk = [t.scenario["bottleneck"]["queue"] for t in ex["e2_red_packets"] if t.labels["config"] == "red"][0]
    assert (pk["min_th"], pk["max_th"], pk["max_p"]) == (25.0, 75.0, 0.1)
    hi = ex["e2_gn_high"][0].scenario["bottleneck"]["queue"]
    assert hi["max_th"] == 250.0 == hi["limit"] / 2 and hi["min_th"] == pytest.approx(500 / 3)
    assert sorted({t.labels["rate"] for t in ex["e2_rates"]}) == [20e6, 60e6, 100e6]
    r100 = [t for t in ex["e2_rates"] if t.labels["rate"] == 100e6][0].scenario
    assert r100["bottleneck"]["queue"]["limit"] == 1250 and r100["bottleneck"]["rate"] == "100000000bps"


def test_ns2_automatic_red_configuration() -> None:
    # ptc = 40e6 / (8 * 500) = 10,000: min_th = 0.005 * 10,000 / 2 = 25, w_q = 1 - exp(-1/(10 * 0.1 * ptc)).
    lo, hi, w = gn.ns2_red_auto(40e6, 0.02)
    assert (lo, hi) == (25.0, 75.0) and w == pytest.approx(1 - math.exp(-1e-4))
    assert gn.ns2_red_auto(1e6, 0.02)[:2] == (5.0, 15.0)               # at least 5 packets
    assert gn.ns2_red_auto(40e6, 0.05)[2] == pytest.approx(1 - math.exp(-1 / (10 * 3 * (0.05 + 1e-4) * 1e4)))
    assert gn.red_parameters(gn.BASE)["min_th"] == 12.5
    assert gn.red_parameters(gn.Setting(rate=100e6)) == pytest.approx(
        {"min_th": 31.25, "max_th": 93.75, "weight": 1 - math.exp(-1 / (10 * 0.1 * 25e3)), "max_p": 0.2})
    with pytest.raises(ValueError):
        gn.red_parameters(gn.Setting(red="kilobytes"))


# ------------------------------------------------------------------------------------------- metrics


def test_metrics_of_section_4_1() -> None:
    assert gn.jain(np.array([1.0, 1.0, 1.0])) == pytest.approx(1.0)
    assert gn.jain(np.array([1.0, 0.0])) == pytest.approx(0.5)
    assert gn.jain(np.array([2.0, np.nan, 2.0])) == pytest.approx(1.0)   # a flow not started is left out
    cw = np.array([[1.0, 3.0], [3.0, 1.0], [2.0, 2.0], [2.0, 2.0]])
    # Per sample: (4²)/(2·10) = 0.8, 0.8, 1, 1; slots of two samples average the windows first.
    assert gn.short_term_fairness(cw, 1) == pytest.approx([0.8, 0.8, 1.0, 1.0])
    assert gn.short_term_fairness(cw, 2) == pytest.approx([1.0, 1.0])
    # Eq. (8): max_i |mean_j cwnd_j − cwnd_i| per sample.
    assert gn.max_cwnd_deviation(cw) == pytest.approx([1.0, 1.0, 0.0, 0.0])
    # Eq. (7): running means awnd = (1, 3), (2, 2), (2, 2), (2, 2) → deviations 1, 0, 0, 0.
    assert gn.max_avg_cwnd_deviation(cw) == pytest.approx([1.0, 0.0, 0.0, 0.0])
    assert gn.worst_case_fairness([1.0, 2.0, 4.0]) == pytest.approx(0.25)


def test_first_signals_from_the_routers_trace() -> None:
    ev = pd.DataFrame({"time_s": [0.5, 0.7, 0.9, 1.0, 1.2, 2.0],
                       "kind": ["drop", "mark", "drop", "mark", "drop", "drop"],
                       "flow": pd.array([0, 1, 0, 0, 2, 1], dtype="Int64"),
                       "reason": ["overflow", "notify", "early", "notify", "forced", "early"]})
    t = gn.first_signals(ev, 4)
    assert np.allclose(t["early"], [0.9, 0.7, np.nan, np.nan], equal_nan=True)
    assert np.allclose(t["any"], [0.5, 0.7, 1.2, np.nan], equal_nan=True)
    empty = gn.first_signals(ev.iloc[:0], 2)
    assert np.isnan(empty["early"]).all() and np.isnan(empty["any"]).all()


# ------------------------------------------------------------------------------------------- synthetic runs


def rec(labels: Dict[str, Any], seed: int, extra: Dict[str, Any],
        summary: Dict[str, Any] | None = None) -> Dict[str, Any]:
    return {"labels": labels, "seed": seed, "extra": extra, "summary": summary or {}}


def runs(value: Callable[[str, int, int], Tuple[Dict[str, Any], Dict[str, Any]]],
         ns: Sequence[int] = tuple(gn.FLOWS), configs: Sequence[str] = tuple(gn.CONFIGS),
         seeds: Sequence[int] = SEEDS, key: str = "n") -> List[Dict[str, Any]]:
    """Records of every (N, configuration, seed): ``value`` gives (extra, summary)."""
    out = []
    for n in ns:
        for c in configs:
            for s in seeds:
                extra, summary = value(c, n, s)
                out.append(rec({key: n, "config": c}, s, extra, summary))
    return out


def jit(seed: int, size: float) -> float:
    """A spread over the seeds: −size, 0, +size for seeds 1, 2, 3."""
    return (seed - 2) * size


def results_of(tests: List[Test]) -> str:
    return claim_result([t.result for t in tests])


def test_t1_notification_times() -> None:
    def e1(gn_t: Callable[[int], float], red_t: Callable[[int], float | None]) -> List[Dict[str, Any]]:
        out = []
        for s in SEEDS:
            for c in gn.CONFIGS:
                v = gn_t(s) if c.endswith("gn") else red_t(s)
                out.append(rec({"config": c, "n": 200}, s, {"all_early": v, "p95_early": v, "all_any": v,
                                                             "p95_any": v}))
        return out

    good = gn.t1_tests(e1(lambda s: 2.0 + jit(s, 0.05), lambda s: 10.0 + jit(s, 0.5)))
    assert [t.result for t in good] == [HOLDS, HOLDS]
    bad = gn.t1_tests(e1(lambda s: 2.0 + jit(s, 0.05), lambda s: 2.3 + jit(s, 0.05)))
    assert bad[1].result == DIFFERS and bad[1].est.mean == pytest.approx(1.15)
    wide = gn.t1_tests(e1(lambda s: 2.5 + jit(s, 1.5), lambda s: 10.0))
    assert wide[0].result == INCONCLUSIVE
    # A flow never notified within the run counts the run's length: RED's time is then a lower bound.
    never = gn.t1_tests(e1(lambda s: 2.0, lambda s: None))
    assert never[1].est.mean == pytest.approx(gn.E1_DURATION / 2.0)


def test_t2_largest_firing_share() -> None:
    def e2(flows: Callable[[int, int], float]) -> List[Dict[str, Any]]:
        return runs(lambda c, n, s: ({"notify_flows_max": flows(n, s)} if c.endswith("gn") else {}, {}))

    assert results_of(gn.t2_tests(e2(lambda n, s: 90 + jit(s, 4) if n == 200 else 20))) == HOLDS
    assert results_of(gn.t2_tests(e2(lambda n, s: 10 + jit(s, 2)))) == DIFFERS
    undecided = gn.t2_tests(e2(lambda n, s: {1: 10, 2: 80, 3: 130}[s] if n == 200 else 5))
    assert results_of(undecided) == INCONCLUSIVE
    assert gn.t2_tests([])[0].result == INCONCLUSIVE   # no runs, no estimate


def _gp(util: float, ratio: float) -> Dict[str, Any]:
    thr = util * CAP * 1e6
    return {"throughput_bps": thr, "goodput_bps": thr * ratio}


def test_t3_red_goodput_against_n() -> None:
    def e2(slope: float) -> List[Dict[str, Any]]:
        return runs(lambda c, n, s: (_gp(1.0, 0.95 + slope * (n - 160) + jit(s, 1e-4)), {}), configs=("red",))

    assert results_of(gn.t3_tests(e2(-1e-4))) == HOLDS
    assert results_of(gn.t3_tests(e2(+1e-4))) == DIFFERS
    noisy = runs(lambda c, n, s: (_gp(1.0, 0.95 + 5e-3 * ((n * s) % 3 - 1)), {}), configs=("red",))
    assert gn.t3_tests(noisy)[1].result == INCONCLUSIVE


def test_t4_and_t5_utilization() -> None:
    def e2(u_reno: Callable[[int], float], u_aimd: Callable[[int], float]) -> List[Dict[str, Any]]:
        def value(c: str, n: int, s: int) -> Tuple[Dict[str, Any], Dict[str, Any]]:
            u = {"reno-gn": u_reno(n), "aimd-gn": u_aimd(n)}.get(c, 1.0) + jit(s, 1e-3)
            return _gp(u, 1.0 if c.endswith("gn") else 0.93), {"utilization": min(u, 1.0)}
        return runs(value)

    paper = e2(lambda n: 0.85 if n <= 220 else 1.0, lambda n: 1.0)
    assert results_of(gn.t4_tests(paper)) == HOLDS and results_of(gn.t5_tests(paper)) == HOLDS
    ours = e2(lambda n: 1.0, lambda n: 0.92 if n <= 200 else 1.0)
    t4, t5 = gn.t4_tests(ours), gn.t5_tests(ours)
    assert results_of(t4) == DIFFERS
    assert [t.quantity for t in t4 if t.result == DIFFERS][0].endswith("160 flows")
    assert results_of(t5) == DIFFERS and sum(t.result == DIFFERS for t in t5) == 3
    edge = e2(lambda n: 0.97 if n <= 220 else 1.0, lambda n: 0.98)   # on the bound, ± the seeds' spread
    assert results_of(gn.t4_tests(edge)) == INCONCLUSIVE and results_of(gn.t5_tests(edge)) == INCONCLUSIVE


def _fair(c: str, s: int, gn_stf: float, gn_dev: float,
          gn_wc: float) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    g = c.endswith("gn")
    stf = (gn_stf if g else 0.8) + jit(s, 0.01)
    extra = {"stf_0.01": stf, "stf_max": stf + 0.02, "stf_min": stf - 0.02,
             "stf_before": 0.5, "stf_after": stf if g else 0.5 + jit(s, 0.01),
             "max_dev": (gn_dev if g else 8.0) + jit(s, 0.2),
             "max_avg_dev": (gn_dev / 2 if g else 4.0) + jit(s, 0.1),
             "worst_case": (gn_wc if g else 0.3) + jit(s, 0.02), "cwnd_mean": 3.0}
    return extra, {}


def test_t6_t7_t8_t11_fairness_and_smoothness() -> None:
    paper = runs(lambda c, n, s: _fair(c, s, 0.95, 4.0, 0.9))
    for fn in (gn.t6_tests, gn.t7_tests, gn.t8_tests, gn.t11_tests):
        assert results_of(fn(paper)) == HOLDS, fn.__name__
    # GN less fair, less fair in the worst case, four times smoother: every claim differs.
    other = runs(lambda c, n, s: _fair(c, s, 0.7, 2.0, 0.1))
    for fn in (gn.t6_tests, gn.t7_tests, gn.t8_tests, gn.t11_tests):
        assert results_of(fn(other)) == DIFFERS, fn.__name__
    assert gn.t8_tests(other)[1].est.mean == pytest.approx(0.25)
    # One seed only: nothing is decided.
    one = runs(lambda c, n, s: _fair(c, s, 0.95, 4.0, 0.9), seeds=(1,))
    for fn in (gn.t6_tests, gn.t7_tests, gn.t8_tests, gn.t11_tests):
        assert results_of(fn(one)) == INCONCLUSIVE, fn.__name__
    # The gap test: the GN − RED difference must grow after the 2nd second.
    flat = runs(lambda c, n, s: ({**_fair(c, s, 0.95, 4.0, 0.9)[0], "stf_before": 0.9, "stf_after": 0.9}, {}))
    assert gn.t6_tests(flat)[-1].result == DIFFERS


def test_t9_departures() -> None:
    def e5(gp_gn: float, thr_gn: float) -> List[Dict[str, Any]]:
        def value(c: str, k: int, s: int) -> Tuple[Dict[str, Any], Dict[str, Any]]:
            if c == "red":
                return {"throughput_bps": CAP * 1e6, "goodput_bps": 0.94 * CAP * 1e6 + jit(s, 1e4)}, {}
            return {"throughput_bps": thr_gn * 1e6 + jit(s, 1e4),
                    "goodput_bps": gp_gn * 1e6 + jit(s, 1e4)}, {}
        return runs(value, ns=gn.LEAVING, configs=gn.PAPER_CONFIGS, key="leaving")

    assert results_of(gn.t9_tests(e5(CAP, CAP))) == HOLDS
    assert results_of(gn.t9_tests(e5(0.9 * CAP, 0.9 * CAP))) == DIFFERS
    assert results_of(gn.t9_tests(e5(0.94 * CAP, 0.99 * CAP))) == INCONCLUSIVE   # on the bounds


def test_t10_the_comparison_with_diverse_rtts() -> None:
    def rows(diff: Callable[[str, int], float], noise: float = 0.01) -> List[Dict[str, Any]]:
        def value(c: str, n: int, s: int) -> Tuple[Dict[str, Any], Dict[str, Any]]:
            d = 0.0 if c == "red" else diff(c, n) + jit(s, noise)
            return {"throughput_bps": (30 + d) * 1e6, "goodput_bps": (29 + d) * 1e6}, {}
        return runs(value, configs=gn.PAPER_CONFIGS)

    e2 = rows(lambda c, n: -3.0 if n <= 200 else (0.0 if n <= 240 else 2.0))
    assert results_of(gn.t10_tests(e2, rows(lambda c, n: -1.0 if n <= 200 else (0.1 if n <= 240 else 1.0)))) \
        == HOLDS
    flipped = gn.t10_tests(e2, rows(lambda c, n: 1.0 if n <= 200 else (0.1 if n <= 240 else 1.0)))
    assert results_of(flipped) == DIFFERS
    assert all("160 flows" not in t.quantity or t.result == DIFFERS for t in flipped)
    tie_broken = gn.t10_tests(e2, rows(lambda c, n: -1.0 if n <= 200 else (1.5 if n <= 240 else 1.0)))
    assert any("a tie as in E2" in t.quantity and t.result == DIFFERS for t in tie_broken)
    noisy = gn.t10_tests(e2, rows(lambda c, n: -1.0 if n <= 200 else 1.0, noise=3.0))
    assert results_of(noisy) == INCONCLUSIVE


def test_t12_drops_against_red_ecn_and_the_model_check() -> None:
    def e2(gn_drops: float) -> List[Dict[str, Any]]:
        return runs(lambda c, n, s: ({"worst_case": 0.5, "cwnd_mean": 2.0},
                                     {"drops": gn_drops + jit(s, 5) if c.endswith("gn") else 50.0,
                                      "drops_forced": gn_drops if c.endswith("gn") else 0, "drops_early": 0}))

    assert results_of(gn.t12_tests(e2(0.0))) == HOLDS
    assert results_of(gn.t12_tests(e2(8000.0))) == DIFFERS
    assert results_of(gn.t12_tests(e2(49.0))) == INCONCLUSIVE
    ctx = {"e2": e2(0.0), "e5": [], "e6": []}
    ev = evaluate_claim(gn.CLAIMS, [c for c in gn.CLAIMS if c.id == "T12m"][0], ctx, False, gn.PRINCIPAL)
    assert ev.verdict == HOLDS and ev.claim.model_check
    ctx["e2"][1]["summary"]["drops_early"] = 1
    ctx["e2"][1]["labels"]["config"] = "reno-gn"
    ev = evaluate_claim(gn.CLAIMS, [c for c in gn.CLAIMS if c.id == "T12m"][0], ctx, False, gn.PRINCIPAL)
    assert ev.verdict == DIFFERS and ev.outcome.why


def synthetic_results(paper: bool) -> Dict[str, List[Dict[str, Any]]]:
    """Every experiment's records, shaped like the runs': the paper's picture (``paper``) or its opposite."""
    def e2_value(c: str, n: int, s: int) -> Tuple[Dict[str, Any], Dict[str, Any]]:
        g = c.endswith("gn")
        if paper:
            u = (0.85 if n <= 220 else 1.0) if c == "reno-gn" else 1.0
            extra, _ = _fair(c, s, 0.95, 4.0, 0.9)
        else:
            u = 0.92 if g else 1.0
            extra, _ = _fair(c, s, 0.7, 1.0, 0.1)
        u += jit(s, 1e-3) if u < 1 else 0.0
        ratio = 1.0 if g else 0.95 - (1e-4 if paper else -1e-4) * (n - 160) + jit(s, 1e-4)
        extra.update(_gp(u, ratio))
        if g:
            extra["notify_flows_max"] = (90 if paper else 10) + jit(s, 2)
        drops = (0.0 if paper else 8000.0) if g else 50.0 + jit(s, 5)
        return extra, {"utilization": min(u, 1.0), "drops": drops, "drops_forced": 0.0, "drops_early": 0}

    e2 = runs(e2_value)
    res: Dict[str, List[Dict[str, Any]]] = {"e2": e2}
    for name, (_setting, configs, _cwnd) in gn.E2_READINGS.items():
        res[name] = [r for r in e2 if r["labels"]["config"] in configs]
    res["e2_rates"] = [{**r, "labels": {**r["labels"], "rate": rate}} for rate in gn.RATES for r in e2
                       if r["labels"]["n"] in gn.RATE_FLOWS and r["labels"]["config"] in gn.PAPER_CONFIGS]
    e1 = []
    for s in SEEDS:
        for c in gn.CONFIGS:
            v = (2.0 + jit(s, 0.05)) if c.endswith("gn") else ((10.0 if paper else 2.3) + jit(s, 0.2))
            e1.append(rec({"config": c, "n": 200}, s, {"all_early": v, "p95_early": v - 0.1, "all_any": v,
                                                        "p95_any": v - 0.1}))
    res["e1"] = e1
    for name in gn.E1_READINGS:
        res[name] = e1
    def e5_value(c: str, k: int, s: int) -> Tuple[Dict[str, Any], Dict[str, Any]]:
        level = CAP if paper or c == "red" else 0.9 * CAP
        goodput = level * (0.94 if c == "red" else 1.0) + (jit(s, 0.01) if c != "red" else 0.0)
        return {"throughput_bps": level * 1e6, "goodput_bps": goodput * 1e6}, {"drops_early": 0}

    res["e5"] = runs(e5_value, ns=gn.LEAVING, configs=gn.PAPER_CONFIGS, key="leaving")
    res["e6"] = [r for r in e2 if r["labels"]["config"] in gn.PAPER_CONFIGS]
    return res


def test_every_claim_on_synthetic_runs() -> None:
    def evaluate(paper: bool) -> Dict[str, Any]:
        res = synthetic_results(paper)
        return {c.id: evaluate_claim(gn.CLAIMS, c, res, False, gn.PRINCIPAL) for c in gn.CLAIMS}

    good = evaluate(True)
    assert {k: e.verdict for k, e in good.items() if e.verdict != HOLDS} == {}
    assert good["T4"].outcome.why.startswith("at the principal 40 Mb/s")
    bad = evaluate(False)
    for cid in ("T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8", "T9", "T11", "T12"):
        assert bad[cid].principal_verdict == DIFFERS and bad[cid].outcome.why, cid
        assert bad[cid].verdict in (DIFFERS, HOLDS_UNDER), cid
    # The readings are evaluated on their own experiments and named in the row.
    row = bad["T5"].row()
    assert {a["reading"] for a in row["alternatives"]} >= {gn.R_GN_HIGH, gn.R_NEWRENO, gn.R_PACKETS}
    assert {"e2", "e2_rates", "e2_gn_high", "e2_newreno", "e2_red_packets"} == set(bad["T5"].read)
    assert set(good["T9"].read) == {"e5"} and set(good["T1"].read) == {"e1", "e1_newreno", "e1_red_packets"}


# ------------------------------------------------------------------------------------------- quick code path


def _tiny(quick: bool, seeds: int) -> Dict[str, List[Task]]:
    """Every experiment of the design, each on one small point (200 flows for 8 s, E5 and E6 too), so that
    every claim, table and figure runs on real engine output within seconds."""
    ex: Dict[str, List[Task]] = {}
    here = gn.__name__
    s = range(1, seeds + 1)

    def tasks(setting: gn.Setting, configs: Sequence[str], extract: str, **kw: Any) -> List[Task]:
        labels = {"rate": setting.rate} if setting.rate != gn.RATE else {}
        return [Task(gn.scenario(c, 200, setting, duration=8.0, warmup=3.0, **kw), seed,
                     {"n": 200, "config": c, **labels}, extract=f"{here}:{extract}")
                for c in configs for seed in s]

    ex["e1"] = [Task(gn.scenario(c, 200, duration=4.0, warmup=0.0, trace=True), seed, {"n": 200, "config": c},
                     extract=f"{here}:notification") for c in gn.CONFIGS for seed in s]
    for name, (setting, configs) in gn.E1_READINGS.items():
        ex[name] = [Task(gn.scenario(c, 200, setting, duration=4.0, warmup=0.0, trace=True), seed,
                         {"n": 200, "config": c}, extract=f"{here}:notification")
                    for c in configs for seed in s]
    ex["e2"] = tasks(gn.BASE, tuple(gn.CONFIGS), "fairness_series", cwnd=True)
    for name, (setting, configs, cwnd) in gn.E2_READINGS.items():
        ex[name] = tasks(setting, configs, "fairness" if cwnd else "totals", cwnd=cwnd)
    ex["e2_rates"] = tasks(gn.Setting(rate=20e6), gn.PAPER_CONFIGS, "totals")
    ex["e5"] = [Task(gn.scenario(c, 200, leaving=60, duration=8.0), seed, {"leaving": 60, "config": c},
                     extract=f"{here}:totals") for c in gn.PAPER_CONFIGS for seed in s]
    ex["e6"] = tasks(gn.BASE, gn.PAPER_CONFIGS, "totals", rtt=gn.HETERO_RTT)
    return ex


@pytest.mark.slow
def test_quick_code_path_writes_a_claims_table_the_rules_recheck(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gn, "experiments", _tiny)
    doc = reproduce("global-notifier", tmp_path, quick=True, seeds=1, max_seeds=1)
    out = tmp_path
    written = json.loads((out / "claims.json").read_text())
    assert recheck(written) == []
    assert [c["id"] for c in written["claims"]] == [f"T{i}" for i in range(1, 13)]
    assert [c["id"] for c in written["model_checks"]] == ["T12m"]
    assert written["model_checks"][0]["verdict"] == HOLDS
    assert doc["principal_reading"] == gn.PRINCIPAL
    for c in written["claims"]:
        assert c["paper"]["where"].startswith("Sec.") and c["tests"], c["id"]
    report = (out / "report.md").read_text()
    assert "## Sensitivity" in report and "## Readings" in report
    for stem in ("fig3", "fig4", "fig9", "fig10_11", "fig12_13", "fig14", "fig17"):
        assert (out / f"{stem}.png").stat().st_size > 0
    # The engine's per-firing counts reach the records, and a firing marks no more flows than packets.
    runs_ = [json.loads(p.read_text()) for p in (out / "runs").glob("*.json")]
    firing = [r["extra"] for r in runs_ if "notify_events" in r.get("extra", {})]
    assert firing and any(x["notify_events"] for x in firing)
    assert all(0 < x["notify_flows_max"] <= x["notify_packets_max"] for x in firing if x["notify_events"])
    e1 = [r["extra"] for r in runs_ if "curve_early" in r.get("extra", {})]
    assert e1 and all(len(x["curve_early"]) == len(gn.CURVE) for x in e1)
