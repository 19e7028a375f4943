"""The index-policy reproduction (Avrachenkov, Ayesta, Doncel & Jacko 2013): its design against the paper's
stated parameters, the verdicts evaluate() gives on synthetic records, and the quick code path on a tiny
run."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List

import pytest

from bufferlab.reproduce import index_policy as ip
from bufferlab.reproduce import paper_module, runner
from bufferlab.reproduce.claims import DIFFERS, HOLDS

ROOT = Path(__file__).resolve().parents[1]
NOTE = ROOT.parent / "shared" / "papers" / "avrachenkov_2013_index_policy.md"


def test_every_claim_of_the_note_is_in_the_design() -> None:
    assert paper_module("index-policy") is ip
    expected = [f"T{i}" for i in range(1, 9)] + [f"S-{x}" for x in "abcdefg"]
    assert [c.id for c in ip.CLAIMS] == expected
    missing = [i for i in expected if NOTE.exists() and f"- {i}." not in NOTE.read_text()]
    assert not missing


def test_experiments_follow_the_paper_where_it_speaks() -> None:
    full = ip.experiments(quick=False, seeds=3)
    table = full["table1"]
    assert len(table) == 5 * 3 * 3 * ip.REPLICATES
    assert {(t.labels["scen"], t.labels["policy"]) for t in table} == \
        {(s, p) for s in range(5) for p in ("droptail", "red", "index")}
    for t in table:
        sc, scen = t.scenario, t.labels["scen"]
        q = sc["bottleneck"]["queue"]
        assert q["discipline"] == t.labels["policy"]
        assert q["limit"] == (6 if scen == 1 else 13)          # scenario 1's B = 6; the others the BDP
        assert sc["bottleneck"]["rate"] == "1500kbps" and sc["tcp"]["packet_size"] == "576B"
        assert len(sc["flows"]) == 2                            # two users, one router
        u1, u2 = (f["tcp"]["congestion_control"] for f in sc["flows"])
        for cc in (u1, u2):
            assert cc["kind"] == "whittle" and cc["alpha"] == 1.0 and cc["index"] == "whittle"
        assert u2["gamma"] == 0.5                               # user 2 is NewReno (γ = 1/2)
        assert u1["gamma"] == {0: 0.5, 1: 0.5, 2: 0.0, 3: ip.GAMMA_AGGRESSIVE, 4: 0.5}[scen]
        assert 0.5 < u1["gamma"] < 1 or scen != 3               # scenario 3: "barely reduces"
        rtts = [f["rtt"] for f in sc["flows"]]
        assert rtts == (["60ms", "40ms"] if scen == 4 else ["40ms", "40ms"])
    assert ip.BDP == round(ip.BASE_RTT / ip.T_PKT)               # B = the BDP of one user
    assert ip.T_PKT == pytest.approx(3.072e-3)
    quick = ip.experiments(quick=True, seeds=2)
    assert {t.scenario["duration"] for t in quick["table1"]} == {"120s"}
    assert {t.labels["what"] for t in quick["sensitivity"]} == {t.labels["what"] for t in full["sensitivity"]}


def _rec(scen: int, policy: str, seed: int, util: float, jain: float, queue: float, corr: float,
         share1: float) -> Dict[str, Any]:
    return {"labels": {"scen": scen, "policy": policy}, "seed": seed,
            "summary": {"utilization": util, "jain_index": jain, "queue_mean_pkts": queue,
                        "delay_mean_s": queue * 3.065e-3},
            "extra": {"cwnd_corr": corr, "goodput": [share1, 1 - share1]}}


def synthetic(paper_like: bool) -> Dict[str, List[Dict[str, Any]]]:
    """Table 1's rows shaped like the paper's (``paper_like``) or with DropTail ahead everywhere."""
    recs: List[Dict[str, Any]] = []
    for (scen, pol), (u, j, q, _) in ip.PAPER_TABLE.items():
        share = {2: {"droptail": 0.24, "red": 0.35, "index": 0.40},
                 3: {"droptail": 0.80, "red": 0.73, "index": 0.65}}.get(scen, {}).get(pol, 0.5)
        corr = {"droptail": 0.5, "red": 0.1, "index": -0.4}[pol]
        if not paper_like:
            u = {"droptail": 99.0, "red": 95.0, "index": 90.0}[pol]
            j = {"droptail": 0.99, "red": 0.95, "index": 0.90}[pol]
            q = {"droptail": 7.0, "red": 6.0, "index": 3.0}[pol]
            corr = {"droptail": 0.5, "red": 0.1, "index": 0.5}[pol]
        for seed in range(1, 5):
            eps = 1e-4 * seed
            recs.append(_rec(scen, pol, seed, u / 100 + eps, min(1.0, j + eps), q + eps, corr, share))
    return {"table1": recs, "sensitivity": []}


def test_evaluate_gives_the_expected_verdicts_on_synthetic_records() -> None:
    good = {v.claim.id: v for v in ip.evaluate(synthetic(True), quick=True)}
    for cid in ("T1", "T2", "T3", "T4", "T5", "T6", "T7"):
        assert good[cid].verdict == HOLDS, (cid, good[cid].ours)
    assert good["T8"].verdict == DIFFERS and good["T8"].why        # the birth-death bound (note §4.1)
    for cid in ("S-a", "S-b", "S-c", "S-d", "S-e", "S-f", "S-g"):
        assert good[cid].verdict == HOLDS, (cid, good[cid].ours, good[cid].why)
    bad = {v.claim.id: v for v in ip.evaluate(synthetic(False), quick=True)}
    for cid in ("S-a", "S-b", "S-c", "S-d", "S-e", "S-f"):
        assert bad[cid].verdict == DIFFERS and bad[cid].why, (cid, bad[cid].ours)


def test_quick_code_path_on_a_tiny_run(tmp_path: Path) -> None:
    sc = ip.scenario(2, "index", True)
    sc["duration"], sc["warmup"] = "15s", "5s"
    recs = runner.run_tasks([runner.Task(sc, 1, {"scen": 2, "policy": "index"}, f"{ip.__name__}:run_stats")],
                            tmp_path)
    x = recs[0]["extra"]
    assert len(x["goodput"]) == 2 and all(g > 0 for g in x["goodput"])
    assert -1 <= x["cwnd_corr"] <= 1 and len(x["trace_w1"]) == len(x["trace_t"]) > 0
    assert recs[0]["summary"]["utilization"] > 0.5
