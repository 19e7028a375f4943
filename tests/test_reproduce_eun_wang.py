"""The Eun & Wang reproduction: its design against the paper's stated parameters (Table I, Sec. V), the
verdicts evaluate() gives on synthetic records (holds and differs), and the extracts on tiny runs."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Dict, List

import numpy as np
import pytest

from bufferlab.reproduce import eun_wang as ew
from bufferlab.reproduce import paper_module, runner
from bufferlab.reproduce.claims import DIFFERS, HOLDS, NOT_TESTABLE

ROOT = Path(__file__).resolve().parents[1]
NOTE = ROOT.parent / "shared" / "papers" / "eun_wang_2008_aggressive_marking.md"


def test_every_claim_of_the_note_is_in_the_design() -> None:
    ids = [c.id for c in ew.CLAIMS]
    assert ids == [str(i) for i in range(1, 17)]
    if NOTE.exists():
        section = NOTE.read_text().split("## 6. Testable claims")[1].split("## 7.")[0]
        assert all(f"\n{i}. **" in section for i in ids)
    assert paper_module("eun-wang") is ew


def test_experiments_follow_the_paper_where_it_speaks() -> None:
    full = ew.experiments(quick=False, seeds=1)
    assert {"fig4", "fig5", "fig8", "sensitivity"} <= set(full)
    assert max(t.labels["n"] for t in full["fig4"]) == 1300                  # N up to 1300
    for t in full["fig4"] + full["fig5"]:
        sc, n = t.scenario, t.labels["n"]
        assert sc["bottleneck"]["rate"] == f"{n * 100e3:.10g}bps"            # N x 100 kb/s
        assert sc["flows"]["count"] == n
        assert sc["flows"]["rtt"] == {"uniform": ["120ms", "280ms"]}
        assert sc["tcp"]["packet_size"] == "500B" and sc["tcp"]["ecn"] is True
        q = sc["bottleneck"]["queue"]
        assert q["discipline"] == "eun-wang" and q["weight"] == 1 and q["epsilon"] == 0.1
        assert q["buffer_constant"] == 12 and q["limit"] == "auto"
        assert q["alpha"] == t.labels["alpha"]
    assert {(t.labels["profile"], t.labels["alpha"]) for t in full["fig4"]} == \
        {("red1", 0.2), ("exp", 0.2), ("red2", 0.2)}
    assert {(t.labels["profile"], t.labels["alpha"]) for t in full["fig5"]} == {("red1", 0.3), ("red2", 0.3)}
    assert all(t.scenario["monitor"] == {"sample_interval": "20ms", "cwnd": True} for t in full["fig4"])
    for t in full["fig8"]:
        sc, n = t.scenario, t.labels["n"]
        assert sc["parking_lot"]["rate"] == [f"{n * 100e3:.10g}bps", f"{2 * n * 100e3:.10g}bps"]
        assert sc["parking_lot"]["queue"][0]["discipline"] == "droptail"
        assert sc["parking_lot"]["queue"][1]["discipline"] == "eun-wang"
        g1, g2 = sc["flows"]
        assert g1["count"] == g2["count"] == n and g2["route"] == ["hop2"]
        assert g1["rtt"] == {"uniform": ["110ms", "190ms"]} and g2["rtt"] == {"uniform": ["60ms", "140ms"]}
    quick = ew.experiments(quick=True, seeds=1)
    assert {t.scenario["duration"] for t in quick["fig4"]} == {"50s"}
    assert ew.HIST_N in {t.labels["n"] for t in quick["fig4"]}            # Fig. 6(b)'s N = 200


def _records(util_slope: float = 0.02, h_equal_n: bool = False) -> Dict[str, List[Dict[str, Any]]]:
    """Synthetic records following the paper's trends (util_slope < 0 reverses claim 1)."""
    base = {"red1": (0.90, 0.030), "exp": (0.90, 0.030), "red2": (0.95, 0.060)}
    out: Dict[str, List[Dict[str, Any]]] = {"fig4": [], "fig5": [], "fig8": [], "sensitivity": []}
    for seed in (1, 2):
        for n in ew.FLOWS:
            dec = math.log10(n / 100)
            for p, (u0, l0) in base.items():
                for exp_name, alpha in (("fig4", 0.2), ("fig5", 0.3)):
                    if exp_name == "fig5" and p == "exp":
                        continue
                    bonus = 0.02 if alpha == 0.3 else 0.0
                    summ = {"utilization": u0 + bonus + util_slope * dec + 0.001 * seed,
                            "loss_rate": l0 - bonus / 2 - 0.002 * dec,
                            "delay_mean_s": 4e-3 * (n / 100) ** -0.8, "delay_std_s": 4e-3 * (n / 100) ** -0.8}
                    extra = {"h": float(n) if h_equal_n else 1.0, "agg_mean": 4.7 * n,
                             "agg_std": 2.4 * math.sqrt(n) * (1 + 0.01 * seed), "agg_ks": 0.02,
                             "agg_skew": 0.0, "agg_kurt": 0.0}
                    out[exp_name].append({"labels": {"profile": p, "alpha": alpha, "n": n}, "seed": seed,
                                          "summary": summ, "extra": extra})
                m = {"utilization": 0.96 + 0.01 * dec, "loss_rate": 0.04 - 0.005 * dec,
                     "delay_mean_s": 3e-3 * (n / 100) ** -0.8, "delay_std_s": 3e-3 * (n / 100) ** -0.8}
                out["fig8"].append({"labels": {"profile": p, "n": n}, "seed": seed, "summary": {},
                                    "extra": m})
    return out


@pytest.fixture()
def fake_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """The chain's points replaced by values following Theorems 1-2 (the real chain is tested elsewhere)."""
    def point(n: int) -> Dict[str, List[float]]:
        return {"utilization": [1 - 0.6 * n ** -0.2], "mark_prob": [0.01], "p_overload": [0.0],
                "std_ratio": [3.5], "h": [1.0], "mean_queue": [3 * n ** 0.2], "queue_q99": [10 * n ** 0.2],
                "overflow": [1e-3 * math.exp(-(n ** 0.1) * 6)], "overflow_small_buffer": [2e-3],
                "buffer": [12 * n ** 0.3], "small_buffer": [12 * n ** 0.2]}

    pts = {ct: {n: point(n) for n in ew.MODEL_FLOWS} for ct in (ew.MODEL_CT, ew.CT)}
    monkeypatch.setattr(ew, "model_points", lambda quick, seeds: {"beside": {}, "theory": pts,
                                                                   "flows": ew.MODEL_FLOWS})


def test_evaluate_holds_on_the_papers_trends(fake_model: None) -> None:
    verdicts = {v.claim.id: v for v in ew.evaluate(_records(), quick=False)}
    assert set(verdicts) == {c.id for c in ew.CLAIMS}
    for cid in [str(i) for i in range(1, 16)]:
        assert verdicts[cid].verdict == HOLDS, (cid, verdicts[cid].ours)
    assert verdicts["16"].verdict == NOT_TESTABLE and verdicts["16"].why


def test_evaluate_differs_when_the_trends_reverse(fake_model: None) -> None:
    verdicts = {v.claim.id: v for v in ew.evaluate(_records(util_slope=-0.02, h_equal_n=True), quick=False)}
    assert verdicts["1"].verdict == DIFFERS and verdicts["1"].why
    assert verdicts["7"].verdict == DIFFERS
    assert verdicts["3"].verdict == HOLDS


def test_extracts_on_tiny_runs() -> None:
    sc = ew.dumbbell(20, "red1", 0.2, quick=True, cwnd=True)
    sc["duration"], sc["warmup"] = "12s", "4s"
    rec = runner.run_one(runner.Task(sc, 1, {}, extract="bufferlab.reproduce.eun_wang:window_stats"))
    x = rec["extra"]
    assert x["h"] > 0 and x["agg_std"] > 0 and sum(x["hist_counts"]) > 0
    assert 0 < rec["summary"]["utilization"] <= 1
    mh = ew.multihop(10, "red1", quick=True)
    mh["duration"], mh["warmup"] = "8s", "2s"
    rec = runner.run_one(runner.Task(mh, 1, {}, extract="bufferlab.reproduce.eun_wang:hop2"))
    assert 0 < rec["extra"]["utilization"] <= 1 and np.isfinite(rec["extra"]["delay_std_s"])
