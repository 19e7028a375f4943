"""The index-policy reproduction (Avrachenkov, Ayesta, Doncel & Jacko 2013): its design against the paper's
stated parameters and readings, each claim's verdict on synthetic runs (a clear hold, a clear difference, an
undecided case), the theory claims' exact tests, and a shortened reproduction whose claims.json the recheck
accepts."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Dict, List

import numpy as np
import pytest

from bufferlab.reproduce import index_policy as ip
from bufferlab.reproduce import paper_module, reproduce, runner
from bufferlab.reproduce.claims import DIFFERS, HOLDS, HOLDS_UNDER, INCONCLUSIVE, Context, evaluate_claim
from bufferlab.reproduce.verdicts import recheck

SIM = ["S-a", "S-b", "S-c", "S-d", "S-e", "S-f", "S-f2"]


def test_claims_and_model_checks_cite_the_paper() -> None:
    assert paper_module("index-policy") is ip
    ids = [c.id for c in ip.CLAIMS]
    assert ids == [f"T{i}" for i in range(1, 9)] + SIM + ["S-g"]
    checks = {c.id for c in ip.CLAIMS if c.model_check}
    assert checks == {"T2", "T3", "S-g"}
    for c in ip.CLAIMS:
        assert c.paper and c.where and "note" not in (c.where + c.paper).lower()
    derived = {c.id for c in ip.CLAIMS if "derived" in c.paper}
    assert {"T2", "T3", "T4", "S-g"} <= derived                # numbers the paper does not print
    t8 = next(c for c in ip.CLAIMS if c.id == "T8")
    assert "suggests" in t8.paper and "appears to be" not in t8.paper
    text = " ".join(ip.CHOICES)
    assert "New Reno in the NS-3 simulator" in text and "note" not in text.lower()


def test_design_grows_as_a_superset_and_quick_equals_full() -> None:
    two, three = ip.experiments(True, 2), ip.experiments(True, 3)
    assert set(two) == set(three)
    for name in two:
        small = {(json.dumps(t.scenario, sort_keys=True), t.seed, json.dumps(t.labels, sort_keys=True))
                 for t in two[name]}
        big = {(json.dumps(t.scenario, sort_keys=True), t.seed, json.dumps(t.labels, sort_keys=True))
               for t in three[name]}
        assert small < big, name
        assert {t.seed for t in three[name]} == set(range(1, 3 * ip.REPLICATES + 1))
    full = ip.experiments(False, 2)
    assert {n: [(t.scenario, t.seed) for t in ts] for n, ts in full.items()} == \
        {n: [(t.scenario, t.seed) for t in ts] for n, ts in two.items()}
    for reading in ("table1", "nohold", "previous"):
        assert {f"{reading}-s{s}" for s in range(5)} <= set(two)
    assert {t.labels["what"] for t in two["gamma1"]} == {"γ₁ = 0.75", "γ₁ = 0.99"}


def test_the_principal_reading_is_ns3_of_2012() -> None:
    ex = ip.experiments(False, 1)
    for s in range(5):
        for t in ex[f"table1-s{s}"]:
            sc, pol = t.scenario, t.labels["policy"]
            q, tcp = sc["bottleneck"]["queue"], sc["tcp"]
            assert q["discipline"] == pol and q["limit"] == (6 if s == 1 else 13)
            assert sc["bottleneck"]["rate"] == "1500kbps" and tcp["packet_size"] == "576B"
            assert tcp["sack"] is False and tcp["delayed_ack"] is True and tcp["min_rto"] == "200ms"
            assert tcp["limited_transmit"] is False and tcp["initial_window"] == 1
            assert tcp["overhead"] == ip.HOLD and "recovery" not in tcp      # NewReno, as the paper says
            if pol == "red":
                assert {k: q[k] for k in ("min_th", "max_th", "max_p", "weight", "gentle")} == \
                    {"min_th": 5, "max_th": 15, "max_p": 0.02, "weight": 0.002, "gentle": True}
            u1, u2 = (f["tcp"]["congestion_control"] for f in sc["flows"])
            assert u1["kind"] == u2["kind"] == "whittle" and u1["alpha"] == 1.0 and u2["gamma"] == 0.5
            assert u1["gamma"] == {0: 0.5, 1: 0.5, 2: 0.0, 3: ip.GAMMA_AGGRESSIVE, 4: 0.5}[s]
            assert t.labels["rtt1"] == (ip.RTT_S4 if s == 4 else ip.BASE_RTT)
            assert sc["duration"] == "300s"
    assert all("overhead" not in t.scenario["tcp"] for t in ex["nohold-s0"])
    assert all(t.scenario["tcp"]["delayed_ack"] is False for t in ex["nodack-s1"])
    prev = ex["previous-s4"]
    assert all(t.labels["rtt1"] == 0.06 and t.scenario["tcp"]["min_rto"] == "1s" for t in prev)
    red = next(t for t in ex["previous-s0"] if t.labels["policy"] == "red").scenario["bottleneck"]["queue"]
    assert (red["min_th"], red["max_th"], red["gentle"]) == (4, 12, False)
    assert ip.BDP == round(ip.BASE_RTT / ip.T_PKT) and ip.T_PKT == pytest.approx(3.072e-3)


# ------------------------------------------------------------------------------------------- synthetic runs

CORR = {"droptail": 0.5, "red": 0.1, "index": -0.4}
CWND = {"droptail": (20.0, 8.0), "red": (17.0, 9.0), "index": (13.0, 11.0)}


def _rec(scen: int, pol: str, seed: int, util: float, jain: float, queue: float, corr: float,
         cwnd: tuple, reductions: tuple, rtt1: float, **labels: Any) -> Dict[str, Any]:
    return {"labels": {"scen": scen, "policy": pol, "rtt1": rtt1, **labels}, "seed": seed,
            "summary": {"utilization": util, "jain_index": jain, "queue_mean_pkts": queue,
                        "delay_mean_s": queue * 3.065e-3, "duration_s": 300.0},
            "extra": {"cwnd_corr": corr, "goodput": [0.4, 0.6], "cwnd_mean": list(cwnd),
                      "reductions": list(reductions), "timeouts": [0, 0]}}


def world(kind: str, seeds: int = 4) -> Dict[str, List[Dict[str, Any]]]:
    """Every experiment's runs shaped like the paper's Table 1 (``paper``), with DropTail ahead everywhere
    (``bad``), or paper-like with noise far larger than the effects over two seeds (``noisy``)."""
    rng = random.Random(7)
    out: Dict[str, List[Dict[str, Any]]] = {n: [] for n in ip.experiments(True, 1)}

    def cell(s: int, pol: str, k: int, seed: int) -> Dict[str, Any]:
        u, j, q, _ = ip.PAPER_TABLE[s, pol]
        corr, cwnd, red = CORR[pol], CWND[pol], (100, 200) if pol == "index" else (200, 200)
        if kind == "bad":
            u, j, q = ({"droptail": 99.0, "red": 95.0, "index": 90.0}[pol],
                       {"droptail": 0.99, "red": 0.95, "index": 0.90}[pol],
                       {"droptail": 7.0, "red": 6.0, "index": 3.0}[pol])
            corr, cwnd, red = (-0.5 if pol == "droptail" else 0.5), (20.0, 8.0), (200, 100)
        eps = 1e-4 * seed * (1 + k)
        if kind == "noisy":
            eps = rng.uniform(-0.3, 0.3)
            corr += rng.uniform(-1, 1)
            red = (150 + rng.randint(-100, 100), 150)
        return _rec(s, pol, seed, u / 100 + eps, j + eps, q + 10 * eps, corr + eps, cwnd, red,
                    ip.RTT_S4 if s == 4 else ip.BASE_RTT)

    for name in out:
        if name.split("-")[0] in ("table1", "nohold", "previous", "nodack"):
            s = int(name.rsplit("s", 1)[1])
            out[name] = [cell(s, p, k, seed) for k, p in enumerate(ip.POLICIES)
                         for seed in range(1, seeds + 1)]
    for what in ("RED max_p 0.1", "RED 2/6, max_p 0.1"):
        for seed in range(1, seeds + 1):
            r = cell(2, "red", 1, seed)
            r["labels"]["what"] = what
            out["red_s2"].append(r)
    for what in ("γ₁ = 0.75", "γ₁ = 0.99"):
        for k, p in enumerate(ip.POLICIES):
            for seed in range(1, seeds + 1):
                r = cell(3, p, k, seed)
                r["labels"]["what"] = what
                out["gamma1"].append(r)
    out["rtt60"] = [cell(4, p, k, seed) for k, p in enumerate(ip.POLICIES) for seed in range(1, seeds + 1)]
    return out


def _verdicts(results: Dict[str, List[Dict[str, Any]]], ids: List[str]) -> Dict[str, Any]:
    claims = {c.id: c for c in ip.CLAIMS}
    return {cid: evaluate_claim(ip.CLAIMS, claims[cid], results, True, ip.PRINCIPAL) for cid in ids}


def test_simulation_claims_hold_on_paper_like_runs() -> None:
    ev = _verdicts(world("paper"), SIM + ["S-g"])
    for cid, e in ev.items():
        assert e.verdict == HOLDS, (cid, [str(t) for t in e.outcome.tests])
    assert {a.name for a in ev["S-c"].outcome.alternatives} >= {"RED max_p 0.1 (ns-2's)"}
    assert any(a.name == "γ₁ = 0.99" for a in ev["S-f"].outcome.alternatives)


def test_simulation_claims_differ_with_a_reason_when_droptail_is_ahead() -> None:
    ev = _verdicts(world("bad"), SIM)
    for cid, e in ev.items():
        assert e.verdict == DIFFERS and e.outcome.why, (cid, [str(t) for t in e.outcome.tests])
    assert "Experiment" in ev["S-c"].outcome.why            # the RED step's cause names its experiment


def test_simulation_claims_are_undecided_on_two_noisy_seeds() -> None:
    ev = _verdicts(world("noisy", seeds=2), ["S-a", "S-b", "S-d"])
    for cid, e in ev.items():
        assert e.verdict == INCONCLUSIVE and "Undecided" in e.outcome.why, (cid, [str(t) for t in
                                                                                e.outcome.tests])


def test_a_claim_that_holds_only_under_another_reading_is_counted_so() -> None:
    res = world("paper")
    bad = world("bad")
    for s in range(5):
        res[f"table1-s{s}"] = bad[f"table1-s{s}"]
    e = _verdicts(res, ["S-a"])["S-a"]
    assert e.verdict == HOLDS_UNDER and e.reading == ip.READINGS["nohold"]


# ------------------------------------------------------------------------------------------- theory


def test_tooth_width_and_the_gamma_order_on_the_whole_table() -> None:
    assert ip.tooth_width(np.array([5.0, 4, 3, 2, 1])) == 1
    assert ip.tooth_width(np.array([9.0, 8, 8.5, 7, 7.5, 6, 6.5, 5, 5.5])) == 2
    p = ip.fig3_gamma_panel(30, 0.99)
    assert p["width"] == {0.0: 1, 1 / 6: 6, 1 / 3: 1, 0.5: 2, 2 / 3: 3, 5 / 6: 6}
    assert p["smooth"] == [0.0, 1 / 3] and p["rise_bad"] == 0 and p["fall_at"] == [25]
    first, count, upper = ip.birth_death_violation(30, 0.99)
    assert upper and first == 13 and count > 0


@pytest.mark.slow
def test_theory_claims() -> None:
    ctx_results: Dict[str, List[Dict[str, Any]]] = {}
    ev = {c.id: evaluate_claim(ip.CLAIMS, c, ctx_results, True, ip.PRINCIPAL) for c in ip.CLAIMS
          if c.id.startswith("T")}
    for cid in ("T1", "T2", "T3", "T4", "T5", "T6"):
        assert ev[cid].verdict == HOLDS, (cid, [str(t) for t in ev[cid].outcome.tests])
        assert all(t.est.low == t.est.high for t in ev[cid].outcome.tests)     # exact computations
    assert ev["T7"].verdict == DIFFERS and "N = 60" in ev["T7"].outcome.why
    assert ev["T8"].verdict == DIFFERS and "N = 200" in ev["T8"].outcome.why
    # T5 at the other basic γ: ⅙ and ⅓ break the down-set, so the reading flips
    alts = {a.name: a for a in ev["T5"].outcome.alternatives}
    assert alts["basic instance γ = ⅓"].tests[0].result == DIFFERS
    assert not Context({}, True).read


# ------------------------------------------------------------------------------------------- end to end


def test_run_stats_on_a_short_run(tmp_path: Path) -> None:
    sc = ip.scenario(2, "index")
    sc["duration"], sc["warmup"] = "15s", "5s"
    recs = runner.run_tasks([runner.Task(sc, 1, {"scen": 2, "policy": "index"}, f"{ip.__name__}:run_stats")],
                            tmp_path)
    x = recs[0]["extra"]
    assert len(x["goodput"]) == 2 and all(g > 0 for g in x["goodput"])
    assert -1 <= x["cwnd_corr"] <= 1 and len(x["trace_w1"]) == len(x["trace_t"]) > 0
    assert len(x["reductions"]) == len(x["timeouts"]) == len(x["cwnd_mean"]) == 2
    assert recs[0]["summary"]["utilization"] > 0.5


@pytest.mark.slow
def test_a_shortened_quick_reproduction_writes_a_table_the_recheck_accepts(tmp_path: Path,
                                                                           monkeypatch) -> None:
    real = ip.experiments

    def short(quick: bool, seeds: int) -> Dict[str, List[runner.Task]]:
        out = {}
        for name, tasks in real(quick, seeds).items():
            keep = [t for t in tasks if t.seed <= 2 * seeds]
            out[name] = [runner.Task({**t.scenario, "duration": "12s", "warmup": "4s"}, t.seed, t.labels,
                                     t.extract) for t in keep]
        return out

    monkeypatch.setattr(ip, "experiments", short)
    doc = reproduce("index-policy", tmp_path, quick=True, seeds=1, max_seeds=1)
    table = json.loads((tmp_path / "claims.json").read_text())
    assert recheck(table) == []
    assert [c["id"] for c in table["claims"]] == [f"T{i}" for i in (1, 4, 5, 6, 7, 8)] + SIM
    assert [c["id"] for c in table["model_checks"]] == ["T2", "T3", "S-g"]
    assert doc["principal_reading"] == ip.PRINCIPAL
    report = (tmp_path / "report.md").read_text()
    assert "## Model checks" in report and "Table 1, no sender hold" in report
    assert (tmp_path / "fig4.png").exists() and (tmp_path / "fig_table1.svg").exists()
