"""The Global Notifier reproduction (Tsioliaridou & Tsaoussidis): its design against the paper's stated
parameters, the metrics of its §4.1 on small known inputs, the verdicts evaluate() gives on synthetic
records, and the quick code path on a tiny run."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Dict, List

import numpy as np
import pytest

from bufferlab.reproduce import global_notifier as gn
from bufferlab.reproduce import paper_module, runner
from bufferlab.reproduce.claims import DIFFERS, HOLDS, NOT_TESTABLE

ROOT = Path(__file__).resolve().parents[1]
NOTE = ROOT.parent / "shared" / "papers" / "tsioliaridou_global_notifier.md"


def test_every_claim_of_the_note_is_in_the_design() -> None:
    ids = [c.id for c in gn.CLAIMS]
    assert ids == [f"T{i}" for i in range(1, 13)]
    if NOTE.exists():
        text = NOTE.read_text()
        assert all(f"**{i}" in text for i in ids)
    assert paper_module("global-notifier") is gn


def test_experiments_follow_the_paper_where_it_speaks() -> None:
    full = gn.experiments(quick=False, seeds=1)
    assert {"e1", "e2", "e5", "e6", "sensitivity"} <= set(full)
    # E1: 200 flows; E2: 160 to 300 flows; E5: 300 flows, 30/60/90/120/150 leaving; 100-s runs.
    assert {t.labels["config"] for t in full["e1"]} >= {"red-ecn", "reno-gn", "aimd-gn"}
    assert all(sum(g["count"] for g in t.scenario["flows"]) == 200 for t in full["e1"])
    assert sorted({t.labels["n"] for t in full["e2"]}) == list(range(160, 301, 20))
    assert sorted({t.labels["leaving"] for t in full["e5"]}) == [30, 60, 90, 120, 150]
    for t in full["e5"]:
        groups = {g["name"]: g for g in t.scenario["flows"]}
        assert groups["flows"]["count"] + groups["leaving"]["count"] == 300
        assert groups["leaving"]["stop"] == "50s"
    for t in full["e2"] + full["e6"]:
        sc = t.scenario
        assert sc["duration"] == "100s"
        assert sc["flows"][0]["start"] == {"uniform": ["0s", "2s"]}   # all senders start within 2 s
        q = sc["bottleneck"]["queue"]
        assert q["limit"] == 500 == round(40e6 * 0.1 / 8000)          # buffer = BDP
        if q["discipline"] == "global-notifier":
            assert q["min_th"] == pytest.approx(2 / 3 * q["max_th"])   # min_th = 2/3 max_th
            assert sc["tcp"]["ecn"] is True
        else:
            assert (q["min_th"], q["max_th"]) == (25.0, 75.0)          # ns-2's automatic thresholds
        cc = sc["tcp"]["congestion_control"]
        if t.labels["config"] == "aimd-gn":
            assert (cc["increase"], cc["decrease"], cc["reduce_from"], cc["ns2_halving"]) == \
                (0.9, 0.675, "cwnd", True)
        else:
            assert cc == "newreno"
    assert all(t.scenario["monitor"] == {"sample_interval": "10ms", "cwnd": True} for t in full["e2"])
    assert {t.labels["config"] for t in full["e2"]} == set(gn.CONFIGS)
    assert all(t.scenario["flows"][0]["rtt"] == {"uniform": ["40ms", "160ms"]} for t in full["e6"])
    quick = gn.experiments(quick=True, seeds=1)
    assert {t.scenario["duration"] for t in quick["e2"]} == {"50s"}
    assert 200 in {t.labels["n"] for t in quick["e2"]}


def test_ns2_automatic_red_configuration() -> None:
    # ptc = 40e6 / (8 * 500) = 10,000: min_th = 0.005 * 10,000 / 2 = 25, w_q = 1 - exp(-1/(10 * 0.1 * ptc)).
    lo, hi, w = gn.ns2_red_auto(40e6, 0.02)
    assert (lo, hi) == (25.0, 75.0) and w == pytest.approx(1 - math.exp(-1e-4))
    assert gn.ns2_red_auto(1e6, 0.02)[:2] == (5.0, 15.0)               # at least 5 packets
    assert gn.ns2_red_auto(40e6, 0.05)[2] == pytest.approx(1 - math.exp(-1 / (10 * 3 * (0.05 + 1e-4) * 1e4)))


def test_e1_start_times_move_to_the_cut() -> None:
    full = gn.e1_starts(3, 5.0)
    cut = gn.e1_starts(3, 1.0)
    assert len(full) == 200 and max(full) <= 2.0
    assert all(c == (f if f <= 1.0 else 1.0) for f, c in zip(full, cut))


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


def _rec(labels: Dict[str, Any], seed: int, summary: Dict[str, Any], extra: Dict[str, Any]) -> Dict[str, Any]:
    return {"labels": labels, "seed": seed, "summary": summary, "extra": extra}


def synthetic(good: bool) -> Dict[str, List[Dict[str, Any]]]:
    """Records shaped like the runs': the paper's picture (``good``) or its opposite."""
    seeds = (1, 2, 3)
    res: Dict[str, List[Dict[str, Any]]] = {"e1": [], "e2": [], "e5": [], "e6": [], "sensitivity": []}
    for config, done in (("red-ecn", 8.0 if good else 3.0), ("reno-gn", 2.0), ("aimd-gn", 2.0),
                         ("red", 99.0)):
        for seed in seeds:
            for t in (1.0, 2.0, 3.0, 4.0, 8.0, 10.0):
                marked = 200 if t >= done else 150
                res["e1"].append(_rec({"config": config, "t": t}, seed, {}, {
                    "notified_marks": marked, "notified_drops": 200, "reacted": 200, "flows": 200}))
    c = 40e6 * 0.96
    for n in range(160, 301, 20):
        for config in gn.CONFIGS:
            gn_ = config.endswith("gn")
            if good:
                util = (0.85 if n <= 220 else 1.0) if config == "reno-gn" else 1.0
                gp = c * util * (1.0 if gn_ else 0.96 - 0.0001 * (n - 160))
            else:
                util = 0.9 if gn_ else 1.0
                gp = c * util * (1.0 if gn_ else 0.9 + 0.0002 * (n - 160))
            for seed in seeds:
                fair = (0.95 if good else 0.8) if gn_ else 0.85
                extra = {"throughput_bps": c * util, "goodput_bps": gp, "worst_case": 0.9 if gn_ else 0.3,
                         "stf_0.01": fair, "stf_0.1": fair, "stf_1": fair, "stf_max": fair + 0.02,
                         "stf_min": fair - 0.02, "max_avg_dev": (0.5 if gn_ else 1.0),
                         "max_dev": (2.5 if gn_ else 5.0) if good else (6.0 if gn_ else 5.0),
                         "cwnd_mean": 3.0,
                         "queue_empty": 0.1 if util < 1 else 0.0, "max_cut_share": 0.1}
                if n == 200:
                    extra["stf_fine_t"] = [0.5, 1.5, 2.5, 5.0]
                    extra["stf_fine"] = [0.5, 0.5, fair, fair] if good else [fair] * 4
                summary = {"utilization": util, "drops": 10 if gn_ else 1000,
                           "retransmits": 10 if gn_ else 1000, "drops_early": 0 if gn_ else 900}
                res["e2"].append(_rec({"n": n, "config": config}, seed, summary, extra))
                if config != "red-ecn":
                    res["e6"].append(_rec({"n": n, "config": config}, seed,
                                          {"drops_early": summary["drops_early"]},
                                          {"throughput_bps": c * util, "goodput_bps": gp}))
    for k in (30, 90, 150):
        for config in gn.PAPER_CONFIGS:
            gn_ = config != "red"
            thr = c if (good or not gn_) else 0.9 * c
            for seed in seeds:
                res["e5"].append(_rec({"leaving": k, "config": config}, seed, {"drops_early": 0},
                                      {"throughput_bps": thr, "goodput_bps": thr * (1.0 if gn_ else 0.95)}))
    for n in (160, 300):
        for config in gn.PAPER_CONFIGS:
            for seed in seeds:
                labels = {"what": "rate", "variant": "100 Mb/s", "config": config, "n": n}
                res["sensitivity"].append(_rec(labels, seed, {"utilization": 0.9},
                                               {"throughput_bps": 9e7, "goodput_bps": 8.8e7 - 1e4 * n}))
    return res


def test_evaluate_gives_the_expected_verdicts_on_synthetic_records() -> None:
    good = {v.claim.id: v for v in gn.evaluate(synthetic(True), quick=False)}
    assert good["T2"].verdict == NOT_TESTABLE and good["T2"].why
    assert all(v.verdict == HOLDS for k, v in good.items() if k != "T2"), \
        {k: (v.verdict, v.ours) for k, v in good.items() if v.verdict != HOLDS}
    bad = {v.claim.id: v for v in gn.evaluate(synthetic(False), quick=False)}
    for cid in ("T1", "T3", "T4", "T5", "T6", "T8", "T9", "T11"):
        assert bad[cid].verdict == DIFFERS and bad[cid].why, (cid, bad[cid].ours)
    assert bad["T7"].verdict == HOLDS and bad["T12"].verdict == HOLDS


def test_quick_code_path_on_a_tiny_run(tmp_path: Path) -> None:
    sc = gn.scenario("aimd-gn", 20, True, cwnd=True, duration=12.0, rate_bps=4e6)
    sc_red = gn.scenario("red", 20, True, cwnd=True, duration=12.0, rate_bps=4e6)
    ext = f"{gn.__name__}:fairness_series"
    recs = runner.run_tasks([runner.Task(sc, 1, {"n": 20}, extract=ext),
                             runner.Task(sc_red, 1, {"n": 20}, extract=f"{gn.__name__}:totals")], tmp_path)
    x = recs[0]["extra"]
    assert 0 < x["stf_0.01"] <= 1 and 0 < x["worst_case"] <= 1 and x["max_dev"] >= 0
    assert x["throughput_bps"] >= x["goodput_bps"] * 0.9 and len(x["stf_fine"]) == len(x["stf_fine_t"]) > 0
    assert recs[0]["summary"]["drops_early"] == 0
    assert recs[1]["extra"]["flows"] == 20 and recs[1]["extra"]["notified_drops"] > 0
