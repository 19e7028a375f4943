"""The Eun & Wang reproduction: its design against the paper's stated parameters (Table I, Sec. V), each
claim's tests on synthetic records (a clear hold, a clear differ, an undecided case), and a reproduction on
tiny runs whose claims.json the verdict rules accept."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Dict, List

import numpy as np
import pytest

from bufferlab.reproduce import eun_wang as ew
from bufferlab.reproduce import paper_module, reproduce, runner
from bufferlab.reproduce.claims import DIFFERS, HOLDS, INCONCLUSIVE, Context
from bufferlab.reproduce.verdicts import claim_result, recheck

SEEDS = (1, 2, 3)


def test_the_module_is_registered_and_declares_its_readings() -> None:
    assert paper_module("eun-wang") is ew
    ids = [c.id for c in ew.CLAIMS]
    assert ids == [str(i) for i in range(1, 16)] + ["15-eq27", "16"]
    assert [c.id for c in ew.CLAIMS if c.model_check] == ["15-eq27"]
    for c in ew.CLAIMS:
        assert c.paper and c.where and "note" not in (c.paper + c.where).lower()
    assert "gentle_ on" in ew.PRINCIPAL and "Reno" in ew.PRINCIPAL and "mark_p_ 0.1" in ew.PRINCIPAL
    assert all("\"" in choice for choice in ew.CHOICES)  # each choice quotes the paper


def test_experiments_follow_the_paper_where_it_speaks() -> None:
    full = ew.experiments(quick=False, seeds=1)
    grid = {t.labels["n"] for t in full["fig4"] + full["fig4_grid"]}
    assert grid == set(ew.GRID) and max(grid) == 1300                        # N up to 1300
    for t in (full["fig4"] + full["fig4_grid"] + full["fig5"] + full["gentle_off"] + full["sack"]
              + full["always_mark"]):
        sc, n = t.scenario, t.labels["n"]
        assert sc["bottleneck"]["rate"] == f"{n * 100e3:.10g}bps"            # N x 100 kb/s
        assert sc["flows"]["count"] == n
        assert sc["flows"]["rtt"] == {"uniform": ["120ms", "280ms"]}
        assert sc["tcp"]["packet_size"] == "500B" and sc["tcp"]["ecn"] is True
        q = sc["bottleneck"]["queue"]
        assert q["discipline"] == "eun-wang" and q["weight"] == 1 and q["epsilon"] == 0.1
        assert q["buffer_constant"] == 12 and q["limit"] == "auto" and q["mode"] == "ns2-red"
        assert q["alpha"] == t.labels["alpha"]
        reading = t.labels["reading"]
        assert q["gentle"] is (reading != ew.GENTLE_OFF)                    # ns-2's default: gentle on
        assert q.get("mark_p") == (None if reading == ew.ALWAYS else 0.1)  # ns-2 >= 2.30: use_mark_p_
        if reading == ew.SACK:
            assert sc["tcp"]["sack"] is True and sc["tcp"]["recovery"] == "newreno"
        else:                                                                # Agent/TCP/Reno
            assert sc["tcp"]["sack"] is False and sc["tcp"]["recovery"] == "reno"
            assert sc["tcp"]["max_window"] == 20 and sc["tcp"]["initial_window"] == 1
    assert {t.labels["reading"] for t in full["fig4"] + full["fig5"]} == {"principal"}
    assert {t.labels["reading"] for t in full["always_mark"] + full["fig8_mark"]} == {ew.ALWAYS}
    assert all("mark_p" not in t.scenario["bottleneck"]["queue"]                # the model: no cut-off
               for t in full["modes"] if t.labels["reading"] == "marking")
    assert {(t.labels["profile"], t.labels["alpha"]) for t in full["fig4"]} == \
        {("red1", 0.2), ("exp", 0.2), ("red2", 0.2)}
    assert {(t.labels["profile"], t.labels["alpha"]) for t in full["fig5"]} == {("red1", 0.3), ("red2", 0.3)}
    assert {t.labels["n"] for t in full["fig4"]} == set(ew.CMP)
    assert all(t.scenario["monitor"] == {"sample_interval": "20ms", "cwnd": True} for t in full["fig4"])
    for t in full["fig8"] + full["fig8_off"] + full["fig8_setups"]:
        sc, n = t.scenario, t.labels["n"]
        assert sc["parking_lot"]["rate"][:2] == [f"{n * 100e3:.10g}bps", f"{2 * n * 100e3:.10g}bps"]
        assert sc["parking_lot"]["queue"][0]["discipline"] == "droptail"
        assert sc["parking_lot"]["queue"][1]["discipline"] == "eun-wang"
        g1, g2 = sc["flows"]
        assert g1["count"] == g2["count"] == n and g2["route"][0] == "hop2"
        assert g1["rtt"] == {"uniform": ["110ms", "190ms"]} and g2["rtt"] == {"uniform": ["60ms", "140ms"]}
    assert {t.labels["reading"] for t in full["fig8_setups"]} == set(ew.MH_VARIANTS)
    thr = [t for t in full["modes"] if t.labels["reading"] == "threshold"]
    assert thr and all(t.scenario["bottleneck"]["queue"]["discipline"] == "droptail" for t in thr)
    assert {t.scenario["flows"]["rtt"]["uniform"][1] for t in full["pipe"]} == {"560ms"}
    quick = ew.experiments(quick=True, seeds=1)
    # quick mode: the same runs at the comparison points (same duration), fewer N elsewhere
    assert {t.scenario["duration"] for t in quick["fig4"]} == {t.scenario["duration"] for t in full["fig4"]}
    assert [t.scenario for t in quick["fig4"]] == [t.scenario for t in full["fig4"]]
    assert ew.HIST_N in {t.labels["n"] for t in quick["fig6b"]}


@pytest.mark.parametrize("quick", [True, False])
def test_more_seeds_give_a_superset_of_the_runs(quick: bool) -> None:
    two, three = ew.experiments(quick, 2), ew.experiments(quick, 3)
    assert set(two) == set(three)
    for name in two:
        small = [(json.dumps(t.scenario, sort_keys=True), t.seed, json.dumps(t.labels, sort_keys=True))
                 for t in two[name]]
        big = {(json.dumps(t.scenario, sort_keys=True), t.seed, json.dumps(t.labels, sort_keys=True))
               for t in three[name]}
        assert set(small) <= big and len(big) == len(small) * 3 // 2, name
        assert {t.seed for t in three[name]} == {1, 2, 3}


# ------------------------------------------------------------------------------------------- synthetic runs


def _rec(labels: Dict[str, Any], seed: int, summary: Dict[str, float],
         extra: Dict[str, float] | None = None) -> Dict[str, Any]:
    return {"labels": labels, "seed": seed, "summary": summary, "extra": extra or {}}


def _dumbbell_values(p: str, n: int, alpha: float, seed: int, kind: str) -> Dict[str, float]:
    """The paper's picture (kind "paper"), or its reversal ("reversed"), or noise that no 3 seeds decide
    ("noisy")."""
    dec = math.log10(n / 100)
    u0 = {"red1": 0.90, "exp": 0.90, "red2": 0.95}[p] + (0.02 if alpha == 0.3 else 0.0)
    l0 = {"red1": 0.030, "exp": 0.030, "red2": 0.040}[p] - (0.005 if alpha == 0.3 else 0.0)
    jit = 0.001 * (seed - 2)
    util, loss = u0 + 0.02 * dec + jit, l0 - 0.004 * dec + jit / 10
    h, mean_w, std_w = 1.0 + jit, 1419.0 * n / 200, 48.5 * math.sqrt(n / 200)
    if kind == "reversed":
        util, loss, h = u0 - 0.12 - 0.02 * dec + jit, l0 / 10 + 0.004 * dec, float(n)
        mean_w, std_w = 900.0 * n / 200, 70.0 * n / 200
    elif kind == "noisy":  # the seeds disagree, in opposite directions for RED2 and at the two N
        sign = (-1 if p == "red2" else 1) * (1 if n == 100 else -1)
        util = 0.93 + (0.01 if p == "red2" else 0.0) + 0.06 * (seed - 2) * sign
        loss = 0.02 + 0.01 * (seed - 2) * (-1 if p == "red2" else 1)
        h = 2.0 * 3.0 ** (seed - 2)
        std_w *= 1.0 + 0.4 * (seed - 2)
    d = 4e-3 * (n / 100) ** -0.8
    return {"utilization": util, "loss_rate": loss, "delay_mean_s": d, "delay_std_s": d, "h": h,
            "agg_mean": mean_w * (1 + jit), "agg_std": std_w * (1 + jit), "agg_ks": 0.02 + 0.001 * seed,
            "hop1_utilization": 0.9}


def _records(kind: str = "paper") -> Dict[str, List[Dict[str, Any]]]:
    out: Dict[str, List[Dict[str, Any]]] = {name: [] for name in ew.experiments(False, 1)}

    def add(name: str, reading: str, profiles: Any, ns: Any, alpha: float = ew.ALPHA,
            **extra_labels: Any) -> None:
        for p in profiles:
            for n in ns:
                for seed in SEEDS:
                    v = _dumbbell_values(p, n, alpha, seed, kind)
                    out[name].append(_rec({"reading": reading, "profile": p, "alpha": alpha, "n": n,
                                           **extra_labels}, seed, v, v))

    rest = [n for n in ew.GRID if n not in ew.CMP]
    add("fig4", "principal", ew.PROFILES, ew.CMP)
    add("fig4_grid", "principal", ew.PROFILES, rest)
    add("fig5", "principal", ("red1", "red2"), ew.CMP, 0.3)
    add("fig5_grid", "principal", ("red1", "red2"), rest, 0.3)
    add("gentle_off", ew.GENTLE_OFF, ew.PROFILES, ew.CMP)
    add("gentle_off", ew.GENTLE_OFF, ("red1", "red2"), ew.CMP, 0.3)
    add("gentle_off_grid", ew.GENTLE_OFF, ew.PROFILES, rest)
    add("sack", ew.SACK, ew.PROFILES, (100, 200, 1000))
    add("always_mark", ew.ALWAYS, ew.PROFILES, ew.CMP)
    add("always_mark", ew.ALWAYS, ("red1", "red2"), ew.CMP, 0.3)
    add("fig6b", ew.ALWAYS, ("red1",), (ew.HIST_N,))
    add("fig6b", "principal", ("red1",), (ew.HIST_N,))
    add("fig6b", ew.GENTLE_OFF, ("red1",), (ew.HIST_N,))
    add("pipe", "principal", ("red1",), (ew.HIST_N,), rtt="one-way")
    add("pipe", ew.GENTLE_OFF, ("red1",), (ew.HIST_N,), rtt="one-way")
    add("modes", "marking", ew.PROFILES, ew.CMP)
    add("modes", "threshold", ("exp",), ew.CMP)
    for v in ew.SENS_VARIANTS:
        add("sensitivity", v, ("red1", "red2"), ew.CMP)
    for name, reading in (("fig8", "principal"), ("fig8_grid", "principal"), ("fig8_off", ew.GENTLE_OFF),
                          ("fig8_mark", ew.ALWAYS)):
        for p in ew.PROFILES:
            for n in (ew.CMP if name != "fig8_grid" else rest):
                for seed in SEEDS:
                    v = _dumbbell_values(p, n, ew.ALPHA, seed, kind)
                    v["utilization"] = (0.955 if kind == "paper" else 0.90) + 0.015 * math.log10(n / 100) \
                        + 0.001 * (seed - 2)
                    out[name].append(_rec({"reading": reading, "profile": p, "n": n}, seed, {}, v))
    for variant in ew.MH_VARIANTS:
        for n in ew.CMP:
            for seed in SEEDS:
                v = _dumbbell_values("red1", n, ew.ALPHA, seed, kind)
                out["fig8_setups"].append(_rec({"reading": variant, "profile": "red1", "n": n}, seed, {}, v))
    return out


def _verdict(cid: str, results: Dict[str, List[Dict[str, Any]]]) -> str:
    outcome = ew.CLAIMS.function(cid)(Context(results, quick=False))
    verdict = claim_result([t.result for t in outcome.tests])
    if verdict != HOLDS:
        assert outcome.why, cid
    return verdict


@pytest.fixture()
def fake_model(monkeypatch: pytest.MonkeyPatch) -> Dict[str, Any]:
    """The chain's points replaced by values following Theorems 1-2 (the real chain is tested in
    tests/test_models_eun_wang.py); ``pts["decay"]`` switches E[p] to a power-law decay."""
    state = {"mark": "bounded"}

    def point(n: int, i: int) -> Dict[str, float]:
        mark = 0.008 + 0.02 * n ** -0.3 if state["mark"] == "bounded" else 0.05 * n ** -0.2
        return {"utilization": math.exp(-0.7 * n ** -0.2), "mark_prob": mark * (1 + 1e-3 * i),
                "p_overload": 0.05 * n ** -0.3, "std_ratio": 3.5, "h": 0.3, "mean_queue": 3 * n ** 0.2,
                "queue_q99": round(10 * n ** 0.2), "overflow": 1e-3 * math.exp(-(n ** 0.1) * 6),
                "overflow_small_buffer": 1.6e-4 + 2e-3 * n ** -0.5, "buffer": 12 * n ** 0.3,
                "small_buffer": 12 * n ** 0.2}

    def series(n: int, fluid: bool = False) -> Dict[str, List[float]]:
        pts = [point(n, i) for i in range(ew.MODEL_SEEDS)]
        out = {k: [p[k] for p in pts] for k in pts[0]}
        if fluid:
            out["h"] = [float(n)] * ew.MODEL_SEEDS
            out["utilization"] = [0.77] * ew.MODEL_SEEDS
        return out

    def model_points(quick: bool) -> Dict[str, Any]:
        flows = ew.MODEL_FLOWS
        theory = {ct: {n: series(n) for n in flows} for ct in (ew.MODEL_CT, ew.CT)}
        beside = {(p, a): {n: series(n) for n in ew.GRID} for p in ew.PROFILES for a in (0.2, 0.3)}
        return {"beside": beside, "theory": theory, "fluid": {n: series(n, True) for n in flows},
                "flows": flows}

    monkeypatch.setattr(ew, "model_points", model_points)
    return state


PACKET_CLAIMS = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "16"]


def test_every_packet_level_claim_holds_on_the_papers_picture(fake_model: Dict[str, Any]) -> None:
    results = _records("paper")
    for cid in PACKET_CLAIMS:
        assert _verdict(cid, results) == HOLDS, cid


def test_the_claims_differ_when_the_picture_reverses(fake_model: Dict[str, Any]) -> None:
    results = _records("reversed")
    for cid in ("1", "2", "7", "8"):
        assert _verdict(cid, results) == DIFFERS, cid
    assert _verdict("3", results) == HOLDS           # delays still fall as N^(α−1)


def test_noise_leaves_the_claims_undecided(fake_model: Dict[str, Any]) -> None:
    results = _records("noisy")
    for cid in ("1", "5", "7"):
        assert _verdict(cid, results) == INCONCLUSIVE, cid


def test_claim_8_tests_the_papers_numbers() -> None:
    results = _records("paper")
    out = ew.CLAIMS.function("8")(Context(results, quick=False))
    tests = {t.quantity.split(" at N")[0]: t for t in out.tests}
    assert tests["mean ΣW"].region.bounds == pytest.approx((0.9 * 1419, 1.1 * 1419))
    assert tests["std ΣW"].region.bounds == pytest.approx((0.8 * 48.52, 1.2 * 48.52))
    assert all(t.result == HOLDS for t in out.tests)
    # the paper's mean with our pipe's mean (≈ 900) differs
    for r in results["fig6b"]:
        r["extra"]["agg_mean"] = 900.0 + r["seed"]
    out = ew.CLAIMS.function("8")(Context(results, quick=False))
    assert claim_result([t.result for t in out.tests]) == DIFFERS and "pipe" in out.why


def test_claim_5_tests_a_little_larger_loss() -> None:
    results = _records("paper")
    assert _verdict("5", results) == HOLDS                    # RED2/RED1 = 4/3
    for r in results["fig4"]:
        if r["labels"]["profile"] == "red2":
            r["summary"]["loss_rate"] *= 2.5                  # 3.3x: more than "a little"
    assert _verdict("5", results) == DIFFERS


def test_the_alternative_readings_carry_the_same_tests(fake_model: Dict[str, Any]) -> None:
    results = _records("paper")
    for cid in PACKET_CLAIMS:
        out = ew.CLAIMS.function(cid)(Context(results, quick=False))
        names = [a.name for a in out.alternatives]
        assert ew.GENTLE_OFF in names and ew.ALWAYS in names, cid
        quantities = [t.quantity for t in out.tests]
        for alt in out.alternatives:
            assert [t.quantity for t in alt.tests] == quantities, (cid, alt.name)


def test_model_claims(fake_model: Dict[str, Any]) -> None:
    ctx = Context({}, quick=False)
    for cid in ("10", "11", "12", "13", "15", "15-eq27"):
        out = ew.CLAIMS.function(cid)(ctx)
        assert claim_result([t.result for t in out.tests]) == HOLDS, (cid, [str(t) for t in out.tests])
    fake_model["mark"] = "power"            # E[p] ∝ N^−0.2: a decay, not bounded away from 0
    out = ew.CLAIMS.function("11")(ctx)
    assert claim_result([t.result for t in out.tests]) == DIFFERS
    out = ew.CLAIMS.function("14")(ctx)      # falling P{ΣW ≥ NCT} in the fake chain
    assert claim_result([t.result for t in out.tests]) == HOLDS


def test_the_decay_ratio_separates_power_and_log_decays() -> None:
    def ratio(f: Any) -> float:
        return math.log(f(1e5) / f(1e3)) / math.log(f(1e3) / f(10))

    assert ratio(lambda n: n ** -0.3) == pytest.approx(1.0)
    assert ratio(lambda n: math.log(n) ** -0.7) == pytest.approx(ew.LOG_DECAY_RATIO)
    assert ratio(lambda n: 0.008 + 0.02 * n ** -0.3) < ew.LOG_DECAY_RATIO
    # one-sided: a bounded function still far from its limit can exceed it (so "differs" means "not shown")
    assert ratio(lambda n: 0.01 + n ** -0.5) > ew.LOG_DECAY_RATIO


# ------------------------------------------------------------------------------------------- engine runs


def test_extracts_on_tiny_runs() -> None:
    sc = ew.dumbbell(20, "red1", 0.2, cwnd=True)
    sc["duration"], sc["warmup"] = "12s", "4s"
    rec = runner.run_one(runner.Task(sc, 1, {}, extract="bufferlab.reproduce.eun_wang:window_stats"))
    x = rec["extra"]
    assert x["h"] > 0 and x["agg_std"] > 0 and sum(x["hist_counts"]) > 0
    assert 0 < rec["summary"]["utilization"] <= 1
    for kw in ({}, {"hops": 3, "scale": "n"}):
        mh = ew.multihop(10, "red1", **kw)
        mh["duration"], mh["warmup"] = "8s", "2s"
        rec = runner.run_one(runner.Task(mh, 1, {}, extract="bufferlab.reproduce.eun_wang:hop2"))
        assert 0 < rec["extra"]["utilization"] <= 1 and np.isfinite(rec["extra"]["delay_std_s"])


def _tiny(sc: Dict[str, Any]) -> Dict[str, Any]:
    """The same scenario with 4 flows (per group) for 6 s, so that the whole design runs in seconds."""
    sc = json.loads(json.dumps(sc))
    sc["duration"], sc["warmup"] = "6s", "1s"
    if "bottleneck" in sc:
        sc["bottleneck"]["rate"] = "400kbps"
        sc["flows"]["count"] = 4
    else:
        sc["parking_lot"]["rate"] = ["400kbps", "800kbps"] + (["800kbps"] if sc["parking_lot"]["hops"] == 3
                                                                else [])
        for g in sc["flows"]:
            g["count"] = 4
        q = sc["parking_lot"]["queue"][1]
        if q["flows"] != "configured":
            q["flows"] = 4
    return sc


@pytest.mark.slow
def test_a_reproduction_on_tiny_runs_writes_a_table_the_rules_accept(
        tmp_path: Path, fake_model: Dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    design = ew.experiments

    def tiny(quick: bool, seeds: int) -> Dict[str, List[runner.Task]]:
        return {name: [runner.Task(_tiny(t.scenario), t.seed, t.labels, t.extract) for t in tasks]
                for name, tasks in design(quick, seeds).items()}

    monkeypatch.setattr(ew, "experiments", tiny)
    doc = reproduce("eun-wang", tmp_path, quick=True, seeds=2, max_seeds=2)
    written = json.loads((tmp_path / "claims.json").read_text())
    assert recheck(written) == []
    assert [c["id"] for c in written["claims"]] == [c.id for c in ew.CLAIMS if not c.model_check]
    assert [c["id"] for c in written["model_checks"]] == ["15-eq27"]
    assert written["principal_reading"] == ew.PRINCIPAL
    assert all(c["paper"]["where"] for c in written["claims"])
    assert (tmp_path / "report.md").exists() and (tmp_path / "fig4.png").exists()
    assert doc["quick"] is True
