"""`bufferlab reproduce dctcp` (Alizadeh et al., SIGCOMM 2010): the design against the paper's parameters, a
larger seed count giving a superset of the runs, each claim on synthetic records (a world like the paper's
holds, a changed one differs, one seed decides nothing), the model checks, and a quick reproduction on
synthetic runs whose claims.json the recheck accepts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

import pytest

import bufferlab
import bufferlab.reproduce as rp
from bufferlab.reproduce import dctcp as dc
from bufferlab.reproduce import paper_module
from bufferlab.reproduce.claims import DIFFERS, HOLDS, INCONCLUSIVE, NOT_TESTABLE, evaluate_claim
from bufferlab.reproduce.runner import Task
from bufferlab.reproduce.verdicts import recheck

EXPERIMENTS = {"fig12", "guideline", "fig13", "fig14", "fig15", "fig18", "fig19"}
CLAIM_IDS = [f"D{i}" for i in range(1, 15)]


def test_registry_and_readings() -> None:
    assert [c.id for c in dc.CLAIMS] == CLAIM_IDS + ["M1", "M2"]
    assert {c.id for c in dc.CLAIMS if c.model_check} == {"M1", "M2"}
    for c in dc.CLAIMS:
        assert "\"" in c.paper and ("Sec." in c.where or "Fig." in c.where), c.id
    assert paper_module("dctcp") is dc


@pytest.mark.parametrize("quick", [True, False])
def test_more_seeds_give_a_superset_of_the_runs(quick: bool) -> None:
    small, big = dc.experiments(quick, 2), dc.experiments(quick, 3)
    assert set(small) == set(big) == EXPERIMENTS | {f"alt_{e}" for e in EXPERIMENTS}
    for name, tasks in small.items():
        assert {t.key("v") for t in tasks} <= {t.key("v") for t in big[name]}, name
    # The runs are short: quick mode runs the full design with fewer seeds.
    assert {n: [t.key("v") for t in ts] for n, ts in dc.experiments(True, 2).items()} == \
        {n: [t.key("v") for t in ts] for n, ts in dc.experiments(False, 2).items()}


def test_the_design_follows_the_paper_where_it_speaks() -> None:
    ex = dc.experiments(False, 1)
    # Fig. 12: N = 2, 10, 40 at 10 Gb/s, RTT 100 us, K = 40, g = 1/16 (the controller's default), no delayed
    # ACKs (ns-2), and the alternative reading flips only the ACK policy.
    for t in ex["fig12"]:
        sc = t.scenario
        assert sc["bottleneck"]["rate"] == "1e+10bps" and sc["flows"]["rtt"] == "100us"
        assert sc["bottleneck"]["queue"] == {"discipline": "step", "threshold": 40, "limit": 1000}
        assert sc["tcp"]["congestion_control"] == "dctcp" and sc["tcp"]["ecn"] is True
        assert sc["tcp"]["delayed_ack"] is False
    assert sorted(t.labels["n"] for t in ex["fig12"]) == [2, 10, 40]
    assert all(t.scenario["tcp"]["delayed_ack"] for t in ex["alt_fig12"])
    # Eq. 13's bound at 10 Gb/s and 100 us in 1500-byte packets: ceil(83.3 / 7) = 12.
    assert {t.labels["k"] for t in ex["guideline"]} == {12}
    # Fig. 13/14: two flows, TCP through 700 KB of DropTail, DCTCP at K = 20 (1 Gb/s) and 65 (10 Gb/s).
    tcp = next(t for t in ex["fig13"] if t.labels["k"] == "tcp").scenario
    assert tcp["bottleneck"]["queue"] == {"discipline": "droptail", "limit": 466}
    assert tcp["tcp"]["congestion_control"] == "newreno" and tcp["flows"]["count"] == 2
    assert {t.labels["k"] for t in ex["fig14"]} >= {65, "tcp"}
    # Fig. 18: 1 MB per query over n servers, 100 packets static, minimum RTO 10 ms.
    for t in ex["fig18"]:
        sc = t.scenario
        size = int(sc["flows"]["size"].removesuffix("B"))
        assert size * t.labels["n"] == pytest.approx(1e6, abs=t.labels["n"])
        assert sc["bottleneck"]["queue"]["limit"] == 100 and sc["tcp"]["min_rto"] == "10ms"
    # Fig. 19: one 4 MB pool under Dynamic Threshold whose alpha lets one port hold 700 KB.
    pool = ex["fig19"][0].scenario["shared_buffers"][0]
    assert pool["admission"] == "dynamic" and pool["size"] == "4000000B"
    assert pool["alpha"] * 4e6 / (1 + pool["alpha"]) == pytest.approx(700e3)
    for name, tasks in ex.items():  # the engine accepts every experiment's scenarios (run for 20 ms)
        short = {**tasks[0].scenario, "duration": "20ms", "warmup": "0s", "seed": 1}
        res = bufferlab.run(short, progress=False)
        assert res.summary["duration_s"] == pytest.approx(0.02), name


# ------------------------------------------------------------------------------------------- synthetic runs


def paper_world(labels: Dict[str, Any], seed: int, exp: str) -> Dict[str, Any]:
    """What each claim reads, in a world like the paper's, with a little noise per seed."""
    eps = 0.001 * ((seed * 7919) % 5 - 2)
    base = exp.removeprefix("alt_")
    extra: Dict[str, Any] = {}
    u = 1.0 - abs(eps)
    if base == "fig12":
        s = dc.steady(labels["n"])
        swing = s.queue_amplitude * (1.0 if labels["n"] < 40 else 0.7)
        extra = {"q_max": s.q_max + eps, "q_p01": s.q_max - swing + eps, "q_p99": s.q_max + eps,
                 "q_mean": s.q_max - swing / 2, "q_std": 1.0}
    elif base == "fig15":
        gbps = 7.8 if labels["min_th"] == 50 else 9.2
        extra = {"q_max": 30.0, "q_p01": 10.0, "q_p99": 30.0, "q_mean": 40.0, "q_std": 1.0}
        return {"summary": {"utilization": u, "goodput_bps": (gbps + eps) * 1e9}, "extra": extra}
    elif base in ("fig13", "fig14", "guideline"):
        tcp = labels.get("k") == "tcp"
        extra = {"q_max": 30.0, "q_p01": 10.0, "q_p99": 30.0, "q_mean": (200.0 if tcp else 21.0) * (1 + eps),
                 "q_std": 1.0}
    elif base in ("fig18", "fig19"):
        n, cc = labels["n"], labels["cc"]
        onset = (10 if cc == "tcp" else 35) if base == "fig18" else (10 if cc == "tcp" else 100)
        extra = {"timeouts_per_query": (0.5 if n > onset else 0.0) + abs(eps),
                 "lost_retransmission_per_query": 0.0, "few_dupacks_per_query": 0.0,
                 "rct_p50_s": 0.0083 + eps / 100, "rct_mean_s": 0.009, "rounds": 100}
    return {"summary": {"utilization": u}, "extra": extra}


def results_of(world: Callable[..., Dict[str, Any]], seeds: int = 3) -> Dict[str, List[Dict[str, Any]]]:
    return {exp: [{"labels": t.labels, "seed": t.seed, **world(t.labels, t.seed, exp)} for t in tasks]
            for exp, tasks in dc.experiments(False, seeds).items()}


def verdict(cid: str, results: Dict[str, List[Dict[str, Any]]]) -> str:
    claim = next(c for c in dc.CLAIMS if c.id == cid)
    return evaluate_claim(dc.CLAIMS, claim, results, False, dc.PRINCIPAL).principal_verdict


def test_every_claim_holds_in_the_papers_world() -> None:
    res = results_of(paper_world)
    for cid in CLAIM_IDS + ["M1", "M2"]:
        assert verdict(cid, res) == (NOT_TESTABLE if cid == "D14" else HOLDS), cid


def changed(match: Callable[[str, Dict[str, Any]], bool], edit: Callable[[Dict[str, Any]], None]):
    def world(labels: Dict[str, Any], seed: int, exp: str) -> Dict[str, Any]:
        rec = paper_world(labels, seed, exp)
        if match(exp, labels):
            edit(rec)
        return rec
    return world


def _set(section: str, key: str, value: float) -> Callable[[Dict[str, Any]], None]:
    def edit(rec: Dict[str, Any]) -> None:
        rec[section][key] = value
    return edit


def test_claims_differ_when_the_world_moves_away_from_the_paper() -> None:
    cases = {
        "D1": changed(lambda e, lb: e == "fig12" and lb["n"] == 2, _set("extra", "q_max", 60.0)),
        "D2": changed(lambda e, lb: e == "fig12" and lb["n"] == 40, _set("extra", "q_p01", 0.0)),
        "D3": changed(lambda e, lb: e == "guideline" and lb["n"] == 12, _set("summary", "utilization", 0.9)),
        "D4": changed(lambda e, lb: e == "fig13" and lb["k"] == "tcp", _set("summary", "utilization", 0.8)),
        "D5": changed(lambda e, lb: e == "fig13" and lb["k"] == "tcp", _set("extra", "q_mean", 420.0)),
        "D6": changed(lambda e, lb: e == "fig13" and lb["k"] == 5, _set("summary", "utilization", 0.8)),
        "D7": changed(lambda e, lb: e == "fig14" and lb["k"] == 100, _set("summary", "utilization", 0.8)),
        "D8": changed(lambda e, lb: e == "fig14" and lb["k"] == 20, _set("summary", "utilization", 0.9)),
        "D9": changed(lambda e, lb: e == "fig18" and lb["cc"] == "tcp" and lb["n"] == 8,
                      _set("extra", "timeouts_per_query", 1.0)),
        "D10": changed(lambda e, lb: e == "fig18" and lb["cc"] == "dctcp" and lb["n"] == 16,
                       _set("extra", "timeouts_per_query", 1.0)),
        "D11": changed(lambda e, lb: e == "fig18" and lb["cc"] == "dctcp" and lb["n"] == 4,
                       _set("extra", "rct_p50_s", 0.02)),
        "D13": changed(lambda e, lb: e == "fig15" and lb["min_th"] == 50,
                       _set("summary", "goodput_bps", 9.7e9)),
        "D12": changed(lambda e, lb: e == "fig19" and lb["cc"] == "dctcp" and lb["n"] == 40,
                       _set("extra", "timeouts_per_query", 1.0)),
    }
    for cid, world in cases.items():
        assert verdict(cid, results_of(world)) == DIFFERS, cid


def test_one_seed_decides_no_sampled_claim() -> None:
    res = results_of(paper_world, seeds=1)
    for cid in ("D1", "D3", "D5", "D9"):
        assert verdict(cid, res) == INCONCLUSIVE, cid


def test_model_checks_against_the_papers_arithmetic() -> None:
    # Eq. 13 at 10 Gb/s and 100 us: C·RTT = 83.3 packets, K > 11.9; eq. 15 at K = 65: g < 0.0805.
    assert dc.analysis.k_lower_bound(10e9 * 100e-6 / 12000) == pytest.approx(83.333 / 7, rel=1e-4)
    assert dc.analysis.g_upper_bound(83.333, 65) == pytest.approx(1.386 / (2 * 148.333) ** 0.5, rel=1e-4)
    assert dc.steady(2).q_max == 42 and dc.steady(40).q_max == 80


def test_quick_reproduce_on_synthetic_runs_writes_a_table_the_recheck_accepts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    names = {t.key("test"): exp for exp, tasks in dc.experiments(True, 4).items() for t in tasks}

    def fake_runs(tasks: List[Task], cache: Path, *, workers: int = 1, progress: Optional[Any] = None,
                  known: Optional[Any] = None):
        return [{"labels": t.labels, "seed": t.seed, "wall_s": 0.0,
                 **paper_world(t.labels, t.seed, names[t.key("test")])} for t in tasks]

    monkeypatch.setattr(rp, "run_tasks", fake_runs)
    monkeypatch.setattr(rp, "engine_version", lambda: "test")
    doc = rp.reproduce("dctcp", tmp_path, quick=True)
    saved = json.loads((tmp_path / "claims.json").read_text())
    assert recheck(saved) == [] and doc["tally"] == saved["tally"]
    assert [c["id"] for c in saved["claims"]] == CLAIM_IDS
    report = (tmp_path / "report.md").read_text()
    assert "## The paper's tables" in report and "the other ACK policy" in report
    for stem in ("fig12", "fig13_14", "fig18"):
        assert (tmp_path / f"{stem}.png").exists(), stem


def test_the_engine_meets_eq_10_in_fig_12s_setting() -> None:
    """One real run of Fig. 12's N = 2: the largest queue is Q_max = K + N to a packet."""
    t = next(t for t in dc.experiments(False, 1)["fig12"] if t.labels["n"] == 2)
    res = bufferlab.run({**t.scenario, "seed": 1}, progress=False)
    q = dc.queue_stats(res)
    assert abs(q["q_max"] - dc.steady(2).q_max) <= 1 and res.summary["utilization"] > 0.99
